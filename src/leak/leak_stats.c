/* leak_stats: Welch t-tests with crops, and the leak verdict; see leak_stats.h. */
#include "config.h"
#include "leak/leak_stats.h"
#include "measure/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

struct leak_effect leak_welch_effect(const struct leak_welch *w)
{
	struct leak_effect e = { 0, 0 };
	if (w->n[0] < LEAK_MIN_PER_CLASS || w->n[1] < LEAK_MIN_PER_CLASS)
		return e;
	double v0 = w->m2[0] / (w->n[0] - 1), v1 = w->m2[1] / (w->n[1] - 1);
	e.diff = w->mean[0] - w->mean[1];
	e.se = sqrt(v0 / w->n[0] + v1 / w->n[1]);
	return e;
}

double leak_floor_at(const struct leak_floor *f, double mean)
{
	double share = f->share * fabs(mean);
	return share > f->units ? share : f->units;
}

int leak_floor_parse(const char *spec, struct leak_floor *f, char *bad, size_t badlen)
{
	struct leak_floor out = *f;
	const char *p = spec;
	do {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char part[64], *stop = NULL;
		snprintf(part, sizeof part, "%.*s", (int)(len < sizeof part ? len : sizeof part - 1), p);
		double v = strtod(part, &stop);
		int pct = stop && *stop == '%' && stop[1] == '\0';
		if (len == 0 || len >= sizeof part || stop == part || (!pct && *stop) || !isfinite(v) || v < 0 ||
		    (pct && v >= 100)) {
			snprintf(bad, badlen, "%.*s", (int)len, p);
			return -1;
		}
		if (pct)
			out.share = v / 100;
		else
			out.units = v;
		p = end ? end + 1 : NULL;
	} while (p);
	*f = out;
	return 0;
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

struct leak_effect leak_tests_effect(const struct leak_tests *lt, int i)
{
	if (i == 0)
		return leak_welch_effect(&lt->raw);
	if (i >= 1 && i <= lt->ncrops)
		return leak_welch_effect(&lt->crop[i - 1]);
	struct leak_effect e = { 0, 0 };
	const struct leak_welch *w = &lt->second;
	if (i != lt->ncrops + 1 || w->n[0] < LEAK_MIN_PER_CLASS || w->n[1] < LEAK_MIN_PER_CLASS)
		return e;
	/* Mean squares to RMS deviations; the standard error by the delta method. */
	struct leak_effect sq = leak_welch_effect(w);
	double r0 = sqrt(w->mean[0] > 0 ? w->mean[0] : 0), r1 = sqrt(w->mean[1] > 0 ? w->mean[1] : 0);
	double s0 = r0 > 0 ? sqrt(w->m2[0] / (w->n[0] - 1) / w->n[0]) / (2 * r0) : 0;
	double s1 = r1 > 0 ? sqrt(w->m2[1] / (w->n[1] - 1) / w->n[1]) / (2 * r1) : 0;
	e.diff = r0 - r1;
	e.se = sq.se > 0 ? sqrt(s0 * s0 + s1 * s1) : 0;
	return e;
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
	case LEAK_BELOW_FLOOR: return "no leak above the floor";
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

/* Index of the first point from which |t| of test i stays above thr. */
static size_t persist_from(const struct leak_point *pts, size_t npts, int i, double thr)
{
	size_t k = npts;
	while (k > 0 && fabs(pts[k - 1].t[i]) > thr)
		k--;
	return k;
}

/* Where the 95% interval of an effect lies against the floor. */
enum floor_side { FLOOR_BEYOND, FLOOR_WITHIN, FLOOR_STRADDLES };

static void interval(const struct leak_practical *pr, int i, double *d, double *lo, double *hi)
{
	struct leak_effect e = pr && pr->effects ? pr->effects[i] : (struct leak_effect){ 0, 0 };
	*d = e.diff;
	*lo = e.diff - LEAK_Z95 * e.se;
	*hi = e.diff + LEAK_Z95 * e.se;
}

static enum floor_side floor_side(const struct leak_practical *pr, int i)
{
	if (!pr || !pr->effects)
		return FLOOR_BEYOND;
	double d, lo, hi;
	interval(pr, i, &d, &lo, &hi);
	if (lo > pr->floor || hi < -pr->floor)
		return FLOOR_BEYOND;
	if (lo >= -pr->floor && hi <= pr->floor)
		return FLOOR_WITHIN;
	return FLOOR_STRADDLES;
}

static void set_effect(struct leak_judgement *out, const struct leak_practical *pr, int i)
{
	out->effect_test = i;
	if (i >= 0)
		interval(pr, i, &out->effect, &out->effect_lo, &out->effect_hi);
}

/*
 * The significant tests: |t| above thr at every point of the second half
 * (two points at least).  Of those, the one of largest final |t| on each
 * side of the floor goes to pick[side]; returns how many were significant.
 */
static int significant(const struct leak_point *pts, size_t npts, int ntests, double thr,
                       const struct leak_practical *pr, int pick[3])
{
	const struct leak_point *last = &pts[npts - 1];
	size_t half = 0;
	while (half < npts && pts[half].n * 2 < last->n)
		half++;
	int count = 0;
	pick[0] = pick[1] = pick[2] = -1;
	for (int i = 0; i < ntests; i++) {
		size_t from = persist_from(pts, npts, i, thr);
		if (!(from <= half && npts - from >= 2))
			continue;
		count++;
		enum floor_side s = floor_side(pr, i);
		if (pick[s] < 0 || fabs(last->t[i]) > fabs(last->t[pick[s]]))
			pick[s] = i;
	}
	return count;
}

void leak_judge(const struct leak_point *pts, size_t npts, int ntests, const char *const *names,
                const struct leak_contention *c, const struct leak_judge_opts *o, const struct leak_practical *pr,
                struct leak_judgement *out)
{
	struct leak_judge_opts def = { .min_measurements = 2000, .min_cpu_share = 0.1, .max_dropped_share = 0.25,
	                               .max_resolution_share = 0.01 };
	if (!o)
		o = &def;
	memset(out, 0, sizeof *out);
	out->test = -1;
	out->effect_test = -1;
	if (ntests > LEAK_MAX_TESTS)
		ntests = LEAK_MAX_TESTS;
	double thr = LEAK_T_THRESHOLD;
	if (pr && pr->control_max_t > thr)
		thr = pr->control_max_t;
	out->threshold = thr;
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
	set_effect(out, pr, best);
	const char *unit = pr && pr->unit ? pr->unit : "units";
	int pick[3];
	if (last && significant(pts, npts, ntests, thr, pr, pick) > 0) {
		int i = pick[FLOOR_BEYOND] >= 0 ? pick[FLOOR_BEYOND] : pick[FLOOR_STRADDLES] >= 0 ? pick[FLOOR_STRADDLES]
		        : pick[FLOOR_WITHIN];
		out->test = i;
		out->at_n = pts[persist_from(pts, npts, i, thr)].n;
		set_effect(out, pr, i);
		const char *nm = names ? names[i] : "?";
		if (i == pick[FLOOR_BEYOND]) {
			out->verdict = LEAK_LIKELY;
			snprintf(out->text, sizeof out->text, "leak likely (|t| > %.1f, at %llu measurements, crop %s)", thr,
			         (unsigned long long)out->at_n, nm);
		} else if (i == pick[FLOOR_STRADDLES]) {
			out->verdict = LEAK_INCONCLUSIVE;
			snprintf(out->text, sizeof out->text, "inconclusive (|t| > %.1f from %llu measurements, crop %s, but "
			         "the difference may lie on either side of the floor of %.3g %s)", thr,
			         (unsigned long long)out->at_n, nm, pr->floor, unit);
		} else {
			out->verdict = LEAK_BELOW_FLOOR;
			snprintf(out->text, sizeof out->text, "no leak above the floor (|t| > %.1f from %llu measurements, "
			         "crop %s, but the whole difference lies within the floor of %.3g %s)", thr,
			         (unsigned long long)out->at_n, nm, pr->floor, unit);
		}
		return;
	}
	char why[320] = "";
	/* Any crossing that did not last. */
	double crossed = 0;
	uint64_t crossed_n = 0;
	for (size_t k = 0; k < npts; k++)
		for (int i = 0; i < ntests; i++)
			if (fabs(pts[k].t[i]) > thr && fabs(pts[k].t[i]) > crossed) {
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
		         (unsigned long long)crossed_n, thr);
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
