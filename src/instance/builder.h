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
#include "core/text_buf.h"
#include "instance/tree_scan.h"
#include "instance/flag_list.h"

/* A named flag profile (reference, performance, resource, harness-default). */
struct flag_profile {
	const char *name;
	const char *cflags;
	const char *origin;   /* where these flags come from */
};

const struct flag_profile *flag_profile_find(const char *name);
/* NULL-terminated list, for help text and campaigns. */
const struct flag_profile *flag_profiles(void);

/* FIPS 204 and FIPS 205 allow context strings of up to 255 bytes. */
#define BUILD_CONTEXT_MAX 255

/*
 * The bytes of a --context HEX string (an even number of hex digits, ""
 * for the empty context) into out (BUILD_CONTEXT_MAX bytes); PQ_EUSAGE
 * naming `option` when it is not one.
 */
int build_context_parse(const char *hex, const char *option, unsigned char *out, size_t *len, pq_error *err);

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
	 * Trees whose observed build links several KAT programs (observe.h):
	 * `instance` must name one of them (--instance); `instance_hint` picks
	 * one when it matches (a descriptor's instance name).
	 */
	const char *instance;
	const char *instance_hint;
	/*
	 * --no-tree-flags: no flag from the tree's build.  Flags are only known
	 * from observing that build, so this also stops the observation: the
	 * build is planned exactly as with no_observe.
	 */
	int no_tree_flags;
	/*
	 * Do not run the tree's own build (instance/observe.h): compile the
	 * sources beside its KAT driver with the profile's flags.  Also the
	 * fallback when observing is not possible.
	 */
	int no_observe;
	/* What to run instead of the tree's own build (--build-cmd), make variables (--make-var): observe.h. */
	const char *const *build_cmds;
	int nbuild_cmds;
	const char *const *make_vars;
	int nmake_vars;
	/* compile_commands.json of the build (NULL: compile_commands.json beside out_path). */
	const char *compile_commands;
	int plain_pic;             /* plain -fPIC library form, not local binding (link_scope.h) */
	/*
	 * --context HEX: NIST signatures whose API header declares the
	 * context-string functions (crypto_sign_ctx, crypto_sign_open_ctx)
	 * sign and verify with this context; a tree without them is refused.
	 * NULL: the plain functions where the header has both, else the
	 * context ones with an empty context.
	 */
	const char *context_hex;
};

struct build_result {
	struct tree_scan ts;
	char compiler[256];        /* first line of `cc --version` */
	/* Texts of any length; after a build that succeeded, .s is a string (instance_build fails, PQ_ENOMEM, when either could not grow). */
	struct text_buf cflags;    /* the full flags every unit was compiled with */
	struct text_buf notes;     /* what was kept, left out, and where flags came from, a line each */
	int downgraded;            /* old-C diagnostics downgraded to warnings */
	/* Every flag passed to the compiler, with where it came from ("Makefile:12", "profile reference"). */
	struct flag_list flags;
	char instance[128];        /* the instance selected by -D switches from the tree ("" none) */
	char dir_instance[128];    /* the instance the directory name names ("" none) */
	struct text_buf instances; /* the instances the tree serves ("" when one) */
	/* Why the build was refused before compiling ("instruction set not available"), kept on failure. */
	char verdict[64];
	/* How the plan was made: "observed" (the tree's own build ran) or "not observed" (plan_how says why). */
	char plan[16];
	/* Texts of any length; after a build that succeeded, .s is a string (instance_build fails, PQ_ENOMEM, when one could not grow). */
	struct text_buf plan_how;      /* observed: the commands run; read: why the build was not observed */
	struct text_buf plan_outside;  /* observed: what the build did outside its copy (empty: nothing) */
	struct text_buf plan_attempts; /* each build the observation tried, why, and how it ended */
	char program[256];         /* observed: the KAT program whose link made this instance */
	struct text_buf libs;      /* libraries from outside the tree linked in ("-lgmp -lm") */
	char compile_commands[4096]; /* where compile_commands.json was written ("" none) */
	int nprofile;              /* flags[0..nprofile) are the profile's */
	/* Observed plans: each flag the units were compiled with, once, with the first compile that had it. */
	struct flag_list observed_flags;
	/* NIST signatures: "plain" or "context", the functions sign and verify call ("" otherwise). */
	char sig_api[16];
	char context_hex[2 * BUILD_CONTEXT_MAX + 1]; /* the context they pass (sig_api "context"; "" empty) */
};

/*
 * Build the instance into opt->out_path.  On failure res still says why
 * (verdict, plan, plan_how; their texts may be NULL); the caller frees res
 * with build_result_free either way.
 */
int instance_build(const struct build_options *opt, struct build_result *res, pq_error *err);

/*
 * The observed plan of a tree (instance/observe.h), as instance_build
 * would make it: for listing a tree's instances before building.  The
 * plan is owned by the cache; it may be unobserved (see its why).
 */
struct build_plan;
/*
 * The name the built library reports against the one the directory names
 * (dir_instance) and the one asked for (expected; both may be NULL or "").
 * A mismatch is PQ_EINPUT naming both.
 */
int instance_name_check(const char *tree, const char *reported, const char *expected, const char *dir_instance,
                        pq_error *err);

/*
 * The plan of `tree` (observe.h), the one every command takes its
 * instances from: observed with what the user asked to run (asked: its
 * build_cmds and make_vars; NULL for nothing), its links inside
 * source_root (NULL: $PQPROF_SOURCE_ROOT, else the tree).
 */
struct observe_options;
struct build_plan;
int instance_tree_plan(const char *tree, const char *source_root, const struct observe_options *asked,
                       const struct build_plan **plan, pq_error *err);
void build_result_free(struct build_result *res);

/*
 * Split a flags string (NULL: none) into words as sh would (flag_list.h
 * shell_split: quotes group, a backslash escapes).  PQ_ENOMEM, with no
 * words, when memory runs out.
 */
int split_words(const char *s, char ***words, int *n, pq_error *err);
void free_words(char **words, int n);

#endif
