/*
 * round: `pqprof run` over a whole round of submissions.  A round is a
 * folder of submissions (packages, trees, scheme descriptors) as a
 * competition receives them, or several targets given with one --out.
 * Each submission is its own campaign in ROOT/<package>/, run one after
 * another with the same options; a campaign that fails is a finding of
 * its package, never the end of the round.  A folder of the round that is
 * no submission keeps its place with the reason.  What each package
 * ended in is kept in ROOT/round.json (written atomically after every
 * package), which the index (report/round_index.h) reads with the
 * packages' own reports.  Running the same round again resumes every
 * campaign where it stopped.
 *
 * What a submission is, is the package scan's (instance/package_scan.h);
 * this file only decides which folders are the round's packages.
 */
#ifndef PQ_ROUND_H
#define PQ_ROUND_H

#include <stdio.h>

#include "campaign/campaign.h"
#include "core/pq_error.h"

#define ROUND_MAX_PACKAGES 256
#define ROUND_STATE_FILE "round.json"
#define ROUND_STATE_SCHEMA "pqprof.round-state/1"

struct round_package {
	char name[128];             /* its directory under ROOT: the folder's name, made safe and unique */
	char path[4096];            /* absolute */
	char kind[16];              /* "descriptor", "package", "tree", or "" when it is no submission */
	char why[512];              /* why it is no submission, or "" */
};

struct round {
	struct round_package pkg[ROUND_MAX_PACKAGES];
	int n;
};

/*
 * 1 when dir is a round rather than one submission: no scheme.json, not
 * one implementation tree, no build file, no folder of one package's own
 * (Reference_Implementation, KAT ...), and at least one folder in it that
 * is a package or a scheme descriptor of its own.  A folder of bare trees
 * reads as one package; --round says otherwise.
 */
int round_is_round(const char *dir);

/*
 * The round's packages: for every target that is a round (or every
 * target when force_round), its folders in name order, hidden folders
 * and build outputs aside (files are not submissions); a target that is
 * one submission is one package.  Fails only on a target that does not
 * exist, or more than ROUND_MAX_PACKAGES packages.
 */
int round_find(const char *const *targets, int n, int force_round, struct round *r, pq_error *err);

/*
 * Run every package of r as a campaign into root/<name> with o (its
 * out_dir is ignored), naming the package on o->progress ("round: package
 * k of N: NAME").  Records each package's ending in root/round.json.
 * Returns 0 when every package's campaign completed with its report, else
 * the negative code of the first that did not (PQ_EINPUT for a folder that
 * is no submission); -PQ_EIO when root/round.json cannot be written.
 */
int round_run(const struct round *r, const char *root, const struct campaign_opts *o, pq_error *err);

/* What round_run would do: one line per package on out. */
void round_plan(const struct round *r, const char *root, FILE *out);

/* root/round.json listing r's packages as not run yet, unless one exists (for `pqprof slurm`). */
int round_state_init(const struct round *r, const char *root, pq_error *err);

#endif
