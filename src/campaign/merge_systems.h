/*
 * merge_systems: merge campaign directories that may come from different
 * machines (the shards of a Slurm array land on whatever nodes are free).
 * Inputs are grouped by the environment fields that change what figures
 * mean (campaign_env_keys: processor, clock policy, kernel, compiler, ...);
 * each group is merged on its own, so figures from two kinds of machine
 * are never pooled, averaged or compared as one system.
 *
 * One group: OUT is the merged campaign directory, as campaign_merge()
 * makes it.  Several: OUT/systems/<n>-<processor>/ holds each group's
 * merged campaign and report, and OUT/report.md and OUT/systems.json list
 * the systems, what sets each apart and which inputs went where.
 */
#ifndef PQ_MERGE_SYSTEMS_H
#define PQ_MERGE_SYSTEMS_H

#include "core/pq_error.h"

/* Returns the number of systems (>= 1), or a negative code. */
int campaign_merge_by_system(const char *out, const char *const *inputs, int n, pq_error *err);

#endif
