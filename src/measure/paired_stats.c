/*
 * paired_stats: two-level (process, round) estimates and the repetition
 * planner of a paired in-process flag study; see paired_stats.h (its
 * verdicts: verdict.h).  No allocation, no I/O: every figure is recomputed from
 * the caller's arrays in a fixed order, so the same data give the same
 * bits.
 */
#include "config.h"
#include "measure/paired_stats.h"

#include <math.h>

#include "measure/stats.h"
#include "measure/verdict.h"

/* Far more processes than any study runs: beyond this a plan is refused. */
#define MAX_PROCESSES ((size_t)1 << 40)
/* How many process counts a planner search visits at most. */
#define MAX_SCAN ((size_t)1 << 22)

/* ---- estimates ---- */

/* x[p][r] of one comparison, or the difference of two (b != NULL). */
static double value_at(const struct paired_series *a, const struct paired_series *b, size_t p, size_t r)
{
	return b ? a->x[p][r] - b->x[p][r] : a->x[p][r];
}

static int check_series(const struct paired_series *s, const char *what, pq_error *err)
{
	if (!s || !s->nrounds || !s->x)
		return pq_fail(err, PQ_EINPUT, "%s: no data", what);
	if (s->nproc < 2)
		return pq_fail(err, PQ_EINPUT,
		               "%s: %zu runner process%s; an interval needs at least 2, since one process "
		               "cannot tell its own layout's effect from the builds' difference",
		               what, s->nproc, s->nproc == 1 ? "" : "es");
	for (size_t p = 0; p < s->nproc; p++) {
		if (s->nrounds[p] == 0 || !s->x[p])
			return pq_fail(err, PQ_EINPUT, "%s: process %zu has no rounds", what, p);
		for (size_t r = 0; r < s->nrounds[p]; r++)
			if (!isfinite(s->x[p][r]))
				return pq_fail(err, PQ_EINPUT, "%s: process %zu round %zu: log ratio %g is not finite",
				               what, p, r, s->x[p][r]);
	}
	return 0;
}

static double process_mean(const struct paired_series *a, const struct paired_series *b, size_t p)
{
	double sum = 0;
	for (size_t r = 0; r < a->nrounds[p]; r++)
		sum += value_at(a, b, p, r);
	return sum / (double)a->nrounds[p];
}

static void estimate_from(const struct paired_series *a, const struct paired_series *b,
                          struct paired_estimate *out)
{
	size_t n = a->nproc, total = 0;
	double grand = 0, inv_rounds = 0;
	for (size_t p = 0; p < n; p++) {
		grand += process_mean(a, b, p);
		total += a->nrounds[p];
		inv_rounds += 1.0 / (double)a->nrounds[p];
	}
	grand /= (double)n;

	double ss_between = 0, ss_within = 0;
	for (size_t p = 0; p < n; p++) {
		double m = process_mean(a, b, p);
		ss_between += (m - grand) * (m - grand);
		for (size_t r = 0; r < a->nrounds[p]; r++) {
			double d = value_at(a, b, p, r) - m;
			ss_within += d * d;
		}
	}
	double var_means = ss_between / (double)(n - 1);
	double harmonic_rounds = (double)n / inv_rounds;

	out->nproc = n;
	out->nrounds_total = total;
	out->mean_log = grand;
	out->df = (double)(n - 1);
	out->se_log = sqrt(var_means / (double)n);
	out->var_round = total > n ? ss_within / (double)(total - n) : NAN;
	out->var_process = isnan(out->var_round) ? var_means : fmax(0, var_means - out->var_round / harmonic_rounds);

	double t = stats_t975(out->df);
	out->ratio = exp(grand);
	out->lo = exp(grand - t * out->se_log);
	out->hi = exp(grand + t * out->se_log);
	out->half_width = fmax(out->hi / out->ratio - 1, 1 - out->lo / out->ratio);
	out->mde = verdict_mde(out->se_log, out->df);
}

int paired_estimate(const struct paired_series *s, struct paired_estimate *out, pq_error *err)
{
	int rc = check_series(s, "paired comparison", err);
	if (rc)
		return rc;
	estimate_from(s, NULL, out);
	return 0;
}

int paired_difference(const struct paired_series *a, const struct paired_series *b,
                      struct paired_estimate *out, pq_error *err)
{
	int rc = check_series(a, "paired difference, first comparison", err);
	if (!rc)
		rc = check_series(b, "paired difference, second comparison", err);
	if (rc)
		return rc;
	if (a->nproc != b->nproc)
		return pq_fail(err, PQ_EINPUT, "paired difference: %zu processes against %zu; both comparisons "
		               "must come from the same rounds", a->nproc, b->nproc);
	for (size_t p = 0; p < a->nproc; p++)
		if (a->nrounds[p] != b->nrounds[p])
			return pq_fail(err, PQ_EINPUT, "paired difference: process %zu has %zu rounds against %zu; "
			               "both comparisons must come from the same rounds", p, a->nrounds[p], b->nrounds[p]);
	/* Finite minus finite can still overflow. */
	for (size_t p = 0; p < a->nproc; p++)
		for (size_t r = 0; r < a->nrounds[p]; r++)
			if (!isfinite(value_at(a, b, p, r)))
				return pq_fail(err, PQ_EINPUT, "paired difference: process %zu round %zu is not finite", p, r);
	estimate_from(a, b, out);
	return 0;
}

/* ---- planner ---- */

/* The quantile a sample of n processes is judged with: t_{.975}, plus t_{.80} for power. */
static double quantile_for(size_t n, int with_power)
{
	double df = (double)(n - 1);
	return with_power ? stats_t975(df) + stats_t80(df) : stats_t975(df);
}

/* Whether n processes, each mean of variance unit_var, bring q * se within target. */
static int reaches(double unit_var, double target, size_t n, int with_power)
{
	double q = quantile_for(n, with_power);
	return q * q * unit_var <= target * target * (double)n;
}

/* Smallest n >= nmin (nmin >= 2) that reaches target; 0 when none up to MAX_PROCESSES (see paired_stats.h). */
size_t paired_processes_needed(double unit_var, double target, size_t nmin, int with_power)
{
	if (reaches(unit_var, target, nmin, with_power))
		return nmin;
	size_t fail = nmin, ok = nmin;
	do {
		if (ok >= MAX_PROCESSES)
			return 0;
		fail = ok;
		ok = ok > MAX_PROCESSES / 2 ? MAX_PROCESSES : 2 * ok;
	} while (!reaches(unit_var, target, ok, with_power));
	while (ok - fail > 1) {
		size_t mid = fail + (ok - fail) / 2;
		if (reaches(unit_var, target, mid, with_power))
			ok = mid;
		else
			fail = mid;
	}
	return ok;
}

double paired_optimal_rounds(double var_process, double var_round, const struct paired_costs *c)
{
	if (!c || !(var_process >= 0) || !(var_round >= 0) || !(c->process_s >= 0) || !(c->round_s >= 0) ||
	    !isfinite(var_process) || !isfinite(var_round) || !isfinite(c->process_s) || !isfinite(c->round_s))
		return NAN;
	if (var_round == 0 || c->process_s == 0)
		return 0;
	if (var_process == 0 || c->round_s == 0)
		return INFINITY;
	return sqrt(c->process_s * var_round / (c->round_s * var_process));
}

struct plan_problem {
	const struct paired_components *comp;
	size_t ncomp;
	const struct paired_costs *c;
	double target;  /* ln(1 + precision) */
	size_t min_proc, min_rounds, max_rounds;
};

/* Variance of one process's mean at m rounds, for the hardest comparison. */
static double worst_unit_var(const struct plan_problem *pb, size_t m)
{
	double worst = 0;
	for (size_t k = 0; k < pb->ncomp; k++)
		worst = fmax(worst, pb->comp[k].var_process + pb->comp[k].var_round / (double)m);
	return worst;
}

static double plan_cost(const struct plan_problem *pb, size_t n, size_t m)
{
	return (double)n * (pb->c->process_s + (double)m * pb->c->round_s);
}

/* Relative half-width n processes of m rounds are expected to give. */
static double predicted_half_width(const struct plan_problem *pb, size_t n, size_t m)
{
	return expm1(stats_t975((double)(n - 1)) * sqrt(worst_unit_var(pb, m) / (double)n));
}

/*
 * Fewest rounds in [min_rounds, max_rounds] with which n processes reach
 * the target; 0 when even max_rounds do not.  The closed form
 * m >= var_round / (n (target/t)^2 - var_process) gives the start, the
 * direct test has the last word (rounding).
 */
static size_t fewest_rounds(const struct plan_problem *pb, size_t n)
{
	if (!reaches(worst_unit_var(pb, pb->max_rounds), pb->target, n, 0))
		return 0;
	double t = stats_t975((double)(n - 1));
	double allowed = (double)n * (pb->target / t) * (pb->target / t);
	double need = (double)pb->min_rounds;
	for (size_t k = 0; k < pb->ncomp; k++)
		if (pb->comp[k].var_round > 0 && allowed > pb->comp[k].var_process)
			need = fmax(need, pb->comp[k].var_round / (allowed - pb->comp[k].var_process));
	size_t m = need >= (double)pb->max_rounds ? pb->max_rounds : (size_t)ceil(need);
	if (m < pb->min_rounds)
		m = pb->min_rounds;
	while (m > pb->min_rounds && reaches(worst_unit_var(pb, m - 1), pb->target, n, 0))
		m--;
	while (m < pb->max_rounds && !reaches(worst_unit_var(pb, m), pb->target, n, 0))
		m++;
	return m;
}

static void set_plan(const struct plan_problem *pb, size_t n, size_t m, int within, struct paired_plan *out)
{
	out->nproc = n;
	out->nrounds = m;
	out->predicted_half_width = predicted_half_width(pb, n, m);
	out->predicted_s = plan_cost(pb, n, m);
	out->within_budget = within;
}

/* The cheapest plan that reaches the precision; 0, or -1 when none does. */
static int cheapest_plan(const struct plan_problem *pb, struct paired_plan *out)
{
	size_t n0 = paired_processes_needed(worst_unit_var(pb, pb->max_rounds), pb->target, pb->min_proc, 0);
	if (n0 == 0)
		return -1;
	size_t best_n = 0, best_m = 0;
	double best = INFINITY;
	double per_process_floor = pb->c->process_s + (double)pb->min_rounds * pb->c->round_s;
	for (size_t n = n0; n < n0 + MAX_SCAN && n <= MAX_PROCESSES; n++) {
		/* No later n can cost less than n processes of min_rounds. */
		if (best_n && (double)n * per_process_floor >= best)
			break;
		size_t m = fewest_rounds(pb, n);
		if (m == 0)
			continue;
		double cost = plan_cost(pb, n, m);
		if (!best_n || cost < best) {
			best = cost;
			best_n = n;
			best_m = m;
		}
		if (m == pb->min_rounds)
			break;  /* more processes only add cost from here */
	}
	set_plan(pb, best_n, best_m, 1, out);
	return 0;
}

/* Within budget_s: the plan with the smallest predicted half-width. */
static void best_within_budget(const struct plan_problem *pb, double budget_s, struct paired_plan *out)
{
	const struct paired_costs *c = pb->c;
	double floor_per_process = c->process_s + (double)pb->min_rounds * c->round_s;
	double nmax_d = floor_per_process > 0 ? floor(budget_s / floor_per_process) : (double)MAX_PROCESSES;
	size_t nmax = nmax_d >= (double)MAX_PROCESSES ? MAX_PROCESSES : (size_t)nmax_d;
	if (nmax > pb->min_proc + MAX_SCAN)
		nmax = pb->min_proc + MAX_SCAN;
	size_t best_n = 0, best_m = 0;
	double best = INFINITY;
	for (size_t n = pb->min_proc; n <= nmax; n++) {
		size_t m = pb->max_rounds;
		if (c->round_s > 0) {
			double fit = floor((budget_s / (double)n - c->process_s) / c->round_s);
			if (fit < (double)m)
				m = (size_t)fit;
		}
		if (m < pb->min_rounds)
			continue;
		double hw = predicted_half_width(pb, n, m);
		if (!best_n || hw < best) {
			best = hw;
			best_n = n;
			best_m = m;
		}
	}
	if (!best_n) {
		best_n = pb->min_proc;
		best_m = pb->min_rounds;
	}
	set_plan(pb, best_n, best_m, 0, out);
}

int paired_plan_repetition_many(const struct paired_components *comp, size_t ncomp,
                                const struct paired_costs *c, double precision, double budget_s,
                                size_t min_proc, size_t min_rounds, size_t max_rounds,
                                struct paired_plan *out, pq_error *err)
{
	if (!comp || ncomp == 0)
		return pq_fail(err, PQ_EINPUT, "repetition plan: no comparisons");
	for (size_t k = 0; k < ncomp; k++)
		if (!(comp[k].var_process >= 0) || !(comp[k].var_round >= 0) || !isfinite(comp[k].var_process) ||
		    !isfinite(comp[k].var_round))
			return pq_fail(err, PQ_EINPUT,
			               "repetition plan: comparison %zu has variance components %g (process) and %g "
			               "(round); both must be finite and >= 0", k, comp[k].var_process, comp[k].var_round);
	if (!c || !(c->process_s >= 0) || !(c->round_s >= 0) || !isfinite(c->process_s) || !isfinite(c->round_s))
		return pq_fail(err, PQ_EINPUT, "repetition plan: costs must be finite and >= 0 seconds");
	if (!(precision > 0) || !isfinite(precision))
		return pq_fail(err, PQ_EINPUT, "repetition plan: precision %g is not a positive fraction", precision);
	if (min_rounds == 0 || max_rounds < min_rounds)
		return pq_fail(err, PQ_EINPUT, "repetition plan: rounds per process must lie in [%zu, %zu], "
		               "a non-empty range from 1", min_rounds, max_rounds);
	struct plan_problem pb = {
		.comp = comp, .ncomp = ncomp, .c = c, .target = log1p(precision),
		.min_proc = min_proc < 2 ? 2 : min_proc, .min_rounds = min_rounds, .max_rounds = max_rounds,
	};
	if (cheapest_plan(&pb, out))
		return pq_fail(err, PQ_EINPUT, "repetition plan: a relative half-width of %g would need more than "
		               "2^40 processes", precision);
	if (budget_s > 0 && out->predicted_s > budget_s)
		best_within_budget(&pb, budget_s, out);
	return 0;
}

int paired_plan_repetition(double var_process, double var_round, const struct paired_costs *c,
                           double precision, double budget_s, size_t min_proc, size_t min_rounds,
                           size_t max_rounds, struct paired_plan *out, pq_error *err)
{
	struct paired_components one = { .var_process = var_process, .var_round = var_round };
	return paired_plan_repetition_many(&one, 1, c, precision, budget_s, min_proc, min_rounds, max_rounds, out,
	                                   err);
}
