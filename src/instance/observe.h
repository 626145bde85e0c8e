/*
 * observe: build a submission the way its submitter builds it, and plan
 * from what that build did.  pqprof copies the tree to a scratch
 * directory and runs the tree's own build there (make, or cmake then its
 * build), contained like scheme code: own PID and network namespaces, the
 * unprivileged uid, and a mount namespace in which only the scratch copy
 * is writable and /tmp is private.  CC, CXX, AS, AR and LD (and the same
 * names in PATH) are pqprof-ccwrap, which records every compile, archive
 * and link, then runs the real tool, so generated headers and tables
 * exist as they would for the submitter.
 *
 * What runs, for make: first the default goal, as the submitter types
 * `make` (it may need its phony set-up targets, or generate files the KAT
 * programs use); when that links no KAT driver (KAT_SIG.c, KAT_KEM.c,
 * PQCgenKAT_sign.c, ...), the targets whose dry runs link one, the one
 * linking the most first.  CMake trees are configured (Release) and their
 * KAT targets built, else all.  When that links no KAT driver either, the
 * tree's own KAT scripts (shell scripts that build and run a KAT program)
 * are run, each observed as a whole.  A make build that failed is run
 * again record-only (make -k, the wrapper recording each command without
 * running it), so that KAT links after the failure are still seen.  The
 * user may say instead what to run (--build-cmd) or which make variables
 * choose the parameter sets (--make-var).  Each attempt, why it was
 * chosen and how it ended is kept.
 *
 * The plan: each observed link of a KAT driver is one instance.  Its
 * translation units are what that link put together (objects and
 * archives traced back to the compiles that made them) minus the driver
 * and, for NIST trees, rng.c; each unit keeps the flags it was compiled
 * with.  Libraries the link took from outside the tree (-lgmp) are kept.
 * Each instance is named by what its library will report (the header's
 * ALGORITHM_INSTANCE or CRYPTO_ALGNAME, preprocessed with the driver's
 * flags) and labelled by the -D value that tells it from its siblings.
 *
 * Where a tree has no build file, make or cmake is missing, or its build
 * fails or links no KAT driver, the plan says why and is not observed:
 * the build then compiles the sources beside the KAT driver (tree_scan.h)
 * with the flag profile's flags alone, and says so.  No other way of
 * knowing a build is kept: scan, build, run and a campaign's units all
 * take their instances from this plan.
 *
 * A plan is made once per tree and process and kept, with its scratch
 * copy (compiles read generated files from it), until pqprof exits.
 */
#ifndef PQ_OBSERVE_H
#define PQ_OBSERVE_H

#include <limits.h>
#include <stddef.h>
#include "core/pq_error.h"
#include "core/text_buf.h"
#include "instance/flag_list.h"
#include "instance/tree_scan.h"

/* One translation unit as the tree's build compiled it. */
struct plan_unit {
	char *src;               /* absolute, in the scratch copy */
	char *rel;               /* relative to the tree */
	char *cwd;               /* the build's working directory for it (absolute, in the copy) */
	struct flag_list flags;  /* passed on, each with where it was observed */
	struct flag_list info;   /* seen, not passed on (-O...) */
	int is_asm;
};

struct plan_instance {
	char name[128];          /* what its library reports, or "" when unknown */
	char label[128];         /* the -D value that tells it from the others, or "" */
	char program[256];       /* the KAT program the build linked, relative to the tree */
	char driver[256];        /* the left-out driver, relative to the tree */
	char left_out[1024];     /* other units of the link left out, with why ("rng.c: ...; ...") */
	char missing[1024];      /* units the link takes that the submission does not hold ("" none) */
	char outside[1024];      /* units the link takes from outside the tree's copy, as the build named them ("" none) */
	char driver_obj[PATH_MAX]; /* the driver's object in the copy ("" when compiled and linked at once) */
	struct plan_unit *units;
	int nunits;
	struct flag_list driver_flags; /* the driver's compile flags (the shim is compiled with them) */
	struct flag_list link_flags;   /* code generation flags of the link (-f, -m) */
	char **libs;             /* libraries from outside the tree, as -lNAME */
	int nlibs;
	char **includes;         /* what the driver #includes (absolute, in the copy), its generator's header aside */
	int nincludes;
};

struct build_plan {
	int observed;            /* 1: made from the observed build; 0: see why */
	char why[1024];          /* why there is no observed plan */
	char how[1024];          /* the commands that were run ("make kat_all") */
	char attempts[1024];     /* each build tried, why, and how it ended ("" when one configuration was built) */
	char tree[PATH_MAX];     /* the tree (absolute) */
	char copy[PATH_MAX];     /* its scratch copy */
	char outside[1024];      /* what the build did outside its copy ("" nothing) */
	char missing_tool[64];   /* "cmake" when a CMake tree could not be built for lack of it */
	int record_only;         /* some instances are known only from a record-only run (observe_steps.c) */
	int unlinked;            /* nothing linked a KAT driver: the one instance is the units the build compiled */
	char asked[1024];        /* what the user said to run (--build-cmd, --make-var), "" nothing */
	struct plan_instance *inst;
	int ninst;
};

/* --make-var: how many variables, values of each and bytes of a name or value the build tries. */
#define OBS_MAX_MAKE_VARS 8
#define OBS_MAX_MAKE_VALUES 16
#define OBS_MAKE_WORD 128

struct observe_options {
	enum tree_api api;       /* the tree's API (decides rng.c) */
	const char *header;      /* instance header, relative to the tree */
	const char *cc;          /* compiler for naming the instances */
	double timeout_s;        /* the whole build (0: 600 s or $PQPROF_OBSERVE_TIMEOUT) */
	/*
	 * What the user says (--build-cmd, --make-var): shell commands run in
	 * the tree's copy, each observed as a whole, instead of the tree's own
	 * make, cmake or meson; or NAME=V1,V2,... make variables, each make
	 * goal run once per combination of their values.
	 */
	const char *const *build_cmds;
	int nbuild_cmds;
	const char *const *make_vars;   /* at most OBS_MAX_MAKE_VARS, each checked by cmd_check_make_vars */
	int nmake_vars;
};

/*
 * The plan for `tree` (absolute).  Returns 0 with *out set (owned by the
 * cache: do not free), whether observed or not; negative only for
 * pqprof's own failures (no scratch space, no wrapper).
 */
int observe_tree(const char *tree, const struct observe_options *o, const struct build_plan **out, pq_error *err);

/*
 * The scratch copy in which this process observed `tree`'s build (what the
 * build generated is there, the vectors its own KAT program wrote
 * included), or NULL when the tree was not observed in this process.
 */
const char *observe_copy_of(const char *tree);

/*
 * Run once more the KAT program that the observed build of `tree` linked
 * for the instance `name` (or its only one), contained as the build was,
 * in a fresh directory of the scratch copy, within timeout_s: what NIST's
 * and NGCC's generators write (the .rsp / KAT file) lands there.  The
 * directory goes to dir.  0 when it ran and exited 0; negative with err
 * set when there is no such program or it failed.
 */
int observe_run_kat_program(const char *tree, const char *name, double timeout_s, char *dir, size_t len,
                            pq_error *err);

/* Is observing on ($PQPROF_OBSERVE=off turns it off, as --no-observe does for one command)? */
int observe_enabled(void);

/* Does `want` name this instance (its name, its label, or both joined by '-'; case, '-' and '_' aside)? */
int plan_instance_matches(const struct plan_instance *pi, const char *want);

/*
 * Instance v's name for a campaign: what its library reports, with its
 * label after a '-' where another instance of the tree reports the same
 * name (LESS-252_68, LESS-252_192); its label where it reports none.
 * plan_instance_matches takes it back.
 */
void plan_instance_unique_name(const struct build_plan *p, int v, char *out, size_t len);

/* "Name (label), ..." of every instance, appended to out (out->oom when it could not grow). */
void plan_instance_list(const struct build_plan *p, struct text_buf *out);

#endif
