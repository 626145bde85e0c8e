/*
 * stats: descriptive statistics and confidence intervals over arrays of
 * doubles (per-trial means, per-call samples, sample shares).
 *
 * Everything here is a pure function of its inputs: the bootstrap draws from
 * a seeded PRNG (xoshiro256**) owned by the caller's call, so the same data
 * and seed give the same interval on every machine.  Input arrays are never
 * reordered.  Nothing here knows what is being measured or prints anything.
 */
#ifndef PQ_MEASURE_STATS_H
#define PQ_MEASURE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "core/pq_error.h"

/* Default bootstrap parameters. */
#define STATS_BOOTSTRAP_RESAMPLES 2000
#define STATS_BOOTSTRAP_SEED 0x7071707266ULL  /* "pqprf" */

/* Empty input (n == 0) gives NAN from every function below. */
double stats_mean(const double *x, size_t n);
double stats_min(const double *x, size_t n);
double stats_max(const double *x, size_t n);
double stats_median(const double *x, size_t n);
/*
 * Quantile p in [0,1], by linear interpolation between order statistics
 * (Hyndman & Fan type 7, the default of R and NumPy): with the sorted
 * values x[0..n-1] and h = (n-1)p, the result is
 * x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
 * So p = 0.5 is the median, p = 0 the minimum, p = 1 the maximum.
 */
double stats_quantile(const double *x, size_t n, double p);
/* Sample standard deviation (divisor n-1); 0 for n == 1. */
double stats_stddev(const double *x, size_t n);
/* Coefficient of variation: stddev / mean (NAN when mean is 0). */
double stats_cv(const double *x, size_t n);

typedef struct stats_summary {
	size_t n;
	double mean, median, min, max, p90, stddev, cv;
} stats_summary;

/* All of the above in one pass over a sorted copy. */
int stats_summarize(const double *x, size_t n, stats_summary *out, pq_error *err);

/* A point estimate with its two-sided 95% interval. */
typedef struct stats_interval {
	double estimate;
	double lo, hi;
} stats_interval;

/* Seeded PRNG, exposed so callers and tests can reproduce draws. */
typedef struct stats_rng {
	uint64_t s[4];
} stats_rng;
void stats_rng_seed(stats_rng *rng, uint64_t seed);
uint64_t stats_rng_next(stats_rng *rng);
/* Uniform integer in [0, bound), without modulo bias; bound > 0. */
uint64_t stats_rng_below(stats_rng *rng, uint64_t bound);

/*
 * Percentile bootstrap 95% interval of the mean of x.  resamples 0 means
 * STATS_BOOTSTRAP_RESAMPLES.  n >= 1.
 */
int stats_bootstrap_mean_ci(const double *x, size_t n, int resamples, uint64_t seed,
                            stats_interval *out, pq_error *err);

/*
 * Percentile bootstrap 95% interval of mean(a) / mean(b).  Paired: a[i]
 * and b[i] belong together (same trial slot), na == nb is required and the
 * pairs are resampled together; unpaired: a and b are resampled on their
 * own.  The estimate is mean(a) / mean(b) of the data itself.
 */
int stats_bootstrap_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
                             int paired, int resamples, uint64_t seed,
                             stats_interval *out, pq_error *err);

/*
 * 95% interval of the ratio of typical costs b / a from per-trial figures
 * (one value per trial: the trial's median per-call cost), computed on
 * logarithms so that faster and slower are symmetric.
 *   paired (na == nb required): trial i of a and of b ran in the same
 *   round of an interleaved run, so the rounds are the independent blocks;
 *   the estimate is the median of the per-round ratios and the
 *   bootstrap resamples whole rounds (a blocked bootstrap).
 *   unpaired: the estimate is geomean(b) / geomean(a) and each side's
 *   trials are resampled on their own.
 * With a handful of trials the percentile bootstrap is too narrow, so the
 * interval returned is the union of the percentile bootstrap interval and
 * the Student-t interval (Welch when unpaired) of the mean log ratio.
 * Needs at least 2 trials per side and every value > 0.
 */
int stats_trial_ratio_ci(const double *b, size_t nb, const double *a, size_t na, int paired, int resamples,
                         uint64_t seed, stats_interval *out, pq_error *err);

/* Two-sided 95% Student-t quantile for df degrees of freedom (df >= 1; conservative between table entries). */
double stats_t975(double df);
/*
 * One-sided 80% Student-t quantile (t_{.80,df}), the power term of a
 * minimum detectable effect: with an interval built from t_{.975}, a true
 * change of (t_{.975} + t_{.80}) standard errors is detected 80% of the
 * time.  Same table scheme as stats_t975: df >= 1, truncated to whole
 * degrees of freedom up to 30 (so never below the exact value), then
 * falling towards the normal quantile 0.8416 as 1/df.
 */
double stats_t80(double df);

/*
 * Wilson score 95% interval for a proportion k / n (a share of samples).
 * Stays inside [0, 1] and behaves at k = 0 and k = n, unlike the normal
 * approximation.  n == 0 gives estimate NAN and the interval [0, 1].
 */
stats_interval stats_proportion_ci(uint64_t k, uint64_t n);

enum stats_verdict {
	STATS_NO_CHANGE = 0,  /* interval contains 1 (within tolerance) */
	STATS_FASTER,         /* whole interval below 1: candidate costs less */
	STATS_SLOWER,         /* whole interval above 1: candidate costs more */
	STATS_UNKNOWN,        /* interval not finite */
};

/*
 * Verdict for a ratio interval of candidate cost / baseline cost (time or
 * cycles: lower is faster).  tolerance >= 0 widens "no change" to
 * [1 - tolerance, 1 + tolerance], so a significant but negligible change
 * can be ignored; 0 means any significant change counts.
 */
enum stats_verdict stats_ratio_verdict(const stats_interval *ratio_ci, double tolerance);
/* "faster", "slower", "no significant change", "unknown". */
const char *stats_verdict_name(enum stats_verdict v);

#endif
