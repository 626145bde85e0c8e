/* report_summary: the summary that opens every report; see report_summary.h. */
#include "config.h"
#include "report/report_summary.h"
#include "report/report.h"
#include "core/jpath.h"
#include "core/ops.h"
#include "core/text_buf.h"
#include "core/units.h"
#include "measure/env.h"
#include "measure/stats.h"
#include "report/compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest list of names one warning spells out. */
#define NAMES_LEN 1024

/*
 * Values are set one by one: a string jansson refuses (a name cut inside
 * a UTF-8 sequence) leaves its key out instead of the whole summary.
 */
static void set(json_t *obj, const char *key, json_t *value)
{
	json_object_set_new(obj, key, value);
}

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_string(s) : json_null();
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Counts and byte sizes: integers in JSON. */
static json_t *count_or_null(double v)
{
	return isfinite(v) ? json_integer((json_int_t)llround(v)) : json_null();
}

static int bench_complete(const json_t *b)
{
	return b && strcmp(jp_str(b, "status", ""), "failed") != 0 && jp(b, "summary");
}

static const char *shown_name(const struct rs_instance *in)
{
	return in->shown[0] ? in->shown : in->name;
}

/* ---------------- when, how, where ---------------- */

/* The campaign's command; for a plain records directory, the first timing record's. */
static const char *command_of(const struct record_set *rs)
{
	const char *c = jp_str(rs->campaign, "command", NULL);
	for (size_t i = 0; !c && !rs->campaign && i < rs->ninst; i++)
		for (int k = 0; !c && k < rs->inst[i].nops; k++)
			c = jp_str(rs->inst[i].ops[k].bench, "command", NULL);
	return c;
}

/* More CPUs than a record of a real machine names. */
#define MAX_CPUS 65536

/* How many CPUs a list such as "0-3,8" names; -1 when it is not such a list. */
static int count_cpus(const char *list)
{
	int n = 0;
	const char *p = list;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p || a < 0 || a >= MAX_CPUS)
			return -1;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b >= MAX_CPUS)
				return -1;
		}
		n += (int)(b - a + 1);
		if (n > MAX_CPUS)
			return -1;
		if (*end != ',' && *end != '\0')
			return -1;
		p = *end ? end + 1 : end;
	}
	return n ? n : -1;
}

#define LIST_SEP ", "
#define LIST_MORE ", …"

/*
 * Append s to a LIST_SEP-separated list in buf unless it is an item
 * already.  An item that does not fit is never cut (that could split a
 * UTF-8 sequence): the list ends with LIST_MORE instead.
 */
static void add_distinct(char *buf, size_t len, const char *s)
{
	if (!s || !s[0])
		return;
	size_t n = strlen(s), sep = strlen(LIST_SEP);
	for (const char *p = buf; (p = strstr(p, s)) != NULL; p++) {
		int starts = p == buf || ((size_t)(p - buf) >= sep && strncmp(p - sep, LIST_SEP, sep) == 0);
		int ends = p[n] == '\0' || strncmp(p + n, LIST_SEP, sep) == 0;
		if (starts && ends)
			return;
	}
	text_add_item(buf, len, LIST_SEP, s, LIST_MORE);
}

/* "tsc (TSC ticks)", "perf-rdpmc (cycles)": each counter backend the timing records used. */
static void counters_text(const struct record_set *rs, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++) {
			const json_t *b = rs->inst[i].ops[k].bench;
			const char *name = jp_str(b, "backend.name", NULL), *unit = report_bench_unit(b);
			if (!bench_complete(b) || !name)
				continue;
			char one[160];
			snprintf(one, sizeof one, "%s%s%s%s", name, unit ? " (" : "", unit ? unit : "", unit ? ")" : "");
			add_distinct(buf, len, one);
		}
}

static json_t *machine_json(const struct record_set *rs)
{
	char counters[512], text[2048];
	counters_text(rs, counters, sizeof counters);
	const char *ctr = counters[0] ? counters : "no timing records";
	json_t *m = json_object();
	if (!m)
		return NULL;
	set(m, "counters", json_string(ctr));
	env_info env;
	if (!rs->environment || env_from_json(rs->environment, &env, NULL) < 0) {
		snprintf(text, sizeof text, "not recorded; counter backend %s", ctr);
		set(m, "text", json_string(text));
		return m;
	}
	int cpus = count_cpus(env.cpus_allowed);
	char where[ENV_STR + 64];
	if (env.cpu >= 0)
		snprintf(where, sizeof where, "pinned to CPU %d", env.cpu);
	else if (cpus > 0)
		snprintf(where, sizeof where, "%d CPU%s (%s), not pinned", cpus, cpus == 1 ? "" : "s", env.cpus_allowed);
	else
		snprintf(where, sizeof where, "not pinned");
	snprintf(text, sizeof text, "%s, %s, kernel %s (%s), counter backend %s", env.processor, where, env.kernel,
	         env.os, ctr);
	set(m, "text", json_string(text));
	set(m, "processor", json_string(env.processor));
	set(m, "cpus", cpus > 0 ? json_integer(cpus) : json_null());
	set(m, "pinned_cpu", env.cpu >= 0 ? json_integer(env.cpu) : json_null());
	set(m, "kernel", json_string(env.kernel));
	set(m, "os", json_string(env.os));
	return m;
}

/* ---------------- one row per instance and profile ---------------- */

static json_t *op_json(const struct rs_op *o)
{
	const json_t *b = o->bench;
	if (!b)
		return json_pack("{s:s}", "status", "not measured");
	if (!bench_complete(b))
		return json_pack("{s:s, s:o}", "status", "failed", "failure",
		                 str_or_null(jp_str(b, "failure.reason", jp_str(b, "failure", NULL))));
	/* Records from before the per-call median have the median trial's mean only. */
	double med = jp_num(b, "summary.median_ns", NAN);
	const char *of = "calls";
	if (!isfinite(med)) {
		med = jp_num(b, "summary.median_trial_ns", NAN);
		of = "trials";
	}
	return json_pack("{s:s, s:o, s:s, s:o}", "status", "complete", "median_ns", num_or_null(med), "median_of", of,
	                 "n", count_or_null(jp_num(b, "summary.n", NAN)));
}

static int is_kem(const struct rs_instance *in)
{
	const char *k = rs_kind(in);
	return k && strcmp(k, "kem") == 0;
}

static json_t *sizes_json(const struct rs_instance *in)
{
	const char *keys[] = { "pk", "sk", is_kem(in) ? "ct" : "sig" };
	json_t *s = json_object();
	for (int i = 0; s && i < 3; i++) {
		double v = rs_declared_size(in, keys[i]);
		if (v > 0)
			json_object_set_new(s, keys[i], json_integer((json_int_t)v));
	}
	return s;
}

/* The largest peak RSS of the instance's operations, NAN when none was measured. */
static double peak_rss(const struct rs_instance *in)
{
	double peak = NAN;
	for (int k = 0; k < in->nops; k++) {
		const json_t *m = in->ops[k].memory;
		double v = strcmp(jp_str(m, "status", ""), "failed") != 0 ? jp_num(m, "memory.peak_rss", NAN) : NAN;
		if (isfinite(v) && (!isfinite(peak) || v > peak))
			peak = v;
	}
	return peak;
}

static const struct rs_instance *by_label(const struct record_set *rs, const char *label)
{
	for (size_t i = 0; label[0] && i < rs->ninst; i++)
		if (strcmp(rs->inst[i].label, label) == 0)
			return &rs->inst[i];
	return NULL;
}

/* Whether a timing record's interleave list names label: its trials ran in the same rounds. */
static int interleaved_with(const json_t *bench, const char *label)
{
	size_t i;
	json_t *v;
	json_array_foreach(jp(bench, "interleave.units"), i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), label) == 0)
			return 1;
	return 0;
}

/*
 * The candidate's typical cost of op as a multiple of its baseline's, as
 * `pqprof compare` pairs an interleaved run (compare_interleaved_ratio);
 * NULL when the two did not run in the same rounds or the ratio cannot be
 * worked out: nothing is shown rather than a guess.
 */
static json_t *baseline_op_ratio(const struct rs_instance *in, const struct rs_instance *b, const char *op)
{
	const struct rs_op *oc = rs_find_op(in, op), *ob = rs_find_op(b, op);
	if (!oc || !ob || !bench_complete(oc->bench) || !bench_complete(ob->bench) ||
	    !interleaved_with(oc->bench, b->label) || !interleaved_with(ob->bench, in->label))
		return NULL;
	stats_interval ci;
	size_t trials = 0;
	pq_error ignore = { 0 };
	if (compare_interleaved_ratio(ob->bench, oc->bench, &ci, &trials, &ignore) < 0 || !isfinite(ci.estimate) ||
	    !isfinite(ci.lo) || !isfinite(ci.hi))
		return NULL;
	return json_pack("{s:f, s:f, s:f, s:I}", "ratio", ci.estimate, "lo", ci.lo, "hi", ci.hi, "trials",
	                 (json_int_t)trials);
}

/* {"instance", "label", "ops": {op: {ratio, lo, hi, trials}}, "sizes": {key: ratio}}; NULL when in has no baseline. */
static json_t *baseline_json(const struct record_set *rs, const struct rs_instance *in)
{
	const struct rs_instance *b = by_label(rs, in->baseline);
	if (!b || b == in)
		return NULL;
	json_t *ops = json_object(), *sizes = json_object();
	/* Only a baseline that passed its known-answer tests is a yardstick. */
	const char *kat = rs_kat_verdict(b);
	int gated = strcmp(kat, "PASS") == 0;
	for (int k = 0; gated && ops && k < in->nops; k++) {
		json_t *r = baseline_op_ratio(in, b, in->ops[k].op);
		if (r)
			json_object_set_new(ops, in->ops[k].op, r);
	}
	const char *keys[] = { "pk", "sk", is_kem(in) ? "ct" : "sig" };
	for (int i = 0; sizes && i < 3; i++) {
		double vc = rs_declared_size(in, keys[i]), vb = rs_declared_size(b, keys[i]);
		if (vc > 0 && vb > 0)
			json_object_set_new(sizes, keys[i], json_real(vc / vb));
	}
	json_t *o = json_pack("{s:s, s:s, s:o, s:o}", "instance", b->name, "label", b->label, "ops", ops, "sizes", sizes);
	if (o && b->standard[0])
		set(o, "standard", json_string(b->standard));
	if (o && b->origin[0])
		set(o, "origin", json_string(b->origin));
	if (o && in->baseline_note[0])
		set(o, "note", json_string(in->baseline_note));
	if (o && !gated) {
		char why[160];
		snprintf(why, sizeof why, "baseline KAT %s", kat);
		set(o, "no_ratios", json_string(why));
	}
	return o;
}

/* A baseline's own figures and origin: what the × columns divide by. */
static json_t *yardstick_json(const struct rs_instance *b)
{
	json_t *y = json_object(), *med = json_object();
	if (!y || !med) {
		json_decref(y);
		json_decref(med);
		return NULL;
	}
	for (int k = 0; k < b->nops; k++)
		if (b->ops[k].bench && bench_complete(b->ops[k].bench))
			set(med, b->ops[k].op, num_or_null(jp_num(b->ops[k].bench, "summary.median_ns", NAN)));
	set(y, "instance", json_string(b->name));
	set(y, "label", json_string(b->label));
	set(y, "standard", str_or_null(b->standard));
	set(y, "origin", str_or_null(b->origin[0] ? b->origin : jp_str(b->descriptor, "source_dir", NULL)));
	set(y, "cflags", str_or_null(jp_str(b->descriptor, "cflags", NULL)));
	set(y, "compiler", str_or_null(jp_str(b->descriptor, "compiler", NULL)));
	set(y, "kat", json_string(rs_kat_verdict(b)));
	set(y, "median_ns", med);
	return y;
}

/* The baselines some candidate was measured against, in record order. */
static json_t *yardsticks_json(const struct record_set *rs)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < rs->ninst; i++) {
		const struct rs_instance *b = &rs->inst[i];
		int used = 0;
		for (size_t j = 0; j < rs->ninst && !used; j++)
			used = j != i && strcmp(rs->inst[j].baseline, b->label) == 0;
		if (strcmp(b->role, "baseline") == 0 && used)
			json_array_append_new(a, yardstick_json(b));
	}
	return a;
}

static json_t *row_json(const struct record_set *rs, const struct rs_instance *in)
{
	json_t *row = json_object(), *ops = json_object();
	if (!row || !ops) {
		json_decref(row);
		json_decref(ops);
		return NULL;
	}
	for (int k = 0; k < in->nops; k++)
		set(ops, in->ops[k].op, op_json(&in->ops[k]));
	set(row, "instance", json_string(in->name));
	set(row, "shown", json_string(shown_name(in)));
	set(row, "profile", str_or_null(in->profile));
	set(row, "kind", json_string(is_kem(in) ? "kem" : "signature"));
	set(row, "role", json_string(strcmp(in->role, "baseline") == 0 ? "baseline" : "candidate"));
	set(row, "category", in->category ? json_integer(in->category) : json_null());
	set(row, "category_from", str_or_null(in->category_from));
	if (in->standard[0])
		set(row, "standard", json_string(in->standard));
	if (in->origin[0])
		set(row, "origin", json_string(in->origin));
	set(row, "kat", json_string(rs_kat_verdict(in)));
	set(row, "validated", json_boolean(rs_validated(in)));
	set(row, "ops", ops);
	set(row, "sizes", sizes_json(in));
	set(row, "peak_rss_bytes", count_or_null(peak_rss(in)));
	json_t *b = baseline_json(rs, in);
	if (b)
		set(row, "baseline", b);
	else if (strcmp(in->role, "candidate") == 0 && !in->category && json_is_true(jp(rs->campaign, "baselines.enabled")))
		set(row, "no_baseline", json_string("category unknown (say --category NAME=N)"));
	return row;
}

/* The operations any instance has, in report order: the table's columns. */
static json_t *operations_json(const struct record_set *rs)
{
	json_t *ops = json_array();
	for (int op = 0; ops && op < RS_MAX_OPS; op++)
		for (size_t i = 0; i < rs->ninst; i++)
			if (rs_find_op(&rs->inst[i], pq_op_name(op))) {
				json_array_append_new(ops, json_string(pq_op_name(op)));
				break;
			}
	return ops;
}

/* ---------------- warnings for the whole run ---------------- */

static void warn(json_t *w, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void warn(json_t *w, const char *kind, const char *fmt, ...)
{
	char text[2 * NAMES_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	json_t *one = json_object();
	set(one, "kind", json_string(kind));
	set(one, "text", json_string(text));
	json_array_append_new(w, one);
}

/* How the campaign ran: unfinished, one shard only, --quick. */
static void warn_campaign(const struct record_set *rs, json_t *w)
{
	const char *status = jp_str(rs->campaign, "status", NULL);
	if (status && strcmp(status, "complete") != 0)
		warn(w, "status", "campaign %s: some steps did not finish; their rows say which", status);
	if (jp(rs->campaign, "shard"))
		warn(w, "shard", "shard %.0f of %.0f: this report covers that shard's units only",
		     jp_num(rs->campaign, "shard.k", 0), jp_num(rs->campaign, "shard.n", 0));
	if (jp_true(rs->campaign, "quick"))
		warn(w, "quick", "quick run (--quick): shorter trials, and instances marked slow were left out");
}

/*
 * The environment's caveats (measure/env.h: no hardware PMU, turbo,
 * governor, SMT, not pinned ...), then a counter fallback the environment
 * did not already explain: a PMU was there, yet timings count something else.
 */
static void warn_counters(const struct record_set *rs, json_t *w)
{
	env_info env;
	int have_env = rs->environment && env_from_json(rs->environment, &env, NULL) == 0;
	if (have_env) {
		char text[ENV_MAX_WARNINGS][ENV_WARNING_LEN];
		int n = env_warnings(&env, text, ENV_MAX_WARNINGS);
		for (int i = 0; i < n; i++)
			warn(w, "environment", "%s", text[i]);
		if (strcmp(env.hardware_pmu, "yes") != 0)
			return;
	}
	char units[256] = "";
	const char *why = NULL;
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++) {
			const json_t *b = rs->inst[i].ops[k].bench;
			const char *unit = report_bench_unit(b);
			if (!bench_complete(b) || !unit || strcmp(unit, "cycles") == 0)
				continue;
			add_distinct(units, sizeof units, unit);
			if (!why)
				why = json_string_value(json_array_get(jp(b, "backend.fallback_reasons"), 0));
		}
	if (units[0])
		warn(w, "counter", "counter fallback: timings count %s, not CPU cycles%s%s", units, why ? ": " : "",
		     why ? why : "");
}

static void warn_contention(const struct record_set *rs, json_t *w)
{
	double trials = 0, flagged = 0;
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++) {
			const json_t *b = rs->inst[i].ops[k].bench;
			double t = jp_num(b, "contention.trials", NAN), f = jp_num(b, "contention.trials_flagged", NAN);
			if (bench_complete(b) && isfinite(t) && isfinite(f)) {
				trials += t;
				flagged += f;
			}
		}
	if (flagged > 0 && flagged == trials)
		warn(w, "contention", "all %.0f timing trials were contended (the machine was busy): the times are "
		     "likely high", trials);
	else if (flagged > 0)
		warn(w, "contention", "%.0f of %.0f timing trials were contended; each operation's count is in the "
		     "performance section", flagged, trials);
}

/* One warning per verdict other than PASS, naming its instances once each. */
static void warn_kat(const struct record_set *rs, json_t *w)
{
	const char *seen[64];
	int nseen = 0;
	for (size_t i = 0; i < rs->ninst; i++) {
		const char *v = rs_kat_verdict(&rs->inst[i]);
		int dup = rs_validated(&rs->inst[i]);
		for (int s = 0; s < nseen && !dup; s++)
			dup = strcmp(seen[s], v) == 0;
		if (dup || nseen == 64)
			continue;
		seen[nseen++] = v;
		char names[NAMES_LEN] = "";
		for (size_t j = i; j < rs->ninst; j++)
			if (strcmp(rs_kat_verdict(&rs->inst[j]), v) == 0)
				add_distinct(names, sizeof names, shown_name(&rs->inst[j]));
		if (strcmp(v, "BUILD") == 0)
			warn(w, "kat", "build failed for %s: nothing measured", names);
		else
			warn(w, "kat", "KAT verdict %s for %s: output not validated", v, names);
	}
}

/*
 * Candidates measured without a standard baseline: no security category
 * known for them, or the in-tree baseline scheme was not found.  Said only
 * for campaigns that ran with baselines on.
 */
static void warn_baselines(const struct record_set *rs, json_t *w)
{
	if (!json_is_true(jp(rs->campaign, "baselines.enabled")))
		return;
	const char *missing = jp_str(rs->campaign, "baselines.missing", NULL);
	char unknown[NAMES_LEN] = "", nobase[NAMES_LEN] = "";
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		if (strcmp(in->role, "candidate") != 0)
			continue;
		if (!in->category)
			add_distinct(unknown, sizeof unknown, shown_name(in));
		else if (!in->baseline[0])
			add_distinct(nobase, sizeof nobase, shown_name(in));
	}
	for (size_t i = 0; i < rs->ninst; i++)
		if (strcmp(rs->inst[i].role, "candidate") == 0 && rs->inst[i].baseline_note[0]) {
			char names[NAMES_LEN] = "";
			for (size_t j = i; j < rs->ninst; j++)
				if (strcmp(rs->inst[j].baseline_note, rs->inst[i].baseline_note) == 0)
					add_distinct(names, sizeof names, shown_name(&rs->inst[j]));
			int said = 0;
			for (size_t j = 0; j < i && !said; j++)
				said = strcmp(rs->inst[j].baseline_note, rs->inst[i].baseline_note) == 0;
			if (!said)
				warn(w, "baseline", "%s: %s", names, rs->inst[i].baseline_note);
		}
	if (unknown[0])
		warn(w, "baseline", "no security category known for %s, so no baseline was measured for them: state "
		     "\"security_category\" in the descriptor, or run with --category NAME=N", unknown);
	if (nobase[0])
		warn(w, "baseline", "no baseline for %s: %s", nobase, missing ? missing : "the baseline scheme was not found");
}

static json_t *warnings_json(const struct record_set *rs)
{
	json_t *w = json_array();
	if (w) {
		warn_campaign(rs, w);
		warn_baselines(rs, w);
		warn_counters(rs, w);
		warn_contention(rs, w);
		warn_kat(rs, w);
	}
	return w;
}

json_t *report_summary(const struct record_set *rs)
{
	json_t *s = json_object(), *rows = json_array();
	if (!s || !rows) {
		json_decref(s);
		json_decref(rows);
		return NULL;
	}
	for (size_t i = 0; i < rs->ninst; i++)
		json_array_append_new(rows, row_json(rs, &rs->inst[i]));
	set(s, "command", str_or_null(command_of(rs)));
	set(s, "start_utc", str_or_null(jp_str(rs->campaign, "start_utc", jp_str(rs->environment, "start_utc", NULL))));
	set(s, "end_utc", str_or_null(jp_str(rs->campaign, "end_utc", jp_str(rs->environment, "end_utc", NULL))));
	set(s, "machine", machine_json(rs));
	set(s, "operations", operations_json(rs));
	set(s, "rows", rows);
	set(s, "baselines", yardsticks_json(rs));
	set(s, "warnings", warnings_json(rs));
	return s;
}

/* ---------------- as report blocks ---------------- */

/* "3.04 µs (n = 27,810)", "failed"; NULL when not measured. */
static const char *op_cell(const json_t *op, char *buf, size_t len)
{
	const char *status = jp_str(op, "status", NULL);
	if (!status || strcmp(status, "not measured") == 0)
		return NULL;
	if (strcmp(status, "complete") != 0)
		return status;
	char t[32], n[48];
	fmt_seconds(t, sizeof t, jp_num(op, "median_ns", NAN) * 1e-9);
	fmt_grouped(n, sizeof n, jp_num(op, "n", NAN));
	snprintf(buf, len, "%s (n = %s)", t, n);
	return buf;
}

/*
 * "32 / 64 / 96": public key, secret key, then signature or ciphertext.
 * buf holds SIZES_CELL_LEN: three figures of 31 bytes at most and two
 * separators always fit, so the cell cannot be cut.
 */
#define SIZES_CELL_LEN (3 * 31 + 2 * 3 + 1)
static void sizes_cell(const json_t *row, char *buf, size_t len)
{
	const char *keys[] = { "pk", "sk", strcmp(jp_str(row, "kind", ""), "kem") == 0 ? "ct" : "sig" };
	buf[0] = '\0';
	for (int i = 0; i < 3; i++) {
		char v[32] = "–";
		if (jp(row, "sizes") && isfinite(jp_num(jp(row, "sizes"), keys[i], NAN)))
			fmt_grouped(v, sizeof v, jp_num(jp(row, "sizes"), keys[i], NAN));
		text_appendf(buf, len, "%s%s", i ? " / " : "", v);
	}
}

/* "pk / sk / sig (bytes)", or ct for KEMs, or both words when the set holds both kinds. */
static void sizes_header(const json_t *rows, char *buf, size_t len)
{
	int sig = 0, kem = 0;
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) {
		if (strcmp(jp_str(r, "kind", ""), "kem") == 0)
			kem = 1;
		else
			sig = 1;
	}
	snprintf(buf, len, "pk / sk / %s (bytes)", sig && kem ? "sig or ct" : kem ? "ct" : "sig");
}

/*
 * A multiple, "1.93", "0.78", "0.0025": two decimals, two significant
 * digits below 0.1, never exponent notation (below 0.000001: "<0.000001").
 */

/* "1.93× (1.85–2.01)": the candidate's cost as a multiple of its baseline's; NULL when there is none. */
static const char *ratio_cell(const json_t *row, const char *op, char *buf, size_t len)
{
	const json_t *r = jp(jp(jp(row, "baseline"), "ops"), op);
	if (!r)
		return NULL;
	char v[32], lo[32], hi[32];
	fmt_multiple(v, sizeof v, jp_num(r, "ratio", NAN));
	fmt_multiple(lo, sizeof lo, jp_num(r, "lo", NAN));
	fmt_multiple(hi, sizeof hi, jp_num(r, "hi", NAN));
	snprintf(buf, len, "%.12s× (%.12s–%.12s)", v, lo, hi);
	return buf;
}

/* "0.02× / 0.03× / 0.04×": sizes as multiples of the baseline's; NULL when there is no baseline. */
static const char *size_ratio_cell(const json_t *row, char *buf, size_t len)
{
	const json_t *sz = jp(jp(row, "baseline"), "sizes");
	if (!sz)
		return NULL;
	const char *keys[] = { "pk", "sk", strcmp(jp_str(row, "kind", ""), "kem") == 0 ? "ct" : "sig" };
	buf[0] = '\0';
	for (int i = 0; i < 3; i++) {   /* 96 bytes hold three 31-byte figures and their separators */
		double v = jp_num(sz, keys[i], NAN);
		char f[32];
		fmt_multiple(f, sizeof f, v);
		text_appendf(buf, len, "%s%s%s", i ? " / " : "", isfinite(v) ? f : "–", isfinite(v) ? "×" : "");
	}
	return buf;
}

/*
 * The baseline every row with one is measured against ("ML-DSA-44"), or
 * "baseline" when rows have different ones; NULL when no row has one.
 */
static const char *common_baseline(const json_t *rows)
{
	const char *name = NULL;
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) {
		const char *b = jp_str(r, "baseline.instance", NULL);
		if (b && name && strcmp(b, name) != 0)
			return "baseline";
		if (b)
			name = b;
	}
	return name;
}

/* "ML-DSA-44 (baseline, FIPS 204)" for a baseline row, else the row's name. */
static const char *row_name(const json_t *row, char *buf, size_t len)
{
	const char *shown = jp_str(row, "shown", "?");
	if (strcmp(jp_str(row, "role", ""), "baseline") != 0)
		return shown;
	const char *std = jp_str(row, "standard", NULL);
	snprintf(buf, len, "%s (baseline%s%s)", shown, std ? ", " : "", std ? std : "");
	return buf;
}

/*
 * "Baseline ML-DSA-44 (FIPS 204): pqprof's in-tree ..., compiled by cc ...
 * with -O2 ...; KAT PASS; its own medians: keygen 70.4 µs, ...": the
 * yardstick of the × columns, so that a reader can quote and reproduce it.
 * One sentence per baseline: two baselines of one origin repeat no sentence.
 */
static void yardsticks_doc(const json_t *ys, rdoc *d)
{
	size_t i;
	json_t *y;
	json_array_foreach(ys, i, y) {
		char med[512] = "";
		const char *op;
		json_t *v;
		json_object_foreach(jp(y, "median_ns"), op, v) {
			char t[32];
			fmt_seconds(t, sizeof t, json_number_value(v) * 1e-9);
			text_appendf(med, sizeof med, "%s%s %s", med[0] ? ", " : "", op, t);
		}
		const char *std = jp_str(y, "standard", NULL), *kat = jp_str(y, "kat", "?");
		rdoc_item(d, "Baseline %s%s%s%s: %s, compiled by %s with %s; KAT %s%s; its own medians: %s.",
		          jp_str(y, "instance", "?"), std ? " (" : "", std ? std : "", std ? ")" : "",
		          jp_str(y, "origin", "origin not recorded"), jp_str(y, "compiler", "a compiler not recorded"),
		          jp_str(y, "cflags", "flags not recorded"), kat,
		          strcmp(kat, "PASS") == 0 ? "" : ": no ratios against it are given", med[0] ? med : "none measured");
	}
}

#define SUMMARY_COLS (2 * RS_MAX_OPS + 7)

static void summary_table(const json_t *s, rdoc *d)
{
	const json_t *ops = jp(s, "operations"), *rows = jp(s, "rows");
	int nops = (int)json_array_size(ops);
	if (nops > RS_MAX_OPS)
		nops = RS_MAX_OPS;
	const char *base = common_baseline(rows);
	int nrat = base ? nops + 1 : 0;  /* per operation, then sizes */
	char sizes_hdr[64], rat_hdr[RS_MAX_OPS + 1][160];
	sizes_header(rows, sizes_hdr, sizeof sizes_hdr);
	const char *hdr[SUMMARY_COLS] = { "instance", "profile", "KAT" };
	for (int k = 0; k < nops; k++)
		hdr[3 + k] = json_string_value(json_array_get(ops, (size_t)k));
	for (int k = 0; k < nrat; k++) {
		if (k < nops)
			snprintf(rat_hdr[k], sizeof rat_hdr[k], "%s × %s", hdr[3 + k] ? hdr[3 + k] : "?", base);
		else
			snprintf(rat_hdr[k], sizeof rat_hdr[k], "%.*s × %s", (int)(strlen(sizes_hdr) - strlen(" (bytes)")),
			         sizes_hdr, base);
		hdr[3 + nops + k] = rat_hdr[k];
	}
	hdr[3 + nops + nrat] = sizes_hdr;
	hdr[4 + nops + nrat] = "peak RSS";
	struct rd_table *t = rdoc_table(d, nops + nrat + 5, hdr);
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) {
		char opbuf[RS_MAX_OPS][96], ratbuf[RS_MAX_OPS + 1][96], sizes[SIZES_CELL_LEN], rss[32], name[RS_NAME + 128];
		const char *cells[SUMMARY_COLS] = { row_name(r, name, sizeof name), jp_str(r, "profile", NULL),
		                                    jp_str(r, "kat", NULL) };
		for (int k = 0; k < nops; k++)
			cells[3 + k] = op_cell(jp(jp(r, "ops"), hdr[3 + k] ? hdr[3 + k] : ""), opbuf[k], sizeof opbuf[k]);
		for (int k = 0; k < nrat; k++)
			cells[3 + nops + k] = k < nops ? ratio_cell(r, hdr[3 + k] ? hdr[3 + k] : "", ratbuf[k], sizeof ratbuf[k])
			                               : size_ratio_cell(r, ratbuf[k], sizeof ratbuf[k]);
		/* No ratio at all: the first × cell says why, rather than a bare dash. */
		const char *none = jp_str(jp(r, "baseline"), "no_ratios", NULL);
		char why[200];
		if (nrat && none)
			snprintf(why, sizeof why, "no ratio: %s", none);
		else if (nrat && jp_str(r, "no_baseline", NULL))
			snprintf(why, sizeof why, "no baseline: %s", jp_str(r, "no_baseline", ""));
		if (nrat && (none || jp_str(r, "no_baseline", NULL)))
			cells[3 + nops] = why;
		sizes_cell(r, sizes, sizeof sizes);
		fmt_bytes_binary(rss, sizeof rss, jp_num(r, "peak_rss_bytes", NAN));
		cells[3 + nops + nrat] = sizes;
		cells[4 + nops + nrat] = rss;
		rd_row(d, t, cells, 1u);
	}
	yardsticks_doc(jp(s, "baselines"), d);
	if (base)
		rdoc_para(d, "A × column gives a candidate's typical cost as a multiple of its baseline's, the standard "
		          "scheme of its security category (named above) benched in the same interleaved rounds, with a "
		          "95%% interval: "
		          "trial by trial, as pqprof compare pairs an interleaved run, in cycles where they were counted, "
		          "else in CPU time per call, so on a busy machine it can differ from the quotient of the wall "
		          "times beside it. Sizes are quotients of the declared sizes.");
}

void report_summary_doc(const json_t *s, rdoc *d)
{
	rdoc_heading(d, 2, "summary", "Summary");
	rdoc_item(d, "Command: %s", jp_str(s, "command", "not recorded"));
	const char *start = jp_str(s, "start_utc", NULL), *end = jp_str(s, "end_utc", NULL);
	if (start && end && strcmp(end, "unknown") != 0)
		rdoc_item(d, "Date (UTC): %s to %s", start, end);
	else
		rdoc_item(d, "Date (UTC): %s", start ? start : "not recorded");
	rdoc_item(d, "Machine: %s", jp_str(s, "machine.text", "not recorded"));
	summary_table(s, d);
	const json_t *w = jp(s, "warnings");
	if (!json_array_size(w))
		return;
	rdoc_para(d, "Warnings for the whole run:");
	size_t i;
	json_t *x;
	json_array_foreach(w, i, x)
		rdoc_item(d, "%s", jp_str(x, "text", "?"));
}
