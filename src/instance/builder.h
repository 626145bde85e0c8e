/*
 * builder: `pqprof build` as a library call.  Scans a submission tree,
 * generates the shim, compiles every kept source with the chosen flag
 * profile (always with -g -fPIC, so profiles can resolve functions and
 * lines), and links one instance library.  Compiler failures come back as
 * an error naming the file and the compiler's first error lines.
 * Compilers run contained (own PID namespace, no network, unprivileged uid
 * as root) under time and memory limits; a compiler that hits one is
 * reported with the limit.  Compiler output in errors and notes is only
 * what the compiler said about files inside the tree.
 */
#ifndef PQ_BUILDER_H
#define PQ_BUILDER_H

#include "core/pq_error.h"
#include "instance/tree_scan.h"
#include "instance/tree_flags.h"

/* A named flag profile (reference, performance, resource, harness-default). */
struct flag_profile {
	const char *name;
	const char *cflags;
	const char *origin;   /* where these flags come from */
};

const struct flag_profile *flag_profile_find(const char *name);
/* NULL-terminated list, for help text and campaigns. */
const struct flag_profile *flag_profiles(void);

struct build_options {
	const char *src_dir;
	const char *out_path;
	enum tree_api api;
	const char *profile;       /* default "harness-default" */
	/* A profile defined by the user (--profile NAME=FLAGS, a descriptor's
	 * "profiles" table): its flags, checked like descriptor flags unless
	 * trust_flags; profile is then its name.  NULL: a built-in profile. */
	const char *profile_cflags;
	const char *profile_origin;   /* where profile_cflags were defined */
	const char *cc;            /* default PQPROF_DEFAULT_SCHEME_CC or $CC */
	const char *extra_cflags;  /* --cflags */
	const char *const *defines;/* -D NAME=VALUE, without the -D */
	int ndefines;
	const char *ldflags;       /* --ldflags, appended at link time */
	int jobs;                  /* parallel compiler processes (0 = online CPUs) */
	/* Containment (see core/contain.h and instance/flag_check.h). */
	const char *source_root;   /* links must stay inside (NULL: $PQPROF_SOURCE_ROOT, else the tree) */
	int tree_inside_root;      /* the tree itself must be inside source_root (descriptor trees) */
	const char *flags_origin;  /* extra_cflags came from this file: checked; NULL: command line */
	int trust_flags;           /* --trust-flags: no check */
	double cc_timeout_s;       /* wall-clock limit per compiler process (0: 600 s) */
	unsigned long long cc_as_limit; /* RLIMIT_AS of compilers (0: 4 GiB or $PQPROF_CC_MEMORY_MB) */
	/*
	 * Trees that serve several instances by -D switches (instance_discover.h):
	 * `instance` must name one of them (--instance); `instance_hint` picks
	 * one when it matches exactly (a descriptor's instance name).
	 */
	const char *instance;
	const char *instance_hint;
	int no_tree_flags;         /* do not read the tree's Makefile / CMakeLists.txt */
	/*
	 * Do not run the tree's own build (instance/observe.h): read its build
	 * files instead.  Also the fallback when observing is not possible.
	 */
	int no_observe;
	/* compile_commands.json of the build (NULL: compile_commands.json beside out_path). */
	const char *compile_commands;
	int plain_pic;             /* plain -fPIC library form, not local binding (link_scope.h) */
};

struct build_result {
	struct tree_scan ts;
	char compiler[256];        /* first line of `cc --version` */
	char cflags[8192];         /* the full flags every unit was compiled with */
	char notes[16384];         /* what was kept, left out, and where flags came from */
	int downgraded;            /* old-C diagnostics downgraded to warnings */
	/* Every flag passed to the compiler, with where it came from ("Makefile:12", "profile reference"). */
	struct flag_list flags;
	char instance[128];        /* the instance selected by -D switches from the tree ("" none) */
	char dir_instance[128];    /* the instance the directory name names ("" none) */
	char instances[2048];      /* the instances the tree serves ("" when one) */
	/* Why the build was refused before compiling ("instruction set not available"), kept on failure. */
	char verdict[64];
	/* How the plan was made: "observed" (the tree's own build ran) or "read" (its build files were read). */
	char plan[16];
	char plan_how[1024];       /* observed: the commands run; read: why the build was not observed */
	char plan_outside[1024];   /* observed: what the build did outside its copy ("" nothing) */
	char program[256];         /* observed: the KAT program whose link made this instance */
	char libs[512];            /* libraries from outside the tree linked in ("-lgmp -lm") */
	char compile_commands[4096]; /* where compile_commands.json was written ("" none) */
	int nprofile;              /* flags[0..nprofile) are the profile's */
	/* Observed plans: each flag the units were compiled with, once, with the first compile that had it. */
	struct flag_list observed_flags;
};

int instance_build(const struct build_options *opt, struct build_result *res, pq_error *err);

/*
 * The observed plan of a tree (instance/observe.h), as instance_build
 * would make it: for listing a tree's instances before building.  The
 * plan is owned by the cache; it may be unobserved (see its why).
 */
struct build_plan;
int instance_tree_plan(const char *tree, const char *source_root, const struct build_plan **plan, pq_error *err);
void build_result_free(struct build_result *res);

/* Split a flags string at whitespace (single and double quotes group). */
int split_words(const char *s, char ***words, int *n);
void free_words(char **words, int n);

#endif
