/*
 * trace_reader: reads a .pqt trace back (format in doc/trace-format.md),
 * from a file or from a memory buffer, one decoded record at a time.
 *
 * Built for untrusted input: every length is checked against the frame
 * it sits in, memory is bounded by the per-frame limits of
 * trace_format.h, and the first problem (truncation, checksum mismatch,
 * bad varint, unknown record type, ...) stops reading with a one-line
 * message that says what prefix was readable, e.g.
 *   "t.pqt: corrupt frame 12 at byte 48213 (checksum mismatch);
 *    12 frames / 50211 samples readable"
 * Records delivered before the error stay valid data: a trace cut short
 * by a crash is still usable up to the cut.
 *
 * Reads format 2.x (tables that persist across frames, SAMPLES blocks,
 * which come back one SAMPLE record per sample) and 1.x (tables per
 * frame).  Not a symbolizer: samples come back as raw addresses.
 */
#ifndef PQ_TRACE_READER_H
#define PQ_TRACE_READER_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "core/pq_error.h"
#include "trace/trace_format.h"

typedef struct trace_reader trace_reader;

/*
 * One decoded record.  Pointers (ips, path, name) point into the reader
 * and stay valid only until the next trace_reader_next call.
 */
struct trace_record {
	enum trace_rec_type type;
	uint64_t frame;        /* zstd frame index, 0 = header frame */
	uint64_t frame_offset; /* file offset of that frame */
	union {
		struct {
			uint64_t start, len, pgoff;
			uint8_t build_id[TRACE_MAX_BUILD_ID];
			size_t build_id_len;
			const char *path;
		} mmap;
		struct {
			uint64_t id;
			const uint64_t *ips;  /* innermost first */
			size_t n;
		} stack;
		struct {
			uint64_t op, weight, time;
			uint64_t stack_id;
			const uint64_t *ips;  /* innermost first */
			size_t n;
		} sample;
		struct {
			uint64_t op, iteration, time;
			const char *name;
		} op;        /* OP_BEGIN and OP_END */
		struct {
			uint64_t count;
		} lost;
		struct {
			uint64_t samples, records;  /* totals the writer saw */
			/* 2.x: how the sampling went (0 in 1.x files) */
			uint64_t lost, throttles, unthrottles, active_ns, requested_hz;
		} end;
		struct trace_unwind_stats unwind;  /* UNWIND_STATS */
		struct {
			uint64_t index;             /* 2.x FRAME: the frame's own index */
		} frame;
	} u;
};

struct trace_read_stats {
	uint64_t file_bytes;
	uint64_t frames;        /* frames read to their end, header frame included */
	uint64_t records;       /* records decoded, HEADER and STACK_DEF included */
	uint64_t by_type[TRACE_REC_TYPE_MAX + 1];
	uint64_t skipped;       /* unknown records of a newer minor version, skipped */
	uint64_t samples;
	uint64_t lost;          /* sum of LOST counts */
	int complete;           /* END record seen */
	/* From a 2.x END record (run_known = 1), else zero. */
	int run_known;
	uint64_t run_lost, run_throttles, run_unthrottles, run_active_ns, run_requested_hz;
	uint64_t stacks;        /* stacks defined (distinct in 2.x files) */
	uint64_t time_unit_ns;  /* resolution of sample times (1 in 1.x files) */
};

/* Open a file; checks the preamble and reads the header frame. */
int trace_reader_open(trace_reader **out, const char *path, pq_error *err);

/*
 * Same over a caller-owned buffer that must outlive the reader; name is
 * used in messages (NULL: "<memory>").
 */
int trace_reader_open_mem(trace_reader **out, const void *buf, size_t len,
                          const char *name, pq_error *err);

/* The caller's header object, as given to trace_writer_open.  Borrowed. */
const json_t *trace_reader_header(const trace_reader *r);
/* "pqprof 0.1.0" or whatever wrote the file.  Borrowed. */
const char *trace_reader_creator(const trace_reader *r);
void trace_reader_version(const trace_reader *r, unsigned *major, unsigned *minor);

/*
 * Decode the next record.  Returns 1 with *rec filled, 0 at the end of
 * the data, or a negative PQ_E* code with *err set.  Errors are sticky.
 */
int trace_reader_next(trace_reader *r, struct trace_record *rec, pq_error *err);

/* Call fn for every remaining record; fn returns non-zero to stop early. */
int trace_reader_foreach(trace_reader *r, int (*fn)(const struct trace_record *, void *),
                         void *ctx, pq_error *err);

/*
 * After next() returned 0: 0 if the trace ended with its END record,
 * otherwise PQ_EINPUT and "NAME: incomplete (no end marker); ...".
 */
int trace_reader_check_complete(const trace_reader *r, pq_error *err);

void trace_reader_stats(const trace_reader *r, struct trace_read_stats *st);

const char *trace_rec_type_name(enum trace_rec_type t);

void trace_reader_close(trace_reader *r);

#endif
