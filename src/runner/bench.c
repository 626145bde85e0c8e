/* bench: calibration, trials and the timing record; see bench.h. */
#include "config.h"
#include "runner/bench.h"
#include "runner/child.h"
#include "measure/calibrate.h"
#include "measure/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int instance_describe(const char *lib, json_t **desc, pq_error *err)
{
	*desc = NULL;
	struct child_spec cs = { .job = "info", .lib = lib, .timeout_s = 120, .cpu = -1 };
	struct child_result res;
	int r = child_run(&cs, &res, err);
	if (r < 0)
		return r;
	if (res.end != CHILD_OK) {
		char why[512];
		child_describe(&res, why, sizeof why);
		r = pq_fail(err, res.exit_code == PQ_ELOAD ? PQ_ELOAD : PQ_ESCHEME, "%s", why);
		child_result_free(&res);
		return r;
	}
	json_t *d = json_deep_copy(res.done);
	json_object_del(d, "ev");
	json_object_set_new(d, "library", json_string(lib));
	*desc = d;
	child_result_free(&res);
	return 0;
}

const char *bench_failure_kind(const struct child_result *res)
{
	switch (res->end) {
	case CHILD_OK: return res->orphans ? "PROCESSES_LEFT" : "OK";
	case CHILD_TIMEOUT: return "TIMEOUT";
	case CHILD_SIGNALED: return "CRASH";
	case CHILD_EXIT_IN_OP: return "EXIT";
	case CHILD_FAILED: return "CRYPTOFAIL";
	default: return "FAILED";
	}
}

struct trial_data {
	long iters;
	json_t *done;   /* borrowed from res */
	struct child_result res;
};

static int run_child(const struct bench_config *cfg, long iters, long warmup, int overhead,
                     struct trial_data *t, pq_error *err)
{
	char it[32], wu[32], ml[32];
	snprintf(it, sizeof it, "%ld", iters);
	snprintf(wu, sizeof wu, "%ld", warmup);
	snprintf(ml, sizeof ml, "%ld", cfg->mlen > 0 ? cfg->mlen : 64);
	const char *args[16];
	int n = 0;
	args[n++] = "--op";
	args[n++] = pq_op_name(cfg->op);
	args[n++] = "--iters";
	args[n++] = it;
	args[n++] = "--warmup";
	args[n++] = wu;
	args[n++] = "--mlen";
	args[n++] = ml;
	args[n++] = "--events";
	args[n++] = cfg->events ? cfg->events : "cycles";
	if (cfg->backend) {
		args[n++] = "--backend";
		args[n++] = cfg->backend;
	}
	if (overhead) {
		args[n++] = "--overhead-reads";
		args[n++] = "10001";
	}
	args[n] = NULL;
	struct child_spec cs = {
		.job = "bench", .lib = cfg->lib, .args = args,
		.timeout_s = cfg->timeout_s > 0 ? cfg->timeout_s : 900, .cpu = cfg->cpu,
		.as_limit = cfg->as_limit ? cfg->as_limit : child_default_as_limit(),
	};
	t->iters = iters;
	int r = child_run(&cs, &t->res, err);
	if (r < 0)
		return r;
	t->done = t->res.done;
	return 0;
}


/* Per-trial summary and the arrays of every call's values. */
static json_t *trial_json(json_t *done, double *mean_units, double *mean_ns, double *all_units, size_t *nall)
{
	json_t *vals = json_object_get(done, "values"), *ns = json_object_get(done, "ns");
	size_t n = json_array_size(vals);
	double *u = malloc((n ? n : 1) * sizeof *u);
	double su = 0, sn = 0;
	for (size_t i = 0; i < n; i++) {
		u[i] = (double)json_integer_value(json_array_get(vals, i));
		su += u[i];
		sn += (double)json_integer_value(json_array_get(ns, i));
		all_units[(*nall)++] = u[i];
	}
	stats_summary s = { 0 };
	stats_summarize(u, n, &s, NULL);
	free(u);
	*mean_units = n ? su / (double)n : NAN;
	*mean_ns = n ? sn / (double)n : NAN;
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:O, s:O}",
	                 "iters", (json_int_t)n, "total_units", su, "total_ns", sn,
	                 "mean_units", *mean_units, "mean_ns", *mean_ns, "min_units", s.min,
	                 "median_units", s.median, "p90_units", s.p90, "max_units", s.max,
	                 "values", vals, "ns", ns);
}

static json_t *record_base(const struct bench_config *cfg)
{
	json_t *rec = json_pack("{s:s, s:s, s:I}", "schema", "pqprof.bench/1", "op", pq_op_name(cfg->op),
	                        "message_bytes", (json_int_t)(cfg->mlen > 0 ? cfg->mlen : 64));
	if (cfg->instance)
		json_object_set(rec, "instance", cfg->instance);
	if (cfg->command)
		json_object_set_new(rec, "command", json_string(cfg->command));
	if (cfg->environment)
		json_object_set(rec, "environment", cfg->environment);
	return rec;
}

static int fail_record(json_t *rec, struct trial_data *t, const char *stage, const char *op, pq_error *err)
{
	char why[512];
	child_describe(&t->res, why, sizeof why);
	json_object_set_new(rec, "status", json_string("failed"));
	json_object_set_new(rec, "failure", json_pack("{s:s, s:s, s:s}", "stage", stage,
	                                              "kind", bench_failure_kind(&t->res), "reason", why));
	if (t->res.output_total)
		json_object_set_new(rec, "scheme_output", json_pack("{s:s%, s:I}", "head", t->res.output,
		                                                    t->res.output_len, "bytes", (json_int_t)t->res.output_total));
	int code = t->res.end == CHILD_FAILED && t->res.exit_code == PQ_EPERF ? PQ_EPERF : PQ_ESCHEME;
	return pq_fail(err, code, "%s during %s: %s", op, stage, why);
}

int bench_run(const struct bench_config *cfg, json_t **record, pq_error *err)
{
	json_t *rec = record_base(cfg);
	*record = rec;
	calib_params cp;
	calib_defaults(&cp);
	cp.trials = cfg->trials > 0 ? cfg->trials : 5;
	if (cfg->target_s > 0)
		cp.target_trial_s = cfg->target_s;
	if (cfg->min_calls > 0)
		cp.min_total_calls = cfg->min_calls;
	if (cfg->max_iters > 0)
		cp.max_iters_per_trial = cfg->max_iters;

	/* Calibration: one call (after one warm-up) in a fresh child. */
	struct trial_data cal = { 0 };
	int r = run_child(cfg, 1, 1, 1, &cal, err);
	if (r < 0)
		return r;
	/* Processes a scheme leaves behind compete with the trials: a failure too. */
	if (cal.res.end != CHILD_OK || cal.res.orphans) {
		r = fail_record(rec, &cal, "calibration", pq_op_name(cfg->op), err);
		child_result_free(&cal.res);
		return r;
	}
	double call_ns = (double)json_integer_value(json_array_get(json_object_get(cal.done, "ns"), 0));
	long iters = cfg->fixed_iters > 0 ? cfg->fixed_iters : calib_iterations(call_ns * 1e-9, &cp);
	json_t *backend = json_pack("{s:O, s:O, s:O, s:O, s:O, s:O, s:O}",
	                            "name", json_object_get(cal.done, "backend"),
	                            "description", json_object_get(cal.done, "backend_desc"),
	                            "unit", json_object_get(cal.done, "unit"),
	                            "counts_cycles", json_object_get(cal.done, "counts_cycles"),
	                            "seconds_per_unit", json_object_get(cal.done, "seconds_per_unit"),
	                            "events", json_object_get(cal.done, "events"),
	                            "fallback_reasons", json_object_get(cal.done, "fallback_reasons"));
	json_t *ov = json_object_get(cal.done, "overhead");
	if (ov)
		json_object_set(backend, "read_overhead", ov);
	json_object_set_new(rec, "backend", backend);
	json_object_set_new(rec, "calibration", json_pack("{s:f, s:I, s:i, s:f, s:I, s:I}",
	                    "call_ns", call_ns, "iters_per_trial", (json_int_t)iters, "trials", cp.trials,
	                    "target_trial_s", cp.target_trial_s, "min_total_calls", (json_int_t)cp.min_total_calls,
	                    "max_iters_per_trial", (json_int_t)cp.max_iters_per_trial));
	json_object_set(rec, "produced_sizes", json_object_get(cal.done, "sizes"));
	child_result_free(&cal.res);

	json_t *trials = json_array();
	json_object_set_new(rec, "trials", trials);
	double *tmu = calloc((size_t)cp.trials, sizeof *tmu), *tmn = calloc((size_t)cp.trials, sizeof *tmn);
	double *all = malloc(((size_t)cp.trials * (size_t)iters + 1) * sizeof *all);
	size_t nall = 0;
	double sum_units = 0, sum_ns = 0;
	for (int t = 0; t < cp.trials && r == 0; t++) {
		struct trial_data td = { 0 };
		r = run_child(cfg, iters, 1, 0, &td, err);
		if (r < 0)
			break;
		if (td.res.end != CHILD_OK || td.res.orphans) {
			r = fail_record(rec, &td, "trial", pq_op_name(cfg->op), err);
			child_result_free(&td.res);
			break;
		}
		json_array_append_new(trials, trial_json(td.done, &tmu[t], &tmn[t], all, &nall));
		sum_units += tmu[t] * (double)iters;
		sum_ns += tmn[t] * (double)iters;
		child_result_free(&td.res);
	}
	if (r == 0) {
		stats_summary calls = { 0 }, tr = { 0 };
		stats_summarize(all, nall, &calls, NULL);
		stats_summarize(tmu, (size_t)cp.trials, &tr, NULL);
		double n = (double)cp.trials * (double)iters;
		double mean_ns = sum_ns / n;
		json_object_set_new(rec, "summary", json_pack(
			"{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:i, s:I}",
			"mean_units", sum_units / n, "mean_ns", mean_ns, "ops_per_s", mean_ns > 0 ? 1e9 / mean_ns : 0.0,
			"median_trial_units", tr.median, "median_trial_ns", stats_median(tmn, (size_t)cp.trials),
			"min_units", calls.min, "p90_units", calls.p90, "cv_trials", tr.cv,
			"n", (json_int_t)n, "trials", cp.trials, "iters", (json_int_t)iters));
		json_object_set_new(rec, "status", json_string("complete"));
	}
	free(tmu);
	free(tmn);
	free(all);
	return r;
}
