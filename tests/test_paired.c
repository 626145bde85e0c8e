/*
 * test_paired: Check suite for src/measure/paired_stats (estimates of a
 * paired in-process flag study, the repetition planner, the A/A verdict
 * rule and the settle factor).
 *
 * The statistical properties are checked on synthetic studies drawn from
 * the model itself with the seeded PRNG, so every run sees the same draws:
 * each build b of a runner process p has a log time u_b[p] + e_b[p][r]
 * (layout effect of that build in that process, round noise), and the
 * comparisons are differences of builds, as the runner forms them.
 *
 * Also the seed's way from the parent to the runner: every bit of a
 * 64-bit seed arrives.
 */
#include "config.h"
#include "measure/paired_stats.h"
#include "measure/verdict.h"
#include "measure/stats.h"
#include "core/options.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-12

/* ---------------- synthetic studies ---------------- */

/* Standard normal deviate (Box-Muller; the sine half is thrown away). */
static double normal(stats_rng *rng)
{
	double u1 = ((double)(stats_rng_next(rng) >> 11) + 1) * 0x1p-53;  /* (0, 1] */
	double u2 = (double)(stats_rng_next(rng) >> 11) * 0x1p-53;        /* [0, 1) */
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

#define MAXP 48
#define MAXR 64

/*
 * One simulated study of three builds: 0 baseline, 1 candidate, 2 an A/A
 * copy of the baseline.  cand and aa hold ln(t_1/t_0) and ln(t_2/t_0).
 */
struct study {
	size_t nproc, nrounds[MAXP];
	double cand[MAXP][MAXR], aa[MAXP][MAXR];
	const double *cand_rows[MAXP], *aa_rows[MAXP];
	struct paired_series vs_base, aa_vs_base;
};

/*
 * Draw a study whose candidate has true ratio `ratio` and whose
 * comparisons each have variance components var_process and var_round:
 * each build carries half of each (a difference of two builds adds them).
 * nrounds == NULL means `rounds` rounds in every process.
 */
static void simulate(struct study *s, stats_rng *rng, size_t nproc, size_t rounds, const size_t *nrounds,
                     double ratio, double var_process, double var_round)
{
	double sp = sqrt(var_process / 2), sr = sqrt(var_round / 2), mu = log(ratio);
	s->nproc = nproc;
	for (size_t p = 0; p < nproc; p++) {
		s->nrounds[p] = nrounds ? nrounds[p] : rounds;
		double u0 = sp * normal(rng), u1 = sp * normal(rng), u2 = sp * normal(rng);
		for (size_t r = 0; r < s->nrounds[p]; r++) {
			double e0 = sr * normal(rng), e1 = sr * normal(rng), e2 = sr * normal(rng);
			s->cand[p][r] = mu + (u1 + e1) - (u0 + e0);
			s->aa[p][r] = (u2 + e2) - (u0 + e0);
		}
		s->cand_rows[p] = s->cand[p];
		s->aa_rows[p] = s->aa[p];
	}
	s->vs_base = (struct paired_series){ .nproc = nproc, .nrounds = s->nrounds, .x = s->cand_rows };
	s->aa_vs_base = (struct paired_series){ .nproc = nproc, .nrounds = s->nrounds, .x = s->aa_rows };
}

/* The candidate against the baseline and against the A/A copy. */
static void estimate_both(const struct study *s, struct paired_estimate *vs_base, struct paired_estimate *vs_aa)
{
	pq_error err;
	ck_assert_int_eq(paired_estimate(&s->vs_base, vs_base, &err), 0);
	ck_assert_int_eq(paired_difference(&s->vs_base, &s->aa_vs_base, vs_aa, &err), 0);
}

static int excludes_one(const struct paired_estimate *e)
{
	return e->lo > 1 || e->hi < 1;
}

/* An estimate built from its log-scale figures, as paired_estimate would fill it. */
static struct paired_estimate made(double mean_log, double se_log, size_t nproc)
{
	struct paired_estimate e = { 0 };
	double df = (double)(nproc - 1), t = stats_t975(df);
	e.mean_log = mean_log;
	e.se_log = se_log;
	e.df = df;
	e.nproc = nproc;
	e.ratio = exp(mean_log);
	e.lo = exp(mean_log - t * se_log);
	e.hi = exp(mean_log + t * se_log);
	e.half_width = expm1(t * se_log);
	e.mde = expm1((t + stats_t80(df)) * se_log);
	return e;
}

/* ---------------- t quantile for power ---------------- */

START_TEST(test_t80_table)
{
	ck_assert_double_eq_tol(stats_t80(1), 1.376, EPS);
	ck_assert_double_eq_tol(stats_t80(4), 0.941, EPS);
	ck_assert_double_eq_tol(stats_t80(30), 0.854, EPS);
	/* between table entries: the smaller df, never below the exact value */
	ck_assert_double_eq(stats_t80(2.5), stats_t80(2));
	/* t_{.80,40} = 0.85070, t_{.80,100} = 0.84523; z = 0.84162 */
	ck_assert(stats_t80(40) >= 0.85070 && stats_t80(40) < 0.8515);
	ck_assert(stats_t80(100) >= 0.84523 && stats_t80(100) < 0.8460);
	ck_assert(stats_t80(1e6) > 0.8416 && stats_t80(1e6) < 0.8417);
	for (int df = 1; df < 200; df++)
		ck_assert(stats_t80(df + 1) <= stats_t80(df));
	ck_assert(isnan(stats_t80(0)));
	ck_assert(isnan(stats_t80(NAN)));
}
END_TEST

/* ---------------- estimates ---------------- */

START_TEST(test_estimate_by_hand)
{
	/* process means .02, .02, .05: grand .03, S_b^2 = 3e-4, se = .01 */
	const double p0[] = { 0.01, 0.03 }, p1[] = { 0.00, 0.02, 0.04 }, p2[] = { 0.05 };
	const double *rows[] = { p0, p1, p2 };
	const size_t nr[] = { 2, 3, 1 };
	struct paired_series s = { .nproc = 3, .nrounds = nr, .x = rows };
	struct paired_estimate e;
	pq_error err;
	ck_assert_int_eq(paired_estimate(&s, &e, &err), 0);
	ck_assert_uint_eq(e.nproc, 3);
	ck_assert_uint_eq(e.nrounds_total, 6);
	ck_assert_double_eq_tol(e.mean_log, 0.03, EPS);
	ck_assert_double_eq_tol(e.se_log, 0.01, EPS);
	ck_assert_double_eq_tol(e.df, 2, EPS);
	ck_assert_double_eq_tol(e.ratio, exp(0.03), EPS);
	ck_assert_double_eq_tol(e.lo, exp(0.03 - 4.303 * 0.01), EPS);
	ck_assert_double_eq_tol(e.hi, exp(0.03 + 4.303 * 0.01), EPS);
	ck_assert_double_eq_tol(e.half_width, expm1(4.303 * 0.01), EPS);
	ck_assert_double_eq_tol(e.mde, expm1((4.303 + 1.061) * 0.01), EPS);
	/* within: (1e-4 + 1e-4) + (4e-4 + 0 + 4e-4) over 6 - 3 degrees of freedom */
	ck_assert_double_eq_tol(e.var_round, 1e-3 / 3, EPS);
	/* harmonic mean of 2, 3, 1 rounds is 18/11 */
	ck_assert_double_eq_tol(e.var_process, 3e-4 - (1e-3 / 3) * 11.0 / 18.0, EPS);

	/* one round everywhere: nothing to pool; var_process holds S_b^2 */
	const double q0[] = { 0.01 }, q1[] = { 0.03 };
	const double *qrows[] = { q0, q1 };
	const size_t ones[] = { 1, 1 };
	struct paired_series one_round = { .nproc = 2, .nrounds = ones, .x = qrows };
	ck_assert_int_eq(paired_estimate(&one_round, &e, &err), 0);
	ck_assert(isnan(e.var_round));
	ck_assert_double_eq_tol(e.var_process, 2e-4, EPS);
	ck_assert_double_eq_tol(e.mean_log, 0.02, EPS);

	/* the clamp: identical process means, noisy rounds */
	const double r0[] = { -0.01, 0.01 }, r1[] = { 0.02, -0.02 };
	const double *rrows[] = { r0, r1 };
	const size_t twos[] = { 2, 2 };
	struct paired_series flat = { .nproc = 2, .nrounds = twos, .x = rrows };
	ck_assert_int_eq(paired_estimate(&flat, &e, &err), 0);
	ck_assert_double_eq(e.var_process, 0);
	ck_assert_double_eq_tol(e.var_round, 1e-3 / 2, EPS);
}
END_TEST

START_TEST(test_estimate_refuses)
{
	const double p0[] = { 0.01, 0.02 }, p1[] = { 0.0, NAN };
	const double *rows[] = { p0, p1 };
	const size_t nr[] = { 2, 2 }, nr0[] = { 2, 0 }, nr1[] = { 2, 1 };
	struct paired_estimate e;
	pq_error err;

	struct paired_series one = { .nproc = 1, .nrounds = nr, .x = rows };
	ck_assert_int_eq(paired_estimate(&one, &e, &err), -PQ_EINPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "at least 2"));

	struct paired_series empty_proc = { .nproc = 2, .nrounds = nr0, .x = rows };
	ck_assert_int_eq(paired_estimate(&empty_proc, &e, &err), -PQ_EINPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "no rounds"));

	struct paired_series with_nan = { .nproc = 2, .nrounds = nr, .x = rows };
	ck_assert_int_eq(paired_estimate(&with_nan, &e, &err), -PQ_EINPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "not finite"));

	/* the difference needs the same rounds on both sides */
	struct paired_series a = { .nproc = 2, .nrounds = nr1, .x = rows };
	struct paired_series b = { .nproc = 2, .nrounds = nr, .x = rows };
	const double q1[] = { 0.0, 0.01 };
	const double *brows[] = { p0, q1 };
	b.x = brows;
	ck_assert_int_eq(paired_difference(&a, &b, &e, &err), -PQ_EINPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "same rounds"));
	ck_assert_int_eq(paired_difference(&one, &b, &e, &err), -PQ_EINPUT);
}
END_TEST

START_TEST(test_known_ratios)
{
	static struct study s;
	stats_rng rng;
	stats_rng_seed(&rng, 11);
	const double ratios[] = { 0.9, 0.97, 1.0, 1.05, 1.3 };
	for (size_t i = 0; i < sizeof ratios / sizeof *ratios; i++) {
		/* se of the log mean: sqrt((4e-6 + 1e-4/20) / 10) = 0.00095 */
		simulate(&s, &rng, 10, 20, NULL, ratios[i], 4e-6, 1e-4);
		struct paired_estimate e;
		pq_error err;
		ck_assert_int_eq(paired_estimate(&s.vs_base, &e, &err), 0);
		ck_assert_double_eq_tol(e.ratio / ratios[i], 1, 0.005);
		ck_assert(e.lo < e.ratio && e.ratio < e.hi);
		ck_assert_double_eq_tol(e.half_width, fmax(e.hi / e.ratio - 1, 1 - e.lo / e.ratio), EPS);
		ck_assert(e.mde > e.half_width);
	}

	/* no noise at all: the ratio exactly, a zero-width interval */
	double row[5];
	for (int r = 0; r < 5; r++)
		row[r] = log(1.05);
	const double *rows[] = { row, row, row };
	const size_t nr[] = { 5, 5, 5 };
	struct paired_series exact = { .nproc = 3, .nrounds = nr, .x = rows };
	struct paired_estimate e;
	pq_error err;
	ck_assert_int_eq(paired_estimate(&exact, &e, &err), 0);
	ck_assert_double_eq_tol(e.ratio, 1.05, EPS);
	ck_assert_double_eq_tol(e.lo, 1.05, EPS);
	ck_assert_double_eq_tol(e.hi, 1.05, EPS);
	ck_assert_double_eq(e.se_log, 0);
	ck_assert_double_eq(e.mde, 0);
	ck_assert_double_eq(e.var_process, 0);
	ck_assert_double_eq(e.var_round, 0);
}
END_TEST

START_TEST(test_difference_is_estimate_of_difference)
{
	static struct study s;
	static double d[MAXP][MAXR];
	const double *drows[MAXP];
	stats_rng rng;
	stats_rng_seed(&rng, 12);
	const size_t nr[] = { 7, 12, 3, 20, 9, 15 };
	simulate(&s, &rng, 6, 0, nr, 1.02, 1e-4, 4e-4);
	for (size_t p = 0; p < s.nproc; p++) {
		for (size_t r = 0; r < s.nrounds[p]; r++)
			d[p][r] = s.cand[p][r] - s.aa[p][r];
		drows[p] = d[p];
	}
	struct paired_series ds = { .nproc = s.nproc, .nrounds = s.nrounds, .x = drows };
	struct paired_estimate direct, diff;
	pq_error err;
	ck_assert_int_eq(paired_estimate(&ds, &direct, &err), 0);
	ck_assert_int_eq(paired_difference(&s.vs_base, &s.aa_vs_base, &diff, &err), 0);
	ck_assert(memcmp(&direct, &diff, sizeof direct) == 0);

	/* a comparison against itself: exactly no difference, seen exactly */
	ck_assert_int_eq(paired_difference(&s.vs_base, &s.vs_base, &diff, &err), 0);
	ck_assert_double_eq(diff.ratio, 1);
	ck_assert_double_eq(diff.mde, 0);
	ck_assert_int_eq(verdict_paired(&diff, NULL, 0.01), VERDICT_NO_CHANGE);
}
END_TEST

START_TEST(test_variance_components)
{
	static struct study s;
	stats_rng rng;
	stats_rng_seed(&rng, 13);
	const double vp = 4e-4, vr = 9e-4;
	struct paired_estimate e;
	pq_error err;

	/* one study: var_round has 1160 df (sd 4%), var_process 39 (sd ~25%) */
	simulate(&s, &rng, 40, 30, NULL, 1.0, vp, vr);
	ck_assert_int_eq(paired_estimate(&s.vs_base, &e, &err), 0);
	ck_assert_double_eq_tol(e.var_round / vr, 1, 0.15);
	ck_assert_double_eq_tol(e.var_process / vp, 1, 0.6);

	/* the average of 100 studies: the estimators are unbiased */
	double sum_p = 0, sum_r = 0;
	for (int i = 0; i < 100; i++) {
		simulate(&s, &rng, 40, 30, NULL, 1.0, vp, vr);
		ck_assert_int_eq(paired_estimate(&s.vs_base, &e, &err), 0);
		sum_p += e.var_process;
		sum_r += e.var_round;
	}
	ck_assert_double_eq_tol(sum_r / 100 / vr, 1, 0.02);
	ck_assert_double_eq_tol(sum_p / 100 / vp, 1, 0.08);

	/*
	 * Unequal rounds (2..41) with a large round variance: the harmonic
	 * mean of the rounds is what makes var_process unbiased; the
	 * arithmetic mean would overstate it by about 90% here.
	 */
	size_t nr[40];
	for (size_t p = 0; p < 40; p++)
		nr[p] = 2 + (p * 17) % 40;
	const double vp2 = 1e-4, vr2 = 2.5e-3;
	sum_p = 0;
	for (int i = 0; i < 100; i++) {
		simulate(&s, &rng, 40, 0, nr, 1.0, vp2, vr2);
		ck_assert_int_eq(paired_estimate(&s.vs_base, &e, &err), 0);
		sum_p += e.var_process;
	}
	ck_assert_double_eq_tol(sum_p / 100 / vp2, 1, 0.25);
}
END_TEST

/*
 * A/A studies: the true ratio is 1 and both variance components are
 * present.  The t interval over process means has a 5% false-positive
 * rate by construction; 1000 studies have a Monte-Carlo sd of 0.7%, so
 * 6.5% is a two-sigma ceiling.  Treating the 120 rounds as independent
 * (an interval over all rounds pooled) would give over a third here, and
 * an interval far too wide would fall under the 2.5% floor.
 */
START_TEST(test_aa_false_positives)
{
	static struct study s;
	stats_rng rng;
	stats_rng_seed(&rng, 14);
	int excl_base = 0, excl_diff = 0, eff_aa = 0, eff_plain = 0;
	for (int i = 0; i < 1000; i++) {
		simulate(&s, &rng, 6, 20, NULL, 1.0, 1e-4, 4e-4);
		struct paired_estimate vs_base, vs_aa;
		estimate_both(&s, &vs_base, &vs_aa);
		excl_base += excludes_one(&vs_base);
		excl_diff += excludes_one(&vs_aa);
		enum verdict v = verdict_paired(&vs_base, &vs_aa, 0.01);
		eff_aa += v == VERDICT_FASTER || v == VERDICT_SLOWER;
		v = verdict_paired(&vs_base, NULL, 0.01);
		eff_plain += v == VERDICT_FASTER || v == VERDICT_SLOWER;
	}
	ck_assert_int_le(excl_base, 65);
	ck_assert_int_ge(excl_base, 25);
	ck_assert_int_le(excl_diff, 65);
	ck_assert_int_ge(excl_diff, 25);
	ck_assert_int_le(eff_aa, 65);
	ck_assert_int_le(eff_plain, 65);
}
END_TEST

/*
 * A planted 3% change with realistic noise: round sd 3%, process sd 0.5%,
 * 8 processes of 25 rounds.  The se of the log mean is 0.0028, so the
 * point estimate is ~7 se beyond the 1% band edge.
 */
START_TEST(test_planted_change)
{
	static struct study s;
	stats_rng rng;
	stats_rng_seed(&rng, 15);
	int slower_aa = 0, slower_plain = 0, faster = 0;
	const int sims = 400;
	for (int i = 0; i < sims; i++) {
		struct paired_estimate vs_base, vs_aa;
		simulate(&s, &rng, 8, 25, NULL, 1.03, 0.005 * 0.005, 0.03 * 0.03);
		estimate_both(&s, &vs_base, &vs_aa);
		slower_aa += verdict_paired(&vs_base, &vs_aa, 0.01) == VERDICT_SLOWER;
		slower_plain += verdict_paired(&vs_base, NULL, 0.01) == VERDICT_SLOWER;
		simulate(&s, &rng, 8, 25, NULL, 1 / 1.03, 0.005 * 0.005, 0.03 * 0.03);
		estimate_both(&s, &vs_base, &vs_aa);
		faster += verdict_paired(&vs_base, &vs_aa, 0.01) == VERDICT_FASTER;
	}
	ck_assert_int_ge(slower_aa, sims * 95 / 100);
	ck_assert_int_ge(slower_plain, sims * 95 / 100);
	ck_assert_int_ge(faster, sims * 95 / 100);
}
END_TEST

/* ---------------- planner ---------------- */

static int plan_reaches(double vp, double vr, size_t n, size_t m, double precision)
{
	double t = stats_t975((double)(n - 1));
	return expm1(t * sqrt((vp + vr / (double)m) / (double)n)) <= precision * (1 + 1e-12);
}

/* The cheapest plan by exhaustion over n in [min_proc, nmax], m in [min_rounds, max_rounds]. */
static double brute_force_cost(double vp, double vr, const struct paired_costs *c, double precision,
                               size_t min_proc, size_t nmax, size_t min_rounds, size_t max_rounds)
{
	double best = INFINITY;
	for (size_t n = min_proc; n <= nmax; n++)
		for (size_t m = min_rounds; m <= max_rounds; m++)
			if (plan_reaches(vp, vr, n, m, precision)) {
				best = fmin(best, (double)n * (c->process_s + (double)m * c->round_s));
				break;  /* more rounds at this n only cost more */
			}
	return best;
}

static void check_plan_consistent(const struct paired_plan *pl, double vp, double vr, const struct paired_costs *c)
{
	double t = stats_t975((double)(pl->nproc - 1));
	ck_assert_double_eq_tol(pl->predicted_half_width,
	                        expm1(t * sqrt((vp + vr / (double)pl->nrounds) / (double)pl->nproc)), EPS);
	ck_assert_double_eq_tol(pl->predicted_s, (double)pl->nproc * (c->process_s + (double)pl->nrounds * c->round_s),
	                        1e-9);
}

START_TEST(test_plan_no_process_variance)
{
	struct paired_costs c = { .process_s = 1, .round_s = 0.01 };
	struct paired_plan pl;
	pq_error err;
	const double vr = 9e-4;
	ck_assert(isinf(paired_optimal_rounds(0, vr, &c)));

	/*
	 * Rounds needed by 10 processes: vr t_{.975,9}^2 / (10 L^2) = 99.7
	 * with L^2 = 4.62e-6: all of max_rounds = 100, and min_proc.
	 */
	double precision = expm1(sqrt(4.62e-6));
	ck_assert_int_eq(paired_plan_repetition(0, vr, &c, precision, 0, 10, 1, 100, &pl, &err), 0);
	ck_assert_uint_eq(pl.nproc, 10);
	ck_assert_uint_eq(pl.nrounds, 100);
	ck_assert_int_eq(pl.within_budget, 1);
	ck_assert(pl.predicted_half_width <= precision);
	check_plan_consistent(&pl, 0, vr, &c);

	/* a looser precision takes min_proc and only the rounds it needs */
	ck_assert_int_eq(paired_plan_repetition(0, vr, &c, 0.01, 0, 10, 1, 1000, &pl, &err), 0);
	ck_assert_uint_eq(pl.nproc, 10);
	ck_assert_uint_eq(pl.nrounds, 5);  /* 9e-4 * 2.262^2 / (10 ln(1.01)^2) = 4.65 */

	/*
	 * min_proc 2: m* says max_rounds, but with t_{.975,1} = 12.7 two
	 * processes need 734 rounds each (16.7 s); three need 57 (4.7 s).
	 */
	ck_assert_int_eq(paired_plan_repetition(0, vr, &c, 0.01, 0, 2, 1, 1000, &pl, &err), 0);
	ck_assert_uint_eq(pl.nproc, 3);
	ck_assert_uint_eq(pl.nrounds, 57);
	ck_assert_double_eq_tol(pl.predicted_s,
	                        brute_force_cost(0, vr, &c, 0.01, 2, 60, 1, 1000), 1e-9);
}
END_TEST

START_TEST(test_plan_process_dominated)
{
	/* var_process large against var_round: few rounds, many processes */
	struct paired_costs c = { .process_s = 1, .round_s = 0.1 };
	struct paired_plan pl;
	pq_error err;
	ck_assert(paired_optimal_rounds(1e-3, 1e-5, &c) < 1);
	ck_assert_int_eq(paired_plan_repetition(1e-3, 1e-5, &c, 0.01, 0, 2, 1, 500, &pl, &err), 0);
	ck_assert_uint_le(pl.nrounds, 2);
	ck_assert_uint_ge(pl.nproc, 30);
	ck_assert(pl.predicted_half_width <= 0.01);
	check_plan_consistent(&pl, 1e-3, 1e-5, &c);
	ck_assert_double_eq_tol(pl.predicted_s, brute_force_cost(1e-3, 1e-5, &c, 0.01, 2, 200, 1, 500), 1e-9);
}
END_TEST

START_TEST(test_plan_kj_and_optimal)
{
	/* many processes: t is near z and the plan lies next to m* = 89.4 */
	struct paired_costs c = { .process_s = 2, .round_s = 0.01 };
	struct paired_plan pl;
	pq_error err;
	double mstar = paired_optimal_rounds(1e-4, 4e-3, &c);
	ck_assert_double_eq_tol(mstar, sqrt(8000), 1e-9);
	ck_assert_int_eq(paired_plan_repetition(1e-4, 4e-3, &c, 0.005, 0, 2, 1, 1000, &pl, &err), 0);
	ck_assert((double)pl.nrounds > mstar / 1.5 && (double)pl.nrounds < mstar * 1.5);
	ck_assert(pl.predicted_half_width <= 0.005);
	check_plan_consistent(&pl, 1e-4, 4e-3, &c);
	ck_assert_double_eq_tol(pl.predicted_s, brute_force_cost(1e-4, 4e-3, &c, 0.005, 2, 80, 1, 1000), 1e-9);

	/* exhaustive check on a spread of problems */
	const struct {
		double vp, vr, ps, rs, precision;
	} cases[] = {
		{ 4e-4, 9e-4, 0.5, 0.02, 0.01 }, { 1e-5, 1e-3, 3, 0.001, 0.01 }, { 2e-4, 2e-4, 0.1, 0.1, 0.02 },
		{ 0, 1e-3, 0.2, 0.01, 0.01 },    { 1e-4, 0, 1, 0.01, 0.01 },     { 5e-5, 4e-3, 0, 0.01, 0.01 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct paired_costs ci = { .process_s = cases[i].ps, .round_s = cases[i].rs };
		ck_assert_int_eq(paired_plan_repetition(cases[i].vp, cases[i].vr, &ci, cases[i].precision, 0, 3, 2, 300,
		                                        &pl, &err), 0);
		ck_assert(pl.nproc >= 3 && pl.nrounds >= 2 && pl.nrounds <= 300);
		ck_assert(pl.predicted_half_width <= cases[i].precision);
		check_plan_consistent(&pl, cases[i].vp, cases[i].vr, &ci);
		ck_assert_double_eq_tol(pl.predicted_s, brute_force_cost(cases[i].vp, cases[i].vr, &ci,
		                                                         cases[i].precision, 3, 120, 2, 300), 1e-9);
	}
}
END_TEST

START_TEST(test_plan_budget)
{
	struct paired_costs c = { .process_s = 2, .round_s = 0.01 };
	struct paired_plan full, pl;
	pq_error err;
	ck_assert_int_eq(paired_plan_repetition(1e-4, 4e-3, &c, 0.005, 0, 2, 1, 1000, &full, &err), 0);

	/* a generous budget changes nothing */
	ck_assert_int_eq(paired_plan_repetition(1e-4, 4e-3, &c, 0.005, full.predicted_s * 2, 2, 1, 1000, &pl, &err), 0);
	ck_assert_int_eq(pl.within_budget, 1);
	ck_assert_uint_eq(pl.nproc, full.nproc);
	ck_assert_uint_eq(pl.nrounds, full.nrounds);

	/* half the time: the most precise plan that fits, and it says so */
	double budget = full.predicted_s / 2;
	ck_assert_int_eq(paired_plan_repetition(1e-4, 4e-3, &c, 0.005, budget, 2, 1, 1000, &pl, &err), 0);
	ck_assert_int_eq(pl.within_budget, 0);
	ck_assert(pl.predicted_s <= budget);
	ck_assert(pl.predicted_half_width > 0.005);
	ck_assert_uint_ge(pl.nproc, 2);
	check_plan_consistent(&pl, 1e-4, 4e-3, &c);
	/* no plan inside the budget is more precise */
	for (size_t n = 2; n <= 60; n++)
		for (size_t m = 1; m <= 1000; m++) {
			if ((double)n * (c.process_s + (double)m * c.round_s) > budget)
				break;
			double t = stats_t975((double)(n - 1));
			ck_assert(expm1(t * sqrt((1e-4 + 4e-3 / (double)m) / (double)n)) >= pl.predicted_half_width - EPS);
		}

	/* not even min_proc processes of min_rounds fit: the smallest plan, over budget */
	ck_assert_int_eq(paired_plan_repetition(1e-4, 4e-3, &c, 0.005, 5, 4, 10, 1000, &pl, &err), 0);
	ck_assert_int_eq(pl.within_budget, 0);
	ck_assert_uint_eq(pl.nproc, 4);
	ck_assert_uint_eq(pl.nrounds, 10);
	ck_assert(pl.predicted_s > 5);
}
END_TEST

START_TEST(test_plan_many)
{
	struct paired_costs c = { .process_s = 1, .round_s = 0.02 };
	struct paired_plan one, many;
	pq_error err;
	/* one comparison dominates at every m: the same plan as for it alone */
	struct paired_components dom[] = { { 1e-5, 1e-4 }, { 2e-4, 1e-3 }, { 0, 5e-4 } };
	ck_assert_int_eq(paired_plan_repetition(2e-4, 1e-3, &c, 0.01, 0, 2, 1, 500, &one, &err), 0);
	ck_assert_int_eq(paired_plan_repetition_many(dom, 3, &c, 0.01, 0, 2, 1, 500, &many, &err), 0);
	ck_assert_uint_eq(many.nproc, one.nproc);
	ck_assert_uint_eq(many.nrounds, one.nrounds);

	/* different comparisons bind at different m: every one is satisfied */
	struct paired_components mix[] = { { 3e-4, 1e-5 }, { 0, 8e-3 } };
	ck_assert_int_eq(paired_plan_repetition_many(mix, 2, &c, 0.01, 0, 2, 1, 500, &many, &err), 0);
	for (size_t k = 0; k < 2; k++)
		ck_assert(plan_reaches(mix[k].var_process, mix[k].var_round, many.nproc, many.nrounds, 0.01));
	/* and nothing cheaper satisfies both */
	for (size_t n = 2; n <= 100; n++)
		for (size_t m = 1; m <= 500; m++)
			if (plan_reaches(mix[0].var_process, mix[0].var_round, n, m, 0.01) &&
			    plan_reaches(mix[1].var_process, mix[1].var_round, n, m, 0.01))
				ck_assert((double)n * (c.process_s + (double)m * c.round_s) >= many.predicted_s - 1e-9);
	ck_assert_int_eq(paired_plan_repetition_many(mix, 0, &c, 0.01, 0, 2, 1, 500, &many, &err), -PQ_EINPUT);
}
END_TEST

START_TEST(test_plan_refuses)
{
	struct paired_costs c = { .process_s = 1, .round_s = 0.01 };
	struct paired_plan pl;
	pq_error err;
	ck_assert_int_eq(paired_plan_repetition(-1e-4, 1e-3, &c, 0.01, 0, 2, 1, 100, &pl, &err), -PQ_EINPUT);
	ck_assert_int_eq(paired_plan_repetition(1e-4, NAN, &c, 0.01, 0, 2, 1, 100, &pl, &err), -PQ_EINPUT);
	ck_assert_int_eq(paired_plan_repetition(1e-4, 1e-3, &c, 0, 0, 2, 1, 100, &pl, &err), -PQ_EINPUT);
	ck_assert_int_eq(paired_plan_repetition(1e-4, 1e-3, &c, 0.01, 0, 2, 0, 100, &pl, &err), -PQ_EINPUT);
	ck_assert_int_eq(paired_plan_repetition(1e-4, 1e-3, &c, 0.01, 0, 2, 10, 5, &pl, &err), -PQ_EINPUT);
	ck_assert_int_eq(paired_plan_repetition(1e-4, 1e-3, NULL, 0.01, 0, 2, 1, 100, &pl, &err), -PQ_EINPUT);
	ck_assert_int_eq(paired_plan_repetition(1, 1, &c, 1e-9, 0, 2, 1, 100, &pl, &err), -PQ_EINPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "2^40"));
	/* min_proc below 2 counts as 2; no variance at all needs the least */
	ck_assert_int_eq(paired_plan_repetition(0, 0, &c, 0.01, 0, 0, 3, 100, &pl, &err), 0);
	ck_assert_uint_eq(pl.nproc, 2);
	ck_assert_uint_eq(pl.nrounds, 3);
	ck_assert_double_eq(pl.predicted_half_width, 0);
}
END_TEST

/* ---------------- the A/A rule ---------------- */

START_TEST(test_rule_difference_not_bounds)
{
	/*
	 * The baseline's own layout effect u0[p] is large and enters both
	 * comparisons: candidate-vs-base and aa-vs-base intervals are wide
	 * and overlap, so comparing their bounds finds nothing.  In the
	 * difference it cancels round by round, and the candidate is 3%
	 * slower than the A/A copy beyond doubt.
	 */
	const double u0[] = { 0.04, -0.04, 0.03, -0.03, 0.01 };
	static double cand[5][10], aa[5][10];
	const double *crows[5], *arows[5];
	size_t nr[5];
	for (int p = 0; p < 5; p++) {
		for (int r = 0; r < 10; r++) {
			double wiggle = 0.002 * ((r * 7 + p * 3) % 5 - 2);
			cand[p][r] = log(1.03) - u0[p] + wiggle + 0.001 * (p % 2);
			aa[p][r] = -u0[p] + wiggle;
		}
		crows[p] = cand[p];
		arows[p] = aa[p];
		nr[p] = 10;
	}
	struct paired_series cs = { .nproc = 5, .nrounds = nr, .x = crows };
	struct paired_series as = { .nproc = 5, .nrounds = nr, .x = arows };
	struct paired_estimate vs_base, aa_vs_base, vs_aa;
	pq_error err;
	ck_assert_int_eq(paired_estimate(&cs, &vs_base, &err), 0);
	ck_assert_int_eq(paired_estimate(&as, &aa_vs_base, &err), 0);
	ck_assert_int_eq(paired_difference(&cs, &as, &vs_aa, &err), 0);
	/* bounds against bounds: the intervals overlap */
	ck_assert(vs_base.lo < aa_vs_base.hi);
	/* the difference's own interval excludes 1 */
	ck_assert(vs_aa.lo > 1);
	ck_assert_int_eq(verdict_paired(&vs_base, &vs_aa, 0.01), VERDICT_SLOWER);

	/* the same through constructed estimates: base [0.97, 1.09] and aa wide, difference tight */
	struct paired_estimate b = made(0.03, 0.02, 5), d = made(0.03, 0.003, 5);
	ck_assert_int_eq(verdict_paired(&b, &d, 0.01), VERDICT_SLOWER);
	/* without an A/A arm vs_base itself is tested, and its interval holds 1 */
	ck_assert_int_eq(verdict_paired(&b, NULL, 0.01), VERDICT_INCONCLUSIVE);
}
END_TEST

START_TEST(test_rule_cases)
{
	const double th = 0.01;
	/* not significant: the mde decides between no change and inconclusive */
	struct paired_estimate quiet = made(0.001, 0.001, 10), noisy = made(0.001, 0.005, 10);
	ck_assert(quiet.mde <= th && noisy.mde > th);
	ck_assert_int_eq(verdict_paired(&quiet, NULL, th), VERDICT_NO_CHANGE);
	ck_assert_int_eq(verdict_paired(&noisy, NULL, th), VERDICT_INCONCLUSIVE);
	/* with an A/A arm the difference's mde counts, not the base's */
	ck_assert_int_eq(verdict_paired(&quiet, &noisy, th), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(verdict_paired(&noisy, &quiet, th), VERDICT_NO_CHANGE);

	/* significant, whole interval inside the band */
	struct paired_estimate small = made(0.004, 0.001, 10);
	ck_assert_int_eq(verdict_paired(&small, NULL, th), VERDICT_BELOW_THRESHOLD);
	/* significant, inside the band, interval across its edge */
	struct paired_estimate edge = made(0.008, 0.002, 10);
	ck_assert_int_eq(verdict_paired(&edge, NULL, th), VERDICT_INCONCLUSIVE);
	/* beyond the band and significant: an effect, whether or not the interval clears the edge */
	struct paired_estimate up = made(0.012, 0.002, 10), down = made(-0.03, 0.002, 10);
	ck_assert(up.lo < 1 + th);
	ck_assert_int_eq(verdict_paired(&up, NULL, th), VERDICT_SLOWER);
	ck_assert_int_eq(verdict_paired(&down, NULL, th), VERDICT_FASTER);
	/* the lower band edge is 1/(1+t), not 1-t: 0.9905 is inside */
	struct paired_estimate just_inside = made(log(0.9905), 0.0001, 10);
	ck_assert_int_eq(verdict_paired(&just_inside, NULL, th), VERDICT_BELOW_THRESHOLD);

	/* with an A/A arm: the candidate moved, but so much of it an identical copy also shows */
	struct paired_estimate diff_small = made(0.005, 0.001, 10);
	ck_assert_int_eq(verdict_paired(&up, &diff_small, th), VERDICT_BELOW_THRESHOLD);
	ck_assert_int_eq(verdict_paired(&up, &up, th), VERDICT_SLOWER);
	/* opposite sides: no effect can be named */
	struct paired_estimate diff_down = made(-0.012, 0.002, 10);
	ck_assert_int_eq(verdict_paired(&up, &diff_down, th), VERDICT_INCONCLUSIVE);
	/* the base point inside the band, the difference beyond: the A/A copy itself moved */
	struct paired_estimate diff_up = made(0.02, 0.002, 10);
	ck_assert_int_eq(verdict_paired(&quiet, &diff_up, th), VERDICT_INCONCLUSIVE);

	/* unknown figures */
	struct paired_estimate bad = quiet;
	bad.hi = NAN;
	ck_assert_int_eq(verdict_paired(&bad, NULL, th), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(verdict_paired(&quiet, &bad, th), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(verdict_paired(NULL, NULL, th), VERDICT_INCONCLUSIVE);
	/* threshold 0: any significant change is an effect; no change is never proven */
	ck_assert_int_eq(verdict_paired(&small, NULL, 0), VERDICT_SLOWER);
	ck_assert_int_eq(verdict_paired(&quiet, NULL, NAN), VERDICT_INCONCLUSIVE);

	ck_assert_str_eq(verdict_name(VERDICT_FASTER), "faster");
	ck_assert_str_eq(verdict_name(VERDICT_SLOWER), "slower");
	ck_assert_str_eq(verdict_name(VERDICT_BELOW_THRESHOLD), "no effect: below threshold");
	ck_assert_str_eq(verdict_name(VERDICT_NO_CHANGE), "no significant change");
	ck_assert_str_eq(verdict_name(VERDICT_INCONCLUSIVE), "inconclusive");
}
END_TEST

START_TEST(test_settle_factor)
{
	const double th = 0.01;
	/*
	 * Not significant, mde 1.27% at 10 processes: with n' processes the
	 * mde is (t975 + t80)(n'-1) * 0.004 * sqrt(10/n'); 14 give 1.024%,
	 * 15 give 0.984% (ln 1.01 = 0.995%).
	 */
	struct paired_estimate e = made(0, 0.004, 10);
	ck_assert_int_eq(verdict_paired(&e, NULL, th), VERDICT_INCONCLUSIVE);
	ck_assert_double_eq_tol(verdict_settle_factor(&e, th), 1.5, EPS);

	/* already settled */
	e = made(0, 0.001, 10);
	ck_assert_double_eq(verdict_settle_factor(&e, th), 1);

	/*
	 * Significant, inside the band, interval across the edge: the interval
	 * must shrink to 0.00995 - 0.008 on each side; t975(n'-1) * 0.002 *
	 * sqrt(10/n') <= 0.00195 first holds at n' = 43.
	 */
	e = made(0.008, 0.002, 10);
	ck_assert_int_eq(verdict_paired(&e, NULL, th), VERDICT_INCONCLUSIVE);
	ck_assert_double_eq_tol(verdict_settle_factor(&e, th), 4.3, EPS);

	/* significant, beyond: clearing the edge from the other side is symmetric */
	struct paired_estimate mirror = made(2 * log1p(th) - 0.008, 0.002, 10);
	ck_assert_double_eq_tol(verdict_settle_factor(&mirror, th), 4.3, EPS);

	/* nothing settles a point exactly on the edge, a zero threshold, or unknown figures */
	e = made(log1p(th), 0.001, 10);
	ck_assert(isinf(verdict_settle_factor(&e, th)));
	e = made(0, 0.004, 10);
	ck_assert(isinf(verdict_settle_factor(&e, 0)));
	e.se_log = NAN;
	ck_assert(isinf(verdict_settle_factor(&e, th)));
	ck_assert(isinf(verdict_settle_factor(NULL, th)));

	/* never below 1, and more data always settles a finite case */
	for (int i = 1; i <= 20; i++) {
		struct paired_estimate f = made(0.0007 * i, 0.0015, 6);
		double k = verdict_settle_factor(&f, th);
		ck_assert(k >= 1 && isfinite(k));
	}
}
END_TEST

/*
 * The parent writes each process's seed as a decimal (supervise/paired.c)
 * and the paired job reads it back with an OPT_U64 row: a seed past 2^53,
 * which a double would round to an even neighbour, arrives exactly.
 */
START_TEST(test_seed_round_trip)
{
	const uint64_t seeds[] = { (1ULL << 53) + 1, 0xfedcba9876543211ULL, (1ULL << 63) + 1 };
	for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
		char sd[32];
		snprintf(sd, sizeof sd, "%llu", (unsigned long long)seeds[i]);
		ck_assert_msg((uint64_t)(double)seeds[i] != seeds[i], "%s survives a double: not a test", sd);
		uint64_t got = 0;
		const struct option_spec specs[] = {
			{ OPT_U64, 0, "seed", &got, "N", "", NULL },
			{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
		};
		char *argv[] = { "paired", "--seed", sd, NULL };
		pq_error err = { 0 };
		int help = 0;
		ck_assert_int_eq(options_parse(3, argv, specs, NULL, 0, &help, &err), 0);
		ck_assert_msg(got == seeds[i], "seed %s came back as %llu", sd, (unsigned long long)got);
	}
}
END_TEST

/* A trial comparison: B/A with its interval, interleaved, 10 trials a side, a 3% threshold. */
static struct verdict_trials trials(double ratio, double lo, double hi)
{
	struct verdict_trials t = {
		.vs_base = { ratio, lo, hi }, .na = 10, .nb = 10, .interleaved = 1, .threshold = 0.03,
		.separate_factor = 1.25,
	};
	return t;
}

static enum verdict trial_verdict(const struct verdict_trials *t)
{
	struct verdict_of_trials v;
	verdict_of_trials(t, &v);
	return v.verdict;
}

START_TEST(test_trial_rule)
{
	struct verdict_trials t = trials(0.90, 0.88, 0.92);
	ck_assert_int_eq(trial_verdict(&t), VERDICT_FASTER);
	t = trials(1.10, 1.08, 1.12);
	ck_assert_int_eq(trial_verdict(&t), VERDICT_SLOWER);
	t = trials(1.01, 1.005, 1.015);
	ck_assert_int_eq(trial_verdict(&t), VERDICT_BELOW_THRESHOLD);
	t = trials(1.03, 1.01, 1.05);
	ck_assert_int_eq(trial_verdict(&t), VERDICT_NEAR_THRESHOLD);
	t = trials(1.00, 0.98, 1.02);
	ck_assert_int_eq(trial_verdict(&t), VERDICT_NO_CHANGE);
	t.not_comparable = 1;
	ck_assert_int_eq(trial_verdict(&t), VERDICT_NOT_COMPARABLE);

	/* Separate runs: 10% slower is within a 1.25x allowance. */
	t = trials(1.10, 1.08, 1.12);
	t.interleaved = 0;
	ck_assert_int_eq(trial_verdict(&t), VERDICT_SEPARATE_RUNS);
	struct verdict_of_trials v;
	verdict_of_trials(&t, &v);
	ck_assert_double_eq(v.band_hi, 1.25);
	ck_assert_double_eq(v.band_lo, 1 / 1.25);

	/* An A/A pair that moves 12% explains B's 10%. */
	t = trials(1.10, 1.08, 1.12);
	t.has_aa = 1;
	t.aa_lo = 1 / 1.12;
	t.aa_hi = 1.12;
	ck_assert_int_eq(trial_verdict(&t), VERDICT_WITHIN_AA);
	/* B against the copy from the same rounds decides when it is there. */
	t.has_vs_aa = 1;
	t.vs_aa = (struct verdict_interval){ 1.09, 1.07, 1.11 };
	ck_assert_int_eq(trial_verdict(&t), VERDICT_SLOWER);
	t.vs_aa = (struct verdict_interval){ 1.01, 0.99, 1.03 };
	ck_assert_int_eq(trial_verdict(&t), VERDICT_WITHIN_AA);
	/* Beyond the copy, but on the other side of 1 from B's ratio to A: no verdict either way. */
	t.vs_aa = (struct verdict_interval){ 0.90, 0.88, 0.92 };
	ck_assert_int_eq(trial_verdict(&t), VERDICT_NEAR_THRESHOLD);

	ck_assert_int_eq(verdict_unmeasured(1, 0, 0, 2), VERDICT_NOT_COMPARABLE);
	ck_assert_int_eq(verdict_unmeasured(0, 1, 5, 2), VERDICT_TOO_FEW_TRIALS);
	ck_assert_int_eq(verdict_unmeasured(0, 5, 5, 2), VERDICT_UNKNOWN);
	ck_assert_str_eq(verdict_name(VERDICT_NEAR_THRESHOLD), "inconclusive: near the threshold");
	ck_assert_str_eq(verdict_name(VERDICT_WITHIN_AA), "no effect: within A/A spread");
	ck_assert(verdict_is_effect(VERDICT_FASTER) && !verdict_is_effect(VERDICT_WITHIN_AA));
}
END_TEST

START_TEST(test_trial_mde_and_settle)
{
	/* Interleaved, 10 trials: df 9; the interval's log half-width over t975 is the standard error. */
	struct verdict_trials t = trials(1.03, 1.01, 1.05);
	struct verdict_of_trials v;
	verdict_of_trials(&t, &v);
	double se = (log(1.05) - log(1.01)) / (2 * stats_t975(9));
	ck_assert_double_eq_tol(v.mde, verdict_mde(se, 9), 1e-15);
	ck_assert_double_eq_tol(verdict_mde(se, 9), expm1((stats_t975(9) + stats_t80(9)) * se), 1e-12);
	/* Near the threshold: trials that would put the interval clear of the band edge. */
	ck_assert_int_eq(v.verdict, VERDICT_NEAR_THRESHOLD);
	ck_assert(isnan(v.settle_trials));  /* exactly on the edge: nothing settles it */
	t = trials(1.035, 1.01, 1.06);
	verdict_of_trials(&t, &v);
	ck_assert_int_eq(v.verdict, VERDICT_NEAR_THRESHOLD);
	se = (log(1.06) - log(1.01)) / (2 * stats_t975(9));
	double k = se * stats_t975(9) / (log(1.035) - log(1.03));
	ck_assert_double_eq(v.settle_trials, ceil(k * k * 10));
	/* No settle figure for other verdicts; none at all without a finite interval. */
	t = trials(1.00, 0.98, 1.02);
	verdict_of_trials(&t, &v);
	ck_assert(isnan(v.settle_trials) && isfinite(v.mde));
	t = trials(1.00, NAN, NAN);
	verdict_of_trials(&t, &v);
	ck_assert(isnan(v.mde) && isnan(v.settle_trials));
}
END_TEST

static Suite *paired_suite(void)
{
	Suite *s = suite_create("paired");
	TCase *es = tcase_create("estimate");
	tcase_add_test(es, test_t80_table);
	tcase_add_test(es, test_estimate_by_hand);
	tcase_add_test(es, test_estimate_refuses);
	tcase_add_test(es, test_known_ratios);
	tcase_add_test(es, test_difference_is_estimate_of_difference);
	tcase_add_test(es, test_variance_components);
	tcase_add_test(es, test_aa_false_positives);
	tcase_add_test(es, test_planted_change);
	suite_add_tcase(s, es);

	TCase *pl = tcase_create("planner");
	tcase_add_test(pl, test_plan_no_process_variance);
	tcase_add_test(pl, test_plan_process_dominated);
	tcase_add_test(pl, test_plan_kj_and_optimal);
	tcase_add_test(pl, test_plan_budget);
	tcase_add_test(pl, test_plan_many);
	tcase_add_test(pl, test_plan_refuses);
	suite_add_tcase(s, pl);

	TCase *ru = tcase_create("rule");
	tcase_add_test(ru, test_rule_difference_not_bounds);
	tcase_add_test(ru, test_rule_cases);
	tcase_add_test(ru, test_settle_factor);
	tcase_add_test(ru, test_trial_rule);
	tcase_add_test(ru, test_trial_mde_and_settle);
	suite_add_tcase(s, ru);

	TCase *sd = tcase_create("seed");
	tcase_add_test(sd, test_seed_round_trip);
	suite_add_tcase(s, sd);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(paired_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
