/*
 * compare: two record sets side by side -- the same instances built or run
 * two ways (flags, compilers, machines, versions).  For every (instance,
 * op) timed in both it gives the ratio B / A of the typical per-call cost
 * (each trial's median per-call value: PMU cycles where the counter counts
 * cycles, else the per-call CPU time where both records kept it, else the
 * counter's wall-clock units), with a 95% interval that resamples
 * trials -- the independent unit, since calls inside one trial share the
 * machine's state -- and a verdict.
 *
 * The verdict is honest about what the records can tell:
 *  - "not comparable" when host, CPU model, architecture, kernel or
 *    counter backend differ (the ratio is shown, no verdict);
 *  - when A and B are separate runs (not interleaved round by round in one
 *    run), the machine's slow spells can move a whole run, so only a
 *    difference beyond the separate-run allowance counts; the rest is
 *    "inconclusive: separate runs";
 *  - a difference must exceed the practical threshold (default 3%) and,
 *    when an A/A arm (a second copy of the baseline) is present, the
 *    spread the A/A pair itself shows; otherwise it is "no effect".
 * Interleaved runs pair trial i of A with trial i of B (the same round) and
 * resample whole rounds: a blocked bootstrap.
 *
 * Beyond timing: static image, peak RSS and stack deltas, a per-function
 * table of absolute self cost per operation and of self-share changes
 * from the profile records, and differential flame graphs where both
 * sides kept folded stacks.
 *
 * Instances pair up by name and flag profile; when a name appears exactly
 * once on each side, it pairs across profiles (so "-O2 vs -O3" builds of
 * one instance compare).  Records that count different units (cycles vs
 * TSC ticks) are refused: their ratio would mean nothing.
 */
#ifndef PQ_REPORT_COMPARE_H
#define PQ_REPORT_COMPARE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "core/pq_error.h"
#include "measure/stats.h"
#include "report/record_set.h"
#include "report/report_doc.h"

#define COMPARE_TOP_FUNCTIONS 15
#define COMPARE_DEFAULT_THRESHOLD 0.03   /* practical threshold: smaller changes are no effect */
#define COMPARE_DEFAULT_SEPARATE 2.0     /* separate runs, wall-clock figures: only a factor beyond this counts */
#define COMPARE_DEFAULT_SEPARATE_TASK 1.25  /* separate runs, CPU time or PMU cycles */
#define COMPARE_MIN_TRIALS 2

struct compare_opts {
	int resamples;          /* bootstrap resamples, 0: STATS_BOOTSTRAP_RESAMPLES */
	uint64_t seed;          /* 0: STATS_BOOTSTRAP_SEED */
	double tolerance;       /* practical threshold: "no effect" within 1 ± tolerance */
	int tolerance_set;      /* 0: COMPARE_DEFAULT_THRESHOLD instead of tolerance */
	double separate_factor; /* separate runs: effect only beyond [1/F, F]; 0: the default for the measure */
	const char *out_dir;    /* differential flame graphs go to OUT/flame/, or NULL: not drawn */
	int max_functions;      /* rows of each per-function table, 0: COMPARE_TOP_FUNCTIONS */
	/*
	 * Where to look for an A/A arm (a second copy of the baseline): an
	 * instance of the same name whose records carry "aa_of": <A's
	 * profile>, or, in a set given with aa_is_copy, any instance of that
	 * name.  NULL: a and b are searched for "aa_of" arms.
	 */
	const struct record_set *aa;
	int aa_is_copy;
	/*
	 * A campaign directory whose paired/ records (supervise/paired.h)
	 * hold a paired in-process study of A's and B's builds: where one
	 * does for an (instance, op), its ratio, interval and verdict are the
	 * comparison's.  NULL: the trials of the timing records only.
	 */
	const char *paired_dir;
};

/*
 * Compare a (baseline) with b (candidate).  *result is a pqprof.compare/1
 * document (new reference).  Fails with PQ_EINPUT when the sets have no
 * (instance, op) in common or when paired timing records count different
 * units; the message names both.
 */
int compare_sets(const struct record_set *a, const struct record_set *b, const struct compare_opts *o,
                 json_t **result, pq_error *err);

/* The comparison as report blocks (tables and notes). */
int compare_doc(const json_t *result, rdoc *doc, pq_error *err);

/*
 * The ratio B / A of the typical per-call cost of two timing records
 * whose trials ran interleaved round by round in one run, exactly as
 * compare_sets computes it for such a pair: each trial's median per-call
 * figure (cycles, else CPU time where both kept it, else the counter's
 * units), trial i of A with trial i of B, whole rounds resampled (a
 * blocked bootstrap; stats_trial_ratio_ci), default resamples and seed.
 * *trials gets the number of rounds paired.  Fails with PQ_EINPUT when
 * the records count different units or hold too few trials.
 */
int compare_interleaved_ratio(const json_t *bench_a, const json_t *bench_b, stats_interval *ci, size_t *trials,
                              pq_error *err);

/*
 * The comparison's body (timing, A/A, functions, notes) as blocks of an
 * enclosing document, headings starting at level `level`, anchors
 * prefixed with `anchor` (may be NULL).  compare_doc is this under its own
 * title.
 */
int compare_doc_body(const json_t *result, rdoc *doc, int level, const char *anchor, pq_error *err);

/* Write compare.md and compare.json into out_dir (created if needed). */
int compare_write(const json_t *result, const char *out_dir, pq_error *err);

#endif
