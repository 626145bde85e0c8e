/* interpose_check: plain -fPIC vs locally bound library, paired; see interpose_check.h. */
#include "config.h"
#include "campaign/interpose_check.h"
#include "instance/link_scope.h"
#include "measure/stats.h"
#include "supervise/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One figure per trial: the median of its per-call values under key.  CPU
 * time where the counter is a wall clock (blind to waiting for a CPU on a
 * busy machine), the counter's own values where it counts cycles.
 */
static size_t trial_medians(const json_t *bench, const char *key, double *out, size_t max)
{
	size_t i, k = 0;
	json_t *t;
	json_array_foreach(json_object_get(bench, "trials"), i, t) {
		json_t *vals = json_object_get(t, key);
		size_t nv = json_array_size(vals), m = 0;
		double *c = nv ? malloc(nv * sizeof *c) : NULL;
		for (size_t j = 0; c && j < nv; j++)
			if (json_is_number(json_array_get(vals, j)) && json_number_value(json_array_get(vals, j)) > 0)
				c[m++] = json_number_value(json_array_get(vals, j));
		if (m && k < max)
			out[k++] = stats_median(c, m);
		free(c);
	}
	return k;
}

static const char *measure_key(const json_t *a, const json_t *b)
{
	int cycles = json_is_true(json_object_get(json_object_get(a, "backend"), "counts_cycles")) &&
	             json_is_true(json_object_get(json_object_get(b, "backend"), "counts_cycles"));
	return cycles ? "values" : "cpu_ns";
}

/* The factor plain / local of one operation, or its failure. */
static json_t *op_entry(json_t *local, json_t *plain, const pq_error *el, const pq_error *ep)
{
	const char *sl = json_string_value(json_object_get(local, "status"));
	const char *sp = json_string_value(json_object_get(plain, "status"));
	if (!local || !plain || (sl && strcmp(sl, "complete") != 0) || (sp && strcmp(sp, "complete") != 0))
		return json_pack("{s:s}", "failure", el->code ? el->msg : ep->code ? ep->msg : "a form did not complete");
	const char *key = measure_key(local, plain);
	double a[256], b[256];
	size_t na = trial_medians(local, key, a, 256), nb = trial_medians(plain, key, b, 256);
	size_t n = na < nb ? na : nb;
	stats_interval ci;
	pq_error e = { 0 };
	if (n < 2 || stats_trial_ratio_ci(b, n, a, n, 1, 0, 0, &ci, &e) < 0)
		return json_pack("{s:s}", "failure", n < 2 ? "fewer than 2 paired trials" : e.msg);
	enum stats_verdict v = stats_ratio_verdict(&ci, INTERPOSE_NOISE);
	return json_pack("{s:f, s:f, s:f, s:i, s:s, s:f, s:f, s:s, s:b}", "factor", ci.estimate, "lo", ci.lo, "hi",
	                 ci.hi, "rounds", (int)n, "measure", strcmp(key, "cpu_ns") == 0 ? "CPU ns per call" : "cycles per call",
	                 "local_median", stats_median(a, n), "plain_median", stats_median(b, n), "verdict",
	                 stats_verdict_name(v), "beyond_noise", v == STATS_SLOWER || v == STATS_FASTER);
}

/* The sentence report section 4 prints, from the largest factor. */
static void statement(json_t *rec, int measured_plain)
{
	json_t *ops = json_object_get(rec, "ops");
	const char *worst = NULL;
	double wf = 0;
	int flagged = 0;
	const char *k;
	json_t *e;
	json_object_foreach(ops, k, e) {
		json_t *f = json_object_get(e, "factor");
		if (json_is_number(f) && (!worst || json_number_value(f) > wf)) {
			worst = k;
			wf = json_number_value(f);
		}
		flagged |= json_is_true(json_object_get(e, "beyond_noise"));
	}
	char s[400];
	const char *tail = measured_plain ? "figures below are for the plain -fPIC build (--plain-pic)"
	                                  : "figures below are for the locally bound build";
	if (!worst)
		snprintf(s, sizeof s, "the interposition check measured no factor; %s", tail);
	else if (wf >= 1 && json_is_true(json_object_get(json_object_get(ops, worst), "beyond_noise")))
		snprintf(s, sizeof s, "the plain -fPIC library is %.1fx slower in %s; %s", wf, worst, tail);
	else if (flagged)
		snprintf(s, sizeof s, "the plain -fPIC library differs from the locally bound one beyond the noise "
		         "(largest factor %.2fx, in %s); %s", wf, worst, tail);
	else
		snprintf(s, sizeof s, "the plain -fPIC library is no slower (largest factor %.2fx, in %s, within the "
		         "noise); %s", wf, worst, tail);
	json_object_set_new(rec, "statement", json_string(s));
	json_object_set_new(rec, "flagged", json_boolean(flagged));
	if (worst)
		json_object_set_new(rec, "largest", json_pack("{s:s, s:f}", "op", worst, "factor", wf));
}

int interpose_check_run(const struct interpose_check_opts *o, json_t **record, pq_error *err)
{
	*record = NULL;
	json_t *rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f}", "schema", "pqprof.interposition/1", "local",
	                        link_scope_flags(LINK_SCOPE_LOCAL), "plain", "-fPIC", "order",
	                        "interleaved round-robin, local then plain in every round", "measured",
	                        o->measured_plain ? "plain-pic" : "local", "noise", INTERPOSE_NOISE);
	if (!rec)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	if (o->instance)
		json_object_set(rec, "instance", o->instance);
	if (o->environment)
		json_object_set(rec, "environment", o->environment);
	if (o->op_budget_s > 0)
		json_object_set_new(rec, "op_budget_s", json_real(o->op_budget_s));
	json_t *ops = json_object();
	json_object_set_new(rec, "ops", ops);
	for (int i = 0; i < o->nops; i++) {
		struct bench_config cfg = {
			.op = o->ops[i], .trials = o->trials < 3 ? 3 : o->trials, .target_s = o->target_s,
			.op_budget_s = o->op_budget_s, .events = o->events,
			.cpu = o->cpu, .timeout_s = o->timeout_s, .mlen = 64, .command = o->command, .instance = o->instance,
			.environment = o->environment,
		};
		struct bench_config cfgs[2] = { cfg, cfg };
		cfgs[0].lib = o->local_lib;
		cfgs[1].lib = o->plain_lib;
		json_t *recs[2] = { NULL, NULL };
		pq_error errs[2] = { { 0 }, { 0 } };
		bench_run_interleaved(cfgs, 2, recs, errs);
		json_object_set_new(ops, pq_op_name(o->ops[i]), op_entry(recs[0], recs[1], &errs[0], &errs[1]));
		json_decref(recs[0]);
		json_decref(recs[1]);
	}
	statement(rec, o->measured_plain);
	*record = rec;
	return 0;
}
