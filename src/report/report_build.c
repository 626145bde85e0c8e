/*
 * report_build: turns a record set into the report's blocks: the title,
 * the summary (report_summary.h), then the numbered sections in the order
 * of the reference reports (basic information, environment, KAT,
 * performance, resources, sizes, symmetric primitives), the hotspots of
 * every profiled operation, the timing leaks and comparisons where the
 * campaign has them, and the raw evidence index last.  A section's number
 * is its place among the sections present (struct outline), so the
 * numbers never skip, and text that names a section asks the outline.
 * Everything printed is formatted with core/units.h so figures read like
 * the reference.  Missing records become "not measured" rows with the
 * campaign's step state rather than holes.
 */
#include "config.h"
#include "report/report_leak.h"
#include "report/report_summary.h"
#include "report/summary_charts.h"
#include "report/report_compare.h"
#include "report/report.h"
#include "core/jpath.h"
#include "core/text_buf.h"
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

/* The numbered sections, in report order. */
enum section {
	SEC_BASIC,
	SEC_ENV,
	SEC_KAT,
	SEC_PERF,
	SEC_RESOURCES,
	SEC_SIZES,
	SEC_SYMMETRIC,
	SEC_HOTSPOTS,
	SEC_LEAKS,          /* only with timing-leak records */
	SEC_COMPARISON,     /* only with comparisons */
	SEC_EVIDENCE,       /* always last */
	SEC_COUNT
};

static const struct {
	const char *anchor, *title;
} section_names[SEC_COUNT] = {
	[SEC_BASIC] = { "basic", "Basic information" },
	[SEC_ENV] = { "environment", "Assessment environment" },
	[SEC_KAT] = { "kat", "Functional testing (KAT)" },
	[SEC_PERF] = { "performance", "Performance" },
	[SEC_RESOURCES] = { "resources", "Resource consumption" },
	[SEC_SIZES] = { "sizes", "Transmission and storage overhead" },
	[SEC_SYMMETRIC] = { "symmetric", "Symmetric primitives" },
	[SEC_HOTSPOTS] = { "hotspots", "Hotspots" },
	[SEC_LEAKS] = { "leaks", "Timing leaks" },
	[SEC_COMPARISON] = { "comparison", "Comparison" },
	[SEC_EVIDENCE] = { "evidence", "Raw evidence index" },
};

/* The sections one report has: number[s] is section s's number, 0 when it is left out. */
struct outline {
	int number[SEC_COUNT];
};

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

/* The instance as rows name it: with its implementation version where the set holds several. */
static const char *row_name(const struct rs_instance *in)
{
	return in->shown[0] ? in->shown : in->name;
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
	if (s && strcmp(s, "not asked") == 0)
		snprintf(buf, len, "not measured (%s not in --steps)", step);
	else if (s)
		snprintf(buf, len, "not measured (step %s: %s)", step, s);
	else
		snprintf(buf, len, "not measured");
}

/*
 * A baseline unit that was never meant to run step (a security category's
 * baseline is timed and sized only): its rows are left out of that step's
 * tables rather than saying "not measured" once per operation.
 */
static int baseline_skips(const struct rs_instance *in, const char *step)
{
	const char *s = rs_step(in, step);
	return strcmp(in->role, "baseline") == 0 && s && strcmp(s, "skipped") == 0;
}

/* ---------------- title and basic information ---------------- */

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

/* The list as one text, as long as it is; NULL when empty, or out of memory (then d->oom). */
static char *join(rdoc *d, const char **list, int n, const char *sep)
{
	struct text_buf t = { 0 };
	for (int i = 0; i < n; i++)
		text_printf(&t, "%s%s", i ? sep : "", list[i]);
	if (t.oom) {
		d->oom = 1;
		text_free(&t);
	}
	return t.s;
}

static const char *category_of(const struct record_set *rs)
{
	const char *c = jp_str(rs->campaign, "scheme.category", NULL);
	if (c)
		return c;
	for (size_t i = 0; i < rs->ninst; i++) {
		const char *k = rs_kind(&rs->inst[i]);
		if (k)
			return strcmp(k, "kem") == 0 ? "key encapsulation" : "digital signature";
	}
	return "unknown";
}

static void section_title(const struct record_set *rs, const struct outline *ol, rdoc *d)
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
	          "performance reports. Every figure comes from a record listed in section %d.",
	          jp_str(rs->environment, "pqprof_version", PACKAGE_VERSION), ol->number[SEC_EVIDENCE]);
}

static void section_basic(const struct record_set *rs, rdoc *d)
{
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
	const char *title = jp_str(rs->campaign, "scheme.title", jp_str(rs->campaign, "scheme.name", NULL));
	rdoc_item(d, "Category: public-key algorithm; function: %s", category_of(rs));
	rdoc_item(d, "Algorithm: %s", title ? title : (nn ? names[0] : "unknown"));
	if (ni) {
		/* Reference, optimized, ... as the package named them: the implementations, not flag profiles. */
		char *ib = join(d, impls, ni, ", ");
		rdoc_item(d, "Implementations measured: %s", ib ? ib : "");
		free(ib);
	}
	char *buf = join(d, profiles, np, ", ");
	rdoc_item(d, "Flag profile%s (compiler flags each implementation was built with): %s", np == 1 ? "" : "s",
	          buf ? buf : "unknown");
	free(buf);
	buf = join(d, names, nn, ", ");
	rdoc_item(d, "Parameter sets: %s", buf ? buf : "none");
	free(buf);
	buf = join(d, backends, nb, "; ");
	rdoc_item(d, "Measurement method: pqprof %s; counter backend: %s",
	          jp_str(rs->environment, "pqprof_version", PACKAGE_VERSION), buf ? buf : "no timing records");
	free(buf);
	const char *system = jp_str(rs->campaign, "system", NULL);
	if (system)
		rdoc_item(d, "System: %s", system);
}

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

/* ---------------- assessment environment ---------------- */

/* A unit's library form, and the sentence that explains it. */
static void linkage_form(const struct rs_instance *in, char *form, size_t flen, char *legend, size_t llen)
{
	const char *f = jp_str(in->build, "linkage.form", NULL);
	if (f) {
		snprintf(form, flen, "%s", f);
		snprintf(legend, llen, "%s: %s", f, jp_str(in->build, "linkage.summary", "no summary recorded"));
	} else if (in->build && !jp(in->build, "flags")) {
		snprintf(form, flen, "prebuilt");
		snprintf(legend, llen, "prebuilt: a library pqprof did not build; its form is not known");
	} else {
		snprintf(form, flen, "not recorded");
		snprintf(legend, llen, "not recorded: built before pqprof recorded the form (plain -fPIC)");
	}
}

/*
 * The library form each unit was measured in (instance/link_scope.h), from
 * its build record: locally bound calls, or plain -fPIC.  One form for all
 * is one sentence; otherwise a table, each form explained once below it.
 */
static void section_env_linkage(const struct record_set *rs, rdoc *d)
{
	if (!rs->ninst)
		return;
	char form0[400], legend0[600], form[400], legend[600];
	linkage_form(&rs->inst[0], form0, sizeof form0, legend0, sizeof legend0);
	int same = 1;
	for (size_t i = 1; i < rs->ninst && same; i++) {
		linkage_form(&rs->inst[i], form, sizeof form, legend, sizeof legend);
		same = strcmp(form, form0) == 0;
	}
	static const char plain_note[] = "The plain -fPIC form (calls to exported functions through the PLT) is what "
	                                 "the reference reports' harness measured (pqprof run --plain-pic).";
	if (same) {
		rdoc_para(d, "Library form: every instance is measured as a shared library, all in one form, %s. %s",
		          legend0, plain_note);
		return;
	}
	rdoc_para(d, "Library form: every instance is measured as a shared library, in the form the table gives. %s",
	          plain_note);
	static const char *const hdr[] = { "instance", "profile", "library form" };
	struct rd_table *t = rdoc_table(d, 3, hdr);
	struct footnotes fn = { .n = 0 };
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		linkage_form(in, form, sizeof form, legend, sizeof legend);
		/* The explanation once per form, under the table, not on every row. */
		footnote(&fn, legend);
		const char *cells[] = { row_name(in), in->profile[0] ? in->profile : NULL, form };
		rd_row(d, t, cells, 0);
	}
	for (int i = 0; i < fn.n; i++) {
		rdoc_para(d, "%s.", fn.text[i]);
		free(fn.text[i]);
	}
}

static void section_env(const struct record_set *rs, rdoc *d)
{
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
	/* What of this environment makes figures unstable is among the summary's warnings, said there once. */
	section_env_linkage(rs, d);
}

/* ---------------- functional testing (KAT) ---------------- */

/* Why an instance is not validated, as long as it takes; NULL when out of memory (then d->oom). */
static char *kat_explanation(const struct rs_instance *in, rdoc *d)
{
	struct text_buf t = { 0 };
	if (!in->kat) {
		const char *b = rs_step(in, "build");
		if ((b && strcmp(b, "failed") == 0) || rec_failed(in->build)) {
			char why[1024];
			failure_text(in->build, why, sizeof why);
			text_printf(&t, "Build failed: %s", why);
		} else {
			const char *s = rs_step(in, "kat");
			text_printf(&t, "No KAT record%s%s%s.", s ? " (step kat: " : "", s ? s : "", s ? ")" : "");
		}
	} else {
		const char *v = jp_str(in->kat, "outcome.verdict", "unknown");
		const char *reason = jp_str(in->kat, "outcome.reason", "");
		text_printf(&t, "%s: %s", v, reason[0] ? reason : "no reason recorded");
		if (reason[0] && reason[strlen(reason) - 1] != '.')
			text_printf(&t, ".");
		json_t *notes = jp(in->kat, "outcome.notes");
		size_t i;
		json_t *n;
		int first = 1;
		json_array_foreach(notes, i, n) {
			if (!json_is_string(n))
				continue;
			text_printf(&t, "%s%s", first ? " API deviations and notes: " : "; ", json_string_value(n));
			first = 0;
		}
		if (!first)
			text_printf(&t, ".");
		double rec = jp_num(in->kat, "outcome.record", -1);
		const char *field = jp_str(in->kat, "outcome.field", "");
		if (rec >= 0)
			text_printf(&t, " First difference: record %.0f%s%s.", rec, field[0] ? ", field " : "", field);
		/* The whole difference, when the file was at hand (kat/kat_forensics.h). */
		const char *why = jp_str(in->kat, "forensics.text", "");
		if (why[0])
			text_printf(&t, " %s", why);
	}
	if (t.oom) {
		d->oom = 1;
		text_free(&t);
	}
	return t.s;
}

/* NIST signatures driven through their context-string API: which functions, and the context (descriptor). */
static void context_line(const struct rs_instance *in, rdoc *d)
{
	const json_t *desc = in->descriptor ? in->descriptor : jp(in->build, "instance");
	if (strcmp(jp_str(desc, "signature_api", ""), "context") != 0)
		return;
	const char *hex = jp_str(desc, "context", "");
	/* Which functions those are (crypto_sign_ctx, or a crypto_sign taking the context) the build notes say. */
	if (*hex)
		rdoc_para(d, "Signature API, %s: the context-string sign and verify functions, with the context %s; the "
		          "KAT replay and every measurement sign with it.", row_name(in), hex);
	else
		rdoc_para(d, "Signature API, %s: the context-string sign and verify functions, with an empty context; the "
		          "KAT replay and every measurement sign with it.", row_name(in));
}

static void section_kat(const struct record_set *rs, const struct outline *ol, rdoc *d)
{
	rdoc_para(d, "Each library was checked against its known-answer test vectors before timing; the KAT "
	          "record and log of each instance are listed in section %d.", ol->number[SEC_EVIDENCE]);
	static const char *const hdr[] = { "instance", "flag profile", "KAT" };
	struct rd_table *t = rdoc_table(d, 3, hdr);
	struct footnotes fn = { .n = 0 };
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		char verdict[128];
		const char *flags = in->profile[0] ? in->profile : NULL;
		char *expl = rs_validated(in) ? NULL : kat_explanation(in, d);
		if (expl)
			snprintf(verdict, sizeof verdict, "%s [%d]", rs_kat_verdict(in), footnote(&fn, expl));
		else
			snprintf(verdict, sizeof verdict, "%s", rs_kat_verdict(in));
		free(expl);
		const char *cells[] = { row_name(in), flags, verdict };
		rd_row(d, t, cells, 1u);
	}
	for (int i = 0; i < fn.n; i++) {
		rdoc_para(d, "[%d] %s", i + 1, fn.text[i]);
		free(fn.text[i]);
	}
	if (fn.n)
		rdoc_para(d, "These instances are timed anyway; their output is not validated.");
	for (size_t i = 0; i < rs->ninst; i++)
		context_line(&rs->inst[i], d);
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

/* ---------------- performance ---------------- */

/* The profile column of the sections after 3: the flag profile an instance was built with. */
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
		char nn[32], nt[32], ni[32];
		fmt_grouped(nn, sizeof nn, jp_num(b, "summary.n", NAN));
		fmt_grouped(nt, sizeof nt, jp_num(b, "summary.trials", NAN));
		fmt_grouped(ni, sizeof ni, jp_num(b, "summary.iters", NAN));
		snprintf(n, sizeof n, "%s (%s × %s)", nn, nt, ni);
	}
	const char *cells[] = { row_name(in), profile_cell(in), o ? o->op : "–", med, tm, mn, ops, mean, cont, n };
	rd_row(d, t, cells, 1u);
	if (!rs_validated(in))
		rd_suffix(d, t, 0, " †");
}

/*
 * The interposition check (campaign/interpose_check.h): how much slower the
 * plain -fPIC library is than the locally bound one, per instance, so a
 * reader comparing with a reference report knows how much of a difference
 * is the harness's library form.
 */
/* One instance's check as a sentence made from the numbers of its table rows (without the instance's name). */
static void interposition_text(const struct rs_instance *in, struct text_buf *out)
{
	const char *op, *lo_op = NULL, *hi_op = NULL;
	double lo = NAN, hi = NAN;
	struct text_buf beyond = { 0 };
	json_t *e;
	json_object_foreach(json_object_get(in->interposition, "ops"), op, e) {
		double f = jp_num(e, "factor", NAN);
		if (jp_str(e, "failure", NULL) || !isfinite(f))
			continue;
		/* Compared as the table prints them, so the sentence can never disagree with it. */
		f = round(f * 100) / 100;
		if (!lo_op || f < lo)
			lo = f, lo_op = op;
		if (!hi_op || f > hi)
			hi = f, hi_op = op;
		if (json_is_true(json_object_get(e, "beyond_noise")))
			text_printf(&beyond, "%s%s %.2fx (%.2f–%.2f)", beyond.n ? ", " : "", op, f, jp_num(e, "lo", NAN),
			            jp_num(e, "hi", NAN));
	}
	if (beyond.oom)
		out->oom = 1;
	const char *bt = beyond.s && !beyond.oom ? beyond.s : "";
	if (!lo_op)
		text_printf(out, "no factor measured");
	else if (lo == hi)
		text_printf(out, "plain / local %.2fx in every operation%s%s", lo, bt[0] ? "; beyond the noise: " : "", bt);
	else
		text_printf(out, "plain / local from %.2fx (%s) to %.2fx (%s)%s%s", lo, lo_op, hi, hi_op,
		            bt[0] ? "; beyond the noise: " : "", bt);
	text_free(&beyond);
}

/*
 * One line per distinct sentence: instances whose checks read the same
 * (the same rounded factors) share it, "A / p, B / p: plain / local ...",
 * so that no sentence is said twice.
 */
static void interposition_items(const struct record_set *rs, rdoc *d)
{
	size_t n = rs->ninst;
	struct text_buf *say = calloc(n ? n : 1, sizeof *say);
	if (!say) {
		d->oom = 1;
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (rs->inst[i].interposition)
			interposition_text(&rs->inst[i], &say[i]);
	for (size_t i = 0; i < n; i++) {
		if (!say[i].s)
			continue;
		struct text_buf who = { 0 };
		for (size_t j = i; j < n; j++) {
			const struct rs_instance *in = &rs->inst[j];
			if (!say[j].s || (j != i && strcmp(say[j].s, say[i].s) != 0))
				continue;
			text_printf(&who, "%s%s%s%s", who.n ? ", " : "", row_name(in), in->profile[0] ? " / " : "",
			            in->profile);
			if (j != i)
				text_free(&say[j]);
		}
		if (who.oom || say[i].oom)
			d->oom = 1;
		else
			rdoc_item(d, "%s: %s", who.s, say[i].s);
		text_free(&who);
		text_free(&say[i]);
	}
	free(say);
}

/*
 * The interposition check (campaign/interpose_check.h): how much slower the
 * plain -fPIC library is than the locally bound one, per instance, so a
 * reader comparing with a reference report knows how much of a difference
 * is the harness's library form.  What the check means is said once; each
 * instance gets one line made from its rows of the table.
 */
static void section_perf_interposition(const struct record_set *rs, rdoc *d)
{
	const json_t *first = NULL;
	int plain = 0;
	for (size_t i = 0; i < rs->ninst; i++)
		if (rs->inst[i].interposition) {
			if (!first)
				first = rs->inst[i].interposition;
			plain |= strcmp(jp_str(rs->inst[i].interposition, "measured", "local"), "plain-pic") == 0;
		}
	if (!first)
		return;
	double noise = jp_num(first, "noise", 0.10);
	int flagged = 0;
	for (size_t i = 0; i < rs->ninst; i++)
		flagged |= jp_true(rs->inst[i].interposition, "flagged");
	rdoc_para(d, "Interposition check: each operation was timed in both library forms, loaded side by side in "
	          "one process; plain / local is the plain -fPIC library's time over the locally bound one's, with "
	          "its 95%% interval. The noise band is ±%.0f%% around 1: a factor counts as beyond the noise only "
	          "when its whole interval lies outside %.2fx–%.2fx%s. The timing table after this one is for the %s "
	          "build.", noise * 100, 1 - noise, 1 + noise, flagged ? "" : ", and none is",
	          plain ? "plain -fPIC (--plain-pic)" : "locally bound");
	rdoc_list(d);
	interposition_items(rs, d);
	static const char *const hdr[] = { "instance", "profile", "operation", "plain / local",
	                                   "95% interval", "rounds (n)", "measure", "beyond the noise" };
	struct rd_table *t = rdoc_table(d, 8, hdr);
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		if (!in->interposition)
			continue;
		const char *op;
		json_t *e;
		json_object_foreach(json_object_get(in->interposition, "ops"), op, e) {
			char f[32] = "–", ci[64] = "–", n[16] = "–";
			const char *why = jp_str(e, "failure", NULL);
			if (!why) {
				snprintf(f, sizeof f, "%.2fx", jp_num(e, "factor", NAN));
				snprintf(ci, sizeof ci, "%.2fx–%.2fx", jp_num(e, "lo", NAN), jp_num(e, "hi", NAN));
				fmt_grouped(n, sizeof n, jp_num(e, "rounds", NAN));
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

static void section_perf(const struct record_set *rs, const struct outline *ol, rdoc *d)
{
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
	int unvalidated = 0;
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		unvalidated |= !rs_validated(in);
		if (!in->nops)
			perf_row(in, NULL, !unit, d, t);
		for (int k = 0; k < in->nops; k++)
			perf_row(in, &in->ops[k], !unit, d, t);
	}
	if (unvalidated)
		rdoc_para(d, "† The instance's KAT verdict is not PASS (section %d): its output is not validated.",
		          ol->number[SEC_KAT]);
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

/* ---------------- resource consumption ---------------- */

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
	rdoc_para(d, "Static memory is approximated by the library's loadable ELF segments; peak memory is the "
	          "process high-water mark (VmHWM) including the benchmark driver and libc, so both are "
	          "upper-bound proxies rather than isolated algorithm memory. Beyond the reference, stack is the "
	          "call's high-water mark on a painted stack and heap is the peak of the call's own live "
	          "allocations.");
	static const char *const hdr[] = { "instance", "profile", "operation", "static: ELF image",
	                                   "baseline RSS", "peak RSS", "stack", "heap peak", "allocations (n)" };
	struct rd_table *t = rdoc_table(d, 9, hdr);
	struct rd_chart *chart = NULL;
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		if (baseline_skips(in, "mem"))
			continue;
		for (int k = 0; k < (in->nops ? in->nops : 1); k++) {
			const struct rs_op *o = in->nops ? &in->ops[k] : NULL;
			const json_t *m = o ? o->memory : NULL;
			char img[32] = "–", base[32] = "–", peak[1200] = "–", st[32] = "–", heap[32] = "–", al[32] = "–";
			double si = static_image(in, o);
			if (si >= 0)
				fmt_bytes_binary(img, sizeof img, si);
			if (!m) {
				missing_text(in, "mem", peak, sizeof peak);
			} else if (rec_failed(m)) {
				char why[1024];
				failure_text(m, why, sizeof why);
				snprintf(peak, sizeof peak, "failed: %s", why);
			} else {
				fmt_bytes_binary(base, sizeof base, jp_num(m, "memory.baseline_rss", NAN));
				fmt_bytes_binary(peak, sizeof peak, jp_num(m, "memory.peak_rss", NAN));
				fmt_bytes_binary(st, sizeof st, jp_num(m, "memory.stack.used", NAN));
				if (jp_true(m, "memory.heap.available")) {
					fmt_bytes_binary(heap, sizeof heap, jp_num(m, "memory.heap.peak_live_bytes", NAN));
					fmt_grouped(al, sizeof al, jp_num(m, "memory.heap.allocs", NAN));
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

/* ---------------- transmission and storage overhead ---------------- */

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
		struct text_buf list = { 0 };
		int shown = 0;
		size_t j;
		json_t *sym;
		json_array_foreach(jp(in->sizes, "elf.top_symbols"), j, sym) {
			const char *kind = json_string_value(json_object_get(sym, "kind"));
			const char *name = json_string_value(json_object_get(sym, "name"));
			double sz = json_number_value(json_object_get(sym, "size"));
			if (!kind || !name || strcmp(kind, "rodata") != 0 || shown == 3)
				continue;
			text_printf(&list, "%s%s %.0f bytes (%.1f%%)", shown ? ", " : "", name, sz, 100.0 * sz / ro);
			shown++;
		}
		if (list.oom)
			d->oom = 1;
		rdoc_item(d, "%s: %.0f bytes of read-only data (.rodata) in a static image of %.0f bytes; largest "
		          "tables: %s.", row_name(in), ro, jp_num(in->sizes, "elf.image_memsz", NAN),
		          shown && !list.oom ? list.s : "none named (no symbol table)");
		text_free(&list);
	}
}

static void section_sizes(const struct record_set *rs, rdoc *d)
{
	int sig = 0, kem = 0;
	for (size_t i = 0; i < rs->ninst; i++) {
		const char *k = rs_kind(&rs->inst[i]);
		if (k && strcmp(k, "kem") == 0)
			kem = 1;
		else
			sig = 1;
	}
	rdoc_para(d, "Sizes in bytes as each instance declares them through its API; the produced lengths were "
	          "sampled over many seeds, and the size audit lists every disagreement.");
	const char *hdr[7] = { "instance", "profile", "public key (bytes)", "secret key (bytes)" };
	const char *keys[7] = { NULL, NULL, "pk", "sk" };
	int nc = 4;
	if (sig) {
		hdr[nc] = "signature (bytes)";
		keys[nc++] = "sig";
	}
	if (kem) {
		hdr[nc] = "ciphertext (bytes)";
		keys[nc++] = "ct";
		hdr[nc] = "shared secret (bytes)";
		keys[nc++] = "ss";
	}
	struct rd_table *t = rdoc_table(d, nc, hdr);
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		char val[7][32];
		const char *cells[7] = { row_name(in), profile_cell(in) };
		for (int c = 2; c < nc; c++) {
			double v = rs_declared_size(in, keys[c]);
			fmt_grouped(val[c], sizeof val[c], v);
			cells[c] = v > 0 ? val[c] : NULL;
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

/* ---------------- symmetric primitives ---------------- */

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

/*
 * "pseudoXOF 36,912, pseudohash 102", sorted by name; zero counts left
 * out.  As long as the list is; NULL when out of memory (then d->oom).
 * Counts that could not be made are "unavailable [N]", the reason in
 * footnote N of fn, said once however many rows share it.
 */
static char *calls_text(const json_t *prof, struct footnotes *fn, rdoc *d)
{
	struct text_buf t = { 0 };
	json_t *calls = jp(prof, "calls");
	json_t *fns = jp(calls, "functions");
	size_t n = json_array_size(fns), k = 0;
	json_t **v = calls && jp_true(calls, "available") ? calloc(n ? n : 1, sizeof *v) : NULL;
	if (!calls) {
		text_printf(&t, "–");
	} else if (!jp_true(calls, "available")) {
		struct text_buf why = { 0 };
		text_printf(&why, "Calls per operation unavailable: %s.", jp_str(calls, "reason", "no reason recorded"));
		int k = why.oom ? 0 : footnote(fn, why.s);
		text_free(&why);
		if (k > 0)
			text_printf(&t, "unavailable [%d]", k);
		else
			t.oom = 1;
	} else if (!v) {
		t.oom = 1;
	} else {
		for (size_t i = 0; i < n; i++)
			if (json_is_object(json_array_get(fns, i)))
				v[k++] = json_array_get(fns, i);
		qsort(v, k, sizeof *v, cmp_call);
		for (size_t i = 0; i < k; i++) {
			double c = jp_num(v[i], "calls_per_op", NAN);
			if (!isfinite(c) || c <= 0)
				continue;
			char num[64];
			fmt_readable(num, sizeof num, c);
			text_printf(&t, "%s%s %s", t.n ? ", " : "", jp_str(v[i], "name", "?"), num);
		}
		if (!t.n)
			text_printf(&t, "–");
	}
	free(v);
	if (t.oom) {
		d->oom = 1;
		text_free(&t);
	}
	return t.s;
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
	text_appendf(buf, len, "%s%s", buf[0] ? ", " : "", name);
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

/* The families in mask, by label; a text too long for buf ends in "…" (it goes into the fixed reason). */
static void families_text(const struct survey *sv, unsigned mask, int examples, char *buf, size_t len)
{
	int cut = 0;
	buf[0] = '\0';
	for (int f = 0; f < sv->nfam && !cut; f++)
		if (mask >> f & 1u)
			cut = text_appendf(buf, len, "%s%s%s%s%s", buf[0] ? ", " : "", sv->own_label[f],
			                   examples && sv->own_example[f] ? " (" : "",
			                   examples && sv->own_example[f] ? sv->own_example[f] : "",
			                   examples && sv->own_example[f] ? ")" : "");
	if (cut)
		text_mark_cut(buf, len);
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

/* The rule is in doc/measurements.md ("Section 7: symmetric primitives") and pqprof(1). */
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
		if (unused[0] && text_appendf(sv->reason, sizeof sv->reason, "; own %s present but unused", unused) < 0)
			text_mark_cut(sv->reason, sizeof sv->reason);
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
	rdoc_para(d, "The verdict: ICCS-only when the placeholder hash functions run and none of the scheme's own hash/XOF families does; bypass when "
	          "only its own families run; mixed when both do; not applicable for NIST-API instances or when "
	          "no hash/XOF function runs. \"Run\" means sampled or counted in a profiled operation; samples "
	          "inside the placeholder functions or the DRNG belong to those, not to a family. The glue named "
	          "with a verdict is found in the library's machine code (direct calls to the placeholder "
	          "functions) and named by its DWARF line table, the placeholder functions' own file aside.");
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
	/* The section's terms, once, before their first use. */
	rdoc_para(d, "Terms: ICCS is China's Institute of Commercial Cryptography Standards, which runs the NGCC "
	          "competition and ships its placeholder hash functions (pseudohash, pseudoXOF, sm3hash) and its "
	          "DRNG (the deterministic random number generator behind randombytes) with the competition's KAT "
	          "program; glue is the scheme's own code that calls those placeholder functions.");
	survey_lines(rs, d);
	rdoc_para(d, "Share of each operation spent in the placeholder hash functions and in the DRNG: the share of sampled call stacks with a frame in the "
	          "group's functions, with its 95%% interval (\"" NA_TEXT "\" when the library has none, here "
	          "and among the hotspots); calls per operation are exact counts (uprobes).");
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
	struct footnotes fn = { .n = 0 };
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		if (baseline_skips(in, "profile"))
			continue;
		for (int k = 0; k < in->nops; k++) {
			const json_t *p = in->ops[k].profile;
			char cellbuf[MAX_GROUPS][96], missing[2048];
			const char *cells[MAX_GROUPS + 4] = { row_name(in), profile_cell(in), in->ops[k].op };
			for (int g = 0; g < ng; g++)
				cells[3 + g] = share_cell(named(p, "groups", groups[g]), cellbuf[g], sizeof cellbuf[g]);
			char *calls = p ? calls_text(p, &fn, d) : NULL;
			if (!p)
				missing_text(in, "profile", missing, sizeof missing);
			cells[3 + ng] = p ? calls : missing;
			rd_row(d, t, cells, 1u);
			free(calls);
		}
	}
	for (int i = 0; i < fn.n; i++) {
		rdoc_para(d, "[%d] %s", i + 1, fn.text[i]);
		free(fn.text[i]);
	}
	own_families(rs, d);
}

/* ---------------- the evidence index ---------------- */

static void section_evidence(const struct record_set *rs, rdoc *d)
{
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

static int cmp_self(const void *a, const void *b)
{
	double x = jp_num(*(json_t *const *)a, "self_share", NAN), y = jp_num(*(json_t *const *)b, "self_share", NAN);
	if (!isfinite(x))
		x = -1;
	if (!isfinite(y))
		y = -1;
	return x < y ? 1 : x > y ? -1 : 0;
}

static int cmp_loop_share(const void *a, const void *b)
{
	double x = jp_num(*(json_t *const *)a, "share", NAN), y = jp_num(*(json_t *const *)b, "share", NAN);
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
		static const char *const hdr[] = { "function", "loop (addresses)", "source", "share" };
		struct rd_table *t = rdoc_table(d, 4, hdr);
		for (i = 0; i < n && i < TOP_LOOPS; i++) {
			char where[96], sh[32];
			snprintf(where, sizeof where, "%s–%s, %.0f instructions", jp_str(v[i], "start", "?"),
			         jp_str(v[i], "end", "?"), jp_num(v[i], "insns", 0));
			report_fmt_share(sh, sizeof sh, jp_num(v[i], "share", NAN));
			const char *cells[] = { jp_str(v[i], "function", "?"), where, jp_str(v[i], "source", NULL), sh };
			rd_row(d, t, cells, 1u | 4u);
		}
	}
	if (!n) {
		/* Say why the table is missing rather than leave it out silently. */
		char names[512] = "";
		int errors = 0;
		json_array_foreach(ann, i, a) {
			if (jp_str(a, "error", NULL))
				errors++;
			else
				add_name(names, sizeof names, jp_str(a, "function", NULL));
		}
		if (!json_array_size(ann))
			rdoc_para(d, "Hottest loops: none listed, because no function of this operation was annotated "
			          "(disassembled).");
		else if (names[0])
			rdoc_para(d, "Hottest loops: none, because the annotated functions (%s) have no back edge in their "
			          "machine code.", names);
		else
			rdoc_para(d, "Hottest loops: none listed, because the disassembly of the hottest functions failed "
			          "(%d of them).", errors);
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
	report_fmt_share(sh, sizeof sh, jp_num(a, "share", NAN));
	report_fmt_share(self, sizeof self, jp_num(a, "self_share", NAN));
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
				report_fmt_share(lsh, sizeof lsh, jp_num(l, "share", NAN));
			else
				snprintf(lsh, sizeof lsh, "·");
			const char *cells[] = { where, lsh, smp, jp_str(l, "text", "") };
			rd_row(d, t, cells, 1u | 8u);
		}
	}
	const json_t *ins = jp(a, "instructions");
	rdoc_fold(d, "Disassembly of %s (%.0f instructions)", jp_str(a, "function", "?"),
	          jp_num(a, "instructions_total", (double)json_array_size(ins)));
	struct text_buf t = { 0 };
	size_t i;
	json_t *x;
	json_array_foreach(ins, i, x) {
		char pct[16] = "";
		if (jp_num(x, "samples", 0) > 0)
			snprintf(pct, sizeof pct, "%5.1f%%", 100 * jp_num(x, "share", NAN));
		const char *f = jp_str(x, "file", NULL);
		char src[256] = "";
		if (f)
			snprintf(src, sizeof src, "  ; %s:%.0f", f, jp_num(x, "line", 0));
		text_printf(&t, "%7s %7.0f  %-10s %-40s%s\n", pct, jp_num(x, "samples", 0), jp_str(x, "addr", "?"),
		            jp_str(x, "asm", "?"), src);
	}
	if (t.oom)
		d->oom = 1;
	else
		rdoc_pre(d, t.s ? t.s : "");
	text_free(&t);
	rdoc_fold_end(d);
	rdoc_fold_end(d);
}

/*
 * A cost per call in the profile's unit: a time with the unit its size
 * calls for when the profiler counted nanoseconds ("2.9 µs"), else the
 * count with its unit ("2.9 k cycles").
 */
static void fmt_cost_unit(char *buf, size_t len, double v, const char *unit)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "–");
	} else if (strcmp(unit, "ns") == 0) {
		fmt_seconds(buf, len, v * 1e-9);
	} else {
		char c[32];
		fmt_count(c, sizeof c, v);
		snprintf(buf, len, "%s %s", c, unit);
	}
}

/*
 * The stacks of an operation's profile that did not reach the scheme's
 * entry frame: the unwinder's count where the trace has one, else the
 * samples whose outermost frame was still in the library.  One count,
 * one name ("incomplete stacks"), wherever the report gives it.
 */
static void incomplete_stacks(const json_t *p, double *k, double *n)
{
	if (jp(p, "unwind.stacks")) {
		*k = jp_num(p, "unwind.incomplete", 0);
		*n = jp_num(p, "unwind.stacks", 0);
	} else {
		*k = jp_num(p, "truncated", 0);
		*n = jp_num(p, "samples", 0);
	}
}

/* The event fallback every profiled operation shares, or NULL when they differ or none fell back. */
static const char *shared_fallback(const struct record_set *rs)
{
	const char *f = NULL;
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++) {
			const json_t *p = rs->inst[i].ops[k].profile;
			if (!p)
				continue;
			const char *x = jp_str(p, "event_fallback", "");
			if (!x[0] || (f && strcmp(f, x) != 0))
				return NULL;
			f = x;
		}
	return f;
}

static void hotspot(const struct rs_instance *in, const struct rs_op *o, int fallback_said, rdoc *d)
{
	const json_t *p = o->profile;
	const char *unit = jp_str(p, "unit", "units");
	rdoc_heading(d, 3, NULL, "%s%s%s — %s", row_name(in), in->profile[0] ? " / " : "", in->profile, o->op);
	char upo[64], smp[32], ops[32], lost[32];
	fmt_cost_unit(upo, sizeof upo, jp_num(p, "units_per_op", NAN), unit);
	fmt_grouped(smp, sizeof smp, jp_num(p, "samples", 0));
	fmt_grouped(ops, sizeof ops, jp_num(p, "ops", 0));
	fmt_grouped(lost, sizeof lost, jp_num(p, "lost", 0));
	rdoc_para(d, "%s samples of %s (%s call graphs) over %s calls, %s lost; about %s per call.", smp,
	          jp_str(p, "event", "an unnamed event"), jp_str(p, "callgraph", "unknown"), ops, lost, upo);
	if (!fallback_said && jp_str(p, "event_fallback", "")[0])
		rdoc_para(d, "Event fallback: %s.", jp_str(p, "event_fallback", ""));
	double ik, in_n;
	incomplete_stacks(p, &ik, &in_n);
	if (in_n > 0 && ik / in_n > 0.01) {
		char a[32], b[32];
		fmt_grouped(a, sizeof a, ik);
		fmt_grouped(b, sizeof b, in_n);
		rdoc_para(d, "Incomplete stacks: %s of %s (%.1f%%).", a, b, 100 * ik / in_n);
	}
	if (jp(p, "perturbation")) {
		char on[32], off[32], calls[32];
		fmt_seconds(on, sizeof on, jp_num(p, "perturbation.on_ns", NAN) * 1e-9);
		fmt_seconds(off, sizeof off, jp_num(p, "perturbation.off_ns", NAN) * 1e-9);
		fmt_grouped(calls, sizeof calls, jp_num(p, "perturbation.on_calls", 0));
		rdoc_para(d, "Profiling's own perturbation: a sampled call took %s of CPU time on average, an unsampled "
		          "one %s (x%.3f; wall clock x%.3f), over %s calls of each, interleaved one by one.", on, off,
		          jp_num(p, "perturbation.ratio", NAN), jp_num(p, "perturbation.wall_ratio", NAN), calls);
	}
	json_t *fns = jp(p, "functions");
	size_t n = json_array_size(fns), k = 0;
	json_t **v = calloc(n ? n : 1, sizeof *v);
	if (v) {
		for (size_t i = 0; i < n; i++)
			if (json_is_object(json_array_get(fns, i)))
				v[k++] = json_array_get(fns, i);
		qsort(v, k, sizeof *v, cmp_self);
		const char *hdr[] = { "function", "module", "self (95% interval)", "inclusive (95% interval)",
		                      "est. cost per op" };
		struct rd_table *t = k ? rdoc_table(d, 5, hdr) : NULL;
		for (size_t i = 0; i < k && i < TOP_FUNCTIONS; i++) {
			char self[96], incl[96], per[64];
			fmt_share_ci(self, sizeof self, jp_num(v[i], "self_share", NAN), jp_num(v[i], "self_lo", NAN),
			             jp_num(v[i], "self_hi", NAN));
			fmt_share_ci(incl, sizeof incl, jp_num(v[i], "incl_share", NAN), jp_num(v[i], "incl_lo", NAN),
			             jp_num(v[i], "incl_hi", NAN));
			fmt_cost_unit(per, sizeof per, jp_num(v[i], "units_per_op", NAN), unit);
			const char *cells[] = { jp_str(v[i], "name", "[unknown]"), jp_str(v[i], "module", NULL), self, incl,
			                        per };
			rd_row(d, t, cells, 1u);
			if (jp_true(v[i], "inlined"))
				rd_suffix(d, t, 0, " [inlined]");
		}
		free(v);
		if (!k)
			rdoc_para(d, "No function attribution in this profile.");
	}
	json_t *lines = jp(p, "lines");
	if (json_array_size(lines)) {
		static const char *const hdr[] = { "function", "source line", "samples (n)", "share" };
		struct rd_table *t = rdoc_table(d, 4, hdr);
		for (size_t i = 0; i < json_array_size(lines) && i < TOP_LINES; i++) {
			json_t *l = json_array_get(lines, i);
			char where[1200], smp[32], sh[32];
			snprintf(where, sizeof where, "%s:%.0f", jp_str(l, "file", "?"), jp_num(l, "line", 0));
			fmt_grouped(smp, sizeof smp, jp_num(l, "samples", NAN));
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

static void section_hotspots(const struct record_set *rs, const struct outline *ol, rdoc *d)
{
	int any = 0;
	const char *fallback = shared_fallback(rs);
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++)
			if (rs->inst[i].ops[k].profile) {
				if (!any) {
					rdoc_para(d, "Where each profiled operation spends its time: the functions with the "
					          "largest self share of samples, with 95%% intervals, and the estimated cost "
					          "per call of each; then its hottest source lines and its hottest loops (back "
					          "edges in the disassembly of the hottest functions). A function marked [inlined] was sampled "
					          "only in copies inlined into its callers. The shares of the "
					          "placeholder hash functions and the DRNG are in section %d.",
					          ol->number[SEC_SYMMETRIC]);
					rdoc_para(d, "Incomplete stacks are those that did not reach the scheme's entry frame: "
					          "a function above the cut in them has its inclusive share low by up to their "
					          "share, while a function seen in every sample, such as the entry point, reads "
					          "100%% regardless.");
					if (fallback)
						rdoc_para(d, "Event fallback, for every profiled operation: %s.", fallback);
				}
				any = 1;
				hotspot(&rs->inst[i], &rs->inst[i].ops[k], fallback != NULL, d);
			}
	if (!any)
		rdoc_para(d, "No operation was profiled.");
}

/* Number the sections this record set has, 1, 2, ... in report order. */
static void outline_plan(const struct record_set *rs, struct outline *ol)
{
	int next = 1;
	for (int s = 0; s < SEC_COUNT; s++) {
		int present = s == SEC_LEAKS ? report_leak_present(rs) : s == SEC_COMPARISON ? report_compare_present(rs) : 1;
		ol->number[s] = present ? next++ : 0;
	}
}

static int section_body(enum section s, const struct record_set *rs, const struct outline *ol, rdoc *d,
                        pq_error *err)
{
	switch (s) {
	case SEC_BASIC: section_basic(rs, d); break;
	case SEC_ENV: section_env(rs, d); break;
	case SEC_KAT: section_kat(rs, ol, d); break;
	case SEC_PERF: section_perf(rs, ol, d); break;
	case SEC_RESOURCES: section_memory(rs, d); break;
	case SEC_SIZES: section_sizes(rs, d); break;
	case SEC_SYMMETRIC: section_symmetric(rs, d); break;
	case SEC_HOTSPOTS: section_hotspots(rs, ol, d); break;
	case SEC_LEAKS: report_section_leak(rs, d); break;
	case SEC_COMPARISON: return report_section_compare(rs, d, err);
	case SEC_EVIDENCE: section_evidence(rs, d); break;
	case SEC_COUNT: break;
	}
	return 0;
}

int report_build_doc(const struct record_set *rs, rdoc *doc, pq_error *err)
{
	struct outline ol;
	outline_plan(rs, &ol);
	section_title(rs, &ol, doc);
	json_t *summary = report_summary(rs);
	if (summary) {
		report_summary_doc(summary, doc);
		report_summary_charts(summary, doc);
	} else
		doc->oom = 1;
	json_decref(summary);
	int r = 0;
	for (int s = 0; s < SEC_COUNT && r == 0; s++) {
		if (!ol.number[s])
			continue;
		rdoc_heading(doc, 2, section_names[s].anchor, "%d. %s", ol.number[s], section_names[s].title);
		r = section_body((enum section)s, rs, &ol, doc, err);
	}
	if (r < 0)
		return r;
	if (doc->oom)
		return pq_fail(err, PQ_ENOMEM, "out of memory building the report");
	return 0;
}
