/*
 * test_report: Check suite for src/report.  Builds synthetic campaign and
 * records directories under /tmp from hand-written JSON (two measured
 * instances, one with a KAT MISMATCH and a crashed bench step, one whose
 * build failed, one with a hostile name), writes the reports and checks
 * their structure: section order, table headers, footnotes, unit labels,
 * evidence hashes, HTML tag balance and escaping, CSV shape.  Then
 * `compare` on synthetic timing records: 2x slower, identical, and units
 * that differ.  No timing assertions anywhere.
 */
#include "config.h"
#include "report/charts.h"
#include "report/summary_charts.h"
#include "report/compare.h"
#include "report/escape.h"
#include "report/record_set.h"
#include "report/report.h"
#include "core/atomic_file.h"
#include "core/digest.h"
#include "core/jpath.h"
#include "measure/stats.h"

#include <check.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------- fixtures ---------------- */

static void put(const char *dir, const char *rel, const char *text)
{
	char path[4096], sub[4096];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	snprintf(sub, sizeof sub, "%s", path);
	*strrchr(sub, '/') = '\0';
	pq_error err = { 0 };
	ck_assert_msg(make_dirs(sub, &err) == 0, "%s", err.msg);
	ck_assert_msg(atomic_write(path, text, strlen(text), &err) == 0, "%s", err.msg);
}

static void put_json(const char *dir, const char *rel, json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(1));
	put(dir, rel, s);
	free(s);
	json_decref(j);
}

static char *slurp(const char *dir, const char *rel)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	char *text = NULL;
	pq_error err = { 0 };
	ck_assert_msg(read_whole_file(path, &text, NULL, 0, &err) == 0, "%s", err.msg);
	return text;
}

static void make_tmpdir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/pqprof-test-report.XXXXXX");
	ck_assert(mkdtemp(buf) != NULL);
}

static void rm_rf(const char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static json_t *descriptor(const char *name, const char *profile)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:i, s:i, s:i}}", "name", name, "api", "ngcc", "kind",
	                 "signature", "profile", profile, "cflags", "-O2 -g -fPIC", "sizes", "pk", 32, "sk", 64,
	                 "sig", 96);
}

static json_t *environment(void)
{
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}",
	                 "processor", "Test CPU", "cpu", 2, "max_clock", "2.10 GHz", "governor", "performance",
	                 "turbo", "off", "smt", "off", "memory", "31788 MiB", "os", "Debian GNU/Linux 12",
	                 "kernel", "6.1.0", "compiler", "gcc 12.2.0", "cmake", "cmake version 3.25.1",
	                 "hardware_pmu", "yes", "hardware_pmu_detail", "cycles opened", "machine", "x86_64",
	                 "pqprof_version", "0.1.0");
}

/* A deterministic xorshift so per-call values look like measurements. */
static double jitter(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (double)(*s % 1000) / 1000.0 - 0.5;
}

/* A complete timing record: trials x iters per-call values around base. */
static json_t *bench_record(const char *name, const char *profile, const char *op, const char *unit,
                            int cycles, double base, int trials, int iters, uint64_t seed)
{
	json_t *tr = json_array();
	double sum = 0;
	uint64_t s = seed | 1;
	for (int t = 0; t < trials; t++) {
		json_t *vals = json_array(), *ns = json_array();
		double ts = 0;
		for (int i = 0; i < iters; i++) {
			double v = round(base * (1.0 + 0.05 * jitter(&s)));
			json_array_append_new(vals, json_integer((json_int_t)v));
			json_array_append_new(ns, json_integer((json_int_t)(v / 2)));
			ts += v;
		}
		sum += ts;
		json_array_append_new(tr, json_pack("{s:i, s:f, s:o, s:o}", "iters", iters, "mean_units", ts / iters,
		                                    "values", vals, "ns", ns));
	}
	double n = (double)trials * iters, mean = sum / n;
	return json_pack("{s:s, s:s, s:I, s:o, s:{s:s, s:s, s:s, s:b}, s:o, s:{s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:i}, "
	                 "s:s, s:o}",
	                 "schema", "pqprof.bench/1", "op", op, "message_bytes", (json_int_t)64, "instance",
	                 descriptor(name, profile), "backend", "name", cycles ? "perf-rdpmc" : "tsc", "description",
	                 cycles ? "perf rdpmc cycles" : "tsc (TSC ticks)", "unit", unit, "counts_cycles", cycles,
	                 "trials", tr, "summary", "mean_units", mean, "mean_ns", mean / 2, "ops_per_s", 2e9 / mean,
	                 "median_trial_units", mean, "median_trial_ns", mean / 2, "n", n, "trials", trials, "iters",
	                 iters, "status", "complete", "environment", environment());
}

static json_t *failed_bench(const char *name, const char *profile, const char *op)
{
	return json_pack("{s:s, s:s, s:o, s:{s:s, s:b}, s:s, s:{s:s, s:s, s:s}}", "schema", "pqprof.bench/1", "op", op,
	                 "instance", descriptor(name, profile), "backend", "unit", "cycles", "counts_cycles", 1,
	                 "status", "failed", "failure", "stage", "trial", "kind", "CRASH", "reason",
	                 "killed by SIGSEGV in sign");
}

static json_t *kat_record(const char *name, const char *verdict, const char *reason, const char *note)
{
	json_t *notes = json_array();
	if (note)
		json_array_append_new(notes, json_string(note));
	return json_pack("{s:s, s:o, s:{s:s, s:s, s:i, s:s, s:i, s:o}, s:s}", "schema", "pqprof.kat/1", "instance",
	                 descriptor(name, "harness-default"), "outcome", "verdict", verdict, "reason", reason,
	                 "record", note ? 3 : -1, "field", note ? "sm" : "", "records_done", 100, "notes", notes,
	                 "log_sha256", "0");
}

static json_t *memory_record(const char *name, const char *op)
{
	return json_pack("{s:s, s:s, s:o, s:{s:i, s:i, s:{s:i}, s:{s:b, s:i, s:i}}, s:i, s:s}", "schema",
	                 "pqprof.memory/1", "op", op, "instance", descriptor(name, "harness-default"), "memory",
	                 "baseline_rss", 2048 * 1024, "peak_rss", 5740 * 1024, "stack", "used", 3432, "heap",
	                 "available", 1, "peak_live_bytes", 104, "allocs", 1, "static_image_bytes", 43449, "status",
	                 "complete");
}

static json_t *profile_record(const char *name, const char *op, int calls_available)
{
	json_t *calls = calls_available
		? json_pack("{s:b, s:[{s:s, s:f, s:f}, {s:s, s:f, s:f}]}", "available", 1, "functions", "name", "pseudohash",
		            "calls_per_op", 102.0, "units_per_call", 50.0, "name", "pseudoXOF", "calls_per_op", 36900.0,
		            "units_per_call", 3.0)
		: json_pack("{s:b, s:s}", "available", 0, "reason", "uprobes not permitted");
	return json_pack("{s:s, s:o, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:f, "
	                 "s:[{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f}, {s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f}], "
	                 "s:[{s:s, s:s, s:i, s:i, s:f}], "
	                 "s:[{s:s, s:i, s:f, s:f, s:f}, {s:s, s:i, s:f, s:f, s:f}], s:o}",
	                 "schema", "pqprof.profile/1", "instance", descriptor(name, "harness-default"), "op", op,
	                 "event", "cycles", "unit", "cycles", "callgraph", "fp", "samples", 5000, "lost", 0, "truncated", 2,
	                 "ops", 100, "units_per_op", 1.88e9,
	                 "functions",
	                 "name", "poly_mul", "module", "lib.so", "self_share", 0.61, "self_lo", 0.6, "self_hi", 0.62,
	                 "incl_share", 0.7, "incl_lo", 0.69, "incl_hi", 0.71, "units_per_op", 1.1e9,
	                 "name", "pseudoXOF", "module", "lib.so", "self_share", 0.041, "self_lo", 0.038, "self_hi", 0.044,
	                 "incl_share", 0.041, "incl_lo", 0.038, "incl_hi", 0.044, "units_per_op", 7.7e7,
	                 "lines", "function", "poly_mul", "file", "poly.c", "line", 42, "samples", 900, "share", 0.18,
	                 "groups", "name", "hash", "samples", 205, "share", 0.041, "lo", 0.038, "hi", 0.044,
	                 "name", "drng", "samples", 0, "share", 0.0, "lo", 0.0, "hi", 0.001,
	                 "calls", calls);
}

static const char flame_svg[] =
	"<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\">"
	"<script><![CDATA[var a = \"x\" < 1 && 2 > 1;]]></script><rect width=\"5\" height=\"5\"/></svg>\n";

#define HOSTILE "Evil<b>|x`&\"name"

/* The synthetic campaign: Alpha passes, Beta mismatches and crashes in sign, Gamma fails to build. */
static void write_campaign(const char *dir)
{
	const char *H = "harness-default";
	json_t *insts = json_pack("[{s:s, s:s, s:s, s:{s:s, s:s, s:s}}, {s:s, s:s, s:s, s:{s:s, s:s, s:s}}, "
	                          "{s:s, s:s, s:s, s:{s:s, s:s}}, {s:s, s:s, s:s, s:{s:s}}]",
	                          "instance", "Alpha-1", "profile", H, "label", "Alpha-1__harness-default", "steps",
	                          "build", "done", "kat", "done", "bench", "done",
	                          "instance", "Beta-2", "profile", H, "label", "Beta-2__harness-default", "steps",
	                          "build", "done", "kat", "done", "bench", "failed",
	                          "instance", "Gamma-3", "profile", H, "label", "Gamma-3__harness-default", "steps",
	                          "build", "failed", "kat", "pending",
	                          "instance", HOSTILE, "profile", H, "label", "Evil__harness-default", "steps",
	                          "build", "done");
	put_json(dir, "campaign.json",
	         json_pack("{s:s, s:{s:s, s:s, s:s}, s:s, s:o, s:s, s:s, s:s, s:o}", "schema", "pqprof.campaign/1",
	                   "scheme", "name", "sign-99", "title", "Toy Signature", "category", "digital signature",
	                   "system", "lab_1", "environment", environment(), "start_utc", "2026-09-25T10:02:21Z",
	                   "end_utc", "2026-09-28T10:51:21Z", "status", "incomplete", "instances", insts));
	const char *ops[] = { "keygen", "sign", "verify" };
	char rel[256];
	for (int i = 0; i < 3; i++) {
		snprintf(rel, sizeof rel, "records/Alpha-1__harness-default__%s.json", ops[i]);
		put_json(dir, rel, bench_record("Alpha-1", H, ops[i], "cycles", 1, 1e6 * (i + 1), 5, 20, 7 + i));
		snprintf(rel, sizeof rel, "memory/Alpha-1__harness-default__%s.json", ops[i]);
		put_json(dir, rel, memory_record("Alpha-1", ops[i]));
	}
	put_json(dir, "records/Beta-2__harness-default__keygen.json",
	         bench_record("Beta-2", H, "keygen", "cycles", 1, 5e7, 5, 20, 99));
	put_json(dir, "records/Beta-2__harness-default__sign.json", failed_bench("Beta-2", H, "sign"));
	put_json(dir, "build/Alpha-1__harness-default.json",
	         json_pack("{s:s, s:o, s:s, s:s}", "schema", "pqprof.build/1", "instance", descriptor("Alpha-1", H),
	                   "library", "lib/Alpha-1__harness-default.so", "status", "done"));
	put_json(dir, "build/Gamma-3__harness-default.json",
	         json_pack("{s:s, s:o, s:s, s:s}", "schema", "pqprof.build/1", "instance", descriptor("Gamma-3", H),
	                   "status", "failed", "failure", "toy.c:3: error: expected semicolon"));
	put_json(dir, "kat/Alpha-1__harness-default.json", kat_record("Alpha-1", "PASS", "", NULL));
	put(dir, "kat/Alpha-1__harness-default.log", "RESULT Alpha-1 PASS\n");
	put_json(dir, "kat/Beta-2__harness-default.json",
	         kat_record("Beta-2", "MISMATCH", "record 3 differs in the signature",
	                    "sig_keygen seeds a private DRNG instead of drng_algorithm"));
	put(dir, "kat/Beta-2__harness-default.log", "RESULT Beta-2 MISMATCH\n");
	put_json(dir, "sizes/Alpha-1__harness-default.json",
	         json_pack("{s:s, s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}, s:{s:i}, s:s}",
	                   "schema", "pqprof.sizes/1", "pk", "declared", 32, "min", 32, "max", 32, "sk", "declared", 64,
	                   "min", 64, "max", 64, "sig", "declared", 96, "min", 90, "max", 96, "elf", "image_memsz", 43449,
	                   "status", "complete"));  /* no "audit": the report derives it */
	/* Alpha: a record without "present" flags (older pqprof), hashing through the
	 * placeholders, its own Keccak present but idle; Beta: no placeholder function
	 * at all, its own Keccak carries the hashing. */
	json_t *pa = profile_record("Alpha-1", "sign", 1);
	json_object_set_new(pa, "families",
	                    json_pack("[{s:s, s:s, s:b, s:s, s:i, s:f, s:f, s:f}, {s:s, s:s, s:b, s:i, s:f, s:f, s:f}]",
	                              "name", "keccak", "label", "Keccak/SHAKE", "present", 1, "example", "fips202.c",
	                              "samples", 0, "share", 0.0, "lo", 0.0, "hi", 0.001, "name", "sha2", "label",
	                              "SHA-2", "present", 0, "samples", 0, "share", 0.0, "lo", 0.0, "hi", 0.001));
	put_json(dir, "profile/Alpha-1__harness-default__sign.json", pa);
	json_t *pb = profile_record("Beta-2", "keygen", 0);
	json_t *hash = json_array_get(json_object_get(pb, "groups"), 0);
	json_object_set_new(hash, "present", json_false());
	json_object_set_new(hash, "samples", json_integer(0));
	json_object_set_new(pb, "families",
	                    json_pack("[{s:s, s:s, s:b, s:s, s:i, s:f, s:f, s:f}, {s:s, s:s, s:b, s:i, s:f, s:f, s:f}]",
	                              "name", "keccak", "label", "Keccak/SHAKE", "present", 1, "example", "fips202.c",
	                              "samples", 4900, "share", 0.98, "lo", 0.97, "hi", 0.99, "name", "sha2", "label",
	                              "SHA-2", "present", 0, "samples", 0, "share", 0.0, "lo", 0.0, "hi", 0.001));
	put_json(dir, "profile/Beta-2__harness-default__keygen.json", pb);
	put(dir, "flame/Alpha-1__harness-default__sign.svg", flame_svg);
	put(dir, "traces/Alpha-1__harness-default__sign.pqt", "not really a trace");
}

/* ---------------- small checkers ---------------- */

/* Each needle occurs in text, in this order. */
static void assert_in_order(const char *text, const char *const *needles, int n)
{
	const char *at = text;
	for (int i = 0; i < n; i++) {
		const char *p = strstr(at, needles[i]);
		ck_assert_msg(p != NULL, "'%s' missing (or out of order)", needles[i]);
		at = p + strlen(needles[i]);
	}
}

/*
 * Tag balance of the HTML: every element opened is closed in order,
 * void elements and self-closing tags excepted; comments, doctype and
 * processing instructions skipped.  Attribute values hold no raw '<'.
 */
static int html_balanced(const char *s, char *why, size_t len)
{
	static const char *const voids[] = { "meta", "br", "hr", "img", "link", "input", NULL };
	char stack[512][32];
	int depth = 0;
	for (const char *p = s; (p = strchr(p, '<')) != NULL;) {
		if (p[1] == '!' || p[1] == '?') {
			p = strchr(p, '>');
			if (!p)
				break;
			continue;
		}
		int closing = p[1] == '/';
		const char *nm = p + 1 + closing;
		char name[32];
		size_t k = 0;
		while (isalnum((unsigned char)nm[k]) && k + 1 < sizeof name) {
			name[k] = (char)tolower((unsigned char)nm[k]);
			k++;
		}
		name[k] = '\0';
		const char *end = p;
		int inq = 0;
		for (end = p + 1; *end && (inq || *end != '>'); end++)
			if (*end == '"')
				inq = !inq;
		if (!*end) {
			snprintf(why, len, "unterminated tag <%s", name);
			return 0;
		}
		int selfclose = end[-1] == '/';
		int isvoid = 0;
		for (int i = 0; voids[i]; i++)
			isvoid |= strcmp(voids[i], name) == 0;
		if (closing) {
			if (depth == 0 || strcmp(stack[depth - 1], name) != 0) {
				snprintf(why, len, "</%s> closes <%s>", name, depth ? stack[depth - 1] : "(nothing)");
				return 0;
			}
			depth--;
		} else if (!selfclose && !isvoid) {
			if (depth == 512)
				return 0;
			snprintf(stack[depth++], 32, "%s", name);
		}
		p = end + 1;
	}
	if (depth) {
		snprintf(why, len, "<%s> never closed", stack[depth - 1]);
		return 0;
	}
	return 1;
}

/* Parse CSV text into rows of field counts; returns rows, fills fields[]. */
static int csv_rows(const char *s, int *fields, int max, int *bad_quotes)
{
	int rows = 0, nf = 1, inq = 0;
	*bad_quotes = 0;
	for (const char *p = s; *p; p++) {
		if (inq) {
			if (*p == '"' && p[1] == '"')
				p++;
			else if (*p == '"')
				inq = 0;
		} else if (*p == '"') {
			if (p != s && p[-1] != ',' && p[-1] != '\n')
				(*bad_quotes)++;
			inq = 1;
		} else if (*p == ',') {
			nf++;
		} else if (*p == '\n') {
			if (rows < max)
				fields[rows] = nf;
			rows++;
			nf = 1;
		}
	}
	return rows;
}

static size_t count_substr(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* The "## N. " headings of md are numbered 1, 2, ... in order; returns how many. */
static int assert_sections_consecutive(const char *md)
{
	int want = 1;
	for (const char *p = md; (p = strstr(p, "\n## ")) != NULL; p += 4) {
		if (!isdigit((unsigned char)p[4]))
			continue;
		int got = atoi(p + 4);
		ck_assert_msg(got == want, "section %d where %d was due", got, want);
		want++;
	}
	return want - 1;
}

/* ---------------- report tests ---------------- */

/* Annotated functions in a profile record: the three hottest loops of the
 * operation in both reports; the folded views (source lines, disassembly)
 * in the page only, escaped. */
START_TEST(test_annotated_views)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	write_campaign(dir);
	json_t *pa = profile_record("Alpha-1", "sign", 1);
	json_t *loops = json_array();
	for (int i = 0; i < 4; i++)
		json_array_append_new(loops, json_pack("{s:s, s:s, s:i, s:i, s:s, s:f}", "start", "0x1190", "end", "0x11a2",
		                                       "insns", 5, "depth", 1, "source", i == 3 ? "poly.c:99" : "poly.c:40-44",
		                                       "share", 0.5 - 0.1 * i));
	json_t *ann = json_pack("{s:s, s:s, s:b, s:f, s:f, s:o, s:i, "
	                        "s:[{s:s, s:i, s:n, s:s, s:i, s:f}], s:[{s:s, s:I, s:s, s:i, s:f, s:s, s:i, s:n}]}",
	                        "function", "poly_mul", "skid", "cpu-clock skids", "source_lines", 1, "share", 0.61,
	                        "self_share", 0.6, "loops", loops, "instructions_total", 1,
	                        "lines", "file", "poly.c", "line", 42, "inlined_from", "text", "x = a<b && c;", "samples", 900,
	                        "share", 0.18,
	                        "instructions", "addr", "0x1190", "offset", (json_int_t)0, "asm", "imul rax, rcx",
	                        "samples", 900, "share", 0.18, "file", "poly.c", "line", 42, "inlined_from");
	json_object_set_new(pa, "annotate", json_pack("[o, {s:s, s:s}]", ann, "function", "gone", "error", "library <missing>"));
	put_json(dir, "profile/Alpha-1__harness-default__sign.json", pa);
	pq_error err = { 0 };
	ck_assert_msg(report_write_all(dir, &err) == 0, "%s", err.msg);
	char *md = slurp(dir, "report.md"), *html = slurp(dir, "report.html");
	ck_assert(strstr(md, "| `poly_mul` | 0x1190–0x11a2, 5 instructions | `poly.c:40-44` | 50% |") != NULL);
	ck_assert(strstr(md, "| `poly_mul` | 0x1190–0x11a2, 5 instructions | `poly.c:40-44` | 30% |") != NULL);
	ck_assert(strstr(md, "poly.c:99") == NULL);           /* three loops only */
	ck_assert(strstr(md, "imul rax") == NULL);            /* folds are for the page */
	ck_assert(strstr(md, "Annotated view of gone: not available (library ") != NULL);
	char why[256] = "";
	ck_assert_msg(html_balanced(html, why, sizeof why), "unbalanced HTML: %s", why);
	ck_assert(strstr(html, "<details class=\"fold\"><summary>Annotated: poly_mul — 61% of sign in its code (self 60%)</summary>") != NULL);
	ck_assert(strstr(html, "<summary>Disassembly of poly_mul (1 instructions)</summary>") != NULL);
	ck_assert(strstr(html, "imul rax, rcx") != NULL);
	ck_assert(strstr(html, "x = a&lt;b &amp;&amp; c;") != NULL);
	ck_assert(strstr(html, "<script") == NULL);
	free(md);
	free(html);
	rm_rf(dir);
}
END_TEST

START_TEST(test_markdown_structure)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	write_campaign(dir);
	pq_error err = { 0 };
	ck_assert_msg(report_write_all(dir, &err) == 0, "%s", err.msg);
	char *md = slurp(dir, "report.md");
	static const char *const sections[] = {
		"# sign-99 Toy Signature — performance on x86-64 (system lab_1)",
		"Every figure comes from a record listed in section 9.",
		"## Summary", "- Date (UTC): 2026-09-25T10:02:21Z to 2026-09-28T10:51:21Z",
		"- Machine: Test CPU, pinned to CPU 2, kernel 6.1.0 (Debian GNU/Linux 12), counter backend perf-rdpmc (cycles)",
		"| instance | profile | KAT | keygen | sign | verify | pk / sk / sig (bytes) | peak RSS |",
		"| `Alpha-1` | harness-default | PASS | ", " µs (n = 100) | ", " ms (n = 100) | ",
		" | 32 / 64 / 96 | 5.61 MiB |",
		"| `Beta-2` | harness-default | MISMATCH | ", " ms (n = 100) | failed | – | 32 / 64 / 96 | – |",
		"| `Gamma-3` | harness-default | BUILD | – | – | – | 32 / 64 / 96 | – |",
		"Warnings for the whole run:", "- campaign incomplete: some steps did not finish; their rows say which",
		"- KAT verdict MISMATCH for Beta-2: output not validated", "- build failed for Gamma-3: nothing measured",
		"## 1. Basic information", "Category: public-key algorithm; function: digital signature",
		"Algorithm: Toy Signature", "Flag profile (compiler flags each implementation was built with): harness-default",
		"Parameter sets: Alpha-1, Beta-2, Gamma-3", "Measurement method: pqprof 0.1.0; counter backend: perf rdpmc cycles",
		"## 2. Assessment environment", "| item | value |", "| processor | Test CPU (CPU 2, one core) |",
		"| clock | max 2.10 GHz, governor performance, turbo off, SMT off |",
		"| campaign start / end (UTC) | 2026-09-25T10:02:21Z / 2026-09-28T10:51:21Z |", "| hardware PMU | yes",
		"## 3. Functional testing (KAT)", "listed in section 9.", "| instance | flag profile | KAT |",
		"| `Alpha-1` | harness-default | PASS |", "| `Beta-2` | harness-default | MISMATCH [1] |",
		"| `Gamma-3` | harness-default | BUILD [2] |",
		("[1] MISMATCH: record 3 differs in the signature. API deviations and notes: sig_keygen seeds a private "
		 "DRNG instead of drng_algorithm. First difference: record 3, field sm."),
		"[2] Build failed: toy.c:3: error: expected semicolon",
		"These instances are timed anyway; their output is not validated.",
		"## 4. Performance",
		"| instance | profile | operation | median cycles | median time | min cycles | ops/s | mean cycles | "
		"contended trials | n (trials × iters) |",
		"| `Alpha-1` | harness-default | keygen | ", " | 100 (5 × 20) |",
		"| `Beta-2` † | harness-default | keygen |",
		"| `Beta-2` † | harness-default | sign | – | – | – | – | – | – | failed: CRASH during "
		"trial: killed by SIGSEGV in sign |",
		"| `Gamma-3` † | harness-default | keygen |", "not measured: build failed",
		"† The instance's KAT verdict is not PASS (section 3): its output is not validated.",
		"## 5. Resource consumption", "Static memory is approximated by the library's loadable ELF segments",
		"| instance | profile | operation | static: ELF image | baseline RSS | peak RSS | stack | heap peak | "
		"allocations (n) |",
		"| `Alpha-1` | harness-default | sign | 42.4 KiB | 2 MiB | 5.61 MiB | 3.35 KiB | 104 B | 1 |",
		"## 6. Transmission and storage overhead", "| instance | profile | public key (bytes) | secret key (bytes) | signature (bytes) |",
		"| `Alpha-1` | harness-default | 32 | 64 | 96 |", "size audit, Alpha-1: signature: produced 90..96 bytes",
		"## 7. Symmetric primitives",
		"Survey verdict, per instance:",
		"- Alpha-1: ICCS-only — hashing through pseudohash, pseudoXOF; own Keccak/SHAKE present but unused",
		"- Beta-2: bypass — own Keccak/SHAKE (fips202.c); no ICCS placeholder function in the library",
		"| instance | profile | operation | pseudohash/XOF/sm3 (95% interval) | DRNG (95% interval) | calls per "
		"operation |",
		"| `Alpha-1` | harness-default | sign | 4.1% (3.8–4.4%) | 0.0% (0.0–0.1%) | pseudoXOF 36,900, pseudohash 102 |",
		"| `Beta-2` | harness-default | keygen | n/a (no such function) | 0.0% (0.0–0.1%) | unavailable [1] |",
		"[1] Calls per operation unavailable: uprobes not permitted.",
		"| instance | profile | operation | Keccak/SHAKE |",
		"| `Alpha-1` | harness-default | sign | 0.0% (0.0–0.1%) |", "| `Beta-2` | harness-default | keygen | 98% (97–99%) |",
		"SHA-2: n/a (no such function) in any instance.",
		"## 8. Hotspots", "### Alpha-1 / harness-default — sign",
		"| function | module | self (95% interval) | inclusive (95% interval) | est. cost per op |",
		"| `poly_mul` | lib.so | 61% (60–62%) | 70% (69–71%) | 1.10 G cycles |",
		"| `poly_mul` | `poly.c:42` | 900 | 18% |",
		"flame graph: [flame/Alpha-1__harness-default__sign.svg](flame/Alpha-1__harness-default__sign.svg)",
		"## 9. Raw evidence index", "| instance | profile | item | file | sha256 |",
		"| – | – | campaign | `campaign.json` |",
		"| `Beta-2` | harness-default | KAT log | `kat/Beta-2__harness-default.log` |",
	};
	assert_in_order(md, sections, (int)(sizeof sections / sizeof sections[0]));
	ck_assert_int_eq(assert_sections_consecutive(md), 9);
	ck_assert(strstr(md, "mean TSC ticks") == NULL);
	/* counts are written out, never in exponent notation */
	ck_assert_msg(strstr(md, "e+0") == NULL, "exponent notation in report.md");
	/* Alpha is validated: never marked */
	ck_assert(strstr(md, "`Alpha-1` †") == NULL);
	/* the hostile name stays inside its code span and cannot break the table */
	ck_assert(strstr(md, "``Evil<b>\\|x`&\"name``") != NULL);
	const char *line = strstr(strstr(md, "## 3. Functional testing (KAT)"), "| ``Evil");
	ck_assert(line != NULL);
	int pipes = 0;
	for (const char *p = line; *p && *p != '\n'; p++)
		pipes += *p == '|' && p[-1] != '\\';
	ck_assert_int_eq(pipes, 4);  /* KAT table: 3 columns */
	free(md);
	rm_rf(dir);
}
END_TEST

START_TEST(test_evidence_hashes)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	write_campaign(dir);
	pq_error err = { 0 };
	ck_assert_msg(report_write_all(dir, &err) == 0, "%s", err.msg);
	char *md = slurp(dir, "report.md");
	char *js = slurp(dir, "report.json");
	json_t *doc = json_loads(js, 0, NULL);
	ck_assert(doc != NULL);
	ck_assert_str_eq(jp_str(doc, "schema", ""), "pqprof.report/1");
	json_t *ev = jp(doc, "evidence");
	/* campaign, 2 builds, 2 KAT records, 2 logs, sizes, 3+2 timing, 3 memory, 2 profiles, 1 trace, 1 flame */
	ck_assert_int_eq((int)json_array_size(ev), 20);
	size_t i;
	json_t *e;
	json_array_foreach(ev, i, e) {
		char path[4096], hex[65];
		snprintf(path, sizeof path, "%s/%s", dir, jp_str(e, "file", ""));
		ck_assert_msg(sha256_file_hex(path, hex, &err) == 0, "%s", err.msg);
		ck_assert_str_eq(jp_str(e, "sha256", ""), hex);
		char shown[64];
		snprintf(shown, sizeof shown, "`%.16s…`", hex);
		ck_assert_msg(strstr(md, shown) != NULL, "%s not in report.md", shown);
	}
	/* per-call values are left out of the merged document, the summary is kept */
	json_t *inst0 = json_array_get(jp(doc, "instances"), 0);
	json_t *b = jp(json_array_get(jp(inst0, "ops"), 0), "bench");
	ck_assert(jp(json_array_get(jp(b, "trials"), 0), "values") == NULL);
	ck_assert(jp_num(b, "summary.mean_units", 0) > 0);
	ck_assert_str_eq(jp_str(json_array_get(jp(inst0, "ops"), 0), "unit", ""), "cycles");
	json_decref(doc);
	free(js);
	free(md);
	rm_rf(dir);
}
END_TEST

/* report.json's summary: the same rows and warnings as the Markdown, with exact numbers. */
START_TEST(test_summary_json)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	write_campaign(dir);
	pq_error err = { 0 };
	ck_assert_msg(report_write_all(dir, &err) == 0, "%s", err.msg);
	char *js = slurp(dir, "report.json");
	json_t *doc = json_loads(js, 0, NULL);
	ck_assert(doc != NULL);
	json_t *sum = jp(doc, "summary");
	ck_assert(json_is_object(sum));
	ck_assert(json_is_null(jp(sum, "command")));
	ck_assert_str_eq(jp_str(sum, "start_utc", ""), "2026-09-25T10:02:21Z");
	ck_assert_str_eq(jp_str(sum, "machine.processor", ""), "Test CPU");
	ck_assert_int_eq((int)jp_num(sum, "machine.pinned_cpu", -1), 2);
	ck_assert_int_eq((int)json_array_size(jp(sum, "operations")), 3);
	json_t *rows = jp(sum, "rows");
	ck_assert_int_eq((int)json_array_size(rows), 4);   /* one per instance and profile */
	json_t *alpha = json_array_get(rows, 0), *beta = json_array_get(rows, 1), *gamma = json_array_get(rows, 2);
	ck_assert_str_eq(jp_str(alpha, "kat", ""), "PASS");
	ck_assert(jp_true(alpha, "validated"));
	ck_assert_str_eq(jp_str(alpha, "ops.keygen.status", ""), "complete");
	/* records from before the per-call median: the median trial, said so */
	ck_assert_str_eq(jp_str(alpha, "ops.keygen.median_of", ""), "trials");
	ck_assert(jp_num(alpha, "ops.keygen.median_ns", 0) > 0);
	ck_assert_int_eq((int)jp_num(alpha, "ops.keygen.n", 0), 100);
	ck_assert_int_eq((int)jp_num(alpha, "peak_rss_bytes", 0), 5740 * 1024);
	ck_assert_int_eq((int)jp_num(alpha, "sizes.sig", 0), 96);
	ck_assert_str_eq(jp_str(beta, "kat", ""), "MISMATCH");
	ck_assert_str_eq(jp_str(beta, "ops.sign.status", ""), "failed");
	ck_assert_str_eq(jp_str(beta, "ops.sign.failure", ""), "killed by SIGSEGV in sign");
	ck_assert(json_is_null(jp(beta, "peak_rss_bytes")));
	ck_assert_str_eq(jp_str(gamma, "kat", ""), "BUILD");
	ck_assert_str_eq(jp_str(json_array_get(rows, 3), "kat", ""), "not run");
	/* warnings: once each, by kind */
	const char *kinds[] = { "status", "kat", "kat", "kat" };
	json_t *w = jp(sum, "warnings");
	ck_assert_int_eq((int)json_array_size(w), 4);
	for (size_t i = 0; i < json_array_size(w); i++)
		ck_assert_str_eq(jp_str(json_array_get(w, i), "kind", ""), kinds[i]);
	json_decref(doc);
	free(js);
	rm_rf(dir);
}
END_TEST

START_TEST(test_html_page)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	write_campaign(dir);
	pq_error err = { 0 };
	ck_assert_msg(report_write_all(dir, &err) == 0, "%s", err.msg);
	char *html = slurp(dir, "report.html");
	char why[256] = "";
	ck_assert_msg(html_balanced(html, why, sizeof why), "unbalanced HTML: %s", why);
	ck_assert(strncmp(html, "<!DOCTYPE html>", 15) == 0);
	ck_assert(strstr(html, "<svg") != NULL);
	ck_assert(strstr(html, "median cycles per call") != NULL);
	ck_assert(strstr(html, "peak RSS (KiB)") != NULL);
	/* the flame graph is embedded, escaped, in a sandboxed iframe */
	ck_assert(strstr(html, "sandbox=\"allow-scripts\"") != NULL);
	ck_assert(strstr(html, "&lt;script&gt;&lt;![CDATA[var a = &quot;x&quot; &lt; 1") != NULL);
	ck_assert(strstr(html, "<script") == NULL);
	/* no external resources */
	ck_assert(strstr(html, "http://") == NULL || strstr(html, "http://www.w3.org/2000/svg") != NULL);
	ck_assert(strstr(html, "src=\"http") == NULL);
	ck_assert(strstr(html, "<link") == NULL);
	/* record text is escaped */
	ck_assert(strstr(html, "Evil<b>") == NULL);
	ck_assert(strstr(html, "Evil&lt;b&gt;|x`&amp;&quot;name") != NULL);
	ck_assert(strstr(html, "<h2 id=\"kat\">3. Functional testing (KAT)</h2>") != NULL);
	/* the summary table opens the page, before section 1 */
	const char *sum = strstr(html, "<h2 id=\"summary\">Summary</h2>");
	ck_assert(sum != NULL && sum < strstr(html, "<h2 id=\"basic\">1. Basic information</h2>"));
	ck_assert(strstr(sum, "<th>instance</th><th>profile</th><th>KAT</th><th>keygen</th><th>sign</th><th>verify</th>") != NULL);
	ck_assert(strstr(html, "<h2 id=\"evidence\">9. Raw evidence index</h2>") != NULL);
	ck_assert(strstr(html, "<th>mean cycles</th>") != NULL);
	/* contents right after the title, linking every section */
	const char *toc = strstr(html, "<nav class=\"toc\"");
	ck_assert(toc != NULL && toc < sum && toc > strstr(html, "</h1>"));
	ck_assert(strstr(toc, "<a href=\"#summary\">Summary</a>") != NULL);
	ck_assert(strstr(toc, "<a href=\"#evidence\">9. Raw evidence index</a>") != NULL);
	/* the summary's medians as a chart, saying why it has no error bars */
	const char *sc = strstr(sum, "Median time per operation and instance");
	ck_assert(sc != NULL && sc < strstr(html, "<h2 id=\"basic\">"));
	ck_assert(strstr(sum, "No error bars") != NULL);
	free(html);
	rm_rf(dir);
}
END_TEST

START_TEST(test_csv_rows)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	write_campaign(dir);
	pq_error err = { 0 };
	ck_assert_msg(report_write_all(dir, &err) == 0, "%s", err.msg);
	char *csv = slurp(dir, "report.csv");
	int fields[1024], bad = 0;
	int rows = csv_rows(csv, fields, 1024, &bad);
	ck_assert_int_eq(bad, 0);
	ck_assert(rows > 20 && rows <= 1024);
	for (int i = 0; i < rows; i++)
		ck_assert_msg(fields[i] == 8, "row %d has %d fields", i, fields[i]);
	ck_assert(strncmp(csv, "instance,profile,label,op,section,metric,value,unit\r\n", 53) == 0);
	/* one mean per complete timing record: Alpha x3, Beta keygen */
	ck_assert_int_eq((int)count_substr(csv, ",performance,mean_units,"), 4);
	ck_assert_int_eq((int)count_substr(csv, ",kat,verdict,"), 2);
	ck_assert(strstr(csv, "Beta-2,harness-default,Beta-2__harness-default,sign,performance,failure,"
	                      "killed by SIGSEGV in sign,\r\n") != NULL);
	ck_assert(strstr(csv, "\"Evil<b>|x`&\"\"name\",harness-default,") != NULL);
	ck_assert(strstr(csv, ",profile,calls_pseudoXOF,36900,calls/op\r\n") != NULL);
	free(csv);
	rm_rf(dir);
}
END_TEST

/* The campaign's leak step: Alpha's sign leaks (with its plot), Beta's keygen test failed. */
START_TEST(test_leak_records)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	write_campaign(dir);
	put_json(dir, "leak/Alpha-1__harness-default__sign.json",
	         json_pack("{s:s, s:s, s:s, s:s, s:[{s:s, s:s, s:s, s:i, s:f}]}", "schema", "pqprof.leak/1", "op",
	                   "sign", "status", "complete", "verdict", "leak likely", "pairs", "classes",
	                   "fixed-vs-random-key", "verdict", "leak likely", "text",
	                   "leak likely (|t| > 4.5, at 2988 measurements, crop p90)", "measurements", 4000,
	                   "max_abs_t", 12.5));
	put(dir, "leak/Alpha-1__harness-default__sign.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n");
	put_json(dir, "leak/Beta-2__harness-default__keygen.json",
	         json_pack("{s:s, s:s, s:s, s:s, s:s}", "schema", "pqprof.leak/1", "op", "keygen", "status", "failed",
	                   "failure", "runner exited before the first measurement", "failure_kind", "tool"));
	pq_error err = { 0 };
	ck_assert_msg(report_write_all(dir, &err) == 0, "%s", err.msg);
	/* report.json: the records per operation, the plot's path, both in the evidence index */
	char *js = slurp(dir, "report.json");
	json_t *doc = json_loads(js, 0, NULL);
	ck_assert(doc != NULL);
	json_t *alpha = json_array_get(jp(doc, "instances"), 0);
	json_t *sign = json_array_get(jp(alpha, "ops"), 1);
	ck_assert_str_eq(jp_str(sign, "op", ""), "sign");
	ck_assert_str_eq(jp_str(sign, "leak.verdict", ""), "leak likely");
	ck_assert_str_eq(jp_str(sign, "leak_plot", ""), "leak/Alpha-1__harness-default__sign.svg");
	ck_assert(json_is_null(jp(json_array_get(jp(alpha, "ops"), 0), "leak")));
	json_t *beta = json_array_get(jp(doc, "instances"), 1);
	ck_assert_str_eq(jp_str(json_array_get(jp(beta, "ops"), 0), "leak.status", ""), "failed");
	int seen = 0;
	size_t i;
	json_t *e;
	json_array_foreach(jp(doc, "evidence"), i, e) {
		const char *f = jp_str(e, "file", "");
		if (strcmp(f, "leak/Alpha-1__harness-default__sign.json") == 0)
			seen |= strcmp(jp_str(e, "item", ""), "leak test sign") == 0 ? 1 : 0;
		if (strcmp(f, "leak/Alpha-1__harness-default__sign.svg") == 0)
			seen |= strcmp(jp_str(e, "item", ""), "leak plot sign") == 0 ? 2 : 0;
		if (strcmp(f, "leak/Beta-2__harness-default__keygen.json") == 0)
			seen |= 4;
		if (strncmp(f, "leak/", 5) == 0) {
			char path[4096], hex[65];
			snprintf(path, sizeof path, "%s/%s", dir, f);
			ck_assert_msg(sha256_file_hex(path, hex, &err) == 0, "%s", err.msg);
			ck_assert_str_eq(jp_str(e, "sha256", ""), hex);
		}
	}
	ck_assert_int_eq(seen, 7);
	ck_assert_int_eq((int)json_array_size(jp(doc, "evidence")), 23);
	/* report.md: the evidence index and the leak section */
	char *md = slurp(dir, "report.md");
	ck_assert(strstr(md, "| leak test sign | `leak/Alpha-1__harness-default__sign.json` |") != NULL);
	ck_assert(strstr(md, "## 9. Timing leaks") != NULL);
	ck_assert(strstr(md, "## 10. Raw evidence index") != NULL);
	ck_assert(strstr(md, "listed in section 10.") != NULL);
	ck_assert_int_eq(assert_sections_consecutive(md), 10);
	ck_assert(strstr(md, "| `Alpha-1 / harness-default` | sign | leak likely | 4000 | 12.5 |") != NULL);
	/* report.csv: the leak rows */
	char *csv = slurp(dir, "report.csv");
	ck_assert(strstr(csv, "Alpha-1,harness-default,Alpha-1__harness-default,sign,leak,verdict,leak likely,\r\n") != NULL);
	ck_assert(strstr(csv, ",sign,leak,fixed-vs-random-key_measurements,4000,calls\r\n") != NULL);
	ck_assert(strstr(csv, ",sign,leak,fixed-vs-random-key_max_abs_t,12.5,\r\n") != NULL);
	ck_assert(strstr(csv, "Beta-2,harness-default,Beta-2__harness-default,keygen,leak,failure,"
	                      "runner exited before the first measurement,\r\n") != NULL);
	json_decref(doc);
	free(csv);
	free(md);
	free(js);
	rm_rf(dir);
}
END_TEST

START_TEST(test_plain_dir_tsc_label)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	put_json(dir, "Toy-96__sign.json", bench_record("Toy-96", "harness-default", "sign", "TSC ticks", 0, 8800, 3, 10, 5));
	put_json(dir, "Toy-96__verify.json",
	         bench_record("Toy-96", "harness-default", "verify", "TSC ticks", 0, 9900, 3, 10, 6));
	put_json(dir, "Toy-96__sign.mem.json", memory_record("Toy-96", "sign"));
	put_json(dir, "Toy-96.kat.json", kat_record("Toy-96", "NOKAT", "no vector file", NULL));
	put(dir, "Toy-96.kat.log", "RESULT Toy-96 NOKAT\n");
	put(dir, "notes.json", "{\"schema\":\"something/else\"}");
	put(dir, "Toy-96__sizes.json", "{\"schema\":\"pqprof.sizes/1\",\"pk\":{\"declared\":32,\"min\":32,\"max\":32},"
	    "\"audit\":[\"a line the sizes command wrote\"]}");
	struct record_set *rs = NULL;
	pq_error err = { 0 };
	ck_assert_msg(record_set_load(dir, &rs, &err) == 0, "%s", err.msg);
	ck_assert_int_eq((int)rs->ninst, 1);
	ck_assert_int_eq(rs->inst[0].nops, 2);
	ck_assert_str_eq(rs->inst[0].ops[0].op, "sign");
	ck_assert_str_eq(rs->inst[0].kat_log_file, "Toy-96.kat.log");
	ck_assert(!rs_validated(&rs->inst[0]));
	ck_assert_int_eq((int)rs->nev, 6);
	ck_assert_msg(report_write_set(rs, NULL, &err) == 0, "%s", err.msg);
	record_set_free(rs);
	char *md = slurp(dir, "report.md");
	ck_assert(strstr(md, "| instance | profile | operation | median TSC ticks | median time | min TSC ticks |") != NULL);
	ck_assert(strstr(md, "mean cycles") == NULL);
	ck_assert(strstr(md, "columns count TSC ticks, not CPU cycles") != NULL);
	ck_assert(strstr(md, "| `Toy-96` | harness-default | NOKAT [1] |") != NULL);
	ck_assert(strstr(md, "[1] NOKAT: no vector file.") != NULL);
	ck_assert(strstr(md, "- size audit, Toy-96: a line the sizes command wrote") != NULL);
	/* summary of a plain directory: its verdict, the fallback the environment did not explain */
	ck_assert(strstr(md, "| instance | profile | KAT | sign | verify | pk / sk / sig (bytes) | peak RSS |") != NULL);
	ck_assert(strstr(md, "| `Toy-96` | harness-default | NOKAT | 4.") != NULL);
	ck_assert(strstr(md, "- KAT verdict NOKAT for Toy-96: output not validated") != NULL);
	ck_assert(strstr(md, "- counter fallback: timings count TSC ticks, not CPU cycles") != NULL);
	ck_assert(strstr(md, "- Command: not recorded") != NULL);
	free(md);
	rm_rf(dir);
}
END_TEST

/* A profile record of `name` whose hash group has the given callers (profile/call_sites.h). */
static json_t *glue_profile(const char *name, json_t *callers)
{
	json_t *p = profile_record(name, "sign", 1);
	json_t *hash = json_array_get(json_object_get(p, "groups"), 0);
	json_object_set_new(hash, "callers", callers);
	json_object_set_new(hash, "defined_in", json_pack("[s]", "src/iccs/auxfunc.c"));
	json_object_set_new(p, "families", json_pack("[{s:s, s:s, s:b, s:s, s:i, s:f, s:f, s:f}]", "name", "keccak",
	                                             "label", "Keccak/SHAKE", "present", 1, "example", "fips202.c",
	                                             "samples", 0, "share", 0.0, "lo", 0.0, "hi", 0.001));
	return p;
}

START_TEST(test_survey_names_glue)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	/* One glue file (two functions in it); a second file calls only pseudohash, which
	 * ran too (102 calls per op in profile_record): both are named. */
	put_json(dir, "Glue-1__sign.profile.json",
	         glue_profile("Glue-1", json_pack("[{s:s, s:s, s:[s], s:i}, {s:s, s:s, s:[s], s:i}]", "function",
	                                          "sable_xof_absorb", "file", "src/iccs/xof_glue.c", "calls", "pseudoXOF",
	                                          "sites", 1, "function", "sable_xof", "file", "src/iccs/xof_glue.c",
	                                          "calls", "pseudoXOF", "sites", 1)));
	put_json(dir, "Glue-2__sign.profile.json",
	         glue_profile("Glue-2", json_pack("[{s:s, s:s, s:[s], s:i}, {s:s, s:s, s:[s], s:i}]", "function",
	                                          "xof_squeeze", "file", "src/xof.c", "calls", "pseudoXOF", "sites", 2,
	                                          "function", "h512", "file", "src/hash.c", "calls", "pseudohash",
	                                          "sites", 1)));
	/* A caller of a placeholder function that never ran is no glue; without DWARF, functions. */
	json_t *p3 = glue_profile("Glue-3", json_pack("[{s:s, s:[s], s:i}, {s:s, s:s, s:[s], s:i}]", "function",
	                                               "sable_xof", "calls", "pseudoXOF", "sites", 1, "function",
	                                               "old_sm3", "file", "src/compat.c", "calls", "sm3hash",
	                                               "sites", 1));
	put_json(dir, "Glue-3__sign.profile.json", p3);
	/* Records from before pqprof looked for callers: the verdict as it was. */
	put_json(dir, "Glue-4__sign.profile.json", profile_record("Glue-4", "sign", 1));
	struct record_set *rs = NULL;
	pq_error err = { 0 };
	ck_assert_msg(record_set_load(dir, &rs, &err) == 0, "%s", err.msg);
	ck_assert_msg(report_write_set(rs, NULL, &err) == 0, "%s", err.msg);
	record_set_free(rs);
	char *md = slurp(dir, "report.md");
	const char *want[] = {
		"Survey verdict, per instance:",
		"- Glue-1: ICCS-only — xof glue in src/iccs/xof_glue.c (pseudohash, pseudoXOF); own Keccak/SHAKE present "
		"but unused",
		"- Glue-2: ICCS-only — hash/xof glue in src/xof.c, src/hash.c (pseudohash, pseudoXOF); own Keccak/SHAKE "
		"present but unused",
		"- Glue-3: ICCS-only — xof glue in sable_xof (no DWARF line table: functions) (pseudohash, pseudoXOF); own "
		"Keccak/SHAKE present but unused",
		"- Glue-4: ICCS-only — hashing through pseudohash, pseudoXOF\n",
		"The glue named with a verdict is found in the library's machine code (direct calls to the placeholder functions)",
	};
	assert_in_order(md, want, (int)(sizeof want / sizeof want[0]));
	ck_assert_msg(strstr(md, "src/compat.c") == NULL, "a caller of sm3hash, which never ran, named as glue");
	free(md);
	rm_rf(dir);
}
END_TEST

START_TEST(test_bad_json_names_file)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	write_campaign(dir);
	put(dir, "records/Alpha-1__harness-default__sign.json", "{\"schema\": \"pqprof.bench/1\", ");
	struct record_set *rs = NULL;
	pq_error err = { 0 };
	ck_assert(record_set_load(dir, &rs, &err) < 0);
	ck_assert(rs == NULL);
	ck_assert_msg(strstr(err.msg, "records/Alpha-1__harness-default__sign.json: invalid JSON") != NULL, "%s",
	              err.msg);
	/* a record of the wrong schema in its place */
	put(dir, "records/Alpha-1__harness-default__sign.json", "{\"schema\": \"pqprof.memory/1\"}");
	ck_assert(record_set_load(dir, &rs, &err) < 0);
	ck_assert_msg(strstr(err.msg, "schema is 'pqprof.memory/1', expected pqprof.bench/1") != NULL, "%s", err.msg);
	/* a label that would leave the directory */
	put(dir, "campaign.json", "{\"schema\":\"pqprof.campaign/1\",\"instances\":[{\"label\":\"../x\"}]}");
	ck_assert(record_set_load(dir, &rs, &err) < 0);
	ck_assert_msg(strstr(err.msg, "campaign.json: instances[0]: label '../x' is not a safe file name") != NULL,
	              "%s", err.msg);
	/* wrong types where numbers should be are tolerated */
	put(dir, "campaign.json", "{\"schema\":\"pqprof.campaign/1\",\"instances\":[{\"label\":\"Alpha-1__harness-default\","
	                          "\"steps\":7}], \"environment\": [1]}");
	put(dir, "records/Alpha-1__harness-default__sign.json",
	    "{\"schema\": \"pqprof.bench/1\", \"summary\": \"x\", \"trials\": {\"a\": 1}, \"backend\": 3}");
	ck_assert_msg(report_write_all(dir, &err) == 0, "%s", err.msg);
	rm_rf(dir);
}
END_TEST

START_TEST(test_chart_scale)
{
	double v1[] = { 10, 1e5 }, v2[] = { 10, 500 };
	char *l[] = { "a", "b" };
	struct rd_chart c = { .title = "t", .axis = "x", .n = 2, .labels = l, .values = v1 };
	ck_assert(chart_uses_log(&c));
	c.values = v2;
	ck_assert(!chart_uses_log(&c));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	c.values = v1;
	chart_bar_svg(f, &c);
	fclose(f);
	ck_assert(strstr(buf, "(log scale)") != NULL);
	ck_assert_int_eq((int)count_substr(buf, "<rect class=\"bar\" "), 2);
	free(buf);
}
END_TEST

START_TEST(test_chart_groups)
{
	/* two instances x two profiles; only one bar has an interval */
	char *l[] = { "A", "A", "B", "B" }, *ser[] = { "O2", "O3", "O2", "O3" };
	double v[] = { 100, 80, 200, 150 }, lo[] = { NAN, 70, NAN, NAN }, hi[] = { NAN, 95, NAN, NAN };
	struct rd_chart c = { .title = "t", .axis = "x", .time_ns = 1, .n = 4, .labels = l, .series = ser,
	                      .values = v, .lo = lo, .hi = hi };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	chart_bar_svg(f, &c);
	fclose(f);
	ck_assert_int_eq((int)count_substr(buf, "<rect class=\"bar\" "), 4);
	ck_assert_int_eq((int)count_substr(buf, "<rect class=\"swatch\" "), 2);
	/* a label per group, not per bar */
	ck_assert_int_eq((int)count_substr(buf, "<text class=\"label\" "), 2);
	/* the one interval, and no made-up others */
	ck_assert_int_eq((int)count_substr(buf, "<g class=\"err\""), 1);
	ck_assert(strstr(buf, "A / O3: 80 ns (interval 70 ns – 95 ns)") != NULL);
	/* each profile its colour */
	ck_assert_int_eq((int)count_substr(buf, "fill=\"#4878b0\" x="), 3);   /* 2 bars + swatch */
	ck_assert_int_eq((int)count_substr(buf, "fill=\"#e08a2c\" x="), 3);
	ck_assert(strstr(buf, ">200 ns</text>") != NULL);
	free(buf);
}
END_TEST

START_TEST(test_summary_charts_profiles)
{
	/* a flag study: a chart per operation, a group per instance, a bar per profile; no interval made up */
	json_t *s = json_loads("{\"operations\": [\"keygen\", \"sign\"], \"rows\": ["
	                       "{\"shown\": \"A\", \"profile\": \"O2\", \"ops\": {\"keygen\": {\"status\": \"complete\", "
	                       "\"median_ns\": 100}, \"sign\": {\"status\": \"failed\"}}},"
	                       "{\"shown\": \"A\", \"profile\": \"O3\", \"ops\": {\"keygen\": {\"status\": \"complete\", "
	                       "\"median_ns\": 90}, \"sign\": {\"status\": \"complete\", \"median_ns\": 5000}}}]}", 0, NULL);
	ck_assert(s != NULL);
	rdoc d;
	rdoc_init(&d);
	report_summary_charts(s, &d);
	ck_assert_int_eq((int)d.n, 2);
	const struct rd_chart *k = d.b[0].chart, *g = d.b[1].chart;
	ck_assert(k && g && k->time_ns && k->note && strstr(k->note, "No error bars"));
	ck_assert_int_eq((int)k->n, 2);
	ck_assert_str_eq(k->series[0], "O2");
	ck_assert_str_eq(k->series[1], "O3");
	ck_assert(isnan(k->lo[0]) && isnan(k->hi[1]));
	ck_assert_int_eq((int)g->n, 1);   /* the failed sign has no bar */
	ck_assert(strstr(g->title, "sign") != NULL);
	rdoc_free(&d);
	json_decref(s);
}
END_TEST

START_TEST(test_escapes)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	esc_csv(f, "plain");
	fputc('|', f);
	esc_csv(f, "a,\"b\"\n");
	fputc('|', f);
	xml_escape(f, "<a href='x'>&</a>");
	fputc('|', f);
	esc_md_code(f, "a`b|c", 1);
	fputc('|', f);
	esc_url(f, "flame/a b#c.svg");
	fclose(f);
	ck_assert_str_eq(buf, "plain|\"a,\"\"b\"\"\n\"|&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;|``a`b\\|c``|"
	                      "flame/a%20b%23c.svg");
	free(buf);
}
END_TEST

/* ---------------- compare ---------------- */

static void timing_dir(char *dir, size_t len, const char *unit, int cycles, double base, uint64_t seed)
{
	make_tmpdir(dir, len);
	const char *ops[] = { "keygen", "sign" };
	for (int i = 0; i < 2; i++) {
		char rel[64];
		snprintf(rel, sizeof rel, "Toy-96__%s.json", ops[i]);
		put_json(dir, rel, bench_record("Toy-96", "harness-default", ops[i], unit, cycles, base * (i + 1), 5, 40,
		                                seed + (uint64_t)i));
	}
}

static json_t *run_compare(const char *a, const char *b, pq_error *err, int *rc)
{
	struct record_set *ra = NULL, *rb = NULL;
	ck_assert_msg(record_set_load(a, &ra, err) == 0, "%s", err->msg);
	ck_assert_msg(record_set_load(b, &rb, err) == 0, "%s", err->msg);
	struct compare_opts o = { .resamples = 500 };
	json_t *res = NULL;
	*rc = compare_sets(ra, rb, &o, &res, err);
	record_set_free(ra);
	record_set_free(rb);
	return res;
}

/*
 * A timing record of Toy-96 whose trial t costs base * drift[t] per call
 * (a slow spell of the machine moves a whole trial), stamped as part of a
 * run that started at `start` and ended at `end` on `host`.
 */
static json_t *timed_record(const char *profile, const char *op, double base, const double *drift, int trials,
                            uint64_t seed, const char *start, const char *end, int interleaved, const char *host)
{
	json_t *r = bench_record("Toy-96", profile, op, "cycles", 1, base, trials, 40, seed);
	size_t t, i;
	json_t *tr, *v;
	json_array_foreach(json_object_get(r, "trials"), t, tr) {
		json_t *vals = json_object_get(tr, "values");
		json_array_foreach(vals, i, v)
			json_array_set_new(vals, i, json_integer((json_int_t)round(json_number_value(v) * drift[t])));
		json_object_set_new(tr, "mean_units", json_real(json_number_value(json_object_get(tr, "mean_units")) *
		                                                drift[t]));
	}
	json_t *env = json_object_get(r, "environment");
	json_object_set_new(env, "start_utc", json_string(start));
	json_object_set_new(env, "end_utc", json_string(end));
	json_object_set_new(env, "host", json_string(host));
	if (interleaved)
		json_object_set_new(r, "interleaved_with", json_integer(interleaved));
	return r;
}

/* The record as a wall-clock counter (TSC) wrote it; with cpu > 0, each call also kept cpu * value CPU ns. */
static json_t *as_wall_clock(json_t *r, double cpu)
{
	json_t *be = json_object_get(r, "backend");
	json_object_set_new(be, "name", json_string("tsc"));
	json_object_set_new(be, "unit", json_string("TSC ticks"));
	json_object_set_new(be, "counts_cycles", json_false());
	size_t t, i;
	json_t *tr, *v;
	json_array_foreach(json_object_get(r, "trials"), t, tr) {
		if (cpu <= 0)
			continue;
		json_t *c = json_array();
		json_array_foreach(json_object_get(tr, "values"), i, v)
			json_array_append_new(c, json_integer((json_int_t)round(json_number_value(v) * cpu)));
		json_object_set_new(tr, "cpu_ns", c);
	}
	return r;
}

static const double flat[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
/* Slow spells: some rounds run 30-80% slower for every build alike. */
static const double spells[8] = { 1.0, 1.8, 1.05, 1.3, 1.0, 1.6, 1.1, 1.0 };

#define T0 "2026-01-05T10:00:00Z"
#define T1 "2026-01-05T10:05:00Z"
#define T2 "2026-01-05T10:12:00Z"
#define T3 "2026-01-05T10:17:00Z"

static json_t *verdict_of(json_t *res, const char *op)
{
	size_t i;
	json_t *e;
	json_array_foreach(jp(res, "timing"), i, e)
		if (strcmp(jp_str(e, "op", ""), op) == 0)
			return e;
	ck_abort_msg("no timing entry for %s", op);
	return NULL;
}

START_TEST(test_compare_slower)
{
	/* Interleaved in one run: B costs twice A, through slow spells that hit both alike. */
	char a[64], b[64];
	make_tmpdir(a, sizeof a);
	make_tmpdir(b, sizeof b);
	put_json(a, "Toy-96__sign.json", timed_record("harness-default", "sign", 1000, spells, 5, 11, T0, T1, 1, "h1"));
	put_json(b, "Toy-96__sign.json", timed_record("resource", "sign", 2000, spells, 5, 23, T0, T1, 1, "h1"));
	pq_error err = { 0 };
	int rc;
	json_t *res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	json_t *e = verdict_of(res, "sign");
	ck_assert_str_eq(jp_str(e, "verdict", ""), "slower");
	ck_assert_str_eq(jp_str(e, "runs", ""), "interleaved");
	ck_assert_str_eq(jp_str(e, "resampled", ""), "rounds");
	ck_assert(jp_num(e, "ratio", 0) > 1.95 && jp_num(e, "ratio", 0) < 2.05);
	ck_assert(jp_num(e, "lo", 0) > 1.9 && jp_num(e, "lo", 0) <= jp_num(e, "ratio", 0));
	ck_assert(jp_num(e, "hi", 0) < 2.1 && jp_num(e, "hi", 0) >= jp_num(e, "ratio", 0));
	ck_assert_int_eq((int)jp_num(e, "a_values", 0), 200);
	ck_assert_int_eq((int)jp_num(e, "a_trials", 0), 5);
	ck_assert(json_is_true(jp(e, "effect")));
	/* the same seed gives the same interval */
	json_t *again = run_compare(a, b, &err, &rc);
	ck_assert(jp_num(verdict_of(again, "sign"), "lo", 0) == jp_num(e, "lo", 1));
	json_decref(again);
	/* and the swapped comparison is faster */
	json_t *rev = run_compare(b, a, &err, &rc);
	ck_assert_str_eq(jp_str(verdict_of(rev, "sign"), "verdict", ""), "faster");
	json_decref(rev);
	char out[96];
	snprintf(out, sizeof out, "%s/cmp", a);
	ck_assert_msg(compare_write(res, out, &err) == 0, "%s", err.msg);
	char *md = slurp(out, "compare.md");
	ck_assert_msg(strstr(md, "| instance | operation | measure | A median | B median | ratio B/A (95% interval) | runs "
	                         "| verdict |") != NULL, "%s", md);
	ck_assert(strstr(md, "| `Toy-96` (harness-default → resource) | sign | cycles | ") != NULL);
	ck_assert(strstr(md, "| interleaved | slower |") != NULL);
	free(md);
	char *js = slurp(out, "compare.json");
	ck_assert(strstr(js, "\"schema\": \"pqprof.compare/1\"") != NULL);
	free(js);
	json_decref(res);
	rm_rf(a);
	rm_rf(b);
}
END_TEST

START_TEST(test_compare_identical)
{
	char a[64], b[64];
	timing_dir(a, sizeof a, "TSC ticks", 0, 5000, 3);
	timing_dir(b, sizeof b, "TSC ticks", 0, 5000, 3);
	pq_error err = { 0 };
	int rc;
	json_t *res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	size_t i;
	json_t *e;
	json_array_foreach(jp(res, "timing"), i, e) {
		ck_assert_str_eq(jp_str(e, "verdict", ""), "no significant change");
		ck_assert(fabs(jp_num(e, "ratio", 0) - 1.0) < 1e-12);
		ck_assert(jp_num(e, "lo", 2) <= 1.0 && jp_num(e, "hi", 0) >= 1.0);
		ck_assert_str_eq(jp_str(e, "unit", ""), "TSC ticks");
		ck_assert(json_is_false(jp(e, "effect")));
	}
	json_decref(res);
	rm_rf(a);
	rm_rf(b);
}
END_TEST

START_TEST(test_compare_separate_runs)
{
	/*
	 * The same build in two campaigns minutes apart; B's whole run fell in
	 * a slow spell (1.6x).  Trials agree within each run, so a per-call or
	 * per-trial interval is narrow -- but the runs were not interleaved.
	 */
	char a[64], b[64];
	make_tmpdir(a, sizeof a);
	make_tmpdir(b, sizeof b);
	double slow[5] = { 1.6, 1.62, 1.58, 1.61, 1.6 };
	put_json(a, "Toy-96__sign.json",
	         as_wall_clock(timed_record("harness-default", "sign", 1000, flat, 5, 5, T0, T1, 0, "h1"), 0));
	put_json(b, "Toy-96__sign.json",
	         as_wall_clock(timed_record("harness-default", "sign", 1000, slow, 5, 6, T2, T3, 0, "h1"), 0));
	pq_error err = { 0 };
	int rc;
	json_t *res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	json_t *e = verdict_of(res, "sign");
	ck_assert_str_eq(jp_str(e, "runs", ""), "separate");
	ck_assert(jp_num(e, "lo", 0) > 1.5);  /* the interval alone would say "slower" */
	ck_assert_str_eq(jp_str(e, "verdict", ""), "inconclusive: separate runs");
	ck_assert(json_is_false(jp(e, "effect")));
	ck_assert(strstr(jp_str(e, "reason", ""), "not interleaved in one run (they ended 720 s apart)") != NULL);
	ck_assert(fabs(jp_num(e, "seconds_apart", 0) - 720) < 1e-9);
	ck_assert_str_eq(jp_str(e, "measure", ""), "TSC ticks");
	json_decref(res);
	/* A 5x difference is beyond the separate-run allowance: still reported. */
	put_json(b, "Toy-96__sign.json",
	         as_wall_clock(timed_record("debug", "sign", 5000, slow, 5, 6, T2, T3, 0, "h1"), 0));
	res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	e = verdict_of(res, "sign");
	ck_assert_str_eq(jp_str(e, "verdict", ""), "slower");
	ck_assert(strstr(jp_str(e, "reason", ""), "separate runs, but beyond the 2x allowance") != NULL);
	json_decref(res);
	/*
	 * With per-call CPU time kept, the slow spell (time spent waiting for
	 * a CPU) does not show: CPU time is compared, and the allowance is
	 * smaller, so a 1.6x difference in CPU time is reported.
	 */
	put_json(a, "Toy-96__sign.json",
	         as_wall_clock(timed_record("harness-default", "sign", 1000, flat, 5, 5, T0, T1, 0, "h1"), 0.5));
	put_json(b, "Toy-96__sign.json",
	         as_wall_clock(timed_record("harness-default", "sign", 1000, slow, 5, 6, T2, T3, 0, "h1"), 0.5 / 1.6));
	res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	e = verdict_of(res, "sign");
	ck_assert_str_eq(jp_str(e, "measure", ""), "CPU ns");
	ck_assert(fabs(jp_num(e, "ratio", 0) - 1.0) < 0.02);
	ck_assert(json_is_false(jp(e, "effect")));
	json_decref(res);
	put_json(b, "Toy-96__sign.json",
	         as_wall_clock(timed_record("debug", "sign", 1600, flat, 5, 6, T2, T3, 0, "h1"), 0.5));
	res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	e = verdict_of(res, "sign");
	ck_assert_str_eq(jp_str(e, "verdict", ""), "slower");
	ck_assert(strstr(jp_str(e, "reason", ""), "beyond the 1.25x allowance") != NULL);
	json_decref(res);
	rm_rf(a);
	rm_rf(b);
}
END_TEST

START_TEST(test_compare_not_comparable)
{
	char a[64], b[64];
	make_tmpdir(a, sizeof a);
	make_tmpdir(b, sizeof b);
	put_json(a, "Toy-96__sign.json", timed_record("harness-default", "sign", 1000, flat, 5, 5, T0, T1, 0, "lab-1"));
	json_t *rb = timed_record("harness-default", "sign", 4000, flat, 5, 6, T2, T3, 0, "laptop");
	json_object_set_new(json_object_get(rb, "environment"), "governor", json_string("powersave"));
	put_json(b, "Toy-96__sign.json", rb);
	pq_error err = { 0 };
	int rc;
	json_t *res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	json_t *e = verdict_of(res, "sign");
	ck_assert_str_eq(jp_str(e, "verdict", ""), "not comparable");
	ck_assert(jp_num(e, "ratio", 0) > 3.9);  /* the ratio is still shown */
	ck_assert(strstr(jp_str(e, "reason", ""), "host differs (lab-1 vs laptop)") != NULL);
	ck_assert(strstr(jp_str(e, "reason", ""), "governor differs (performance vs powersave)") != NULL);
	json_decref(res);
	rm_rf(a);
	rm_rf(b);
}
END_TEST

START_TEST(test_compare_aa_spread)
{
	/*
	 * One interleaved run of three arms: A, B (7% slower) and A/A, a copy
	 * of A, that came out 8% slower than A by the luck of the run.  B's
	 * difference is one the A/A pair shows too: no effect.
	 */
	char a[64], b[64];
	make_tmpdir(a, sizeof a);
	make_tmpdir(b, sizeof b);
	put_json(a, "Toy-96__sign.json", timed_record("harness-default", "sign", 1000, spells, 6, 5, T0, T1, 2, "h1"));
	json_t *aa = timed_record("harness-default-aa", "sign", 1080, spells, 6, 7, T0, T1, 2, "h1");
	json_object_set_new(aa, "aa_of", json_string("harness-default"));
	put_json(a, "Toy-96-aa__sign.json", aa);
	put_json(b, "Toy-96__sign.json", timed_record("performance", "sign", 1070, spells, 6, 9, T0, T1, 2, "h1"));
	pq_error err = { 0 };
	int rc;
	json_t *res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	ck_assert_int_eq((int)json_array_size(jp(res, "timing")), 1);  /* the A/A arm is not a pair of its own */
	json_t *e = verdict_of(res, "sign");
	ck_assert(jp_num(e, "lo", 0) > 1.03);  /* significant and beyond the 3% threshold... */
	ck_assert_str_eq(jp_str(e, "aa.profile", ""), "harness-default-aa");
	ck_assert(jp_num(e, "aa.ratio", 0) > 1.06);
	ck_assert_str_eq(jp_str(e, "verdict", ""), "no effect: within A/A spread");  /* ...but so is A/A */
	ck_assert(json_is_false(jp(e, "effect")));
	json_decref(res);
	/* A real, large difference stands out of the A/A spread. */
	put_json(b, "Toy-96__sign.json", timed_record("performance", "sign", 600, spells, 6, 9, T0, T1, 2, "h1"));
	res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	e = verdict_of(res, "sign");
	ck_assert_str_eq(jp_str(e, "verdict", ""), "faster");
	ck_assert(jp_num(e, "hi", 1) < 0.65 && jp(e, "aa") != NULL);
	json_decref(res);
	/*
	 * The A/A rule tests B against the A/A copy from the same rounds, not
	 * interval bound against bound: A ran steady, while B and the A/A copy
	 * met the same slow spells, so each one's ratio to A is uncertain and
	 * their intervals overlap; B against the copy, round by round, is 6%
	 * and certain (the spells cancel in that ratio).
	 */
	put_json(a, "Toy-96__sign.json", timed_record("harness-default", "sign", 1000, flat, 6, 5, T0, T1, 2, "h1"));
	json_t *aa4 = timed_record("harness-default-aa", "sign", 1040, spells, 6, 7, T0, T1, 2, "h1");
	json_object_set_new(aa4, "aa_of", json_string("harness-default"));
	put_json(a, "Toy-96-aa__sign.json", aa4);
	put_json(b, "Toy-96__sign.json", timed_record("performance", "sign", 1100, spells, 6, 9, T0, T1, 2, "h1"));
	res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	e = verdict_of(res, "sign");
	ck_assert_str_eq(jp_str(e, "verdict", ""), "slower");
	ck_assert(jp_num(e, "aa.difference.lo", 0) > 1.03);
	ck_assert(jp_num(e, "lo", 0) < jp_num(e, "aa.hi", 0));  /* bound against bound would see no effect */
	ck_assert(jp_str(e, "detectable", NULL) != NULL);
	fprintf(stderr, "aa rule: B %.4f (%.4f-%.4f), A/A %.4f (%.4f-%.4f), B/AA %.4f (%.4f-%.4f)\n", jp_num(e, "ratio", 0),
	        jp_num(e, "lo", 0), jp_num(e, "hi", 0), jp_num(e, "aa.ratio", 0), jp_num(e, "aa.lo", 0),
	        jp_num(e, "aa.hi", 0), jp_num(e, "aa.difference.ratio", 0), jp_num(e, "aa.difference.lo", 0),
	        jp_num(e, "aa.difference.hi", 0));
	json_decref(res);
	/* The baseline against a set holding only its A/A arm still pairs. */
	rm_rf(b);
	make_tmpdir(b, sizeof b);
	json_t *arm = timed_record("harness-default-aa", "sign", 1080, spells, 6, 7, T0, T1, 2, "h1");
	json_object_set_new(arm, "aa_of", json_string("harness-default"));
	put_json(b, "Toy-96-aa__sign.json", arm);
	res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	ck_assert_str_eq(jp_str(verdict_of(res, "sign"), "profile_b", ""), "harness-default-aa");
	json_decref(res);
	rm_rf(a);
	rm_rf(b);
}
END_TEST

START_TEST(test_compare_threshold)
{
	/* Interleaved, identical builds but for a 1% difference: significant, yet no effect. */
	char a[64], b[64];
	make_tmpdir(a, sizeof a);
	make_tmpdir(b, sizeof b);
	put_json(a, "Toy-96__sign.json", timed_record("harness-default", "sign", 100000, spells, 8, 5, T0, T1, 1, "h1"));
	put_json(b, "Toy-96__sign.json", timed_record("reference", "sign", 101000, spells, 8, 6, T0, T1, 1, "h1"));
	pq_error err = { 0 };
	int rc;
	json_t *res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	json_t *e = verdict_of(res, "sign");
	ck_assert(fabs(jp_num(e, "ratio", 0) - 1.01) < 0.005);
	ck_assert_msg(strncmp(jp_str(e, "verdict", ""), "no ", 3) == 0, "%s", jp_str(e, "verdict", ""));
	json_decref(res);
	rm_rf(a);
	rm_rf(b);
}
END_TEST

START_TEST(test_compare_function_costs)
{
	/*
	 * B is twice as fast; keccak's self share rises from 40% to 60%, yet
	 * its cost per op falls from 400 to 300 cycles: the table says both.
	 */
	char a[64], b[64];
	make_tmpdir(a, sizeof a);
	make_tmpdir(b, sizeof b);
	json_t *pa = profile_record("Toy-96", "sign", 0), *pb = profile_record("Toy-96", "sign", 0);
	json_object_set_new(pa, "units_per_op", json_real(1000));
	json_object_set_new(pb, "units_per_op", json_real(500));
	json_t *fa = json_array_get(json_object_get(pa, "functions"), 0), *fb = json_array_get(json_object_get(pb, "functions"), 0);
	json_object_set_new(fa, "name", json_string("keccak"));
	json_object_set_new(fb, "name", json_string("keccak"));
	json_object_set_new(fa, "self_share", json_real(0.4));
	json_object_set_new(fa, "self_lo", json_real(0.39));
	json_object_set_new(fa, "self_hi", json_real(0.41));
	json_object_set_new(fb, "self_share", json_real(0.6));
	json_object_set_new(fb, "self_lo", json_real(0.59));
	json_object_set_new(fb, "self_hi", json_real(0.61));
	put_json(a, "Toy-96__sign.prof.json", pa);
	put_json(b, "Toy-96__sign.prof.json", pb);
	pq_error err = { 0 };
	int rc;
	json_t *res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	json_t *e = json_array_get(jp(res, "functions"), 0);
	ck_assert_str_eq(jp_str(e, "cost_unit", ""), "cycles");
	json_t *k = NULL, *f;
	size_t i;
	json_array_foreach(jp(e, "functions"), i, f)
		if (strcmp(jp_str(f, "name", ""), "keccak") == 0)
			k = f;
	ck_assert(k != NULL);
	ck_assert(fabs(jp_num(k, "delta", 0) - 0.2) < 1e-9);           /* share up 20 pp */
	ck_assert(fabs(jp_num(k, "a_cost", 0) - 400) < 1e-6);
	ck_assert(fabs(jp_num(k, "b_cost", 0) - 300) < 1e-6);
	ck_assert(fabs(jp_num(k, "cost_delta", 0) + 100) < 1e-6);      /* cost down 100 cycles/op */
	ck_assert(jp_num(k, "cost_delta_hi", 0) < 0 && jp_num(k, "cost_delta_lo", 0) < -100);
	rdoc doc;
	rdoc_init(&doc);
	ck_assert(compare_doc(res, &doc, &err) == 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	report_markdown_to(mf, &doc);
	fclose(mf);
	ck_assert_msg(strstr(buf, "| function | A cycles/op | B cycles/op | delta cycles/op (95% interval) | self share A "
	                          "| self share B | delta pp |") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "| `keccak` | 400 | 300 | -100 (") != NULL, "%s", buf);
	free(buf);
	rdoc_free(&doc);
	json_decref(res);
	rm_rf(a);
	rm_rf(b);
}
END_TEST

START_TEST(test_report_comparison_section)
{
	/* A campaign holding a comparison gets its own report section; a broken one is named. */
	char a[64], b[64], dir[64], sub[160];
	make_tmpdir(a, sizeof a);
	make_tmpdir(b, sizeof b);
	make_tmpdir(dir, sizeof dir);
	write_campaign(dir);
	put_json(a, "Toy-96__sign.json", timed_record("harness-default", "sign", 1000, spells, 5, 11, T0, T1, 1, "h1"));
	put_json(b, "Toy-96__sign.json", timed_record("resource", "sign", 1500, spells, 5, 23, T0, T1, 1, "h1"));
	pq_error err = { 0 };
	int rc;
	json_t *res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	snprintf(sub, sizeof sub, "%s/compare/harness-default_vs_resource", dir);
	ck_assert_msg(compare_write(res, sub, &err) == 0, "%s", err.msg);
	json_decref(res);
	ck_assert_msg(report_write_all(dir, &err) == 0, "%s", err.msg);
	char *md = slurp(dir, "report.md");
	/* no leak section: the comparison takes its number, the evidence index follows */
	ck_assert(strstr(md, "## 9. Comparison") != NULL);
	ck_assert(strstr(md, "## 10. Raw evidence index") != NULL);
	ck_assert(strstr(md, "Timing leaks") == NULL);
	ck_assert_int_eq(assert_sections_consecutive(md), 10);
	ck_assert(strstr(md, "### resource against harness-default") != NULL);
	ck_assert(strstr(md, "| interleaved | slower |") != NULL);
	free(md);
	char *html = slurp(dir, "report.html");
	ck_assert(strstr(html, "<h2 id=\"comparison\">9. Comparison</h2>") != NULL);
	free(html);
	put(dir, "compare/harness-default_vs_resource/compare.json", "{\"schema\": ");
	ck_assert(report_write_all(dir, &err) < 0);
	ck_assert_msg(strstr(err.msg, "compare/harness-default_vs_resource/compare.json: invalid JSON") != NULL, "%s",
	              err.msg);
	rm_rf(a);
	rm_rf(b);
	rm_rf(dir);
}
END_TEST

START_TEST(test_trial_ratio_ci)
{
	/* Paired rounds: the shared drift cancels; unpaired it does not. */
	double a[5] = { 100, 180, 105, 130, 100 }, b[5];
	for (int i = 0; i < 5; i++)
		b[i] = a[i] * 1.5;
	stats_interval ci;
	pq_error err = { 0 };
	ck_assert(stats_trial_ratio_ci(b, 5, a, 5, 1, 1000, 1, &ci, &err) == 0);
	ck_assert(fabs(ci.estimate - 1.5) < 1e-9 && fabs(ci.lo - 1.5) < 1e-9 && fabs(ci.hi - 1.5) < 1e-9);
	ck_assert(stats_trial_ratio_ci(b, 5, a, 5, 0, 1000, 1, &ci, &err) == 0);
	ck_assert(fabs(ci.estimate - 1.5) < 1e-9 && ci.lo < 1.2 && ci.hi > 1.9);
	/* too few trials, and a cost that is not positive, are errors that say so */
	ck_assert(stats_trial_ratio_ci(b, 1, a, 1, 1, 1000, 1, &ci, &err) < 0);
	ck_assert(strstr(err.msg, "at least 2 trials") != NULL);
	a[2] = 0;
	ck_assert(stats_trial_ratio_ci(b, 5, a, 5, 1, 1000, 1, &ci, &err) < 0);
	ck_assert(strstr(err.msg, "not a positive cost") != NULL);
	ck_assert(fabs(stats_t975(4) - 2.776) < 1e-9 && stats_t975(1000) < 1.97 && stats_t975(1000) > 1.95);
}
END_TEST

START_TEST(test_compare_unit_mismatch)
{
	char a[64], b[64];
	timing_dir(a, sizeof a, "cycles", 1, 1000, 1);
	timing_dir(b, sizeof b, "TSC ticks", 0, 1000, 1);
	pq_error err = { 0 };
	int rc;
	json_t *res = run_compare(a, b, &err, &rc);
	ck_assert(rc < 0);
	ck_assert(res == NULL);
	ck_assert_msg(strstr(err.msg, "cannot compare Toy-96 keygen: A counts cycles, B counts TSC ticks") != NULL,
	              "%s", err.msg);
	rm_rf(a);
	rm_rf(b);
}
END_TEST

START_TEST(test_compare_campaigns)
{
	/* Two campaigns: memory, static image and per-function tables come along. */
	char a[64], b[64];
	make_tmpdir(a, sizeof a);
	make_tmpdir(b, sizeof b);
	write_campaign(a);
	write_campaign(b);
	pq_error err = { 0 };
	int rc;
	json_t *res = run_compare(a, b, &err, &rc);
	ck_assert_msg(rc == 0, "%s", err.msg);
	ck_assert_int_eq((int)json_array_size(jp(res, "timing")), 4);
	ck_assert_int_eq((int)json_array_size(jp(res, "memory")), 3);
	ck_assert_int_eq((int)json_array_size(jp(res, "static_image")), 1);
	ck_assert_int_eq((int)json_array_size(jp(res, "functions")), 2);
	/* traces and flame graphs but no folded stacks: a note says why there is no diff graph */
	int noted = 0;
	size_t i;
	json_t *n;
	json_array_foreach(jp(res, "notes"), i, n)
		noted |= strstr(json_string_value(n), "Alpha-1 sign: no differential flame graph") != NULL;
	ck_assert(noted);
	json_decref(res);
	rm_rf(a);
	rm_rf(b);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *r = tcase_create("report");
	tcase_set_timeout(r, 60);
	tcase_add_test(r, test_markdown_structure);
	tcase_add_test(r, test_evidence_hashes);
	tcase_add_test(r, test_summary_json);
	tcase_add_test(r, test_html_page);
	tcase_add_test(r, test_annotated_views);
	tcase_add_test(r, test_csv_rows);
	tcase_add_test(r, test_leak_records);
	tcase_add_test(r, test_plain_dir_tsc_label);
	tcase_add_test(r, test_survey_names_glue);
	tcase_add_test(r, test_bad_json_names_file);
	tcase_add_test(r, test_chart_scale);
	tcase_add_test(r, test_chart_groups);
	tcase_add_test(r, test_summary_charts_profiles);
	tcase_add_test(r, test_escapes);
	suite_add_tcase(s, r);
	TCase *c = tcase_create("compare");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, test_compare_slower);
	tcase_add_test(c, test_compare_identical);
	tcase_add_test(c, test_compare_separate_runs);
	tcase_add_test(c, test_compare_not_comparable);
	tcase_add_test(c, test_compare_aa_spread);
	tcase_add_test(c, test_compare_threshold);
	tcase_add_test(c, test_trial_ratio_ci);
	tcase_add_test(c, test_compare_function_costs);
	tcase_add_test(c, test_report_comparison_section);
	tcase_add_test(c, test_compare_unit_mismatch);
	tcase_add_test(c, test_compare_campaigns);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(report_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
