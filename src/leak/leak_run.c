/* leak_run: class pairs in runner children, verdicts, the record; see leak_run.h. */
#include "config.h"
#include "runner/op_ctx.h"
#include "core/jpath.h"
#include "core/text_buf.h"
#include "leak/leak_run.h"
#include "supervise/output_log.h"
#include "leak/leak_classes.h"
#include "supervise/bench.h"
#include "supervise/child.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t pair_sum(const json_t *o, const char *k)
{
	json_t *a = json_object_get(o, k);
	return (uint64_t)json_integer_value(json_array_get(a, 0)) + (uint64_t)json_integer_value(json_array_get(a, 1));
}

/*
 * The most sensitive first-order test: the smallest difference of means it
 * would have seen, in counter units and as a share of the fixed class's
 * mean.  NULL when no test had enough measurements.
 */
static json_t *resolution(const json_t *done, char *text, size_t len)
{
	json_t *res = json_object_get(done, "resolution"), *tests = json_object_get(done, "tests");
	size_t n = json_array_size(res);
	int best = -1;
	double bv = 0;
	text[0] = '\0';
	for (size_t i = 0; i + 1 < n; i++) {  /* the last test is second order, in squared units */
		double v = json_number_value(json_array_get(res, i));
		if (v > 0 && (best < 0 || v < bv)) {
			best = (int)i;
			bv = v;
		}
	}
	if (best < 0)
		return NULL;
	double mean = json_number_value(json_object_get(json_array_get(json_object_get(done, "classes_uncropped"), 0),
	                                                "mean"));
	const char *unit = json_string_value(json_object_get(done, "unit")) ?: "units";
	const char *test = json_string_value(json_array_get(tests, (size_t)best)) ?: "?";
	double share = mean > 0 ? bv / mean : 0;
	snprintf(text, len, "%.1f standard errors are %.1f %s (%.3f%% of the mean), crop %s", LEAK_T_THRESHOLD, bv,
	         unit, 100.0 * share, test);
	return json_pack("{s:f, s:s, s:f, s:s}", "units", bv, "unit", unit, "share_of_mean", share, "test", test);
}

/* A t trace from the child's record; NULL (and *npts 0) when empty or out of memory. */
static struct leak_point *trace_points(const json_t *trace, int ntests, size_t *npts)
{
	*npts = json_array_size(trace);
	struct leak_point *pts = *npts ? calloc(*npts, sizeof *pts) : NULL;
	if (!pts) {
		*npts = 0;
		return NULL;
	}
	for (size_t k = 0; k < *npts; k++) {
		json_t *p = json_array_get(trace, k), *t = json_object_get(p, "t");
		pts[k].n = (uint64_t)json_integer_value(json_object_get(p, "n"));
		for (int i = 0; i < ntests; i++)
			pts[k].t[i] = json_number_value(json_array_get(t, (size_t)i));
	}
	return pts;
}

/* The largest |t| of any test at any point of a trace. */
static double trace_max_t(const json_t *trace)
{
	double m = 0;
	size_t k, i;
	json_t *p, *v;
	json_array_foreach(trace, k, p)
		json_array_foreach(json_object_get(p, "t"), i, v) {
			double a = fabs(json_number_value(v));
			if (isfinite(a) && a > m)
				m = a;
		}
	return m;
}

/* What the child measured, read back for the judge. */
struct pair_evidence {
	struct leak_judgement j;
	struct leak_contention c;
	struct leak_effect effects[LEAK_MAX_TESTS];
	double control_max_t;
	double floor, mean;
};

static void judge_done(const json_t *done, const struct leak_floor *floor, struct pair_evidence *ev)
{
	json_t *tests = json_object_get(done, "tests");
	int ntests = (int)json_array_size(tests);
	if (ntests > LEAK_MAX_TESTS)
		ntests = LEAK_MAX_TESTS;
	size_t npts;
	struct leak_point *pts = trace_points(json_object_get(done, "trace"), ntests, &npts);
	const char *names[LEAK_MAX_TESTS];
	for (int i = 0; i < ntests; i++)
		names[i] = json_string_value(json_array_get(tests, (size_t)i)) ?: "?";
	struct leak_contention *c = &ev->c;
	json_t *cj = json_object_get(done, "contention");
	memset(c, 0, sizeof *c);
	c->wall_s = jp_num(cj, "wall_s", 0);
	c->cpu_s = jp_num(cj, "cpu_s", 0);
	c->nivcsw = (long)jp_num(cj, "nivcsw", 0);
	c->nvcsw = (long)jp_num(cj, "nvcsw", 0);
	c->kept = pair_sum(cj, "kept");
	c->dropped = pair_sum(cj, "dropped");
	c->load_start = jp_num(cj, "load_start", 0);
	c->load_end = jp_num(cj, "load_end", 0);
	c->ncpu = (int)jp_num(cj, "ncpu", 0);
	char unused[200];
	json_t *reso = resolution(done, unused, sizeof unused);
	c->resolution_share = reso ? jp_num(reso, "share_of_mean", 0) : 0;
	json_decref(reso);
	memset(ev->effects, 0, sizeof ev->effects);
	json_t *eff = json_object_get(done, "effects");
	for (int i = 0; i < ntests && i < (int)json_array_size(eff); i++) {
		ev->effects[i].diff = jp_num(json_array_get(eff, (size_t)i), "diff", 0);
		ev->effects[i].se = jp_num(json_array_get(eff, (size_t)i), "se", 0);
	}
	ev->mean = jp_num(done, "mean", 0);
	ev->floor = leak_floor_at(floor, ev->mean);
	ev->control_max_t = trace_max_t(json_object_get(json_object_get(done, "control"), "trace"));
	struct leak_practical pr = {
		.effects = json_array_size(eff) ? ev->effects : NULL, .floor = ev->floor,
		.control_max_t = ev->control_max_t, .unit = json_string_value(json_object_get(done, "unit")) ?: "units",
	};
	leak_judge(pts, npts, ntests, names, c, NULL, &pr, &ev->j);
	free(pts);
}

/* A signed figure with as many decimals as its size needs. */
static void signed_fig(char *buf, size_t len, double v)
{
	double a = fabs(v);
	snprintf(buf, len, a >= 100 ? "%+.0f" : a >= 10 ? "%+.1f" : a >= 1 ? "%+.2f" : "%+.3f", v);
}

/*
 * The effect of the reported test as words and as a record: the
 * difference with its 95% interval in counter units and in ns, the floor
 * and what the A/A control reached.
 */
static json_t *effect_record(const struct leak_pair *p, const json_t *done, const struct leak_floor *floor,
                             const struct pair_evidence *ev, char *text, size_t len)
{
	const struct leak_judgement *j = &ev->j;
	const char *unit = json_string_value(json_object_get(done, "unit")) ?: "units";
	const char *test = j->effect_test >= 0 ?
	        json_string_value(json_array_get(json_object_get(done, "tests"), (size_t)j->effect_test)) : NULL;
	const char *classes = p->input == LEAK_IN_VALIDITY ? "valid minus invalid" : "fixed minus random";
	double npu = jp_num(done, "ns_per_unit", 0);
	int measured = strcmp(json_string_value(json_object_get(done, "ns_per_unit_from")) ?: "", "measured") == 0;
	char d[32], lo[32], hi[32], nd[32], nlo[32], nhi[32], ns[160] = "";
	signed_fig(d, sizeof d, j->effect);
	signed_fig(lo, sizeof lo, j->effect_lo);
	signed_fig(hi, sizeof hi, j->effect_hi);
	if (npu > 0) {
		signed_fig(nd, sizeof nd, j->effect * npu);
		signed_fig(nlo, sizeof nlo, j->effect_lo * npu);
		signed_fig(nhi, sizeof nhi, j->effect_hi * npu);
		snprintf(ns, sizeof ns, ", %s%s ns (%s to %s)", measured ? "about " : "", nd, nlo, nhi);
	}
	char share[32];
	snprintf(share, sizeof share, "%g%%", 100 * floor->share);
	/* The unit comes from the record, of any length: a text too long for text[len] ends in "…". */
	int cut;
	text[0] = '\0';
	if (test)
		cut = text_appendf(text, len, "effect (%s, %s): %s %s (95%% interval %s to %s)%s", classes,
		                   strcmp(test, "second-order") == 0 ? "RMS deviation, second order" : test[0] == 'p' ?
		                   test : "uncropped", d, unit, lo, hi, ns);
	else
		cut = text_appendf(text, len, "effect: not measured (too few measurements)");
	if (!cut)
		cut = text_appendf(text, len, "; floor %.3g %s (the larger of %g %s and %s of the mean, %.1f); "
		                   "A/A control's largest |t| %.2f", ev->floor, unit, floor->units, unit, share, ev->mean,
		                   ev->control_max_t);
	if (cut)
		text_mark_cut(text, len);
	json_t *r = json_pack("{s:s, s:s?, s:f, s:f, s:f, s:s}", "compared", classes, "test", test, "units", j->effect,
	                      "low", j->effect_lo, "high", j->effect_hi, "unit", unit);
	if (npu > 0)
		json_object_update_new(r, json_pack("{s:f, s:f, s:f, s:f, s:s}", "ns", j->effect * npu, "ns_low",
		                                    j->effect_lo * npu, "ns_high", j->effect_hi * npu, "ns_per_unit", npu,
		                                    "ns_per_unit_from", measured ? "measured" : "counter"));
	return r;
}

static json_t *pair_record(const struct leak_pair *p, const json_t *done, const struct leak_floor *floor)
{
	struct pair_evidence ev;
	judge_done(done, floor, &ev);
	const struct leak_judgement *j = &ev.j;
	char ctext[320], rtext[200], etext[600], line[2400];
	leak_contention_text(&ev.c, ctext, sizeof ctext);
	const char *desc = json_string_value(json_object_get(done, "backend_desc")) ?: "?";
	json_t *reso = resolution(done, rtext, sizeof rtext);
	json_t *effect = effect_record(p, done, floor, &ev, etext, sizeof etext);
	snprintf(line, sizeof line, "%s; %s; compared: %s; counter: %s; contention: %s%s%s", j->text, etext, p->what,
	         desc, ctext, rtext[0] ? "; resolution: " : "", rtext);
	json_t *tests = json_object_get(done, "tests");
	json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:f, s:f}", "classes", p->name, "what", p->what,
	                      "verdict", leak_verdict_name(j->verdict), "text", j->text, "line", line,
	                      "measurements", (json_int_t)j->n, "max_abs_t", j->max_t, "threshold", j->threshold);
	if (j->test >= 0) {
		json_object_set(r, "deciding_test", json_array_get(tests, (size_t)j->test));
		json_object_set_new(r, "at_measurements", json_integer((json_int_t)j->at_n));
	}
	json_object_set_new(r, "effect", effect);
	json_object_set_new(r, "floor", json_pack("{s:f, s:f, s:f, s:f, s:O}", "units", ev.floor, "floor_units",
	                    floor->units, "floor_share", floor->share, "mean", ev.mean, "unit",
	                    json_object_get(done, "unit")));
	json_t *ctl = json_deep_copy(json_object_get(done, "control"));
	if (ctl) {
		json_object_update_new(ctl, json_pack("{s:s, s:s, s:f}", "classes", "random-vs-random", "what",
		                       "the class-1 inputs split in two by a coin of their own, interleaved with the pair",
		                       "max_abs_t", ev.control_max_t));
		json_object_set_new(r, "control", ctl);
	}
	json_object_set_new(r, "counter", json_pack("{s:O, s:O, s:O, s:O, s:O}",
	                    "backend", json_object_get(done, "backend"), "description", json_object_get(done, "backend_desc"),
	                    "unit", json_object_get(done, "unit"), "counts_cycles", json_object_get(done, "counts_cycles"),
	                    "fallback_reasons", json_object_get(done, "fallback_reasons")));
	if (reso)
		json_object_set_new(r, "resolution", reso);
	json_t *cont = json_deep_copy(json_object_get(done, "contention"));
	if (cont)
		json_object_set_new(cont, "text", json_string(ctext));
	json_object_set_new(r, "contention", cont ? cont : json_null());
	static const char *const copy[] = { "tests", "crops", "trace", "classes_uncropped", "effects",
	                                    "calibration_measurements", "interleave_seed", "budget_s", "batches",
	                                    "slots_per_batch", "message_bytes", NULL };
	for (int i = 0; copy[i]; i++) {
		json_t *v = json_object_get(done, copy[i]);
		if (v)
			json_object_set(r, copy[i], v);
	}
	return r;
}

static int run_pair(const struct leak_config *cfg, const struct leak_pair *p, double budget,
                    struct child_result *res, pq_error *err)
{
	char b[32], ml[32], mx[32], sd[32];
	snprintf(b, sizeof b, "%.3f", budget);
	snprintf(ml, sizeof ml, "%ld", cfg->mlen > 0 ? cfg->mlen : 64);
	snprintf(mx, sizeof mx, "%ld", cfg->max_measurements > 0 ? cfg->max_measurements : 0);
	snprintf(sd, sizeof sd, "%llu", (unsigned long long)cfg->seed);
	const char *args[20];
	int n = 0;
	args[n++] = "--op";
	args[n++] = pq_op_name(cfg->op);
	args[n++] = "--classes";
	args[n++] = p->name;
	args[n++] = "--budget";
	args[n++] = b;
	args[n++] = "--mlen";
	args[n++] = ml;
	args[n++] = "--measurements";
	args[n++] = mx;
	args[n++] = "--events";
	args[n++] = cfg->events ? cfg->events : "cycles";
	if (cfg->backend) {
		args[n++] = "--backend";
		args[n++] = cfg->backend;
	}
	if (cfg->seed) {
		args[n++] = "--seed";
		args[n++] = sd;
	}
	args[n] = NULL;
	struct child_spec cs = {
		.job = "leak", .lib = cfg->lib, .args = args,
		.timeout_s = cfg->timeout_s > 0 ? cfg->timeout_s : 2 * budget + 120, .cpu = cfg->cpu,
		.as_limit = child_default_as_limit(),
	};
	return child_run(&cs, res, err);
}

/* Worst first: leak likely, inconclusive, no leak above the floor, no leak detected. */
static int rank(enum leak_verdict v)
{
	return v == LEAK_LIKELY ? 3 : v == LEAK_INCONCLUSIVE ? 2 : v == LEAK_BELOW_FLOOR ? 1 : 0;
}

int leak_run_op(const struct leak_config *cfg, json_t **record, pq_error *err)
{
	*record = NULL;
	const struct leak_pair *pairs[16];
	char bad[128] = "";
	int np = leak_pairs_select(cfg->op, cfg->classes, pairs, 16, bad, sizeof bad);
	if (np < 0)
		return pq_fail(err, PQ_EUSAGE, "--classes: unknown class pair '%s'", bad);
	if (np == 0)
		return pq_fail(err, PQ_EUSAGE, "--classes: '%s' names no class pair of %s", cfg->classes ? cfg->classes : "",
		               pq_op_name(cfg->op));
	double budget = cfg->budget_s > 0 ? cfg->budget_s : LEAK_DEFAULT_BUDGET_S;
	struct leak_floor floor = cfg->floor ? *cfg->floor : (struct leak_floor){ LEAK_FLOOR_UNITS, LEAK_FLOOR_SHARE };
	json_t *rec = json_pack("{s:s, s:s, s:f, s:I, s:[]}", "schema", "pqprof.leak/1", "op", pq_op_name(cfg->op),
	                        "time_budget_s", budget, "message_bytes", (json_int_t)(cfg->mlen > 0 ? cfg->mlen : 64),
	                        "pairs");
	if (cfg->instance)
		json_object_set(rec, "instance", cfg->instance);
	if (op_ctx_keys_note(cfg->op))
		json_object_set_new(rec, "keys", json_string(op_ctx_keys_note(cfg->op)));
	if (cfg->command)
		json_object_set_new(rec, "command", json_string(cfg->command));
	if (cfg->environment)
		json_object_set(rec, "environment", cfg->environment);
	*record = rec;
	enum leak_verdict worst = LEAK_NOT_DETECTED;
	const json_t *worst_pair = NULL;
	for (int i = 0; i < np; i++) {
		struct child_result res;
		int r = run_pair(cfg, pairs[i], budget / np, &res, err);
		if (r < 0)
			return r;
		if (res.end != CHILD_OK || res.orphans) {
			char why[512];
			child_describe(&res, why, sizeof why);
			json_object_set_new(rec, "status", json_string("failed"));
			json_object_set_new(rec, "failure", json_pack("{s:s, s:s, s:s}", "classes", pairs[i]->name, "kind",
			                                              bench_failure_kind(&res), "reason", why));
			int code = res.end == CHILD_FAILED && res.exit_code == PQ_EPERF ? PQ_EPERF : PQ_ESCHEME;
			child_result_free(&res);
			return pq_fail(err, code, "%s (%s): %s", pq_op_name(cfg->op), pairs[i]->name, why);
		}
		json_t *pr = pair_record(pairs[i], res.done, &floor);
		if (res.output_total) {
			/* The scheme's prints: to the job's log (the last pair's), counted in the record. */
			json_t *so = output_log_write(&res, cfg->output_log);
			if (so)
				json_object_set_new(rec, "scheme_output", so);
		}
		child_result_free(&res);
		json_array_append_new(json_object_get(rec, "pairs"), pr);
		enum leak_verdict v = leak_record_verdict(pr);
		if (!worst_pair || rank(v) > rank(worst)) {
			worst = v;
			worst_pair = pr;
		}
	}
	json_object_set_new(rec, "status", json_string("complete"));
	json_object_set_new(rec, "verdict", json_string(leak_verdict_name(worst)));
	json_object_set(rec, "summary", json_object_get(worst_pair, "line"));
	return 0;
}

enum leak_verdict leak_record_verdict(const json_t *rec)
{
	const char *v = json_string_value(json_object_get(rec, "verdict"));
	if (v && strcmp(v, "leak likely") == 0)
		return LEAK_LIKELY;
	if (v && strcmp(v, "inconclusive") == 0)
		return LEAK_INCONCLUSIVE;
	if (v && strcmp(v, "no leak above the floor") == 0)
		return LEAK_BELOW_FLOOR;
	return LEAK_NOT_DETECTED;
}
