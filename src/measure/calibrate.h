/*
 * calibrate: how many calls of an operation make one trial, given the time
 * of one calibration call.  A pure function of its inputs, so the rule the
 * reports rely on (trials x iterations, at least ~100 calls, trials of about
 * a target time) is stated once and tested.  Running the calls and timing
 * them is the caller's job.
 */
#ifndef PQ_MEASURE_CALIBRATE_H
#define PQ_MEASURE_CALIBRATE_H

typedef struct calib_params {
	double target_trial_s;    /* wanted duration of one trial (default 1.0 s) */
	long min_total_calls;     /* at least this many calls over all trials (100) */
	int trials;               /* number of trials (5) */
	long max_iters_per_trial; /* cap for very fast operations (20000) */
	/*
	 * Optional wall-time budget for one trial (0 = none, the default).
	 * When set, a very slow operation gets fewer iterations than the
	 * minimum so that trials x iterations x call time stays near
	 * trials x max_trial_s, but never fewer than 1.  The reference
	 * reports behave like max_trial_s = 180 (e.g. 5 x 12 calls of 14 s).
	 */
	double max_trial_s;
} calib_params;

void calib_defaults(calib_params *p);

/*
 * Iterations per trial for an operation whose calibration call took
 * call_s seconds:
 *   ceil(target_trial_s / call_s), raised to ceil(min_total_calls / trials)
 *   and then capped at max_iters_per_trial (the minimum wins over the cap);
 *   a zero, negative or NaN call_s (too fast for the clock) gives the cap,
 *   an infinite one the minimum; then max_trial_s, if set, lowers it as
 *   described above.
 * Zero or out-of-range parameters are treated as their defaults, so a
 * partly filled struct works.  Always >= 1.
 */
long calib_iterations(double call_s, const calib_params *p);

/*
 * An operation budget: all trials of an operation whose call takes call_s
 * seconds should fit budget_s.  Sets p->max_trial_s to budget_s / trials
 * (so calib_iterations gives fewer calls per trial to an operation of
 * seconds: a 21 s keygen with 900 s gets 5 x 8), and when not even one
 * call per trial fits, lowers p->trials (never below 1).  A budget or
 * call_s that is not positive changes nothing.
 */
void calib_fit_budget(calib_params *p, double call_s, double budget_s);

#endif
