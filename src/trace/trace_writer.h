/*
 * trace_writer: records a profiling run into a .pqt trace (format in
 * doc/trace-format.md).  The profiler calls it from its drain loop; it
 * only encodes and compresses, it knows nothing about perf_event.
 *
 * Records are buffered and written as self-contained, checksummed zstd
 * frames every few hundred KiB, every few thousand records, or when a
 * frame has been open longer than frame_ms (checked on each write; call
 * trace_writer_flush from an idle loop to bound latency).  A run killed
 * mid-way therefore leaves a readable prefix.  The stack table and the
 * mappings live for the whole file (a frame defines only what is new),
 * and samples go out in column-coded blocks, which is what keeps a
 * sample near a byte or two.  The trace is written in
 * place, not through a temporary file: a trace without the END record
 * that trace_writer_close(w, 1, ...) appends is reported as incomplete,
 * so an interrupted file never passes for a whole one.
 *
 * Write calls return 0 or a negative PQ_E* code.  Errors are sticky: after
 * the first one every call fails, and trace_writer_close reports it.
 */
#ifndef PQ_TRACE_WRITER_H
#define PQ_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "core/pq_error.h"
#include "trace/trace_format.h"

typedef struct trace_writer trace_writer;

struct trace_writer_opts {
	size_t frame_bytes;      /* close a frame after this much data (0: default) */
	unsigned frame_records;  /* ... or this many records (0: default) */
	unsigned frame_ms;       /* ... or when it is this old (0: default) */
	int level;               /* zstd level (0: default) */
	unsigned time_unit_ns;   /* resolution of sample times (0: default 1000) */
	unsigned block;          /* samples per SAMPLES record (0: default) */
};

/* How the sampling went, for the END record (trace_writer_set_run). */
struct trace_run_info {
	uint64_t lost;           /* samples the kernel dropped */
	uint64_t throttles;      /* PERF_RECORD_THROTTLE records */
	uint64_t unthrottles;    /* PERF_RECORD_UNTHROTTLE records */
	uint64_t active_ns;      /* time the sampling event was enabled */
	uint64_t requested_hz;   /* the frequency asked for (0: period mode) */
};

struct trace_write_stats {
	uint64_t bytes;          /* file size so far, preamble included */
	uint64_t raw_bytes;      /* encoded record bytes before compression */
	uint64_t frames;         /* zstd frames, header frame included */
	uint64_t records;        /* all records, STACK_DEF included */
	uint64_t samples;
	uint64_t stack_defs;
	double bytes_per_sample; /* bytes / samples (0 when no samples) */
};

/*
 * Create path (truncating it) and write the preamble and the header frame.
 * header must be a JSON object; it is stored verbatim (compact).  Returns
 * NULL with *err set on failure.
 */
trace_writer *trace_writer_open(const char *path, const json_t *header, pq_error *err);
trace_writer *trace_writer_open_opts(const char *path, const json_t *header,
                                     const struct trace_writer_opts *opts, pq_error *err);

/* An executable mapping of the profiled process. build_id may be NULL. */
int trace_write_mmap(trace_writer *w, uint64_t start, uint64_t len, uint64_t pgoff,
                     const uint8_t *build_id, size_t build_id_len, const char *path);

/*
 * One sample of operation op: weight is the period (or 1), time is the
 * perf timestamp in ns, ips[0..n) the stack innermost first (n may be 0,
 * at most TRACE_MAX_STACK).
 */
int trace_write_sample(trace_writer *w, uint64_t op, uint64_t weight, uint64_t time,
                       const uint64_t *ips, int n);

int trace_write_op_begin(trace_writer *w, uint64_t op, const char *name,
                         uint64_t iteration, uint64_t time);
int trace_write_op_end(trace_writer *w, uint64_t op, const char *name,
                       uint64_t iteration, uint64_t time);

/* The kernel reported count lost samples. */
int trace_write_lost(trace_writer *w, uint64_t count);

/* How the stacks of one operation were unwound; written before END. */
int trace_write_unwind_stats(trace_writer *w, const struct trace_unwind_stats *st);
/* Totals for the END record; the last call before close wins. */
void trace_writer_set_run(trace_writer *w, const struct trace_run_info *run);

/* Close the current frame and write it out now. */
int trace_writer_flush(trace_writer *w);

void trace_writer_stats(const trace_writer *w, struct trace_write_stats *st);

/* The sticky error, or NULL if none so far. */
const pq_error *trace_writer_error(const trace_writer *w);

/*
 * Flush, append the END record when complete is non-zero, fsync and
 * close; frees w in every case.  stats (may be NULL) receives the final
 * numbers.  Returns 0 or the first error of the writer's life.
 */
int trace_writer_close(trace_writer *w, int complete, struct trace_write_stats *stats,
                       pq_error *err);

#endif
