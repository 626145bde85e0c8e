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
 * The target: the make target whose commands link an official KAT driver
 * (KAT_SIG.c, KAT_KEM.c, PQCgenKAT_sign.c, ...), the one with the fewest
 * commands when several do; else the default goal.  CMake trees are
 * configured (Release) and their KAT targets built, else all.
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
 * the caller falls back to reading the build files (tree_flags.h).
 *
 * A plan is made once per tree and process and kept, with its scratch
 * copy (compiles read generated files from it), until pqprof exits.
 */
#ifndef PQ_OBSERVE_H
#define PQ_OBSERVE_H

#include <limits.h>
#include <stddef.h>
#include "core/pq_error.h"
#include "instance/tree_flags.h"
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
	char tree[PATH_MAX];     /* the tree (absolute) */
	char copy[PATH_MAX];     /* its scratch copy */
	char outside[1024];      /* what the build did outside its copy ("" nothing) */
	char missing_tool[64];   /* "cmake" when a CMake tree could not be built for lack of it */
	struct plan_instance *inst;
	int ninst;
};

struct observe_options {
	enum tree_api api;       /* the tree's API (decides rng.c) */
	const char *header;      /* instance header, relative to the tree */
	const char *cc;          /* compiler for naming the instances */
	double timeout_s;        /* the whole build (0: 600 s or $PQPROF_OBSERVE_TIMEOUT) */
};

/*
 * The plan for `tree` (absolute).  Returns 0 with *out set (owned by the
 * cache: do not free), whether observed or not; negative only for
 * pqprof's own failures (no scratch space, no wrapper).
 */
int observe_tree(const char *tree, const struct observe_options *o, const struct build_plan **out, pq_error *err);

/* Is observing on ($PQPROF_OBSERVE=off turns it off, as --no-observe does for one command)? */
int observe_enabled(void);

/* Does `want` name this instance (its name or label; case, '-' and '_' aside)? */
int plan_instance_matches(const struct plan_instance *pi, const char *want);

/* "Name (label), ..." of every instance into out. */
void plan_instance_list(const struct build_plan *p, char *out, size_t len);

#endif
