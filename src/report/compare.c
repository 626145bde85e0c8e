/* compare: ratios with bootstrap intervals and per-function deltas between two record sets; see compare.h. */
#include "config.h"
#include "report/compare.h"
#include "report/jpath.h"
#include "report/report.h"
#include "report/units.h"
#include "core/atomic_file.h"
#include "measure/stats.h"
#include "trace/flamegraph.h"
#include "trace/folded.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pair {
	const struct rs_instance *a, *b;
};

static int name_count(const struct record_set *rs, const char *name)
{
	int n = 0;
	for (size_t i = 0; i < rs->ninst; i++)
		n += strcmp(rs->inst[i].name, name) == 0;
	return n;
}

/* Pairs by (name, profile); a name unique on both sides pairs across profiles. */
static size_t make_pairs(const struct record_set *a, const struct record_set *b, struct pair *out)
{
	size_t n = 0;
	for (size_t i = 0; i < a->ninst; i++) {
		const struct rs_instance *ia = &a->inst[i], *match = NULL;
		for (size_t k = 0; k < b->ninst && !match; k++)
			if (strcmp(b->inst[k].name, ia->name) == 0 && strcmp(b->inst[k].profile, ia->profile) == 0)
				match = &b->inst[k];
		if (!match && name_count(a, ia->name) == 1 && name_count(b, ia->name) == 1)
			for (size_t k = 0; k < b->ninst && !match; k++)
				if (strcmp(b->inst[k].name, ia->name) == 0)
					match = &b->inst[k];
		if (match) {
			out[n].a = ia;
			out[n].b = match;
			n++;
		}
	}
	return n;
}

static int complete(const json_t *bench)
{
	const char *st = jp_str(bench, "status", NULL);
	return bench && (!st || strcmp(st, "complete") == 0) && jp(bench, "summary");
}

/*
 * Every per-call value of every trial; when a record kept none, the
 * per-trial means stand in (*per_call = 0).  NULL on bad data or memory.
 */
static double *per_call_values(const json_t *bench, size_t *n, int *per_call)
{
	json_t *trials = jp(bench, "trials");
	size_t total = 0, i;
	json_t *t;
	json_array_foreach(trials, i, t)
		total += json_array_size(jp(t, "values"));
	*per_call = total > 0;
	if (!total)
		total = json_array_size(trials);
	double *v = malloc((total ? total : 1) * sizeof *v);
	if (!v)
		return NULL;
	size_t k = 0;
	json_array_foreach(trials, i, t) {
		if (*per_call) {
			size_t j;
			json_t *x;
			json_array_foreach(jp(t, "values"), j, x)
				if (json_is_number(x) && k < total)
					v[k++] = json_number_value(x);
		} else if (json_is_number(jp(t, "mean_units")) && k < total) {
			v[k++] = jp_num(t, "mean_units", 0);
		}
	}
	*n = k;
	return v;
}

static json_t *timing_entry(const struct pair *p, const struct rs_op *oa, const struct rs_op *ob,
                            const struct compare_opts *o, json_t *notes, pq_error *err, int *rc)
{
	const char *ua = report_bench_unit(oa->bench), *ub = report_bench_unit(ob->bench);
	if (!ua || !ub || strcmp(ua, ub) != 0) {
		*rc = pq_fail(err, PQ_EINPUT,
		              "cannot compare %s %s: A counts %s, B counts %s; measure both with the same counter "
		              "backend (pqprof bench --backend)", p->a->name, oa->op, ua ? ua : "an unrecorded unit",
		              ub ? ub : "an unrecorded unit");
		return NULL;
	}
	size_t na = 0, nb = 0;
	int pca = 0, pcb = 0;
	double *va = per_call_values(oa->bench, &na, &pca), *vb = per_call_values(ob->bench, &nb, &pcb);
	json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:f}", "instance", p->a->name, "profile_a",
	                      p->a->profile, "profile_b", p->b->profile, "op", oa->op, "unit", ua,
	                      "a_mean", jp_num(oa->bench, "summary.mean_units", NAN),
	                      "b_mean", jp_num(ob->bench, "summary.mean_units", NAN));
	stats_interval ci;
	pq_error serr = { 0 };
	if (!va || !vb || !na || !nb ||
	    stats_bootstrap_ratio_ci(vb, nb, va, na, 0, o->resamples, o->seed ? o->seed : STATS_BOOTSTRAP_SEED,
	                             &ci, &serr) < 0) {
		json_object_set_new(e, "verdict", json_string("unknown"));
		json_array_append_new(notes, json_sprintf_compat("%s %s: no ratio: %s", p->a->name, oa->op,
		                      serr.msg[0] ? serr.msg : "no per-call values in the records"));
	} else {
		json_object_set_new(e, "ratio", json_real(ci.estimate));
		json_object_set_new(e, "lo", json_real(ci.lo));
		json_object_set_new(e, "hi", json_real(ci.hi));
		json_object_set_new(e, "verdict", json_string(stats_verdict_name(stats_ratio_verdict(&ci, o->tolerance))));
		json_object_set_new(e, "a_values", json_integer((json_int_t)na));
		json_object_set_new(e, "b_values", json_integer((json_int_t)nb));
		json_object_set_new(e, "per_call", json_boolean(pca && pcb));
		if (!pca || !pcb)
			json_array_append_new(notes, json_sprintf_compat("%s %s: the records keep no per-call values; the "
			                      "interval is over per-trial means", p->a->name, oa->op));
	}
	free(va);
	free(vb);
	return e;
}
