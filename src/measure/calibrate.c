/* calibrate: iterations per trial from one calibration call; see calibrate.h. */
#include "config.h"
#include "measure/calibrate.h"

#include <math.h>

#define DEFAULT_TARGET_S 1.0
#define DEFAULT_MIN_CALLS 100
#define DEFAULT_TRIALS 5
#define DEFAULT_MAX_ITERS 20000

void calib_defaults(calib_params *p)
{
	p->target_trial_s = DEFAULT_TARGET_S;
	p->min_total_calls = DEFAULT_MIN_CALLS;
	p->trials = DEFAULT_TRIALS;
	p->max_iters_per_trial = DEFAULT_MAX_ITERS;
	p->max_trial_s = 0;
}

long calib_iterations(double call_s, const calib_params *in)
{
	calib_params p;
	calib_defaults(&p);
	if (in) {
		if (in->target_trial_s > 0 && isfinite(in->target_trial_s))
			p.target_trial_s = in->target_trial_s;
		if (in->min_total_calls >= 1)
			p.min_total_calls = in->min_total_calls;
		if (in->trials >= 1)
			p.trials = in->trials;
		if (in->max_iters_per_trial >= 1)
			p.max_iters_per_trial = in->max_iters_per_trial;
		if (in->max_trial_s > 0 && isfinite(in->max_trial_s))
			p.max_trial_s = in->max_trial_s;
	}
	long min_iters = (p.min_total_calls + p.trials - 1) / p.trials;
	if (min_iters < 1)
		min_iters = 1;

	long iters;
	if (!(call_s > 0)) {
		iters = p.max_iters_per_trial;  /* zero, negative or NaN: too fast to time */
	} else if (isinf(call_s)) {
		iters = min_iters;
	} else {
		double want = ceil(p.target_trial_s / call_s);
		iters = want >= (double)p.max_iters_per_trial ? p.max_iters_per_trial : (long)want;
	}
	if (iters < min_iters)
		iters = min_iters;

	if (p.max_trial_s > 0 && call_s > 0 && isfinite(call_s)) {
		double budget = floor(p.max_trial_s / call_s);
		if (budget < 1)
			budget = 1;
		if ((double)iters > budget)
			iters = (long)budget;
	}
	return iters < 1 ? 1 : iters;
}

void calib_fit_budget(calib_params *p, double call_s, double budget_s)
{
	if (!(budget_s > 0) || !(call_s > 0) || !isfinite(budget_s) || !isfinite(call_s))
		return;
	if (p->trials < 1)
		p->trials = DEFAULT_TRIALS;
	double fit = floor(budget_s / call_s);
	if (fit < p->trials)
		p->trials = fit < 1 ? 1 : (int)fit;
	p->max_trial_s = budget_s / p->trials;
}
