/*
 * report_csv: every figure of a record set in long form, one row per
 * (instance, profile, op, metric): a spreadsheet or a script filters rows
 * instead of guessing which wide column means what, and new metrics never
 * shift old columns.  Columns: instance, profile, label, op (empty for
 * per-instance figures), section, metric, value, unit.  Numbers are
 * written with 15 significant digits; text values (verdicts, failure
 * reasons) are quoted per RFC 4180.
 */
#include "config.h"
#include "report/report.h"
#include "report/escape.h"
#include "report/report_summary.h"
#include "core/atomic_file.h"
#include "core/jpath.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct csv_ctx {
	FILE *f;
	const struct rs_instance *in;
	const char *op;
};

static void row_start(struct csv_ctx *c, const char *section, const char *metric)
{
	esc_csv(c->f, c->in->name);
	fputc(',', c->f);
	esc_csv(c->f, c->in->profile);
	fputc(',', c->f);
	esc_csv(c->f, c->in->label);
	fputc(',', c->f);
	esc_csv(c->f, c->op);
	fputc(',', c->f);
	esc_csv(c->f, section);
	fputc(',', c->f);
	esc_csv(c->f, metric);
	fputc(',', c->f);
}

static void num_row(struct csv_ctx *c, const char *section, const char *metric, double v, const char *unit)
{
	if (!isfinite(v))
		return;
	row_start(c, section, metric);
	fprintf(c->f, "%.15g,", v);
	esc_csv(c->f, unit);
	fputs("\r\n", c->f);
}

static void text_row(struct csv_ctx *c, const char *section, const char *metric, const char *v)
{
	if (!v)
		return;
	row_start(c, section, metric);
	esc_csv(c->f, v);
	fputs(",\r\n", c->f);
}

static void failure_row(struct csv_ctx *c, const char *section, const json_t *rec)
{
	json_t *f = jp(rec, "failure");
	if (json_is_string(f))
		text_row(c, section, "failure", json_string_value(f));
	else if (f)
		text_row(c, section, "failure", jp_str(f, "reason", "no reason recorded"));
}

static void instance_rows(struct csv_ctx *c)
{
	const struct rs_instance *in = c->in;
	c->op = "";
	text_row(c, "build", "status", jp_str(in->build, "status", NULL));
	failure_row(c, "build", in->build);
	text_row(c, "kat", "verdict", jp_str(in->kat, "outcome.verdict", NULL));
	const char *reason = jp_str(in->kat, "outcome.reason", NULL);
	if (reason && reason[0])
		text_row(c, "kat", "reason", reason);
	num_row(c, "kat", "validated", rs_validated(in), "");
	static const char *const keys[] = { "pk", "sk", "sig", "ct", "ss" };
	for (int i = 0; i < 5; i++) {
		static const char *const parts[] = { "declared", "min", "max" };
		for (int p = 0; p < 3; p++) {
			char path[32], metric[32];
			snprintf(path, sizeof path, "%s.%s", keys[i], parts[p]);
			snprintf(metric, sizeof metric, "%s_%s", keys[i], parts[p]);
			num_row(c, "sizes", metric, jp_num(in->sizes, path, NAN), "bytes");
		}
	}
	num_row(c, "sizes", "static_image", jp_num(in->sizes, "elf.image_memsz", NAN), "bytes");
	failure_row(c, "sizes", in->sizes);
}

static void op_rows(struct csv_ctx *c, const struct rs_op *o)
{
	c->op = o->op;
	const json_t *b = o->bench;
	if (b) {
		const char *unit = report_bench_unit(b);
		text_row(c, "performance", "status", jp_str(b, "status", NULL));
		failure_row(c, "performance", b);
		text_row(c, "performance", "backend", jp_str(b, "backend.name", NULL));
		static const char *const um[] = { "mean_units", "median_trial_units", "min_units", "p90_units" };
		for (int i = 0; i < 4; i++) {
			char path[64];
			snprintf(path, sizeof path, "summary.%s", um[i]);
			num_row(c, "performance", um[i], jp_num(b, path, NAN), unit ? unit : "");
		}
		num_row(c, "performance", "mean_ns", jp_num(b, "summary.mean_ns", NAN), "ns");
		/* The headline (median and minimum of per-call values) and the contention count, where recorded. */
		if (isfinite(jp_num(b, "summary.median_units", NAN))) {
			num_row(c, "performance", "median_units", jp_num(b, "summary.median_units", NAN), unit ? unit : "");
			num_row(c, "performance", "median_ns", jp_num(b, "summary.median_ns", NAN), "ns");
			num_row(c, "performance", "min_ns", jp_num(b, "summary.min_ns", NAN), "ns");
		}
		if (jp(b, "contention"))
			num_row(c, "performance", "trials_flagged", jp_num(b, "contention.trials_flagged", NAN), "trials");
		num_row(c, "performance", "median_trial_ns", jp_num(b, "summary.median_trial_ns", NAN), "ns");
		num_row(c, "performance", "ops_per_s", jp_num(b, "summary.ops_per_s", NAN), "1/s");
		num_row(c, "performance", "cv_trials", jp_num(b, "summary.cv_trials", NAN), "");
		num_row(c, "performance", "n", jp_num(b, "summary.n", NAN), "calls");
		num_row(c, "performance", "trials", jp_num(b, "summary.trials", NAN), "");
		num_row(c, "performance", "iters", jp_num(b, "summary.iters", NAN), "calls");
	}
	const json_t *m = o->memory;
	if (m) {
		text_row(c, "memory", "status", jp_str(m, "status", NULL));
		failure_row(c, "memory", m);
		num_row(c, "memory", "static_image", jp_num(m, "static_image_bytes", NAN), "bytes");
		num_row(c, "memory", "baseline_rss", jp_num(m, "memory.baseline_rss", NAN), "bytes");
		num_row(c, "memory", "peak_rss", jp_num(m, "memory.peak_rss", NAN), "bytes");
		num_row(c, "memory", "stack_used", jp_num(m, "memory.stack.used", NAN), "bytes");
		if (jp_true(m, "memory.heap.available")) {
			num_row(c, "memory", "heap_peak_live", jp_num(m, "memory.heap.peak_live_bytes", NAN), "bytes");
			num_row(c, "memory", "heap_allocs", jp_num(m, "memory.heap.allocs", NAN), "calls");
		}
	}
	const json_t *p = o->profile;
	if (p) {
		const char *unit = jp_str(p, "unit", "");
		num_row(c, "profile", "samples", jp_num(p, "samples", NAN), "samples");
		num_row(c, "profile", "units_per_op", jp_num(p, "units_per_op", NAN), unit);
		size_t i;
		json_t *g;
		json_array_foreach(jp(p, "groups"), i, g) {
			static const char *const parts[] = { "share", "lo", "hi" };
			for (int k = 0; k < 3; k++) {
				char metric[160];
				snprintf(metric, sizeof metric, "group_%s_%s", jp_str(g, "name", "?"), parts[k]);
				num_row(c, "profile", metric, jp_num(g, parts[k], NAN), "fraction");
			}
		}
		if (jp_true(p, "calls.available")) {
			json_t *fn;
			json_array_foreach(jp(p, "calls.functions"), i, fn) {
				char metric[300];
				snprintf(metric, sizeof metric, "calls_%s", jp_str(fn, "name", "?"));
				num_row(c, "profile", metric, jp_num(fn, "calls_per_op", NAN), "calls/op");
			}
		} else if (jp(p, "calls")) {
			text_row(c, "profile", "calls_unavailable", jp_str(p, "calls.reason", "no reason recorded"));
		}
	}
	const json_t *l = o->leak;
	if (l) {
		text_row(c, "leak", "status", jp_str(l, "status", NULL));
		failure_row(c, "leak", l);
		text_row(c, "leak", "verdict", jp_str(l, "verdict", NULL));
		size_t i;
		json_t *pr;
		json_array_foreach(jp(l, "pairs"), i, pr) {
			const char *cl = jp_str(pr, "classes", "?");
			char metric[160];
			snprintf(metric, sizeof metric, "%s_verdict", cl);
			text_row(c, "leak", metric, jp_str(pr, "verdict", NULL));
			snprintf(metric, sizeof metric, "%s_measurements", cl);
			num_row(c, "leak", metric, jp_num(pr, "measurements", NAN), "calls");
			snprintf(metric, sizeof metric, "%s_max_abs_t", cl);
			num_row(c, "leak", metric, jp_num(pr, "max_abs_t", NAN), "");
		}
	}
}

/*
 * The unit's role, security category and, for a candidate, each operation
 * and size as a multiple of its baseline's: the summary row's figures
 * (report_summary.h), so the CSV and report.json cannot disagree.
 */
static void baseline_rows(struct csv_ctx *c, const json_t *row)
{
	if (!row)
		return;
	c->op = "";
	text_row(c, "baseline", "role", jp_str(row, "role", NULL));
	num_row(c, "baseline", "category", jp_num(row, "category", NAN), "");
	text_row(c, "baseline", "category_from", jp_str(row, "category_from", NULL));
	const json_t *b = jp(row, "baseline");
	if (!b)
		return;
	text_row(c, "baseline", "instance", jp_str(b, "instance", NULL));
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)jp(b, "sizes"), key, v) {
		char metric[32];
		snprintf(metric, sizeof metric, "%s_ratio", key);
		num_row(c, "baseline", metric, json_number_value(v), "x");
	}
	json_object_foreach((json_t *)jp(b, "ops"), key, v) {
		c->op = key;
		num_row(c, "baseline", "ratio", jp_num(v, "ratio", NAN), "x");
		num_row(c, "baseline", "ratio_lo", jp_num(v, "lo", NAN), "x");
		num_row(c, "baseline", "ratio_hi", jp_num(v, "hi", NAN), "x");
		num_row(c, "baseline", "trials", jp_num(v, "trials", NAN), "rounds");
	}
}

int report_write_csv(const struct record_set *rs, const char *path, pq_error *err)
{
	atomic_file af;
	int r = atomic_file_open(&af, path, err);
	if (r < 0)
		return r;
	struct csv_ctx c = { .f = af.fp };
	json_t *summary = report_summary(rs);
	fputs("instance,profile,label,op,section,metric,value,unit\r\n", af.fp);
	for (size_t i = 0; i < rs->ninst; i++) {
		c.in = &rs->inst[i];
		instance_rows(&c);
		for (int k = 0; k < rs->inst[i].nops; k++)
			op_rows(&c, &rs->inst[i].ops[k]);
		baseline_rows(&c, json_array_get(jp(summary, "rows"), i));
	}
	json_decref(summary);
	return atomic_file_commit(&af, err);
}
