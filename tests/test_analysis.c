/*
 * test_analysis: Check suite for src/profile/analysis.c -- the offline
 * attribution rules on traces written here with known stacks, so every
 * figure is exact (no sampling noise): self and inclusive shares, units
 * per op from per-run op markers, truncated and harness samples, groups
 * counted once per sample, calls per op and units per call, identical
 * address spaces sharing a symbolizer, lost counts, a missing module
 * falling back to [lib+offset], the folded export, and the text report.
 * The "instance library" is this test executable: its functions below
 * are the frames, resolved through its own DWARF.
 */
#include "config.h"
#include "profile/analysis.h"
#include "profile/profile_export.h"
#include "profile/profile_text.h"
#include "trace/export.h"
#include "trace/trace_writer.h"

#include <check.h>
#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEEP __attribute__((noinline, used))

volatile unsigned long ta_sink;

KEEP void ta_inner(void)
{
	for (int i = 0; i < 16; i++)
		ta_sink += (unsigned long)i;
}

KEEP void ta_outer(void)
{
	ta_sink++;
	ta_inner();
	ta_sink++;
}

#if defined(__x86_64__) || defined(__aarch64__)
/*
 * ta_inl is inlined into ta_host; the asm marks an instruction of the
 * inlined copy and stores its address in ta_inl_site, so the test knows
 * an address inside inlined code without reading DWARF itself.
 */
extern const uintptr_t ta_inl_site;
static inline __attribute__((always_inline)) void ta_inl(void)
{
#if defined(__x86_64__)
	__asm__ volatile("1: nop\n\t.pushsection .data.rel.ro.ta_site,\"aw\"\n\t"
	                 ".globl ta_inl_site\n\t.p2align 3\nta_inl_site: .quad 1b\n\t.popsection");
#else
	__asm__ volatile("1: nop\n\t.pushsection .data.rel.ro.ta_site,\"aw\"\n\t"
	                 ".globl ta_inl_site\n\t.p2align 3\nta_inl_site: .xword 1b\n\t.popsection");
#endif
	ta_sink += 3;
}

KEEP void ta_host(void)
{
	ta_sink++;
	ta_inl();
	ta_sink++;
}
#define HAVE_INLINE_SITE 1
#endif

static char tmpdir[256];
static char exe[PATH_MAX];

static void setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_analysis.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	ck_assert_ptr_nonnull(realpath("/proc/self/exe", exe));
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
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
	return buf[k];
}

/* Every executable file mapping of this process, as the sampler reports them. */
static void write_maps(trace_writer *w)
{
	FILE *f = fopen("/proc/self/maps", "r");
	ck_assert_ptr_nonnull(f);
	char line[4400];
	while (fgets(line, sizeof line, f)) {
		unsigned long long lo, hi, off;
		char perms[8], path[4096] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &lo, &hi, perms, &off, path) < 4)
			continue;
		if (perms[2] != 'x' || path[0] != '/')
			continue;
		ck_assert_int_eq(trace_write_mmap(w, lo, hi - lo, off, NULL, 0, path), 0);
	}
	fclose(f);
}

static uint64_t addr_of(void (*fn)(void), unsigned off)
{
	return (uint64_t)(uintptr_t)fn + off;
}

static uint64_t libc_addr(void)
{
	void *p = dlsym(RTLD_DEFAULT, "getpid");
	ck_assert_ptr_nonnull(p);
	return (uint64_t)(uintptr_t)p + 4;
}

static json_t *header(const char *runner)
{
	return json_pack("{s:s, s:{s:s, s:s}, s:s, s:s, s:s, s:I, s:s, s:s, s:[{s:s, s:[s]}],"
	                 " s:{s:{s:b, s:I, s:[{s:s, s:f, s:I, s:I}]}}}",
	                 "lib", exe, "instance", "name", "Analysis-Test", "cflags", "-O2 -g",
	                 "event", "cpu-clock", "unit", "ns", "callgraph", "dwarf", "freq",
	                 (json_int_t)1999, "op_markers", "per-run", "runner", runner, "groups",
	                 "name", "inner", "globs", "ta_inn*", "calls", "sign", "available", 1, "ops",
	                 (json_int_t)2, "functions", "name", "ta_inner", "calls_per_op", 3.0, "min",
	                 (json_int_t)3, "max", (json_int_t)3);
}

/*
 * Two children of "sign" with identical mappings, 10 calls in all:
 *   60 x [ta_inner, ret ta_outer]          (ends in the instance: truncated)
 *   30 x [ta_outer, ret libc]              (complete)
 *   10 x [libc]                            (no instance frame: harness, as
 *                                           libc plays the runner here)
 * every sample weighs 1000; 5 samples lost in the second child.
 */
static void write_trace(const char *path, const char *extra_map)
{
	char libc_path[PATH_MAX] = "";
	Dl_info di;
	ck_assert(dladdr((void *)(uintptr_t)libc_addr(), &di));
	ck_assert_ptr_nonnull(realpath(di.dli_fname, libc_path));
	json_t *h = header(libc_path);
	ck_assert_ptr_nonnull(h);
	pq_error err;
	trace_writer *w = trace_writer_open(path, h, &err);
	json_decref(h);
	ck_assert_msg(w != NULL, "%s", err.msg);
	uint64_t a[2];
	for (int child = 0; child < 2; child++) {
		ck_assert_int_eq(trace_write_op_begin(w, 1, "sign", child ? 4 : 0, 100), 0);
		write_maps(w);
		if (extra_map)
			ck_assert_int_eq(trace_write_mmap(w, 0x10000000, 0x2000, 0x1000, NULL, 0, extra_map), 0);
		for (int i = 0; i < (child ? 20 : 40); i++) {
			a[0] = addr_of(ta_inner, 4);
			a[1] = addr_of(ta_outer, 9);
			ck_assert_int_eq(trace_write_sample(w, 1, 1000, 200 + i, a, 2), 0);
		}
		for (int i = 0; i < 15; i++) {
			a[0] = addr_of(ta_outer, 2);
			a[1] = libc_addr();
			ck_assert_int_eq(trace_write_sample(w, 1, 1000, 300 + i, a, 2), 0);
		}
		for (int i = 0; i < 5; i++) {
			a[0] = libc_addr();
			ck_assert_int_eq(trace_write_sample(w, 1, 1000, 400 + i, a, 1), 0);
		}
		if (extra_map) {
			a[0] = 0x10000100;
			ck_assert_int_eq(trace_write_sample(w, 1, 1000, 500, a, 1), 0);
		}
		if (child)
			ck_assert_int_eq(trace_write_lost(w, 5), 0);
		ck_assert_int_eq(trace_write_op_end(w, 1, "sign", child ? 10 : 4, 900), 0);
	}
	ck_assert_int_eq(trace_writer_close(w, 1, NULL, &err), 0);
}

static json_t *fn(json_t *rec, const char *name)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(rec, "functions"), i, f)
		if (strcmp(json_string_value(json_object_get(f, "name")), name) == 0)
			return f;
	return NULL;
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	ck_assert_msg(json_is_number(v), "%s is not a number", k);
	return json_number_value(v);
}

START_TEST(test_record_figures)
{
	char t[512];
	snprintf(t, sizeof t, "%s", tpath("a.pqt"));
	write_trace(t, NULL);
	struct analysis *a;
	pq_error err;
	ck_assert_msg(analysis_open(&a, t, NULL, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(analysis_op_count(a), 1);
	ck_assert_str_eq(analysis_op_name(a, 0), "sign");
	struct analysis_stats st;
	analysis_get_stats(a, &st);
	ck_assert_uint_eq(st.samples, 100);
	ck_assert_uint_eq(st.spaces, 2);
	ck_assert_uint_eq(st.symbolizers, 1);   /* identical layouts share one */
	ck_assert_uint_eq(st.stacks, 3);         /* merged across the two children */

	json_t *r;
	ck_assert_msg(analysis_record(a, "sign", &r, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(json_string_value(json_object_get(r, "schema")), "pqprof.profile/1");
	ck_assert_int_eq(num(r, "samples"), 90);
	ck_assert_int_eq(num(r, "harness_samples"), 10);
	ck_assert_int_eq(num(r, "truncated"), 60);
	ck_assert_int_eq(num(r, "lost"), 5);
	ck_assert_int_eq(num(r, "ops"), 10);
	ck_assert_double_eq_tol(num(r, "units_per_op"), 9000, 1e-6);

	json_t *in = fn(r, "ta_inner"), *out = fn(r, "ta_outer");
	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(num(in, "self"), 60);
	ck_assert_int_eq(num(in, "incl"), 60);
	ck_assert_int_eq(num(out, "self"), 30);
	ck_assert_int_eq(num(out, "incl"), 90);
	ck_assert_double_eq_tol(num(in, "self_share"), 60.0 / 90, 1e-9);
	ck_assert(num(in, "self_lo") < 60.0 / 90 && num(in, "self_hi") > 60.0 / 90);
	ck_assert_double_eq_tol(num(in, "self_units_per_op"), 6000, 1e-6);
	ck_assert_double_eq_tol(num(out, "incl_units_per_op"), 9000, 1e-6);
	ck_assert_str_eq(json_string_value(json_object_get(in, "module")), strrchr(exe, '/') + 1);

	/* The group counts a sample once; calls and units per call from the header. */
	json_t *g = json_array_get(json_object_get(r, "groups"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(g, "name")), "inner");
	ck_assert_int_eq(num(g, "samples"), 60);
	ck_assert_double_eq_tol(num(g, "calls_per_op"), 3, 1e-9);
	ck_assert_double_eq_tol(num(g, "units_per_call"), 2000, 1e-6);
	json_t *c = json_array_get(json_object_get(json_object_get(r, "calls"), "functions"), 0);
	ck_assert_double_eq_tol(num(c, "units_per_call"), 2000, 1e-6);

	/* Call tree: ta_outer at the root, ta_inner below it. */
	json_t *tree = json_object_get(r, "tree");
	ck_assert_uint_eq(json_array_size(tree), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(tree, 0), "name")), "ta_outer");
	ck_assert_int_eq(num(json_array_get(tree, 1), "depth"), 1);

	/* Source lines point into this file. */
	json_t *l = json_array_get(json_object_get(r, "lines"), 0);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(l, "file")), "test_analysis.c"));
	ck_assert_uint_eq(json_array_size(json_object_get(r, "modules_unverified")), 0);

	/* The text report labels ns honestly and shows the tables. */
	char *text = NULL;
	size_t tlen = 0;
	FILE *mf = open_memstream(&text, &tlen);
	profile_text_print(mf, r, NULL);
	fclose(mf);
	ck_assert_ptr_nonnull(strstr(text, "ns of CPU time, not cycles"));
	ck_assert_ptr_nonnull(strstr(text, "Top functions by inclusive share"));
	ck_assert_ptr_nonnull(strstr(text, "incomplete stacks: 60 of "));
	free(text);
	json_decref(r);

	ck_assert_int_lt(analysis_record(a, "verify", &r, &err), 0);
	analysis_close(a);
}
END_TEST

START_TEST(test_folded_and_exports)
{
	char t[512];
	snprintf(t, sizeof t, "%s", tpath("f.pqt"));
	write_trace(t, NULL);
	pq_error err;
	ck_assert_msg(profile_export(t, "sign", "folded", tpath("f.folded"), NULL, NULL, &err) == 0, "%s", err.msg);
	FILE *f = fopen(tpath("f.folded"), "r");
	ck_assert_ptr_nonnull(f);
	char line[512];
	int saw = 0;
	while (fgets(line, sizeof line, f))
		saw |= strcmp(line, "ta_outer;ta_inner 60000\n") == 0;
	fclose(f);
	ck_assert_msg(saw, "no 'ta_outer;ta_inner 60000' line");
	/* callgrind: ta_inner was counted (3 a call, 10 calls sampled) and has
	 * one caller, so its edge carries 30 calls and 60000 inclusive. */
	ck_assert_msg(profile_export(t, "sign", "callgrind", tpath("f.cg"), NULL, NULL, &err) == 0, "%s", err.msg);
	f = fopen(tpath("f.cg"), "r");
	ck_assert_ptr_nonnull(f);
	int calls_line = 0, other_calls = 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "calls=30 ", 9) == 0)
			calls_line = 1;
		else if (strncmp(line, "calls=", 6) == 0)
			other_calls = 1;
	}
	fclose(f);
	ck_assert_msg(calls_line, "no calls=30 line for ta_outer -> ta_inner");
	ck_assert_msg(!other_calls, "calls= on an edge without an exact count");
	ck_assert_int_eq(profile_flamegraph(t, NULL, tpath("f.svg"), &err), 0);
	ck_assert_msg(profile_flamegraph_diff(t, t, "sign", tpath("d.svg"), &err) == 0, "%s", err.msg);
	ck_assert_int_lt(profile_export(t, "sign", "pdf", tpath("x"), NULL, NULL, &err), 0);
	char svg[512], fold[512];
	snprintf(svg, sizeof svg, "%s", tpath("g.svg"));
	snprintf(fold, sizeof fold, "%s", tpath("g.folded"));
	struct analysis_opts ao = { .flamegraph = svg, .folded = fold };
	json_t *r;
	ck_assert_msg(profile_analyze_files(t, "sign", &ao, &r, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(json_string_value(json_object_get(r, "folded")), fold);
	ck_assert_str_eq(json_string_value(json_object_get(r, "flamegraph")), svg);
	json_decref(r);
	ck_assert_int_eq(access(svg, R_OK), 0);
	ck_assert_int_eq(access(fold, R_OK), 0);
	ck_assert_int_lt(profile_export(t, "keygen", "folded", tpath("x"), NULL, NULL, &err), 0);
}
END_TEST

#ifdef HAVE_INLINE_SITE
/* An inlined frame is marked: in the record, the text report and the exports. */
START_TEST(test_inlined_marked)
{
	char t[512];
	snprintf(t, sizeof t, "%s", tpath("in.pqt"));
	json_t *h = header("/nonexistent/runner");
	pq_error err;
	trace_writer *w = trace_writer_open(t, h, &err);
	json_decref(h);
	ck_assert_msg(w != NULL, "%s", err.msg);
	ck_assert_int_eq(trace_write_op_begin(w, 1, "sign", 0, 100), 0);
	write_maps(w);
	uint64_t a[2] = { (uint64_t)ta_inl_site, addr_of(ta_outer, 9) };
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(trace_write_sample(w, 1, 1000, 200 + i, a, 2), 0);
	ck_assert_int_eq(trace_write_op_end(w, 1, "sign", 2, 900), 0);
	ck_assert_int_eq(trace_writer_close(w, 1, NULL, &err), 0);

	json_t *r;
	ck_assert_msg(profile_analyze(t, "sign", NULL, &r, &err) == 0, "%s", err.msg);
	json_t *f = fn(r, "ta_inl");
	ck_assert_msg(f != NULL, "ta_inl not among the functions");
	ck_assert(json_is_true(json_object_get(f, "inlined")));
	ck_assert(json_is_false(json_object_get(fn(r, "ta_host"), "inlined")));
	size_t i;
	json_t *n;
	int tree_inl = 0;
	json_array_foreach(json_object_get(r, "tree"), i, n)
		if (strcmp(json_string_value(json_object_get(n, "name")), "ta_inl") == 0)
			tree_inl = json_is_true(json_object_get(n, "inlined"));
	ck_assert(tree_inl);
	char *text = NULL;
	size_t tlen = 0;
	FILE *mf = open_memstream(&text, &tlen);
	profile_text_print(mf, r, NULL);
	fclose(mf);
	ck_assert_msg(strstr(text, "ta_inl [inlined]") != NULL, "%s", text);
	ck_assert(strstr(text, "ta_host [inlined]") == NULL);
	free(text);
	json_decref(r);

	ck_assert_msg(profile_export(t, "sign", "folded", tpath("in.folded"), NULL, NULL, &err) == 0, "%s", err.msg);
	FILE *fp = fopen(tpath("in.folded"), "r");
	ck_assert_ptr_nonnull(fp);
	char line[512];
	int saw = 0;
	while (fgets(line, sizeof line, fp))
		saw |= strstr(line, "ta_host;ta_inl_[i] 10000") != NULL;
	fclose(fp);
	ck_assert_msg(saw, "no 'ta_host;ta_inl_[i]' stack in the folded export");
}
END_TEST
#endif

START_TEST(test_missing_module)
{
	char t[512];
	snprintf(t, sizeof t, "%s", tpath("m.pqt"));
	write_trace(t, "/nonexistent/libgone.so");
	json_t *r;
	pq_error err;
	ck_assert_msg(profile_analyze(t, "sign", NULL, &r, &err) == 0, "%s", err.msg);
	json_t *miss = json_object_get(r, "modules_unverified");
	ck_assert_uint_eq(json_array_size(miss), 1);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(miss, 0)), "/nonexistent/libgone.so"));
	int found = 0;
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(r, "functions"), i, f)
		found |= strncmp(json_string_value(json_object_get(f, "name")), "[libgone.so+0x", 14) == 0;
	ck_assert_msg(found, "no [libgone.so+0x...] function");
	json_decref(r);
}
END_TEST

START_TEST(test_not_a_trace)
{
	char t[512];
	snprintf(t, sizeof t, "%s", tpath("junk.pqt"));
	FILE *f = fopen(t, "w");
	fputs("not a trace", f);
	fclose(f);
	struct analysis *a;
	pq_error err;
	ck_assert_int_lt(analysis_open(&a, t, NULL, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "junk.pqt"));
}
END_TEST

static Suite *analysis_suite(void)
{
	Suite *s = suite_create("analysis");
	TCase *tc = tcase_create("analysis");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_record_figures);
	tcase_add_test(tc, test_folded_and_exports);
	tcase_add_test(tc, test_missing_module);
#ifdef HAVE_INLINE_SITE
	tcase_add_test(tc, test_inlined_marked);
#endif
	tcase_add_test(tc, test_not_a_trace);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(analysis_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
