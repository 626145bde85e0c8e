/*
 * paired_functions: per-function deltas from the same paired runs.  The
 * paired runner samples each build's slots (runner/ip_sampler.h: self
 * samples, at ELF virtual addresses of the build's library); this
 * symbolizes them per library (profile/symbolizer.h: DWARF, else the
 * symbol table), sums them per out-of-line function over every process,
 * and turns shares into costs per call: a function's self share of a
 * build's samples times that build's mean per-call cost of the study.
 * Samples outside the library (libc, libcrypto) count in the shares as
 * "[outside the library]".
 */
#ifndef PQ_PAIRED_FUNCTIONS_H
#define PQ_PAIRED_FUNCTIONS_H

#include <jansson.h>
#include <stddef.h>

#include "core/pq_error.h"

/* Rows of each candidate's table: the largest changes. */
#define PAIRED_FUNCTIONS_TOP 8

/*
 * samples[p] is process p's "samples" array (one object per build, as
 * the runner sends it; NULL when that process sampled nothing).  libs[b]
 * the build's library; cost[b] its mean per-call cost.  Returns, per
 * build b >= 1, the table of b against build 0 (a JSON array of arrays,
 * index b - 1), or NULL with err set; an empty array when nothing was sampled.
 */
json_t *paired_functions(const json_t *const *samples, size_t np, int nb, const char *const *libs,
                         const double *cost, pq_error *err);

#endif
