/*
 * report_build: turns a record set into the report's blocks, section by
 * section in the order of the reference reports (basic information,
 * environment, KAT, performance, resources, sizes, symmetric primitives,
 * evidence), then the hotspots of every profiled operation.  Everything
 * printed is formatted with core/units.h so figures read like the
 * reference.  Missing records become "not measured" rows with the
 * campaign's step state rather than holes.
 */
#include "config.h"
#include "report/report_leak.h"
#include "report/report_compare.h"
#include "report/report.h"
#include "report/jpath.h"
#include "core/units.h"
#include "report/sizes_audit.h"
#include "measure/env.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_FUNCTIONS 12
#define TOP_LINES 8
#define TOP_LOOPS 3
#define MAX_FOOTNOTES 64
#define MAX_GROUPS 8

const char *report_bench_unit(const json_t *bench)
{
	if (jp_true(bench, "backend.counts_cycles"))
		return "cycles";
	const char *u = jp_str(bench, "backend.unit", NULL);
	/* A unit named "cycles" that the backend does not vouch for is not cycles. */
	if (u && strcmp(u, "cycles") == 0)
		return "units";
	return u;
}

void report_fmt_share(char *buf, size_t len, double share)
{
	double pct = share * 100.0;
	if (!isfinite(pct))
		snprintf(buf, len, "–");
	else if (pct < 9.95)
		snprintf(buf, len, "%.1f%%", pct);
	else
		snprintf(buf, len, "%.0f%%", pct);
}

static void fmt_share_ci(char *buf, size_t len, double s, double lo, double hi)
{
	char a[32], b[32], c[32];
	report_fmt_share(a, sizeof a, s);
	if (!isfinite(lo) || !isfinite(hi)) {
		snprintf(buf, len, "%s", a);
		return;
	}
	report_fmt_share(b, sizeof b, lo);
	report_fmt_share(c, sizeof c, hi);
	/* "4.1% (3.8–4.4%)": the lower bound shares the upper bound's percent sign. */
	size_t bl = strlen(b);
	if (bl && b[bl - 1] == '%')
		b[bl - 1] = '\0';
	snprintf(buf, len, "%s (%s–%s)", a, b, c);
}

/* Byte counts for stacks and heaps: exact below 10 KiB. */
static void fmt_bytes(char *buf, size_t len, double v)
{
	if (!isfinite(v) || v < 0)
		snprintf(buf, len, "–");
	else if (v < 10240)
		snprintf(buf, len, "%.0f B", v);
	else
		fmt_kib(buf, len, v);
}

/* The instance as rows name it: with its implementation version where the set holds several. */
static const char *row_name(const struct rs_instance *in)
{
	return in->shown[0] ? in->shown : in->name;
}

static const char *kind_of(const struct rs_instance *in)
{
	return jp_str(in->descriptor, "kind", jp_str(in->build, "instance.kind", NULL));
}

/* The failure text of a record: "failure" as a string or {kind, stage, reason}. */
static void failure_text(const json_t *rec, char *buf, size_t len)
{
	json_t *f = jp(rec, "failure");
	if (json_is_string(f)) {
		snprintf(buf, len, "%s", json_string_value(f));
	} else if (json_is_object(f)) {
		const char *kind = jp_str(f, "kind", NULL), *stage = jp_str(f, "stage", NULL);
		const char *reason = jp_str(f, "reason", "no reason recorded");
		snprintf(buf, len, "%s%s%s%s%s", kind ? kind : "", kind && stage ? " during " : "",
		         stage ? stage : "", kind || stage ? ": " : "", reason);
	} else {
		snprintf(buf, len, "no reason recorded");
	}
}

static int rec_failed(const json_t *rec)
{
	const char *st = jp_str(rec, "status", NULL);
	return st && strcmp(st, "failed") == 0;
}

/* Why a record is missing: the step state, or the build failure. */
static void missing_text(const struct rs_instance *in, const char *step, char *buf, size_t len)
{
	const char *b = rs_step(in, "build");
	if ((b && strcmp(b, "failed") == 0) || rec_failed(in->build)) {
		snprintf(buf, len, "not measured: build failed");
		return;
	}
	const char *s = rs_step(in, step);
	if (s)
		snprintf(buf, len, "not measured (step %s: %s)", step, s);
	else
		snprintf(buf, len, "not measured");
}

/* ---------------- title and section 1 ---------------- */

static void add_unique(const char **list, int *n, int max, const char *s)
{
	if (!s || !*s)
		return;
	for (int i = 0; i < *n; i++)
		if (strcmp(list[i], s) == 0)
			return;
	if (*n < max)
		list[(*n)++] = s;
}

static void join(char *buf, size_t len, const char **list, int n, const char *sep)
{
	buf[0] = '\0';
	size_t k = 0;
	for (int i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? sep : "", list[i]);
}

static const char *category_of(const struct record_set *rs)
{
	const char *c = jp_str(rs->campaign, "scheme.category", NULL);
	if (c)
		return c;
	for (size_t i = 0; i < rs->ninst; i++) {
		const char *k = kind_of(&rs->inst[i]);
		if (k)
			return strcmp(k, "kem") == 0 ? "key encapsulation" : "digital signature";
	}
	return "unknown";
}

static void section_title(const struct record_set *rs, rdoc *d)
{
	const char *name = jp_str(rs->campaign, "scheme.name", NULL);
	const char *title = jp_str(rs->campaign, "scheme.title", NULL);
	if (!name && rs->ninst)
		name = rs->inst[0].name;
	const char *machine = jp_str(rs->environment, "machine", NULL);
	if (machine && strcmp(machine, "x86_64") == 0)
		machine = "x86-64";
	const char *system = jp_str(rs->campaign, "system", NULL);
	char what[1024];
	snprintf(what, sizeof what, "%s%s%s", name ? name : "records", title && (!name || strcmp(title, name)) ? " " : "",
	         title && (!name || strcmp(title, name)) ? title : "");
	char where[512] = "";
	if (machine || system)
		snprintf(where, sizeof where, " — performance on %s%s%s%s", machine ? machine : "",
		         system ? (machine ? " (system " : "system ") : "", system ? system : "",
		         system && machine ? ")" : "");
	rdoc_heading(d, 1, "title", "%s%s", what, where);
	rdoc_para(d, "Independent measurement with pqprof %s, in the section order of the reference "
	          "performance reports. Every figure comes from a record listed in section 8.",
	          jp_str(rs->environment, "pqprof_version", PACKAGE_VERSION));
	const char *status = jp_str(rs->campaign, "status", NULL);
	if (status && strcmp(status, "complete") != 0)
		rdoc_para(d, "Campaign status: %s. Some steps did not finish; their rows say which.", status);
}

static void section_basic(const struct record_set *rs, rdoc *d)
{
	rdoc_heading(d, 2, "basic", "1. Basic information");
	const char *profiles[64], *names[256], *backends[16], *impls[64];
	int np = 0, nn = 0, nb = 0, ni = 0;
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		add_unique(profiles, &np, 64, in->profile[0] ? in->profile : jp_str(in->descriptor, "profile", NULL));
		add_unique(names, &nn, 256, in->name);
		add_unique(impls, &ni, 64, in->implementation);
		for (int k = 0; k < in->nops; k++)
			add_unique(backends, &nb, 16, jp_str(in->ops[k].bench, "backend.description",
			                                     jp_str(in->ops[k].bench, "backend.name", NULL)));
	}
	char buf[8192];
	const char *title = jp_str(rs->campaign, "scheme.title", jp_str(rs->campaign, "scheme.name", NULL));
	rdoc_item(d, "Category: public-key algorithm; function: %s", category_of(rs));
	rdoc_item(d, "Algorithm: %s", title ? title : (nn ? names[0] : "unknown"));
	join(buf, sizeof buf, profiles, np, ", ");
	if (ni) {
		/* Reference, optimized, ... as the package named them; the flag profiles after. */
		char ib[2048];
		join(ib, sizeof ib, impls, ni, ", ");
		rdoc_item(d, "Implementation versions measured: %s (flag profile%s %s)", ib, np == 1 ? "" : "s",
		          np ? buf : "unknown");
	} else {
		rdoc_item(d, "Implementation versions measured: %s", np ? buf : "unknown");
	}
	join(buf, sizeof buf, names, nn, ", ");
	rdoc_item(d, "Parameter sets: %s", nn ? buf : "none");
	join(buf, sizeof buf, backends, nb, "; ");
	rdoc_item(d, "Measurement method: pqprof %s; counter backend: %s",
	          jp_str(rs->environment, "pqprof_version", PACKAGE_VERSION), nb ? buf : "no timing records");
	const char *system = jp_str(rs->campaign, "system", NULL);
	if (system)
		rdoc_item(d, "System: %s", system);
}

/* ---------------- section 2 ---------------- */

/*
 * The library form each unit was measured in (instance/link_scope.h), from
 * its build record: locally bound calls, or plain -fPIC.
 */
static void section_env_linkage(const struct record_set *rs, rdoc *d)
{
	if (!rs->ninst)
		return;
	rdoc_para(d, "Library form: every instance is measured as a shared library. By default calls inside the "
	          "library bind locally (-fno-semantic-interposition -Wl,-Bsymbolic-functions), as in the "
	          "submitter's static programs; the plain -fPIC form (calls to exported functions through the PLT) "
	          "is what the reference reports' harness measured (pqprof run --plain-pic).");
	static const char *const hdr[] = { "instance", "profile", "library form" };
	struct rd_table *t = rdoc_table(d, 3, hdr);
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		char form[400];
		const char *f = jp_str(in->build, "linkage.form", NULL);
		if (f)
			snprintf(form, sizeof form, "%s: %s", f, jp_str(in->build, "linkage.summary", ""));
		else if (in->build && !jp(in->build, "flags"))
			snprintf(form, sizeof form, "prebuilt library: form not known");
		else
			snprintf(form, sizeof form, "not recorded (built before pqprof recorded the form: plain -fPIC)");
		const char *cells[] = { row_name(in), in->profile[0] ? in->profile : NULL, form };
		rd_row(d, t, cells, 0);
	}
}

static void section_env(const struct record_set *rs, rdoc *d)
{
	rdoc_heading(d, 2, "environment", "2. Assessment environment");
	if (!rs->environment) {
		rdoc_para(d, "No record carries the assessment environment.");
		return;
	}
	env_info env;
	if (env_from_json(rs->environment, &env, NULL) < 0) {
		rdoc_para(d, "The recorded environment could not be read.");
		return;
	}
	const char *s = jp_str(rs->campaign, "start_utc", NULL), *e = jp_str(rs->campaign, "end_utc", NULL);
	if (s)
		snprintf(env.start_utc, sizeof env.start_utc, "%s", s);
	if (e)
		snprintf(env.end_utc, sizeof env.end_utc, "%s", e);
	env_row rows[ENV_MAX_ROWS];
	int n = env_table(&env, rows, ENV_MAX_ROWS);
	static const char *const hdr[] = { "item", "value" };
	struct rd_table *t = rdoc_table(d, 2, hdr);
	for (int i = 0; i < n; i++) {
		const char *cells[] = { rows[i].item, rows[i].value };
		rd_row(d, t, cells, 0);
	}
	char warn[ENV_MAX_WARNINGS][ENV_WARNING_LEN];
	int nw = env_warnings(&env, warn, ENV_MAX_WARNINGS);
	if (nw) {
		char buf[ENV_MAX_WARNINGS * (ENV_WARNING_LEN + 2)];
		const char *list[ENV_MAX_WARNINGS];
		for (int i = 0; i < nw; i++)
			list[i] = warn[i];
		join(buf, sizeof buf, list, nw, "; ");
		rdoc_para(d, "Caveats: %s.", buf);
	}
	section_env_linkage(rs, d);
}

/* ---------------- section 3 ---------------- */

struct footnotes {
	char *text[MAX_FOOTNOTES];
	int n;
};

/* The footnote number of text (1-based), shared by identical texts. */
static int footnote(struct footnotes *f, const char *text)
{
	for (int i = 0; i < f->n; i++)
		if (strcmp(f->text[i], text) == 0)
			return i + 1;
	if (f->n == MAX_FOOTNOTES)
		return f->n;
	f->text[f->n] = strdup(text);
	if (!f->text[f->n])
		return 0;
	return ++f->n;
}

static void kat_explanation(const struct rs_instance *in, char *buf, size_t len)
{
	size_t k = 0;
	if (!in->kat) {
		const char *b = rs_step(in, "build");
		if ((b && strcmp(b, "failed") == 0) || rec_failed(in->build)) {
			char why[1024];
			failure_text(in->build, why, sizeof why);
			snprintf(buf, len, "Build failed: %s", why);
		} else {
			const char *s = rs_step(in, "kat");
			snprintf(buf, len, "No KAT record%s%s%s.", s ? " (step kat: " : "", s ? s : "", s ? ")" : "");
		}
		return;
	}
	const char *v = jp_str(in->kat, "outcome.verdict", "unknown");
	const char *reason = jp_str(in->kat, "outcome.reason", "");
	k += (size_t)snprintf(buf + k, len - k, "%s: %s", v, reason[0] ? reason : "no reason recorded");
	if (k < len && reason[0] && reason[strlen(reason) - 1] != '.')
		k += (size_t)snprintf(buf + k, len - k, ".");
	json_t *notes = jp(in->kat, "outcome.notes");
	size_t i;
	json_t *n;
	int first = 1;
	json_array_foreach(notes, i, n) {
		if (!json_is_string(n) || k >= len)
			continue;
		k += (size_t)snprintf(buf + k, len - k, "%s%s", first ? " API deviations and notes: " : "; ",
		                      json_string_value(n));
		first = 0;
	}
	if (!first && k < len)
		k += (size_t)snprintf(buf + k, len - k, ".");
	double rec = jp_num(in->kat, "outcome.record", -1);
	const char *field = jp_str(in->kat, "outcome.field", "");
	if (rec >= 0 && k < len)
		k += (size_t)snprintf(buf + k, len - k, " First difference: record %.0f%s%s.", rec,
		                      field[0] ? ", field " : "", field);
	/* The whole difference, when the file was at hand (kat/kat_forensics.h). */
	const char *why = jp_str(in->kat, "forensics.text", "");
	if (why[0] && k < len)
		snprintf(buf + k, len - k, " %s", why);
}

static void section_kat(const struct record_set *rs, rdoc *d)
{
	rdoc_heading(d, 2, "kat", "3. Functional testing (KAT)");
	rdoc_para(d, "Each library was checked against its known-answer test vectors before timing; the KAT "
	          "record and log of each instance are listed in section 8.");
	static const char *const hdr[] = { "instance", "build flags", "KAT" };
	struct rd_table *t = rdoc_table(d, 3, hdr);
	struct footnotes fn = { .n = 0 };
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		char verdict[128], expl[4096];
		const char *flags = in->profile[0] ? in->profile : jp_str(in->descriptor, "cflags", NULL);
		if (rs_validated(in)) {
			snprintf(verdict, sizeof verdict, "PASS");
		} else {
			kat_explanation(in, expl, sizeof expl);
			int num = footnote(&fn, expl);
			const char *b = rs_step(in, "build");
			int build_failed = (b && strcmp(b, "failed") == 0) || rec_failed(in->build);
			snprintf(verdict, sizeof verdict, "%s [%d]",
			         in->kat ? jp_str(in->kat, "outcome.verdict", "unknown") : build_failed ? "BUILD" : "not run",
			         num);
		}
		const char *cells[] = { row_name(in), flags, verdict };
		rd_row(d, t, cells, 1u);
	}
	for (int i = 0; i < fn.n; i++) {
		rdoc_para(d, "[%d] %s", i + 1, fn.text[i]);
		free(fn.text[i]);
	}
	if (fn.n)
		rdoc_para(d, "These instances are timed anyway; their output is not validated.");
	/* Instances that passed can still deviate from the API (a key from another process refused...). */
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		if (!rs_validated(in))
			continue;
		size_t k;
		json_t *n;
		json_array_foreach(jp(in->kat, "outcome.notes"), k, n)
			if (json_is_string(n))
				rdoc_para(d, "API deviation, %s: %s.", row_name(in), json_string_value(n));
	}
}

/* ---------------- section 4 ---------------- */

/* The profile column of sections 4-9: the flag profile an instance was built with. */
static const char *profile_cell(const struct rs_instance *in)
{
	return in->profile[0] ? in->profile : NULL;
}

/* "2 of 5 (median +1.3% without)": the trials the contention rule flagged, and their effect. */
static void contended_text(const json_t *b, char *buf, size_t len)
{
	double n = jp_num(b, "contention.trials", NAN), k = jp_num(b, "contention.trials_flagged", NAN);
	if (!isfinite(n) || !isfinite(k)) {
		snprintf(buf, len, "–");
		return;
	}
	double ch = jp_num(b, "contention.median_change_without_flagged", NAN);
	if (k > 0 && isfinite(ch))
		snprintf(buf, len, "%.0f of %.0f (median %+.1f%% without)", k, n, 100.0 * ch);
	else if (k > 0 && k == n)
		snprintf(buf, len, "%.0f of %.0f (all)", k, n);
	else
		snprintf(buf, len, "%.0f of %.0f", k, n);
}

/* The unit every complete timing record shares; NULL when they differ, "" when there are none. */
static const char *common_unit(const struct record_set *rs)
{
	const char *u = "";
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++) {
			const json_t *b = rs->inst[i].ops[k].bench;
			const char *x = b && !rec_failed(b) ? report_bench_unit(b) : NULL;
			if (!x)
				continue;
			if (!u[0])
				u = x;
			else if (strcmp(u, x) != 0)
				return NULL;
		}
	return u;
}

static void perf_row(const struct rs_instance *in, const struct rs_op *o, int mixed, rdoc *d, struct rd_table *t)
{
	char med[96] = "–", tm[32] = "–", mn[96] = "–", ops[32] = "–", mean[96] = "–", cont[64] = "–", n[1200] = "–";
	const json_t *b = o ? o->bench : NULL;
	if (!b) {
		missing_text(in, "bench", n, sizeof n);
	} else if (rec_failed(b) || !jp(b, "summary")) {
		char why[1024];
		failure_text(b, why, sizeof why);
		snprintf(n, sizeof n, "failed: %s", why);
	} else {
		/* Records from before the median headline have only the mean: their median cells stay "–". */
		if (isfinite(jp_num(b, "summary.median_units", NAN)))
			fmt_count(med, sizeof med, jp_num(b, "summary.median_units", NAN));
		if (isfinite(jp_num(b, "summary.median_ns", NAN)))
			fmt_seconds(tm, sizeof tm, jp_num(b, "summary.median_ns", NAN) * 1e-9);
		fmt_count(mn, sizeof mn, jp_num(b, "summary.min_units", NAN));
		fmt_count(mean, sizeof mean, jp_num(b, "summary.mean_units", NAN));
		if (mixed) {
			const char *u = report_bench_unit(b) ? report_bench_unit(b) : "units";
			char *cells[] = { med, mn, mean };
			for (int c = 0; c < 3; c++)
				if (strcmp(cells[c], "–") != 0) {
					size_t k = strlen(cells[c]);
					snprintf(cells[c] + k, 96 - k, " %s", u);
				}
		}
		fmt_sig3(ops, sizeof ops, jp_num(b, "summary.ops_per_s", NAN));
		contended_text(b, cont, sizeof cont);
		snprintf(n, sizeof n, "%.0f (%.0f × %.0f)", jp_num(b, "summary.n", NAN), jp_num(b, "summary.trials", NAN),
		         jp_num(b, "summary.iters", NAN));
	}
	const char *cells[] = { row_name(in), profile_cell(in), o ? o->op : "–", med, tm, mn, ops, mean, cont, n };
	rd_row(d, t, cells, 1u);
	if (!rs_validated(in))
		rd_suffix(d, t, 0, " (output not validated)");
}

/*
 * The interposition check (campaign/interpose_check.h): how much slower the
 * plain -fPIC library is than the locally bound one, per instance, so a
 * reader comparing with a reference report knows how much of a difference
 * is the harness's library form.
 */
static void section_perf_interposition(const struct record_set *rs, rdoc *d)
{
	struct rd_table *t = NULL;
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		if (!in->interposition)
			continue;
		rdoc_para(d, "Interposition check, %s%s%s: %s.", row_name(in), in->profile[0] ? " / " : "", in->profile,
		          jp_str(in->interposition, "statement", "no statement"));
		if (!t) {
			static const char *const hdr[] = { "instance", "profile", "operation", "plain / local",
			                                   "95% interval", "rounds", "measure", "beyond the noise" };
			t = rdoc_table(d, 8, hdr);
		}
		const char *op;
		json_t *e;
		json_object_foreach(json_object_get(in->interposition, "ops"), op, e) {
			char f[32] = "–", ci[64] = "–", n[16] = "–";
			const char *why = jp_str(e, "failure", NULL);
			if (!why) {
				snprintf(f, sizeof f, "%.2fx", jp_num(e, "factor", NAN));
				snprintf(ci, sizeof ci, "%.2f–%.2f", jp_num(e, "lo", NAN), jp_num(e, "hi", NAN));
				snprintf(n, sizeof n, "%.0f", jp_num(e, "rounds", NAN));
			}
			const char *cells[] = { row_name(in), in->profile[0] ? in->profile : NULL, op, f, ci, n,
			                        why ? why : jp_str(e, "measure", "–"),
			                        why ? "–" : json_is_true(json_object_get(e, "beyond_noise")) ? "yes" : "no" };
			rd_row(d, t, cells, 0);
		}
	}
}

/* What schemes printed while timed: the amount only (the text is in the job's log). */
static void section_perf_output(const struct record_set *rs, rdoc *d)
{
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		for (int k = 0; k < in->nops; k++) {
			const char *note = jp_str(in->ops[k].bench, "scheme_output.note", NULL);
			if (!note)
				continue;
			const char *log = jp_str(in->ops[k].bench, "scheme_output.log", NULL);
			rdoc_para(d, "Scheme output, %s%s%s: %s; it is kept out of these figures and records%s%s%s.",
			          row_name(in), in->profile[0] ? " / " : "", in->profile, note, log ? " (text: " : "",
			          log ? log : "", log ? ")" : "");
		}
	}
}

static void section_perf(const struct record_set *rs, rdoc *d)
{
	rdoc_heading(d, 2, "performance", "4. Performance");
	const char *unit = common_unit(rs);
	const char *uname = !unit || !unit[0] ? "count" : unit;
	char med_hdr[96], min_hdr[96], mean_hdr[96];
	snprintf(med_hdr, sizeof med_hdr, "median %s", uname);
	snprintf(min_hdr, sizeof min_hdr, "min %s", uname);
	snprintf(mean_hdr, sizeof mean_hdr, "mean %s", uname);
	double mlen = NAN;
	for (size_t i = 0; i < rs->ninst && !isfinite(mlen); i++)
		for (int k = 0; k < rs->inst[i].nops && !isfinite(mlen); k++)
			mlen = jp_num(rs->inst[i].ops[k].bench, "message_bytes", NAN);
	rdoc_para(d, "Each operation was calibrated with one call, then run in trials of about the same length, each "
	          "trial in a fresh process; signatures are made over a %.0f-byte message. n is trials × iterations. "
	          "The trials of all instances and profiles ran interleaved, round-robin. The headline figures are "
	          "the median and the minimum of the per-call values; the mean is kept, but slow spells of the "
	          "machine pull it; ops/s is one over the median time.",
	          isfinite(mlen) ? mlen : 64.0);
	/* Operations of seconds under a per-operation budget: their n is what the budget allowed. */
	double budget = NAN;
	int limited = 0;
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++) {
			const json_t *b = rs->inst[i].ops[k].bench;
			double ob = jp_num(b, "calibration.op_budget_s", NAN);
			if (isfinite(ob) && (!isfinite(budget) || ob > budget))
				budget = ob;
			limited += json_is_true(jp(b, "calibration.budget_limited"));
		}
	if (isfinite(budget))
		rdoc_para(d, "Each operation had a budget of %g s for all its trials; iterations per trial follow the "
		          "length of one call, so an operation of seconds gets fewer of them (the reference harness "
		          "ran 5 × 8 calls of a 21 s keygen). %d operation%s reached fewer than the usual 100 calls; "
		          "their n column is what the budget allowed.",
		          budget, limited, limited == 1 ? "" : "s");
	rdoc_para(d, "Contended trials: a trial is flagged when its CPU time was under 0.90 of its wall time, when it "
	          "was preempted more than 10 times per second (at least twice), or when the hypervisor stole time "
	          "from its CPU; the column gives how many trials were flagged and how the median changes when they "
	          "are left out (each record keeps both).");
	if (!unit)
		rdoc_para(d, "The timing records do not share one unit, so each figure carries its own unit; "
		          "only \"cycles\" are CPU cycles.");
	else if (unit[0] && strcmp(unit, "cycles") != 0)
		rdoc_para(d, "No hardware cycle counter was used for these figures: the median, minimum and mean columns "
		          "count %s, not CPU cycles.", unit);
	section_perf_interposition(rs, d);
	section_perf_output(rs, d);
	const char *hdr[] = { "instance", "profile", "operation", med_hdr, "median time", min_hdr, "ops/s", mean_hdr,
	                      "contended trials", "n (trials × iters)" };
	struct rd_table *t = rdoc_table(d, 10, hdr);
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		if (!in->nops)
			perf_row(in, NULL, !unit, d, t);
		for (int k = 0; k < in->nops; k++)
			perf_row(in, &in->ops[k], !unit, d, t);
	}
	if (!unit || !unit[0])
		return;
	/* One chart per operation, across instances. */
	for (int opi = 0; opi < RS_MAX_OPS; opi++) {
		struct rd_chart *c = NULL;
		for (size_t i = 0; i < rs->ninst; i++) {
			const struct rs_op *o = rs_find_op(&rs->inst[i], pq_op_name(opi));
			const json_t *b = o && !rec_failed(o->bench) ? o->bench : NULL;
			double v = jp_num(b, "summary.median_units", NAN);
			if (!isfinite(v))
				v = jp_num(b, "summary.mean_units", NAN);
			if (!isfinite(v) || v <= 0)
				continue;
			if (!c) {
				char title[128], axis[160];
				snprintf(title, sizeof title, "%s: median %s per call", pq_op_name(opi), unit);
				snprintf(axis, sizeof axis, "median %s per call", unit);
				c = rdoc_chart(d, title, axis, 0);
			}
			char label[2 * RS_NAME + 4];
			snprintf(label, sizeof label, "%s%s%s", rs->inst[i].name, rs->inst[i].profile[0] ? " / " : "",
			         rs->inst[i].profile);
			rd_bar(d, c, label, v);
		}
	}
}

/* ---------------- section 5 ---------------- */

static double static_image(const struct rs_instance *in, const struct rs_op *o)
{
	double v = o ? jp_num(o->memory, "static_image_bytes", -1) : -1;
	if (v < 0)
		v = jp_num(in->sizes, "elf.image_memsz", -1);
	if (v < 0)
		v = jp_num(in->sizes, "static_image_bytes", -1);
	return v;
}

static void section_memory(const struct record_set *rs, rdoc *d)
{
	rdoc_heading(d, 2, "resources", "5. Resource consumption");
	rdoc_para(d, "Static memory is approximated by the library's loadable ELF segments; peak memory is the "
	          "process high-water mark (VmHWM) including the benchmark driver and libc, so both are "
	          "upper-bound proxies rather than isolated algorithm memory. Beyond the reference, stack is the "
	          "call's high-water mark on a painted stack and heap is the peak of the call's own live "
	          "allocations.");
	static const char *const hdr[] = { "instance", "profile", "operation", "static: ELF image (bytes)",
	                                   "baseline RSS", "peak RSS", "stack", "heap peak", "allocations" };
	struct rd_table *t = rdoc_table(d, 9, hdr);
	struct rd_chart *chart = NULL;
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		for (int k = 0; k < (in->nops ? in->nops : 1); k++) {
			const struct rs_op *o = in->nops ? &in->ops[k] : NULL;
			const json_t *m = o ? o->memory : NULL;
			char img[32] = "–", base[32] = "–", peak[1200] = "–", st[32] = "–", heap[32] = "–", al[32] = "–";
			double si = static_image(in, o);
			if (si >= 0)
				snprintf(img, sizeof img, "%.0f", si);
			if (!m) {
				missing_text(in, "mem", peak, sizeof peak);
			} else if (rec_failed(m)) {
				char why[1024];
				failure_text(m, why, sizeof why);
				snprintf(peak, sizeof peak, "failed: %s", why);
			} else {
				fmt_kib(base, sizeof base, jp_num(m, "memory.baseline_rss", NAN));
				fmt_kib(peak, sizeof peak, jp_num(m, "memory.peak_rss", NAN));
				fmt_bytes(st, sizeof st, jp_num(m, "memory.stack.used", NAN));
				if (jp_true(m, "memory.heap.available")) {
					fmt_bytes(heap, sizeof heap, jp_num(m, "memory.heap.peak_live_bytes", NAN));
					snprintf(al, sizeof al, "%.0f", jp_num(m, "memory.heap.allocs", NAN));
				} else {
					snprintf(heap, sizeof heap, "n/a");
				}
				double pk = jp_num(m, "memory.peak_rss", NAN);
				if (isfinite(pk) && pk > 0) {
					if (!chart)
						chart = rdoc_chart(d, "peak RSS per instance and operation", "peak RSS (KiB)", 1);
					char label[3 * RS_NAME + 32];
					snprintf(label, sizeof label, "%s%s%s %s", row_name(in), in->profile[0] ? " / " : "",
					         in->profile, o->op);
					rd_bar(d, chart, label, pk);
				}
			}
			const char *cells[] = { row_name(in), profile_cell(in), o ? o->op : "–", img, base, peak, st, heap, al };
			rd_row(d, t, cells, 1u);
		}
	}
}

/* ---------------- section 6 ---------------- */

/*
 * Which tables make a large static image: per instance whose read-only
 * data is a megabyte or more, its largest .rodata objects by symbol (the
 * sizes record keeps the largest symbols of the library).
 */
#define RODATA_NAMED_MIN (1u << 20)
static void rodata_tables(const struct record_set *rs, rdoc *d)
{
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		double ro = jp_num(in->sizes, "elf.sections.rodata", NAN);
		if (!(ro >= RODATA_NAMED_MIN))
			continue;
		char list[1024];
		size_t k = 0;
		int shown = 0;
		size_t j;
		json_t *sym;
		list[0] = '\0';
		json_array_foreach(jp(in->sizes, "elf.top_symbols"), j, sym) {
			const char *kind = json_string_value(json_object_get(sym, "kind"));
			const char *name = json_string_value(json_object_get(sym, "name"));
			double sz = json_number_value(json_object_get(sym, "size"));
			if (!kind || !name || strcmp(kind, "rodata") != 0 || shown == 3 || k >= sizeof list)
				continue;
			k += (size_t)snprintf(list + k, sizeof list - k, "%s%s %.0f bytes (%.1f%%)", shown ? ", " : "", name, sz,
			                      100.0 * sz / ro);
			shown++;
		}
		rdoc_item(d, "%s: %.0f bytes of read-only data (.rodata) in a static image of %.0f bytes; largest "
		          "tables: %s.", row_name(in), ro, jp_num(in->sizes, "elf.image_memsz", NAN),
		          shown ? list : "none named (no symbol table)");
	}
}

static void section_sizes(const struct record_set *rs, rdoc *d)
{
	rdoc_heading(d, 2, "sizes", "6. Transmission and storage overhead");
	int sig = 0, kem = 0;
	for (size_t i = 0; i < rs->ninst; i++) {
		const char *k = kind_of(&rs->inst[i]);
		if (k && strcmp(k, "kem") == 0)
			kem = 1;
		else
			sig = 1;
	}
	rdoc_para(d, "Sizes in bytes as each instance declares them through its API; the produced lengths were "
	          "sampled over many seeds, and the size audit lists every disagreement.");
	const char *hdr[7] = { "instance", "profile", "public key", "secret key" };
	const char *keys[7] = { NULL, NULL, "pk", "sk" };
	int nc = 4;
	if (sig) {
		hdr[nc] = "signature";
		keys[nc++] = "sig";
	}
	if (kem) {
		hdr[nc] = "ciphertext";
		keys[nc++] = "ct";
		hdr[nc] = "shared secret";
		keys[nc++] = "ss";
	}
	struct rd_table *t = rdoc_table(d, nc, hdr);
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		char val[7][32];
		const char *cells[7] = { row_name(in), profile_cell(in) };
		for (int c = 2; c < nc; c++) {
			char path[32];
			snprintf(path, sizeof path, "%s.declared", keys[c]);
			double v = jp_num(in->sizes, path, NAN);
			if (!isfinite(v)) {
				snprintf(path, sizeof path, "sizes.%s", keys[c]);
				v = jp_num(in->descriptor, path, NAN);
			}
			snprintf(val[c], sizeof val[c], "%.0f", v);
			cells[c] = isfinite(v) && v > 0 ? val[c] : NULL;
		}
		rd_row(d, t, cells, 1u);
	}
	rodata_tables(rs, d);
	int audits = 0, have = 0;
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		if (!in->sizes)
			continue;
		have = 1;
		if (rec_failed(in->sizes)) {
			char why[1024];
			failure_text(in->sizes, why, sizeof why);
			rdoc_item(d, "%s: size sampling failed: %s", row_name(in), why);
			audits++;
			continue;
		}
		json_t *audit = jp(in->sizes, "audit");
		if (json_is_array(audit)) {
			size_t k;
			json_t *line;
			json_array_foreach(audit, k, line)
				if (json_is_string(line)) {
					rdoc_item(d, "size audit, %s: %s", row_name(in), json_string_value(line));
					audits++;
				}
		} else {
			/* Records written without their audit (the campaign's sizes step): derive it. */
			char lines[8][256];
			int n = sizes_audit((json_t *)in->sizes, lines, 8);
			for (int k = 0; k < n; k++)
				rdoc_item(d, "size audit, %s: %s", row_name(in), lines[k]);
			audits += n;
		}
	}
	if (have && !audits)
		rdoc_para(d, "Size audit: the produced sizes agree with the declared ones for every instance.");
	else if (!have)
		rdoc_para(d, "No sizes records: the sizes above are the declared ones from the instance descriptors.");
}

/* ---------------- section 7 ---------------- */

#define NA_TEXT "n/a (no such function)"
#define MAX_FAMILIES 8

static void group_header(const char *name, char *buf, size_t len)
{
	if (strcmp(name, "hash") == 0)
		snprintf(buf, len, "pseudohash/XOF/sm3 (95%% interval)");
	else if (strcmp(name, "drng") == 0)
		snprintf(buf, len, "DRNG (95%% interval)");
	else
		snprintf(buf, len, "%s share (95%% interval)", name);
}

/* The element of array `key` of p whose "name" is name, or NULL. */
static json_t *named(const json_t *p, const char *key, const char *name)
{
	size_t i;
	json_t *e;
	json_array_foreach(jp(p, key), i, e)
		if (strcmp(jp_str(e, "name", ""), name) == 0)
			return e;
	return NULL;
}

/*
 * Is the group's or family's function in the library?  Records made
 * before pqprof looked say nothing: then what was sampled decides.
 */
static int is_present(const json_t *g)
{
	json_t *p = jp(g, "present");
	if (json_is_boolean(p))
		return json_is_true(p);
	return 1;
}

/* A share cell: "n/a (no such function)" when nothing matches, never a measured 0%. */
static const char *share_cell(const json_t *g, char *buf, size_t len)
{
	if (!g)
		return NULL;
	if (!is_present(g)) {
		snprintf(buf, len, NA_TEXT);
		return buf;
	}
	fmt_share_ci(buf, len, jp_num(g, "share", NAN), jp_num(g, "lo", NAN), jp_num(g, "hi", NAN));
	return buf;
}

static int cmp_call(const void *a, const void *b)
{
	const char *x = jp_str(*(json_t *const *)a, "name", ""), *y = jp_str(*(json_t *const *)b, "name", "");
	return strcmp(x, y);
}

/* "pseudoXOF 36,912, pseudohash 102", sorted by name; zero counts left out. */
static void calls_text(const json_t *prof, char *buf, size_t len)
{
	json_t *calls = jp(prof, "calls");
	if (!calls) {
		snprintf(buf, len, "–");
		return;
	}
	if (!jp_true(calls, "available")) {
		snprintf(buf, len, "unavailable: %s", jp_str(calls, "reason", "no reason recorded"));
		return;
	}
	json_t *fns = jp(calls, "functions");
	size_t n = json_array_size(fns), k = 0;
	json_t **v = calloc(n ? n : 1, sizeof *v);
	if (!v) {
		snprintf(buf, len, "–");
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (json_is_object(json_array_get(fns, i)))
			v[k++] = json_array_get(fns, i);
	qsort(v, k, sizeof *v, cmp_call);
	size_t w = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < k && w < len; i++) {
		double c = jp_num(v[i], "calls_per_op", NAN);
		if (!isfinite(c) || c <= 0)
			continue;
		char num[64];
		fmt_readable(num, sizeof num, c);
		w += (size_t)snprintf(buf + w, len - w, "%s%s %s", w ? ", " : "", jp_str(v[i], "name", "?"), num);
	}
	free(v);
	if (!buf[0])
		snprintf(buf, len, "–");
}

#define MAX_GLUE 8

/* What the profiled operations of one instance say about its hash functions. */
struct survey {
	int profiled;                  /* some operation has a profile record */
	int nist;                      /* NIST API: the ICCS rule does not apply */
	int iccs_present, iccs_used;   /* the placeholder functions (group "hash") */
	char iccs_names[256];          /* placeholder functions that ran */
	unsigned own_present, own_used;
	const char *own_label[MAX_FAMILIES];
	const char *own_example[MAX_FAMILIES];
	int nfam;
	/* Where the scheme's code calls the placeholder functions (the hash group's "callers"). */
	struct glue_src {
		const char *where;         /* source file, else the calling function */
		int is_file;
		char calls[128];           /* placeholder functions it calls */
	} glue[MAX_GLUE];
	int nglue;
	char verdict[32];
	char reason[1024];
};

static void add_name(char *buf, size_t len, const char *name)
{
	if (!name || strstr(buf, name))
		return;
	size_t l = strlen(buf);
	snprintf(buf + l, len - l, "%s%s", l ? ", " : "", name);
}

/* The hash group's callers (profile record: groups[].callers), one entry per file, else per function. */
static void survey_glue(struct survey *sv, const json_t *h)
{
	size_t i, j;
	json_t *c, *callee;
	json_array_foreach(jp(h, "callers"), i, c) {
		const char *file = jp_str(c, "file", NULL), *fn = jp_str(c, "function", NULL);
		const char *where = file ? file : fn;
		if (!where)
			continue;
		int at = -1;
		for (int k = 0; k < sv->nglue && at < 0; k++)
			if (strcmp(sv->glue[k].where, where) == 0)
				at = k;
		if (at < 0 && sv->nglue < MAX_GLUE) {
			at = sv->nglue++;
			sv->glue[at] = (struct glue_src){ .where = where, .is_file = file != NULL };
		}
		if (at < 0)
			continue;
		json_array_foreach(jp(c, "calls"), j, callee)
			add_name(sv->glue[at].calls, sizeof sv->glue[at].calls, json_string_value(callee));
	}
}

static void survey_op(struct survey *sv, const json_t *p)
{
	sv->profiled = 1;
	const json_t *h = named(p, "groups", "hash");
	if (h && is_present(h))
		sv->iccs_present = 1;
	if (h && jp_num(h, "samples", 0) > 0)
		sv->iccs_used = 1;
	if (h)
		survey_glue(sv, h);
	/* Exact counts see calls too short to be sampled. */
	size_t i;
	json_t *f;
	json_array_foreach(jp(p, "calls.functions"), i, f) {
		const char *nm = jp_str(f, "name", "");
		if ((strcmp(nm, "pseudohash") == 0 || strcmp(nm, "pseudoXOF") == 0 || strcmp(nm, "sm3hash") == 0) &&
		    jp_num(f, "calls_per_op", 0) > 0) {
			sv->iccs_used = 1;
			add_name(sv->iccs_names, sizeof sv->iccs_names, nm);
		}
	}
	json_array_foreach(jp(p, "families"), i, f) {
		if (i >= MAX_FAMILIES)
			break;
		if ((int)i >= sv->nfam)
			sv->nfam = (int)i + 1;
		sv->own_label[i] = jp_str(f, "label", jp_str(f, "name", "?"));
		if (jp_true(f, "present"))
			sv->own_present |= 1u << i;
		if (jp_num(f, "samples", 0) > 0) {
			sv->own_used |= 1u << i;
			if (!sv->own_example[i])
				sv->own_example[i] = jp_str(f, "example", NULL);
		}
	}
}

static void families_text(const struct survey *sv, unsigned mask, int examples, char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int f = 0; f < sv->nfam && k < len; f++)
		if (mask >> f & 1u)
			k += (size_t)snprintf(buf + k, len - k, "%s%s%s%s%s", k ? ", " : "", sv->own_label[f],
			                      examples && sv->own_example[f] ? " (" : "",
			                      examples && sv->own_example[f] ? sv->own_example[f] : "",
			                      examples && sv->own_example[f] ? ")" : "");
}

/* A glue source that calls a placeholder function that ran (any, when none was counted). */
static int glue_ran(const struct survey *sv, const struct glue_src *g)
{
	if (!sv->iccs_names[0])
		return 1;
	char calls[sizeof g->calls];
	snprintf(calls, sizeof calls, "%s", g->calls);
	for (char *save = NULL, *c = strtok_r(calls, ", ", &save); c; c = strtok_r(NULL, ", ", &save)) {
		char names[sizeof sv->iccs_names];
		snprintf(names, sizeof names, "%s", sv->iccs_names);
		for (char *s2 = NULL, *n = strtok_r(names, ", ", &s2); n; n = strtok_r(NULL, ", ", &s2))
			if (strcmp(c, n) == 0)
				return 1;
	}
	return 0;
}

/*
 * "xof glue in src/iccs/xof_glue.c": the source files (functions, without
 * DWARF) that call the placeholder functions, named by what they route
 * there (pseudoXOF: xof; pseudohash, sm3hash: hash).  "" when the records
 * hold no callers (made before pqprof looked, or the library is gone).
 */
static void glue_text(const struct survey *sv, char *buf, size_t len)
{
	int xof = 0, hash = 0, n = 0, files = 1;
	char where[512] = "";
	buf[0] = '\0';
	for (int i = 0; i < sv->nglue; i++) {
		const struct glue_src *g = &sv->glue[i];
		if (!glue_ran(sv, g))
			continue;
		if (++n <= 3)
			add_name(where, sizeof where, g->where);
		files &= g->is_file;
		xof |= strstr(g->calls, "XOF") != NULL || strstr(g->calls, "xof") != NULL;
		hash |= strstr(g->calls, "hash") != NULL;
	}
	if (!n)
		return;
	const char *kind = xof && hash ? "hash/xof" : xof ? "xof" : "hash";
	if (n > 3)
		snprintf(buf, len, "%s glue in %s and %d more %s", kind, where, n - 3, files ? "files" : "functions");
	else
		snprintf(buf, len, "%s glue in %s%s", kind, where, files ? "" : " (no DWARF line table: functions)");
}

/* The rule is in the README ("Symmetric primitives") and pqprof(1). */
static void survey_verdict(struct survey *sv)
{
	char own[256], unused[256], glue[700];
	families_text(sv, sv->own_used, 1, own, sizeof own);
	families_text(sv, sv->own_present & ~sv->own_used, 0, unused, sizeof unused);
	glue_text(sv, glue, sizeof glue);
	const char *names = sv->iccs_names[0] ? sv->iccs_names : "pseudohash/pseudoXOF/sm3hash";
	if (sv->nist) {
		snprintf(sv->verdict, sizeof sv->verdict, "not applicable");
		snprintf(sv->reason, sizeof sv->reason, "NIST API, outside the ICCS placeholder rule%s%s",
		         own[0] ? "; own " : "", own);
	} else if (sv->iccs_used && sv->own_used) {
		snprintf(sv->verdict, sizeof sv->verdict, "mixed");
		snprintf(sv->reason, sizeof sv->reason, "ICCS placeholder functions (%s%s%s) and own %s both run", names,
		         glue[0] ? ", through the " : "", glue, own);
	} else if (sv->iccs_used) {
		snprintf(sv->verdict, sizeof sv->verdict, "ICCS-only");
		if (glue[0])
			snprintf(sv->reason, sizeof sv->reason, "%s (%s)", glue, names);
		else
			snprintf(sv->reason, sizeof sv->reason, "hashing through %s", names);
		size_t k = strlen(sv->reason);
		if (unused[0])
			snprintf(sv->reason + k, sizeof sv->reason - k, "; own %s present but unused", unused);
	} else if (sv->own_used) {
		snprintf(sv->verdict, sizeof sv->verdict, "bypass");
		snprintf(sv->reason, sizeof sv->reason, "own %s; %s", own,
		         sv->iccs_present ? "the ICCS placeholder functions are present but unused"
		                          : "no ICCS placeholder function in the library");
	} else {
		snprintf(sv->verdict, sizeof sv->verdict, "not applicable");
		snprintf(sv->reason, sizeof sv->reason, "no hash/XOF function ran in the profiled operations");
	}
}

static void survey_instance(const struct rs_instance *in, struct survey *sv)
{
	memset(sv, 0, sizeof *sv);
	const char *api = jp_str(in->descriptor, "api", jp_str(in->build, "instance.api", NULL));
	for (int k = 0; k < in->nops; k++) {
		const json_t *p = in->ops[k].profile;
		if (!p || rec_failed(p))
			continue;
		if (!api)
			api = jp_str(p, "instance.api", NULL);
		survey_op(sv, p);
	}
	sv->nist = api && strcmp(api, "nist") == 0;
	if (sv->profiled)
		survey_verdict(sv);
}

static void survey_lines(const struct record_set *rs, rdoc *d)
{
	struct survey first, sv;
	int n = 0, same = 1;
	for (size_t i = 0; i < rs->ninst; i++) {
		survey_instance(&rs->inst[i], &sv);
		if (!sv.profiled)
			continue;
		if (!n++)
			first = sv;
		else if (strcmp(first.verdict, sv.verdict) != 0 || strcmp(first.reason, sv.reason) != 0)
			same = 0;
	}
	if (!n) {
		rdoc_para(d, "Survey verdict: not measured (no operation was profiled).");
		return;
	}
	if (same) {
		rdoc_para(d, "Survey verdict: %s — %s", first.verdict, first.reason);
	} else {
		rdoc_para(d, "Survey verdict, per instance:");
		for (size_t i = 0; i < rs->ninst; i++) {
			survey_instance(&rs->inst[i], &sv);
			if (sv.profiled)
				rdoc_item(d, "%s: %s — %s", rs->inst[i].name, sv.verdict, sv.reason);
		}
	}
	rdoc_para(d, "The verdict: ICCS-only when the competition's placeholder hash functions (pseudohash, "
	          "pseudoXOF, sm3hash) run and none of the scheme's own hash/XOF families does; bypass when "
	          "only its own families run; mixed when both do; not applicable for NIST-API instances or when "
	          "no hash/XOF function runs. \"Run\" means sampled or counted in a profiled operation; samples "
	          "inside the placeholder functions or the DRNG belong to those, not to a family. The glue named "
	          "with the verdict is the source file whose code calls the placeholder functions directly, found "
	          "in the library's machine code and named by its DWARF line table (the placeholder functions' own "
	          "file aside).");
}

static void own_families(const struct record_set *rs, rdoc *d)
{
	/* Families present in some instance get a column; the others one sentence. */
	const char *fam[MAX_FAMILIES], *label[MAX_FAMILIES];
	int nf = 0, shown[MAX_FAMILIES] = { 0 };
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++) {
			size_t j;
			json_t *f;
			json_array_foreach(jp(rs->inst[i].ops[k].profile, "families"), j, f) {
				const char *nm = jp_str(f, "name", NULL);
				int at = -1;
				for (int x = 0; x < nf; x++)
					if (nm && strcmp(fam[x], nm) == 0)
						at = x;
				if (at < 0 && nm && nf < MAX_FAMILIES) {
					at = nf;
					fam[nf] = nm;
					label[nf++] = jp_str(f, "label", nm);
				}
				if (at >= 0 && is_present(f))
					shown[at] = 1;
			}
		}
	if (!nf)
		return;
	rdoc_para(d, "The scheme's own hash/XOF and block-cipher code, found without a descriptor: functions whose "
	          "name or DWARF source file names a Keccak (SHA-3/SHAKE), SHA-2, SM3 or AES family, assembly "
	          "routines included (by name alone where they carry no DWARF). Share of sampled call stacks "
	          "with such a frame in the instance library, outside the placeholder functions and the DRNG:");
	const char *hdr[MAX_FAMILIES + 3] = { "instance", "profile", "operation" };
	int cols[MAX_FAMILIES], nc = 0;
	char absent[256] = "";
	for (int x = 0; x < nf; x++) {
		if (shown[x]) {
			cols[nc] = x;
			hdr[3 + nc++] = label[x];
		} else {
			add_name(absent, sizeof absent, label[x]);
		}
	}
	if (nc) {
		struct rd_table *t = rdoc_table(d, nc + 3, hdr);
		for (size_t i = 0; i < rs->ninst; i++) {
			const struct rs_instance *in = &rs->inst[i];
			for (int k = 0; k < in->nops; k++) {
				const json_t *p = in->ops[k].profile;
				if (!p)
					continue;
				char cellbuf[MAX_FAMILIES][96];
				const char *cells[MAX_FAMILIES + 3] = { row_name(in), profile_cell(in), in->ops[k].op };
				for (int c = 0; c < nc; c++)
					cells[3 + c] = share_cell(named(p, "families", fam[cols[c]]), cellbuf[c],
					                          sizeof cellbuf[c]);
				rd_row(d, t, cells, 1u);
			}
		}
	}
	if (absent[0])
		rdoc_para(d, "%s: " NA_TEXT " in any instance.", absent);
}

static void section_symmetric(const struct record_set *rs, rdoc *d)
{
	rdoc_heading(d, 2, "symmetric", "7. Symmetric primitives");
	survey_lines(rs, d);
	rdoc_para(d, "Share of each operation spent in the competition's placeholder hash functions (pseudohash, "
	          "pseudoXOF, sm3hash) and in the DRNG: the share of sampled call stacks with a frame in the "
	          "group's functions, with its 95%% interval (\"" NA_TEXT "\" when the library has none); calls "
	          "per operation are exact counts (uprobes).");
	const char *groups[MAX_GROUPS] = { "hash", "drng" };
	int ng = 2;
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++) {
			size_t g;
			json_t *gr;
			json_array_foreach(jp(rs->inst[i].ops[k].profile, "groups"), g, gr)
				add_unique(groups, &ng, MAX_GROUPS, jp_str(gr, "name", NULL));
		}
	char hbuf[MAX_GROUPS][96];
	const char *hdr[MAX_GROUPS + 4] = { "instance", "profile", "operation" };
	for (int g = 0; g < ng; g++) {
		group_header(groups[g], hbuf[g], sizeof hbuf[g]);
		hdr[3 + g] = hbuf[g];
	}
	hdr[3 + ng] = "calls per operation";
	struct rd_table *t = rdoc_table(d, ng + 4, hdr);
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		for (int k = 0; k < in->nops; k++) {
			const json_t *p = in->ops[k].profile;
			char cellbuf[MAX_GROUPS][96], calls[2048];
			const char *cells[MAX_GROUPS + 4] = { row_name(in), profile_cell(in), in->ops[k].op };
			for (int g = 0; g < ng; g++)
				cells[3 + g] = share_cell(named(p, "groups", groups[g]), cellbuf[g], sizeof cellbuf[g]);
			if (p)
				calls_text(p, calls, sizeof calls);
			else
				missing_text(in, "profile", calls, sizeof calls);
			cells[3 + ng] = calls;
			rd_row(d, t, cells, 1u);
		}
	}
	own_families(rs, d);
}

/* ---------------- section 8 ---------------- */

static void section_evidence(const struct record_set *rs, rdoc *d)
{
	rdoc_heading(d, 2, "evidence", "8. Raw evidence index");
	rdoc_para(d, "Paths are relative to this report's directory; each sha256 covers the whole file (the first "
	          "16 hex digits are shown, report.json has them in full). Each timing record holds its command, "
	          "environment and every trial's per-call values.");
	static const char *const hdr[] = { "instance", "profile", "item", "file", "sha256" };
	struct rd_table *t = rdoc_table(d, 5, hdr);
	for (size_t i = 0; i < rs->nev; i++) {
		const struct rs_evidence *e = &rs->ev[i];
		char sha[32];
		snprintf(sha, sizeof sha, "%.16s…", e->sha256);
		const char *cells[] = { e->instance[0] ? e->instance : NULL, e->profile[0] ? e->profile : NULL, e->item,
		                        e->file, sha };
		rd_row(d, t, cells, 1u | 8u | 16u);
	}
}

/* ---------------- hotspots ---------------- */

static double num_or(const json_t *o, const char *k)
{
	return jp_num(o, k, NAN);
}

static int cmp_self(const void *a, const void *b)
{
	double x = num_or(*(json_t *const *)a, "self_share"), y = num_or(*(json_t *const *)b, "self_share");
	if (!isfinite(x))
		x = -1;
	if (!isfinite(y))
		y = -1;
	return x < y ? 1 : x > y ? -1 : 0;
}

static int cmp_loop_share(const void *a, const void *b)
{
	double x = num_or(*(json_t *const *)a, "share"), y = num_or(*(json_t *const *)b, "share");
	return x < y ? 1 : x > y ? -1 : 0;
}

/* The hottest loops of the operation's annotated functions (back edges in
 * their disassembly), with their source ranges. */
static void hot_loops(const json_t *p, rdoc *d)
{
	const json_t *ann = jp(p, "annotate");
	json_t *all = json_array();
	size_t i, j;
	json_t *a, *l;
	json_array_foreach(ann, i, a) {
		json_array_foreach(json_object_get(a, "loops"), j, l) {
			json_t *c = json_deep_copy(l);
			json_object_set(c, "function", json_object_get(a, "function"));
			json_array_append_new(all, c);
		}
	}
	size_t n = json_array_size(all);
	json_t **v = calloc(n + 1, sizeof *v);
	if (v && n) {
		for (i = 0; i < n; i++)
			v[i] = json_array_get(all, i);
		qsort(v, n, sizeof *v, cmp_loop_share);
		rdoc_para(d, "Hottest loops (back edges in the disassembly of the hottest functions):");
		static const char *const hdr[] = { "function", "loop (addresses)", "source", "share" };
		struct rd_table *t = rdoc_table(d, 4, hdr);
		for (i = 0; i < n && i < TOP_LOOPS; i++) {
			char where[96], sh[32];
			snprintf(where, sizeof where, "%s–%s, %.0f instructions", jp_str(v[i], "start", "?"),
			         jp_str(v[i], "end", "?"), jp_num(v[i], "insns", 0));
			report_fmt_share(sh, sizeof sh, num_or(v[i], "share"));
			const char *cells[] = { jp_str(v[i], "function", "?"), where, jp_str(v[i], "source", NULL), sh };
			rd_row(d, t, cells, 1u | 4u);
		}
	}
	free(v);
	json_decref(all);
}

/* One annotated function, folded: source lines with their shares, then
 * the disassembly in a fold of its own. */
static void annotated_view(const json_t *a, const char *op, rdoc *d)
{
	char sh[32], self[32];
	if (jp_str(a, "error", NULL)) {
		rdoc_para(d, "Annotated view of %s: not available (%s).", jp_str(a, "function", "?"),
		          jp_str(a, "error", ""));
		return;
	}
	report_fmt_share(sh, sizeof sh, num_or(a, "share"));
	report_fmt_share(self, sizeof self, num_or(a, "self_share"));
	rdoc_fold(d, "Annotated: %s — %s of %s in its code (self %s)", jp_str(a, "function", "?"), sh, op, self);
	rdoc_para(d, "Samples by the instruction they landed on, %s. Skid: %s",
	          jp_true(a, "source_lines") ? "summed per source line" : "no DWARF line information, so by "
	                                                                  "instruction alone",
	          jp_str(a, "skid", "not stated"));
	const json_t *lines = jp(a, "lines");
	if (jp_true(a, "source_lines") && json_array_size(lines)) {
		static const char *const hdr[] = { "source line", "share", "samples", "source" };
		struct rd_table *t = rdoc_table(d, 4, hdr);
		size_t i;
		json_t *l;
		json_array_foreach(lines, i, l) {
			char where[1200], smp[32], lsh[32];
			const char *in = jp_str(l, "inlined_from", NULL);
			snprintf(where, sizeof where, "%s:%.0f%s%s%s", jp_str(l, "file", "?"), jp_num(l, "line", 0),
			         in ? " (inlined " : "", in ? in : "", in ? ")" : "");
			snprintf(smp, sizeof smp, "%.0f", jp_num(l, "samples", 0));
			if (jp_num(l, "samples", 0) > 0)
				report_fmt_share(lsh, sizeof lsh, num_or(l, "share"));
			else
				snprintf(lsh, sizeof lsh, "·");
			const char *cells[] = { where, lsh, smp, jp_str(l, "text", "") };
			rd_row(d, t, cells, 1u | 8u);
		}
	}
	const json_t *ins = jp(a, "instructions");
	rdoc_fold(d, "Disassembly of %s (%.0f instructions)", jp_str(a, "function", "?"),
	          jp_num(a, "instructions_total", (double)json_array_size(ins)));
	size_t cap = 256 + 160 * json_array_size(ins), len = 0;
	char *buf = malloc(cap);
	if (buf) {
		buf[0] = 0;
		size_t i;
		json_t *x;
		json_array_foreach(ins, i, x) {
			char pct[16] = "";
			if (jp_num(x, "samples", 0) > 0)
				snprintf(pct, sizeof pct, "%5.1f%%", 100 * num_or(x, "share"));
			const char *f = jp_str(x, "file", NULL);
			char src[256] = "";
			if (f)
				snprintf(src, sizeof src, "  ; %s:%.0f", f, jp_num(x, "line", 0));
			int k = snprintf(buf + len, cap - len, "%7s %7.0f  %-10s %-40s%s\n", pct, jp_num(x, "samples", 0),
			                 jp_str(x, "addr", "?"), jp_str(x, "asm", "?"), src);
			if (k < 0 || (size_t)k >= cap - len)
				break;
			len += (size_t)k;
		}
		rdoc_pre(d, buf);
		free(buf);
	}
	rdoc_fold_end(d);
	rdoc_fold_end(d);
}

static void hotspot(const struct rs_instance *in, const struct rs_op *o, rdoc *d)
{
	const json_t *p = o->profile;
	const char *unit = jp_str(p, "unit", "units");
	rdoc_heading(d, 3, NULL, "%s%s%s — %s", row_name(in), in->profile[0] ? " / " : "", in->profile, o->op);
	char upo[32];
	fmt_count(upo, sizeof upo, jp_num(p, "units_per_op", NAN));
	rdoc_para(d, "%.0f samples of %s (%s call graphs) over %.0f calls; %.0f lost, %.0f truncated stacks; "
	          "about %s %s per call.", jp_num(p, "samples", 0), jp_str(p, "event", "an unnamed event"),
	          jp_str(p, "callgraph", "unknown"), jp_num(p, "ops", 0), jp_num(p, "lost", 0),
	          jp_num(p, "truncated", 0), upo, unit);
	if (jp_str(p, "event_fallback", NULL))
		rdoc_para(d, "Event fallback: %s", jp_str(p, "event_fallback", ""));
	double inc = jp_num(p, "unwind.incomplete_share", 0);
	if (inc > 0.01)
		rdoc_para(d, "Incomplete stacks: %.0f of %.0f (%.1f%%) did not reach the entry frame, so the "
		          "inclusive shares below are low by up to that much.", jp_num(p, "unwind.incomplete", 0),
		          jp_num(p, "unwind.stacks", 0), 100 * inc);
	if (jp(p, "perturbation")) {
		char on[32], off[32];
		fmt_count(on, sizeof on, jp_num(p, "perturbation.on_ns", NAN));
		fmt_count(off, sizeof off, jp_num(p, "perturbation.off_ns", NAN));
		rdoc_para(d, "Profiling's own perturbation: a sampled call took %s CPU ns on average, an unsampled one "
		          "%s (x%.3f; wall clock x%.3f), over %.0f calls of each, interleaved one by one.", on, off,
		          jp_num(p, "perturbation.ratio", NAN), jp_num(p, "perturbation.wall_ratio", NAN),
		          jp_num(p, "perturbation.on_calls", 0));
	}
	json_t *fns = jp(p, "functions");
	size_t n = json_array_size(fns), k = 0;
	json_t **v = calloc(n ? n : 1, sizeof *v);
	if (v) {
		for (size_t i = 0; i < n; i++)
			if (json_is_object(json_array_get(fns, i)))
				v[k++] = json_array_get(fns, i);
		qsort(v, k, sizeof *v, cmp_self);
		char est[64];
		snprintf(est, sizeof est, "est. %s per op", unit);
		const char *hdr[] = { "function", "module", "self (95% interval)", "inclusive (95% interval)", est };
		struct rd_table *t = k ? rdoc_table(d, 5, hdr) : NULL;
		for (size_t i = 0; i < k && i < TOP_FUNCTIONS; i++) {
			char self[96], incl[96], per[32];
			fmt_share_ci(self, sizeof self, num_or(v[i], "self_share"), num_or(v[i], "self_lo"),
			             num_or(v[i], "self_hi"));
			fmt_share_ci(incl, sizeof incl, num_or(v[i], "incl_share"), num_or(v[i], "incl_lo"),
			             num_or(v[i], "incl_hi"));
			fmt_count(per, sizeof per, num_or(v[i], "units_per_op"));
			const char *cells[] = { jp_str(v[i], "name", "[unknown]"), jp_str(v[i], "module", NULL), self, incl,
			                        per };
			rd_row(d, t, cells, 1u);
		}
		free(v);
		if (!k)
			rdoc_para(d, "No function attribution in this profile.");
	}
	size_t g;
	json_t *gr;
	json_array_foreach(jp(p, "groups"), g, gr) {
		char s[96];
		fmt_share_ci(s, sizeof s, num_or(gr, "share"), num_or(gr, "lo"), num_or(gr, "hi"));
		rdoc_item(d, "group %s: %s of samples", jp_str(gr, "name", "?"), s);
	}
	json_t *lines = jp(p, "lines");
	if (json_array_size(lines)) {
		static const char *const hdr[] = { "function", "source line", "samples", "share" };
		struct rd_table *t = rdoc_table(d, 4, hdr);
		for (size_t i = 0; i < json_array_size(lines) && i < TOP_LINES; i++) {
			json_t *l = json_array_get(lines, i);
			char where[1200], smp[32], sh[32];
			snprintf(where, sizeof where, "%s:%.0f", jp_str(l, "file", "?"), jp_num(l, "line", 0));
			snprintf(smp, sizeof smp, "%.0f", jp_num(l, "samples", NAN));
			report_fmt_share(sh, sizeof sh, jp_num(l, "share", NAN));
			const char *cells[] = { jp_str(l, "function", "[unknown]"), where, smp, sh };
			rd_row(d, t, cells, 1u | 2u);
		}
	}
	hot_loops(p, d);
	for (size_t i = 0; i < json_array_size(jp(p, "annotate")); i++)
		annotated_view(json_array_get(jp(p, "annotate"), i), jp_str(p, "op", "the operation"), d);
	if (o->flame_file[0])
		rdoc_flame(d, "flame graph", o->flame_file);
}

static void section_hotspots(const struct record_set *rs, rdoc *d)
{
	rdoc_heading(d, 2, "hotspots", "9. Hotspots");
	int any = 0;
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++)
			if (rs->inst[i].ops[k].profile) {
				if (!any)
					rdoc_para(d, "Where each profiled operation spends its time: the functions with the "
					          "largest self share of samples, with 95%% intervals, and the estimated cost "
					          "per call of each.");
				any = 1;
				hotspot(&rs->inst[i], &rs->inst[i].ops[k], d);
			}
	if (!any)
		rdoc_para(d, "No operation was profiled.");
}

int report_build_doc(const struct record_set *rs, rdoc *doc, pq_error *err)
{
	section_title(rs, doc);
	section_basic(rs, doc);
	section_env(rs, doc);
	section_kat(rs, doc);
	section_perf(rs, doc);
	section_memory(rs, doc);
	section_sizes(rs, doc);
	section_symmetric(rs, doc);
	section_evidence(rs, doc);
	section_hotspots(rs, doc);
	report_section_leak(rs, doc);
	int r = report_section_compare(rs, doc, err);
	if (r < 0)
		return r;
	if (doc->oom)
		return pq_fail(err, PQ_ENOMEM, "out of memory building the report");
	return 0;
}
