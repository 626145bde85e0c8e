/*
 * trace_format: the constants and byte-level encodings of the .pqt sample
 * trace, shared by trace_writer.c and trace_reader.c so the two cannot
 * drift apart.  doc/trace-format.md is the prose description of the same
 * thing.  Not an API for other modules: they use trace_writer.h and
 * trace_reader.h.
 */
#ifndef PQ_TRACE_FORMAT_H
#define PQ_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "core/grow.h"

/* Uncompressed preamble: "PQPT", u16 major, u16 minor (little-endian). */
#define TRACE_MAGIC "PQPT"
#define TRACE_PREAMBLE_LEN 8
#define TRACE_VERSION_MAJOR 2
#define TRACE_VERSION_MINOR 1
/* The oldest major version this pqprof still reads (1.x: per-frame tables). */
#define TRACE_VERSION_MAJOR_OLDEST 1

/* Record types.  Frame 0 holds exactly one HEADER record. */
enum trace_rec_type {
	TRACE_REC_HEADER = 1,
	TRACE_REC_MMAP = 2,
	TRACE_REC_STACK_DEF = 3,
	TRACE_REC_SAMPLE = 4,
	TRACE_REC_OP_BEGIN = 5,
	TRACE_REC_OP_END = 6,
	TRACE_REC_LOST = 7,
	TRACE_REC_END = 8,
	TRACE_REC_UNWIND_STATS = 9,
	TRACE_REC_FRAME = 10,    /* 2.x: first record of every frame after 0 */
	TRACE_REC_SAMPLES = 11,  /* 2.0: a block of samples, column-coded */
	TRACE_REC_SAMPLES_B = 12, /* 2.1: the same, stack column byte-coded */
};
#define TRACE_REC_TYPE_MAX 12
/* SAMPLES_B: a stack code of at least this is an escape byte plus a varint. */
#define TRACE_STACK_ESCAPE 255u

/* UNWIND_STATS payload: these fields as varints, in this order. */
struct trace_unwind_stats {
	uint64_t op;
	uint64_t stacks;          /* samples unwound */
	uint64_t complete;        /* reached the scheme's entry frame */
	uint64_t incomplete;
	uint64_t frames_cfi, frames_fp, frames_scan, frames_stitched;
};

/*
 * Limits.  The writer never exceeds them; the reader refuses anything
 * beyond them, which bounds its memory on hostile input.
 */
#define TRACE_MAX_FRAME_CONTENT (4u << 20)  /* decompressed bytes per frame */
#define TRACE_MAX_STACK 1024                /* frames per stack */
#define TRACE_MAX_BUILD_ID 20
#define TRACE_MAX_STRING 4096               /* paths and op names */
#define TRACE_MAX_HEADER (1u << 20)         /* JSON header text */
/* 2.x: the stack table lives for the whole file, so it has its own bounds. */
#define TRACE_MAX_STACKS (1u << 22)         /* stacks defined in one file */
#define TRACE_MAX_TABLE_ADDRS (1u << 24)    /* addresses over all of them */
#define TRACE_MAX_BLOCK 65536u              /* samples in one SAMPLES record */

/* Writer defaults: a frame is closed after this much data or time. */
#define TRACE_DEFAULT_FRAME_BYTES (256u << 10)
#define TRACE_DEFAULT_FRAME_RECORDS 16384u
#define TRACE_DEFAULT_FRAME_MS 5000u
#define TRACE_DEFAULT_LEVEL 19
#define TRACE_HEADER_LEVEL 19               /* the header frame, written once */
#define TRACE_DEFAULT_BLOCK 1024u           /* samples per SAMPLES record */
#define TRACE_DEFAULT_TIME_UNIT 1000u       /* ns per sample-time unit (1 us) */

/* zstd frame magic (little-endian on disk) and the skippable-frame range. */
#define TRACE_ZSTD_MAGIC 0xFD2FB528u
#define TRACE_ZSTD_SKIPPABLE_MASK 0xFFFFFFF0u
#define TRACE_ZSTD_SKIPPABLE 0x184D2A50u

#define TRACE_VARINT_MAX 10  /* bytes in the longest LEB128 u64 */

static inline uint64_t trace_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t trace_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Append v as unsigned LEB128 at p (room for TRACE_VARINT_MAX); returns bytes. */
static inline size_t trace_put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/*
 * Decode a LEB128 u64 from [*p, end).  Returns 0 and advances *p, or -1 on
 * a varint that runs past end, is longer than 10 bytes, or overflows 64
 * bits.
 */
static inline int trace_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	uint64_t v = 0;
	const uint8_t *q = *p;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (q == end)
			return -1;
		uint8_t b = *q++;
		if (shift == 63 && (b & 0x7e))
			return -1;  /* bits beyond 64 */
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*p = q;
			*out = v;
			return 0;
		}
	}
	return -1;
}

/*
 * The sample-id coder of 2.x SAMPLES records, the same on both sides:
 * sampled stacks are kept ordered by how often they were sampled so far
 * (most first), and a sample names its stack by that rank (+1), or by 0
 * for the oldest defined stack that no sample has named yet (the one a
 * writer has just defined).  Hot stacks get small numbers.
 */
struct trace_rank {
	uint32_t *order;   /* stack id at each rank */
	uint32_t *pos;     /* rank of each stack id (valid once sampled) */
	uint64_t *count;   /* samples per stack id */
	size_t n;          /* stacks sampled so far (= ranks in use) */
	size_t cap;
};

/* Room in the rank coder for need stack ids; -1 when out of memory. */
static inline int trace_rank_reserve(struct trace_rank *k, size_t need)
{
	if (need <= k->cap)
		return 0;
	size_t c_order = k->cap, c_pos = k->cap, c_count = k->cap;
	int r = pq_grow(&k->order, &c_order, need, sizeof *k->order, 256);
	if (r == 0)
		r = pq_grow(&k->pos, &c_pos, need, sizeof *k->pos, 256);
	if (r == 0)
		r = pq_grow(&k->count, &c_count, need, sizeof *k->count, 256);
	if (r < 0)
		return -1;
	k->cap = c_order < c_pos ? (c_order < c_count ? c_order : c_count) : (c_pos < c_count ? c_pos : c_count);
	return 0;
}

/* Stack id id (== r->n, the next unsampled one) joins with count 0. */
static inline void trace_rank_add(struct trace_rank *r, uint32_t id)
{
	r->order[r->n] = id;
	r->pos[id] = (uint32_t)r->n;
	r->count[id] = 0;
	r->n++;
}

/* Count one more sample of id, keeping counts non-increasing by rank. */
static inline void trace_rank_hit(struct trace_rank *r, uint32_t id)
{
	size_t at = r->pos[id];
	uint64_t c = r->count[id];
	size_t lo = 0, hi = at;  /* leftmost rank whose count is c */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->count[r->order[mid]] > c)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t other = r->order[lo];
	r->order[lo] = id;
	r->order[at] = other;
	r->pos[id] = (uint32_t)lo;
	r->pos[other] = (uint32_t)at;
	r->count[id] = c + 1;
}

static inline uint16_t trace_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t trace_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

#endif
