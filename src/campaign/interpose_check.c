/* interpose_check: plain -fPIC vs locally bound library, paired; see interpose_check.h. */
#include "config.h"
#include "campaign/interpose_check.h"
#include "instance/link_scope.h"
#include "supervise/paired.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The factor plain / local of one operation from its paired study, or the study's failure. */
static json_t *op_entry(const json_t *study, int rc, const pq_error *err)
{
	json_t *c = json_array_get(json_object_get(study, "comparisons"), 0);
	if (rc < 0 || !c) {
		const char *why = json_string_value(json_object_get(json_object_get(study, "failure"), "reason"));
		return json_pack("{s:s}", "failure", why ? why : err->code ? err->msg : "the paired study did not complete");
	}
	double f = json_number_value(json_object_get(c, "ratio")), lo = json_number_value(json_object_get(c, "lo")),
	       hi = json_number_value(json_object_get(c, "hi"));
	int beyond = lo > 1 + INTERPOSE_NOISE || hi < 1 - INTERPOSE_NOISE;
	const char *m = json_string_value(json_object_get(study, "measure"));
	return json_pack("{s:f, s:f, s:f, s:I, s:I, s:s, s:s, s:s?, s:b}", "factor", f, "lo", lo, "hi", hi, "rounds",
	                 json_integer_value(json_object_get(c, "rounds")), "processes",
	                 json_integer_value(json_object_get(c, "processes")), "measure",
	                 m && strcmp(m, "cpu_ns") != 0 ? "cycles per call" : "CPU ns per call", "verdict",
	                 !beyond ? "within the noise" : f > 1 ? "slower" : "faster", "stop",
	                 json_string_value(json_object_get(study, "stop_reason")), "beyond_noise", beyond);
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
	else if (json_number_value(json_object_get(json_object_get(ops, worst), "lo")) > 1)
		snprintf(s, sizeof s, "the plain -fPIC library is slightly slower (largest factor %.2fx, in %s, "
		         "%.2f\u2013%.2f; within the \u00b1%.0f%% band, not flagged); %s", wf, worst,
		         json_number_value(json_object_get(json_object_get(ops, worst), "lo")),
		         json_number_value(json_object_get(json_object_get(ops, worst), "hi")), INTERPOSE_NOISE * 100, tail);
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
	double budget = o->budget_s > 0 ? o->budget_s : INTERPOSE_BUDGET_S;
	json_t *rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:f}", "schema", "pqprof.interposition/1", "local",
	                        link_scope_flags(LINK_SCOPE_LOCAL), "plain", "-fPIC", "order",
	                        "paired in-process: both forms loaded side by side, one slot each per round, "
	                        "the order shuffled per round", "measured", o->measured_plain ? "plain-pic" : "local",
	                        "noise", INTERPOSE_NOISE, "budget_s", budget);
	if (!rec)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	if (o->instance)
		json_object_set(rec, "instance", o->instance);
	if (o->environment)
		json_object_set(rec, "environment", o->environment);
	json_t *ops = json_object();
	json_object_set_new(rec, "ops", ops);
	for (int i = 0; i < o->nops; i++) {
		struct paired_config pc = {
			.builds = { { .lib = o->local_lib, .label = "local" }, { .lib = o->plain_lib, .label = "plain-pic" } },
			.nbuilds = 2, .aa = -1, .op = o->ops[i], .precision = INTERPOSE_PRECISION,
			.threshold = INTERPOSE_NOISE, .budget_s = budget, .min_processes = INTERPOSE_MIN_PROCESSES,
			.events = o->events, .cpu = o->cpu, .timeout_s = o->timeout_s, .mlen = 64, .command = o->command,
			.instance = o->instance, .environment = o->environment,
		};
		json_t *study = NULL;
		pq_error e = { 0 };
		int rc = paired_run(&pc, &study, &e);
		json_object_set_new(ops, pq_op_name(o->ops[i]), op_entry(study, rc, &e));
		json_decref(study);
	}
	statement(rec, o->measured_plain);
	*record = rec;
	return 0;
}
