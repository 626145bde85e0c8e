/*
 * merge: combine campaign directories from several machines or shards into
 * one.  Environments must agree on everything that changes figures
 * (processor, clock policy, kernel, compiler, pqprof version, counters);
 * otherwise the merge is refused with the first difference, unless forced.
 * Two inputs holding the same record with different contents is always an
 * error: nothing is overwritten silently.
 */
#ifndef PQ_MERGE_H
#define PQ_MERGE_H

#include "core/pq_error.h"

int campaign_merge(const char *out, const char *const *inputs, int n, int force, pq_error *err);

/* The environment fields two merged campaigns must agree on (NULL-terminated). */
extern const char *const campaign_env_keys[];

#endif
