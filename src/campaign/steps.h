/*
 * steps: the campaign steps that sit on other modules (the profiler, the
 * report, comparisons) and --fresh's clean-up, with no struct campaign:
 * the step families that need one are the *_step.c files.
 */
#ifndef PQ_STEPS_H
#define PQ_STEPS_H

#include <jansson.h>
#include <stdio.h>

#include "core/pq_error.h"
#include "campaign/scheme_desc.h"

/*
 * Profile one op: trace, flame graph and pqprof.profile/1 record in the
 * campaign dir.  A failure is recorded (status "failed", failure_kind
 * "scheme" or "tool") and returned; when even that record cannot be
 * written, or a file failed to be written, the error is PQ_EIO.
 */
int steps_profile(const char *dir, const char *label, const char *lib, json_t *desc, const char *op,
                  const struct scheme_desc *scheme, double timeout_s, int quick, pq_error *err);

/* Write report.md / .html / .csv / .json for the campaign dir. */
int steps_report(const char *dir, pq_error *err);

/*
 * Compare every flag profile with the first one (profiles[0]) over the
 * campaign's records: compare/<first>_vs_<other>/compare.{md,json}, and a
 * summary on `out` (may be NULL).
 */
int steps_compare_profiles(const char *dir, char profiles[][64], int n, FILE *out, pq_error *err);

/* Remove earlier results (--fresh). */
void steps_forget(const char *dir);

#endif
