/*
 * trace_reader: walks the zstd frames of a .pqt trace and decodes their
 * records, validating every length and index on the way.  Files are
 * mmap'd; open_mem reads a caller's buffer, which is what the fuzz
 * harness uses.  See trace_reader.h for the contract.
 */
#include "config.h"
#include "trace/trace_reader.h"
#include "core/grow.h"
#include "core/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

struct stack_ref {
	size_t off;
	uint32_t n;
};

struct trace_reader {
	char name[4096];
	const uint8_t *data;
	size_t size;
	void *map;          /* mmap'd file, or NULL */
	char *owned;        /* file read into memory when mmap is not possible */
	unsigned major, minor;
	json_t *header;
	char *creator;
	ZSTD_DCtx *dctx;

	size_t pos;         /* file offset of the next frame */
	uint64_t next_frame;
	int have_frame;
	uint64_t frame;     /* index and offset of the frame in buf */
	size_t frame_off;
	uint8_t *buf;
	size_t cap, len, rpos;

	/* Decoding state; reset at every frame boundary in 1.x files, kept
	 * for the whole file in 2.x ones. */
	uint64_t prev_time, prev_first_ip;
	uint64_t prev_op_time, prev_tu, prev_weight;  /* 2.x */
	struct trace_rank rank;
	uint64_t time_unit;
	uint64_t *ips;
	size_t nips, capips;
	struct stack_ref *stacks;
	size_t nstacks, capstacks;

	/* The SAMPLES block being handed out one sample at a time. */
	uint64_t blk_op;
	uint64_t *blk;      /* 3 per sample: stack id, weight, time */
	size_t nblk, iblk, capblk;

	char str[TRACE_MAX_STRING + 1];
	struct trace_read_stats st;
	int status;         /* 0 reading, 1 done, negative: sticky error */
	pq_error err;
};

/* What a record decoder works on: the payload of one record. */
struct cursor {
	const uint8_t *p, *end;
};

const char *trace_rec_type_name(enum trace_rec_type t)
{
	switch (t) {
	case TRACE_REC_HEADER: return "HEADER";
	case TRACE_REC_MMAP: return "MMAP";
	case TRACE_REC_STACK_DEF: return "STACK_DEF";
	case TRACE_REC_SAMPLE: return "SAMPLE";
	case TRACE_REC_OP_BEGIN: return "OP_BEGIN";
	case TRACE_REC_OP_END: return "OP_END";
	case TRACE_REC_LOST: return "LOST";
	case TRACE_REC_END: return "END";
	case TRACE_REC_UNWIND_STATS: return "UNWIND_STATS";
	case TRACE_REC_FRAME: return "FRAME";
	case TRACE_REC_SAMPLES: return "SAMPLES";
	case TRACE_REC_SAMPLES_B: return "SAMPLES_B";
	}
	return "UNKNOWN";
}

/* Record a sticky error: "<name>: <what>; N frames / M samples readable". */
static int rfail(trace_reader *r, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int rfail(trace_reader *r, int code, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	pq_fail(&r->err, code, "%s: %s; %" PRIu64 " frames / %" PRIu64 " samples readable",
	        r->name, what, r->st.frames, r->st.samples);
	r->status = -code;
	return -code;
}

/* A problem inside the records of the current frame. */
static int corrupt_rec(trace_reader *r, size_t rec_off, const char *why)
{
	return rfail(r, PQ_EINPUT, "corrupt frame %" PRIu64 " at byte %zu (record at offset %zu: %s)",
	             r->frame, r->frame_off, rec_off, why);
}

static int ensure_cap(void **p, size_t *cap, size_t need, size_t elem)
{
	return pq_grow(p, cap, need, elem, 256);
}

static void reset_decoding(trace_reader *r)
{
	if (r->major < 2) {
		r->prev_time = 0;
		r->prev_first_ip = 0;
		r->nips = 0;
		r->nstacks = 0;
	}
	r->nblk = r->iblk = 0;
	r->len = 0;
	r->rpos = 0;
}

static int frame_error(trace_reader *r, const char *why)
{
	return rfail(r, PQ_EINPUT, "corrupt frame %" PRIu64 " at byte %zu (%s)",
	             r->next_frame, r->pos, why);
}

static int truncated(trace_reader *r)
{
	return rfail(r, PQ_EINPUT, "truncated frame %" PRIu64 " at byte %zu (file ends inside the frame)",
	             r->next_frame, r->pos);
}

/*
 * Move to the next zstd frame: returns 1 when one is loaded, 0 at the end
 * of the file, negative on error.  Skippable frames are passed over.
 */
static int load_frame(trace_reader *r)
{
	if (r->have_frame) {
		r->st.frames++;
		r->have_frame = 0;
	}
	for (;;) {
		size_t left = r->size - r->pos;
		const uint8_t *p = r->data + r->pos;
		if (left == 0)
			return 0;
		if (left < 4)
			return truncated(r);
		uint32_t magic = trace_get_le32(p);
		if ((magic & TRACE_ZSTD_SKIPPABLE_MASK) == TRACE_ZSTD_SKIPPABLE) {
			if (left < 8)
				return truncated(r);
			uint64_t sz = trace_get_le32(p + 4);
			if (sz > left - 8)
				return truncated(r);
			r->pos += 8 + (size_t)sz;
			continue;
		}
		if (magic != TRACE_ZSTD_MAGIC)
			return frame_error(r, "not a zstd frame");
		if (left < 5)
			return truncated(r);
		if (!(p[4] & 0x04))
			return frame_error(r, "frame has no checksum");
		size_t csize = ZSTD_findFrameCompressedSize(p, left);
		if (ZSTD_isError(csize)) {
			if (ZSTD_getErrorCode(csize) == ZSTD_error_srcSize_wrong)
				return truncated(r);
			return frame_error(r, ZSTD_getErrorName(csize));
		}
		unsigned long long content = ZSTD_getFrameContentSize(p, csize);
		if (content == ZSTD_CONTENTSIZE_UNKNOWN)
			return frame_error(r, "frame does not declare its size");
		if (content == ZSTD_CONTENTSIZE_ERROR)
			return frame_error(r, "bad frame header");
		if (content > TRACE_MAX_FRAME_CONTENT) {
			char why[96];
			snprintf(why, sizeof why, "frame declares %llu bytes, limit %u", content,
			         TRACE_MAX_FRAME_CONTENT);
			return frame_error(r, why);
		}
		if (ensure_cap((void **)&r->buf, &r->cap, content ? (size_t)content : 1, 1) < 0)
			return rfail(r, PQ_ENOMEM, "out of memory");
		size_t got = ZSTD_decompressDCtx(r->dctx, r->buf, (size_t)content, p, csize);
		if (ZSTD_isError(got)) {
			if (ZSTD_getErrorCode(got) == ZSTD_error_checksum_wrong)
				return frame_error(r, "checksum mismatch");
			return frame_error(r, ZSTD_getErrorName(got));
		}
		if (got != content)
			return frame_error(r, "content size mismatch");
		reset_decoding(r);
		r->len = got;
		r->frame = r->next_frame++;
		r->frame_off = r->pos;
		r->pos += csize;
		r->have_frame = 1;
		return 1;
	}
}

static int get_u64(struct cursor *c, uint64_t *v)
{
	return trace_get_varint(&c->p, c->end, v);
}

/* A length-prefixed byte string of at most max bytes, borrowed. */
static int get_bytes(struct cursor *c, const uint8_t **s, size_t *n, size_t max)
{
	uint64_t len;
	if (get_u64(c, &len) < 0 || len > max || len > (uint64_t)(c->end - c->p))
		return -1;
	*s = c->p;
	*n = (size_t)len;
	c->p += len;
	return 0;
}

/* Copy a string field into r->str, NUL-terminated. */
static int get_string(trace_reader *r, struct cursor *c, const char **out)
{
	const uint8_t *s;
	size_t n;
	if (get_bytes(c, &s, &n, TRACE_MAX_STRING) < 0)
		return -1;
	memcpy(r->str, s, n);
	r->str[n] = '\0';
	*out = r->str;
	return 0;
}

/* 1.x STACK_DEF: id, n, then n addresses delta-coded innermost first. */
static const char *decode_stack_def_v1(trace_reader *r, struct cursor *c, struct trace_record *rec)
{
	uint64_t id, n;
	if (get_u64(c, &id) < 0 || get_u64(c, &n) < 0)
		return "bad varint";
	if (id != r->nstacks)
		return "stack id out of sequence";
	if (n > TRACE_MAX_STACK)
		return "stack deeper than the limit";
	if (n > (uint64_t)(c->end - c->p))
		return "stack longer than its record";
	if (ensure_cap((void **)&r->stacks, &r->capstacks, r->nstacks + 1, sizeof *r->stacks) < 0 ||
	    ensure_cap((void **)&r->ips, &r->capips, r->nips + (size_t)n + 1, sizeof *r->ips) < 0)
		return "out of memory";
	uint64_t *ips = r->ips + r->nips;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t z;
		if (get_u64(c, &z) < 0)
			return "bad varint";
		uint64_t base = i == 0 ? r->prev_first_ip : ips[i - 1];
		ips[i] = base + (uint64_t)trace_unzigzag(z);
	}
	if (n)
		r->prev_first_ip = ips[0];
	r->stacks[r->nstacks].off = r->nips;
	r->stacks[r->nstacks].n = (uint32_t)n;
	r->nstacks++;
	r->nips += (size_t)n;
	r->st.stacks++;
	rec->u.stack.id = id;
	rec->u.stack.ips = ips;
	rec->u.stack.n = (size_t)n;
	return NULL;
}

/*
 * 2.x STACK_DEF: n, parent distance, keep, then the own addresses from
 * the outermost inwards (doc/trace-format.md).  Ids are implicit: the
 * next free one.
 */
static const char *decode_stack_def(trace_reader *r, struct cursor *c, struct trace_record *rec)
{
	if (r->major < 2)
		return decode_stack_def_v1(r, c, rec);
	uint64_t n, dist, keep, id = r->nstacks;
	if (get_u64(c, &n) < 0 || get_u64(c, &dist) < 0 || get_u64(c, &keep) < 0)
		return "bad varint";
	if (n > TRACE_MAX_STACK)
		return "stack deeper than the limit";
	if ((dist == 0 && keep != 0) || keep > n || (dist && dist > id))
		return "stack refers to a bad parent";
	const struct stack_ref *par = dist ? &r->stacks[id - dist] : NULL;
	if (par && keep > par->n)
		return "stack keeps more frames than its parent has";
	uint64_t own = n - keep;
	if (own > (uint64_t)(c->end - c->p))
		return "stack longer than its record";
	if (r->nstacks >= TRACE_MAX_STACKS || r->nips + (size_t)n > TRACE_MAX_TABLE_ADDRS)
		return "stack table larger than the limit";
	if (trace_rank_reserve(&r->rank, r->nstacks + 1) < 0)
		return "out of memory";
	if (ensure_cap((void **)&r->stacks, &r->capstacks, r->nstacks + 1, sizeof *r->stacks) < 0 ||
	    ensure_cap((void **)&r->ips, &r->capips, r->nips + (size_t)n + 1, sizeof *r->ips) < 0)
		return "out of memory";
	par = dist ? &r->stacks[id - dist] : NULL;  /* stacks may have moved */
	uint64_t *ips = r->ips + r->nips;
	if (keep)
		memcpy(ips + own, r->ips + par->off + par->n - keep, (size_t)keep * sizeof *ips);
	for (uint64_t j = own; j-- > 0;) {
		uint64_t z, base;
		if (get_u64(c, &z) < 0)
			return "bad varint";
		if (j < own - 1)
			base = ips[j + 1];
		else if (par)
			base = par->n > keep ? r->ips[par->off + par->n - keep - 1] : ips[own];
		else
			base = 0;
		ips[j] = base + (uint64_t)trace_unzigzag(z);
	}
	r->stacks[r->nstacks].off = r->nips;
	r->stacks[r->nstacks].n = (uint32_t)n;
	r->nstacks++;
	r->nips += (size_t)n;
	r->st.stacks++;
	rec->u.stack.id = id;
	rec->u.stack.ips = ips;
	rec->u.stack.n = (size_t)n;
	return NULL;
}

/*
 * 2.x SAMPLES: op, count, then count stack codes, count weight changes,
 * count time changes (zigzag varints).  SAMPLES_B (2.1, bytecoded set)
 * has the stack codes as count bytes, each TRACE_STACK_ESCAPE byte
 * followed up in a varint after the bytes.  Decoded whole here, handed
 * out one sample at a time by trace_reader_next.
 */
static const char *decode_samples(trace_reader *r, struct cursor *c, int bytecoded)
{
	uint64_t op, n;
	if (get_u64(c, &op) < 0 || get_u64(c, &n) < 0)
		return "bad varint";
	if (n == 0 || n > TRACE_MAX_BLOCK)
		return "sample block size out of range";
	if (n * 3 > (uint64_t)(c->end - c->p))
		return "sample block longer than its record";
	if (ensure_cap((void **)&r->blk, &r->capblk, (size_t)n * 3, sizeof *r->blk) < 0)
		return "out of memory";
	uint64_t wt = r->prev_weight, tu = r->prev_tu;
	const uint8_t *bytes = c->p;  /* SAMPLES_B: the stack code bytes */
	if (bytecoded)
		c->p += n;  /* escapes' varints follow the bytes */
	for (uint64_t i = 0; i < n; i++) {
		uint64_t z;
		uint32_t id;
		if (!bytecoded) {
			if (get_u64(c, &z) < 0)
				return "bad varint";
		} else if ((z = bytes[i]) == TRACE_STACK_ESCAPE) {
			if (get_u64(c, &z) < 0 || z > UINT64_MAX - TRACE_STACK_ESCAPE)
				return "bad varint";
			z += TRACE_STACK_ESCAPE;
		}
		if (z == 0) {
			if (r->rank.n >= r->nstacks)
				return "sample refers to an undefined stack";
			id = (uint32_t)r->rank.n;
			trace_rank_add(&r->rank, id);
		} else {
			if (z - 1 >= r->rank.n)
				return "sample refers to an undefined stack";
			id = r->rank.order[z - 1];
		}
		trace_rank_hit(&r->rank, id);
		r->blk[3 * i] = id;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t z;
		if (get_u64(c, &z) < 0)
			return "bad varint";
		wt += (uint64_t)trace_unzigzag(z);
		r->blk[3 * i + 1] = wt;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t z;
		if (get_u64(c, &z) < 0)
			return "bad varint";
		tu += (uint64_t)trace_unzigzag(z);
		r->blk[3 * i + 2] = tu * r->time_unit;
	}
	r->prev_weight = wt;
	r->prev_tu = tu;
	r->blk_op = op;
	r->nblk = (size_t)n;
	r->iblk = 0;
	return NULL;
}

/* The next sample of the open SAMPLES block. */
static void next_block_sample(trace_reader *r, struct trace_record *rec)
{
	const uint64_t *b = r->blk + 3 * r->iblk++;
	memset(rec, 0, sizeof *rec);
	rec->type = TRACE_REC_SAMPLE;
	rec->frame = r->frame;
	rec->frame_offset = r->frame_off;
	rec->u.sample.op = r->blk_op;
	rec->u.sample.stack_id = b[0];
	rec->u.sample.weight = b[1];
	rec->u.sample.time = b[2];
	rec->u.sample.ips = r->ips + r->stacks[b[0]].off;
	rec->u.sample.n = r->stacks[b[0]].n;
	r->st.samples++;
	r->st.by_type[TRACE_REC_SAMPLE]++;
}

static const char *decode_sample(trace_reader *r, struct cursor *c, struct trace_record *rec)
{
	uint64_t op, weight, dt, id;
	if (get_u64(c, &op) < 0 || get_u64(c, &weight) < 0 || get_u64(c, &dt) < 0 ||
	    get_u64(c, &id) < 0)
		return "bad varint";
	if (id >= r->nstacks)
		return "sample refers to an undefined stack";
	r->prev_time += (uint64_t)trace_unzigzag(dt);
	rec->u.sample.op = op;
	rec->u.sample.weight = weight;
	rec->u.sample.time = r->prev_time;
	rec->u.sample.stack_id = id;
	rec->u.sample.ips = r->ips + r->stacks[id].off;
	rec->u.sample.n = r->stacks[id].n;
	return NULL;
}

static const char *decode_op(trace_reader *r, struct cursor *c, struct trace_record *rec)
{
	uint64_t dt;
	if (get_u64(c, &rec->u.op.op) < 0 || get_u64(c, &rec->u.op.iteration) < 0 ||
	    get_u64(c, &dt) < 0)
		return "bad varint";
	if (get_string(r, c, &rec->u.op.name) < 0)
		return "bad op name";
	uint64_t *prev = r->major >= 2 ? &r->prev_op_time : &r->prev_time;
	*prev += (uint64_t)trace_unzigzag(dt);
	rec->u.op.time = *prev;
	return NULL;
}

static const char *decode_mmap(trace_reader *r, struct cursor *c, struct trace_record *rec)
{
	const uint8_t *bid;
	size_t blen;
	if (get_u64(c, &rec->u.mmap.start) < 0 || get_u64(c, &rec->u.mmap.len) < 0 ||
	    get_u64(c, &rec->u.mmap.pgoff) < 0)
		return "bad varint";
	if (get_bytes(c, &bid, &blen, TRACE_MAX_BUILD_ID) < 0)
		return "bad build id";
	memcpy(rec->u.mmap.build_id, bid, blen);
	rec->u.mmap.build_id_len = blen;
	if (get_string(r, c, &rec->u.mmap.path) < 0)
		return "bad path";
	return NULL;
}

static const char *decode_end(trace_reader *r, struct cursor *c, struct trace_record *rec)
{
	if (get_u64(c, &rec->u.end.samples) < 0 || get_u64(c, &rec->u.end.records) < 0)
		return "bad varint";
	if (rec->u.end.samples != r->st.samples || rec->u.end.records != r->st.records)
		return "end marker totals disagree with the records read (a frame is missing)";
	if (r->major >= 2) {
		if (get_u64(c, &rec->u.end.lost) < 0 || get_u64(c, &rec->u.end.throttles) < 0 ||
		    get_u64(c, &rec->u.end.unthrottles) < 0 || get_u64(c, &rec->u.end.active_ns) < 0 ||
		    get_u64(c, &rec->u.end.requested_hz) < 0)
			return "bad varint";
		r->st.run_known = 1;
		r->st.run_lost = rec->u.end.lost;
		r->st.run_throttles = rec->u.end.throttles;
		r->st.run_unthrottles = rec->u.end.unthrottles;
		r->st.run_active_ns = rec->u.end.active_ns;
		r->st.run_requested_hz = rec->u.end.requested_hz;
	}
	return NULL;
}

static const char *decode_header(trace_reader *r, struct cursor *c)
{
	const uint8_t *s;
	size_t n;
	if (r->header)
		return "second header record";
	if (get_bytes(c, &s, &n, TRACE_MAX_STRING) < 0)
		return "bad creator string";
	r->creator = strndup((const char *)s, n);
	if (!r->creator)
		return "out of memory";
	if (r->major >= 2) {
		if (get_u64(c, &r->time_unit) < 0)
			return "bad varint";
		if (r->time_unit == 0 || r->time_unit > 1000000000u)
			return "sample time unit out of range";
	}
	r->st.time_unit_ns = r->time_unit;
	size_t jlen = (size_t)(c->end - c->p);
	if (jlen > TRACE_MAX_HEADER)
		return "header JSON larger than the limit";
	json_error_t jerr;
	r->header = json_loadb((const char *)c->p, jlen, JSON_REJECT_DUPLICATES, &jerr);
	if (!r->header)
		return "header is not valid JSON";
	if (!json_is_object(r->header))
		return "header is not a JSON object";
	c->p = c->end;
	return NULL;
}

/*
 * Decode one record from the current frame.  Returns 1 with a record, 2
 * for a skipped record, negative on error.
 */
static int decode_record(trace_reader *r, struct trace_record *rec)
{
	size_t off = r->rpos;
	struct cursor c = { r->buf + r->rpos, r->buf + r->len };
	uint64_t type, plen;
	if (get_u64(&c, &type) < 0 || get_u64(&c, &plen) < 0)
		return corrupt_rec(r, off, "bad varint in record header");
	if (plen > (uint64_t)(c.end - c.p))
		return corrupt_rec(r, off, "record length beyond the frame");
	if (r->st.complete)
		return corrupt_rec(r, off, "data after the end marker");
	c.end = c.p + plen;
	r->rpos = (size_t)(c.end - r->buf);
	memset(rec, 0, sizeof *rec);
	rec->frame = r->frame;
	rec->frame_offset = r->frame_off;

	const char *why = NULL;
	switch (type) {
	case TRACE_REC_HEADER:
		if (r->frame != 0 || off != 0)
			why = "header record outside the header frame";
		else
			why = decode_header(r, &c);
		break;
	case TRACE_REC_MMAP: why = decode_mmap(r, &c, rec); break;
	case TRACE_REC_STACK_DEF: why = decode_stack_def(r, &c, rec); break;
	case TRACE_REC_SAMPLE: why = decode_sample(r, &c, rec); break;
	case TRACE_REC_OP_BEGIN:
	case TRACE_REC_OP_END: why = decode_op(r, &c, rec); break;
	case TRACE_REC_LOST:
		if (get_u64(&c, &rec->u.lost.count) < 0)
			why = "bad varint";
		break;
	case TRACE_REC_END: why = decode_end(r, &c, rec); break;
	case TRACE_REC_UNWIND_STATS: {
		struct trace_unwind_stats *u = &rec->u.unwind;
		uint64_t *f[8] = { &u->op, &u->stacks, &u->complete, &u->incomplete,
		                   &u->frames_cfi, &u->frames_fp, &u->frames_scan, &u->frames_stitched };
		for (int i = 0; i < 8 && !why; i++)
			if (get_u64(&c, f[i]) < 0)
				why = "bad varint";
		break;
	}
	case TRACE_REC_FRAME:
		if (r->major < 2)
			goto unknown;
		if (get_u64(&c, &rec->u.frame.index) < 0)
			why = "bad varint";
		else if (off != 0)
			why = "frame index inside a frame";
		else if (rec->u.frame.index != r->frame) {
			snprintf(r->str, sizeof r->str, "frame says it is frame %" PRIu64 " (%s)",
			         rec->u.frame.index, rec->u.frame.index > r->frame ? "a frame is missing"
			                                                           : "a frame is repeated");
			why = r->str;
		}
		break;
	case TRACE_REC_SAMPLES:
	case TRACE_REC_SAMPLES_B:
		if (r->major < 2 || (type == TRACE_REC_SAMPLES_B && r->major == 2 && r->minor < 1))
			goto unknown;
		why = decode_samples(r, &c, type == TRACE_REC_SAMPLES_B);
		break;
	default:
	unknown:
		/* Records carry their length: 2.x files may hold record types this
		 * reader does not know, and it passes over them. */
		if (r->minor > TRACE_VERSION_MINOR || r->major >= 2) {
			/* A newer minor version may add record types; skip them. */
			r->st.records++;
			r->st.skipped++;
			return 2;
		}
		{
			char m[64];
			snprintf(m, sizeof m, "unknown record type %" PRIu64, type);
			return corrupt_rec(r, off, m);
		}
	}
	if (!why && r->major >= 2 && r->frame > 0 && off == 0 && type != TRACE_REC_FRAME)
		why = "frame does not start with its index";
	if (!why && c.p != c.end && r->minor <= TRACE_VERSION_MINOR)
		why = "record longer than its fields";
	if (why)
		return corrupt_rec(r, off, why);
	if (type != TRACE_REC_HEADER && r->frame == 0 && !r->header)
		return corrupt_rec(r, off, "header frame does not start with a header");
	rec->type = (enum trace_rec_type)type;
	r->st.records++;
	r->st.by_type[type]++;
	if (type == TRACE_REC_SAMPLES || type == TRACE_REC_SAMPLES_B)
		return 2;  /* its samples come out one at a time */
	if (type == TRACE_REC_SAMPLE)
		r->st.samples++;
	else if (type == TRACE_REC_LOST)
		r->st.lost += rec->u.lost.count;
	else if (type == TRACE_REC_END)
		r->st.complete = 1;
	return 1;
}

int trace_reader_next(trace_reader *r, struct trace_record *rec, pq_error *err)
{
	for (;;) {
		if (r->status < 0) {
			if (err)
				*err = r->err;
			return r->status;
		}
		if (r->status == 1)
			return 0;
		if (r->iblk < r->nblk) {
			next_block_sample(r, rec);
			return 1;
		}
		if (!r->have_frame || r->rpos == r->len) {
			int k = load_frame(r);
			if (k == 0) {
				r->status = 1;
				return 0;
			}
			if (k < 0)
				continue;
			if (r->st.complete) {
				rfail(r, PQ_EINPUT, "corrupt frame %" PRIu64 " at byte %zu (data after the end marker)",
				      r->frame, r->frame_off);
				continue;
			}
			continue;
		}
		int k = decode_record(r, rec);
		if (k == 1)
			return 1;
		/* k == 2: skipped; k < 0: loop reports the sticky error */
	}
}

int trace_reader_foreach(trace_reader *r, int (*fn)(const struct trace_record *, void *),
                         void *ctx, pq_error *err)
{
	struct trace_record rec;
	int k;
	while ((k = trace_reader_next(r, &rec, err)) == 1)
		if (fn(&rec, ctx))
			return 0;
	return k;
}

int trace_reader_check_complete(const trace_reader *r, pq_error *err)
{
	if (r->status < 0) {
		if (err)
			*err = r->err;
		return r->status;
	}
	if (r->st.complete)
		return 0;
	return pq_fail(err, PQ_EINPUT, "%s: incomplete (no end marker); %" PRIu64 " frames / %" PRIu64
	               " samples readable", r->name, r->st.frames, r->st.samples);
}

void trace_reader_stats(const trace_reader *r, struct trace_read_stats *st)
{
	*st = r->st;
}

const json_t *trace_reader_header(const trace_reader *r)
{
	return r->header;
}

const char *trace_reader_creator(const trace_reader *r)
{
	return r->creator ? r->creator : "";
}

void trace_reader_version(const trace_reader *r, unsigned *major, unsigned *minor)
{
	*major = r->major;
	*minor = r->minor;
}

void trace_reader_close(trace_reader *r)
{
	if (!r)
		return;
	if (r->map)
		munmap(r->map, r->size);
	free(r->owned);
	json_decref(r->header);
	free(r->creator);
	ZSTD_freeDCtx(r->dctx);
	free(r->buf);
	free(r->ips);
	free(r->stacks);
	free(r->blk);
	free(r->rank.order);
	free(r->rank.pos);
	free(r->rank.count);
	free(r);
}

/* Preamble and header frame, shared by both open functions. */
static int start(trace_reader *r, pq_error *err)
{
	r->st.file_bytes = r->size;
	if (r->size < TRACE_PREAMBLE_LEN) {
		if (r->size >= 4 && memcmp(r->data, TRACE_MAGIC, 4) == 0)
			return pq_fail(err, PQ_EINPUT, "%s: truncated (file ends inside the preamble)", r->name);
		return pq_fail(err, PQ_EINPUT, "%s: not a pqprof trace (file too short)", r->name);
	}
	if (memcmp(r->data, TRACE_MAGIC, 4) != 0)
		return pq_fail(err, PQ_EINPUT, "%s: not a pqprof trace (bad magic)", r->name);
	r->major = trace_get_le16(r->data + 4);
	r->minor = trace_get_le16(r->data + 6);
	if (r->major > TRACE_VERSION_MAJOR)
		return pq_fail(err, PQ_EINPUT, "%s: trace version %u.%u is newer than this pqprof (%u.x)",
		               r->name, r->major, r->minor, TRACE_VERSION_MAJOR);
	if (r->major < TRACE_VERSION_MAJOR_OLDEST)
		return pq_fail(err, PQ_EINPUT, "%s: trace version %u.%u is no longer supported (this pqprof reads %u.x to %u.x)",
		               r->name, r->major, r->minor, TRACE_VERSION_MAJOR_OLDEST, TRACE_VERSION_MAJOR);
	r->time_unit = 1;
	r->dctx = ZSTD_createDCtx();
	if (!r->dctx)
		return pq_fail(err, PQ_ENOMEM, "%s: out of memory", r->name);
	r->pos = TRACE_PREAMBLE_LEN;
	int k = load_frame(r);
	if (k == 0)
		rfail(r, PQ_EINPUT, "truncated (no header frame)");
	if (k <= 0) {
		*err = r->err;
		return r->status;
	}
	struct trace_record rec;
	k = decode_record(r, &rec);
	if (k < 0) {
		*err = r->err;
		return k;
	}
	if (k != 1 || rec.type != TRACE_REC_HEADER)
		return pq_fail(err, PQ_EINPUT, "%s: corrupt header frame (no header record)", r->name);
	return 0;
}

static trace_reader *reader_new(const char *name, pq_error *err)
{
	trace_reader *r = calloc(1, sizeof *r);
	if (!r) {
		pq_fail(err, PQ_ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(r->name, sizeof r->name, "%s", name ? name : "<memory>");
	return r;
}

int trace_reader_open_mem(trace_reader **out, const void *buf, size_t len,
                          const char *name, pq_error *err)
{
	*out = NULL;
	trace_reader *r = reader_new(name, err);
	if (!r)
		return -PQ_ENOMEM;
	r->data = buf;
	r->size = len;
	int k = start(r, err);
	if (k < 0) {
		trace_reader_close(r);
		return k;
	}
	*out = r;
	return 0;
}

int trace_reader_open(trace_reader **out, const char *path, pq_error *err)
{
	*out = NULL;
	trace_reader *r = reader_new(path, err);
	if (!r)
		return -PQ_ENOMEM;
	int fd = open_regular(path);
	if (fd < 0) {
		trace_reader_close(r);
		return pq_fail_errno(err, PQ_EINPUT, "%s: cannot open", path);
	}
	struct stat sb;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
		void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			r->map = m;
			r->data = m;
			r->size = (size_t)sb.st_size;
		}
	}
	close(fd);
	if (!r->map) {
		size_t n;
		int k = read_whole_file(path, &r->owned, &n, 0, err);
		if (k < 0) {
			trace_reader_close(r);
			return k;
		}
		r->data = (const uint8_t *)r->owned;
		r->size = n;
	}
	int k = start(r, err);
	if (k < 0) {
		trace_reader_close(r);
		return k;
	}
	*out = r;
	return 0;
}
