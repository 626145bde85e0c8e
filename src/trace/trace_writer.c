/*
 * trace_writer: encodes records into a frame buffer (varints, delta
 * addresses, a per-frame table of stacks already seen) and writes each
 * full frame as one checksummed zstd frame.  See trace_writer.h for the
 * contract and doc/trace-format.md for the bytes.
 */
#include "config.h"
#include "trace/trace_writer.h"
#include "core/grow.h"
#include "trace/trace_format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

/* Largest record: a STACK_DEF of TRACE_MAX_STACK frames, or an MMAP. */
#define REC_SCRATCH (32 + TRACE_VARINT_MAX * (TRACE_MAX_STACK + 6) + TRACE_MAX_STRING)

struct stack_entry {
	uint64_t hash;
	size_t off;   /* into ips[] */
	uint32_t n;
};

/* A suffix of a defined stack: its outermost k frames, found by hash. */
struct suffix_slot {
	uint64_t hash;
	uint32_t id1;  /* stack id + 1, 0 = empty */
	uint32_t k;
};

/* A sample waiting for its SAMPLES record. */
struct pending_sample {
	uint64_t weight, time;
	uint32_t id;
};

struct trace_writer {
	int fd;
	char path[4096];
	ZSTD_CCtx *cctx;
	struct trace_writer_opts opts;

	uint8_t *buf;       /* current frame, uncompressed */
	size_t len, cap;
	uint8_t *zbuf;
	size_t zcap;
	unsigned frame_records;
	uint64_t frame_start_ms;

	/* Encoding state: lives for the whole file. */
	uint64_t prev_op_time;   /* OP_BEGIN/OP_END, ns */
	uint64_t prev_tu;        /* samples, in time units */
	uint64_t prev_weight;
	struct trace_rank rank;
	uint32_t *slots;    /* open addressing: stack index + 1, 0 = empty */
	size_t nslots;
	struct stack_entry *stacks;
	size_t nstacks, capstacks;
	uint64_t *ips;
	size_t nips, capips;
	struct suffix_slot *suf;
	size_t nsuf, capsuf;   /* used, slots (power of two) */
	uint64_t *mmaps;       /* hashes of mappings written since OP_BEGIN */
	size_t nmmaps, capmmaps;

	/* Samples of the open block, all of operation block_op. */
	struct pending_sample *blk;
	size_t nblk, capblk;
	uint64_t block_op;

	struct trace_run_info run;
	uint8_t rec[REC_SCRATCH];
	struct trace_write_stats st;
	int failed;
	pq_error err;
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int wfail(trace_writer *w, int code, const char *what)
{
	if (!w->failed) {
		w->failed = code;
		pq_fail(&w->err, code, "%s: %s", w->path, what);
	}
	return -code;
}

static int wfail_errno(trace_writer *w, const char *what)
{
	if (!w->failed) {
		w->failed = PQ_EIO;
		pq_fail_errno(&w->err, PQ_EIO, "%s: %s", w->path, what);
	}
	return -PQ_EIO;
}

static int write_all(trace_writer *w, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t k = write(w->fd, b, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return wfail_errno(w, "write failed");
		}
		b += k;
		n -= (size_t)k;
		w->st.bytes += (uint64_t)k;
	}
	return 0;
}

static int emit(trace_writer *w, unsigned type, size_t plen);
static int emit_block(trace_writer *w);

/* Compress and write the current frame, whatever it holds. */
static int write_frame(trace_writer *w)
{
	if (w->len == 0)
		return 0;
	size_t bound = ZSTD_compressBound(w->len);
	if (pq_grow(&w->zbuf, &w->zcap, bound, 1, bound) < 0)
		return wfail(w, PQ_ENOMEM, "out of memory");
	size_t z = ZSTD_compress2(w->cctx, w->zbuf, w->zcap, w->buf, w->len);
	if (ZSTD_isError(z))
		return wfail(w, PQ_EINTERNAL, ZSTD_getErrorName(z));
	int r = write_all(w, w->zbuf, z);
	if (r < 0)
		return r;
	w->st.frames++;
	w->st.raw_bytes += w->len;
	w->len = 0;
	w->frame_records = 0;
	return 0;
}

int trace_writer_flush(trace_writer *w)
{
	if (w->failed)
		return -w->failed;
	if (w->nblk && emit_block(w) < 0)
		return -w->failed;
	return write_frame(w);
}

/* Close the frame first if adding up to need bytes would overfill it. */
static int maybe_flush(trace_writer *w, size_t need)
{
	if (w->failed)
		return -w->failed;
	if (w->len == 0 && w->nblk == 0)
		return 0;
	/* A pending sample costs at most 3 varints in its block. */
	size_t have = w->len + w->nblk * 3 * TRACE_VARINT_MAX;
	if (have + need > w->opts.frame_bytes || w->frame_records >= w->opts.frame_records ||
	    now_ms() - w->frame_start_ms >= w->opts.frame_ms)
		return trace_writer_flush(w);
	return 0;
}

/* Room for need more bytes in the frame buffer. */
static int reserve(trace_writer *w, size_t need)
{
	if (pq_grow(&w->buf, &w->cap, w->len + need, 1, 4096) < 0)
		return wfail(w, PQ_ENOMEM, "out of memory");
	return 0;
}

/*
 * A new frame (not the header frame) starts with FRAME: its index, which
 * lets the reader see a frame that went missing as soon as the next one
 * arrives.
 */
static int open_frame(trace_writer *w)
{
	w->frame_start_ms = now_ms();
	if (w->st.frames == 0)
		return 0;
	if (reserve(w, 3 * TRACE_VARINT_MAX) < 0)
		return -w->failed;
	uint8_t tmp[TRACE_VARINT_MAX];
	size_t k = trace_put_varint(tmp, w->st.frames);
	w->len += trace_put_varint(w->buf + w->len, TRACE_REC_FRAME);
	w->len += trace_put_varint(w->buf + w->len, k);
	memcpy(w->buf + w->len, tmp, k);
	w->len += k;
	w->frame_records++;
	w->st.records++;
	return 0;
}

/* Append one record: type, payload length, payload from src. */
static int emit_from(trace_writer *w, unsigned type, const uint8_t *src, size_t plen)
{
	if (w->len == 0 && open_frame(w) < 0)
		return -w->failed;
	if (reserve(w, 2 * TRACE_VARINT_MAX + plen) < 0)
		return -w->failed;
	w->len += trace_put_varint(w->buf + w->len, type);
	w->len += trace_put_varint(w->buf + w->len, plen);
	memcpy(w->buf + w->len, src, plen);
	w->len += plen;
	w->frame_records++;
	w->st.records++;
	return 0;
}

static int emit(trace_writer *w, unsigned type, size_t plen)
{
	return emit_from(w, type, w->rec, plen);
}

/*
 * The open block as one SAMPLES_B record: op, count, then three columns
 * (stack code, weight change, time change), so that like bytes sit
 * together for zstd.  The stack column is one byte per sample, codes of
 * TRACE_STACK_ESCAPE and up written as that byte with the rest (code -
 * TRACE_STACK_ESCAPE) as a varint after the bytes: zstd's byte-wise
 * entropy coder then sees whole codes, not varint fragments.
 */
static int emit_block(trace_writer *w)
{
	size_t n = w->nblk;
	w->nblk = 0;
	if (!n)
		return 0;
	size_t max = 2 * TRACE_VARINT_MAX + n * 4 * TRACE_VARINT_MAX;
	uint8_t *p = malloc(max);
	if (!p)
		return wfail(w, PQ_ENOMEM, "out of memory");
	size_t k = 0;
	k += trace_put_varint(p + k, w->block_op);
	k += trace_put_varint(p + k, n);
	size_t bytes = k, ext = k + n;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = w->blk[i].id;
		uint64_t code = 0;
		if (id == w->rank.n)
			trace_rank_add(&w->rank, id);
		else
			code = (uint64_t)w->rank.pos[id] + 1;
		if (code < TRACE_STACK_ESCAPE) {
			p[bytes + i] = (uint8_t)code;
		} else {
			p[bytes + i] = (uint8_t)TRACE_STACK_ESCAPE;
			ext += trace_put_varint(p + ext, code - TRACE_STACK_ESCAPE);
		}
		trace_rank_hit(&w->rank, id);
	}
	k = ext;
	for (size_t i = 0; i < n; i++) {
		uint64_t wt = w->blk[i].weight;
		k += trace_put_varint(p + k, trace_zigzag((int64_t)(wt - w->prev_weight)));
		w->prev_weight = wt;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t tu = w->blk[i].time / w->opts.time_unit_ns;
		k += trace_put_varint(p + k, trace_zigzag((int64_t)(tu - w->prev_tu)));
		w->prev_tu = tu;
	}
	int r = emit_from(w, TRACE_REC_SAMPLES_B, p, k);
	free(p);
	return r;
}

static size_t put_bytes(uint8_t *p, const void *s, size_t n)
{
	size_t k = trace_put_varint(p, n);
	if (n)
		memcpy(p + k, s, n);
	return k + n;
}

static size_t clamp_strlen(const char *s)
{
	return s ? strnlen(s, TRACE_MAX_STRING) : 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9E3779B97F4A7C15ull;
	h ^= h >> 31;
	return h;
}

static uint64_t hash_stack(const uint64_t *ips, int n)
{
	uint64_t h = 0x84222325cbf29ce4ull ^ (uint64_t)n;
	for (int i = 0; i < n; i++)
		h = mix(h, ips[i]);
	return h;
}

static int grow_slots(trace_writer *w)
{
	size_t ns = w->nslots ? w->nslots * 2 : 1024;
	uint32_t *s = calloc(ns, sizeof *s);
	if (!s)
		return wfail(w, PQ_ENOMEM, "out of memory");
	for (size_t i = 0; i < w->nstacks; i++) {
		size_t j = w->stacks[i].hash & (ns - 1);
		while (s[j])
			j = (j + 1) & (ns - 1);
		s[j] = (uint32_t)(i + 1);
	}
	free(w->slots);
	w->slots = s;
	w->nslots = ns;
	return 0;
}

/* Find ips in the stack table; -1 if absent, or the id. */
static long find_stack(const trace_writer *w, const uint64_t *ips, int n, uint64_t h)
{
	if (!w->nslots)
		return -1;
	for (size_t j = h & (w->nslots - 1); w->slots[j]; j = (j + 1) & (w->nslots - 1)) {
		const struct stack_entry *e = &w->stacks[w->slots[j] - 1];
		if (e->hash == h && e->n == (uint32_t)n &&
		    (n == 0 || memcmp(w->ips + e->off, ips, (size_t)n * sizeof *ips) == 0))
			return (long)(w->slots[j] - 1);
	}
	return -1;
}

/* Hash of the outermost k frames, built one frame inwards at a time. */
static uint64_t suffix_step(uint64_t h, uint64_t ip, unsigned k)
{
	return mix(h ^ ((uint64_t)k << 56), ip);
}

static int suffix_insert_slot(struct suffix_slot *t, size_t cap, uint64_t h, uint32_t id1, uint32_t k)
{
	size_t j = h & (cap - 1);
	while (t[j].id1) {
		if (t[j].hash == h && t[j].k == k) {
			t[j].id1 = id1;  /* the newest stack with this suffix: a short distance */
			return 0;
		}
		j = (j + 1) & (cap - 1);
	}
	t[j].hash = h;
	t[j].id1 = id1;
	t[j].k = k;
	return 1;
}

static int suffix_add(trace_writer *w, uint32_t id, const uint64_t *ips, int n)
{
	if ((w->nsuf + (size_t)n) * 2 > w->capsuf) {
		size_t nc = w->capsuf ? w->capsuf : 4096;
		while ((w->nsuf + (size_t)n) * 2 > nc)
			nc *= 2;
		struct suffix_slot *t = calloc(nc, sizeof *t);
		if (!t)
			return wfail(w, PQ_ENOMEM, "out of memory");
		for (size_t i = 0; i < w->capsuf; i++)
			if (w->suf[i].id1)
				suffix_insert_slot(t, nc, w->suf[i].hash, w->suf[i].id1, w->suf[i].k);
		free(w->suf);
		w->suf = t;
		w->capsuf = nc;
	}
	uint64_t h = 0;
	for (int k = 1; k <= n; k++) {
		h = suffix_step(h, ips[n - k], (unsigned)k);
		w->nsuf += (size_t)suffix_insert_slot(w->suf, w->capsuf, h, id + 1, (uint32_t)k);
	}
	return 0;
}

/*
 * The defined stack sharing the longest run of outermost frames with
 * ips[0..n); *keep receives that length (0: none).
 */
static long suffix_best(const trace_writer *w, const uint64_t *ips, int n, int *keep)
{
	long best = -1;
	*keep = 0;
	if (!w->capsuf)
		return -1;
	uint64_t h = 0;
	for (int k = 1; k <= n; k++) {
		h = suffix_step(h, ips[n - k], (unsigned)k);
		long hit = -1;
		for (size_t j = h & (w->capsuf - 1); w->suf[j].id1; j = (j + 1) & (w->capsuf - 1)) {
			const struct suffix_slot *s = &w->suf[j];
			if (s->hash != h || s->k != (uint32_t)k)
				continue;
			const struct stack_entry *e = &w->stacks[s->id1 - 1];
			if (e->n >= (uint32_t)k &&
			    memcmp(w->ips + e->off + e->n - k, ips + n - k, (size_t)k * sizeof *ips) == 0)
				hit = (long)(s->id1 - 1);
			break;
		}
		if (hit < 0)
			break;
		best = hit;
		*keep = k;
	}
	return best;
}

static long add_stack(trace_writer *w, const uint64_t *ips, int n, uint64_t h)
{
	if (w->nstacks >= TRACE_MAX_STACKS || w->nips + (size_t)n > TRACE_MAX_TABLE_ADDRS)
		return wfail(w, PQ_EINTERNAL, "stack table full (too many distinct stacks)"), -1;
	if ((w->nstacks + 1) * 2 > w->nslots && grow_slots(w) < 0)
		return -1;
	if (pq_grow(&w->stacks, &w->capstacks, w->nstacks + 1, sizeof *w->stacks, 256) < 0)
		return wfail(w, PQ_ENOMEM, "out of memory"), -1;
	if (pq_grow(&w->ips, &w->capips, w->nips + (size_t)n, sizeof *w->ips, 4096) < 0)
		return wfail(w, PQ_ENOMEM, "out of memory"), -1;
	if (trace_rank_reserve(&w->rank, w->nstacks + 1) < 0)
		return wfail(w, PQ_ENOMEM, "out of memory"), -1;
	struct stack_entry *e = &w->stacks[w->nstacks];
	e->hash = h;
	e->off = w->nips;
	e->n = (uint32_t)n;
	if (n)
		memcpy(w->ips + w->nips, ips, (size_t)n * sizeof *ips);
	w->nips += (size_t)n;
	size_t j = h & (w->nslots - 1);
	while (w->slots[j])
		j = (j + 1) & (w->nslots - 1);
	w->slots[j] = (uint32_t)(w->nstacks + 1);
	return (long)w->nstacks++;
}

/*
 * STACK_DEF (2.x): n, parent (0: none, else id - parent id), keep (frames
 * shared with the parent's outer end), then the n - keep own addresses
 * from the outermost inwards, each as a zigzag delta: the outermost one
 * against the parent's frame at the same depth (a sibling, usually in
 * the same function) or else the innermost kept frame (0 without a
 * parent), every further one against the frame outside it.
 */
static int emit_stack_def(trace_writer *w, const uint64_t *ips, int n, long parent, int keep)
{
	size_t p = 0;
	if (parent < 0)
		keep = 0;
	p += trace_put_varint(w->rec + p, (uint64_t)n);
	p += trace_put_varint(w->rec + p, parent >= 0 ? w->nstacks - 1 - (uint64_t)parent : 0);
	p += trace_put_varint(w->rec + p, (uint64_t)keep);
	int own = n - keep;
	for (int j = own - 1; j >= 0; j--) {
		uint64_t base;
		if (j < own - 1) {
			base = ips[j + 1];
		} else if (parent >= 0) {
			const struct stack_entry *e = &w->stacks[parent];
			base = e->n > (uint32_t)keep ? w->ips[e->off + e->n - keep - 1] : ips[own];
		} else {
			base = 0;
		}
		p += trace_put_varint(w->rec + p, trace_zigzag((int64_t)(ips[j] - base)));
	}
	w->st.stack_defs++;
	return emit(w, TRACE_REC_STACK_DEF, p);
}

int trace_write_sample(trace_writer *w, uint64_t op, uint64_t weight, uint64_t time,
                       const uint64_t *ips, int n)
{
	if (w->failed)
		return -w->failed;
	if (n < 0 || n > TRACE_MAX_STACK || (n > 0 && !ips))
		return wfail(w, PQ_EINTERNAL, "sample stack depth out of range");
	if (w->nblk && (op != w->block_op || w->nblk >= w->opts.block) && emit_block(w) < 0)
		return -w->failed;
	int r = maybe_flush(w, 8 * TRACE_VARINT_MAX + (size_t)n * TRACE_VARINT_MAX);
	if (r < 0)
		return r;
	uint64_t h = hash_stack(ips, n);
	long id = find_stack(w, ips, n, h);
	if (id < 0) {
		int keep;
		long parent = suffix_best(w, ips, n, &keep);
		id = add_stack(w, ips, n, h);
		if (id < 0)
			return -w->failed;
		if (suffix_add(w, (uint32_t)id, ips, n) < 0)
			return -w->failed;
		r = emit_stack_def(w, ips, n, parent, keep);
		if (r < 0)
			return r;
	}
	if (pq_grow(&w->blk, &w->capblk, w->nblk + 1, sizeof *w->blk, 256) < 0)
		return wfail(w, PQ_ENOMEM, "out of memory");
	if (w->len == 0 && w->nblk == 0 && open_frame(w) < 0)
		return -w->failed;
	w->block_op = op;
	w->blk[w->nblk].weight = weight;
	w->blk[w->nblk].time = time;
	w->blk[w->nblk].id = (uint32_t)id;
	w->nblk++;
	w->frame_records++;
	w->st.samples++;
	return 0;
}

static uint64_t mmap_hash(uint64_t start, uint64_t len, uint64_t pgoff, const uint8_t *id,
                          size_t idlen, const char *path, size_t plen)
{
	uint64_t h = mix(mix(mix(0x5bd1e995u, start), len), pgoff);
	for (size_t i = 0; i < idlen; i++)
		h = mix(h, id[i]);
	for (size_t i = 0; i < plen; i++)
		h = mix(h, (uint8_t)path[i]);
	return h;
}

int trace_write_mmap(trace_writer *w, uint64_t start, uint64_t len, uint64_t pgoff,
                     const uint8_t *build_id, size_t build_id_len, const char *path)
{
	if (w->failed)
		return -w->failed;
	if (build_id_len > TRACE_MAX_BUILD_ID || (build_id_len && !build_id))
		return wfail(w, PQ_EINTERNAL, "build id longer than 20 bytes");
	size_t plen = clamp_strlen(path);
	/* A mapping is written once per OP_BEGIN (each begins a new address
	 * space for the reader). */
	uint64_t mh = mmap_hash(start, len, pgoff, build_id, build_id_len, path, plen);
	for (size_t i = 0; i < w->nmmaps; i++)
		if (w->mmaps[i] == mh)
			return 0;
	if (pq_grow(&w->mmaps, &w->capmmaps, w->nmmaps + 1, sizeof *w->mmaps, 16) < 0)
		return wfail(w, PQ_ENOMEM, "out of memory");
	w->mmaps[w->nmmaps++] = mh;
	if (w->nblk && emit_block(w) < 0)
		return -w->failed;
	int r = maybe_flush(w, 64 + build_id_len + plen);
	if (r < 0)
		return r;
	size_t p = 0;
	p += trace_put_varint(w->rec + p, start);
	p += trace_put_varint(w->rec + p, len);
	p += trace_put_varint(w->rec + p, pgoff);
	p += put_bytes(w->rec + p, build_id, build_id_len);
	p += put_bytes(w->rec + p, path, plen);
	return emit(w, TRACE_REC_MMAP, p);
}

static int write_op(trace_writer *w, unsigned type, uint64_t op, const char *name,
                    uint64_t iteration, uint64_t time)
{
	if (w->failed)
		return -w->failed;
	size_t nlen = clamp_strlen(name);
	if (w->nblk && emit_block(w) < 0)
		return -w->failed;
	int r = maybe_flush(w, 64 + nlen);
	if (r < 0)
		return r;
	size_t p = 0;
	p += trace_put_varint(w->rec + p, op);
	p += trace_put_varint(w->rec + p, iteration);
	p += trace_put_varint(w->rec + p, trace_zigzag((int64_t)(time - w->prev_op_time)));
	p += put_bytes(w->rec + p, name, nlen);
	w->prev_op_time = time;
	return emit(w, type, p);
}

int trace_write_op_begin(trace_writer *w, uint64_t op, const char *name,
                         uint64_t iteration, uint64_t time)
{
	w->nmmaps = 0;
	return write_op(w, TRACE_REC_OP_BEGIN, op, name, iteration, time);
}

int trace_write_op_end(trace_writer *w, uint64_t op, const char *name,
                       uint64_t iteration, uint64_t time)
{
	return write_op(w, TRACE_REC_OP_END, op, name, iteration, time);
}

int trace_write_lost(trace_writer *w, uint64_t count)
{
	if (w->failed)
		return -w->failed;
	if (w->nblk && emit_block(w) < 0)
		return -w->failed;
	int r = maybe_flush(w, 32);
	if (r < 0)
		return r;
	size_t p = trace_put_varint(w->rec, count);
	return emit(w, TRACE_REC_LOST, p);
}

void trace_writer_set_run(trace_writer *w, const struct trace_run_info *run)
{
	w->run = *run;
}

void trace_writer_stats(const trace_writer *w, struct trace_write_stats *st)
{
	*st = w->st;
	st->bytes_per_sample = st->samples ? (double)st->bytes / (double)st->samples : 0.0;
}

const pq_error *trace_writer_error(const trace_writer *w)
{
	return w->failed ? &w->err : NULL;
}

static void writer_free(trace_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	ZSTD_freeCCtx(w->cctx);
	free(w->buf);
	free(w->zbuf);
	free(w->slots);
	free(w->stacks);
	free(w->ips);
	free(w->suf);
	free(w->mmaps);
	free(w->blk);
	free(w->rank.order);
	free(w->rank.pos);
	free(w->rank.count);
	free(w);
}

static void set_opts(struct trace_writer_opts *o, const struct trace_writer_opts *in)
{
	if (in)
		*o = *in;
	else
		memset(o, 0, sizeof *o);
	if (!o->frame_bytes)
		o->frame_bytes = TRACE_DEFAULT_FRAME_BYTES;
	if (o->frame_bytes > TRACE_MAX_FRAME_CONTENT / 2)
		o->frame_bytes = TRACE_MAX_FRAME_CONTENT / 2;
	if (!o->frame_records)
		o->frame_records = TRACE_DEFAULT_FRAME_RECORDS;
	if (!o->frame_ms)
		o->frame_ms = TRACE_DEFAULT_FRAME_MS;
	if (!o->level)
		o->level = TRACE_DEFAULT_LEVEL;
	if (!o->time_unit_ns)
		o->time_unit_ns = TRACE_DEFAULT_TIME_UNIT;
	if (!o->block || o->block > TRACE_MAX_BLOCK)
		o->block = TRACE_DEFAULT_BLOCK;
}

static int write_header(trace_writer *w, const json_t *header, pq_error *err)
{
	char *text = json_dumps(header, JSON_COMPACT);
	if (!text)
		return pq_fail(err, PQ_ENOMEM, "%s: cannot serialise the header", w->path);
	size_t tlen = strlen(text);
	if (tlen > TRACE_MAX_HEADER) {
		free(text);
		return pq_fail(err, PQ_EINPUT, "%s: header JSON is %zu bytes (limit %u)",
		               w->path, tlen, TRACE_MAX_HEADER);
	}
	static const char creator[] = "pqprof " PACKAGE_VERSION;
	uint8_t pre[2 * TRACE_VARINT_MAX + sizeof creator];
	size_t plen = put_bytes(pre, creator, sizeof creator - 1);
	plen += trace_put_varint(pre + plen, w->opts.time_unit_ns);
	size_t rlen = plen + tlen;
	uint8_t *b = malloc(2 * TRACE_VARINT_MAX + rlen);
	if (!b) {
		free(text);
		return pq_fail(err, PQ_ENOMEM, "%s: out of memory", w->path);
	}
	size_t n = trace_put_varint(b, TRACE_REC_HEADER);
	n += trace_put_varint(b + n, rlen);
	memcpy(b + n, pre, plen);
	memcpy(b + n + plen, text, tlen);
	free(text);
	free(w->buf);
	w->buf = b;
	w->cap = 2 * TRACE_VARINT_MAX + rlen;
	w->len = n + rlen;
	w->st.records++;
	/* The header is written once: worth the strongest level. */
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, TRACE_HEADER_LEVEL);
	int r = write_frame(w);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->opts.level);
	if (r < 0) {
		*err = w->err;
		return r;
	}
	return 0;
}

trace_writer *trace_writer_open_opts(const char *path, const json_t *header,
                                     const struct trace_writer_opts *opts, pq_error *err)
{
	if (!header || !json_is_object(header)) {
		pq_fail(err, PQ_EINTERNAL, "%s: trace header must be a JSON object", path);
		return NULL;
	}
	if (strlen(path) >= sizeof ((trace_writer *)0)->path) {
		pq_fail(err, PQ_EINPUT, "%s: path too long", path);
		return NULL;
	}
	trace_writer *w = calloc(1, sizeof *w);
	if (!w) {
		pq_fail(err, PQ_ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	w->fd = -1;
	snprintf(w->path, sizeof w->path, "%s", path);
	set_opts(&w->opts, opts);
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->opts.level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1))) {
		pq_fail(err, PQ_EINTERNAL, "%s: cannot set up zstd", path);
		writer_free(w);
		return NULL;
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (w->fd < 0) {
		pq_fail_errno(err, PQ_EIO, "%s: cannot create", path);
		writer_free(w);
		return NULL;
	}
	uint8_t pre[TRACE_PREAMBLE_LEN];
	memcpy(pre, TRACE_MAGIC, 4);
	pre[4] = TRACE_VERSION_MAJOR & 0xff;
	pre[5] = TRACE_VERSION_MAJOR >> 8;
	pre[6] = TRACE_VERSION_MINOR & 0xff;
	pre[7] = TRACE_VERSION_MINOR >> 8;
	if (write_all(w, pre, sizeof pre) < 0 || write_header(w, header, err) < 0) {
		if (w->failed)
			*err = w->err;
		writer_free(w);
		return NULL;
	}
	return w;
}

int trace_write_unwind_stats(trace_writer *w, const struct trace_unwind_stats *st)
{
	if (w->failed)
		return -w->failed;
	int r = maybe_flush(w, 8 * TRACE_VARINT_MAX);
	if (r < 0)
		return r;
	const uint64_t v[8] = { st->op, st->stacks, st->complete, st->incomplete,
	                        st->frames_cfi, st->frames_fp, st->frames_scan, st->frames_stitched };
	size_t p = 0;
	for (int i = 0; i < 8; i++)
		p += trace_put_varint(w->rec + p, v[i]);
	return emit(w, TRACE_REC_UNWIND_STATS, p);
}

trace_writer *trace_writer_open(const char *path, const json_t *header, pq_error *err)
{
	return trace_writer_open_opts(path, header, NULL, err);
}

int trace_writer_close(trace_writer *w, int complete, struct trace_write_stats *stats,
                       pq_error *err)
{
	int r = 0;
	if (complete && !w->failed) {
		/* Totals let the reader notice a frame that went missing. */
		if (w->nblk)
			emit_block(w);
		r = maybe_flush(w, 16 * TRACE_VARINT_MAX);
		if (r == 0 && w->len == 0)
			r = open_frame(w);
		if (r == 0 && !w->failed) {
			uint64_t records = w->st.records;
			size_t p = trace_put_varint(w->rec, w->st.samples);
			p += trace_put_varint(w->rec + p, records);
			p += trace_put_varint(w->rec + p, w->run.lost);
			p += trace_put_varint(w->rec + p, w->run.throttles);
			p += trace_put_varint(w->rec + p, w->run.unthrottles);
			p += trace_put_varint(w->rec + p, w->run.active_ns);
			p += trace_put_varint(w->rec + p, w->run.requested_hz);
			r = emit(w, TRACE_REC_END, p);
		}
		if (w->failed)
			r = -w->failed;
	}
	if (r == 0)
		r = trace_writer_flush(w);
	if (r == 0 && fsync(w->fd) != 0 && errno != EINVAL)
		r = wfail_errno(w, "fsync failed");
	if (w->fd >= 0) {
		if (close(w->fd) != 0 && r == 0)
			r = wfail_errno(w, "close failed");
		w->fd = -1;
	}
	if (stats)
		trace_writer_stats(w, stats);
	if (w->failed) {
		if (err)
			*err = w->err;
		r = -w->failed;
	}
	writer_free(w);
	return r;
}
