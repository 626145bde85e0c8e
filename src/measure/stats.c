/* stats: descriptive statistics and bootstrap intervals; see stats.h. */
#include "config.h"
#include "measure/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

static double *sorted_copy(const double *x, size_t n)
{
	double *c = malloc(n * sizeof *c);
	if (!c)
		return NULL;
	memcpy(c, x, n * sizeof *c);
	qsort(c, n, sizeof *c, cmp_double);
	return c;
}

static double quantile_sorted(const double *s, size_t n, double p)
{
	if (p <= 0)
		return s[0];
	if (p >= 1)
		return s[n - 1];
	double h = (double)(n - 1) * p;
	size_t lo = (size_t)floor(h);
	if (lo + 1 >= n)
		return s[n - 1];
	return s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]);
}

double stats_mean(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

double stats_min(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double m = x[0];
	for (size_t i = 1; i < n; i++)
		if (x[i] < m)
			m = x[i];
	return m;
}

double stats_max(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double m = x[0];
	for (size_t i = 1; i < n; i++)
		if (x[i] > m)
			m = x[i];
	return m;
}

double stats_quantile(const double *x, size_t n, double p)
{
	if (n == 0 || isnan(p))
		return NAN;
	double *s = sorted_copy(x, n);
	if (!s)
		return NAN;
	double q = quantile_sorted(s, n, p);
	free(s);
	return q;
}

double stats_median(const double *x, size_t n)
{
	return stats_quantile(x, n, 0.5);
}

double stats_stddev(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	if (n == 1)
		return 0;
	double m = stats_mean(x, n), ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (double)(n - 1));
}

double stats_cv(const double *x, size_t n)
{
	double m = stats_mean(x, n);
	if (n == 0 || m == 0)
		return NAN;
	return stats_stddev(x, n) / fabs(m);
}

int stats_summarize(const double *x, size_t n, stats_summary *out, pq_error *err)
{
	if (n == 0)
		return pq_fail(err, PQ_EINPUT, "statistics of an empty sample");
	double *s = sorted_copy(x, n);
	if (!s)
		return pq_fail(err, PQ_ENOMEM, "out of memory sorting %zu values", n);
	out->n = n;
	out->mean = stats_mean(x, n);
	out->median = quantile_sorted(s, n, 0.5);
	out->min = s[0];
	out->max = s[n - 1];
	out->p90 = quantile_sorted(s, n, 0.9);
	out->stddev = stats_stddev(x, n);
	out->cv = out->mean != 0 ? out->stddev / fabs(out->mean) : NAN;
	free(s);
	return 0;
}

/* ---- PRNG: splitmix64 seeding xoshiro256** (public-domain algorithms) ---- */

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void stats_rng_seed(stats_rng *rng, uint64_t seed)
{
	uint64_t st = seed;
	for (int i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&st);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t stats_rng_next(stats_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t stats_rng_below(stats_rng *rng, uint64_t bound)
{
	/* Reject the top partial block so every residue is equally likely. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
	uint64_t r;
	do
		r = stats_rng_next(rng);
	while (r >= limit);
	return r % bound;
}

/* ---- bootstrap ---- */

static double resampled_mean(const double *x, size_t n, stats_rng *rng)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[stats_rng_below(rng, n)];
	return sum / (double)n;
}

/* Median of a resample of x (n values) with replacement; tmp holds n. */
static double resampled_median(const double *x, size_t n, double *tmp, stats_rng *rng)
{
	for (size_t i = 0; i < n; i++)
		tmp[i] = x[stats_rng_below(rng, n)];
	qsort(tmp, n, sizeof *tmp, cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

static int percentile_interval(double *draws, int b, double estimate, stats_interval *out)
{
	qsort(draws, (size_t)b, sizeof *draws, cmp_double);
	out->estimate = estimate;
	out->lo = quantile_sorted(draws, (size_t)b, 0.025);
	out->hi = quantile_sorted(draws, (size_t)b, 0.975);
	return 0;
}

int stats_bootstrap_mean_ci(const double *x, size_t n, int resamples, uint64_t seed,
                            stats_interval *out, pq_error *err)
{
	if (n == 0)
		return pq_fail(err, PQ_EINPUT, "bootstrap of an empty sample");
	int b = resamples > 0 ? resamples : STATS_BOOTSTRAP_RESAMPLES;
	double *draws = malloc((size_t)b * sizeof *draws);
	if (!draws)
		return pq_fail(err, PQ_ENOMEM, "out of memory for %d bootstrap draws", b);
	stats_rng rng;
	stats_rng_seed(&rng, seed);
	for (int i = 0; i < b; i++)
		draws[i] = resampled_mean(x, n, &rng);
	percentile_interval(draws, b, stats_mean(x, n), out);
	free(draws);
	return 0;
}

static double paired_ratio_draw(const double *a, const double *b, size_t n, stats_rng *rng)
{
	double sa = 0, sb = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = (size_t)stats_rng_below(rng, n);
		sa += a[j];
		sb += b[j];
	}
	return sa / sb;
}

int stats_bootstrap_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
                             int paired, int resamples, uint64_t seed,
                             stats_interval *out, pq_error *err)
{
	if (na == 0 || nb == 0)
		return pq_fail(err, PQ_EINPUT, "bootstrap ratio of an empty sample (%zu / %zu values)", na, nb);
	if (paired && na != nb)
		return pq_fail(err, PQ_EINPUT, "paired bootstrap needs equal sample sizes (%zu vs %zu)", na, nb);
	double mb = stats_mean(b, nb);
	if (mb == 0)
		return pq_fail(err, PQ_EINPUT, "bootstrap ratio: baseline mean is zero");
	int nres = resamples > 0 ? resamples : STATS_BOOTSTRAP_RESAMPLES;
	double *draws = malloc((size_t)nres * sizeof *draws);
	if (!draws)
		return pq_fail(err, PQ_ENOMEM, "out of memory for %d bootstrap draws", nres);
	stats_rng rng;
	stats_rng_seed(&rng, seed);
	for (int i = 0; i < nres; i++) {
		if (paired) {
			draws[i] = paired_ratio_draw(a, b, na, &rng);
		} else {
			double ma = resampled_mean(a, na, &rng);
			draws[i] = ma / resampled_mean(b, nb, &rng);
		}
	}
	percentile_interval(draws, nres, stats_mean(a, na) / mb, out);
	free(draws);
	return 0;
}

double stats_t975(double df)
{
	static const double t[] = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	                            2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	                            2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
	if (!(df >= 1))
		return NAN;
	if (df < 31)
		return t[(int)floor(df) - 1];
	/* Beyond the table, t falls towards z roughly as 1/df. */
	return 1.959964 + (2.042 - 1.959964) * 30.0 / df;
}

double stats_t80(double df)
{
	static const double t[] = { 1.376, 1.061, 0.978, 0.941, 0.920, 0.906, 0.896, 0.889, 0.883, 0.879,
	                            0.876, 0.873, 0.870, 0.868, 0.866, 0.865, 0.863, 0.862, 0.861, 0.860,
	                            0.859, 0.858, 0.858, 0.857, 0.856, 0.856, 0.855, 0.855, 0.854, 0.854 };
	if (!(df >= 1))
		return NAN;
	if (df < 31)
		return t[(int)floor(df) - 1];
	return 0.841621 + (0.854 - 0.841621) * 30.0 / df;
}

static double var_of(const double *x, size_t n)
{
	double s = stats_stddev(x, n);
	return s * s;
}

int stats_trial_ratio_ci(const double *b, size_t nb, const double *a, size_t na, int paired, int resamples,
                         uint64_t seed, stats_interval *out, pq_error *err)
{
	if (na < 2 || nb < 2)
		return pq_fail(err, PQ_EINPUT, "a trial-level interval needs at least 2 trials per side (%zu and %zu)",
		               na, nb);
	if (paired && na != nb)
		return pq_fail(err, PQ_EINPUT, "paired trials need equal counts (%zu vs %zu)", na, nb);
	for (size_t i = 0; i < na; i++)
		if (!(a[i] > 0) || !isfinite(a[i]))
			return pq_fail(err, PQ_EINPUT, "trial value %g is not a positive cost", a[i]);
	for (size_t i = 0; i < nb; i++)
		if (!(b[i] > 0) || !isfinite(b[i]))
			return pq_fail(err, PQ_EINPUT, "trial value %g is not a positive cost", b[i]);
	int nres = resamples > 0 ? resamples : STATS_BOOTSTRAP_RESAMPLES;
	double *la = malloc((na + nb) * sizeof *la), *draws = malloc((size_t)nres * sizeof *draws);
	if (!la || !draws) {
		free(la);
		free(draws);
		return pq_fail(err, PQ_ENOMEM, "out of memory for %d bootstrap draws", nres);
	}
	double *lb = la + na;
	for (size_t i = 0; i < na; i++)
		la[i] = log(a[i]);
	for (size_t i = 0; i < nb; i++)
		lb[i] = log(b[i]);
	stats_rng rng;
	stats_rng_seed(&rng, seed);
	double est, se, df;
	if (paired) {
		/* d_i = lb_i - la_i, kept in la (la is not needed afterwards).  The
		 * median round: a slow spell that hits one side of a round moves
		 * that round's ratio, not the estimate. */
		for (size_t i = 0; i < na; i++)
			la[i] = lb[i] - la[i];
		est = stats_median(la, na);
		se = sqrt(var_of(la, na) / (double)na);
		df = (double)na - 1;
		for (int i = 0; i < nres; i++)
			draws[i] = resampled_median(la, na, lb, &rng);
	} else {
		est = stats_mean(lb, nb) - stats_mean(la, na);
		double va = var_of(la, na) / (double)na, vb = var_of(lb, nb) / (double)nb;
		se = sqrt(va + vb);
		/* Welch-Satterthwaite degrees of freedom. */
		double den = va * va / ((double)na - 1) + vb * vb / ((double)nb - 1);
		df = den > 0 ? (va + vb) * (va + vb) / den : (double)(na + nb - 2);
		if (df < 1)
			df = 1;
		for (int i = 0; i < nres; i++)
			draws[i] = resampled_mean(lb, nb, &rng) - resampled_mean(la, na, &rng);
	}
	stats_interval boot;
	percentile_interval(draws, nres, est, &boot);
	double t = stats_t975(df);
	out->estimate = exp(est);
	out->lo = exp(fmin(boot.lo, est - t * se));
	out->hi = exp(fmax(boot.hi, est + t * se));
	free(la);
	free(draws);
	return 0;
}

stats_interval stats_proportion_ci(uint64_t k, uint64_t n)
{
	stats_interval r;
	if (n == 0) {
		r.estimate = NAN;
		r.lo = 0;
		r.hi = 1;
		return r;
	}
	if (k > n)
		k = n;
	const double z = 1.959963984540054;  /* two-sided 95% normal quantile */
	double dn = (double)n, p = (double)k / dn, z2 = z * z;
	double denom = 1 + z2 / dn;
	double centre = (p + z2 / (2 * dn)) / denom;
	double half = z * sqrt(p * (1 - p) / dn + z2 / (4 * dn * dn)) / denom;
	r.estimate = p;
	r.lo = k == 0 ? 0 : fmax(0, centre - half);
	r.hi = k == n ? 1 : fmin(1, centre + half);
	return r;
}

enum stats_verdict stats_ratio_verdict(const stats_interval *ci, double tolerance)
{
	if (!isfinite(ci->lo) || !isfinite(ci->hi))
		return STATS_UNKNOWN;
	if (tolerance < 0 || isnan(tolerance))
		tolerance = 0;
	if (ci->hi < 1 - tolerance)
		return STATS_FASTER;
	if (ci->lo > 1 + tolerance)
		return STATS_SLOWER;
	return STATS_NO_CHANGE;
}

const char *stats_verdict_name(enum stats_verdict v)
{
	switch (v) {
	case STATS_FASTER: return "faster";
	case STATS_SLOWER: return "slower";
	case STATS_NO_CHANGE: return "no significant change";
	default: return "unknown";
	}
}
