/* bench: calibration, trials and the timing record; see bench.h. */
#include "config.h"
#include "runner/op_ctx.h"
#include "supervise/bench.h"
#include "supervise/child.h"
#include "supervise/blame.h"
#include "measure/calibrate.h"
#include "measure/stats.h"
#include "measure/contention.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/grow.h"
#include "core/ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bench_failure_kind(const struct child_result *res)
{
	switch (res->end) {
	case CHILD_OK: return res->orphans ? "PROCESSES_LEFT" : "OK";
	case CHILD_TIMEOUT: return "TIMEOUT";
	case CHILD_SIGNALED: return "CRASH";
	case CHILD_EXIT_IN_OP: return "EXIT";
	case CHILD_FAILED: return "CRYPTOFAIL";
	case CHILD_FLOODED: return "FLOOD";
	case CHILD_TAMPERED: return "TAMPERED";
	case CHILD_CHANNEL_LOST: return "CHANNEL_CLOSED";
	default: return "FAILED";
	}
}

struct trial_data {
	double timeout_s;   /* 0: the configured one */
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
		.timeout_s = t->timeout_s > 0 ? t->timeout_s : cfg->timeout_s > 0 ? cfg->timeout_s : 900, .cpu = cfg->cpu,
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
static json_t *trial_json(json_t *done, double *mean_units, double *mean_ns, double *all_units, double *all_ns,
                          size_t *nall)
{
	json_t *vals = json_object_get(done, "values"), *ns = json_object_get(done, "ns");
	size_t n = json_array_size(vals);
	double *u = malloc((n ? n : 1) * sizeof *u);
	double su = 0, sn = 0;
	for (size_t i = 0; i < n; i++) {
		u[i] = (double)json_integer_value(json_array_get(vals, i));
		su += u[i];
		double v = (double)json_integer_value(json_array_get(ns, i));
		sn += v;
		all_ns[*nall] = v;
		all_units[(*nall)++] = u[i];
	}
	stats_summary s = { 0 };
	stats_summarize(u, n, &s, NULL);
	free(u);
	*mean_units = n ? su / (double)n : NAN;
	*mean_ns = n ? sn / (double)n : NAN;
	json_t *t = json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:O, s:O}",
	                      "iters", (json_int_t)n, "total_units", su, "total_ns", sn,
	                      "mean_units", *mean_units, "mean_ns", *mean_ns, "min_units", s.min,
	                      "median_units", s.median, "p90_units", s.p90, "max_units", s.max,
	                      "values", vals, "ns", ns);
	json_t *cpu = json_object_get(done, "cpu_ns");
	if (t && json_array_size(cpu) == n)
		json_object_set(t, "cpu_ns", cpu);
	return t;
}

static json_t *record_base(const struct bench_config *cfg)
{
	json_t *rec = json_pack("{s:s, s:s, s:I}", "schema", "pqprof.bench/1", "op", pq_op_name(cfg->op),
	                        "message_bytes", (json_int_t)(cfg->mlen > 0 ? cfg->mlen : 64));
	if (cfg->instance)
		json_object_set(rec, "instance", cfg->instance);
	if (op_ctx_keys_note(cfg->op))
		json_object_set_new(rec, "keys", json_string(op_ctx_keys_note(cfg->op)));
	if (cfg->command)
		json_object_set_new(rec, "command", json_string(cfg->command));
	if (cfg->environment)
		json_object_set(rec, "environment", cfg->environment);
	return rec;
}

json_t *bench_not_run_record(const struct bench_config *cfg, const char *why)
{
	json_t *rec = record_base(cfg);
	json_object_set_new(rec, "status", json_string("failed"));
	json_object_set_new(rec, "failure", json_pack("{s:s, s:s, s:s, s:s, s:b}", "stage", "bench", "kind", "TIMEOUT",
	                                              "reason", why, "blame", "scheme", "not_run", 1));
	return rec;
}

static int fail_record(json_t *rec, struct trial_data *t, const char *stage, const char *op, pq_error *err)
{
	char why[512];
	child_describe(&t->res, why, sizeof why);
	json_object_set_new(rec, "status", json_string("failed"));
	json_object_set_new(rec, "failure", json_pack("{s:s, s:s, s:s}", "stage", stage,
	                                              "kind", bench_failure_kind(&t->res), "reason", why));
	int code = child_blame(&t->res);
	json_object_set_new(json_object_get(rec, "failure"), "blame", json_string(blame_kind(code)));
	return pq_fail(err, code, "%s during %s: %s", op, stage, why);
}

/* One bench of one (library, op) in progress: calibration, then trials. */
struct bench_session {
	const struct bench_config *cfg;
	json_t *rec;
	calib_params cp;
	long iters;
	int done_trials;
	int failed;             /* a failure record was written */
	double *tmu, *tmn, *all, *alln;
	size_t nall;
	int *flagged;           /* per trial: contention evidence says it shared its CPU */
	double sum_units, sum_ns;
	double call_s;          /* the calibration call */
	double trial_timeout_s; /* limit of one trial child, grown for long operations */
	double spent_s;         /* wall time of the trials so far (op budget) */
	/* The scheme's output: bytes in timed calls, and every child's text for the log. */
	double out_bytes, err_bytes, timed_calls;
	size_t printed;         /* bytes the children wrote in all */
	char *log;
	size_t log_len, log_cap;
};

/* A trial limit that grows with the trial: three times its planned length (warm-up included) plus a minute. */
static double trial_limit(const struct bench_config *cfg, long iters, double call_s)
{
	double base = cfg->timeout_s > 0 ? cfg->timeout_s : 900;
	double want = 3.0 * (double)(iters + 1) * call_s + 60.0;
	return want > base ? want : base;
}

/* Another trial wanted: planned trials not yet done, and the op budget (if any) not yet spent. */
static int session_wants_trial(const struct bench_session *s, int t)
{
	if (s->failed || t >= s->cp.trials)
		return 0;
	double budget = s->cfg->op_budget_s;
	return !(budget > 0 && s->done_trials > 0 && s->spent_s + (double)s->iters * s->call_s > budget * 1.5);
}

#define BENCH_LOG_CAP (1u << 20)   /* a log keeps this much of the scheme's text, then counts */

/* Keep a child's captured output for the job's log; count its timed output. */
static void session_output_add(struct bench_session *s, const char *what, const struct trial_data *t)
{
	json_t *so = t->done ? json_object_get(t->done, "scheme_output") : NULL;
	if (so) {
		s->out_bytes += (double)json_integer_value(json_object_get(so, "stdout_bytes"));
		s->err_bytes += (double)json_integer_value(json_object_get(so, "stderr_bytes"));
		s->timed_calls += (double)json_integer_value(json_object_get(so, "timed_calls"));
	}
	if (!t->res.output_total)
		return;
	s->printed += t->res.output_total;
	char head[160];
	int n = snprintf(head, sizeof head, "== %s: %zu bytes, first %zu follow\n", what, t->res.output_total,
	                 t->res.output_len);
	size_t need = s->log_len + (size_t)n + t->res.output_len + 2;
	if (need > BENCH_LOG_CAP || pq_grow(&s->log, &s->log_cap, need, 1, 4096) < 0)
		return;
	memcpy(s->log + s->log_len, head, (size_t)n);
	memcpy(s->log + s->log_len + n, t->res.output, t->res.output_len);
	s->log_len += (size_t)n + t->res.output_len;
	s->log[s->log_len++] = '\n';
}

static void fmt_bytes(char *buf, size_t len, double b)
{
	if (b >= 1e6)
		snprintf(buf, len, "%.1f MB", b / 1e6);
	else if (b >= 1e3)
		snprintf(buf, len, "%.1f KB", b / 1e3);
	else
		snprintf(buf, len, "%.0f bytes", b);
}

/*
 * The record's "scheme_output": bytes per timed call on each stream and a
 * one-line note; the text itself goes to the log, written whole.
 */
static void session_output_finish(struct bench_session *s)
{
	if (!s->printed && s->out_bytes == 0 && s->err_bytes == 0)
		return;
	const struct bench_config *cfg = s->cfg;
	double calls = s->timed_calls > 0 ? s->timed_calls : 1;
	double o = s->out_bytes / calls, e = s->err_bytes / calls;
	char note[256], ob[32], eb[32];
	fmt_bytes(ob, sizeof ob, o);
	fmt_bytes(eb, sizeof eb, e);
	const char *op = pq_op_name(cfg->op);
	if (o > 0 && e > 0)
		snprintf(note, sizeof note, "%s wrote %s to stdout and %s to stderr per call", op, ob, eb);
	else if (o > 0 || e > 0)
		snprintf(note, sizeof note, "%s wrote %s to %s per call", op, o > 0 ? ob : eb, o > 0 ? "stdout" : "stderr");
	else
		snprintf(note, sizeof note, "%s wrote nothing in timed calls (%zu bytes outside them)", op, s->printed);
	json_t *j = json_pack("{s:s, s:f, s:f, s:f, s:I, s:s}", "note", note, "stdout_bytes_per_call", o,
	                      "stderr_bytes_per_call", e, "timed_calls", s->timed_calls, "bytes_all_children",
	                      (json_int_t)s->printed, "drained",
	                      "timed calls write to a pipe the runner drains after each call, outside the timed span");
	if (cfg->output_log && s->log_len) {
		pq_error err = { 0 };
		if (atomic_write(cfg->output_log, s->log, s->log_len, &err) == 0)
			json_object_set_new(j, "log", json_string(cfg->output_log));
		else
			json_object_set_new(j, "log_error", json_string(err.msg));
	}
	json_object_set_new(s->rec, "scheme_output", j);
}

static void session_free(struct bench_session *s)
{
	session_output_finish(s);
	free(s->log);
	s->log = NULL;
	free(s->tmu);
	free(s->tmn);
	free(s->all);
	free(s->alln);
	free(s->flagged);
	s->tmu = s->tmn = s->all = s->alln = NULL;
	s->flagged = NULL;
}

/* Record base and calibration: one call (after one warm-up) in a fresh child. */
static int session_begin(struct bench_session *s, const struct bench_config *cfg, pq_error *err)
{
	memset(s, 0, sizeof *s);
	s->cfg = cfg;
	s->rec = record_base(cfg);
	calib_params *cp = &s->cp;
	calib_defaults(cp);
	cp->trials = cfg->trials > 0 ? cfg->trials : 5;
	if (cfg->target_s > 0)
		cp->target_trial_s = cfg->target_s;
	if (cfg->min_calls > 0)
		cp->min_total_calls = cfg->min_calls;
	if (cfg->max_iters > 0)
		cp->max_iters_per_trial = cfg->max_iters;
	struct trial_data cal = { 0 };
	int r = run_child(cfg, 1, 1, 1, &cal, err);
	if (r < 0)
		return r;
	session_output_add(s, "calibration", &cal);
	/* Processes a scheme leaves behind compete with the trials: a failure too. */
	if (cal.res.end != CHILD_OK || cal.res.orphans) {
		r = fail_record(s->rec, &cal, "calibration", pq_op_name(cfg->op), err);
		child_result_free(&cal.res);
		s->failed = 1;
		return r;
	}
	double call_ns = (double)json_integer_value(json_array_get(json_object_get(cal.done, "ns"), 0));
	s->call_s = call_ns * 1e-9;
	calib_fit_budget(cp, s->call_s, cfg->op_budget_s);
	s->iters = cfg->fixed_iters > 0 ? cfg->fixed_iters : calib_iterations(s->call_s, cp);
	s->trial_timeout_s = trial_limit(cfg, s->iters, s->call_s);
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
	json_object_set_new(s->rec, "backend", backend);
	json_object_set_new(s->rec, "calibration", json_pack("{s:f, s:I, s:i, s:f, s:I, s:I}",
	                    "call_ns", call_ns, "iters_per_trial", (json_int_t)s->iters, "trials", cp->trials,
	                    "target_trial_s", cp->target_trial_s, "min_total_calls", (json_int_t)cp->min_total_calls,
	                    "max_iters_per_trial", (json_int_t)cp->max_iters_per_trial));
	json_t *calj = json_object_get(s->rec, "calibration");
	json_object_set_new(calj, "trial_timeout_s", json_real(s->trial_timeout_s));
	long planned = (long)cp->trials * s->iters;
	if (cfg->op_budget_s > 0 && (!cfg->op_budget_default || planned < cp->min_total_calls)) {
		json_object_set_new(calj, "op_budget_s", json_real(cfg->op_budget_s));
		json_object_set_new(calj, "n_planned", json_integer(planned));
		json_object_set_new(calj, "max_trial_s", json_real(cp->max_trial_s));
		/* The budget, not the rule, chose n: say so where the n is read. */
		json_object_set_new(calj, "budget_limited", json_boolean(planned < cp->min_total_calls));
	}
	json_object_set(s->rec, "produced_sizes", json_object_get(cal.done, "sizes"));
	child_result_free(&cal.res);
	json_object_set_new(s->rec, "trials", json_array());
	s->tmu = calloc((size_t)cp->trials, sizeof *s->tmu);
	s->tmn = calloc((size_t)cp->trials, sizeof *s->tmn);
	s->all = malloc(((size_t)cp->trials * (size_t)s->iters + 1) * sizeof *s->all);
	s->alln = malloc(((size_t)cp->trials * (size_t)s->iters + 1) * sizeof *s->alln);
	s->flagged = calloc((size_t)cp->trials, sizeof *s->flagged);
	if (!s->tmu || !s->tmn || !s->all || !s->alln || !s->flagged)
		return pq_fail(err, PQ_ENOMEM, "out of memory for %ld iterations", s->iters);
	return 0;
}

/*
 * One more trial, in its own fresh child.  seq is its place in the order
 * trials of all interleaved benches ran in, t0 when the first began.
 */
static int session_trial(struct bench_session *s, long seq, double t0, pq_error *err)
{
	struct trial_data td = { .timeout_s = s->trial_timeout_s };
	double started = mono_s() - t0;
	int r = run_child(s->cfg, s->iters, 1, 0, &td, err);
	s->spent_s += mono_s() - t0 - started;
	if (r < 0)
		return r;
	char what[64];
	snprintf(what, sizeof what, "trial %d", s->done_trials + 1);
	session_output_add(s, what, &td);
	if (td.res.end != CHILD_OK || td.res.orphans) {
		r = fail_record(s->rec, &td, "trial", pq_op_name(s->cfg->op), err);
		child_result_free(&td.res);
		s->failed = 1;
		return r;
	}
	int t = s->done_trials++;
	json_t *tj = trial_json(td.done, &s->tmu[t], &s->tmn[t], s->all, s->alln, &s->nall);
	json_object_set_new(tj, "seq", json_integer(seq));
	json_object_set_new(tj, "started_s", json_real(started));
	json_t *ev = json_object_get(td.done, "contention");
	if (ev) {
		char why[256];
		s->flagged[t] = contention_judge(ev, why, sizeof why);
		json_t *c = json_deep_copy(ev);
		json_object_set_new(c, "flagged", json_boolean(s->flagged[t]));
		if (s->flagged[t])
			json_object_set_new(c, "reasons", json_string(why));
		json_object_set_new(tj, "contention", c);
	}
	json_array_append_new(json_object_get(s->rec, "trials"), tj);
	s->sum_units += s->tmu[t] * (double)s->iters;
	s->sum_ns += s->tmn[t] * (double)s->iters;
	child_result_free(&td.res);
	return 0;
}

/* Median and minimum of the per-call values of the trials where keep(flagged) holds. */
static json_t *headline_json(const struct bench_session *s, int only_unflagged)
{
	size_t cap = s->nall ? s->nall : 1, n = 0;
	double *u = malloc(cap * sizeof *u), *ns = malloc(cap * sizeof *ns);
	int trials = 0;
	for (int t = 0; u && ns && t < s->done_trials; t++) {
		if (only_unflagged && s->flagged[t])
			continue;
		trials++;
		size_t from = (size_t)t * (size_t)s->iters;
		for (size_t i = from; i < from + (size_t)s->iters && i < s->nall; i++) {
			u[n] = s->all[i];
			ns[n++] = s->alln[i];
		}
	}
	json_t *j = n ? json_pack("{s:i, s:I, s:f, s:f, s:f, s:f}", "trials", trials, "n", (json_int_t)n,
	                          "median_units", stats_median(u, n), "min_units", stats_min(u, n),
	                          "median_ns", stats_median(ns, n), "min_ns", stats_min(ns, n))
	              : json_null();
	free(u);
	free(ns);
	return j;
}

static void session_summary(struct bench_session *s)
{
	stats_summary calls = { 0 }, tr = { 0 };
	int trials = s->done_trials;
	stats_summarize(s->all, s->nall, &calls, NULL);
	stats_summarize(s->tmu, (size_t)trials, &tr, NULL);
	double n = (double)trials * (double)s->iters;
	double mean_ns = s->sum_ns / n;
	double median_ns = stats_median(s->alln, s->nall);
	/* Headline: median and minimum of per-call values; the mean is kept but is pulled by slow spells. */
	json_object_set_new(s->rec, "summary", json_pack(
		"{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:i, s:I, s:s}",
		"median_units", calls.median, "median_ns", median_ns, "min_units", calls.min,
		"min_ns", stats_min(s->alln, s->nall),
		"mean_units", s->sum_units / n, "mean_ns", mean_ns, "ops_per_s", median_ns > 0 ? 1e9 / median_ns : 0.0,
		"median_trial_units", tr.median, "median_trial_ns", stats_median(s->tmn, (size_t)trials),
		"p90_units", calls.p90, "cv_trials", tr.cv,
		"n", (json_int_t)n, "trials", trials, "iters", (json_int_t)s->iters,
		"headline", "median and minimum of per-call values (mean kept, not the headline)"));
	int flagged = 0;
	for (int t = 0; t < trials; t++)
		flagged += s->flagged[t];
	json_t *all = headline_json(s, 0), *clean = headline_json(s, 1);
	json_t *c = json_pack("{s:o, s:i, s:i, s:O, s:O}", "rule", contention_rule_json(), "trials", trials,
	                      "trials_flagged", flagged, "all_trials", all, "unflagged_trials", clean);
	/* What leaving the flagged trials out does to the headline median. */
	if (json_is_object(all) && json_is_object(clean) && json_number_value(json_object_get(all, "median_units")) > 0)
		json_object_set_new(c, "median_change_without_flagged",
		                    json_real(json_number_value(json_object_get(clean, "median_units")) /
		                              json_number_value(json_object_get(all, "median_units")) - 1.0));
	json_decref(all);
	json_decref(clean);
	json_object_set_new(s->rec, "contention", c);
	/* The op budget ran out before the planned trials: n is what it allowed. */
	if (trials < s->cp.trials)
		json_object_set_new(s->rec, "budget_stopped",
		                    json_pack("{s:i, s:i, s:f}", "trials_planned", s->cp.trials, "trials_done", trials,
		                              "spent_s", s->spent_s));
	json_object_set_new(s->rec, "status", json_string("complete"));
}

int bench_run(const struct bench_config *cfg, json_t **record, pq_error *err)
{
	struct bench_session s;
	int r = session_begin(&s, cfg, err);
	double t0 = mono_s();
	for (int t = 0; r == 0 && session_wants_trial(&s, t); t++)
		r = session_trial(&s, t, t0, err);
	if (r == 0)
		session_summary(&s);
	session_free(&s);
	*record = s.rec;
	return r;
}

int bench_run_interleaved(const struct bench_config *cfgs, int n, json_t **records, pq_error *errs)
{
	struct bench_session *s = calloc((size_t)n, sizeof *s);
	int *rc = calloc((size_t)n, sizeof *rc);
	if (!s || !rc) {
		free(s);
		free(rc);
		return -PQ_ENOMEM;
	}
	int trials = 0, worst = 0;
	for (int i = 0; i < n; i++) {
		rc[i] = session_begin(&s[i], &cfgs[i], &errs[i]);
		if (s[i].cp.trials > trials)
			trials = s[i].cp.trials;
	}
	/* A, B, C, A, B, C...: slow drifts and slow spells of the machine hit every unit alike. */
	long seq = 0;
	double t0 = mono_s();
	for (int t = 0; t < trials; t++)
		for (int i = 0; i < n; i++)
			if (rc[i] == 0 && session_wants_trial(&s[i], t))
				rc[i] = session_trial(&s[i], seq++, t0, &errs[i]);
	for (int i = 0; i < n; i++) {
		if (rc[i] == 0)
			session_summary(&s[i]);
		json_object_set_new(s[i].rec, "interleaved_with", json_integer(n - 1));
		records[i] = s[i].rec;
		session_free(&s[i]);
		if (rc[i] < 0 && worst == 0)
			worst = rc[i];
	}
	free(s);
	free(rc);
	return worst;
}
