/*
 * scheme_output: what a scheme writes to stdout and stderr while the
 * runner works.  Schemes print (timing lines while signing, debug dumps);
 * that output must not reach pqprof's output or records, and writing it
 * must not cost a timed call more than the write itself.  The runner puts
 * a pipe of its own under fds 1 and 2, flushes stdio and drains the pipes
 * at points the jobs choose outside their timed regions (job_bench: after
 * every call's counters are read), and forwards the bytes to the runner's
 * original stdout/stderr, which the parent captures into the job's log.
 * A watcher thread drains only between calls, or when a pipe is half
 * full (a flood in one call), so a scheme can never block on its own
 * output.  Bytes are counted per stream and per operation.
 */
#ifndef PQ_SCHEME_OUTPUT_H
#define PQ_SCHEME_OUTPUT_H

#include <jansson.h>
#include <stddef.h>

/* Put the pipes in place; -1 (and nothing changed) when they cannot be made. */
int scheme_output_open(void);

/*
 * Flush stdio and drain both pipes now, counting what was there for `op`
 * (an enum pq_op, or -1: set-up outside any operation).  Adds the bytes
 * drained to *out_bytes and *err_bytes when they are not NULL.
 */
void scheme_output_settle(int op, size_t *out_bytes, size_t *err_bytes);

/* {"stdout": {"sign": N, ...}, "stderr": {...}} of everything drained so far (NULL when nothing). */
json_t *scheme_output_json(void);

/* Async-signal-safe: move what is in the pipes to the original fds (crash, time limit). */
void scheme_output_flush_raw(void);

#endif
