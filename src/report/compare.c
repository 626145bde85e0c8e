/* compare: ratios with bootstrap intervals and per-function deltas between two record sets; see compare.h. */
#include "config.h"
#include "report/compare.h"
#include "report/report.h"
#include "core/units.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "core/jpath.h"
#include "core/json_file.h"
#include "core/text_buf.h"
#include "measure/stats.h"
#include "measure/verdict.h"
#include "record/records.h"
#include "trace/flamegraph.h"
#include "trace/folded.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A JSON string from a printf format (jansson's json_sprintf needs 2.11). */
static json_t *jfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *jfmt(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return json_string(buf);
}

struct pair {
	const struct rs_instance *a, *b;
};

static int is_aa_arm(const struct rs_instance *in);

static int name_count(const struct record_set *rs, const char *name)
{
	int n = 0;
	for (size_t i = 0; i < rs->ninst; i++)
		n += strcmp(rs->inst[i].name, name) == 0 && !is_aa_arm(&rs->inst[i]);
	return n;
}

/* Pairs by (name, profile, implementation); a name unique on both sides pairs across them. */
static size_t make_pairs(const struct record_set *a, const struct record_set *b, struct pair *out)
{
	size_t n = 0;
	for (size_t i = 0; i < a->ninst; i++) {
		const struct rs_instance *ia = &a->inst[i], *match = NULL;
		if (is_aa_arm(ia))
			continue;
		for (size_t k = 0; k < b->ninst && !match; k++)
			if (strcmp(b->inst[k].name, ia->name) == 0 && strcmp(b->inst[k].profile, ia->profile) == 0 &&
			    strcmp(b->inst[k].implementation, ia->implementation) == 0 && !is_aa_arm(&b->inst[k]))
				match = &b->inst[k];
		if (!match && name_count(a, ia->name) == 1 && name_count(b, ia->name) == 1)
			for (size_t k = 0; k < b->ninst && !match; k++)
				if (strcmp(b->inst[k].name, ia->name) == 0 && !is_aa_arm(&b->inst[k]))
					match = &b->inst[k];
		/* B holding only the A/A arm: the baseline against its own copy. */
		if (!match && name_count(b, ia->name) == 0)
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

/* Count the per-call values of all trials (for the record only: trials are what is resampled). */
static size_t call_count(const json_t *bench)
{
	size_t total = 0, i;
	json_t *t;
	json_array_foreach(jp(bench, "trials"), i, t)
		total += json_array_size(jp(t, "values"));
	return total;
}

/*
 * One figure per trial: the median of its per-call values under `key`
 * (robust to the odd interrupted call), or, for "values" when the record
 * kept no per-call values, the trial's mean (*per_call = 0).  NULL on
 * memory.
 */
static double *trial_figures(const json_t *bench, const char *key, size_t *n, int *per_call)
{
	json_t *trials = jp(bench, "trials");
	size_t nt = json_array_size(trials), i, k = 0;
	double *v = malloc((nt ? nt : 1) * sizeof *v);
	if (!v)
		return NULL;
	*per_call = 1;
	json_t *t;
	json_array_foreach(trials, i, t) {
		json_t *vals = json_object_get(t, key);
		size_t nv = json_array_size(vals);
		double *c = nv ? malloc(nv * sizeof *c) : NULL;
		size_t m = 0;
		if (c) {
			size_t j;
			json_t *x;
			json_array_foreach(vals, j, x)
				if (json_is_number(x))
					c[m++] = json_number_value(x);
		}
		if (m) {
			v[k++] = stats_median(c, m);
		} else if (strcmp(key, "values") == 0 && json_is_number(jp(t, "mean_units"))) {
			v[k++] = jp_num(t, "mean_units", 0);
			*per_call = 0;
		}
		free(c);
	}
	*n = k;
	return v;
}

static int has_cpu_times(const json_t *bench)
{
	size_t i;
	json_t *t;
	json_array_foreach(jp(bench, "trials"), i, t)
		if (!json_array_size(json_object_get(t, "cpu_ns")))
			return 0;
	return json_array_size(jp(bench, "trials")) > 0;
}

/*
 * What the comparison measures.  Counters that count only while the
 * process runs (PMU cycles) are used as they are; a wall-clock counter
 * (TSC, clock) also counts the time spent waiting for a CPU, which on a
 * busy machine moves whole runs, so the per-call CPU time is used instead
 * when both records kept it.
 */
struct measure {
	const char *key;     /* per-call array in each trial */
	char label[64];      /* what the figures are, for the table */
	int task_time;       /* blind to waiting for a CPU */
};

static void choose_measure(const json_t *ba, const json_t *bb, const char *unit, struct measure *m)
{
	int cycles = json_is_true(jp(ba, "backend.counts_cycles")) && json_is_true(jp(bb, "backend.counts_cycles"));
	if (!cycles && has_cpu_times(ba) && has_cpu_times(bb)) {
		m->key = "cpu_ns";
		snprintf(m->label, sizeof m->label, "CPU ns");
		m->task_time = 1;
	} else {
		m->key = "values";
		snprintf(m->label, sizeof m->label, "%s", unit);
		m->task_time = cycles;
	}
}

/* Seconds since the epoch of an ISO-8601 UTC stamp, or -1. */
static double utc_seconds(const char *s)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	if (!s || !strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return -1;
	return (double)timegm(&tm);
}

static const json_t *env_of(const struct record_set *rs, const json_t *bench)
{
	const json_t *e = jp(bench, "environment");
	return json_is_object(e) ? e : rs->environment;
}

static int known(const char *s)
{
	return s && s[0] && strcmp(s, "unknown") != 0;
}

/*
 * A and B from one run, their trials interleaved round by round: the
 * same environment stamps (one campaign, one bench group) and both say
 * they were interleaved.  A record set compared with itself also pairs.
 */
static int interleaved(const json_t *ea, const json_t *eb, const json_t *ba, const json_t *bb)
{
	if (ba == bb || json_equal((json_t *)ba, (json_t *)bb))
		return 1;
	const char *sa = jp_str(ea, "start_utc", NULL), *sb = jp_str(eb, "start_utc", NULL);
	const char *xa = jp_str(ea, "end_utc", NULL), *xb = jp_str(eb, "end_utc", NULL);
	if (!known(sa) || !known(xa) || !sa || !sb || !xa || !xb || strcmp(sa, sb) != 0 || strcmp(xa, xb) != 0)
		return 0;
	return jp_num(ba, "interleaved_with", 0) >= 1 && jp_num(bb, "interleaved_with", 0) >= 1;
}

/*
 * Environment checks.  Differences that make the ratio meaningless go to
 * `block`; differences that only make it less certain (clock policy,
 * load) go to `widen`.  Keys a record lacks are not judged.
 */
static void env_check(const json_t *ea, const json_t *eb, const json_t *ba, const json_t *bb, char *block,
                      size_t blen, char *widen, size_t wlen)
{
	static const char *const hard[][2] = {
		{ "host", "host" }, { "processor", "CPU model" }, { "machine", "architecture" }, { "kernel", "kernel" },
	};
	for (size_t i = 0; i < sizeof hard / sizeof hard[0]; i++) {
		const char *a = jp_str(ea, hard[i][0], NULL), *b = jp_str(eb, hard[i][0], NULL);
		if (known(a) && known(b) && strcmp(a, b) != 0)
			text_add_note(block, blen, "%s differs (%s vs %s)", hard[i][1], a, b);
	}
	const char *na = jp_str(ba, "backend.name", NULL), *nb = jp_str(bb, "backend.name", NULL);
	if (na && nb && strcmp(na, nb) != 0)
		text_add_note(block, blen, "counter backend differs (%s vs %s)", na, nb);
	static const char *const soft[][2] = {
		{ "governor", "governor" }, { "turbo", "turbo" }, { "smt", "SMT" }, { "max_clock", "max clock" },
	};
	for (size_t i = 0; i < sizeof soft / sizeof soft[0]; i++) {
		const char *a = jp_str(ea, soft[i][0], NULL), *b = jp_str(eb, soft[i][0], NULL);
		if (known(a) && known(b) && strcmp(a, b) != 0)
			text_add_note(widen, wlen, "%s differs (%s vs %s)", soft[i][1], a, b);
	}
	double la = jp_num(ea, "load_avg.0", NAN), lb = jp_num(eb, "load_avg.0", NAN);
	if (isfinite(la) && isfinite(lb) && fabs(la - lb) > 1.0)
		text_add_note(widen, wlen, "load average differs (%.2f vs %.2f)", la, lb);
}

/* Interval of B / A over trials; paired when interleaved (whole rounds resampled). */
static int trial_ratio(const json_t *ba, const json_t *bb, const char *key, int paired, const struct compare_opts *o,
                       stats_interval *ci, size_t *na_out, size_t *nb_out, int *per_call, pq_error *err)
{
	size_t na = 0, nb = 0;
	int pa = 0, pb = 0;
	double *va = trial_figures(ba, key, &na, &pa), *vb = trial_figures(bb, key, &nb, &pb);
	int r;
	if (!va || !vb) {
		r = pq_fail(err, PQ_ENOMEM, "out of memory");
	} else {
		if (paired)  /* rounds both took part in; a failed trial ends a record early */
			na = nb = na < nb ? na : nb;
		r = stats_trial_ratio_ci(vb, nb, va, na, paired, o->resamples, o->seed ? o->seed : STATS_BOOTSTRAP_SEED,
		                         ci, err);
	}
	*na_out = na;
	*nb_out = nb;
	*per_call = pa && pb;
	free(va);
	free(vb);
	return r;
}

int compare_interleaved_ratio(const json_t *bench_a, const json_t *bench_b, stats_interval *ci, size_t *trials,
                              pq_error *err)
{
	const char *ua = report_bench_unit(bench_a), *ub = report_bench_unit(bench_b);
	*trials = 0;
	if (!ua || !ub || strcmp(ua, ub) != 0)
		return pq_fail(err, PQ_EINPUT, "the records count %s and %s", ua ? ua : "an unrecorded unit",
		               ub ? ub : "an unrecorded unit");
	struct measure m;
	choose_measure(bench_a, bench_b, ua, &m);
	struct compare_opts o = { 0 };
	size_t na = 0, nb = 0;
	int pc = 0;
	int r = trial_ratio(bench_a, bench_b, m.key, 1, &o, ci, &na, &nb, &pc, err);
	*trials = r == 0 ? na : 0;
	return r;
}

/* The A/A arm for instance `name` whose baseline profile is `profile`, or NULL. */
static const struct rs_instance *find_aa(const struct record_set *rs, const char *name, const char *profile,
                                         int any)
{
	if (!rs)
		return NULL;
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		if (strcmp(in->name, name) != 0)
			continue;
		if (any)
			return in;
		for (int k = 0; k < in->nops; k++) {
			const char *of = jp_str(in->ops[k].bench, "aa_of", NULL);
			if (of && strcmp(of, profile) == 0)
				return in;
		}
	}
	return NULL;
}

/* An instance that is some baseline's A/A arm: left out of the ordinary pairing. */
static int is_aa_arm(const struct rs_instance *in)
{
	for (int k = 0; k < in->nops; k++)
		if (jp_str(in->ops[k].bench, "aa_of", NULL))
			return 1;
	return 0;
}

struct aa_ctx {
	const struct record_set *a, *b;
	const struct compare_opts *o;
};

/* The A/A ratio (A2 / A) for one op, into e["aa"]; its band widens what counts as no effect. */
static int aa_entry(const struct aa_ctx *ac, const struct pair *p, const struct rs_op *oa, const struct rs_op *ob,
                    const char *key, json_t *e, double *band_lo, double *band_hi, stats_interval *diff, int *have_diff)
{
	*have_diff = 0;
	const struct compare_opts *o = ac->o;
	const struct rs_instance *arm = NULL;
	const struct record_set *where = o->aa;
	if (o->aa)
		arm = find_aa(o->aa, p->a->name, p->a->profile, o->aa_is_copy);
	else if ((arm = find_aa(ac->a, p->a->name, p->a->profile, 0)) != NULL)
		where = ac->a;
	else if ((arm = find_aa(ac->b, p->a->name, p->a->profile, 0)) != NULL)
		where = ac->b;
	if (!arm || arm == p->a || arm == p->b)
		return 0;
	const struct rs_op *o2 = rs_find_op(arm, oa->op);
	if (!o2 || !complete(o2->bench))
		return 0;
	const char *ua = report_bench_unit(oa->bench), *u2 = report_bench_unit(o2->bench);
	if (!ua || !u2 || strcmp(ua, u2) != 0)
		return 0;
	const json_t *ea = env_of(ac->a, oa->bench), *e2 = env_of(where, o2->bench);
	int paired = interleaved(ea, e2, oa->bench, o2->bench);
	stats_interval ci;
	size_t na, n2;
	int pc;
	pq_error ignore = { 0 };
	if (trial_ratio(oa->bench, o2->bench, key, paired, o, &ci, &na, &n2, &pc, &ignore) < 0)
		return 0;
	json_object_set_new(e, "aa", json_pack("{s:s, s:f, s:f, s:f, s:s}", "profile", arm->profile, "ratio",
	                                       ci.estimate, "lo", ci.lo, "hi", ci.hi, "runs",
	                                       paired ? "interleaved" : "separate"));
	/*
	 * B against the A/A copy from the same rounds: the interval of the
	 * difference, which carries both uncertainties (the verdict tests it;
	 * bounds are never compared with bounds).
	 */
	const json_t *eb = env_of(ac->b, ob->bench);
	int paired_d = interleaved(e2, eb, o2->bench, ob->bench);
	size_t n3, n4;
	if (trial_ratio(o2->bench, ob->bench, key, paired_d, o, diff, &n3, &n4, &pc, &ignore) == 0) {
		*have_diff = 1;
		json_object_set_new(json_object_get(e, "aa"), "difference",
		                    json_pack("{s:f, s:f, s:f, s:s}", "ratio", diff->estimate, "lo", diff->lo, "hi", diff->hi,
		                              "runs", paired_d ? "interleaved" : "separate"));
	}
	/* Symmetric in log space: an A/A spread of +8% also excuses -8%. */
	double lo = fmin(ci.lo, 1.0 / ci.hi), hi = fmax(ci.hi, 1.0 / ci.lo);
	if (lo < *band_lo)
		*band_lo = lo;
	if (hi > *band_hi)
		*band_hi = hi;
	return 1;
}

/*
 * The paired in-process study of this pair and op, when the campaign has
 * one: its figures and verdict go into e (1); 0 when there is none.
 */
static int paired_entry(const struct compare_opts *o, const struct pair *p, const char *op, json_t *e)
{
	char path[PATH_MAX];
	if (!o->paired_dir || record_path(path, sizeof path, o->paired_dir, "paired", p->a->label, op, ".json", NULL) < 0)
		return 0;
	json_t *r = json_load_regular(path, 0, NULL);
	if (!r)
		return 0;
	const json_t *hit = NULL;
	size_t i;
	json_t *c;
	if (strcmp(jp_str(r, "status", ""), "ok") == 0)
		json_array_foreach(jp(r, "comparisons"), i, c)
			if (strcmp(jp_str(c, "candidate", ""), p->b->profile) == 0 &&
			    strcmp(jp_str(c, "baseline", ""), p->a->profile) == 0)
				hit = c;
	if (hit) {
		static const char *const keys[] = { "ratio", "lo", "hi", "half_width", "var_process", "var_round", "mde",
			                            "processes", "rounds", "verdict", "reason", "detectable", "effect",
			                            "settle_budget_s", "functions", NULL };
		for (int k = 0; keys[k]; k++)
			if (json_object_get(hit, keys[k]))
				json_object_set(e, keys[k], json_object_get(hit, keys[k]));
		json_object_set_new(e, "measure", json_string(strcmp(jp_str(r, "measure", "cpu_ns"), "cpu_ns") == 0
		                                              ? "CPU time" : jp_str(r, "measure", "?")));
		json_object_set_new(e, "runs", json_string("paired in-process"));
		json_object_set_new(e, "resampled", json_string("processes"));
		if (json_is_number(jp(r, "threshold")))
			json_object_set_new(e, "threshold", json_real(jp_num(r, "threshold", NAN)));
		json_object_set_new(e, "paired_record", json_string(path));
		json_object_set_new(e, "stop", json_string(jp_str(r, "stop_reason", "")));
		const json_t *aa = jp(hit, "vs_aa");
		const json_t *arm = NULL;
		json_array_foreach(jp(r, "comparisons"), i, c)
			if (strcmp(jp_str(c, "role", ""), "aa") == 0)
				arm = c;
		if (aa && arm)
			json_object_set_new(e, "aa", json_pack("{s:s, s:f, s:f, s:f, s:s, s:f, s:f, s:f}", "profile",
			                                       jp_str(arm, "candidate", "?"), "ratio", jp_num(arm, "ratio", NAN),
			                                       "lo", jp_num(arm, "lo", NAN), "hi", jp_num(arm, "hi", NAN),
			                                       "runs", "paired in-process", "difference", jp_num(aa, "ratio", NAN),
			                                       "difference_lo", jp_num(aa, "lo", NAN), "difference_hi",
			                                       jp_num(aa, "hi", NAN)));
	}
	json_decref(r);
	return hit != NULL;
}

/* What is compared, with each side's mean and the median of its trials' figures. */
static json_t *timing_figures(const struct pair *p, const struct rs_op *oa, const struct rs_op *ob, const char *unit,
                              const struct measure *m)
{
	json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:I, s:I}", "instance", p->a->name, "profile_a",
	                      p->a->profile, "profile_b", p->b->profile, "op", oa->op, "unit", unit,
	                      "a_mean", jp_num(oa->bench, "summary.mean_units", NAN),
	                      "b_mean", jp_num(ob->bench, "summary.mean_units", NAN),
	                      "a_values", (json_int_t)call_count(oa->bench), "b_values",
	                      (json_int_t)call_count(ob->bench));
	json_object_set_new(e, "measure", json_string(m->label));
	const json_t *bs[2] = { oa->bench, ob->bench };
	static const char *const med_keys[2] = { "a_median", "b_median" };
	for (int k = 0; k < 2; k++) {
		size_t n = 0;
		int pc = 0;
		double *v = trial_figures(bs[k], m->key, &n, &pc);
		if (v && n)
			json_object_set_new(e, med_keys[k], json_real(stats_median(v, n)));
		free(v);
	}
	return e;
}

/* How A's and B's trials were run, and what that allows. */
struct trial_runs {
	int interleaved;
	char block[1024];     /* why the two cannot be compared; "" when they can */
	char widen[1024];     /* what in the environments widens the separate-runs allowance */
	double ta, tb;        /* when each run ended (UTC seconds; negative: unknown) */
	double threshold;     /* practical threshold */
	double separate;      /* separate runs: only a factor beyond this counts */
};

static void trial_runs_of(const struct aa_ctx *ac, const struct rs_op *oa, const struct rs_op *ob,
                          const struct measure *m, json_t *e, struct trial_runs *r)
{
	const struct compare_opts *o = ac->o;
	const json_t *ea = env_of(ac->a, oa->bench), *eb = env_of(ac->b, ob->bench);
	r->interleaved = interleaved(ea, eb, oa->bench, ob->bench);
	r->block[0] = r->widen[0] = '\0';
	env_check(ea, eb, oa->bench, ob->bench, r->block, sizeof r->block, r->widen, sizeof r->widen);
	r->ta = utc_seconds(jp_str(ea, "end_utc", NULL));
	r->tb = utc_seconds(jp_str(eb, "end_utc", NULL));
	json_object_set_new(e, "runs", json_string(r->interleaved ? "interleaved" : "separate"));
	json_object_set_new(e, "resampled", json_string(r->interleaved ? "rounds" : "trials"));
	if (!r->interleaved && r->ta >= 0 && r->tb >= 0)
		json_object_set_new(e, "seconds_apart", json_real(fabs(r->tb - r->ta)));
	r->threshold = o->tolerance_set ? o->tolerance : COMPARE_DEFAULT_THRESHOLD;
	r->separate = o->separate_factor > 1 ? o->separate_factor
	              : m->task_time ? COMPARE_DEFAULT_SEPARATE_TASK : COMPARE_DEFAULT_SEPARATE;
	if (r->widen[0])
		r->separate *= 1.5;
	json_object_set_new(e, "separate_factor", json_real(r->separate));
}

/* Why this verdict, in the comparison's own terms. */
static void trial_reason(const struct verdict_trials *t, enum verdict v, const struct trial_runs *r, const json_t *e,
                         char *reason, size_t len)
{
	const struct verdict_interval *d = &t->vs_aa;
	switch (v) {
	case VERDICT_NOT_COMPARABLE:
		text_add_note(reason, len, "%s", r->block);
		break;
	case VERDICT_FASTER:
	case VERDICT_SLOWER:
		if (t->has_vs_aa)
			text_add_note(reason, len, "B against the A/A copy from the same rounds: %.3f (%.3f-%.3f)", d->ratio,
			           d->lo, d->hi);
		if (!r->interleaved)
			text_add_note(reason, len, "separate runs, but beyond the %.3gx allowance for them", r->separate);
		break;
	case VERDICT_SEPARATE_RUNS: {
		char apart[64] = "";
		if (r->ta >= 0 && r->tb >= 0)
			snprintf(apart, sizeof apart, " (they ended %.0f s apart)", fabs(r->tb - r->ta));
		text_add_note(reason, len, "A and B were not interleaved in one run%s; a whole run can "
		           "shift by up to %.3gx on a busy machine, and this difference is smaller; run both in "
		           "one campaign (pqprof run --profiles A,B) to tell", apart, r->separate);
		break;
	}
	case VERDICT_WITHIN_AA:
		if (t->has_vs_aa)
			text_add_note(reason, len, "B against the A/A copy from the same rounds: %.3f (%.3f-%.3f), %s", d->ratio,
			           d->lo, d->hi, d->hi < 1 || d->lo > 1 ? "within the practical threshold" : "which includes 1");
		else
			text_add_note(reason, len, "the A/A pair differs by as much (%.3f-%.3f)", jp_num(e, "aa.lo", NAN),
			           jp_num(e, "aa.hi", NAN));
		break;
	case VERDICT_BELOW_THRESHOLD:
		text_add_note(reason, len, "significant, but within the %.3g%% practical threshold", t->threshold * 100.0);
		break;
	case VERDICT_NEAR_THRESHOLD:
		text_add_note(reason, len, "significant, but the interval reaches both sides of the %.3g%% "
		           "practical threshold; more trials would tell", t->threshold * 100.0);
		break;
	default:
		break;
	}
	if (r->widen[0])
		text_add_note(reason, len, "environment: %s", r->widen);
}

/* No interval came out: too few trials, or the environments or the resampling forbid one. */
static enum verdict unmeasured_entry(const struct trial_runs *r, size_t na, size_t nb, const pq_error *serr, json_t *e,
                                     char *reason, size_t len)
{
	if (r->block[0])
		text_add_note(reason, len, "%s", r->block);
	text_add_note(reason, len, "%s", serr->msg);
	json_object_set_new(e, "a_trials", json_integer((json_int_t)na));
	json_object_set_new(e, "b_trials", json_integer((json_int_t)nb));
	return verdict_unmeasured(r->block[0] != 0, na, nb, COMPARE_MIN_TRIALS);
}

/*
 * B against A from their trials, held against the threshold, the A/A arm
 * (when there is one) and, for separate runs, their allowance: the
 * figures, the verdict (verdict.h), why, and what the run could have
 * detected.
 */
static enum verdict measured_entry(const struct aa_ctx *ac, const struct pair *p, const struct rs_op *oa,
                                   const struct rs_op *ob, const struct measure *m, const struct trial_runs *r,
                                   const stats_interval *ci, size_t na, size_t nb, json_t *e, char *reason, size_t len)
{
	json_object_set_new(e, "ratio", json_real(ci->estimate));
	json_object_set_new(e, "lo", json_real(ci->lo));
	json_object_set_new(e, "hi", json_real(ci->hi));
	json_object_set_new(e, "a_trials", json_integer((json_int_t)na));
	json_object_set_new(e, "b_trials", json_integer((json_int_t)nb));
	struct verdict_trials t = {
		.vs_base = { ci->estimate, ci->lo, ci->hi }, .na = na, .nb = nb, .interleaved = r->interleaved,
		.not_comparable = r->block[0] != 0, .threshold = r->threshold, .separate_factor = r->separate,
		.aa_lo = 1.0 / (1.0 + r->threshold), .aa_hi = 1.0 + r->threshold,
	};
	stats_interval d;
	t.has_aa = aa_entry(ac, p, oa, ob, m->key, e, &t.aa_lo, &t.aa_hi, &d, &t.has_vs_aa);
	if (t.has_vs_aa)
		t.vs_aa = (struct verdict_interval){ d.estimate, d.lo, d.hi };
	struct verdict_of_trials v;
	verdict_of_trials(&t, &v);
	trial_reason(&t, v.verdict, r, e, reason, len);
	if (isfinite(v.mde)) {
		json_object_set_new(e, "mde", json_real(v.mde));
		json_object_set_new(e, "detectable", jfmt("this run would have detected a change of \u00b1%.2g%% or more",
		                                          v.mde * 100.0));
	}
	if (isfinite(v.settle_trials)) {
		json_object_set_new(e, "settle_trials", json_real(v.settle_trials));
		text_add_note(reason, len, "about %.0f trials (--trials %.0f) would probably settle it", v.settle_trials,
		           v.settle_trials);
	}
	json_object_set_new(e, "band_lo", json_real(v.band_lo));
	json_object_set_new(e, "band_hi", json_real(v.band_hi));
	json_object_set_new(e, "effect", json_boolean(verdict_is_effect(v.verdict)));
	return v.verdict;
}

static json_t *timing_entry(const struct aa_ctx *ac, const struct pair *p, const struct rs_op *oa,
                            const struct rs_op *ob, json_t *notes, pq_error *err, int *rc)
{
	const char *ua = report_bench_unit(oa->bench), *ub = report_bench_unit(ob->bench);
	if (!ua || !ub || strcmp(ua, ub) != 0) {
		*rc = pq_fail(err, PQ_EINPUT,
		              "cannot compare %s %s: A counts %s, B counts %s; measure both with the same counter "
		              "backend (pqprof bench --backend)", p->a->name, oa->op, ua ? ua : "an unrecorded unit",
		              ub ? ub : "an unrecorded unit");
		return NULL;
	}
	struct measure m;
	choose_measure(oa->bench, ob->bench, ua, &m);
	json_t *e = timing_figures(p, oa, ob, ua, &m);
	if (paired_entry(ac->o, p, oa->op, e))
		return e;
	struct trial_runs r;
	trial_runs_of(ac, oa, ob, &m, e, &r);
	stats_interval ci;
	size_t na = 0, nb = 0;
	int pc = 0;
	pq_error serr = { 0 };
	char reason[2048] = "";
	enum verdict v;
	if (trial_ratio(oa->bench, ob->bench, m.key, r.interleaved, ac->o, &ci, &na, &nb, &pc, &serr) < 0) {
		if (serr.code == PQ_ENOMEM) {
			*rc = pq_fail(err, PQ_ENOMEM, "out of memory");
			json_decref(e);
			return NULL;
		}
		v = unmeasured_entry(&r, na, nb, &serr, e, reason, sizeof reason);
	} else {
		json_object_set_new(e, "per_call", json_boolean(pc));
		v = measured_entry(ac, p, oa, ob, &m, &r, &ci, na, nb, e, reason, sizeof reason);
		if (!pc)
			json_array_append_new(notes, jfmt("%s %s: the records keep no per-call values; each trial "
			                      "counts by its mean", p->a->name, oa->op));
	}
	json_object_set_new(e, "verdict", json_string(verdict_name(v)));
	if (reason[0])
		json_object_set_new(e, "reason", json_string(reason));
	return e;
}

/* Static image of an instance: the sizes record, or any memory record. */
static double image_of(const struct rs_instance *in)
{
	double v = jp_num(in->sizes, "elf.image_memsz", -1);
	for (int k = 0; k < in->nops && v < 0; k++)
		v = jp_num(in->ops[k].memory, "static_image_bytes", -1);
	return v;
}

static int memory_ok(const json_t *m)
{
	const char *st = jp_str(m, "status", NULL);
	return m && (!st || strcmp(st, "complete") == 0) && jp(m, "memory");
}

static json_t *memory_entry(const struct pair *p, const struct rs_op *oa, const struct rs_op *ob)
{
	double pa = jp_num(oa->memory, "memory.peak_rss", NAN), pb = jp_num(ob->memory, "memory.peak_rss", NAN);
	double sa = jp_num(oa->memory, "memory.stack.used", NAN), sb = jp_num(ob->memory, "memory.stack.used", NAN);
	json_t *e = json_pack("{s:s, s:s}", "instance", p->a->name, "op", oa->op);
	if (isfinite(pa) && isfinite(pb))
		json_object_set_new(e, "peak_rss", json_pack("{s:f, s:f, s:f}", "a", pa, "b", pb, "delta", pb - pa));
	if (isfinite(sa) && isfinite(sb))
		json_object_set_new(e, "stack", json_pack("{s:f, s:f, s:f}", "a", sa, "b", sb, "delta", sb - sa));
	return e;
}

static const json_t *function_of(const json_t *prof, const char *name)
{
	size_t i;
	json_t *f;
	json_array_foreach(jp(prof, "functions"), i, f)
		if (strcmp(jp_str(f, "name", ""), name) == 0)
			return f;
	return NULL;
}

/* One function on one side: self share with its interval, and its self cost per operation. */
struct fn_side {
	double share, share_lo, share_hi;
	double cost, cost_lo, cost_hi;   /* units per op; NAN when the record gives no cost per op */
};

static struct fn_side fn_side_of(const json_t *prof, const char *name)
{
	struct fn_side s = { 0, 0, 0, NAN, NAN, NAN };
	double upo = jp_num(prof, "units_per_op", NAN);
	const json_t *f = function_of(prof, name);
	if (f) {
		s.share = jp_num(f, "self_share", 0);
		s.share_lo = jp_num(f, "self_lo", s.share);
		s.share_hi = jp_num(f, "self_hi", s.share);
	}
	/* A function a side did not list took (almost) none of its samples. */
	if (isfinite(upo) && upo > 0) {
		s.cost = s.share * upo;
		s.cost_lo = s.share_lo * upo;
		s.cost_hi = s.share_hi * upo;
	}
	return s;
}

struct fn_delta {
	const char *name;
	struct fn_side a, b;
	double key;
};

static int cmp_delta(const void *x, const void *y)
{
	const struct fn_delta *p = x, *q = y;
	if (p->key != q->key)
		return p->key < q->key ? 1 : -1;
	return strcmp(p->name, q->name);
}

/*
 * Rows of the per-function table, largest absolute change first: the
 * change in self cost per operation when both profiles give a cost per
 * op in the same unit (sampled cycles, or ns of CPU clock), else the
 * change in self share.  The cost interval comes from the Wilson
 * intervals of the shares (the sampling error); it does not include the
 * run-to-run noise of the cost per op itself.
 */
static json_t *function_entry(const struct pair *p, const struct rs_op *oa, const struct rs_op *ob, int top)
{
	size_t na = json_array_size(jp(oa->profile, "functions")), nb = json_array_size(jp(ob->profile, "functions"));
	struct fn_delta *d = calloc(na + nb + 1, sizeof *d);
	if (!d)
		return NULL;
	const char *unit_a = jp_str(oa->profile, "unit", NULL), *unit_b = jp_str(ob->profile, "unit", NULL);
	int costs = unit_a && unit_b && strcmp(unit_a, unit_b) == 0 &&
	            jp_num(oa->profile, "units_per_op", 0) > 0 && jp_num(ob->profile, "units_per_op", 0) > 0;
	size_t n = 0;
	const json_t *profs[2] = { oa->profile, ob->profile };
	for (int s = 0; s < 2; s++) {
		size_t i;
		json_t *f;
		json_array_foreach(jp(profs[s], "functions"), i, f) {
			const char *name = jp_str(f, "name", NULL);
			int seen = !name;
			for (size_t k = 0; k < n && !seen; k++)
				seen = strcmp(d[k].name, name) == 0;
			if (seen)
				continue;
			d[n].name = name;
			d[n].a = fn_side_of(oa->profile, name);
			d[n].b = fn_side_of(ob->profile, name);
			d[n].key = costs ? fabs(d[n].b.cost - d[n].a.cost) : fabs(d[n].b.share - d[n].a.share);
			n++;
		}
	}
	qsort(d, n, sizeof *d, cmp_delta);
	json_t *rows = json_array();
	for (size_t i = 0; i < n && i < (size_t)top; i++) {
		json_t *r = json_pack("{s:s, s:f, s:f, s:f}", "name", d[i].name, "a_self_share", d[i].a.share,
		                      "b_self_share", d[i].b.share, "delta", d[i].b.share - d[i].a.share);
		if (costs) {
			double dc = d[i].b.cost - d[i].a.cost;
			double ha = fmax(d[i].a.cost - d[i].a.cost_lo, d[i].a.cost_hi - d[i].a.cost);
			double hb = fmax(d[i].b.cost - d[i].b.cost_lo, d[i].b.cost_hi - d[i].b.cost);
			double h = sqrt(ha * ha + hb * hb);
			json_object_set_new(r, "a_cost", json_real(d[i].a.cost));
			json_object_set_new(r, "b_cost", json_real(d[i].b.cost));
			json_object_set_new(r, "cost_delta", json_real(dc));
			json_object_set_new(r, "cost_delta_lo", json_real(dc - h));
			json_object_set_new(r, "cost_delta_hi", json_real(dc + h));
		}
		json_array_append_new(rows, r);
	}
	free(d);
	json_t *e = json_pack("{s:s, s:s, s:o}", "instance", p->a->name, "op", oa->op, "functions", rows);
	if (costs) {
		json_object_set_new(e, "cost_unit", json_string(unit_a));
		json_object_set_new(e, "a_units_per_op", json_real(jp_num(oa->profile, "units_per_op", NAN)));
		json_object_set_new(e, "b_units_per_op", json_real(jp_num(ob->profile, "units_per_op", NAN)));
	}
	return e;
}

static int load_folded(const char *dir, const char *rel, const char *op, const char *event, folded **out,
                       pq_error *err)
{
	char path[4096 + RS_PATH + 2];
	char *text = NULL;
	int r = path_fmt(path, sizeof path, err, "%s/%s", dir, rel);
	if (r == 0)
		r = read_whole_file(path, &text, NULL, 256u << 20, err);
	if (r < 0)
		return r;
	folded *f = folded_new(event);
	if (!f) {
		free(text);
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	}
	r = folded_parse(f, op, text, err);
	free(text);
	if (r < 0) {
		pq_error_prefix(err, "%s: ", path);
		folded_free(f);
		return r;
	}
	*out = f;
	return 0;
}

/* A differential flame graph when both sides kept folded stacks; notes say why not. */
static void diff_flame(const struct record_set *a, const struct record_set *b, const struct pair *p,
                       const struct rs_op *oa, const struct rs_op *ob, const struct compare_opts *o,
                       json_t *flames, json_t *notes)
{
	if (!oa->folded_file[0] || !ob->folded_file[0]) {
		if ((oa->trace_file[0] || oa->flame_file[0]) && (ob->trace_file[0] || ob->flame_file[0]))
			json_array_append_new(notes, jfmt("%s %s: no differential flame graph: it is drawn from folded "
			                      "stacks (flame/<label>__<op>.folded, or \"folded\" in the profile record), "
			                      "which %s lacks; .pqt traces need the symbolizer to fold",
			                      p->a->name, oa->op, !oa->folded_file[0] ? "A" : "B"));
		return;
	}
	if (!o->out_dir) {
		json_array_append_new(notes, jfmt("%s %s: differential flame graph not drawn (give --out DIR)",
		                                  p->a->name, oa->op));
		return;
	}
	const char *event = jp_str(ob->profile, "event", NULL);
	folded *fa = NULL, *fb = NULL;
	pq_error e = { 0 };
	char dir[4200], path[4200 + RS_NAME + 32];
	if (path_fmt(dir, sizeof dir, &e, "%s/flame", o->out_dir) < 0 ||
	    path_fmt(path, sizeof path, &e, "%s/diff_%s__%s.svg", dir, p->b->label, oa->op) < 0)
		dir[0] = path[0] = '\0';
	char title[2 * RS_NAME + 64];
	snprintf(title, sizeof title, "%s %s: B vs A (red grew, blue shrank)", p->a->name, oa->op);
	struct flamegraph_opts fo = { .title = title };
	if (load_folded(a->dir, oa->folded_file, oa->op, event, &fa, &e) == 0 &&
	    load_folded(b->dir, ob->folded_file, ob->op, event, &fb, &e) == 0 && make_dirs(dir, &e) == 0 &&
	    flamegraph_diff_svg(fa, fb, oa->op, &fo, path, &e) == 0)
		json_array_append_new(flames, json_pack("{s:s, s:s, s:s}", "instance", p->a->name, "op", oa->op,
		                                        "file", path));
	else
		json_array_append_new(notes, jfmt("%s %s: differential flame graph failed: %s", p->a->name, oa->op,
		                                  e.msg));
	folded_free(fa);
	folded_free(fb);
}

int compare_sets(const struct record_set *a, const struct record_set *b, const struct compare_opts *o,
                 json_t **result, pq_error *err)
{
	*result = NULL;
	struct compare_opts dflt = { 0 };
	if (!o)
		o = &dflt;
	struct pair *pairs = calloc(a->ninst + 1, sizeof *pairs);
	if (!pairs)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	size_t np = make_pairs(a, b, pairs);
	struct aa_ctx ac = { .a = a, .b = b, .o = o };
	json_t *timing = json_array(), *images = json_array(), *memory = json_array(), *functions = json_array();
	json_t *flames = json_array(), *notes = json_array();
	int rc = 0, timed = 0;
	int top = o->max_functions > 0 ? o->max_functions : COMPARE_TOP_FUNCTIONS;
	for (size_t i = 0; i < np && rc == 0; i++) {
		const struct pair *p = &pairs[i];
		double ia = image_of(p->a), ib = image_of(p->b);
		if (ia >= 0 && ib >= 0)
			json_array_append_new(images, json_pack("{s:s, s:f, s:f, s:f}", "instance", p->a->name, "a", ia,
			                                        "b", ib, "delta", ib - ia));
		for (int k = 0; k < p->a->nops && rc == 0; k++) {
			const struct rs_op *oa = &p->a->ops[k], *ob = rs_find_op(p->b, oa->op);
			if (!ob)
				continue;
			if (complete(oa->bench) && complete(ob->bench)) {
				json_t *e = timing_entry(&ac, p, oa, ob, notes, err, &rc);
				if (e) {
					json_array_append_new(timing, e);
					timed++;
				}
			} else if (oa->bench || ob->bench) {
				json_array_append_new(notes, jfmt("%s %s: not timed on both sides (A %s, B %s)", p->a->name,
				                      oa->op, oa->bench ? jp_str(oa->bench, "status", "?") : "missing",
				                      ob->bench ? jp_str(ob->bench, "status", "?") : "missing"));
			}
			if (memory_ok(oa->memory) && memory_ok(ob->memory))
				json_array_append_new(memory, memory_entry(p, oa, ob));
			if (oa->profile && ob->profile) {
				json_t *fe = function_entry(p, oa, ob, top);
				if (fe)
					json_array_append_new(functions, fe);
			}
			diff_flame(a, b, p, oa, ob, o, flames, notes);
		}
	}
	free(pairs);
	if (rc == 0 && !np)
		rc = pq_fail(err, PQ_EINPUT, "%s and %s have no instance in common", a->dir, b->dir);
	if (rc == 0 && !timed && !json_array_size(memory) && !json_array_size(functions) && !json_array_size(images))
		rc = pq_fail(err, PQ_EINPUT, "%s and %s have no (instance, op) measured on both sides", a->dir, b->dir);
	if (rc < 0) {
		json_decref(timing);
		json_decref(images);
		json_decref(memory);
		json_decref(functions);
		json_decref(flames);
		json_decref(notes);
		return rc;
	}
	double th = o->tolerance_set ? o->tolerance : COMPARE_DEFAULT_THRESHOLD;
	/*
	 * One threshold per study: when every timed row was judged by the paired
	 * in-process study, its threshold is the comparison's.
	 */
	double pth = NAN;
	int all_paired = json_array_size(timing) > 0;
	size_t ti;
	json_t *te;
	json_array_foreach(timing, ti, te) {
		double x = jp_num(te, "threshold", NAN);
		if (!isfinite(x) || (isfinite(pth) && x != pth))
			all_paired = 0;
		pth = x;
	}
	if (all_paired && !o->tolerance_set)
		th = pth;
	*result = json_pack("{s:s, s:s, s:s, s:i, s:I, s:f, s:f, s:f, s:o, s:o, s:o, s:o, s:o, s:o}", "schema",
	                    "pqprof.compare/1", "a", a->dir, "b", b->dir, "resamples",
	                    o->resamples > 0 ? o->resamples : STATS_BOOTSTRAP_RESAMPLES, "seed",
	                    (json_int_t)(o->seed ? o->seed : STATS_BOOTSTRAP_SEED), "tolerance", th, "threshold", th,
	                    "separate_factor", o->separate_factor > 1 ? o->separate_factor : 0.0,
	                    "timing", timing, "static_image", images, "memory", memory, "functions", functions,
	                    "flamegraphs", flames, "notes", notes);
	if (*result && o->aa)
		json_object_set_new(*result, "aa", json_string(o->aa->dir));
	if (!*result)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	return 0;
}

/* ---------------- rendering ---------------- */

static void fmt_ratio(char *buf, size_t len, const json_t *e)
{
	double r = jp_num(e, "ratio", NAN), lo = jp_num(e, "lo", NAN), hi = jp_num(e, "hi", NAN);
	if (!isfinite(r))
		snprintf(buf, len, "–");
	else
		snprintf(buf, len, "%.3f (%.3f–%.3f)", r, lo, hi);
}

static void fmt_delta_bytes(char *buf, size_t len, double a, double b)
{
	if (a > 0)
		snprintf(buf, len, "%+.0f (%+.1f%%)", b - a, (b - a) / a * 100.0);
	else
		snprintf(buf, len, "%+.0f", b - a);
}

static void fmt_delta_kib(char *buf, size_t len, double d)
{
	snprintf(buf, len, "%+.0f KiB", d / 1024.0);
}

static void fmt_aa(char *buf, size_t len, const json_t *e)
{
	if (!jp(e, "aa"))
		snprintf(buf, len, "–");
	else
		snprintf(buf, len, "%.3f (%.3f–%.3f)", jp_num(e, "aa.ratio", NAN), jp_num(e, "aa.lo", NAN),
		         jp_num(e, "aa.hi", NAN));
}

/* A signed cost: a time for ns ("-1.2 µs"), else a count ("-715.5 k"); the formatters know only magnitudes. */
static void fmt_cost(char *buf, size_t len, double v, const char *unit)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "–");
		return;
	}
	char mag[24];
	if (strcmp(unit, "ns") == 0)
		fmt_seconds(mag, sizeof mag, fabs(v) * 1e-9);
	else
		fmt_count(mag, sizeof mag, fabs(v));
	snprintf(buf, len, "%s%s", v < 0 ? "-" : "", mag);
}

/* A median per call with its unit: a time for nanosecond measures ("2.7 µs"), else the count and its unit. */
static void fmt_median(char *buf, size_t len, double v, const char *measure)
{
	if (!isfinite(v))
		snprintf(buf, len, "–");
	else if (strcmp(measure, "CPU ns") == 0 || strcmp(measure, "ns") == 0 || strcmp(measure, "CPU time") == 0)
		fmt_seconds(buf, len, v * 1e-9);
	else {
		char c[32];
		fmt_count(c, sizeof c, v);
		snprintf(buf, len, "%s %s", c, measure);
	}
}

static void anchor_of(char *buf, size_t len, const char *prefix, const char *id)
{
	snprintf(buf, len, "%s%s", prefix ? prefix : "", id);
}

static void timing_table(const json_t *res, rdoc *d, int level, const char *anchor)
{
	char id[128];
	size_t i;
	json_t *e;
	json_t *timing = jp(res, "timing");
	int any_aa = 0;
	json_array_foreach(timing, i, e)
		any_aa |= jp(e, "aa") != NULL;
	anchor_of(id, sizeof id, anchor, "timing");
	rdoc_heading(d, level, id, "Timing");
	if (!json_array_size(timing)) {
		rdoc_para(d, "No operation was timed on both sides.");
		return;
	}
	static const char *const hdr[] = { "instance", "operation", "measure", "A median", "B median",
	                                   "ratio B/A (95% interval)", "runs", "verdict", "A/A (95% interval)" };
	struct rd_table *t = rdoc_table(d, any_aa ? 9 : 8, hdr);
	json_array_foreach(timing, i, e) {
		char ma[96], mb[96], ratio[96], aa[96], inst[2 * RS_NAME + 16];
		const char *measure = jp_str(e, "measure", jp_str(e, "unit", "?"));
		/* The medians the ratio is about: typical per-call cost of each side, with the measure's unit. */
		fmt_median(ma, sizeof ma, jp_num(e, "a_median", jp_num(e, "a_mean", NAN)), measure);
		fmt_median(mb, sizeof mb, jp_num(e, "b_median", jp_num(e, "b_mean", NAN)), measure);
		fmt_ratio(ratio, sizeof ratio, e);
		fmt_aa(aa, sizeof aa, e);
		const char *pa = jp_str(e, "profile_a", ""), *pb = jp_str(e, "profile_b", "");
		snprintf(inst, sizeof inst, "%s", jp_str(e, "instance", "?"));
		const char *cells[] = { inst, jp_str(e, "op", "?"), measure, ma, mb, ratio,
		                        jp_str(e, "runs", "?"), jp_str(e, "verdict", "unknown"), aa };
		rd_row(d, t, cells, 1u);
		if (strcmp(pa, pb) != 0) {
			char sfx[2 * RS_NAME + 16];
			snprintf(sfx, sizeof sfx, " (%s → %s)", pa[0] ? pa : "?", pb[0] ? pb : "?");
			rd_suffix(d, t, 0, sfx);
		}
	}
	int reasons = 0;
	json_array_foreach(timing, i, e) {
		if (jp_str(e, "reason", NULL)) {
			if (!reasons++)
				rdoc_list(d);
			rdoc_item(d, "%s %s: %s — %s", jp_str(e, "instance", "?"), jp_str(e, "op", "?"),
			          jp_str(e, "verdict", "?"), jp_str(e, "reason", ""));
		}
		if (jp_str(e, "detectable", NULL)) {
			if (!reasons++)
				rdoc_list(d);
			if (jp(e, "var_process"))
				rdoc_item(d, "%s %s: %s; %.0f processes, %.0f rounds; variance of the log ratio between processes "
				          "%.2g, between rounds within a process %.2g", jp_str(e, "instance", "?"),
				          jp_str(e, "op", "?"), jp_str(e, "detectable", ""), jp_num(e, "processes", NAN),
				          jp_num(e, "rounds", NAN), jp_num(e, "var_process", NAN), jp_num(e, "var_round", NAN));
			else
				rdoc_item(d, "%s %s: %s", jp_str(e, "instance", "?"), jp_str(e, "op", "?"),
				          jp_str(e, "detectable", ""));
		}
	}
}

static void function_tables(const json_t *res, rdoc *d, int level, const char *anchor)
{
	char id[128];
	size_t i;
	json_t *e;
	json_t *functions = jp(res, "functions");
	if (!json_array_size(functions))
		return;
	anchor_of(id, sizeof id, anchor, "functions");
	rdoc_heading(d, level, id, "Functions");
	rdoc_para(d, "Self cost per operation in A and in B (the function's self share of the samples times the "
	          "sampled cost per operation, in the unit the profiler sampled) and its change with a 95%% interval "
	          "from the sampling error of both shares; beside it the self share and its change in percentage "
	          "points.  A share can grow while the cost falls, when everything else fell more.  Largest changes "
	          "first.");
	json_array_foreach(functions, i, e) {
		rdoc_heading(d, level + 1, NULL, "%s — %s", jp_str(e, "instance", "?"), jp_str(e, "op", "?"));
		const char *unit = jp_str(e, "cost_unit", NULL);
		size_t k;
		json_t *f;
		if (unit) {
			char h[4][64];
			/* Nanoseconds are shown as times, each with its unit; other units name the column. */
			const char *col = strcmp(unit, "ns") == 0 ? "time" : unit;
			snprintf(h[0], sizeof h[0], "A %s/op", col);
			snprintf(h[1], sizeof h[1], "B %s/op", col);
			snprintf(h[2], sizeof h[2], "delta %s/op (95%% interval)", col);
			const char *hdr[] = { "function", h[0], h[1], h[2], "self share A", "self share B", "delta pp" };
			struct rd_table *t = rdoc_table(d, 7, hdr);
			json_array_foreach(jp(e, "functions"), k, f) {
				char a[32], b[32], dc[128], lo[32], hi[32], sa[32], sb[32], dl[32];
				fmt_cost(a, sizeof a, jp_num(f, "a_cost", NAN), unit);
				fmt_cost(b, sizeof b, jp_num(f, "b_cost", NAN), unit);
				double dv = jp_num(f, "cost_delta", NAN);
				fmt_cost(lo, sizeof lo, jp_num(f, "cost_delta_lo", NAN), unit);
				fmt_cost(hi, sizeof hi, jp_num(f, "cost_delta_hi", NAN), unit);
				char dv_s[32];
				fmt_cost(dv_s, sizeof dv_s, dv, unit);
				snprintf(dc, sizeof dc, "%s%s (%s … %s)", dv > 0 ? "+" : "", dv_s, lo, hi);
				report_fmt_share(sa, sizeof sa, jp_num(f, "a_self_share", NAN));
				report_fmt_share(sb, sizeof sb, jp_num(f, "b_self_share", NAN));
				snprintf(dl, sizeof dl, "%+.1f", jp_num(f, "delta", NAN) * 100.0);
				const char *cells[] = { jp_str(f, "name", "?"), a, b, dc, sa, sb, dl };
				rd_row(d, t, cells, 1u);
			}
		} else {
			rdoc_para(d, "No cost per operation in a common unit on both sides: self shares only.");
			static const char *const hdr[] = { "function", "self share A", "self share B", "delta pp" };
			struct rd_table *t = rdoc_table(d, 4, hdr);
			json_array_foreach(jp(e, "functions"), k, f) {
				char a[32], b[32], dl[32];
				report_fmt_share(a, sizeof a, jp_num(f, "a_self_share", NAN));
				report_fmt_share(b, sizeof b, jp_num(f, "b_self_share", NAN));
				snprintf(dl, sizeof dl, "%+.1f", jp_num(f, "delta", NAN) * 100.0);
				const char *cells[] = { jp_str(f, "name", "?"), a, b, dl };
				rd_row(d, t, cells, 1u);
			}
		}
	}
}

int compare_doc_body(const json_t *res, rdoc *d, int level, const char *anchor, pq_error *err)
{
	char id[128];
	size_t i;
	json_t *e;
	char allowance[96];
	if (jp_num(res, "separate_factor", 0) > 1)
		snprintf(allowance, sizeof allowance, "x%.3g, as given", jp_num(res, "separate_factor", 0));
	else
		snprintf(allowance, sizeof allowance, "x%.3g for CPU time or cycles, x%.3g for wall-clock figures",
		         COMPARE_DEFAULT_SEPARATE_TASK, COMPARE_DEFAULT_SEPARATE);
	rdoc_para(d, "Ratios are B over A of the typical cost per call (each trial's median per-call value; below 1: "
	          "B is faster), in PMU cycles where the counter counts cycles, else in CPU time per call where both "
	          "records kept it (blind to the time a process waits for a CPU), else in the counter's wall-clock "
	          "units.  The 95%% interval resamples trials, not calls: in an interleaved run (A, B, A, B, ...) "
	          "trial i of A and of B form one round and whole rounds are resampled (a blocked bootstrap, %.0f "
	          "resamples, fixed seed), widened to the Student-t interval when that is wider.  A change is "
	          "reported (faster, slower) only when the whole interval lies outside the practical threshold of "
	          "±%.3g%%, outside the spread of an A/A pair when there is one, and, for separate runs, outside the "
	          "allowance for runs that were not interleaved (%s).", jp_num(res, "resamples", 0),
	          jp_num(res, "threshold", 0) * 100.0, allowance);
	double th = jp_num(res, "threshold", 0);
	json_array_foreach(jp(res, "timing"), i, e) {
		double x = jp_num(e, "threshold", NAN);
		if (isfinite(x) && x != th) {
			rdoc_para(d, "Rows measured paired in-process were judged by that study against its own practical "
			          "threshold of ±%.3g%%.", x * 100.0);
			break;
		}
	}
	timing_table(res, d, level, anchor);
	json_t *images = jp(res, "static_image");
	if (json_array_size(images)) {
		anchor_of(id, sizeof id, anchor, "image");
		rdoc_heading(d, level, id, "Static image");
		static const char *const hdr[] = { "instance", "A (bytes)", "B (bytes)", "delta" };
		struct rd_table *t = rdoc_table(d, 4, hdr);
		json_array_foreach(images, i, e) {
			char a[32], b[32], dl[64];
			double va = jp_num(e, "a", NAN), vb = jp_num(e, "b", NAN);
			snprintf(a, sizeof a, "%.0f", va);
			snprintf(b, sizeof b, "%.0f", vb);
			fmt_delta_bytes(dl, sizeof dl, va, vb);
			const char *cells[] = { jp_str(e, "instance", "?"), a, b, dl };
			rd_row(d, t, cells, 1u);
		}
	}
	json_t *memory = jp(res, "memory");
	if (json_array_size(memory)) {
		anchor_of(id, sizeof id, anchor, "memory");
		rdoc_heading(d, level, id, "Memory");
		static const char *const hdr[] = { "instance", "operation", "peak RSS A", "peak RSS B", "delta",
		                                   "stack A", "stack B", "delta" };
		struct rd_table *t = rdoc_table(d, 8, hdr);
		json_array_foreach(memory, i, e) {
			char c[6][48];
			const char *cells[8] = { jp_str(e, "instance", "?"), jp_str(e, "op", "?") };
			if (jp(e, "peak_rss")) {
				fmt_bytes_binary(c[0], 48, jp_num(e, "peak_rss.a", NAN));
				fmt_bytes_binary(c[1], 48, jp_num(e, "peak_rss.b", NAN));
				fmt_delta_kib(c[2], 48, jp_num(e, "peak_rss.delta", NAN));
				cells[2] = c[0], cells[3] = c[1], cells[4] = c[2];
			}
			if (jp(e, "stack")) {
				snprintf(c[3], 48, "%.0f B", jp_num(e, "stack.a", NAN));
				snprintf(c[4], 48, "%.0f B", jp_num(e, "stack.b", NAN));
				snprintf(c[5], 48, "%+.0f B", jp_num(e, "stack.delta", NAN));
				cells[5] = c[3], cells[6] = c[4], cells[7] = c[5];
			}
			rd_row(d, t, cells, 1u);
		}
	}
	function_tables(res, d, level, anchor);
	json_t *flames = jp(res, "flamegraphs");
	json_array_foreach(flames, i, e)
		rdoc_item(d, "differential flame graph, %s %s: %s", jp_str(e, "instance", "?"), jp_str(e, "op", "?"),
		          jp_str(e, "file", "?"));
	json_t *notes = jp(res, "notes");
	if (json_array_size(notes)) {
		anchor_of(id, sizeof id, anchor, "notes");
		rdoc_heading(d, level, id, "Notes");
		json_array_foreach(notes, i, e)
			if (json_is_string(e))
				rdoc_item(d, "%s", json_string_value(e));
	}
	if (d->oom)
		return pq_fail(err, PQ_ENOMEM, "out of memory rendering the comparison");
	return 0;
}

int compare_doc(const json_t *res, rdoc *d, pq_error *err)
{
	rdoc_heading(d, 1, "compare", "Comparison: B / A");
	rdoc_item(d, "A (baseline): %s", jp_str(res, "a", "?"));
	rdoc_item(d, "B (candidate): %s", jp_str(res, "b", "?"));
	if (jp_str(res, "aa", NULL))
		rdoc_item(d, "A/A (a second copy of A): %s", jp_str(res, "aa", "?"));
	return compare_doc_body(res, d, 2, NULL, err);
}

int compare_write(const json_t *result, const char *out_dir, pq_error *err)
{
	int r = make_dirs(out_dir, err);
	if (r < 0)
		return r;
	char path[4200];
	rdoc doc;
	rdoc_init(&doc);
	r = compare_doc(result, &doc, err);
	if (r == 0) {
		r = path_fmt(path, sizeof path, err, "%s/compare.md", out_dir);
		if (r == 0)
			r = report_write_markdown(&doc, path, err);
	}
	rdoc_free(&doc);
	if (r < 0)
		return r;
	r = path_fmt(path, sizeof path, err, "%s/compare.json", out_dir);
	return r < 0 ? r : json_file_write(path, result, err);
}
