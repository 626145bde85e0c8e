/*
 * leak_stats: the statistics of the timing-leak smoke test, as pure
 * functions: Welch's t-test between two classes of measurements, kept
 * online (Welford) for the uncropped data, for several upper-tail crops
 * and for a second-order (variance) test; and the verdict drawn from the
 * t statistics tracked over increasing numbers of measurements together
 * with the evidence of contention on the machine.
 *
 * The method is the fixed-vs-random test of "dude, is my code constant
 * time?" (Reparaz, Balasch, Verbauwhede, 2017): two classes of inputs,
 * interleaved at random, each call timed; a |t| above 4.5 that persists
 * as measurements accumulate says the classes take different times.
 * Random interleaving makes noise hit both classes alike, so noise costs
 * power (a leak goes unseen) but does not fake a difference; the verdict
 * is asymmetric for that reason: a persistent |t| > 4.5 is a likely leak
 * whatever the load, while "no leak detected" needs a quiet enough
 * machine and enough measurements, else the verdict is "inconclusive".
 *
 * Two guards keep a confident wrong "leak likely" out: an A/A control
 * (two classes drawn the same way, interleaved with the pair; its |t| is
 * what the harness and the machine alone reach) raises the threshold to
 * its largest |t|, and a practical floor: with enough measurements any
 * systematic bias crosses 4.5, so a leak must also be a difference of
 * means whose 95% interval lies beyond the floor (by default one counter
 * unit or 0.05% of the mean, whichever is larger).
 *
 * Nothing here measures or prints.
 */
#ifndef PQ_LEAK_STATS_H
#define PQ_LEAK_STATS_H

#include <stddef.h>
#include <stdint.h>

#define LEAK_T_THRESHOLD 4.5
#define LEAK_MAX_CROPS 8
/* uncropped + crops + second order */
#define LEAK_MAX_TESTS (LEAK_MAX_CROPS + 2)
/* A test's t counts only once both classes have this many measurements. */
#define LEAK_MIN_PER_CLASS 200
/* The second-order test looks at values up to this percentile of the calibration sample. */
#define LEAK_SECOND_ORDER_PCT 95.0

/* Welch accumulators for two classes (0 and 1). */
struct leak_welch {
	double n[2], mean[2], m2[2];
};

void leak_welch_add(struct leak_welch *w, int cls, double x);
/* Welch's t of class 0 against class 1; 0 while a class has < LEAK_MIN_PER_CLASS. */
double leak_welch_t(const struct leak_welch *w);
/*
 * The smallest difference of class means that would reach the threshold
 * with the data so far: LEAK_T_THRESHOLD standard errors (the test's
 * resolution); 0 while a class has < LEAK_MIN_PER_CLASS.
 */
double leak_welch_resolution(const struct leak_welch *w);

/* The practical size of a difference: class 0 minus class 1, with its standard error. */
struct leak_effect {
	double diff;  /* counter units; second order: difference of RMS deviations */
	double se;    /* standard error of diff; 0 while unknown */
};

/* The difference of class means and its standard error; {0, 0} while a class has < LEAK_MIN_PER_CLASS. */
struct leak_effect leak_welch_effect(const struct leak_welch *w);

/*
 * The tests of one class pair: test 0 is uncropped, tests 1..ncrops keep
 * only measurements at or below a percentile of a calibration sample
 * (both classes pooled), the last test is second order: the squared
 * deviation from the calibration sample's median, of every measurement at
 * or below its 95th percentile.  A fixed centre and the cap keep a few
 * huge outliers (interrupts, a busy machine) from dominating the squares,
 * as they would with a running class mean.
 */
struct leak_tests {
	int ncrops;
	double crop_pct[LEAK_MAX_CROPS];  /* percentiles, e.g. 90 */
	double crop_at[LEAK_MAX_CROPS];   /* thresholds in counter units */
	struct leak_welch raw, crop[LEAK_MAX_CROPS], second;
	double second_centre, second_cap;  /* median and 95th percentile of the calibration sample */
	uint64_t n;                       /* measurements added */
};

/* Default crop percentiles (50, 75, 90, 95, 99, 99.9); returns how many. */
int leak_default_crops(double *pcts, int max);

/*
 * Set up the tests: crop thresholds are the given percentiles of the
 * calibration sample calib[0..ncalib-1] (which is not reordered; it may be
 * empty, then no crops).  npcts <= LEAK_MAX_CROPS.
 */
void leak_tests_init(struct leak_tests *lt, const double *calib, size_t ncalib, const double *pcts, int npcts);
void leak_tests_add(struct leak_tests *lt, int cls, double x);
int leak_tests_count(const struct leak_tests *lt);
/* t of test i (0 .. count-1). */
double leak_tests_t(const struct leak_tests *lt, int i);
/* Resolution of test i (see leak_welch_resolution; squared units for the second-order test). */
double leak_tests_resolution(const struct leak_tests *lt, int i);
/*
 * Effect of test i: the difference of its (cropped) class means; for the
 * second-order test, the difference of the classes' RMS deviations from
 * the calibration median, so that every effect is in counter units.
 */
struct leak_effect leak_tests_effect(const struct leak_tests *lt, int i);
/* "none", "p90", "p99.9", "second-order" */
void leak_test_name(const struct leak_tests *lt, int i, char *buf, size_t len);

/* ---- the verdict ---- */

enum leak_verdict { LEAK_NOT_DETECTED = 0, LEAK_LIKELY, LEAK_INCONCLUSIVE, LEAK_BELOW_FLOOR };

/* The 95% interval of an effect (normal approximation, at least LEAK_MIN_PER_CLASS per class). */
#define LEAK_Z95 1.959963984540054

/* Default practical floor: the larger of one counter unit and this share of the mean. */
#define LEAK_FLOOR_UNITS 1.0
#define LEAK_FLOOR_SHARE 0.0005

/* The practical floor: the larger of `units` counter units and `share` of the mean. */
struct leak_floor {
	double units, share;
};

/* The floor in counter units for a given mean. */
double leak_floor_at(const struct leak_floor *f, double mean);

/*
 * Parse a --floor value over the defaults in *f: comma-separated parts,
 * "N" for counter units and "P%" for a share of the mean ("2", "0.1%",
 * "0,0%" turns the floor off).  A part not given keeps its value.
 * Returns 0, or -1 with the offending part in bad.
 */
int leak_floor_parse(const char *spec, struct leak_floor *f, char *bad, size_t badlen);

/* One point of the t trace: the t of every test after n measurements. */
struct leak_point {
	uint64_t n;
	double t[LEAK_MAX_TESTS];
};

/* What the machine did to the measurement: the evidence of contention. */
struct leak_contention {
	double wall_s, cpu_s;          /* of the measuring child, prep included */
	long nivcsw, nvcsw;            /* context switches during the measurements */
	uint64_t kept, dropped;        /* measurements kept / dropped (switched out during the call) */
	double load_start, load_end;   /* 1-minute load average */
	int ncpu;                      /* online CPUs */
	double resolution_share;       /* resolution of the most sensitive first-order test / mean; 0 = unknown */
};

struct leak_judge_opts {
	uint64_t min_measurements;     /* fewer: inconclusive (default 2000) */
	double min_cpu_share;          /* cpu_s / wall_s below this: too noisy (default 0.1) */
	double max_resolution_share;   /* resolution_share above this: too noisy (default 0.01) */
	double max_dropped_share;      /* dropped / (kept + dropped) above this: too noisy (default 0.25) */
};

/* The practical side of a verdict: each test's effect, the floor, the A/A control. */
struct leak_practical {
	const struct leak_effect *effects;  /* one per test; NULL: every difference counts as beyond the floor */
	double floor;                       /* smallest difference that matters, in counter units */
	double control_max_t;               /* largest |t| the A/A control reached in the run; 0: no control */
	const char *unit;                   /* counter unit, for the verdict text */
};

struct leak_judgement {
	enum leak_verdict verdict;
	int test;                      /* the deciding test, -1 if none */
	uint64_t n;                    /* measurements in all */
	uint64_t at_n;                 /* significant: first point from which |t| stayed above the threshold */
	double max_t;                  /* largest |t| at the last point */
	double threshold;              /* the |t| a test had to exceed: 4.5 or the control's largest */
	int effect_test;               /* the test whose effect is reported: the deciding one, else the largest |t|; -1 */
	double effect, effect_lo, effect_hi;  /* its difference and 95% interval, counter units */
	char text[512];                /* the verdict, in the documented words */
};

/*
 * Judge a t trace (points in increasing n; names[i] names test i for the
 * verdict text).  The threshold is 4.5, or the largest |t| of the A/A
 * control when that is higher.  A test is significant when its |t| stayed
 * above the threshold over the whole second half of the measurements (at
 * every point with n >= final n / 2, at least two of them).  A leak is
 * likely when a significant test's effect has its 95% interval beyond the
 * floor; when the significant tests' intervals all lie within the floor,
 * the verdict is "no leak above the floor"; when one straddles the floor,
 * inconclusive.  Without a significant test the result is inconclusive
 * when there were too few measurements, when |t| crossed the threshold
 * without staying there, or when the contention evidence says the machine
 * was too busy; else no leak was detected.  "Too busy": the best
 * first-order test could not resolve a difference of 1% of the mean, more
 * than a quarter of the calls were switched out, or the process had the
 * CPU less than 10% of the time.  pr may be NULL (no effects, no floor,
 * no control).
 */
void leak_judge(const struct leak_point *pts, size_t npts, int ntests, const char *const *names,
                const struct leak_contention *c, const struct leak_judge_opts *o, const struct leak_practical *pr,
                struct leak_judgement *out);

/* "12 involuntary context switches (0.3% of measurements dropped), CPU 97% of wall time, load average 1.2 (2 CPUs)" */
void leak_contention_text(const struct leak_contention *c, char *buf, size_t len);

/* "no leak detected", "leak likely", "inconclusive", "no leak above the floor" */
const char *leak_verdict_name(enum leak_verdict v);

#endif
