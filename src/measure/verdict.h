/*
 * verdict: what a comparison of two builds concludes, decided in one
 * place for both ways pqprof measures one: the paired in-process study
 * (paired_stats.h: processes and rounds, with an A/A copy as an arm) and
 * the comparison of two record sets' trials (report/compare.c: bootstrap
 * intervals, runs interleaved or separate, an A/A arm when recorded).
 * Here too: the minimum detectable effect, and how much more data would
 * probably settle an inconclusive verdict.  What is not: measuring,
 * resampling, wording the reasons (the callers say why in their own
 * records' terms).  Pure functions of their arguments.
 *
 * Ratios are candidate / baseline costs: below 1 is faster.  A
 * practical threshold t (0.01 = 1%) is the band [1/(1+t), 1+t] on the
 * ratio scale, [-ln(1+t), +ln(1+t)] on the log scale.
 */
#ifndef PQ_MEASURE_VERDICT_H
#define PQ_MEASURE_VERDICT_H

#include <stddef.h>

#include "measure/paired_stats.h"

enum verdict {
	VERDICT_FASTER,           /* significant, and beyond the threshold: candidate costs less */
	VERDICT_SLOWER,           /* significant, and beyond the threshold: candidate costs more */
	VERDICT_BELOW_THRESHOLD,  /* significant, but the whole interval lies within the threshold band */
	VERDICT_WITHIN_AA,        /* beyond the threshold, but no more than an identical copy moves */
	VERDICT_NO_CHANGE,        /* not significant (paired: and this run could have seen a change of threshold) */
	VERDICT_INCONCLUSIVE,     /* paired: not significant and too noisy to tell, or near the threshold */
	VERDICT_NEAR_THRESHOLD,   /* trials: significant, but the interval reaches both sides of a band edge */
	VERDICT_SEPARATE_RUNS,    /* trials: beyond the threshold, but within what separate runs can shift */
	VERDICT_TOO_FEW_TRIALS,   /* trials: no interval, too few trials on a side */
	VERDICT_NOT_COMPARABLE,   /* the two sides' environments differ too much to compare */
	VERDICT_UNKNOWN,          /* no interval, for another reason */
};

/*
 * The words records and reports use: "faster", "slower", "no effect: below
 * threshold", "no effect: within A/A spread", "no significant change",
 * "inconclusive", "inconclusive: near the threshold", "inconclusive:
 * separate runs", "inconclusive: too few trials", "not comparable",
 * "unknown".
 */
const char *verdict_name(enum verdict v);

/* FASTER or SLOWER: the comparison found an effect. */
int verdict_is_effect(enum verdict v);

/*
 * Minimum detectable effect: the smallest relative change data with this
 * standard error (log scale) and degrees of freedom would detect at 95%
 * two-sided with 80% power, exp((t_{.975,df} + t_{.80,df}) * se_log) - 1.
 */
double verdict_mde(double se_log, double df);

/* ---- paired in-process studies ---- */

/*
 * The verdict on a candidate of a paired study.
 *
 * vs_base is candidate vs baseline (paired_estimate).  vs_aa is candidate
 * vs the A/A copy (paired_difference of candidate-vs-base and
 * aa-vs-base), or NULL when the study has no A/A arm.  The *tested*
 * difference is vs_aa when given, else vs_base: with an A/A arm, what the
 * candidate must beat is an identical build loaded as a separate object,
 * so layout effects that also move an identical copy do not count as an
 * effect of the flags.  threshold is the practical threshold (0.01 = 1%).
 *
 *   significant = the tested difference's 95% interval excludes 1.
 *   beyond      = vs_base's point ratio lies outside [1/(1+t), 1+t].
 *   effect      = significant and beyond, and the tested difference's
 *                 point estimate lies outside the band on the same side:
 *                 FASTER when below 1, SLOWER when above.
 *   significant, no effect: BELOW_THRESHOLD when the tested interval lies
 *                 within the band, else INCONCLUSIVE.
 *   not significant: NO_CHANGE when the tested difference's mde <=
 *                 threshold, else INCONCLUSIVE.
 *
 * Interval bounds are never compared with other interval bounds (say, the
 * candidate's interval against the A/A copy's): two intervals that
 * overlap can still come with a difference whose own interval excludes 1,
 * because the shared baseline noise cancels in the difference.  An
 * estimate with a non-finite interval gives INCONCLUSIVE; a negative or
 * NAN threshold counts as 0.
 */
enum verdict verdict_paired(const struct paired_estimate *vs_base, const struct paired_estimate *vs_aa,
                            double threshold);

/*
 * By how many times the number of processes (at the same rounds per
 * process, so the same variance per process mean) would probably have to
 * grow to settle the verdict on the tested difference: n'/n for the
 * smallest n' >= n with se_log * sqrt(n/n') <= se_needed, where se_needed,
 * evaluated at df = n' - 1, is
 *   not significant:  ln(1+t) / (t_{.975} + t_{.80}), so the mde would be
 *                     the threshold;
 *   significant:      |(|mean_log| - ln(1+t))| / t_{.975}, so the
 *                     interval would clear the nearer band edge (lie
 *                     wholly inside the band, or wholly beyond it).
 * Meant for an INCONCLUSIVE verdict; "probably": it assumes the point
 * estimate and the variances stay where they are, and the next figure
 * for vs_base moves with the tested one.  1 when the tested difference
 * already meets its criterion;
 * INFINITY when nothing would settle it (threshold <= 0, a point estimate
 * exactly on the band edge, a non-finite standard error).
 */
double verdict_settle_factor(const struct paired_estimate *tested, double threshold);

/* The study's time scaled by verdict_settle_factor: seconds that would probably settle it, or INFINITY. */
double verdict_settle_budget_s(const struct paired_estimate *tested, double threshold, double elapsed_s);

/* ---- comparisons of trials ---- */

/* A ratio B/A with its 95% interval. */
struct verdict_interval {
	double ratio, lo, hi;
};

/*
 * One comparison of two record sets' trials, as compare.c measured it.
 * aa_lo/aa_hi is the A/A pair's spread made symmetric in log space (an
 * A/A spread of +8% also excuses -8%); vs_aa is B against the A/A copy
 * from the same rounds, the difference whose interval carries both
 * uncertainties.
 */
struct verdict_trials {
	struct verdict_interval vs_base;  /* B against A */
	size_t na, nb;                    /* trials on each side */
	int interleaved;                  /* A and B ran round by round in one run */
	int not_comparable;               /* the environments forbid a comparison */
	double threshold;                 /* practical threshold (0.01 = 1%) */
	double separate_factor;           /* separate runs: only a factor beyond this counts */
	int has_aa;                       /* an A/A pair was measured: aa_lo, aa_hi hold */
	double aa_lo, aa_hi;
	int has_vs_aa;                    /* vs_aa holds (implies has_aa) */
	struct verdict_interval vs_aa;
};

/*
 * The verdict, the band the interval was held against (band_lo, band_hi:
 * the threshold band, widened by the A/A spread when there is no vs_aa,
 * and by the separate-runs factor when not interleaved), and what the
 * comparison could see: mde (NAN when the interval gives no standard
 * error) and, for NEAR_THRESHOLD, settle_trials (NAN otherwise).
 */
struct verdict_of_trials {
	enum verdict verdict;
	double band_lo, band_hi;
	double mde;
	double settle_trials;
};

/*
 * The rule: without vs_aa, an effect is an interval that clears the band
 * (FASTER below it, SLOWER above).  With vs_aa the statistical test is B
 * against the copy: its interval excludes 1 and its point estimate lies
 * beyond the threshold, on the same side as B's ratio to A, which must
 * lie beyond the threshold too (and, for separate runs, B's interval
 * beyond their allowance).  Otherwise, in this order: SEPARATE_RUNS when
 * separate runs put B beyond both the threshold and the A/A band (or the
 * A/A difference test) but not beyond their allowance; WITHIN_AA when B is
 * beyond the threshold and the A/A pair explains it; BELOW_THRESHOLD when
 * B's interval excludes 1 and lies within the threshold band;
 * NEAR_THRESHOLD when it excludes 1 otherwise; else NO_CHANGE.
 * NOT_COMPARABLE overrides all of these.
 *
 * The standard error comes from the interval's width on the log scale,
 * with df = na - 1 interleaved, na + nb - 2 separate (at least 1).
 * settle_trials: trials per side that would probably put the interval
 * clear of the nearer band edge, at the same spread per trial.
 */
void verdict_of_trials(const struct verdict_trials *t, struct verdict_of_trials *out);

/* No interval came out: NOT_COMPARABLE, TOO_FEW_TRIALS (a side below min_trials) or UNKNOWN. */
enum verdict verdict_unmeasured(int not_comparable, size_t na, size_t nb, size_t min_trials);

#endif
