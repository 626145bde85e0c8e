/* leak_stats: Welch t-tests with crops, and the leak verdict; see leak_stats.h. */
#include "config.h"
#include "leak/leak_stats.h"
#include "measure/stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void leak_welch_add(struct leak_welch *w, int cls, double x)
{
	cls = cls ? 1 : 0;
	w->n[cls] += 1;
	double d = x - w->mean[cls];
	w->mean[cls] += d / w->n[cls];
	w->m2[cls] += d * (x - w->mean[cls]);
}

double leak_welch_t(const struct leak_welch *w)
{
	if (w->n[0] < LEAK_MIN_PER_CLASS || w->n[1] < LEAK_MIN_PER_CLASS)
		return 0;
	double v0 = w->m2[0] / (w->n[0] - 1), v1 = w->m2[1] / (w->n[1] - 1);
	double se = sqrt(v0 / w->n[0] + v1 / w->n[1]);
	if (!(se > 0))
		return 0;
	return (w->mean[0] - w->mean[1]) / se;
}

double leak_welch_resolution(const struct leak_welch *w)
{
	if (w->n[0] < LEAK_MIN_PER_CLASS || w->n[1] < LEAK_MIN_PER_CLASS)
		return 0;
	double v0 = w->m2[0] / (w->n[0] - 1), v1 = w->m2[1] / (w->n[1] - 1);
	return LEAK_T_THRESHOLD * sqrt(v0 / w->n[0] + v1 / w->n[1]);
}

int leak_default_crops(double *pcts, int max)
{
	static const double def[] = { 50, 75, 90, 95, 99, 99.9 };
	int n = 0;
	for (size_t i = 0; i < sizeof def / sizeof def[0] && n < max; i++)
		pcts[n++] = def[i];
	return n;
}

void leak_tests_init(struct leak_tests *lt, const double *calib, size_t ncalib, const double *pcts, int npcts)
{
	memset(lt, 0, sizeof *lt);
	lt->second_cap = -INFINITY;  /* no calibration: no second-order test */
	if (ncalib == 0)
		return;
	lt->second_centre = stats_median(calib, ncalib);
	lt->second_cap = stats_quantile(calib, ncalib, LEAK_SECOND_ORDER_PCT / 100.0);
	for (int i = 0; i < npcts && lt->ncrops < LEAK_MAX_CROPS; i++) {
		if (!(pcts[i] > 0 && pcts[i] < 100))
			continue;
		lt->crop_pct[lt->ncrops] = pcts[i];
		lt->crop_at[lt->ncrops] = stats_quantile(calib, ncalib, pcts[i] / 100.0);
		lt->ncrops++;
	}
}

void leak_tests_add(struct leak_tests *lt, int cls, double x)
{
	cls = cls ? 1 : 0;
	lt->n++;
	if (x <= lt->second_cap) {
		double d = x - lt->second_centre;
		leak_welch_add(&lt->second, cls, d * d);
	}
	leak_welch_add(&lt->raw, cls, x);
	for (int i = 0; i < lt->ncrops; i++)
		if (x <= lt->crop_at[i])
			leak_welch_add(&lt->crop[i], cls, x);
}

int leak_tests_count(const struct leak_tests *lt)
{
	return lt->ncrops + 2;
}

double leak_tests_t(const struct leak_tests *lt, int i)
{
	if (i == 0)
		return leak_welch_t(&lt->raw);
	if (i >= 1 && i <= lt->ncrops)
		return leak_welch_t(&lt->crop[i - 1]);
	if (i == lt->ncrops + 1)
		return leak_welch_t(&lt->second);
	return 0;
}

double leak_tests_resolution(const struct leak_tests *lt, int i)
{
	if (i == 0)
		return leak_welch_resolution(&lt->raw);
	if (i >= 1 && i <= lt->ncrops)
		return leak_welch_resolution(&lt->crop[i - 1]);
	if (i == lt->ncrops + 1)
		return leak_welch_resolution(&lt->second);
	return 0;
}

void leak_test_name(const struct leak_tests *lt, int i, char *buf, size_t len)
{
	if (i == 0)
		snprintf(buf, len, "none");
	else if (i >= 1 && i <= lt->ncrops)
		snprintf(buf, len, "p%g", lt->crop_pct[i - 1]);
	else
		snprintf(buf, len, "second-order");
}

const char *leak_verdict_name(enum leak_verdict v)
{
	switch (v) {
	case LEAK_LIKELY: return "leak likely";
	case LEAK_INCONCLUSIVE: return "inconclusive";
	default: return "no leak detected";
	}
}

void leak_contention_text(const struct leak_contention *c, char *buf, size_t len)
{
	uint64_t all = c->kept + c->dropped;
	double drop = all ? 100.0 * (double)c->dropped / (double)all : 0;
	double share = c->wall_s > 0 ? 100.0 * c->cpu_s / c->wall_s : NAN;
	snprintf(buf, len, "%ld involuntary context switches (%.1f%% of measurements dropped), CPU %.0f%% of wall "
	         "time, load average %.1f to %.1f (%d CPUs)", c->nivcsw, drop, share, c->load_start, c->load_end,
	         c->ncpu);
}

/* Index of the first point from which |t| of test i stays above the threshold. */
static size_t persist_from(const struct leak_point *pts, size_t npts, int i)
{
	size_t k = npts;
	while (k > 0 && fabs(pts[k - 1].t[i]) > LEAK_T_THRESHOLD)
		k--;
	return k;
}

void leak_judge(const struct leak_point *pts, size_t npts, int ntests, const char *const *names,
                const struct leak_contention *c, const struct leak_judge_opts *o, struct leak_judgement *out)
{
	struct leak_judge_opts def = { .min_measurements = 2000, .min_cpu_share = 0.1, .max_dropped_share = 0.25,
	                               .max_resolution_share = 0.01 };
	if (!o)
		o = &def;
	memset(out, 0, sizeof *out);
	out->test = -1;
	if (ntests > LEAK_MAX_TESTS)
		ntests = LEAK_MAX_TESTS;
	const struct leak_point *last = npts ? &pts[npts - 1] : NULL;
	out->n = last ? last->n : 0;
	int best = -1;
	for (int i = 0; last && i < ntests; i++) {
		double a = fabs(last->t[i]);
		if (isfinite(a) && a > out->max_t) {
			out->max_t = a;
			best = i;
		}
	}
	/* A leak: the strongest test stayed above the threshold over the second half. */
	int persistent = 0;
	if (best >= 0 && out->max_t > LEAK_T_THRESHOLD) {
		size_t from = persist_from(pts, npts, best);
		size_t half = 0;
		while (half < npts && pts[half].n * 2 < out->n)
			half++;
		persistent = from <= half && npts - from >= 2;
		if (persistent) {
			out->verdict = LEAK_LIKELY;
			out->test = best;
			out->at_n = pts[from].n;
			snprintf(out->text, sizeof out->text, "leak likely (|t| > %.1f, at %llu measurements, crop %s)",
			         LEAK_T_THRESHOLD, (unsigned long long)out->at_n, names ? names[best] : "?");
			return;
		}
	}
	char why[320] = "";
	/* Any crossing that did not last. */
	double crossed = 0;
	uint64_t crossed_n = 0;
	for (size_t k = 0; k < npts; k++)
		for (int i = 0; i < ntests; i++)
			if (fabs(pts[k].t[i]) > LEAK_T_THRESHOLD && fabs(pts[k].t[i]) > crossed) {
				crossed = fabs(pts[k].t[i]);
				crossed_n = pts[k].n;
			}
	uint64_t all = c ? c->kept + c->dropped : 0;
	if (out->n < o->min_measurements) {
		out->verdict = LEAK_INCONCLUSIVE;
		snprintf(out->text, sizeof out->text, "inconclusive (too few measurements: %llu, at least %llu needed)",
		         (unsigned long long)out->n, (unsigned long long)o->min_measurements);
		return;
	}
	if (crossed > 0)
		snprintf(why, sizeof why, "|t| reached %.1f at %llu measurements but did not stay above %.1f", crossed,
		         (unsigned long long)crossed_n, LEAK_T_THRESHOLD);
	else if (c && c->wall_s > 0 && c->cpu_s / c->wall_s < o->min_cpu_share)
		snprintf(why, sizeof why, "the measuring process had the CPU %.0f%% of the time (at least %.0f%% needed)",
		         100.0 * c->cpu_s / c->wall_s, 100.0 * o->min_cpu_share);
	else if (c && c->resolution_share > o->max_resolution_share)
		snprintf(why, sizeof why, "differences under %.1f%% of the mean time could not be resolved (at most "
		         "%.1f%% needed)", 100.0 * c->resolution_share, 100.0 * o->max_resolution_share);
	else if (c && all && (double)c->dropped / (double)all > o->max_dropped_share)
		snprintf(why, sizeof why, "%.0f%% of measurements were interrupted by a context switch (at most %.0f%%)",
		         100.0 * (double)c->dropped / (double)all, 100.0 * o->max_dropped_share);
	if (why[0]) {
		out->verdict = LEAK_INCONCLUSIVE;
		snprintf(out->text, sizeof out->text, "inconclusive (machine too noisy: %s)", why);
		return;
	}
	out->verdict = LEAK_NOT_DETECTED;
	snprintf(out->text, sizeof out->text, "no leak detected after %llu measurements (max |t| = %.2f)",
	         (unsigned long long)out->n, out->max_t);
}
