/*
 * campaign_int: what the campaign's files share, and nothing outside
 * src/campaign/ includes.  A campaign (struct campaign) is the options,
 * the units expanded from the target (struct unit: one instance built with
 * one flag profile), the flag profiles run, and the state file's JSON.
 * Each group of declarations below names the file that owns it:
 * campaign.c runs the steps in order, the *_step.c files are the step
 * families, campaign_state.c the records, progress and resume.
 */
#ifndef PQ_CAMPAIGN_INT_H
#define PQ_CAMPAIGN_INT_H

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "campaign/campaign.h"
#include "campaign/scheme_desc.h"
#include "core/clock.h"
#include "core/ops.h"
#include "core/pq_error.h"

#define MAX_UNITS 512

/* A flag profile as a campaign runs it. */
struct prof {
	char name[64];
	char cflags[512];           /* custom profiles: their flags */
	int custom;                 /* 0: a built-in profile (builder.h) */
	char cc[256];               /* compiler, "" for the default */
	char origin[4400];          /* where it was defined, for build notes and errors */
	char aa_of[64];             /* the A/A copy of this profile, or "" */
};

struct unit {
	char label[300];
	char instance[128];
	char implementation[64];    /* implementation version, "" when the descriptor names none */
	char profile[64];
	const struct prof *prof;    /* NULL for a prebuilt library */
	char tree[PATH_MAX];
	char api[8];
	const char *const *defines;
	int ndefines;
	char cflags[512];
	char select[128];       /* --instance for a tree serving several by -D switches */
	char lib[PATH_MAX];
	int prebuilt;
	char vectors[PATH_MAX];
	char manifest[PATH_MAX];
	/* Security category and standard baseline (campaign_baseline.c). */
	int category;               /* NIST security category 1..5, 0 when unknown */
	char category_from[160];    /* "descriptor", "api.h NAME", "--category", "" when unknown */
	int is_baseline;            /* the standard baseline of its category (role "baseline" in records) */
	int added_baseline;         /* added only as a baseline: build, kat, bench and sizes steps only */
	char standard[32];          /* a baseline's standard, "FIPS 204" */
	char baseline_label[300];   /* a candidate's baseline unit, "" when it has none */
	char baseline_note[128];    /* why that baseline ("category 4: the next stronger, ML-DSA-87"), or "" */
	int kem;                    /* a KEM (else a signature), as far as expansion knows */
	const struct scheme_desc *base_from;  /* an added baseline: the in-tree descriptor it is built from */
	const char *user_base;      /* a --baseline unit: the TREE or LIB it was given (the option's string), else NULL */
	char base_origin[600];      /* a baseline's origin as the report names it, "" for candidates */
};

struct campaign {
	const struct campaign_opts *o;
	char dir[PATH_MAX];
	struct scheme_desc desc;
	int have_desc;
	char scheme[128], title[256], category[128];
	/*
	 * In expansion order (campaign_units.c), never sorted: instances as the
	 * descriptor or the build plan lists them, each one's profiles together
	 * in campaign order.  Bench rounds are cut between instances and shards
	 * are taken by position, so both rely on that order.  Added baseline
	 * units (campaign_baseline.c) come last, after sharding: every shard
	 * adds the baselines its own candidates need, and bench rounds take a
	 * candidate's baseline into the candidate's round.
	 */
	struct unit *units;
	int nunits;
	/* The in-tree schemes baseline units are built from (NULL when not needed or not found). */
	struct scheme_desc *base_desc[2];   /* [0] signatures (mldsa), [1] KEMs (mlkem) */
	char base_missing[512];             /* why a needed baseline scheme was not found, or "" */
	int user_kind[CAMPAIGN_MAX_BASELINES];   /* per --baseline: 0 signature, 1 KEM */
	int user_cat[CAMPAIGN_MAX_BASELINES];    /* per --baseline: the category it serves */
	struct prof profs[CAMPAIGN_MAX_PROFILES];   /* the profiles run, in order; the first is the baseline */
	int nprofs;
	int want[STEP_COUNT_ALL];
	json_t *state;
	int done, total;
	double t0, step_time_sum;
	int steps_timed;
	int paired_said;            /* paired studies summarised on o->summary so far */
	/* A write failed (disk full, I/O error, read-only): stop, and say which file. */
	int stopped;
	pq_error stop_err;
	/* A step failed on bad input (an unreadable vectors file): finish, then exit with it. */
	pq_error input_err;
	int tool_failures;
};

static inline int is_file(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static inline json_t *read_json(const char *path)
{
	return json_load_file(path, 0, NULL);
}

/* campaign_profiles.c: the flag profiles the campaign runs, into c->profs. */
int select_profiles(struct campaign *c, pq_error *err);

/* campaign_units.c: the target's scheme and units, into c (c->units is allocated). */
int campaign_expand(struct campaign *c, const char *target, pq_error *err);
/*
 * A unit of descriptor instance `in` under profile p: its name, tree, API,
 * switches, flags, vectors, and its category when the descriptor gives one
 * (the rest of *u is left as it is).
 */
void unit_from_instance(struct unit *u, const struct desc_instance *in, struct prof *p);
/*
 * The instance names a tree's build plan links, as `pqprof run TREE` would
 * name its units (at most max); 0 when its build is not observed or links
 * nothing (the tree is then one unit named after its folder).
 */
#define CAMPAIGN_TREE_MAX_INSTANCES 32
int campaign_tree_instances(const struct campaign *c, const char *tree, char names[][128], int max);

/*
 * campaign_baseline.c: each candidate's security category and the
 * standard baseline unit of each category, added to c->units after
 * expansion and sharding.  A baseline added this way sorts after every
 * candidate and is labelled "baseline__<instance>__<profile>".
 */
int campaign_add_baselines(struct campaign *c, pq_error *err);
void campaign_free_baselines(struct campaign *c);
/* The unit labelled label, or NULL. */
const struct unit *unit_by_label(const struct campaign *c, const char *label);

/* campaign_state.c: records, the state file, progress and resume. */
extern const char *const step_names[STEP_COUNT_ALL];
int path_of(const struct campaign *c, char *buf, size_t len, const char *sub, const char *label, const char *op,
            const char *ext);
void campaign_progress(struct campaign *c, const char *step, const struct unit *u, const char *op);
void step_done(struct campaign *c, double started, int skipped);
void stop_campaign(struct campaign *c, const pq_error *why);
int put_record(struct campaign *c, const char *path, json_t *j);
void tag_record(const struct unit *u, json_t *j);
int record_done(const char *path);
/*
 * Did op of u time out in the KAT replay or in its bench?  Later steps
 * (the interposition check, memory, profile, paired studies) do not run it
 * again: a hung operation costs one time limit, not one per step.  why
 * says which.
 */
int op_timed_out(const struct campaign *c, const struct unit *u, enum pq_op op, char *why, size_t len);
const char *records_state(struct campaign *c, int ndone, int nfailed, int n);
const char *record_state(struct campaign *c, const char *rec);
void save_state(struct campaign *c, const char *status);
void set_unit_step(struct campaign *c, const struct unit *u, const char *step, const char *state);
void step_error(struct campaign *c, const struct unit *u, const char *step, pq_error *err);
void relative_log(const struct campaign *c, json_t *rec);
int make_subdirs(const char *dir, pq_error *err);
int init_state(struct campaign *c, json_t **env_out, pq_error *err);

/* build_step.c: build and KAT gate, and what a unit's build record says. */
struct build_options;
void unit_build_options(const struct campaign *c, const struct unit *u, const char *out_path, const char *sub,
                        struct build_options *bo, char *origin, size_t olen, char *ccdb, size_t clen);
int built_ok(struct campaign *c, const struct unit *u);
int unit_ops(struct campaign *c, const struct unit *u, json_t **desc, enum pq_op ops[PQ_OP_COUNT]);
void unit_build_and_kat(struct campaign *c, struct unit *u, json_t *env);

/* bench_step.c: the interleaved bench of every unit. */
double op_budget_of(const struct campaign *c);
void bench_all(struct campaign *c, json_t *env);

/* paired_step.c: flag studies, every build of an instance in one runner. */
int paired_steps(const struct campaign *c);
void paired_all(struct campaign *c, json_t *env);

/* interposition_step.c: the other library form, built and timed against the unit's. */
int interposition_selected(const struct campaign *c, const struct unit *u);
int other_form_built(const struct campaign *c, const struct unit *u);
int build_other_form(struct campaign *c, const struct unit *u);
void interposition_all(struct campaign *c, json_t *env);

/* measure_step.c: memory, sizes and profile of one unit, then its leak step. */
void unit_rest(struct campaign *c, struct unit *u, json_t *env);

/* leak_step.c: the timing-leak step of one unit. */
void unit_leak(struct campaign *c, struct unit *u, json_t *desc, const enum pq_op *ops, int nops, json_t *env);

/* summary_step.c: the closing table, the profiles that built, the exit status. */
void print_summary(struct campaign *c, FILE *out);
int profile_built(struct campaign *c, const struct prof *p);
int check_profiles_built(struct campaign *c, pq_error *err);
int campaign_finish(struct campaign *c, int r, pq_error *err);

#endif
