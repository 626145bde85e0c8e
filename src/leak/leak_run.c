/* leak_run: class pairs in runner children, verdicts, the record; see leak_run.h. */
#include "config.h"
#include "runner/op_ctx.h"
#include "leak/leak_run.h"
#include "supervise/output_log.h"
#include "leak/leak_classes.h"
#include "supervise/bench.h"
#include "supervise/child.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double num(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : 0;
}

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

/* The child's trace and contention back into the judge's structures. */
static void judge_done(const json_t *done, struct leak_judgement *j, struct leak_contention *c)
{
	json_t *trace = json_object_get(done, "trace"), *tests = json_object_get(done, "tests");
	size_t npts = json_array_size(trace);
	int ntests = (int)json_array_size(tests);
	if (ntests > LEAK_MAX_TESTS)
		ntests = LEAK_MAX_TESTS;
	struct leak_point *pts = calloc(npts ? npts : 1, sizeof *pts);
	const char *names[LEAK_MAX_TESTS];
	for (int i = 0; i < ntests; i++)
		names[i] = json_string_value(json_array_get(tests, (size_t)i)) ?: "?";
	for (size_t k = 0; pts && k < npts; k++) {
		json_t *p = json_array_get(trace, k), *t = json_object_get(p, "t");
		pts[k].n = (uint64_t)json_integer_value(json_object_get(p, "n"));
		for (int i = 0; i < ntests; i++)
			pts[k].t[i] = json_number_value(json_array_get(t, (size_t)i));
	}
	json_t *cj = json_object_get(done, "contention");
	memset(c, 0, sizeof *c);
	c->wall_s = num(cj, "wall_s");
	c->cpu_s = num(cj, "cpu_s");
	c->nivcsw = (long)num(cj, "nivcsw");
	c->nvcsw = (long)num(cj, "nvcsw");
	c->kept = pair_sum(cj, "kept");
	c->dropped = pair_sum(cj, "dropped");
	c->load_start = num(cj, "load_start");
	c->load_end = num(cj, "load_end");
	c->ncpu = (int)num(cj, "ncpu");
	char unused[200];
	json_t *reso = resolution(done, unused, sizeof unused);
	c->resolution_share = reso ? num(reso, "share_of_mean") : 0;
	json_decref(reso);
	leak_judge(pts ? pts : NULL, pts ? npts : 0, ntests, names, c, NULL, j);
	free(pts);
}

static json_t *pair_record(const struct leak_pair *p, const json_t *done)
{
	struct leak_judgement j;
	struct leak_contention c;
	judge_done(done, &j, &c);
	char ctext[320], rtext[200], line[1600];
	leak_contention_text(&c, ctext, sizeof ctext);
	const char *desc = json_string_value(json_object_get(done, "backend_desc")) ?: "?";
	json_t *reso = resolution(done, rtext, sizeof rtext);
	snprintf(line, sizeof line, "%s; compared: %s; counter: %s; contention: %s%s%s", j.text, p->what, desc, ctext,
	         rtext[0] ? "; resolution: " : "", rtext);
	json_t *tests = json_object_get(done, "tests");
	json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:f}", "classes", p->name, "what", p->what,
	                      "verdict", leak_verdict_name(j.verdict), "text", j.text, "line", line,
	                      "measurements", (json_int_t)j.n, "max_abs_t", j.max_t);
	if (j.test >= 0) {
		json_object_set(r, "deciding_test", json_array_get(tests, (size_t)j.test));
		json_object_set_new(r, "at_measurements", json_integer((json_int_t)j.at_n));
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
	static const char *const copy[] = { "tests", "crops", "trace", "classes_uncropped", "calibration_measurements",
	                                    "interleave_seed", "budget_s", "batches", "slots_per_batch",
	                                    "message_bytes", NULL };
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

static int rank(enum leak_verdict v)
{
	return v == LEAK_LIKELY ? 2 : v == LEAK_INCONCLUSIVE ? 1 : 0;
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
		json_t *pr = pair_record(pairs[i], res.done);
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
	return LEAK_NOT_DETECTED;
}
