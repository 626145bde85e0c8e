/*
 * verdict: the verdicts of paired studies and of trial comparisons, their
 * minimum detectable effects and settle budgets; see verdict.h.
 */
#include "config.h"
#include "measure/verdict.h"

#include <math.h>

#include "measure/stats.h"

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_FASTER: return "faster";
	case VERDICT_SLOWER: return "slower";
	case VERDICT_BELOW_THRESHOLD: return "no effect: below threshold";
	case VERDICT_WITHIN_AA: return "no effect: within A/A spread";
	case VERDICT_NO_CHANGE: return "no significant change";
	case VERDICT_INCONCLUSIVE: return "inconclusive";
	case VERDICT_NEAR_THRESHOLD: return "inconclusive: near the threshold";
	case VERDICT_SEPARATE_RUNS: return "inconclusive: separate runs";
	case VERDICT_TOO_FEW_TRIALS: return "inconclusive: too few trials";
	case VERDICT_NOT_COMPARABLE: return "not comparable";
	case VERDICT_UNKNOWN: return "unknown";
	}
	return "unknown";
}

int verdict_is_effect(enum verdict v)
{
	return v == VERDICT_FASTER || v == VERDICT_SLOWER;
}

double verdict_mde(double se_log, double df)
{
	/* exp() - 1, not expm1(): the figure trial comparisons have always recorded, to the last digit. */
	return exp((stats_t975(df) + stats_t80(df)) * se_log) - 1;
}

/* ---- paired in-process studies ---- */

static int interval_known(const struct paired_estimate *e)
{
	return e && isfinite(e->ratio) && isfinite(e->lo) && isfinite(e->hi);
}

/* The interval excludes 1. */
static int significant(double lo, double hi)
{
	return lo > 1 || hi < 1;
}

/* -1 below the band [down, up], +1 above it, 0 inside. */
static int band_side(double ratio, double down, double up)
{
	return ratio > up ? 1 : ratio < down ? -1 : 0;
}

enum verdict verdict_paired(const struct paired_estimate *vs_base, const struct paired_estimate *vs_aa,
                            double threshold)
{
	const struct paired_estimate *tested = vs_aa ? vs_aa : vs_base;
	if (!interval_known(vs_base) || !interval_known(tested))
		return VERDICT_INCONCLUSIVE;
	if (!(threshold >= 0))
		threshold = 0;
	double up = 1 + threshold, down = 1 / up;
	if (!significant(tested->lo, tested->hi))
		return tested->mde <= threshold ? VERDICT_NO_CHANGE : VERDICT_INCONCLUSIVE;
	int side = band_side(vs_base->ratio, down, up);
	if (side != 0 && band_side(tested->ratio, down, up) == side)
		return side < 0 ? VERDICT_FASTER : VERDICT_SLOWER;
	if (tested->lo >= down && tested->hi <= up)
		return VERDICT_BELOW_THRESHOLD;
	return VERDICT_INCONCLUSIVE;
}

double verdict_settle_factor(const struct paired_estimate *tested, double threshold)
{
	if (!tested || !(threshold > 0) || !isfinite(threshold) || tested->nproc < 2 || !isfinite(tested->se_log) ||
	    !isfinite(tested->mean_log))
		return INFINITY;
	double edge = log1p(threshold);
	int sig = significant(tested->lo, tested->hi);
	double target = sig ? fabs(fabs(tested->mean_log) - edge) : edge;
	if (!(target > 0))
		return INFINITY;
	/* A process mean's variance stays se^2 * n; the sample grows to n'. */
	double unit_var = tested->se_log * tested->se_log * (double)tested->nproc;
	size_t n = paired_processes_needed(unit_var, target, tested->nproc, !sig);
	return n ? (double)n / (double)tested->nproc : INFINITY;
}

double verdict_settle_budget_s(const struct paired_estimate *tested, double threshold, double elapsed_s)
{
	double f = verdict_settle_factor(tested, threshold);
	return isfinite(f) ? elapsed_s * f : INFINITY;
}

/* ---- comparisons of trials ---- */

/* The threshold band [down, up] and whether an interval lies wholly outside a band. */
struct band {
	double down, up;
};

static int clears(const struct verdict_interval *i, struct band b)
{
	return i->hi < b.down || i->lo > b.up;
}

static int point_beyond(double ratio, struct band b)
{
	return ratio < b.down || ratio > b.up;
}

/*
 * What the interval is held against before the separate-runs allowance:
 * the threshold band, widened by the A/A spread unless B is tested against
 * the A/A copy directly.
 */
static struct band aa_band(const struct verdict_trials *t, struct band threshold)
{
	struct band b = threshold;
	if (t->has_aa && !t->has_vs_aa) {
		b.down = fmin(b.down, t->aa_lo);
		b.up = fmax(b.up, t->aa_hi);
	}
	return b;
}

/* Whether B differs beyond what the A/A pair explains: the A/A difference test, else the widened band. */
static int beyond_aa(const struct verdict_trials *t, struct band threshold, struct band widened)
{
	if (!t->has_vs_aa)
		return clears(&t->vs_base, widened);
	return significant(t->vs_aa.lo, t->vs_aa.hi) && point_beyond(t->vs_aa.ratio, threshold);
}

static enum verdict decide_trials(const struct verdict_trials *t, struct band threshold, struct band allowed)
{
	const struct verdict_interval *b = &t->vs_base;
	int beyond_threshold = clears(b, threshold);
	int beyond_copy = beyond_aa(t, threshold, aa_band(t, threshold));
	int effect = t->has_vs_aa ? beyond_copy && point_beyond(b->ratio, threshold) &&
	                            (t->vs_aa.ratio > 1) == (b->ratio > 1) && (t->interleaved || clears(b, allowed))
	                          : clears(b, allowed);
	if (t->not_comparable)
		return VERDICT_NOT_COMPARABLE;
	if (effect)
		return (t->has_vs_aa ? b->ratio < 1 : b->hi < allowed.down) ? VERDICT_FASTER : VERDICT_SLOWER;
	if (!t->interleaved && beyond_copy && beyond_threshold)
		return VERDICT_SEPARATE_RUNS;
	if (t->has_aa && beyond_threshold && !(t->has_vs_aa && beyond_copy))
		return VERDICT_WITHIN_AA;
	if (significant(b->lo, b->hi) && b->lo >= threshold.down && b->hi <= threshold.up)
		return VERDICT_BELOW_THRESHOLD;
	if (significant(b->lo, b->hi))
		return VERDICT_NEAR_THRESHOLD;
	return VERDICT_NO_CHANGE;
}

/* Trials per side that would probably put the interval clear of the nearer band edge. */
static double settle_trials(const struct verdict_trials *t, double se, double df)
{
	double log_ratio = log(t->vs_base.ratio), edge_at = log(1.0 + t->threshold);
	double edge = log_ratio > 0 ? edge_at : -edge_at;
	double gap = fabs(log_ratio - edge);
	if (!(gap > 0 && se > 0))
		return NAN;
	double f = se * stats_t975(df) / gap;
	return ceil(f * f * (double)(t->na > t->nb ? t->na : t->nb));
}

void verdict_of_trials(const struct verdict_trials *t, struct verdict_of_trials *out)
{
	struct band threshold = { 1.0 / (1.0 + t->threshold), 1.0 + t->threshold };
	struct band allowed = t->has_vs_aa ? threshold : aa_band(t, threshold);
	if (!t->interleaved) {
		allowed.down = fmin(allowed.down, 1.0 / t->separate_factor);
		allowed.up = fmax(allowed.up, t->separate_factor);
	}
	out->verdict = decide_trials(t, threshold, allowed);
	out->band_lo = allowed.down;
	out->band_hi = allowed.up;
	out->mde = NAN;
	out->settle_trials = NAN;
	double df = t->interleaved ? (double)t->na - 1 : (double)(t->na + t->nb) - 2;
	if (df < 1)
		df = 1;
	double se = (log(t->vs_base.hi) - log(t->vs_base.lo)) / (2 * stats_t975(df));
	if (!(isfinite(se) && se >= 0))
		return;
	out->mde = verdict_mde(se, df);
	if (out->verdict == VERDICT_NEAR_THRESHOLD)
		out->settle_trials = settle_trials(t, se, df);
}

enum verdict verdict_unmeasured(int not_comparable, size_t na, size_t nb, size_t min_trials)
{
	if (not_comparable)
		return VERDICT_NOT_COMPARABLE;
	return na < min_trials || nb < min_trials ? VERDICT_TOO_FEW_TRIALS : VERDICT_UNKNOWN;
}
