/*
 * test_leak: Check suite for src/leak: the Welch t-test and its crops,
 * the verdict drawn from a t trace and the contention evidence (with the
 * exact words pqprof leak prints), the A/A control's threshold and the
 * practical floor, effects with their intervals, and the class pairs per
 * operation.
 * Synthetic data only; the end-to-end behaviour on real fixtures is in
 * tests/e2e/leak.sh.
 */
#include "config.h"
#include "leak/leak_classes.h"
#include "leak/leak_stats.h"
#include "measure/stats.h"

#include <check.h>
#include <math.h>
#include <string.h>

/* Roughly normal noise from the seeded PRNG (sum of 12 uniforms). */
static double noise(stats_rng *r, double sd)
{
	double s = 0;
	for (int i = 0; i < 12; i++)
		s += (double)(stats_rng_next(r) >> 11) / 9007199254740992.0;
	return (s - 6) * sd;
}

START_TEST(test_welch_equal_and_shifted)
{
	stats_rng r;
	stats_rng_seed(&r, 1);
	struct leak_welch same = { 0 }, shifted = { 0 };
	for (int i = 0; i < 20000; i++) {
		int c = i & 1;
		leak_welch_add(&same, c, 1000 + noise(&r, 50));
		leak_welch_add(&shifted, c, 1000 + (c ? 5 : 0) + noise(&r, 50));
	}
	ck_assert(fabs(leak_welch_t(&same)) < 4.5);
	/* 5 units apart, sd 50, 10000 each: t about -7 */
	ck_assert(leak_welch_t(&shifted) < -4.5);
	struct leak_welch few = { 0 };
	for (int i = 0; i < 100; i++)
		leak_welch_add(&few, i & 1, i);
	ck_assert_double_eq(leak_welch_t(&few), 0);  /* too few per class */
}
END_TEST

START_TEST(test_crops_find_tail_hidden_leak)
{
	/* Class 1 is slower by 3 units, hidden under rare huge outliers in both
	 * classes: the uncropped test misses it, a crop finds it. */
	stats_rng r;
	stats_rng_seed(&r, 7);
	double calib[1000];
	for (int i = 0; i < 1000; i++)
		calib[i] = 1000 + noise(&r, 20) + ((stats_rng_next(&r) % 50) == 0 ? 1e6 : 0);
	double pcts[LEAK_MAX_CROPS];
	int np = leak_default_crops(pcts, LEAK_MAX_CROPS);
	ck_assert_int_eq(np, 6);
	struct leak_tests lt;
	leak_tests_init(&lt, calib, 1000, pcts, np);
	ck_assert_int_eq(leak_tests_count(&lt), 8);
	char nm[32];
	leak_test_name(&lt, 0, nm, sizeof nm);
	ck_assert_str_eq(nm, "none");
	leak_test_name(&lt, 3, nm, sizeof nm);
	ck_assert_str_eq(nm, "p90");
	leak_test_name(&lt, 7, nm, sizeof nm);
	ck_assert_str_eq(nm, "second-order");
	for (int i = 0; i < 40000; i++) {
		int c = (int)(stats_rng_next(&r) >> 63);
		double out = (stats_rng_next(&r) % 50) == 0 ? 1e6 * (1 + (double)(stats_rng_next(&r) % 100)) : 0;
		leak_tests_add(&lt, c, 1000 + (c ? 3 : 0) + noise(&r, 20) + out);
	}
	ck_assert(fabs(leak_tests_t(&lt, 0)) < 4.5);
	ck_assert(fabs(leak_tests_t(&lt, 3)) > 4.5);
}
END_TEST

START_TEST(test_second_order_sees_spread)
{
	/* Same mean, class 1 twice as spread: first order blind, second order not. */
	stats_rng r;
	stats_rng_seed(&r, 11);
	double calib[1000];
	for (int i = 0; i < 1000; i++)
		calib[i] = 1000 + noise(&r, (i & 1) ? 40 : 20);
	double pcts[1] = { 90 };
	struct leak_tests lt;
	leak_tests_init(&lt, calib, 1000, pcts, 1);
	for (int i = 0; i < 40000; i++) {
		int c = (int)(stats_rng_next(&r) >> 63);
		leak_tests_add(&lt, c, 1000 + noise(&r, c ? 40 : 20) + ((i % 997) == 0 ? 1e7 : 0));
	}
	ck_assert(fabs(leak_tests_t(&lt, 0)) < 4.5);
	ck_assert(leak_tests_t(&lt, 2) < -4.5);
	/* no calibration sample: no crops, no second order */
	leak_tests_init(&lt, NULL, 0, pcts, 1);
	for (int i = 0; i < 1000; i++)
		leak_tests_add(&lt, i & 1, (double)i);
	ck_assert_int_eq(lt.ncrops, 0);
	ck_assert_double_eq(leak_tests_t(&lt, 1), 0);
}
END_TEST

static void trace_of(struct leak_point *p, size_t n, const double *t)
{
	uint64_t at = 500;
	for (size_t k = 0; k < n; k++) {
		memset(&p[k], 0, sizeof p[k]);
		p[k].n = at;
		p[k].t[1] = t[k];
		at = at * 2;
	}
}

static const char *const names[] = { "none", "p90", "second-order" };

static struct leak_contention quiet(void)
{
	struct leak_contention c = { .wall_s = 4, .cpu_s = 3.92, .nivcsw = 3, .kept = 64000, .dropped = 10,
	                             .load_start = 0.5, .load_end = 0.6, .ncpu = 2 };
	return c;
}

START_TEST(test_judge_persistent_leak)
{
	double t[] = { 1.0, 3.0, 5.0, 7.0, 9.5, 13.0, 18.0 };
	struct leak_point p[7];
	trace_of(p, 7, t);
	struct leak_contention c = quiet();
	c.cpu_s = 1;  /* a busy machine does not stop a persistent leak from counting */
	struct leak_judgement j;
	leak_judge(p, 7, 3, names, &c, NULL, NULL, &j);
	ck_assert_int_eq(j.verdict, LEAK_LIKELY);
	ck_assert_int_eq(j.test, 1);
	ck_assert_uint_eq(j.at_n, 2000);
	ck_assert_str_eq(j.text, "leak likely (|t| > 4.5, at 2000 measurements, crop p90)");
}
END_TEST

START_TEST(test_judge_transient_is_inconclusive)
{
	double t[] = { 1.0, 6.0, 2.0, 1.0, 5.0, 4.0, 4.8 };
	struct leak_point p[7];
	trace_of(p, 7, t);
	struct leak_contention c = quiet();
	struct leak_judgement j;
	leak_judge(p, 7, 3, names, &c, NULL, NULL, &j);
	ck_assert_int_eq(j.verdict, LEAK_INCONCLUSIVE);
	ck_assert_msg(strstr(j.text, "inconclusive (machine too noisy: |t| reached 6.0 at 1000 measurements") == j.text,
	              "%s", j.text);
}
END_TEST

START_TEST(test_judge_no_leak_and_noise)
{
	double t[] = { 1.0, -2.0, 0.5, 1.5, -0.3, 0.8, 1.25 };
	struct leak_point p[7];
	trace_of(p, 7, t);
	struct leak_contention c = quiet();
	struct leak_judgement j;
	leak_judge(p, 7, 3, names, &c, NULL, NULL, &j);
	ck_assert_int_eq(j.verdict, LEAK_NOT_DETECTED);
	ck_assert_str_eq(j.text, "no leak detected after 32000 measurements (max |t| = 1.25)");
	c.cpu_s = 1.0;  /* 25% of the wall time: busy, but the test still resolves small differences */
	leak_judge(p, 7, 3, names, &c, NULL, NULL, &j);
	ck_assert_int_eq(j.verdict, LEAK_NOT_DETECTED);
	c.cpu_s = 0.2;  /* 5% */
	leak_judge(p, 7, 3, names, &c, NULL, NULL, &j);
	ck_assert_int_eq(j.verdict, LEAK_INCONCLUSIVE);
	ck_assert_msg(strstr(j.text, "inconclusive (machine too noisy: the measuring process had the CPU 5%") == j.text,
	              "%s", j.text);
	c = quiet();
	c.resolution_share = 0.05;
	leak_judge(p, 7, 3, names, &c, NULL, NULL, &j);
	ck_assert_int_eq(j.verdict, LEAK_INCONCLUSIVE);
	ck_assert_str_eq(j.text, "inconclusive (machine too noisy: differences under 5.0% of the mean time could not be "
	                 "resolved (at most 1.0% needed))");
	c = quiet();
	c.dropped = 32000;
	leak_judge(p, 7, 3, names, &c, NULL, NULL, &j);
	ck_assert_int_eq(j.verdict, LEAK_INCONCLUSIVE);
	ck_assert_ptr_nonnull(strstr(j.text, "interrupted by a context switch"));
	/* too few measurements */
	leak_judge(p, 2, 3, names, &c, NULL, NULL, &j);
	ck_assert_int_eq(j.verdict, LEAK_INCONCLUSIVE);
	ck_assert_str_eq(j.text, "inconclusive (too few measurements: 1000, at least 2000 needed)");
	leak_judge(NULL, 0, 3, names, &c, NULL, NULL, &j);
	ck_assert_int_eq(j.verdict, LEAK_INCONCLUSIVE);
	char buf[320];
	c = quiet();
	leak_contention_text(&c, buf, sizeof buf);
	ck_assert_str_eq(buf, "3 involuntary context switches (0.0% of measurements dropped), CPU 98% of wall time, "
	                 "load average 0.5 to 0.6 (2 CPUs)");
}
END_TEST

START_TEST(test_effects)
{
	/* Class 1 slower by 5 units (sd 50): the effect is about -5 with a 95% interval that holds it. */
	stats_rng r;
	stats_rng_seed(&r, 3);
	struct leak_welch w = { 0 };
	for (int i = 0; i < 200000; i++) {
		int c = (int)(stats_rng_next(&r) >> 63);
		leak_welch_add(&w, c, 1000 + (c ? 5 : 0) + noise(&r, 50));
	}
	struct leak_effect e = leak_welch_effect(&w);
	ck_assert(e.se > 0.1 && e.se < 0.4);
	ck_assert_msg(fabs(e.diff + 5) < 4 * e.se, "effect %g se %g", e.diff, e.se);
	/* the interval and t agree: t = diff / se */
	ck_assert(fabs(leak_welch_t(&w) - e.diff / e.se) < 1e-9);
	struct leak_welch few = { 0 };
	leak_welch_add(&few, 0, 1);
	ck_assert_double_eq(leak_welch_effect(&few).se, 0);
	/* second order: class 1 twice as spread, RMS deviations about 20 and 40 */
	double calib[1000];
	for (int i = 0; i < 1000; i++)
		calib[i] = 1000 + noise(&r, 30);
	double pcts[1] = { 90 };
	struct leak_tests lt;
	leak_tests_init(&lt, calib, 1000, pcts, 1);
	for (int i = 0; i < 100000; i++) {
		int c = (int)(stats_rng_next(&r) >> 63);
		leak_tests_add(&lt, c, 1000 + noise(&r, c ? 40 : 20));
	}
	struct leak_effect so = leak_tests_effect(&lt, 2);
	ck_assert_msg(so.diff < -10 && so.diff > -25 && so.se > 0, "second order %g (se %g)", so.diff, so.se);
	/* the floor: the larger of the units and the share of the mean */
	struct leak_floor f = { LEAK_FLOOR_UNITS, LEAK_FLOOR_SHARE };
	ck_assert_double_eq(leak_floor_at(&f, 770), 1);
	ck_assert(fabs(leak_floor_at(&f, 10000) - 5) < 1e-9);
	char bad[64];
	ck_assert_int_eq(leak_floor_parse("0.1%", &f, bad, sizeof bad), 0);
	ck_assert(fabs(f.share - 0.001) < 1e-12 && f.units == 1);
	ck_assert_int_eq(leak_floor_parse("3,0%", &f, bad, sizeof bad), 0);
	ck_assert(f.units == 3 && f.share == 0);
	ck_assert_int_eq(leak_floor_parse("3,x", &f, bad, sizeof bad), -1);
	ck_assert_str_eq(bad, "x");
	ck_assert_int_eq(leak_floor_parse("150%", &f, bad, sizeof bad), -1);
	ck_assert_int_eq(leak_floor_parse("-1", &f, bad, sizeof bad), -1);
	ck_assert_int_eq(leak_floor_parse("2,", &f, bad, sizeof bad), -1);
	ck_assert(f.units == 3 && f.share == 0);  /* a failed parse leaves the floor alone */
}
END_TEST

/* A trace whose test 1 reaches t[k] at point k (the others stay at 0). */
static struct leak_practical practical(struct leak_effect *eff, double diff, double se, double floor, double ctl)
{
	for (int i = 0; i < 3; i++)
		eff[i] = (struct leak_effect){ 0.01, 0.05 };
	eff[1] = (struct leak_effect){ diff, se };
	struct leak_practical pr = { .effects = eff, .floor = floor, .control_max_t = ctl, .unit = "TSC ticks" };
	return pr;
}

START_TEST(test_judge_practical)
{
	double t[] = { 1.0, 3.0, 5.0, 7.0, 9.5, 13.0, 18.0 };
	struct leak_point p[7];
	trace_of(p, 7, t);
	struct leak_contention c = quiet();
	struct leak_effect eff[3];
	struct leak_judgement j;
	/* Significant and well beyond the floor: a leak, with its effect. */
	struct leak_practical pr = practical(eff, -40, 2, 1, 2.0);
	leak_judge(p, 7, 3, names, &c, NULL, &pr, &j);
	ck_assert_int_eq(j.verdict, LEAK_LIKELY);
	ck_assert_str_eq(j.text, "leak likely (|t| > 4.5, at 2000 measurements, crop p90)");
	ck_assert_int_eq(j.effect_test, 1);
	ck_assert(fabs(j.effect + 40) < 1e-9 && fabs(j.effect_lo - (-40 - LEAK_Z95 * 2)) < 1e-9);
	ck_assert_double_eq(j.threshold, LEAK_T_THRESHOLD);
	/* The same |t| for a difference of 0.1 tick (the harness's bias, not a leak): below the floor. */
	pr = practical(eff, 0.1, 0.02, 1, 2.0);
	leak_judge(p, 7, 3, names, &c, NULL, &pr, &j);
	ck_assert_int_eq(j.verdict, LEAK_BELOW_FLOOR);
	ck_assert_str_eq(leak_verdict_name(j.verdict), "no leak above the floor");
	ck_assert_str_eq(j.text, "no leak above the floor (|t| > 4.5 from 2000 measurements, crop p90, but the whole "
	                 "difference lies within the floor of 1 TSC ticks)");
	/* An interval that straddles the floor: inconclusive. */
	pr = practical(eff, 1.2, 0.25, 1, 2.0);
	leak_judge(p, 7, 3, names, &c, NULL, &pr, &j);
	ck_assert_int_eq(j.verdict, LEAK_INCONCLUSIVE);
	ck_assert_msg(strstr(j.text, "may lie on either side of the floor of 1 TSC ticks") != NULL, "%s", j.text);
	/* The A/A control reached 10: the pair's 13 and 18 over the second half (from 16000) beat it... */
	pr = practical(eff, -40, 2, 1, 10.0);
	leak_judge(p, 7, 3, names, &c, NULL, &pr, &j);
	ck_assert_int_eq(j.verdict, LEAK_LIKELY);
	ck_assert_str_eq(j.text, "leak likely (|t| > 10.0, at 16000 measurements, crop p90)");
	/* ...but a control that reached 15 leaves the pair's 13 as what the harness alone does. */
	pr = practical(eff, -40, 2, 1, 15.0);
	leak_judge(p, 7, 3, names, &c, NULL, &pr, &j);
	ck_assert_int_ne(j.verdict, LEAK_LIKELY);
	ck_assert_double_eq(j.threshold, 15.0);
	/* No significant test: the effect reported is the largest |t|'s, and the verdict is unchanged. */
	double t0[] = { 1.0, -2.0, 0.5, 1.5, -0.3, 0.8, 1.25 };
	trace_of(p, 7, t0);
	pr = practical(eff, 0.3, 0.2, 1, 2.0);
	leak_judge(p, 7, 3, names, &c, NULL, &pr, &j);
	ck_assert_int_eq(j.verdict, LEAK_NOT_DETECTED);
	ck_assert_int_eq(j.effect_test, 1);
	ck_assert(fabs(j.effect - 0.3) < 1e-9);
}
END_TEST

START_TEST(test_pairs)
{
	const struct leak_pair *p[16];
	char bad[64];
	ck_assert_int_eq(leak_pairs_select(PQ_OP_SIGN, NULL, p, 16, bad, sizeof bad), 2);
	ck_assert_str_eq(p[0]->name, "fixed-vs-random-key");
	ck_assert_str_eq(p[1]->name, "fixed-vs-random-message");
	ck_assert_int_eq(leak_pairs_select(PQ_OP_VERIFY, "all", p, 16, bad, sizeof bad), 2);
	ck_assert_int_eq(leak_pairs_select(PQ_OP_VERIFY, "validity", p, 16, bad, sizeof bad), 1);
	ck_assert_int_eq(p[0]->input, LEAK_IN_VALIDITY);
	ck_assert_int_eq(leak_pairs_select(PQ_OP_DEC, NULL, p, 16, bad, sizeof bad), 1);
	ck_assert_str_eq(p[0]->name, "valid-vs-invalid");
	ck_assert_int_eq(leak_pairs_select(PQ_OP_DEC, "fixed-vs-random", p, 16, bad, sizeof bad), 1);
	ck_assert_str_eq(p[0]->name, "fixed-vs-random-ciphertext");
	ck_assert_int_eq(leak_pairs_select(PQ_OP_KEYGEN, "key", p, 16, bad, sizeof bad), 0);
	ck_assert_int_eq(leak_pairs_select(PQ_OP_KEYGEN, "key,seed,seed", p, 16, bad, sizeof bad), 1);
	ck_assert_int_eq(leak_pairs_select(PQ_OP_SIGN, "key,nonsense", p, 16, bad, sizeof bad), -1);
	ck_assert_str_eq(bad, "nonsense");
	ck_assert_ptr_null(leak_pair_find(PQ_OP_ENC, "key"));
	ck_assert_ptr_nonnull(leak_pair_find(PQ_OP_ENC, "fixed-vs-random-seed"));
}
END_TEST

static Suite *leak_suite(void)
{
	Suite *s = suite_create("leak");
	TCase *tc = tcase_create("leak");
	tcase_add_test(tc, test_welch_equal_and_shifted);
	tcase_add_test(tc, test_crops_find_tail_hidden_leak);
	tcase_add_test(tc, test_second_order_sees_spread);
	tcase_add_test(tc, test_judge_persistent_leak);
	tcase_add_test(tc, test_judge_transient_is_inconclusive);
	tcase_add_test(tc, test_judge_no_leak_and_noise);
	tcase_add_test(tc, test_effects);
	tcase_add_test(tc, test_judge_practical);
	tcase_add_test(tc, test_pairs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(leak_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
