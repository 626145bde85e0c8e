/* paired: pilot, plan, processes and verdicts of a paired study; see paired.h. */
#include "config.h"
#include "core/reader_view.h"
#include "supervise/paired.h"
#include "core/clock.h"
#include "core/text_buf.h"
#include "supervise/bench.h"
#include "supervise/blame.h"
#include "supervise/child.h"
#include "supervise/output_log.h"
#include "supervise/paired_functions.h"
#include "measure/paired_stats.h"
#include "measure/verdict.h"
#include "runner/op_ctx.h"
#include "core/grow.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAIRED_MAX_PROCESSES 200

/* One runner process's rounds: v[r * nb + b] is build b's per-call figure in round r. */
struct proc {
	size_t rounds;
	double *v;
	double setup_s, rounds_s, wall_s;
	long iters;
};

struct study {
	const struct paired_config *cfg;
	int nb;
	struct proc *p;
	size_t np, cap;
	int use_units;          /* per-call counter units (cycles) rather than CPU time */
	char unit[32], backend[160];
	long iters;             /* calls per slot, fixed by the first process */
	double elapsed_s;
	json_t *events;         /* what the runner said of each process, for the record */
	json_t **samples;       /* per process: the runner's self samples per build, or NULL */
	struct child_result last_out;  /* the last child that printed anything (for the log) */
	int have_out;
};

/* Log ratios of build i against build j, per process and round. */
struct series_buf {
	double **x;
	size_t *n;
	struct paired_series s;
	size_t clipped;   /* rounds winsorized (see winsorize) */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * A round that another process on the machine disturbed (its cache
 * flushed, the core's frequency dropped mid-slot) gives a log ratio far
 * out, in either direction: whichever build's slot it hit.  Values beyond
 * PAIRED_CLIP robust standard deviations (1.4826 x the median absolute
 * deviation) of the median are moved to that limit, so that one such
 * round weighs as much as a bad round can and no more.  With no effect
 * the noise is symmetric and the clipping moves nothing on average: the
 * A/A arm stays unbiased.
 */
#define PAIRED_CLIP 3.0
/* b->clipped set; -1 when memory runs out (the rounds are not clipped then: no estimate may use them). */
static int winsorize(struct series_buf *b)
{
	size_t total = 0;
	b->clipped = 0;
	for (size_t p = 0; p < b->s.nproc; p++)
		total += b->n[p];
	if (total < 8)
		return 0;
	double *all = malloc(total * sizeof *all);
	if (!all)
		return -1;
	size_t k = 0;
	for (size_t p = 0; p < b->s.nproc; p++)
		for (size_t r = 0; r < b->n[p]; r++)
			all[k++] = b->x[p][r];
	qsort(all, total, sizeof *all, cmp_double);
	double med = total % 2 ? all[total / 2] : 0.5 * (all[total / 2 - 1] + all[total / 2]);
	for (size_t i = 0; i < total; i++)
		all[i] = fabs(all[i] - med);
	qsort(all, total, sizeof *all, cmp_double);
	double mad = total % 2 ? all[total / 2] : 0.5 * (all[total / 2 - 1] + all[total / 2]);
	free(all);
	double lim = PAIRED_CLIP * 1.4826 * mad;
	if (!(lim > 0))
		return 0;
	for (size_t p = 0; p < b->s.nproc; p++)
		for (size_t r = 0; r < b->n[p]; r++) {
			double *x = &b->x[p][r];
			if (*x > med + lim || *x < med - lim) {
				*x = *x > med ? med + lim : med - lim;
				b->clipped++;
			}
		}
	return 0;
}

/* -1 when memory runs out; series_free releases b either way. */
static int series_make(const struct study *st, int i, int j, struct series_buf *b)
{
	memset(b, 0, sizeof *b);
	b->x = calloc(st->np ? st->np : 1, sizeof *b->x);
	b->n = calloc(st->np ? st->np : 1, sizeof *b->n);
	if (!b->x || !b->n)
		return -1;
	b->s.nproc = st->np; /* what series_free walks, from here on */
	for (size_t p = 0; p < st->np; p++) {
		const struct proc *pr = &st->p[p];
		b->x[p] = malloc((pr->rounds ? pr->rounds : 1) * sizeof **b->x);
		if (!b->x[p])
			return -1;
		size_t k = 0;
		for (size_t r = 0; r < pr->rounds; r++) {
			double a = pr->v[r * (size_t)st->nb + (size_t)i], c = pr->v[r * (size_t)st->nb + (size_t)j];
			if (a > 0 && c > 0)
				b->x[p][k++] = log(a / c);
		}
		b->n[p] = k;
	}
	b->s.nrounds = b->n;
	b->s.x = (const double *const *)b->x;
	return winsorize(b);
}

static void series_free(struct series_buf *b)
{
	for (size_t p = 0; b->x && p < b->s.nproc; p++)
		free(b->x[p]);
	free(b->x);
	free(b->n);
}

/* The estimate of build i against build j (against the A/A arm too when aa >= 0: the difference). */
static int estimate(const struct study *st, int i, int j, int aa, struct paired_estimate *vs, struct paired_estimate *d,
                    size_t *clipped, pq_error *err)
{
	struct series_buf a, b = { 0 };
	int r = series_make(st, i, j, &a);
	if (r == 0 && aa >= 0)
		r = series_make(st, aa, j, &b);
	if (r < 0) {
		series_free(&a);
		series_free(&b);
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	}
	r = paired_estimate(&a.s, vs, err);
	if (r == 0 && aa >= 0)
		r = paired_difference(&a.s, &b.s, d, err);
	if (clipped)
		*clipped = a.clipped;
	series_free(&a);
	series_free(&b);
	return r;
}

static double precision_of(const struct paired_config *c)
{
	return c->precision > 0 ? c->precision : PAIRED_DEFAULT_PRECISION;
}

static double threshold_of(const struct paired_config *c)
{
	return c->threshold > 0 ? c->threshold : precision_of(c);
}

static double budget_of(const struct paired_config *c)
{
	return c->budget_s > 0 ? c->budget_s : PAIRED_DEFAULT_BUDGET_S;
}

/* The comparisons whose precision the study aims at: each candidate (against the A/A arm when there is one) and the A/A arm. */
static int tested(const struct study *st, int k, struct paired_estimate *out, pq_error *err)
{
	int aa = st->cfg->aa;
	struct paired_estimate vs = { 0 }, d = { 0 };
	int r = estimate(st, k, 0, k == aa ? -1 : aa, &vs, &d, NULL, err);
	if (r == 0)
		*out = k != aa && aa >= 0 ? d : vs;
	return r;
}

/* One runner process of `rounds` rounds; appended to the study.  Returns 0 or a PQ_* failure. */
static int run_process(struct study *st, size_t rounds, double max_s, json_t *rec, pq_error *err)
{
	const struct paired_config *cfg = st->cfg;
	char r_s[32], it[32], ml[32], sd[32], mx[32];
	snprintf(r_s, sizeof r_s, "%zu", rounds);
	snprintf(it, sizeof it, "%ld", st->iters);
	snprintf(ml, sizeof ml, "%ld", cfg->mlen > 0 ? cfg->mlen : 64);
	snprintf(sd, sizeof sd, "%llu", (unsigned long long)((cfg->seed ? cfg->seed : 0x70717072ULL) + st->np * 7919u));
	snprintf(mx, sizeof mx, "%.3f", max_s);
	const char *args[2 * PAIRED_MAX_BUILDS + 24];
	int n = 0;
	const char *extra[PAIRED_MAX_BUILDS];
	char abs[PAIRED_MAX_BUILDS][PATH_MAX];
	for (int b = 1; b < st->nb; b++)
		extra[b - 1] = realpath(cfg->builds[b].lib, abs[b]) ? abs[b] : cfg->builds[b].lib;
	const char *kv[][2] = { { "--op", pq_op_name(cfg->op) }, { "--rounds", r_s }, { "--iters", it },
		                { "--mlen", ml }, { "--seed", sd }, { "--max-seconds", mx }, { "--sample-hz", PAIRED_SAMPLE_HZ },
		                { "--events", cfg->events ? cfg->events : "cycles" } };
	for (size_t k = 0; k < sizeof kv / sizeof kv[0]; k++) {
		args[n++] = kv[k][0];
		args[n++] = kv[k][1];
	}
	args[n] = NULL;
	double limit = cfg->timeout_s > 0 ? cfg->timeout_s : 900;
	if (max_s * 3 + 60 > limit)
		limit = max_s * 3 + 60;
	struct child_spec cs = {
		.job = "paired", .lib = cfg->builds[0].lib, .args = args, .timeout_s = limit, .cpu = cfg->cpu,
		.as_limit = cfg->as_limit ? cfg->as_limit : child_default_as_limit(), .namespaces = st->nb + 1,
		.extra_libs = extra, .nextra_libs = st->nb - 1,
	};
	struct child_result res;
	double t0 = mono_s();
	int r = child_run(&cs, &res, err);
	if (r < 0)
		return r;
	st->elapsed_s += mono_s() - t0;
	if (res.output_total) {
		if (st->have_out)
			child_result_free(&st->last_out);
		st->last_out = res;
		st->have_out = 1;
	}
	if (res.end != CHILD_OK || !res.done) {
		char why[768];
		child_describe(&res, why, sizeof why);
		/* The build whose calls were running, where the runner said. */
		size_t i;
		json_t *ev;
		json_array_foreach(res.events, i, ev) {
			json_int_t b = json_integer_value(json_object_get(ev, "build"));
			const char *name = json_string_value(json_object_get(ev, "ev"));
			if (name && strcmp(name, "in_build") == 0 && b >= 0 && b < st->nb) {
				text_appendf(why, sizeof why, ", in build %s (%s)", cfg->builds[b].label, cfg->builds[b].lib);
				json_object_set_new(rec, "failed_build", json_string(cfg->builds[b].label));
				break;
			}
		}
		int code = child_blame(&res);
		json_object_set_new(rec, "status", json_string("failed"));
		json_object_set_new(rec, "failure", json_pack("{s:s, s:s, s:s}", "kind", bench_failure_kind(&res),
		                                              "reason", why, "blame", blame_kind(code)));
		if (!res.output_total)
			child_result_free(&res);
		return pq_fail(err, code, "%s: %s", pq_op_name(cfg->op), why);
	}
	const json_t *done = res.done;
	json_t *data = json_object_get(done, "data");
	size_t m = json_array_size(data);
	if (st->np == 0) {
		st->iters = (long)json_integer_value(json_object_get(done, "iters"));
		st->use_units = json_is_true(json_object_get(done, "counts_cycles"));
		snprintf(st->unit, sizeof st->unit, "%s", st->use_units ? json_string_value(json_object_get(done, "unit"))
		                                                          : "cpu_ns");
		snprintf(st->backend, sizeof st->backend, "%s",
		         json_string_value(json_object_get(done, "backend_desc")) ?: "");
	}
	/* samples grows with p: both hold cap entries. */
	size_t cap = st->cap, grown = st->cap;
	double *v = NULL;
	if (pq_grow(&st->p, &grown, st->np + 1, sizeof *st->p, 16) == 0 && grown != cap) {
		json_t **g = realloc(st->samples, grown * sizeof *g);
		if (g)
			st->samples = g;
		grown = g ? grown : cap; /* st->p is larger than needed then: harmless */
	}
	if (grown > st->np)
		v = calloc((m ? m : 1) * (size_t)st->nb, sizeof *v);
	if (!v) {
		if (res.output_total == 0)
			child_result_free(&res);
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	}
	st->cap = grown;
	st->samples[st->np] = json_incref(json_object_get(done, "samples"));
	struct proc *pr = &st->p[st->np];
	memset(pr, 0, sizeof *pr);
	pr->v = v;
	for (size_t k = 0; k < m; k++) {
		json_t *vals = json_object_get(json_array_get(data, k), st->use_units ? "units" : "cpu_ns");
		for (int b = 0; b < st->nb; b++)
			pr->v[k * (size_t)st->nb + (size_t)b] = json_number_value(json_array_get(vals, (size_t)b));
	}
	pr->rounds = m;
	pr->iters = (long)json_integer_value(json_object_get(done, "iters"));
	pr->setup_s = json_number_value(json_object_get(done, "setup_s"));
	pr->rounds_s = json_number_value(json_object_get(done, "rounds_s"));
	pr->wall_s = res.wall_s;
	st->np++;
	json_t *jp = json_pack("{s:I, s:I, s:f, s:f, s:f, s:O, s:O}", "rounds", (json_int_t)m, "iters",
	                       (json_int_t)pr->iters, "setup_s", pr->setup_s, "rounds_s", pr->rounds_s, "wall_s",
	                       pr->wall_s, "contention", json_object_get(done, "contention"), "data", data);
	json_array_append_new(st->events, jp);
	if (res.output_total == 0)
		child_result_free(&res);
	return 0;
}

static void costs_of(const struct study *st, struct paired_costs *c)
{
	double ps = 0, rs = 0, nr = 0;
	for (size_t p = 0; p < st->np; p++) {
		double other = st->p[p].wall_s - st->p[p].rounds_s;
		ps += other > 0 ? other : 0;
		rs += st->p[p].rounds_s;
		nr += (double)st->p[p].rounds;
	}
	c->process_s = st->np ? ps / (double)st->np : 1;
	c->round_s = nr > 0 ? rs / nr : 1;
	if (c->round_s <= 0)
		c->round_s = 1e-3;
}

static void pct(char *buf, size_t len, double rel)
{
	snprintf(buf, len, "%.2g%%", rel * 100.0);
}

/* Per candidate: ratios, the difference from the A/A arm, verdict and what the run could see. */
static json_t *comparisons(const struct study *st, double threshold, pq_error *err)
{
	const struct paired_config *cfg = st->cfg;
	json_t *arr = json_array();
	for (int k = 1; k < st->nb; k++) {
		int is_aa = k == cfg->aa;
		struct paired_estimate vs, d;
		int aa = is_aa ? -1 : cfg->aa;
		size_t clipped = 0;
		if (estimate(st, k, 0, aa, &vs, &d, &clipped, err) < 0) {
			json_decref(arr);
			return NULL;
		}
		const struct paired_estimate *t = aa >= 0 ? &d : &vs;
		enum verdict v = verdict_paired(&vs, aa >= 0 ? &d : NULL, threshold);
		char mde[32], th[32], why[512];
		pct(mde, sizeof mde, t->mde);
		pct(th, sizeof th, threshold);
		json_t *e = json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:s}", "candidate",
		                      cfg->builds[k].label, "baseline", cfg->builds[0].label, "role",
		                      is_aa ? "aa" : "candidate", "ratio", vs.ratio, "lo", vs.lo, "hi", vs.hi, "half_width",
		                      vs.half_width, "var_process", vs.var_process, "var_round", vs.var_round, "mde", vs.mde,
		                      "processes", (json_int_t)vs.nproc, "rounds", (json_int_t)vs.nrounds_total,
		                      "verdict", verdict_name(v));
		if (aa >= 0)
			json_object_set_new(e, "vs_aa", json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "aa",
			                                          cfg->builds[aa].label, "ratio", d.ratio, "lo", d.lo, "hi",
			                                          d.hi, "half_width", d.half_width, "var_process",
			                                          d.var_process, "var_round", d.var_round, "mde", d.mde));
		snprintf(why, sizeof why, "this run would have detected a change of \u00b1%s or more", mde);
		json_object_set_new(e, "detectable", json_string(why));
		if (verdict_is_effect(v)) {
			snprintf(why, sizeof why, "%s %s %s by %.1f%% (%.3f-%.3f)%s; beyond the %s practical threshold",
			         cfg->builds[k].label, v == VERDICT_FASTER ? "faster than" : "slower than",
			         cfg->builds[0].label, fabs(vs.ratio - 1) * 100.0, vs.lo, vs.hi,
			         aa >= 0 ? ", and different from the A/A arm beyond both uncertainties" : "", th);
			json_object_set_new(e, "reason", json_string(why));
		} else if (v == VERDICT_INCONCLUSIVE) {
			double need = verdict_settle_budget_s(t, threshold, st->elapsed_s);
			if (isfinite(need)) {
				snprintf(why, sizeof why, "too noisy to tell at the %s threshold; a study of about %.0f s "
				         "(--budget %.0f) would probably settle it", th, need, ceil(need));
				json_object_set_new(e, "settle_budget_s", json_real(need));
			} else {
				snprintf(why, sizeof why, "too noisy to tell at the %s threshold; more runs would not settle "
				         "it on this machine", th);
			}
			json_object_set_new(e, "reason", json_string(why));
		} else if (v == VERDICT_BELOW_THRESHOLD) {
			snprintf(why, sizeof why, "significant, but within the %s practical threshold", th);
			json_object_set_new(e, "reason", json_string(why));
		}
		json_object_set_new(e, "effect", json_boolean(verdict_is_effect(v)));
		json_object_set_new(e, "rounds_clipped", json_integer((json_int_t)clipped));
		json_array_append_new(arr, e);
	}
	return arr;
}

struct functions_call {
	const json_t *const *samples;
	size_t np;
	int nb;
	const char *const *libs;
	const double *cost;
};

static json_t *functions_fn(void *ctx, pq_error *err)
{
	const struct functions_call *c = ctx;
	return paired_functions(c->samples, c->np, c->nb, c->libs, c->cost, err);
}

/* Per candidate, the functions whose cost per call changed most, from the same runs' self samples. */
static void add_functions(const struct study *st, json_t *cmp, json_t *rec)
{
	const struct paired_config *cfg = st->cfg;
	double cost[PAIRED_MAX_BUILDS] = { 0 }, n = 0;
	const char *libs[PAIRED_MAX_BUILDS];
	for (int b = 0; b < st->nb; b++)
		libs[b] = cfg->builds[b].lib;
	for (size_t p = 0; p < st->np; p++)
		for (size_t r = 0; r < st->p[p].rounds; r++, n++)
			for (int b = 0; b < st->nb; b++)
				cost[b] += st->p[p].v[r * (size_t)st->nb + (size_t)b];
	for (int b = 0; b < st->nb && n > 0; b++)
		cost[b] /= n;
	pq_error err = { 0 };
	/* The builds' symbols and DWARF are parsed in a reader view (core/reader_view.h). */
	struct functions_call call = { (const json_t *const *)st->samples, st->np, st->nb, libs, cost };
	struct reader_view *v = calloc(1, sizeof *v);
	json_t *tabs = NULL;
	char note[256];
	for (int b = 0; v && b < st->nb; b++)
		reader_view_add(v, libs[b], 0);
	if (!v)
		pq_fail(&err, PQ_ENOMEM, "out of memory");
	else if (reader_view_call(v, functions_fn, &call, &tabs, note, sizeof note, &err) < 0)
		tabs = NULL;
	free(v);
	if (!tabs) {
		json_object_set_new(rec, "functions_error", json_string(err.msg));
		return;
	}
	size_t i;
	json_t *c;
	json_array_foreach(cmp, i, c)
		json_object_set(c, "functions", json_array_get(tabs, i));
	json_decref(tabs);
	json_object_set_new(rec, "functions_note",
	                    json_pack("{s:s, s:s}", "how", "self samples of every build's slots (cpu-clock, user space) "
	                              "at " PAIRED_SAMPLE_HZ " Hz, summed over the processes; a function's cost per call "
	                              "is its self share times the build's mean per-call cost", "unit",
	                              st->unit[0] ? st->unit : "cpu_ns"));
}

static json_t *record_base(const struct paired_config *cfg)
{
	json_t *rec = json_pack("{s:s, s:s, s:s, s:I}", "schema", "pqprof.paired/1", "op", pq_op_name(cfg->op),
	                        "mode", "paired in-process", "message_bytes",
	                        (json_int_t)(cfg->mlen > 0 ? cfg->mlen : 64));
	json_t *b = json_array();
	for (int k = 0; k < cfg->nbuilds; k++)
		json_array_append_new(b, json_pack("{s:s, s:s, s:s}", "label", cfg->builds[k].label, "lib",
		                                   cfg->builds[k].lib, "role",
		                                   k == 0 ? "baseline" : k == cfg->aa ? "aa" : "candidate"));
	json_object_set_new(rec, "builds", b);
	if (cfg->instance)
		json_object_set(rec, "instance", cfg->instance);
	if (cfg->command)
		json_object_set_new(rec, "command", json_string(cfg->command));
	if (cfg->environment)
		json_object_set(rec, "environment", cfg->environment);
	if (op_ctx_keys_note(cfg->op))
		json_object_set_new(rec, "keys", json_string(op_ctx_keys_note(cfg->op)));
	return rec;
}

#define say(cfg, ...) progress_printf((cfg)->progress, (cfg)->progress_user, __VA_ARGS__)

/*
 * A process-level variance the pilot put at 0 is mostly the estimate
 * clamped at 0, seldom a real 0: a plan made on it would count on rounds
 * alone.  Below this floor ((0.2%)^2 on the log ratio) it is taken as the floor.
 */
#define PAIRED_VAR_PROCESS_FLOOR 4e-6

/* The widest interval now, and the plan that would bring every comparison to the precision. */
static int plan_next(struct study *st, double precision, double budget, struct paired_plan *plan, double *worst_hw,
                     double *vp_out, double *vr_out, pq_error *err)
{
	struct paired_costs c;
	costs_of(st, &c);
	*worst_hw = 0;
	*vp_out = *vr_out = 0;
	memset(plan, 0, sizeof *plan);
	int min_proc = st->cfg->min_processes > 0 ? st->cfg->min_processes : PAIRED_MIN_PROCESSES;
	struct paired_components comp[PAIRED_MAX_BUILDS];
	size_t n = 0;
	for (int k = 1; k < st->nb; k++) {
		struct paired_estimate t = { 0 };
		int r = tested(st, k, &t, err);
		if (r < 0)
			return r;
		if (!(t.half_width <= *worst_hw))
			*worst_hw = t.half_width;
		comp[n].var_process = t.var_process > PAIRED_VAR_PROCESS_FLOOR ? t.var_process : PAIRED_VAR_PROCESS_FLOOR;
		comp[n].var_round = isfinite(t.var_round) ? t.var_round : 0;
		if (comp[n].var_process > *vp_out)
			*vp_out = comp[n].var_process;
		if (comp[n].var_round > *vr_out)
			*vr_out = comp[n].var_round;
		n++;
	}
	return paired_plan_repetition_many(comp, n, &c, precision, budget, (size_t)min_proc, 2, PAIRED_MAX_ROUNDS, plan,
	                                   err);
}

int paired_run(const struct paired_config *cfg, json_t **record, pq_error *err)
{
	*record = NULL;
	if (cfg->nbuilds < 2 || cfg->nbuilds > PAIRED_MAX_BUILDS)
		return pq_fail(err, PQ_EUSAGE, "a paired study needs 2 to %d builds, not %d", PAIRED_MAX_BUILDS,
		               cfg->nbuilds);
	struct study st = { .cfg = cfg, .nb = cfg->nbuilds, .events = json_array() };
	json_t *rec = record_base(cfg);
	double precision = precision_of(cfg), threshold = threshold_of(cfg), budget = budget_of(cfg);
	int min_proc = cfg->min_processes > 0 ? cfg->min_processes : PAIRED_MIN_PROCESSES;
	const char *stop = NULL;
	int rc = 0;
	/* The pilot: a few processes of a few rounds, for both variance components and the costs. */
	for (int k = 0; k < PAIRED_PILOT_PROCESSES && rc == 0; k++) {
		double left = budget - st.elapsed_s;
		if (k > 1 && left <= 0)  /* two processes at least: the interval needs them */
			break;
		rc = run_process(&st, PAIRED_PILOT_ROUNDS, left > 1 ? left / (double)(PAIRED_PILOT_PROCESSES - k) : 1, rec,
		                 err);
	}
	size_t pilot = st.np;
	struct paired_plan plan = { 0 };
	double hw = INFINITY, vp = NAN, vr = NAN;
	json_t *plans = json_array();
	while (rc == 0) {
		if (st.np >= 2 && (rc = plan_next(&st, precision, budget, &plan, &hw, &vp, &vr, err)) < 0)
			break;
		if (st.np >= (size_t)min_proc && hw <= precision) {
			stop = "precision reached";
			break;
		}
		struct paired_costs c;
		costs_of(&st, &c);
		double left = budget - st.elapsed_s;
		size_t m = plan.nrounds >= 2 ? plan.nrounds : PAIRED_PILOT_ROUNDS;
		double fit = (left - c.process_s) / c.round_s;
		if (fit < 2) {
			stop = "budget spent";
			break;
		}
		if ((double)m > fit)
			m = (size_t)fit;
		if (st.np >= PAIRED_MAX_PROCESSES) {
			stop = "process limit";
			break;
		}
		json_array_append_new(plans, json_pack("{s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f}", "after_processes",
		                                       (json_int_t)st.np, "processes", (json_int_t)plan.nproc,
		                                       "rounds", (json_int_t)m, "var_process", vp, "var_round", vr,
		                                       "process_s", c.process_s, "round_s", c.round_s,
		                                       "half_width_now", hw));
		rc = run_process(&st, m, left - c.process_s, rec, err);
		if (rc == 0)
			say(cfg, "%s: %zu processes, %.0f s, widest interval \u00b1%.2f%%", pq_op_name(cfg->op), st.np,
			    st.elapsed_s, isfinite(hw) ? hw * 100.0 : 0.0);
	}
	json_object_set_new(rec, "precision", json_real(precision));
	json_object_set_new(rec, "threshold", json_real(threshold));
	json_object_set_new(rec, "budget_s", json_real(budget));
	json_object_set_new(rec, "elapsed_s", json_real(st.elapsed_s));
	json_object_set_new(rec, "measure", json_string(st.unit[0] ? st.unit : "cpu_ns"));
	json_object_set_new(rec, "measure_desc", json_string(st.use_units ? "per-call counter units (PMU cycles)"
	                                                     : "per-call CPU time of the runner's thread"));
	if (st.backend[0])
		json_object_set_new(rec, "backend", json_string(st.backend));
	json_object_set_new(rec, "calls_per_slot", json_integer(st.iters));
	json_object_set_new(rec, "pilot", json_pack("{s:I, s:i}", "processes", (json_int_t)pilot, "rounds",
	                                           PAIRED_PILOT_ROUNDS));
	json_object_set_new(rec, "plans", plans);
	json_object_set_new(rec, "processes", st.events);
	st.events = NULL;
	if (rc == 0) {
		json_t *cmp = comparisons(&st, threshold, err);
		if (!cmp) {
			rc = err->code ? -err->code : -PQ_EINPUT;
			json_object_set_new(rec, "status", json_string("failed"));
			json_object_set_new(rec, "failure", json_pack("{s:s, s:s}", "kind", "statistics", "reason", err->msg));
		} else {
			add_functions(&st, cmp, rec);
			json_object_set_new(rec, "comparisons", cmp);
			json_object_set_new(rec, "status", json_string("ok"));
			json_object_set_new(rec, "stop", json_string(stop ? stop : "budget spent"));
			char why[256];
			snprintf(why, sizeof why, "%s: %zu processes, widest interval \u00b1%.2f%% (target \u00b1%.2g%%), "
			         "%.0f of %.0f s", stop ? stop : "budget spent", st.np, hw * 100.0, precision * 100.0,
			         st.elapsed_s, budget);
			json_object_set_new(rec, "stop_reason", json_string(why));
		}
	}
	if (st.have_out && cfg->output_log) {
		json_t *o = output_log_write(&st.last_out, cfg->output_log);
		if (o)
			json_object_set_new(rec, "scheme_output", o);
	}
	if (st.have_out)
		child_result_free(&st.last_out);
	for (size_t p = 0; p < st.np; p++) {
		free(st.p[p].v);
		json_decref(st.samples[p]);
	}
	free(st.p);
	free(st.samples);
	json_decref(st.events);
	*record = rec;
	return rc;
}
