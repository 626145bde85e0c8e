/*
 * groups: named sets of function-name globs ("hash", "drng", ...) and the
 * share of an operation's samples that fall inside each set.
 *
 * A sample belongs to a group when any frame of its symbolized stack
 * (inlined frames included) matches one of the group's globs (fnmatch).
 * It counts once per group however many frames match, so nested helpers
 * (pseudoXOF calling pseudohash) are not counted twice.  Shares come with
 * a 95% Wilson score interval on the sample count.
 *
 * Defaults: hash = pseudohash, pseudoXOF, sm3hash (the competition's
 * placeholder functions); drng = get_random_number, randombytes and the
 * harness's own DRBG frames behind the shim's randombytes()
 * (nist_rng_randombytes, ctr_drbg_generate).  "--group NAME=GLOB,GLOB" adds a group or extends one.
 */
#ifndef PQ_GROUPS_H
#define PQ_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "core/pq_error.h"

struct group_set;

struct group_set *groups_new(void);
void groups_free(struct group_set *gs);

int groups_add_defaults(struct group_set *gs, pq_error *err);
/* Add one glob to group `name`, creating the group if needed. */
int groups_add(struct group_set *gs, const char *name, const char *glob, pq_error *err);
/* "NAME=GLOB[,GLOB...]", as given to --group. */
int groups_parse_spec(struct group_set *gs, const char *spec, pq_error *err);

size_t groups_count(const struct group_set *gs);
const char *groups_name(const struct group_set *gs, size_t i);
/* The globs of group i (for records): how many, and the j-th (NULL past the end). */
size_t groups_nglobs(const struct group_set *gs, size_t i);
const char *groups_glob(const struct group_set *gs, size_t i, size_t j);

/*
 * hits[i] = 1 when some frame of funcs[0..n) matches group i, else 0
 * (NULL names are unsymbolized frames and match nothing).  Returns the
 * number of groups hit.
 */
size_t groups_match_stack(const struct group_set *gs, const char *const *funcs, size_t n,
                          unsigned char *hits);

/* Per-operation counts. */
struct group_tally {
	size_t ngroups;
	uint64_t samples;
	double weight;          /* sum of sample weights (periods) */
	uint64_t *hits;         /* per group */
	double *hit_weight;     /* per group */
	unsigned char *scratch;
};

struct group_share {
	uint64_t hits, samples;
	double share;           /* hits / samples (0 when no samples) */
	double lo, hi;          /* 95% Wilson interval */
	double weight_share;    /* by summed periods instead of counts */
};

int group_tally_init(struct group_tally *t, const struct group_set *gs, pq_error *err);
void group_tally_add(struct group_tally *t, const struct group_set *gs,
                     const char *const *funcs, size_t n, double weight);
void group_tally_share(const struct group_tally *t, size_t i, struct group_share *out);
void group_tally_free(struct group_tally *t);

/* 95% Wilson score interval for k successes in n trials. */
void groups_wilson95(uint64_t k, uint64_t n, double *lo, double *hi);

#endif
