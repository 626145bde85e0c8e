/*
 * paired_stats: the statistics of a paired in-process flag study.
 *
 * The study: a runner process loads several builds of one library side by
 * side (build 0 is the baseline; the others are candidates, and one may be
 * an A/A copy of the baseline, built the same way but loaded as a separate
 * object) and calls one operation round by round, every build once per
 * round in a shuffled order, timing each call by CPU time.  Several runner
 * processes, each with a fresh address-space layout, form the outer level.
 * For the comparison of build l with build 0 every round gives one paired
 * log ratio  x[p][r] = ln(t_l / t_0)  (process p, round r).
 *
 * The model is the two-level random-effects model of Kalibera & Jones,
 * "Rigorous benchmarking in reasonable time" (ISMM 2013):
 *
 *     x[p][r] = mu + a[p] + e[p][r],   a ~ (0, var_process), e ~ (0, var_round)
 *
 * a[p] is what one process's layout (code placement, alignment, the
 * allocator's choices) does to the ratio for the whole life of the
 * process; e[p][r] is the round-to-round noise inside a process.  Rounds of
 * one process are therefore not independent replicates: the independent
 * units are the processes, and every interval here is a Student-t interval
 * over the per-process means (df = processes - 1).  Rounds only shrink the
 * within-process part of each process mean's variance.
 *
 * What is here: the estimate of one comparison and of the difference of
 * two comparisons measured in the same rounds (candidate against the A/A
 * copy) and the repetition planner (how many processes and rounds reach a
 * given precision at least cost).  The verdict rule that uses the A/A
 * arm, and how much more data would settle an inconclusive verdict, are
 * in verdict.h, with the other comparisons' verdicts.  What is not:
 * running anything, timing, shuffling, printing.  Every function is a
 * pure, deterministic function of its arguments.
 *
 * Ratios are candidate / baseline costs: below 1 is faster.  "Relative"
 * figures (precision, threshold, half_width, mde) are fractions: 0.01 is
 * 1%.  A threshold band of t means ratios in [1/(1+t), 1+t], which is the
 * symmetric band [-ln(1+t), +ln(1+t)] on the log scale.
 */
#ifndef PQ_MEASURE_PAIRED_STATS_H
#define PQ_MEASURE_PAIRED_STATS_H

#include <stddef.h>

#include "core/pq_error.h"

/*
 * One comparison's data.  nrounds[p] is the number of rounds of process p
 * (processes may differ, e.g. when a budget cut one short); x[p] points to
 * nrounds[p] finite log ratios.  Nothing is copied or kept.
 */
struct paired_series {
	size_t nproc;
	const size_t *nrounds;
	const double *const *x;
};

/*
 * The estimate of one comparison.
 *
 *   mean_log   grand mean on the log scale: the plain mean of the
 *              per-process means, every process weighted equally whatever
 *              its number of rounds (the process is the unit).
 *   se_log     its standard error, sqrt(S_b^2 / n), where S_b^2 is the
 *              sample variance (divisor n - 1) of the n per-process means.
 *              S_b^2 already holds both variance components, so the
 *              interval needs no model of them.
 *   df         n - 1, the degrees of freedom of the t quantiles below.
 *   ratio      exp(mean_log): the geometric-mean ratio candidate/baseline.
 *   lo, hi     95% two-sided interval on the ratio scale:
 *              exp(mean_log -/+ t_{.975,df} * se_log).
 *   half_width relative half-width, max(hi/ratio - 1, 1 - lo/ratio); on
 *              the log scale the interval is symmetric, so this is
 *              exp(t_{.975,df} * se_log) - 1, the upper side.
 *   var_round  within-process variance between rounds (log scale), pooled
 *              over processes: sum of squared deviations from each
 *              process's own mean over sum(nrounds[p] - 1).  NAN when every
 *              process has a single round (nothing to pool).
 *   var_process between-process variance (log scale) by the method of
 *              moments: S_b^2 - var_round / m_h, m_h the harmonic mean of
 *              nrounds[], clamped at 0.  Before the clamp it is unbiased
 *              for unequal rounds too, since E S_b^2 = var_process +
 *              var_round * mean(1/nrounds[p]).  When var_round is NAN
 *              it holds S_b^2 itself, an upper bound.
 *   mde        minimum detectable effect: the smallest relative change
 *              this data would detect at 95% two-sided with 80% power,
 *              exp((t_{.975,df} + t_{.80,df}) * se_log) - 1.  A "no
 *              significant change" means something only when the mde is
 *              below the change one cares about.
 *   nproc, nrounds_total  processes, and rounds over all of them.
 */
struct paired_estimate {
	double ratio, lo, hi;
	double mean_log, se_log, df;
	double half_width;
	double var_process, var_round;
	double mde;
	size_t nproc, nrounds_total;
};

/*
 * Estimate one comparison.  Needs nproc >= 2 (one process gives no
 * estimate of the between-process variance, so no honest interval),
 * every nrounds[p] >= 1 and every x finite; otherwise PQ_EINPUT.
 */
int paired_estimate(const struct paired_series *s, struct paired_estimate *out, pq_error *err);

/*
 * The difference of two comparisons measured in the same rounds,
 * d[p][r] = a->x[p][r] - b->x[p][r], estimated as paired_estimate would
 * estimate d.  With a = candidate vs baseline and b = A/A copy vs
 * baseline, d[p][r] = ln(t_candidate / t_aa) round by round: the
 * candidate against the A/A copy, with its own interval from the same
 * data (the two comparisons share the baseline's time, so their
 * intervals must not be compared with each other).  The shapes must
 * match (same nproc, same nrounds[p]); otherwise PQ_EINPUT.
 */
int paired_difference(const struct paired_series *a, const struct paired_series *b,
                      struct paired_estimate *out, pq_error *err);

/* ---- repetition planner ---- */

/* Costs in seconds, measured by a pilot run or a previous study. */
struct paired_costs {
	double process_s;  /* start-up of one runner process: load, keys, warm-up */
	double round_s;    /* one round: every build once */
};

/* The variance components of one comparison (paired_estimate's). */
struct paired_components {
	double var_process, var_round;
};

/*
 * A repetition plan: nproc runner processes of nrounds rounds each.
 * predicted_half_width is the relative half-width the plan is expected to
 * give, exp(t_{.975,nproc-1} * sqrt(var_process/nproc +
 * var_round/(nproc*nrounds))) - 1 (for several comparisons, the largest);
 * predicted_s = nproc * (process_s + nrounds * round_s).  within_budget is
 * 1 when the plan reaches the precision inside the budget (or there is no
 * budget), 0 when the budget forced a smaller plan.
 */
struct paired_plan {
	size_t nproc, nrounds;
	double predicted_half_width, predicted_s;
	int within_budget;
};

/*
 * The Kalibera-Jones optimum number of rounds per process,
 *     m* = sqrt(process_s * var_round / (round_s * var_process)),
 * the m that minimises the cost of a given precision when the number of
 * processes may be fractional and the quantile is the normal one.  Not
 * clamped: INFINITY when var_process == 0 or round_s == 0 (and var_round
 * > 0): rounds are all that is needed or they are free; 0 when var_round
 * == 0 or process_s == 0.  NAN for negative or non-finite input.
 */
double paired_optimal_rounds(double var_process, double var_round, const struct paired_costs *c);

/*
 * Choose processes n and rounds per process m that reach relative
 * half-width `precision` (e.g. 0.01) at least cost.
 *
 * The variance of the grand mean is var_process/n + var_round/(n*m); a
 * plan reaches the precision when t_{.975,n-1} * sqrt(that) <=
 * ln(1 + precision) (the relative half-width is then at most precision)
 * and costs n * (process_s + m * round_s).  With n continuous and a normal
 * quantile the best m is paired_optimal_rounds(), whatever the
 * precision.  But n is whole and these studies use few processes, where
 * the t quantile is far from normal (t_{.975,1} = 12.7, t_{.975,4} =
 * 2.78), so m* alone can cost several times the optimum (with
 * var_process == 0 it says max_rounds, when going from two processes to
 * three cuts the total rounds needed almost ninefold).  The planner therefore finds the exact
 * optimum under the model: for every n from the smallest that can reach
 * the precision at max_rounds upwards, the fewest rounds m(n) in
 * [min_rounds, max_rounds] that reach it, and the cheapest n * (process_s
 * + m(n) * round_s); ties go to fewer processes.  The answer lies next to
 * m* (clamped) once t is close to its limit; with var_process == 0 it is
 * the fewest processes the t quantile makes worthwhile with the rounds
 * the precision needs (max_rounds when that is what it needs), and with
 * var_process large against var_round few rounds and many processes.
 * A pilot's var_process of 0 is usually the clamp at 0 of a noisy
 * estimate rather than a fact; a caller that plans from a few pilot
 * processes may want a floor under it.
 *
 * budget_s > 0 caps the total time.  When the cheapest plan exceeds it,
 * the result is the plan within the budget with the smallest predicted
 * half-width (for each n >= min_proc that fits, as many rounds as fit, up
 * to max_rounds), with within_budget = 0 and that half-width, which is
 * above the precision.  When not even min_proc processes of min_rounds
 * fit, that smallest plan is returned, still with within_budget = 0 and
 * predicted_s above the budget.  budget_s <= 0 means no budget.
 *
 * min_proc below 2 counts as 2 (an interval needs two processes).
 * PQ_EINPUT for negative or non-finite variances or costs, precision <= 0,
 * min_rounds == 0, max_rounds < min_rounds, or a precision that would
 * need more than 2^40 processes.  The search visits at most 2^22 process
 * counts; only absurd precisions or budgets come near that.
 */
int paired_plan_repetition(double var_process, double var_round, const struct paired_costs *c,
                           double precision, double budget_s, size_t min_proc, size_t min_rounds,
                           size_t max_rounds, struct paired_plan *out, pq_error *err);

/*
 * Several comparisons measured by the same runs at once (per operation,
 * per candidate, the A/A arm): one plan that gives every comparison the
 * precision: a plan counts as reaching it when the hardest comparison
 * does (at each n and m, the largest of the comparisons' var(mean)), and
 * the cheapest such plan is chosen as above.  Same arguments and rules
 * as paired_plan_repetition; ncomp >= 1.
 */
int paired_plan_repetition_many(const struct paired_components *comp, size_t ncomp,
                                const struct paired_costs *c, double precision, double budget_s,
                                size_t min_proc, size_t min_rounds, size_t max_rounds,
                                struct paired_plan *out, pq_error *err);

/*
 * The fewest processes n >= nmin (nmin >= 2) whose means, each of variance
 * unit_var on the log scale, bring q * se_log within target, q being
 * t_{.975,n-1} (plus t_{.80,n-1} when with_power): the planner's step,
 * and what verdict_settle_factor (verdict.h) asks.  0 when more than 2^40
 * would be needed.
 */
size_t paired_processes_needed(double unit_var, double target, size_t nmin, int with_power);

#endif
