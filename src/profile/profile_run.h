/*
 * profile_run: the parent side of `pqprof profile`, from an instance
 * library to a .pqt trace.  For each operation it runs sampled runner
 * children (job "profile") and, before them, one counting child (job
 * "count": exact calls of the group functions through uprobes).  The
 * child_run hooks receive the sampling fd, drain the ring buffer every
 * tick and write what comes out to the trace: mappings (with the GNU
 * build id read from each file), samples (dwarf mode: unwound here, in
 * the parent, before the PCs are written), lost counts and one
 * OP_BEGIN/OP_END pair per child.
 *
 * Trace conventions this file defines on top of doc/trace-format.md
 * (documented for readers in doc/profile-report.md):
 *   - one trace holds every profiled operation; the op index is the
 *     enum pq_op value, OP_BEGIN/OP_END carry its name;
 *   - one OP_BEGIN/OP_END pair per child ("per-run" markers, header key
 *     "op_markers"): OP_BEGIN's iteration is the number of calls of that
 *     operation already sampled before the child, OP_END's the number
 *     after it, so the last OP_END of an op is the op count;
 *   - the MMAP records after an OP_BEGIN describe that child's address
 *     space (each child is a fresh process, possibly laid out differently);
 *   - a LOST record before an OP_END belongs to that child;
 *   - the JSON header is written when the first child has attached (so it
 *     names the event that really ran) and holds the exact call counts,
 *     which are measured first;
 *   - dwarf mode: one UNWIND_STATS record per operation just before END,
 *     saying how the unwinder recovered frames and how many stacks did
 *     not reach the scheme's entry frame.
 * The trace is opened lazily and written in place; a failed run leaves an
 * incomplete trace (no END record) and an error.
 *
 * Library code: nothing here prints; progress lines go to a callback.
 */
#ifndef PQ_PROFILE_RUN_H
#define PQ_PROFILE_RUN_H

#include <jansson.h>
#include <stdint.h>

#include "core/pq_error.h"
#include "profile/groups.h"
#include "runner/op_ctx.h"
#include "trace/trace_writer.h"

struct profile_opts {
	const char *lib;               /* instance library */
	const enum pq_op *ops;         /* operations to profile, in order */
	int nops;
	const char *event;             /* auto (NULL), cycles, cpu-clock, task-clock */
	unsigned freq;                 /* samples/s, 0: the sampler's default */
	unsigned long long period;     /* events per sample, when freq is 0 */
	const char *callgraph;         /* auto (NULL), fp, dwarf, none; auto is fp when the
	                                * instance's cflags keep frame pointers, else dwarf */
	unsigned stack_bytes;          /* dwarf stack copy, 0: default */
	unsigned pages;                /* ring data pages, 0: default */
	long min_samples;              /* per op, 0: 2000 */
	double max_seconds;            /* per op, time in sampled calls, 0: 30 */
	long mlen;                     /* message length, 0: 64 */
	double timeout_s;              /* per child, 0: 900 */
	const struct group_set *groups;/* stored in the header; their globs are counted */
	const char *const *count_globs;/* further functions to count */
	int ncount_globs;
	int no_counts;                 /* skip the counting child */
	long count_iters;              /* calls counted per op, 0: 3 */
	json_t *instance;              /* descriptor (borrowed), NULL: described here */
	json_t *environment;           /* borrowed, may be NULL */
	const char *command;           /* for the header, may be NULL */
	void (*progress)(void *user, const char *line);
	void *progress_user;
	struct profile_op_summary *op_out; /* profile_record_op: receives the op's figures, may be NULL */
	const char *output_log;        /* the scheme's stdout/stderr go here, or nowhere: NULL (output_log.h) */
};

struct profile_op_summary {
	enum pq_op op;
	uint64_t samples, lost, calls;
	uint64_t throttles;            /* PERF_RECORD_THROTTLE records */
	uint64_t truncated;            /* dwarf mode: stacks the unwinder truncated */
	struct trace_unwind_stats unwind; /* dwarf mode: how frames were recovered */
	unsigned runs;                 /* children */
	double seconds;                /* time in sampled calls */
	/* Perturbation: calls with the sampler on and off, interleaved (sums, seconds). */
	double on_cpu_s, off_cpu_s, on_wall_s, off_wall_s;
	uint64_t on_calls, off_calls;
	/* What the scheme printed while sampled (output_log.h), new reference or NULL: the caller decrefs. */
	json_t *scheme_output;
};

struct profile_summary {
	char event[32];                /* the event that ran */
	char fallback[160];            /* why not cycles, "" when cycles ran */
	unsigned freq;
	unsigned long long period;
	int nops;
	struct profile_op_summary ops[PQ_OP_COUNT];
	struct trace_write_stats trace;
	json_t *calls;                 /* the header's "calls" object (new reference) */
};

/*
 * Record opts->ops into trace_path.  sum (may be NULL) receives the
 * figures; free it with profile_summary_free.  Returns 0 or negative
 * PQ_E*: PQ_ESCHEME when a child crashed, failed or timed out (the
 * message says how), PQ_EPERF when sampling could not be set up.
 */
int profile_record(const struct profile_opts *opts, const char *trace_path,
                   struct profile_summary *sum, pq_error *err);

/* One operation, opts->ops ignored; its figures go to opts->op_out when set. */
int profile_record_op(const struct profile_opts *opts, enum pq_op op, const char *trace_path,
                      pq_error *err);

void profile_summary_free(struct profile_summary *sum);

/*
 * The perturbation of one operation as a record object: mean CPU ns per
 * call with the sampler on and off and their ratio, the same for wall
 * time, and the number of calls of each; NULL when nothing was measured.
 */
json_t *profile_perturbation_json(const struct profile_op_summary *os);

/* The unit of an event's sample weights: "cycles" for cycles, "ns" for clocks. */
const char *profile_event_unit(const char *event);

/* GNU build id of an ELF file as lower-case hex into hex (>= 41 bytes);
 * raw bytes into raw (>= 20) when not NULL.  Returns its length in bytes
 * (0: none) or negative PQ_E*. */
int profile_read_build_id(const char *path, unsigned char *raw, char *hex, size_t hexlen,
                          pq_error *err);

#endif
