/*
 * test_trace: Check suite for src/trace/ -- .pqt round trip and size,
 * truncation and corruption handling, version rules, and every exporter
 * (folded text, speedscope, callgrind, SVG and differential flame graph).
 */
#include "config.h"
#include "core/atomic_file.h"
#include "trace/export.h"
#include "trace/export_format.h"
#include "trace/flamegraph.h"
#include "trace/folded.h"
#include "trace/trace_format.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

static char tmpdir[256];

static void setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_trace.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

static const char *tpath(const char *name)
{
	static char buf[4][512];
	static int i;
	i = (i + 1) % 4;
	snprintf(buf[i], sizeof buf[i], "%s/%s", tmpdir, name);
	return buf[i];
}

/* ---- synthetic trace ---------------------------------------------- */

#define NSTACKS 16
#define DEPTH 20
#define ITERS 50
#define SAMPLES_PER_ITER 100
#define NSAMPLES (ITERS * SAMPLES_PER_ITER)

static uint64_t stacks[NSTACKS][DEPTH];

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void make_stacks(void)
{
	uint64_t s = 0x1234567;
	for (int i = 0; i < NSTACKS; i++)
		for (int d = 0; d < DEPTH; d++)
			stacks[i][d] = 0x555555550000ull + (rng(&s) & 0xfffff) + (d > 15 ? 0x7f0000000000ull : 0);
}

struct expect {
	uint64_t op, weight, time;
	int stack, depth;
};
static struct expect expected[NSAMPLES];

static json_t *test_header(void)
{
	return json_pack("{s:s, s:s, s:I, s:s, s:[s,s], s:{s:I}}", "instance", "toy-sig-128",
	                 "event", "cycles", "period", (json_int_t)100000, "call_graph", "dwarf",
	                 "flags", "-O2", "-march=native", "drng_seeds", "keygen", (json_int_t)42);
}

/* Write the synthetic trace; returns its stats. */
static struct trace_write_stats write_trace(const char *path, const struct trace_writer_opts *opts,
                                            int complete)
{
	make_stacks();
	json_t *h = test_header();
	pq_error err;
	trace_writer *w = trace_writer_open_opts(path, h, opts, &err);
	json_decref(h);
	ck_assert_msg(w != NULL, "%s", err.msg);
	static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	                                 11, 12, 13, 14, 15, 16 };
	ck_assert_int_eq(trace_write_mmap(w, 0x555555550000ull, 0x200000, 0x1000, bid, 20,
	                                  "/opt/schemes/toy/libtoy.so"), 0);
	ck_assert_int_eq(trace_write_mmap(w, 0x7f5555550000ull, 0x100000, 0, NULL, 0, "[vdso]"), 0);
	uint64_t s = 99, t = 1000000000ull;
	int k = 0;
	for (int it = 0; it < ITERS; it++) {
		uint64_t op = (uint64_t)(it % 2);
		const char *name = op ? "verify" : "sign";
		ck_assert_int_eq(trace_write_op_begin(w, op, name, (uint64_t)it, t), 0);
		for (int j = 0; j < SAMPLES_PER_ITER; j++, k++) {
			t += 1000 + rng(&s) % 500;
			int st = (int)(rng(&s) % NSTACKS);
			int depth = (st == 3) ? 0 : DEPTH - (st % 4);  /* one empty stack, varied depths */
			expected[k] = (struct expect){ op, 100000 + rng(&s) % 7, t, st, depth };
			if (trace_write_sample(w, op, expected[k].weight, t, stacks[st], depth) != 0)
				ck_abort_msg("write_sample failed");
		}
		t += 700;
		ck_assert_int_eq(trace_write_op_end(w, op, name, (uint64_t)it, t), 0);
		if (it == ITERS / 2)
			ck_assert_int_eq(trace_write_lost(w, 7), 0);
	}
	struct trace_write_stats st;
	ck_assert_msg(trace_writer_close(w, complete, &st, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(st.samples, NSAMPLES);
	return st;
}

/*
 * Read everything; check every sample against expected; return samples
 * read.  Plain comparisons in the loop: each ck_assert records a
 * checkpoint, which would make thousands of them slow.
 */
static int read_all(trace_reader *r, int *rc, pq_error *err)
{
	struct trace_record rec;
	uint64_t k = 0;
	int n;
	struct trace_read_stats rs;
	trace_reader_stats(r, &rs);
	uint64_t unit = rs.time_unit_ns ? rs.time_unit_ns : 1;  /* sample time resolution */
	while ((n = trace_reader_next(r, &rec, err)) == 1) {
		if (rec.type != TRACE_REC_SAMPLE)
			continue;
		ck_assert_msg(k < NSAMPLES, "too many samples");
		const struct expect *e = &expected[k];
		int ok = rec.u.sample.op == e->op && rec.u.sample.weight == e->weight &&
		         rec.u.sample.time == e->time / unit * unit && rec.u.sample.n == (size_t)e->depth;
		for (int d = 0; ok && d < e->depth; d++)
			ok = rec.u.sample.ips[d] == stacks[e->stack][d];
		if (!ok)
			ck_abort_msg("sample %llu differs from what was written", (unsigned long long)k);
		k++;
	}
	*rc = n;
	return (int)k;
}

static char *slurp(const char *path, size_t *len)
{
	char *buf;
	pq_error err;
	ck_assert_msg(read_whole_file(path, &buf, len, 0, &err) == 0, "%s", err.msg);
	return buf;
}

START_TEST(test_roundtrip_small)
{
	const char *p = tpath("t.pqt");
	struct trace_write_stats ws = write_trace(p, NULL, 1);
	/* Repeated 20-frame stacks must cost only a few bytes per sample. */
	ck_assert_msg(ws.bytes_per_sample < 8.0, "bytes per sample %.2f", ws.bytes_per_sample);
	ck_assert_uint_eq(ws.stack_defs, NSTACKS);

	trace_reader *r;
	pq_error err;
	ck_assert_msg(trace_reader_open(&r, p, &err) == 0, "%s", err.msg);
	json_t *h = test_header();
	ck_assert(json_equal(h, (json_t *)trace_reader_header(r)));
	json_decref(h);
	ck_assert_str_eq(trace_reader_creator(r), "pqprof " PACKAGE_VERSION);
	int rc;
	ck_assert_int_eq(read_all(r, &rc, &err), NSAMPLES);
	ck_assert_msg(rc == 0, "%s", err.msg);
	ck_assert_int_eq(trace_reader_check_complete(r, &err), 0);
	struct trace_read_stats st;
	trace_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, NSAMPLES);
	ck_assert_uint_eq(st.by_type[TRACE_REC_MMAP], 2);
	ck_assert_uint_eq(st.by_type[TRACE_REC_OP_BEGIN], ITERS);
	ck_assert_uint_eq(st.by_type[TRACE_REC_OP_END], ITERS);
	ck_assert_uint_eq(st.by_type[TRACE_REC_END], 1);
	ck_assert_uint_eq(st.lost, 7);
	ck_assert_uint_eq(st.frames, ws.frames);
	ck_assert_uint_eq(st.records, ws.records);
	ck_assert_uint_eq(st.file_bytes, ws.bytes);
	ck_assert(st.complete);
	trace_reader_close(r);
}
END_TEST

struct rec_check {
	int mmaps, ops;
};

static int check_rec(const struct trace_record *rec, void *ctx)
{
	struct rec_check *c = ctx;
	if (rec->type == TRACE_REC_MMAP && c->mmaps++ == 0) {
		ck_assert_uint_eq(rec->u.mmap.start, 0x555555550000ull);
		ck_assert_uint_eq(rec->u.mmap.len, 0x200000);
		ck_assert_uint_eq(rec->u.mmap.pgoff, 0x1000);
		ck_assert_uint_eq(rec->u.mmap.build_id_len, 20);
		ck_assert_uint_eq(rec->u.mmap.build_id[3], 0xef);
		ck_assert_str_eq(rec->u.mmap.path, "/opt/schemes/toy/libtoy.so");
	}
	if (rec->type == TRACE_REC_OP_END && c->ops++ == 1) {
		ck_assert_uint_eq(rec->u.op.op, 1);
		ck_assert_str_eq(rec->u.op.name, "verify");
		ck_assert_uint_eq(rec->u.op.iteration, 1);
	}
	return 0;
}

START_TEST(test_records_and_many_frames)
{
	const char *p = tpath("f.pqt");
	struct trace_writer_opts o = { .frame_bytes = 4096 };
	struct trace_write_stats ws = write_trace(p, &o, 1);
	ck_assert_uint_gt(ws.frames, 10);
	trace_reader *r;
	pq_error err;
	ck_assert_msg(trace_reader_open(&r, p, &err) == 0, "%s", err.msg);
	struct rec_check c = { 0, 0 };
	ck_assert_int_eq(trace_reader_foreach(r, check_rec, &c, &err), 0);
	ck_assert_int_eq(c.mmaps, 2);
	ck_assert_int_eq(c.ops, ITERS);
	trace_reader_close(r);
	/* And the samples survive the per-frame reset of the encoding state. */
	ck_assert_msg(trace_reader_open(&r, p, &err) == 0, "%s", err.msg);
	int rc;
	ck_assert_int_eq(read_all(r, &rc, &err), NSAMPLES);
	ck_assert_int_eq(rc, 0);
	trace_reader_close(r);
}
END_TEST

START_TEST(test_incomplete_trace)
{
	const char *p = tpath("i.pqt");
	write_trace(p, NULL, 0);
	trace_reader *r;
	pq_error err;
	ck_assert_msg(trace_reader_open(&r, p, &err) == 0, "%s", err.msg);
	int rc;
	ck_assert_int_eq(read_all(r, &rc, &err), NSAMPLES);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_lt(trace_reader_check_complete(r, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "incomplete (no end marker)"));
	ck_assert_ptr_nonnull(strstr(err.msg, "5000 samples readable"));
	trace_reader_close(r);
}
END_TEST

/* Every 1/20th of the file: a clean error naming the readable prefix. */
START_TEST(test_truncation)
{
	const char *p = tpath("cut.pqt");
	struct trace_writer_opts o = { .frame_bytes = 2048 };
	write_trace(p, &o, 1);
	size_t len;
	char *buf = slurp(p, &len);
	int last = -1;
	for (int k = 1; k < 20; k++) {
		size_t cut = len * (size_t)k / 20;
		trace_reader *r;
		pq_error err;
		pq_error_clear(&err);
		if (trace_reader_open_mem(&r, buf, cut, "cut.pqt", &err) < 0) {
			ck_assert_msg(strncmp(err.msg, "cut.pqt: ", 9) == 0, "%s", err.msg);
			ck_assert_msg(strstr(err.msg, "truncated") != NULL, "%s", err.msg);
			ck_assert_int_le(last, 0);
			last = 0;
			continue;
		}
		int rc;
		int got = read_all(r, &rc, &err);
		if (rc == 0) {
			ck_assert_int_lt(trace_reader_check_complete(r, &err), 0);
			ck_assert_ptr_nonnull(strstr(err.msg, "incomplete"));
		} else {
			ck_assert_msg(strstr(err.msg, "truncated frame") != NULL, "%s", err.msg);
		}
		char want[64];
		snprintf(want, sizeof want, "/ %d samples readable", got);
		ck_assert_msg(strstr(err.msg, want) != NULL, "%s (want %s)", err.msg, want);
		ck_assert_int_ge(got, last);
		ck_assert_int_lt(got, NSAMPLES);
		last = got;
		trace_reader_close(r);
	}
	ck_assert_int_gt(last, NSAMPLES / 2);
	free(buf);
}
END_TEST

/* Offsets of the zstd frames after the preamble. */
static int frame_offsets(const char *buf, size_t len, size_t *offs, int max)
{
	int n = 0;
	for (size_t pos = TRACE_PREAMBLE_LEN; pos < len && n < max; n++) {
		offs[n] = pos;
		size_t c = ZSTD_findFrameCompressedSize(buf + pos, len - pos);
		ck_assert(!ZSTD_isError(c));
		pos += c;
	}
	return n;
}

START_TEST(test_corruption)
{
	const char *p = tpath("c.pqt");
	struct trace_writer_opts o = { .frame_bytes = 2048 };
	write_trace(p, &o, 1);
	size_t len;
	char *buf = slurp(p, &len);
	size_t offs[512];
	int nf = frame_offsets(buf, len, offs, 512);
	ck_assert_int_gt(nf, 8);
	trace_reader *r;
	pq_error err;
	int rc;

	/* The checksum of frame 5 (its last 4 bytes). */
	buf[offs[6] - 2] ^= 0x40;
	ck_assert_msg(trace_reader_open_mem(&r, buf, len, "c.pqt", &err) == 0, "%s", err.msg);
	int got = read_all(r, &rc, &err);
	ck_assert_int_lt(rc, 0);
	char want[128];
	snprintf(want, sizeof want, "c.pqt: corrupt frame 5 at byte %zu (checksum mismatch); 5 frames / %d samples readable",
	         offs[5], got);
	ck_assert_str_eq(err.msg, want);
	trace_reader_close(r);
	buf[offs[6] - 2] ^= 0x40;

	/* A byte in the middle of the data: never a crash, always "corrupt". */
	for (int f = 1; f < nf; f += 3) {
		size_t at = (offs[f] + (f + 1 < nf ? offs[f + 1] : len)) / 2;
		buf[at] ^= 0x21;
		ck_assert_msg(trace_reader_open_mem(&r, buf, len, "c.pqt", &err) == 0, "%s", err.msg);
		read_all(r, &rc, &err);
		ck_assert_int_lt(rc, 0);
		ck_assert_msg(strstr(err.msg, "corrupt frame") || strstr(err.msg, "truncated frame"),
		              "%s", err.msg);
		trace_reader_close(r);
		buf[at] ^= 0x21;
	}

	/* The header frame's checksum: open itself fails. */
	buf[offs[1] - 1] ^= 1;
	ck_assert_int_lt(trace_reader_open_mem(&r, buf, len, "c.pqt", &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "corrupt frame 0 at byte 8 (checksum mismatch)"));
	buf[offs[1] - 1] ^= 1;

	free(buf);
}
END_TEST

/* The frame-removal case without read_all's sample checks. */
START_TEST(test_missing_frame)
{
	const char *p = tpath("m.pqt");
	struct trace_writer_opts o = { .frame_bytes = 2048 };
	write_trace(p, &o, 1);
	size_t len;
	char *buf = slurp(p, &len);
	size_t offs[512];
	int nf = frame_offsets(buf, len, offs, 512);
	ck_assert_int_gt(nf, 8);
	/* Drop frame 4 (a frame of samples: stack ids restart per frame). */
	size_t flen = offs[5] - offs[4];
	memmove(buf + offs[4], buf + offs[5], len - offs[5]);
	trace_reader *r;
	pq_error err;
	ck_assert_int_eq(trace_reader_open_mem(&r, buf, len - flen, "m.pqt", &err), 0);
	struct trace_record rec;
	int k;
	while ((k = trace_reader_next(r, &rec, &err)) == 1)
		;
	ck_assert_int_lt(k, 0);
	ck_assert_msg(strstr(err.msg, "a frame is missing") != NULL, "%s", err.msg);
	trace_reader_close(r);
	free(buf);
}
END_TEST

START_TEST(test_magic_and_version)
{
	const char *p = tpath("v.pqt");
	write_trace(p, NULL, 1);
	size_t len;
	char *buf = slurp(p, &len);
	trace_reader *r;
	pq_error err;

	char *bad = malloc(len);
	memcpy(bad, buf, len);
	memcpy(bad, "\x28\xb5\x2f\xfd", 4);
	ck_assert_int_lt(trace_reader_open_mem(&r, bad, len, "x.zst", &err), 0);
	ck_assert_str_eq(err.msg, "x.zst: not a pqprof trace (bad magic)");
	ck_assert_int_lt(trace_reader_open_mem(&r, "PQ", 2, "tiny", &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a pqprof trace"));
	ck_assert_int_lt(trace_reader_open_mem(&r, "", 0, "empty", &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a pqprof trace"));

	memcpy(bad, buf, len);
	bad[4] = 3;
	bad[6] = 0;
	ck_assert_int_lt(trace_reader_open_mem(&r, bad, len, "new.pqt", &err), 0);
	ck_assert_str_eq(err.msg, "new.pqt: trace version 3.0 is newer than this pqprof (2.x)");
	bad[4] = 0;
	ck_assert_int_lt(trace_reader_open_mem(&r, bad, len, "old.pqt", &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "no longer supported"));

	/* A newer minor version is still read. */
	memcpy(bad, buf, len);
	bad[6] = 7;
	ck_assert_int_eq(trace_reader_open_mem(&r, bad, len, "minor.pqt", &err), 0);
	int rc;
	ck_assert_int_eq(read_all(r, &rc, &err), NSAMPLES);
	ck_assert_int_eq(rc, 0);
	unsigned ma, mi;
	trace_reader_version(r, &ma, &mi);
	ck_assert_uint_eq(ma, 2);
	ck_assert_uint_eq(mi, 7);
	trace_reader_close(r);
	free(bad);
	free(buf);
}
END_TEST

/* Build a trace by hand: preamble, header frame, one frame of raw records. */
static size_t handmade(uint8_t *out, unsigned minor, const uint8_t *recs, size_t rlen)
{
	static const char hdr[] = "\x01\x0c\x04test{\"a\":1}";  /* HEADER: creator "test", {"a":1} */
	memcpy(out, "PQPT\x01\x00", 6);
	out[6] = (uint8_t)minor;
	out[7] = 0;
	size_t n = 8;
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	size_t z = ZSTD_compress2(c, out + n, 4096, hdr, sizeof hdr - 1);
	ck_assert(!ZSTD_isError(z));
	n += z;
	z = ZSTD_compress2(c, out + n, 4096, recs, rlen);
	ck_assert(!ZSTD_isError(z));
	n += z;
	ZSTD_freeCCtx(c);
	return n;
}

START_TEST(test_unknown_records)
{
	/* LOST 5, an unknown type 42 with 3 bytes, END {0 samples, 3 records}. */
	static const uint8_t recs[] = { 7, 1, 5, 42, 3, 1, 2, 3, 8, 2, 0, 3 };
	uint8_t buf[8192];
	size_t n = handmade(buf, 0, recs, sizeof recs);
	trace_reader *r;
	pq_error err;
	ck_assert_msg(trace_reader_open_mem(&r, buf, n, "h.pqt", &err) == 0, "%s", err.msg);
	struct trace_record rec;
	ck_assert_int_eq(trace_reader_next(r, &rec, &err), 1);
	ck_assert_int_eq(rec.type, TRACE_REC_LOST);
	ck_assert_int_lt(trace_reader_next(r, &rec, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown record type 42"));
	trace_reader_close(r);

	n = handmade(buf, 3, recs, sizeof recs);  /* minor 3: skip it */
	ck_assert_msg(trace_reader_open_mem(&r, buf, n, "h.pqt", &err) == 0, "%s", err.msg);
	ck_assert_int_eq(trace_reader_next(r, &rec, &err), 1);
	ck_assert_int_eq(trace_reader_next(r, &rec, &err), 1);
	ck_assert_int_eq(rec.type, TRACE_REC_END);
	ck_assert_int_eq(trace_reader_next(r, &rec, &err), 0);
	ck_assert_int_eq(trace_reader_check_complete(r, &err), 0);
	struct trace_read_stats st;
	trace_reader_stats(r, &st);
	ck_assert_uint_eq(st.skipped, 1);
	trace_reader_close(r);

	/* Hostile lengths and indices. */
	static const struct { uint8_t rec[8]; size_t n; const char *why; } bad[] = {
		{ { 7, 9, 5 }, 3, "record length beyond the frame" },
		{ { 7, 1, 0x80 }, 3, "bad varint" },
		{ { 4, 4, 0, 1, 0, 0 }, 6, "undefined stack" },
		{ { 3, 2, 1, 0 }, 4, "stack id out of sequence" },
		{ { 3, 3, 0, 0x81, 0x10 }, 5, "stack deeper than the limit" },
		{ { 2, 5, 0, 0, 0, 21, 0 }, 7, "bad build id" },
		{ { 7, 2, 5, 0 }, 4, "record longer than its fields" },
		{ { 1, 1, 0 }, 3, "header record outside the header frame" },
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 8, "bad varint in record header" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		n = handmade(buf, 0, bad[i].rec, bad[i].n);
		ck_assert_int_eq(trace_reader_open_mem(&r, buf, n, "h.pqt", &err), 0);
		ck_assert_int_lt(trace_reader_next(r, &rec, &err), 0);
		ck_assert_msg(strstr(err.msg, bad[i].why) != NULL, "case %zu: %s", i, err.msg);
		trace_reader_close(r);
	}
}
END_TEST

/* UNWIND_STATS comes back field for field, just before END. */
START_TEST(test_unwind_stats_record)
{
	pq_error err;
	json_t *h = json_object();
	trace_writer *w = trace_writer_open(tpath("u.pqt"), h, &err);
	json_decref(h);
	ck_assert_msg(w != NULL, "%s", err.msg);
	uint64_t ips[3] = { 0x1000, 0x2000, 0x3000 };
	ck_assert_int_eq(trace_write_sample(w, 1, 5, 10, ips, 3), 0);
	const struct trace_unwind_stats in = { 1, 1000, 990, 10, 4000, 300, 200, 6000 };
	ck_assert_int_eq(trace_write_unwind_stats(w, &in), 0);
	ck_assert_msg(trace_writer_close(w, 1, NULL, &err) == 0, "%s", err.msg);
	trace_reader *r;
	ck_assert_msg(trace_reader_open(&r, tpath("u.pqt"), &err) == 0, "%s", err.msg);
	struct trace_record rec;
	int seen = 0, k;
	while ((k = trace_reader_next(r, &rec, &err)) == 1) {
		if (rec.type != TRACE_REC_UNWIND_STATS)
			continue;
		seen++;
		ck_assert_mem_eq(&rec.u.unwind, &in, sizeof in);
	}
	ck_assert_msg(k == 0, "%s", err.msg);
	ck_assert_int_eq(seen, 1);
	ck_assert_int_eq(trace_reader_check_complete(r, &err), 0);
	ck_assert_str_eq(trace_rec_type_name(TRACE_REC_UNWIND_STATS), "UNWIND_STATS");
	trace_reader_close(r);
}
END_TEST

/*
 * 2.1 SAMPLES_B: with 600 stacks sampled, ranks pass the escape byte, so
 * both one-byte and escaped stack codes are written; every sample comes
 * back with its stack, weight and time.
 */
START_TEST(test_samples_b_escape)
{
	enum { NS = 600, NSAMP = 6000, D = 3 };
	static uint64_t ips[NS][D];
	static uint32_t which[NSAMP];
	for (int i = 0; i < NS; i++)
		for (int d = 0; d < D; d++)
			ips[i][d] = 0x400000u + (uint64_t)i * 64 + (uint64_t)d * 0x10000;
	uint64_t s = 7;
	for (int k = 0; k < NSAMP; k++)  /* skewed: low ids more often */
		which[k] = (uint32_t)((rng(&s) % NS) * (rng(&s) % NS) / NS);
	const char *p = tpath("b.pqt");
	json_t *h = json_pack("{s:s}", "schema", "test");
	pq_error err;
	struct trace_writer_opts o = { .time_unit_ns = 1000 };
	trace_writer *w = trace_writer_open_opts(p, h, &o, &err);
	json_decref(h);
	ck_assert_msg(w != NULL, "%s", err.msg);
	for (int k = 0; k < NSAMP; k++)
		if (trace_write_sample(w, 1, 100 + (uint64_t)(k % 3), 1000000u * (uint64_t)k, ips[which[k]], D))
			ck_abort_msg("write_sample failed");
	struct trace_write_stats ws;
	ck_assert_msg(trace_writer_close(w, 1, &ws, &err) == 0, "%s", err.msg);

	trace_reader *r;
	ck_assert_msg(trace_reader_open(&r, p, &err) == 0, "%s", err.msg);
	unsigned major, minor;
	trace_reader_version(r, &major, &minor);
	ck_assert_uint_eq(major, TRACE_VERSION_MAJOR);
	ck_assert_uint_eq(minor, TRACE_VERSION_MINOR);
	struct trace_record rec;
	int k = 0, n, ok = 1;
	while ((n = trace_reader_next(r, &rec, &err)) == 1) {
		if (rec.type != TRACE_REC_SAMPLE)
			continue;
		ck_assert_int_lt(k, NSAMP);
		ok = ok && rec.u.sample.n == D && rec.u.sample.weight == 100 + (uint64_t)(k % 3) &&
		     rec.u.sample.time == 1000000u * (uint64_t)k &&
		     memcmp(rec.u.sample.ips, ips[which[k]], sizeof ips[0]) == 0;
		if (!ok)
			ck_abort_msg("sample %d differs from what was written", k);
		k++;
	}
	ck_assert_msg(n == 0, "%s", err.msg);
	ck_assert_int_eq(k, NSAMP);
	struct trace_read_stats st;
	trace_reader_stats(r, &st);
	ck_assert_uint_gt(st.by_type[TRACE_REC_SAMPLES_B], 0);
	ck_assert_uint_eq(st.by_type[TRACE_REC_SAMPLES], 0);
	ck_assert_uint_gt(st.stacks, 255);
	trace_reader_close(r);
}
END_TEST

/* A 2.x file by hand: header frame (creator, time unit 1), then frame 1. */
static size_t handmade_v2(uint8_t *out, const uint8_t *recs, size_t rlen)
{
	static const char hdr[] = "\x01\x0d\x04test\x01{\"a\":1}";
	memcpy(out, "PQPT\x02\x00\x00\x00", 8);
	size_t n = 8;
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	size_t z = ZSTD_compress2(c, out + n, 4096, hdr, sizeof hdr - 1);
	ck_assert(!ZSTD_isError(z));
	n += z;
	z = ZSTD_compress2(c, out + n, 4096, recs, rlen);
	ck_assert(!ZSTD_isError(z));
	n += z;
	ZSTD_freeCCtx(c);
	return n;
}

START_TEST(test_v2_records)
{
	/*
	 * FRAME 1; STACK_DEF {n 2, no parent, 0x10, 0x11 (outermost first:
	 * 0x11 then -1)}; STACK_DEF {n 2, parent 1 back, keep 1, own 0x20
	 * against the sibling 0x10}; a record of type 12 (not this reader's:
	 * skipped); SAMPLES {op 1, 3 samples: new, new, rank 1 (stack 0);
	 * weights 5, 5, 6; times 10, 12, 12}; END {3 samples, 6 records,
	 * lost 2, throttles 1, unthrottles 1, 1 s active, 1999 Hz}.
	 */
	static const uint8_t recs[] = {
		10, 1, 1,
		3, 5, 2, 0, 0, 0x22, 1,
		3, 4, 2, 1, 1, 0x20,
		12, 2, 7, 7,
		11, 11, 1, 3, 0, 0, 1, 10, 0, 2, 20, 4, 0,
		8, 12, 3, 6, 2, 1, 1, 0x80, 0x94, 0xeb, 0xdc, 0x03, 0xcf, 0x0f,
	};
	uint8_t buf[8192];
	size_t n = handmade_v2(buf, recs, sizeof recs);
	trace_reader *r;
	pq_error err;
	ck_assert_msg(trace_reader_open_mem(&r, buf, n, "v2.pqt", &err) == 0, "%s", err.msg);
	struct trace_record rec;
	uint64_t want_stack[] = { 1, 0, 0 }, want_w[] = { 5, 5, 6 }, want_t[] = { 10, 12, 12 };
	int ns = 0, k;
	while ((k = trace_reader_next(r, &rec, &err)) == 1) {
		if (rec.type == TRACE_REC_STACK_DEF && rec.u.stack.id == 0) {
			ck_assert_uint_eq(rec.u.stack.n, 2);
			ck_assert_uint_eq(rec.u.stack.ips[0], 0x10);
			ck_assert_uint_eq(rec.u.stack.ips[1], 0x11);
		}
		if (rec.type == TRACE_REC_STACK_DEF && rec.u.stack.id == 1) {
			ck_assert_uint_eq(rec.u.stack.ips[0], 0x20);
			ck_assert_uint_eq(rec.u.stack.ips[1], 0x11);
		}
		if (rec.type == TRACE_REC_SAMPLE) {
			ck_assert_int_lt(ns, 3);
			ck_assert_uint_eq(rec.u.sample.op, 1);
			ck_assert_uint_eq(rec.u.sample.stack_id, ns == 0 ? 0 : ns == 1 ? 1 : 0);
			ck_assert_uint_eq(rec.u.sample.weight, want_w[ns]);
			ck_assert_uint_eq(rec.u.sample.time, want_t[ns]);
			ns++;
		}
		if (rec.type == TRACE_REC_END) {
			ck_assert_uint_eq(rec.u.end.lost, 2);
			ck_assert_uint_eq(rec.u.end.active_ns, 1000000000u);
			ck_assert_uint_eq(rec.u.end.requested_hz, 1999);
		}
	}
	(void)want_stack;
	ck_assert_msg(k == 0, "%s", err.msg);
	ck_assert_int_eq(ns, 3);
	ck_assert_int_eq(trace_reader_check_complete(r, &err), 0);
	struct trace_read_stats st;
	trace_reader_stats(r, &st);
	ck_assert_uint_eq(st.skipped, 1);
	ck_assert_int_eq(st.run_known, 1);
	ck_assert_uint_eq(st.run_throttles, 1);
	trace_reader_close(r);

	/* Hostile 2.x records. */
	static const struct { uint8_t rec[16]; size_t n; const char *why; } bad[] = {
		{ { 7, 1, 5 }, 3, "frame does not start with its index" },
		{ { 10, 1, 2 }, 3, "a frame is missing" },
		{ { 10, 1, 1, 3, 4, 2, 1, 1, 5 }, 9, "bad parent" },
		{ { 10, 1, 1, 11, 5, 0, 1, 0, 0, 0 }, 10, "undefined stack" },
		{ { 10, 1, 1, 11, 2, 0, 0 }, 7, "block size out of range" },
		{ { 10, 1, 1, 3, 4, 1, 0, 0, 5, 3, 3, 2, 1, 2 }, 14, "keeps more frames" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		n = handmade_v2(buf, bad[i].rec, bad[i].n);
		ck_assert_int_eq(trace_reader_open_mem(&r, buf, n, "h.pqt", &err), 0);
		while ((k = trace_reader_next(r, &rec, &err)) == 1)
			;
		ck_assert_int_lt(k, 0);
		ck_assert_msg(strstr(err.msg, bad[i].why) != NULL, "case %zu: %s", i, err.msg);
		trace_reader_close(r);
	}
}
END_TEST

/* A file written by pqprof 0.1.0 (format 1.0) still reads in full. */
START_TEST(test_v1_file)
{
	char path[4096];
	const char *src = getenv("top_srcdir");
	snprintf(path, sizeof path, "%s/tests/fuzz/corpus/trace/valid_frames.pqt", src ? src : ".");
	trace_reader *r;
	pq_error err;
	ck_assert_msg(trace_reader_open(&r, path, &err) == 0, "%s", err.msg);
	unsigned ma, mi;
	trace_reader_version(r, &ma, &mi);
	ck_assert_uint_eq(ma, 1);
	struct trace_record rec;
	int k;
	uint64_t weight = 0;
	while ((k = trace_reader_next(r, &rec, &err)) == 1)
		if (rec.type == TRACE_REC_SAMPLE)
			weight += rec.u.sample.weight;
	ck_assert_msg(k == 0, "%s", err.msg);
	ck_assert_int_eq(trace_reader_check_complete(r, &err), 0);
	struct trace_read_stats st;
	trace_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 200);
	ck_assert_uint_eq(st.frames, 15);
	ck_assert_uint_eq(st.lost, 3);
	ck_assert_uint_eq(weight, 200000);
	trace_reader_close(r);
}
END_TEST

/*
 * Tables persist: over many small frames each distinct stack is defined
 * once, and a file cut after any frame still reads up to the cut.
 */
START_TEST(test_persistent_tables)
{
	const char *p = tpath("pt.pqt");
	struct trace_writer_opts o = { .frame_bytes = 2048, .block = 64 };
	struct trace_write_stats ws = write_trace(p, &o, 1);
	ck_assert_uint_gt(ws.frames, 20);
	ck_assert_uint_le(ws.stack_defs, NSTACKS);
	trace_reader *r;
	pq_error err;
	ck_assert_msg(trace_reader_open(&r, p, &err) == 0, "%s", err.msg);
	int rc;
	ck_assert_int_eq(read_all(r, &rc, &err), NSAMPLES);
	ck_assert_int_eq(rc, 0);
	struct trace_read_stats st;
	trace_reader_stats(r, &st);
	ck_assert_uint_eq(st.stacks, ws.stack_defs);
	ck_assert_uint_eq(st.by_type[TRACE_REC_MMAP], 2);
	trace_reader_close(r);

	/* Cut in the middle of the file: the frames before the cut are whole. */
	size_t len;
	char *buf = slurp(p, &len);
	ck_assert_int_eq(trace_reader_open_mem(&r, buf, len / 2, "cut.pqt", &err), 0);
	int got = read_all(r, &rc, &err);
	ck_assert_int_lt(rc, 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "truncated frame"));
	ck_assert_int_gt(got, NSAMPLES / 4);
	ck_assert_int_lt(got, NSAMPLES);
	trace_reader_close(r);
	free(buf);
}
END_TEST

START_TEST(test_writer_errors)
{
	pq_error err;
	json_t *arr = json_array();
	ck_assert_ptr_null(trace_writer_open(tpath("x.pqt"), arr, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "JSON object"));
	json_decref(arr);
	json_t *h = json_object();
	ck_assert_ptr_null(trace_writer_open("/nonexistent/dir/x.pqt", h, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot create"));
	trace_writer *w = trace_writer_open(tpath("y.pqt"), h, &err);
	ck_assert_ptr_nonnull(w);
	uint64_t ips[2] = { 1, 2 };
	ck_assert_int_lt(trace_write_sample(w, 0, 1, 0, ips, TRACE_MAX_STACK + 1), 0);
	ck_assert_int_lt(trace_write_lost(w, 1), 0);  /* sticky */
	ck_assert_ptr_nonnull(trace_writer_error(w));
	ck_assert_int_lt(trace_writer_close(w, 1, NULL, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "depth"));
	json_decref(h);
}
END_TEST

/* ---- exporters ------------------------------------------------------ */

static folded *tiny_profile(void)
{
	folded *f = folded_new("cycles");
	pq_error err;
	const char *s1[] = { "main", "sign", "hash" };
	const char *s2[] = { "main", "sign" };
	const char *s3[] = { "main", "verify", "hash" };
	const char *s4[] = { "main", "odd;name" };
	ck_assert_int_eq(folded_add_names(f, "sign", s1, 3, 2, &err), 0);
	ck_assert_int_eq(folded_add_names(f, "sign", s2, 2, 5, &err), 0);
	ck_assert_int_eq(folded_add_names(f, "sign", s1, 3, 1, &err), 0);
	ck_assert_int_eq(folded_add_names(f, "sign", s4, 2, 4, &err), 0);
	ck_assert_int_eq(folded_add_names(f, "verify", s3, 3, 2, &err), 0);
	return f;
}

/*
 * The format table: every row has a name and a writer that writes a file,
 * names are distinct and found again by name, and an unknown name is a
 * usage error that lists them all.
 */
START_TEST(test_export_formats)
{
	folded *f = tiny_profile();
	pq_error err;
	char names[256];
	export_format_names(names, sizeof names, ", ", " or ");
	int n = 0;
	for (const struct export_format *x = export_formats; x->name; x++, n++) {
		ck_assert_msg(x->name[0] != '\0', "format %d has no name", n);
		ck_assert_ptr_eq(export_format_find(x->name), x);
		/* pprof is written from the analysed trace (tests/e2e/pprof_export.sh). */
		if (!x->write) {
			ck_assert_str_eq(x->name, "pprof");
			continue;
		}
		const struct export_format *got = NULL;
		ck_assert_int_eq(export_format_lookup(x->name, &got, &err), 0);
		ck_assert_ptr_eq(got, x);
		ck_assert_msg(strstr(names, x->name) != NULL, "%s missing from '%s'", x->name, names);
		char path[512];
		snprintf(path, sizeof path, "%s", tpath(x->name));
		ck_assert_msg(x->write(f, "sign", "title", path, &err) == 0, "%s: %s", x->name, err.msg);
		size_t len = 0;
		char *txt = slurp(path, &len);
		ck_assert_msg(txt && len > 0, "%s wrote nothing", x->name);
		free(txt);
		ck_assert_int_lt(x->write(f, "nope", "title", tpath("nope.out"), &err), 0);
	}
	ck_assert_int_ge(n, 4);
	const struct export_format *got = export_formats;
	ck_assert_int_eq(export_format_lookup("pdf", &got, &err), -PQ_EUSAGE);
	ck_assert_ptr_null(got);
	ck_assert_ptr_nonnull(strstr(err.msg, "'pdf'"));
	ck_assert_ptr_nonnull(strstr(err.msg, names));
	ck_assert_ptr_null(export_format_find(NULL));
	/* The folded writer's output reads back as the same profile. */
	size_t len;
	char *txt = slurp(tpath("folded"), &len);
	folded *g = folded_new(NULL);
	ck_assert_int_eq(folded_parse(g, "sign", txt, &err), 0);
	ck_assert_uint_eq(folded_find_op(g, "sign")->total, folded_find_op(f, "sign")->total);
	free(txt);
	folded_free(g);
	folded_free(f);
}
END_TEST

START_TEST(test_folded_text)
{
	folded *f = tiny_profile();
	pq_error err;
	ck_assert_msg(export_folded(f, "sign", tpath("s.folded"), &err) == 0, "%s", err.msg);
	size_t len;
	char *txt = slurp(tpath("s.folded"), &len);
	ck_assert_str_eq(txt, "main;odd:name 4\nmain;sign 5\nmain;sign;hash 3\n");
	free(txt);
	ck_assert_int_eq(export_folded(f, NULL, tpath("all.folded"), &err), 0);
	txt = slurp(tpath("all.folded"), &len);
	ck_assert_str_eq(txt, "sign;main;odd:name 4\nsign;main;sign 5\nsign;main;sign;hash 3\n"
	                      "verify;main;verify;hash 2\n");
	/* And it parses back to the same thing. */
	folded *g = folded_new(NULL);
	ck_assert_int_eq(folded_parse(g, "x", txt, &err), 0);
	ck_assert_uint_eq(folded_find_op(g, "x")->total, 14);
	ck_assert_int_lt(folded_parse(g, "x", "a;b 1\nno-count\n", &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "line 2"));
	ck_assert_int_lt(export_folded(f, "nope", tpath("n.folded"), &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "no operation 'nope'"));
	ck_assert_int_ne(access(tpath("n.folded"), F_OK), 0);
	free(txt);
	folded_free(g);
	folded_free(f);
}
END_TEST

START_TEST(test_speedscope)
{
	folded *f = tiny_profile();
	pq_error err;
	struct folded_frame fr[2] = { { "main", "main.c", 10 }, { "leaf", "leaf.c", 0 } };
	ck_assert_int_eq(folded_add(f, "verify", fr, 2, 1, &err), 0);
	ck_assert_msg(export_speedscope(f, NULL, "toy", tpath("s.json"), &err) == 0, "%s", err.msg);
	json_error_t je;
	json_t *doc = json_load_file(tpath("s.json"), 0, &je);
	ck_assert_msg(doc != NULL, "%s", je.text);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "$schema")),
	                 "https://www.speedscope.app/file-format-schema.json");
	json_t *frames = json_object_get(json_object_get(doc, "shared"), "frames");
	json_t *profiles = json_object_get(doc, "profiles");
	ck_assert_uint_eq(json_array_size(profiles), 2);
	size_t nframes = json_array_size(frames);
	ck_assert_uint_eq(nframes, 6);  /* main sign hash odd:name verify leaf */
	json_t *main_fr = json_array_get(frames, 0);
	ck_assert_str_eq(json_string_value(json_object_get(main_fr, "name")), "main");
	ck_assert_str_eq(json_string_value(json_object_get(main_fr, "file")), "main.c");
	ck_assert_int_eq(json_integer_value(json_object_get(main_fr, "line")), 10);
	const char *names[] = { "sign", "verify" };
	const json_int_t totals[] = { 12, 3 };
	for (size_t i = 0; i < 2; i++) {
		json_t *p = json_array_get(profiles, i);
		ck_assert_str_eq(json_string_value(json_object_get(p, "type")), "sampled");
		ck_assert_str_eq(json_string_value(json_object_get(p, "name")), names[i]);
		/* Cycles have no speedscope unit. */
		ck_assert_str_eq(json_string_value(json_object_get(p, "unit")), "none");
		json_t *samples = json_object_get(p, "samples"), *weights = json_object_get(p, "weights");
		ck_assert_uint_eq(json_array_size(samples), json_array_size(weights));
		json_int_t sum = 0;
		for (size_t j = 0; j < json_array_size(weights); j++) {
			sum += json_integer_value(json_array_get(weights, j));
			json_t *st = json_array_get(samples, j);
			ck_assert_uint_gt(json_array_size(st), 0);
			/* root first */
			ck_assert_int_eq(json_integer_value(json_array_get(st, 0)), 0);
			for (size_t k = 0; k < json_array_size(st); k++)
				ck_assert_uint_lt((size_t)json_integer_value(json_array_get(st, k)), nframes);
		}
		ck_assert_int_eq(sum, totals[i]);
		ck_assert_int_eq(json_integer_value(json_object_get(p, "endValue")), totals[i]);
	}
	json_decref(doc);
	folded_free(f);
}
END_TEST

/* The lines after "fn=name" up to the next blank line. */
static const char *fn_block(const char *txt, const char *fn, char *out, size_t cap)
{
	char key[128];
	snprintf(key, sizeof key, "\nfn=%s\n", fn);
	const char *p = strstr(txt, key);
	ck_assert_msg(p != NULL, "no block for %s", fn);
	p += strlen(key);
	const char *e = strstr(p, "\n\n");
	size_t n = e ? (size_t)(e - p) + 1 : strlen(p);
	ck_assert_uint_lt(n, cap);
	memcpy(out, p, n);
	out[n] = '\0';
	return out;
}

/* Weights in ns (the clock events) are speedscope "nanoseconds". */
START_TEST(test_speedscope_unit)
{
	folded *f = folded_new("ns");
	pq_error err;
	struct folded_frame fr[2] = { { "main", NULL, 0 }, { "leaf", NULL, 0 } };
	ck_assert_int_eq(folded_add(f, "sign", fr, 2, 500000, &err), 0);
	ck_assert_msg(export_speedscope(f, NULL, "toy", tpath("ns.json"), &err) == 0, "%s", err.msg);
	json_error_t je;
	json_t *doc = json_load_file(tpath("ns.json"), 0, &je);
	ck_assert_msg(doc != NULL, "%s", je.text);
	json_t *p = json_array_get(json_object_get(doc, "profiles"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(p, "unit")), "nanoseconds");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "endValue")), 500000);
	json_decref(doc);
	folded_free(f);
}
END_TEST

START_TEST(test_callgrind)
{
	folded *f = folded_new("cycles");
	pq_error err;
	ck_assert_int_eq(folded_parse(f, "sign", "main;a;b 10\nmain;a 5\nmain;c 3\na;b;a;b 4\n", &err), 0);
	struct folded_frame fr[1] = { { "main", "src/main.c", 12 } };
	ck_assert_int_eq(folded_add(f, "sign", fr, 1, 0, &err), 0);
	ck_assert_msg(export_callgrind(f, "sign", tpath("cg.out"), &err) == 0, "%s", err.msg);
	size_t len;
	char *txt = slurp(tpath("cg.out"), &len);
	ck_assert_ptr_nonnull(strstr(txt, "# callgrind format\n"));
	ck_assert_ptr_nonnull(strstr(txt, "events: cycles\n"));
	ck_assert_ptr_nonnull(strstr(txt, "summary: 22\n"));
	ck_assert_ptr_nonnull(strstr(txt, "totals: 22\n"));
	ck_assert_ptr_nonnull(strstr(txt, "fl=src/main.c\nfn=main\n"));
	/* No exact counts: no calls= lines (sample counts are not calls), self costs only. */
	char blk[1024];
	ck_assert(strstr(txt, "calls=") == NULL);
	ck_assert_str_eq(fn_block(txt, "main", blk, sizeof blk), "12 0\n");
	ck_assert_str_eq(fn_block(txt, "a", blk, sizeof blk), "0 5\n");
	ck_assert_str_eq(fn_block(txt, "b", blk, sizeof blk), "0 14\n");
	free(txt);

	/*
	 * Counted calls: an edge that is the callee's only caller carries the
	 * count and its inclusive cost; a has two callers (main, b), so its
	 * count says nothing about either edge.
	 */
	ck_assert_int_eq(folded_set_calls(f, "sign", "c", 7), 0);
	ck_assert_int_eq(folded_set_calls(f, "sign", "b", 9), 0);
	ck_assert_int_eq(folded_set_calls(f, "sign", "a", 5), 0);
	ck_assert_msg(export_callgrind(f, "sign", tpath("cg2.out"), &err) == 0, "%s", err.msg);
	txt = slurp(tpath("cg2.out"), &len);
	ck_assert_str_eq(fn_block(txt, "main", blk, sizeof blk), "cfi=???\ncfn=c\ncalls=7 0\n12 3\n");
	/* a: self 5; a->b (b's only caller) with b's 9 calls, inclusive 14 */
	ck_assert_str_eq(fn_block(txt, "a", blk, sizeof blk), "0 5\ncfi=???\ncfn=b\ncalls=9 0\n0 14\n");
	ck_assert_str_eq(fn_block(txt, "b", blk, sizeof blk), "0 14\n");
	ck_assert_str_eq(fn_block(txt, "c", blk, sizeof blk), "0 3\n");
	free(txt);
	folded_free(f);
}
END_TEST

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The fill of the first frame whose data-n is name. */
static void fill_of(const char *svg, const char *name, char *out, size_t cap)
{
	char key[128];
	snprintf(key, sizeof key, "data-n=\"%s\"", name);
	const char *p = strstr(svg, key);
	ck_assert_msg(p != NULL, "no frame %s", name);
	const char *g = p;
	while (g > svg && strncmp(g, "<g ", 3) != 0)
		g--;
	const char *fl = strstr(g, "data-fill=\"");
	ck_assert(fl && fl < p);
	fl += 11;
	size_t n = (size_t)(strchr(fl, '"') - fl);
	ck_assert_uint_lt(n, cap);
	memcpy(out, fl, n);
	out[n] = '\0';
}

START_TEST(test_flamegraph)
{
	folded *f = tiny_profile();
	pq_error err;
	const char *s5[] = { "main", "operator<&\"x\"" };
	ck_assert_int_eq(folded_add_names(f, "sign", s5, 2, 1, &err), 0);
	ck_assert_msg(flamegraph_svg(f, "sign", NULL, tpath("s.svg"), &err) == 0, "%s", err.msg);
	size_t len;
	char *svg = slurp(tpath("s.svg"), &len);
	/* nodes: sign(root) main sign hash odd:name operator.. = 6 */
	ck_assert_uint_eq(count(svg, "<g class=\"f\""), 6);
	ck_assert_uint_eq(count(svg, "<rect"), 6 + 1);  /* + background */
	ck_assert_uint_eq(count(svg, "<g "), count(svg, "</g>"));
	ck_assert_uint_eq(count(svg, "<text"), count(svg, "</text>"));
	ck_assert_uint_eq(count(svg, "<title>"), count(svg, "</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<script"));
	ck_assert_ptr_nonnull(strstr(svg, "function zoom"));
	ck_assert_ptr_nonnull(strstr(svg, "Matched: "));
	ck_assert_ptr_nonnull(strstr(svg, "Total: 13 cycles"));
	ck_assert_ptr_nonnull(strstr(svg, "data-total=\"13\""));
	ck_assert_ptr_nonnull(strstr(svg, "operator&lt;&amp;&quot;x&quot;"));
	ck_assert_ptr_null(strstr(svg, "operator<"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>hash (3 cycles, 23.08%)</title>"));
	char c1[32], c2[32];
	fill_of(svg, "hash", c1, sizeof c1);
	flamegraph_color("hash", c2, sizeof c2);
	ck_assert_str_eq(c1, c2);
	free(svg);
	/* Same colour for the same function in another graph. */
	ck_assert_int_eq(flamegraph_svg(f, NULL, NULL, tpath("all.svg"), &err), 0);
	svg = slurp(tpath("all.svg"), &len);
	ck_assert_uint_eq(count(svg, "data-n=\"hash\""), 2);
	const char *second = strstr(strstr(svg, "data-n=\"hash\"") + 1, "data-n=\"hash\"");
	while (second[-1] != '\n')
		second--;
	fill_of(second, "hash", c1, sizeof c1);
	ck_assert_str_eq(c1, c2);
	free(svg);
	folded_free(f);
}
END_TEST

START_TEST(test_diff_flamegraph)
{
	folded *a = folded_new("cycles"), *b = folded_new("cycles");
	pq_error err;
	ck_assert_int_eq(folded_parse(a, "sign", "main;grow 10\nmain;shrink 10\nmain;same 20\n", &err), 0);
	ck_assert_int_eq(folded_parse(b, "sign", "main;grow 30\nmain;shrink 10\nmain;same 40\n", &err), 0);
	ck_assert_msg(flamegraph_diff_svg(a, b, "sign", NULL, tpath("d.svg"), &err) == 0, "%s", err.msg);
	size_t len;
	char *svg = slurp(tpath("d.svg"), &len);
	char c[32];
	fill_of(svg, "grow", c, sizeof c);       /* 25% -> 37.5%: red */
	ck_assert_str_eq(c, "rgb(255,45,45)");
	fill_of(svg, "shrink", c, sizeof c);     /* 25% -> 12.5%: blue */
	ck_assert_str_eq(c, "rgb(45,45,255)");
	fill_of(svg, "same", c, sizeof c);       /* 50% -> 50% */
	ck_assert_str_eq(c, "rgb(255,255,255)");
	ck_assert_ptr_nonnull(strstr(svg, "<title>grow (before 10, 25.00%; after 30, 37.50%; delta +20, +12.50%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "Total: 80 cycles (before: 40)"));
	/* widths come from the second profile: grow is 30/80 of the width */
	ck_assert_ptr_nonnull(strstr(svg, "data-n=\"grow\""));
	ck_assert_ptr_nonnull(strstr(svg, "data-w=\"0.375000000\" data-d=\"2\" data-fill=\"rgb(255,45,45)\""));
	free(svg);
	folded_free(a);
	folded_free(b);
}
END_TEST

static Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("format");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_roundtrip_small);
	tcase_add_test(tc, test_records_and_many_frames);
	tcase_add_test(tc, test_incomplete_trace);
	tcase_add_test(tc, test_truncation);
	tcase_add_test(tc, test_corruption);
	tcase_add_test(tc, test_missing_frame);
	tcase_add_test(tc, test_magic_and_version);
	tcase_add_test(tc, test_unknown_records);
	tcase_add_test(tc, test_unwind_stats_record);
	tcase_add_test(tc, test_writer_errors);
	tcase_add_test(tc, test_v2_records);
	tcase_add_test(tc, test_samples_b_escape);
	tcase_add_test(tc, test_v1_file);
	tcase_add_test(tc, test_persistent_tables);
	suite_add_tcase(s, tc);
	TCase *te = tcase_create("export");
	tcase_add_checked_fixture(te, setup, teardown);
	tcase_add_test(te, test_folded_text);
	tcase_add_test(te, test_export_formats);
	tcase_add_test(te, test_speedscope);
	tcase_add_test(te, test_speedscope_unit);
	tcase_add_test(te, test_callgrind);
	tcase_add_test(te, test_flamegraph);
	tcase_add_test(te, test_diff_flamegraph);
	suite_add_tcase(s, te);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
