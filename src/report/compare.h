/*
 * compare: two record sets side by side -- the same instances built or run
 * two ways (flags, compilers, machines, versions).  For every (instance,
 * op) timed in both it gives the ratio of mean per-call cost B / A with a
 * percentile-bootstrap 95% interval over the raw per-call values of all
 * trials, and a verdict (faster, slower, no significant change).  Beyond
 * timing: static image, peak RSS and stack deltas, a per-function table
 * of self-share changes from the profile records, and differential flame
 * graphs where both sides kept folded stacks.
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
#include "report/record_set.h"
#include "report/report_doc.h"

#define COMPARE_TOP_FUNCTIONS 15

struct compare_opts {
	int resamples;          /* bootstrap resamples, 0: STATS_BOOTSTRAP_RESAMPLES */
	uint64_t seed;          /* 0: STATS_BOOTSTRAP_SEED */
	double tolerance;       /* widen "no change" to 1 ± tolerance; 0: any significant change counts */
	const char *out_dir;    /* differential flame graphs go to OUT/flame/, or NULL: not drawn */
	int max_functions;      /* rows of each per-function table, 0: COMPARE_TOP_FUNCTIONS */
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

/* Write compare.md and compare.json into out_dir (created if needed). */
int compare_write(const json_t *result, const char *out_dir, pq_error *err);

#endif
