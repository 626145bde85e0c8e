/*
 * test_measure: Check suite for src/measure (statistics, calibration,
 * counter backends, environment).  Asserts on logic only, never on how
 * fast anything ran, and passes both on PMU-less VMs and on lab machines
 * with a hardware PMU.
 */
#include "config.h"
#include "measure/calibrate.h"
#include "measure/counter.h"
#include "measure/env.h"
#include "measure/stats.h"
#include "measure/contention.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EPS 1e-9

/* ---------------- stats ---------------- */

START_TEST(test_mean_min_max)
{
	double x[] = { 4, 1, 3, 2 };
	ck_assert_double_eq_tol(stats_mean(x, 4), 2.5, EPS);
	ck_assert_double_eq(stats_min(x, 4), 1);
	ck_assert_double_eq(stats_max(x, 4), 4);
	/* the input is not reordered */
	ck_assert_double_eq(x[0], 4);
	ck_assert_double_eq(x[3], 2);
	ck_assert(isnan(stats_mean(x, 0)));
	ck_assert(isnan(stats_median(x, 0)));
}
END_TEST

START_TEST(test_median_odd_even)
{
	double odd[] = { 3, 1, 2 };
	double even[] = { 4, 1, 3, 2 };
	double one[] = { 7 };
	ck_assert_double_eq_tol(stats_median(odd, 3), 2, EPS);
	ck_assert_double_eq_tol(stats_median(even, 4), 2.5, EPS);
	ck_assert_double_eq_tol(stats_median(one, 1), 7, EPS);
	ck_assert_double_eq(odd[0], 3);
}
END_TEST

START_TEST(test_quantile_type7)
{
	double x[10];
	for (int i = 0; i < 10; i++)
		x[i] = 10 - i;  /* 10..1, unsorted on purpose */
	/* h = 9 * 0.9 = 8.1: 9 + 0.1 * (10 - 9) */
	ck_assert_double_eq_tol(stats_quantile(x, 10, 0.9), 9.1, EPS);
	ck_assert_double_eq_tol(stats_quantile(x, 10, 0.0), 1, EPS);
	ck_assert_double_eq_tol(stats_quantile(x, 10, 1.0), 10, EPS);
	ck_assert_double_eq_tol(stats_quantile(x, 10, 0.5), 5.5, EPS);
	/* h = 9 * 0.25 = 2.25: 3 + 0.25 */
	ck_assert_double_eq_tol(stats_quantile(x, 10, 0.25), 3.25, EPS);
}
END_TEST

START_TEST(test_stddev_cv)
{
	double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };  /* mean 5, sum of squares 32 */
	double sd = sqrt(32.0 / 7.0);
	ck_assert_double_eq_tol(stats_stddev(x, 8), sd, 1e-12);
	ck_assert_double_eq_tol(stats_cv(x, 8), sd / 5, 1e-12);
	double one[] = { 3 };
	ck_assert_double_eq(stats_stddev(one, 1), 0);
	double zero[] = { 0, 0 };
	ck_assert(isnan(stats_cv(zero, 2)));
}
END_TEST

START_TEST(test_summary)
{
	double x[] = { 5, 1, 4, 2, 3 };
	stats_summary s;
	pq_error err;
	ck_assert_int_eq(stats_summarize(x, 5, &s, &err), 0);
	ck_assert_uint_eq(s.n, 5);
	ck_assert_double_eq_tol(s.mean, 3, EPS);
	ck_assert_double_eq_tol(s.median, 3, EPS);
	ck_assert_double_eq_tol(s.min, 1, EPS);
	ck_assert_double_eq_tol(s.max, 5, EPS);
	ck_assert_double_eq_tol(s.p90, 4.6, EPS);  /* h = 3.6 */
	ck_assert_double_eq_tol(s.stddev, sqrt(2.5), 1e-12);
	ck_assert_double_eq_tol(s.cv, sqrt(2.5) / 3, 1e-12);
	ck_assert_int_eq(stats_summarize(x, 0, &s, &err), -PQ_EINPUT);
	ck_assert(strlen(err.msg) > 0);
}
END_TEST

START_TEST(test_rng_deterministic)
{
	stats_rng a, b;
	stats_rng_seed(&a, 42);
	stats_rng_seed(&b, 42);
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(stats_rng_next(&a), stats_rng_next(&b));
	stats_rng_seed(&b, 43);
	ck_assert_uint_ne(stats_rng_next(&a), stats_rng_next(&b));
	int seen[7] = { 0 };
	for (int i = 0; i < 7000; i++) {
		uint64_t v = stats_rng_below(&a, 7);
		ck_assert_uint_lt(v, 7);
		seen[v]++;
	}
	for (int i = 0; i < 7; i++)
		ck_assert_int_gt(seen[i], 0);
}
END_TEST

/* Synthetic data: b around 100, a = 2 b with independent deterministic noise. */
static void synthetic(double *a, double *b, int n)
{
	stats_rng r;
	stats_rng_seed(&r, 7);
	for (int i = 0; i < n; i++) {
		double nb = (double)(stats_rng_below(&r, 1001)) / 1000.0 - 0.5;  /* [-0.5, 0.5] */
		double na = (double)(stats_rng_below(&r, 1001)) / 1000.0 - 0.5;
		b[i] = 100 + 4 * nb;
		a[i] = 200 + 8 * na;
	}
}

START_TEST(test_bootstrap_mean)
{
	double x[50], dummy[50];
	synthetic(dummy, x, 50);
	stats_interval ci, ci2, ci3;
	pq_error err;
	ck_assert_int_eq(stats_bootstrap_mean_ci(x, 50, 0, STATS_BOOTSTRAP_SEED, &ci, &err), 0);
	ck_assert_double_eq_tol(ci.estimate, stats_mean(x, 50), EPS);
	ck_assert(ci.lo <= ci.estimate && ci.estimate <= ci.hi);
	ck_assert(ci.lo < ci.hi);
	ck_assert(ci.lo > 99 && ci.hi < 101);
	/* same seed, same interval; another seed, (almost surely) another one */
	ck_assert_int_eq(stats_bootstrap_mean_ci(x, 50, 0, STATS_BOOTSTRAP_SEED, &ci2, &err), 0);
	ck_assert(ci.lo == ci2.lo && ci.hi == ci2.hi);
	ck_assert_int_eq(stats_bootstrap_mean_ci(x, 50, 0, 12345, &ci3, &err), 0);
	ck_assert(ci.lo != ci3.lo || ci.hi != ci3.hi);

	double c[] = { 3, 3, 3, 3 };
	ck_assert_int_eq(stats_bootstrap_mean_ci(c, 4, 100, 1, &ci, &err), 0);
	ck_assert_double_eq(ci.lo, 3);
	ck_assert_double_eq(ci.hi, 3);
	ck_assert_int_eq(stats_bootstrap_mean_ci(c, 0, 100, 1, &ci, &err), -PQ_EINPUT);
}
END_TEST

START_TEST(test_bootstrap_ratio)
{
	double a[40], b[40];
	synthetic(a, b, 40);
	stats_interval up, p, p2;
	pq_error err;
	ck_assert_int_eq(stats_bootstrap_ratio_ci(a, 40, b, 40, 0, 2000, 99, &up, &err), 0);
	ck_assert_double_eq_tol(up.estimate, stats_mean(a, 40) / stats_mean(b, 40), EPS);
	ck_assert(up.lo < 2 && 2 < up.hi);  /* contains the true ratio */
	ck_assert(up.hi - up.lo < 0.05);
	ck_assert_int_eq(stats_bootstrap_ratio_ci(a, 40, b, 40, 1, 2000, 99, &p, &err), 0);
	ck_assert(p.lo < 2 && 2 < p.hi);
	ck_assert_int_eq(stats_bootstrap_ratio_ci(a, 40, b, 40, 1, 2000, 99, &p2, &err), 0);
	ck_assert(p.lo == p2.lo && p.hi == p2.hi);
	ck_assert_int_eq(stats_ratio_verdict(&up, 0), STATS_SLOWER);

	/* paired resampling needs pairs; a zero baseline has no ratio */
	ck_assert_int_eq(stats_bootstrap_ratio_ci(a, 40, b, 39, 1, 100, 1, &p, &err), -PQ_EINPUT);
	ck_assert_int_eq(stats_bootstrap_ratio_ci(a, 40, b, 39, 0, 100, 1, &p, &err), 0);
	double z[] = { 0, 0 };
	ck_assert_int_eq(stats_bootstrap_ratio_ci(a, 2, z, 2, 0, 100, 1, &p, &err), -PQ_EINPUT);
}
END_TEST

START_TEST(test_paired_ratio_tighter)
{
	/* Shared per-trial drift cancels when pairs are kept together. */
	double a[30], b[30];
	for (int i = 0; i < 30; i++) {
		double drift = (i % 5) * 20.0;
		b[i] = 100 + drift;
		a[i] = 1.1 * (100 + drift);
	}
	stats_interval up, p;
	ck_assert_int_eq(stats_bootstrap_ratio_ci(a, 30, b, 30, 0, 2000, 5, &up, NULL), 0);
	ck_assert_int_eq(stats_bootstrap_ratio_ci(a, 30, b, 30, 1, 2000, 5, &p, NULL), 0);
	ck_assert_double_eq_tol(p.lo, 1.1, 1e-12);
	ck_assert_double_eq_tol(p.hi, 1.1, 1e-12);
	ck_assert(up.hi - up.lo > p.hi - p.lo);
}
END_TEST

START_TEST(test_proportion)
{
	stats_interval r = stats_proportion_ci(0, 10);
	ck_assert_double_eq(r.estimate, 0);
	ck_assert_double_eq(r.lo, 0);
	ck_assert_double_eq_tol(r.hi, 0.2775, 1e-4);
	r = stats_proportion_ci(5, 10);
	ck_assert_double_eq_tol(r.estimate, 0.5, EPS);
	ck_assert_double_eq_tol(r.lo, 0.2366, 1e-4);
	ck_assert_double_eq_tol(r.hi, 0.7634, 1e-4);
	r = stats_proportion_ci(10, 10);
	ck_assert_double_eq(r.hi, 1);
	ck_assert_double_eq_tol(r.lo, 1 - 0.2775, 1e-4);
	r = stats_proportion_ci(0, 0);
	ck_assert(isnan(r.estimate));
	ck_assert_double_eq(r.lo, 0);
	ck_assert_double_eq(r.hi, 1);
}
END_TEST

START_TEST(test_verdict)
{
	stats_interval f = { 0.85, 0.8, 0.9 }, s = { 1.15, 1.1, 1.2 }, n = { 1, 0.9, 1.1 };
	stats_interval bad = { NAN, NAN, 1 };
	ck_assert_int_eq(stats_ratio_verdict(&f, 0), STATS_FASTER);
	ck_assert_int_eq(stats_ratio_verdict(&s, 0), STATS_SLOWER);
	ck_assert_int_eq(stats_ratio_verdict(&n, 0), STATS_NO_CHANGE);
	ck_assert_int_eq(stats_ratio_verdict(&bad, 0), STATS_UNKNOWN);
	/* within a 15% tolerance, a 10-20% change is not reported */
	ck_assert_int_eq(stats_ratio_verdict(&f, 0.15), STATS_NO_CHANGE);
	ck_assert_int_eq(stats_ratio_verdict(&s, 0.05), STATS_SLOWER);
	ck_assert_str_eq(stats_verdict_name(STATS_FASTER), "faster");
	ck_assert_str_eq(stats_verdict_name(STATS_SLOWER), "slower");
	ck_assert_str_eq(stats_verdict_name(STATS_NO_CHANGE), "no significant change");
}
END_TEST

/* ---------------- calibrate ---------------- */

START_TEST(test_calib_defaults)
{
	calib_params p;
	calib_defaults(&p);
	ck_assert_double_eq(p.target_trial_s, 1.0);
	ck_assert_int_eq(p.min_total_calls, 100);
	ck_assert_int_eq(p.trials, 5);
	ck_assert_int_eq(p.max_iters_per_trial, 20000);
	ck_assert_double_eq(p.max_trial_s, 0);
	/* 10.6 ms keygen: ceil(94.3) = 95 per trial, as in the reference reports */
	ck_assert_int_eq(calib_iterations(0.0106, &p), 95);
	ck_assert_int_eq(calib_iterations(0.00352, &p), 285);
	ck_assert_int_eq(calib_iterations(0.0106, NULL), 95);
}
END_TEST

START_TEST(test_calib_edges)
{
	calib_params p;
	calib_defaults(&p);
	/* very fast: capped */
	ck_assert_int_eq(calib_iterations(1e-9, &p), 20000);
	/* zero, negative, NaN, infinite: too fast to time, so the cap */
	ck_assert_int_eq(calib_iterations(0, &p), 20000);
	ck_assert_int_eq(calib_iterations(-1, &p), 20000);
	ck_assert_int_eq(calib_iterations(NAN, &p), 20000);
	ck_assert_int_eq(calib_iterations(INFINITY, &p), 20);
	/* slower than the target: the minimum of ceil(100 / 5) */
	ck_assert_int_eq(calib_iterations(0.9, &p), 20);
	ck_assert_int_eq(calib_iterations(3.0, &p), 20);
	ck_assert_int_eq(calib_iterations(100.0, &p), 20);
	/* ceil(100 / 3) = 34 */
	p.trials = 3;
	ck_assert_int_eq(calib_iterations(5.0, &p), 34);
	/* the minimum wins over a cap below it */
	calib_defaults(&p);
	p.max_iters_per_trial = 10;
	ck_assert_int_eq(calib_iterations(1e-6, &p), 20);
}
END_TEST

START_TEST(test_calib_op_budget)
{
	/* The reference harness: a 21.4 s keygen, 900 s for the operation -> 5 x 8. */
	calib_params p;
	calib_defaults(&p);
	calib_fit_budget(&p, 21.4, 900);
	ck_assert_int_eq(p.trials, 5);
	ck_assert_int_eq(calib_iterations(21.4, &p), 8);
	/* A fast operation is not touched by a generous budget: still 100 calls at least. */
	calib_defaults(&p);
	calib_fit_budget(&p, 0.01, 900);
	ck_assert_int_eq(p.trials, 5);
	ck_assert_int_eq(calib_iterations(0.01, &p), 100);
	/* Not even one call per trial fits: fewer trials, one call each. */
	calib_defaults(&p);
	calib_fit_budget(&p, 30, 70);
	ck_assert_int_eq(p.trials, 2);
	ck_assert_int_eq(calib_iterations(30, &p), 1);
	calib_defaults(&p);
	calib_fit_budget(&p, 30, 10);
	ck_assert_int_eq(p.trials, 1);
	ck_assert_int_eq(calib_iterations(30, &p), 1);
	/* No budget, or no usable call time: nothing changes. */
	calib_defaults(&p);
	calib_fit_budget(&p, 21.4, 0);
	calib_fit_budget(&p, 0, 900);
	ck_assert_int_eq(p.trials, 5);
	ck_assert(p.max_trial_s == 0);
}
END_TEST

START_TEST(test_calib_budget_and_partial)
{
	calib_params p;
	calib_defaults(&p);
	p.max_trial_s = 180;
	ck_assert_int_eq(calib_iterations(14.2, &p), 12);   /* floor(12.68) */
	ck_assert_int_eq(calib_iterations(1000, &p), 1);     /* never 0 */
	ck_assert_int_eq(calib_iterations(0.5, &p), 20);     /* budget not binding */
	/* a zeroed struct means defaults */
	calib_params z;
	memset(&z, 0, sizeof z);
	ck_assert_int_eq(calib_iterations(0.0106, &z), 95);
	z.target_trial_s = 0.5;
	ck_assert_int_eq(calib_iterations(0.001, &z), 500);
}
END_TEST

/* ---------------- counter ---------------- */

/* Can this thread open a user-space hardware cycles event at all? */
static int raw_pmu_available(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	close((int)fd);
	return 1;
}

static void work(void)
{
	volatile double x = 1;
	for (int i = 0; i < 10000; i++)
		x = x * 1.0000001 + 1e-9;
}

static void check_monotonic(counter_set *cs)
{
	uint64_t prev[COUNTER_MAX_EVENTS], cur[COUNTER_MAX_EVENTS];
	ck_assert_int_eq(counter_set_read(cs, prev), 0);
	for (int i = 0; i < 2000; i++) {
		if (i % 100 == 0)
			work();
		ck_assert_int_eq(counter_set_read(cs, cur), 0);
		for (int e = 0; e < cs->nevents; e++) {
			ck_assert_msg(cur[e] >= prev[e], "%s event %d went backwards: %llu -> %llu",
			              counter_set_backend_name(cs), e, (unsigned long long)prev[e],
			              (unsigned long long)cur[e]);
			prev[e] = cur[e];
		}
	}
	counter_sample s, d;
	ck_assert_int_eq(counter_set_start(cs, &s), 0);
	work();
	ck_assert_int_eq(counter_set_stop(cs, &s, &d), 0);
	ck_assert_uint_gt(d.ns, 0);
	ck_assert_uint_gt(d.v[0], 0);
	ck_assert_uint_lt(d.v[0], UINT64_MAX / 2);  /* no wrap-around */
}

START_TEST(test_backend_names)
{
	const char *const *n = counter_backend_names();
	ck_assert_str_eq(n[0], "perf-rdpmc");
	ck_assert_str_eq(n[1], "perf-read");
	ck_assert_str_eq(n[2], "tsc");
	ck_assert_str_eq(n[3], "clock");
	ck_assert_ptr_null(n[4]);
}
END_TEST

START_TEST(test_clock_backend)
{
	counter_set cs;
	pq_error err;
	ck_assert_int_eq(counter_set_open("cycles", "clock", &cs, &err), 0);
	ck_assert_str_eq(counter_set_backend_name(&cs), "clock");
	ck_assert_str_eq(counter_set_unit(&cs), "ns");
	ck_assert_int_eq(cs.nevents, 1);
	ck_assert_int_eq(counter_set_counts_cycles(&cs), 0);
	ck_assert_double_eq(counter_set_seconds_per_unit(&cs), 1e-9);
	check_monotonic(&cs);
	counter_overhead o;
	ck_assert_int_eq(counter_measure_overhead(&cs, 1000, &o, &err), 0);
	ck_assert(o.ns > 0 && isfinite(o.ns));
	ck_assert(o.units >= 0 && isfinite(o.units));
	counter_set_close(&cs);
	ck_assert_str_eq(counter_set_backend_name(&cs), "none");
	counter_set_close(&cs);  /* closing twice is harmless */
}
END_TEST

START_TEST(test_tsc_backend)
{
	counter_set cs;
	pq_error err;
	int r = counter_set_open("cycles,instructions", "tsc", &cs, &err);
#if defined(__x86_64__) || defined(__i386__)
	ck_assert_int_eq(r, 0);
	ck_assert_str_eq(counter_set_backend_name(&cs), "tsc");
	ck_assert_str_eq(counter_set_unit(&cs), "TSC ticks");
	ck_assert_int_eq(counter_set_counts_cycles(&cs), 0);
	ck_assert_int_eq(cs.nevents, 1);
	ck_assert(cs.tsc_hz > 0);
	ck_assert(counter_set_seconds_per_unit(&cs) > 0);
	/* the extra event is reported as not counted */
	int found = 0;
	for (int i = 0; i < counter_set_reason_count(&cs); i++)
		found |= strstr(counter_set_reason(&cs, i), "instructions") != NULL;
	ck_assert(found);
	char desc[256];
	counter_set_describe(&cs, desc, sizeof desc);
	ck_assert_ptr_nonnull(strstr(desc, "TSC ticks"));
	check_monotonic(&cs);
	counter_overhead o;
	ck_assert_int_eq(counter_measure_overhead(&cs, 1000, &o, &err), 0);
	ck_assert(o.ns > 0 && o.units >= 0);
	counter_set_close(&cs);
#else
	ck_assert_int_eq(r, -PQ_EPERF);
	ck_assert_ptr_nonnull(strstr(err.msg, "tsc"));
#endif
}
END_TEST

/* A perf backend either works and counts cycles, or fails with a reason. */
static void check_perf_backend(const char *name, int must_work)
{
	counter_set cs;
	pq_error err;
	pq_error_clear(&err);
	int r = counter_set_open("cycles", name, &cs, &err);
	if (must_work)
		ck_assert_msg(r == 0, "%s failed although a PMU exists: %s", name, err.msg);
	if (r == 0) {
		ck_assert_str_eq(counter_set_backend_name(&cs), name);
		ck_assert_str_eq(counter_set_unit(&cs), "cycles");
		ck_assert_int_eq(counter_set_counts_cycles(&cs), 1);
		ck_assert_double_eq(counter_set_seconds_per_unit(&cs), 0);
		check_monotonic(&cs);
		counter_set_close(&cs);
	} else {
		ck_assert_int_eq(r, -PQ_EPERF);
		ck_assert_ptr_nonnull(strstr(err.msg, name));
		ck_assert_int_ge(counter_set_reason_count(&cs), 1);
		ck_assert_ptr_nonnull(strstr(counter_set_reason(&cs, 0), name));
		ck_assert_str_eq(counter_set_backend_name(&cs), "none");
	}
}

START_TEST(test_perf_backends)
{
	int pmu = raw_pmu_available();
	check_perf_backend("perf-read", pmu);
	check_perf_backend("perf-rdpmc", 0);  /* rdpmc may be disabled even with a PMU */
}
END_TEST

START_TEST(test_perf_group)
{
	if (!raw_pmu_available())
		return;
	counter_set cs;
	pq_error err;
	ck_assert_msg(counter_set_open("cycles,instructions", "perf-read", &cs, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(cs.nevents, 2);
	ck_assert_str_eq(cs.event_names[1], "instructions");
	check_monotonic(&cs);
	counter_set_close(&cs);
}
END_TEST

START_TEST(test_software_event_label)
{
	/* A software event opens without a PMU where perf is permitted; its
	 * value must then carry its own name, never "cycles". */
	counter_set cs;
	pq_error err;
	if (counter_set_open("task-clock", "perf-read", &cs, &err) != 0)
		return;
	ck_assert_str_eq(counter_set_unit(&cs), "task-clock");
	ck_assert_int_eq(counter_set_counts_cycles(&cs), 0);
	check_monotonic(&cs);
	counter_set_close(&cs);
}
END_TEST

START_TEST(test_auto_selection)
{
	counter_set cs;
	pq_error err;
	ck_assert_int_eq(counter_set_open(NULL, NULL, &cs, &err), 0);
	const char *b = counter_set_backend_name(&cs);
	int perf = strcmp(b, "perf-rdpmc") == 0 || strcmp(b, "perf-read") == 0;
	ck_assert(perf || strcmp(b, "tsc") == 0 || strcmp(b, "clock") == 0);
	/* the label follows the backend: never "cycles" without a PMU */
	ck_assert_int_eq(strcmp(counter_set_unit(&cs), "cycles") == 0, perf);
	if (raw_pmu_available()) {
		ck_assert(perf);
	} else {
		ck_assert(!perf);
		ck_assert_int_ge(counter_set_reason_count(&cs), 2);
	}
	check_monotonic(&cs);
	counter_set_close(&cs);

	ck_assert_int_eq(counter_set_open("cycles", "auto", &cs, &err), 0);
	counter_set_close(&cs);
}
END_TEST

START_TEST(test_bad_requests)
{
	counter_set cs;
	pq_error err;
	ck_assert_int_eq(counter_set_open("cycles", "sundial", &cs, &err), -PQ_EUSAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "sundial"));
	ck_assert_int_eq(counter_set_open("cycles,,instructions", NULL, &cs, &err), -PQ_EUSAGE);
	ck_assert_int_eq(counter_set_open("a,b,c,d,e,f,g,h,i", NULL, &cs, &err), -PQ_EUSAGE);

	/* a name libpfm4 cannot encode: perf fails with that reason, auto falls back */
	ck_assert_int_eq(counter_set_open("no_such_event_xyz", "perf-read", &cs, &err), -PQ_EPERF);
	ck_assert_ptr_nonnull(strstr(err.msg, "no_such_event_xyz"));
	ck_assert_int_eq(counter_set_open("no_such_event_xyz", NULL, &cs, &err), 0);
	ck_assert_str_ne(counter_set_unit(&cs), "cycles");
	ck_assert_str_ne(counter_set_unit(&cs), "no_such_event_xyz");
	int said = 0;
	for (int i = 0; i < counter_set_reason_count(&cs); i++)
		said |= strstr(counter_set_reason(&cs, i), "libpfm4") != NULL;
	ck_assert(said);
	counter_set_close(&cs);
}
END_TEST

/* ---------------- env ---------------- */

static const char *const expected_keys[] = {
	"processor", "cpu", "cpus_allowed", "max_clock", "max_clock_khz", "governor", "turbo", "smt",
	"smt_control", "memory", "memory_mib", "os", "kernel", "machine", "compiler", "cmake",
	"pqprof_version", "start_utc", "end_utc", "hardware_pmu", "hardware_pmu_detail", "rdpmc",
	"perf_event_paranoid", "uprobes", "clocksource", "tsc_flags", "containment", "runner_containment", NULL,
};

START_TEST(test_env_capture_json)
{
	env_info env;
	pq_error err;
	ck_assert_int_eq(env_capture(&env, -1, NULL, &err), 0);
	env_mark_end(&env);
	json_t *o = env_to_json(&env);
	ck_assert_ptr_nonnull(o);
	for (int i = 0; expected_keys[i]; i++) {
		json_t *v = json_object_get(o, expected_keys[i]);
		ck_assert_msg(v != NULL, "key %s missing", expected_keys[i]);
		ck_assert_msg(json_is_integer(v) || (json_is_string(v) && json_string_length(v) > 0),
		              "key %s is empty", expected_keys[i]);
	}
	/* every key the module claims to write is there, and nothing else */
	int nk = 0;
	for (const char *const *k = env_json_keys(); *k; k++, nk++)
		ck_assert_ptr_nonnull(json_object_get(o, *k));
	ck_assert_int_eq(nk, (int)json_object_size(o));
	ck_assert_int_eq(nk, (int)(sizeof expected_keys / sizeof expected_keys[0]) - 1);

	ck_assert_str_eq(env.pqprof_version, PACKAGE_VERSION);
	ck_assert(strcmp(env.hardware_pmu, "yes") == 0 || strcmp(env.hardware_pmu, "no") == 0);
	ck_assert_int_eq(strcmp(env.hardware_pmu, "yes") == 0, raw_pmu_available());
	ck_assert(strcmp(env.uprobes, "yes") == 0 || strcmp(env.uprobes, "no") == 0);
	ck_assert_int_eq(strlen(env.start_utc), 20);
	ck_assert_int_eq(env.start_utc[10], 'T');
	ck_assert_int_eq(env.start_utc[19], 'Z');
	ck_assert_str_ne(env.end_utc, "unknown");

	/* read back what was written */
	env_info back;
	ck_assert_int_eq(env_from_json(o, &back, &err), 0);
	ck_assert_str_eq(back.processor, env.processor);
	ck_assert_str_eq(back.compiler, env.compiler);
	ck_assert_str_eq(back.end_utc, env.end_utc);
	ck_assert_int_eq(back.cpu, env.cpu);
	ck_assert_int_eq(back.memory_mib, env.memory_mib);
	ck_assert_int_eq(back.max_clock_khz, env.max_clock_khz);
	ck_assert_int_eq(back.perf_event_paranoid, env.perf_event_paranoid);
	json_decref(o);
}
END_TEST

START_TEST(test_env_cpu_and_compiler)
{
	env_info env;
	pq_error err;
	ck_assert_int_eq(env_capture(&env, 0, "no-such-compiler-xyz --quiet", &err), 0);
	ck_assert_int_eq(env.cpu, 0);
	ck_assert_str_eq(env.compiler, "unknown");
	ck_assert_str_eq(env.end_utc, "unknown");
	ck_assert_int_eq(env_capture(&env, 100000, NULL, &err), -PQ_EUSAGE);
	/* "sh --version" may fail but must not hang or crash */
	ck_assert_int_eq(env_capture(&env, -1, "sh", &err), 0);
	ck_assert(env.compiler[0] != '\0');
}
END_TEST

static void good_env(env_info *e)
{
	memset(e, 0, sizeof *e);
	strcpy(e->processor, "Test CPU");
	strcpy(e->cpus_allowed, "2");
	e->cpu = 2;
	e->max_clock_khz = 2100000;
	strcpy(e->max_clock, "2.10 GHz");
	strcpy(e->governor, "performance");
	strcpy(e->turbo, "off");
	strcpy(e->smt, "off");
	strcpy(e->smt_control, "off");
	e->memory_mib = 31788;
	strcpy(e->memory, "31788 MiB");
	strcpy(e->os, "Debian GNU/Linux 13 (trixie)");
	strcpy(e->kernel, "6.12.107+deb13-amd64");
	strcpy(e->machine, "x86_64");
	strcpy(e->compiler, "gcc (Debian 14.2.0-19) 14.2.0");
	strcpy(e->cmake, "cmake version 3.31.6");
	strcpy(e->pqprof_version, "0.1.0");
	strcpy(e->start_utc, "2026-09-25T10:02:21Z");
	strcpy(e->end_utc, "2026-09-28T10:51:21Z");
	strcpy(e->hardware_pmu, "yes");
	strcpy(e->hardware_pmu_detail, "ok");
	strcpy(e->rdpmc, "yes");
	e->perf_event_paranoid = 2;
	strcpy(e->uprobes, "yes");
	strcpy(e->clocksource, "tsc");
	strcpy(e->tsc_flags, "constant_tsc nonstop_tsc");
	strcpy(e->containment, "PID namespace, scratch working directory, as the calling user");
	strcpy(e->runner_containment, "private /tmp, /var/tmp and /dev/shm, the rest read-only");
}

START_TEST(test_env_warnings)
{
	env_info e;
	char w[ENV_MAX_WARNINGS][ENV_WARNING_LEN];
	good_env(&e);
	ck_assert_int_eq(env_warnings(&e, w, ENV_MAX_WARNINGS), 0);

	strcpy(e.turbo, "on");
	strcpy(e.governor, "powersave");
	strcpy(e.smt, "on");
	strcpy(e.hardware_pmu, "no");
	e.cpu = -1;
	int n = env_warnings(&e, w, ENV_MAX_WARNINGS);
	ck_assert_int_eq(n, 5);
	const char *want[] = { "turbo", "powersave", "SMT", "not cycles", "not pinned" };
	for (int i = 0; i < 5; i++) {
		int hit = 0;
		for (int j = 0; j < n; j++)
			hit |= strstr(w[j], want[i]) != NULL;
		ck_assert_msg(hit, "no warning mentions '%s'", want[i]);
	}
	ck_assert_int_eq(env_warnings(&e, w, 2), 2);

	/* unknown is not a warning: VMs have no cpufreq */
	good_env(&e);
	strcpy(e.governor, "unknown");
	strcpy(e.turbo, "unknown");
	ck_assert_int_eq(env_warnings(&e, w, ENV_MAX_WARNINGS), 0);

	if (geteuid() != 0) {
		good_env(&e);
		e.perf_event_paranoid = 3;
		ck_assert_int_eq(env_warnings(&e, w, ENV_MAX_WARNINGS), 1);
		ck_assert_ptr_nonnull(strstr(w[0], "perf_event_paranoid"));
	}
}
END_TEST

START_TEST(test_env_table)
{
	env_info e;
	env_row rows[ENV_MAX_ROWS];
	good_env(&e);
	int n = env_table(&e, rows, ENV_MAX_ROWS);
	ck_assert_int_ge(n, ENV_REPORT_ROWS);
	const char *items[] = { "processor", "clock", "memory", "OS / kernel", "compiler / build tool",
	                        "campaign start / end (UTC)" };
	for (int i = 0; i < ENV_REPORT_ROWS; i++)
		ck_assert_str_eq(rows[i].item, items[i]);
	ck_assert_str_eq(rows[0].value, "Test CPU (CPU 2, one core)");
	ck_assert_str_eq(rows[1].value, "max 2.10 GHz, governor performance, turbo off, SMT off");
	ck_assert_str_eq(rows[2].value, "31788 MiB");
	ck_assert_str_eq(rows[3].value, "Debian GNU/Linux 13 (trixie) / 6.12.107+deb13-amd64");
	ck_assert_str_eq(rows[4].value, "gcc (Debian 14.2.0-19) 14.2.0 / cmake version 3.31.6");
	ck_assert_str_eq(rows[5].value, "2026-09-25T10:02:21Z / 2026-09-28T10:51:21Z");
	ck_assert_int_eq(env_table(&e, rows, 3), 3);

	json_t *o = env_to_json(&e);
	env_info back;
	ck_assert_int_eq(env_from_json(o, &back, NULL), 0);
	ck_assert_int_eq(memcmp(&back, &e, sizeof e), 0);
	json_decref(o);
	ck_assert_int_eq(env_from_json(NULL, &back, NULL), -PQ_EINPUT);
}

/* The contention rule: each threshold alone flags a trial; a quiet trial is not flagged. */
START_TEST(test_contention_rule)
{
	char why[256];
	json_t *quiet = json_pack("{s:f, s:f, s:f, s:i, s:f}", "wall_s", 1.0, "cpu_s", 0.99, "cpu_wall", 0.99,
	                          "involuntary_switches", 3, "steal_s", 0.0);
	ck_assert_int_eq(contention_judge(quiet, why, sizeof why), 0);
	ck_assert_str_eq(why, "");
	json_t *slow = json_pack("{s:f, s:f, s:i, s:f}", "wall_s", 1.0, "cpu_wall", 0.72, "involuntary_switches", 0,
	                         "steal_s", 0.0);
	ck_assert_int_eq(contention_judge(slow, why, sizeof why), 1);
	ck_assert_msg(strstr(why, "cpu/wall 0.72") != NULL, "%s", why);
	json_t *pre = json_pack("{s:f, s:f, s:i, s:f}", "wall_s", 0.5, "cpu_wall", 0.95, "involuntary_switches", 40,
	                        "steal_s", 0.0);
	ck_assert_int_eq(contention_judge(pre, why, sizeof why), 1);
	ck_assert_msg(strstr(why, "80 involuntary switches/s") != NULL, "%s", why);
	/* one stray switch in a short trial is not contention */
	json_t *one = json_pack("{s:f, s:o, s:i, s:o}", "wall_s", 0.01, "cpu_wall", json_null(), "involuntary_switches", 1,
	                        "steal_s", json_null());
	ck_assert_int_eq(contention_judge(one, why, sizeof why), 0);
	json_t *st = json_pack("{s:f, s:f, s:i, s:f}", "wall_s", 1.0, "cpu_wall", 0.99, "involuntary_switches", 0,
	                       "steal_s", 0.02);
	ck_assert_int_eq(contention_judge(st, why, sizeof why), 1);
	ck_assert_msg(strstr(why, "steal") != NULL, "%s", why);
	json_decref(quiet);
	json_decref(slow);
	json_decref(pre);
	json_decref(one);
	json_decref(st);
	/* evidence from two real snapshots has every field */
	struct contention_snap a, b;
	contention_snap_take(&a);
	volatile double x = 0;
	for (int i = 0; i < 1000000; i++)
		x += i;
	contention_snap_take(&b);
	json_t *ev = contention_evidence(&a, &b);
	ck_assert(json_number_value(json_object_get(ev, "wall_s")) > 0);
	ck_assert(json_is_integer(json_object_get(ev, "involuntary_switches")));
	ck_assert(json_is_integer(json_object_get(ev, "cpu_start")));
	ck_assert(json_object_get(ev, "loadavg_1m") != NULL);
	json_decref(ev);
}
END_TEST

END_TEST

static Suite *measure_suite(void)
{
	Suite *s = suite_create("measure");
	TCase *st = tcase_create("stats");
	tcase_add_test(st, test_mean_min_max);
	tcase_add_test(st, test_contention_rule);
	tcase_add_test(st, test_median_odd_even);
	tcase_add_test(st, test_quantile_type7);
	tcase_add_test(st, test_stddev_cv);
	tcase_add_test(st, test_summary);
	tcase_add_test(st, test_rng_deterministic);
	tcase_add_test(st, test_bootstrap_mean);
	tcase_add_test(st, test_bootstrap_ratio);
	tcase_add_test(st, test_paired_ratio_tighter);
	tcase_add_test(st, test_proportion);
	tcase_add_test(st, test_verdict);
	suite_add_tcase(s, st);

	TCase *ca = tcase_create("calibrate");
	tcase_add_test(ca, test_calib_defaults);
	tcase_add_test(ca, test_calib_edges);
	tcase_add_test(ca, test_calib_budget_and_partial);
	tcase_add_test(ca, test_calib_op_budget);
	suite_add_tcase(s, ca);

	TCase *co = tcase_create("counter");
	tcase_add_test(co, test_backend_names);
	tcase_add_test(co, test_clock_backend);
	tcase_add_test(co, test_tsc_backend);
	tcase_add_test(co, test_perf_backends);
	tcase_add_test(co, test_perf_group);
	tcase_add_test(co, test_software_event_label);
	tcase_add_test(co, test_auto_selection);
	tcase_add_test(co, test_bad_requests);
	suite_add_tcase(s, co);

	TCase *en = tcase_create("env");
	tcase_set_timeout(en, 60);
	tcase_add_test(en, test_env_capture_json);
	tcase_add_test(en, test_env_cpu_and_compiler);
	tcase_add_test(en, test_env_warnings);
	tcase_add_test(en, test_env_table);
	suite_add_tcase(s, en);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(measure_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
