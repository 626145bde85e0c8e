/*
 * campaign: `pqprof run` as a library.  Expands targets (scheme
 * descriptors, submission trees, built libraries) into units (one instance
 * built with one flag profile), and takes each unit through its steps:
 * build, KAT gate, bench, memory, sizes, profile, then the report.  Flag
 * profiles are the built-in ones, a descriptor's "profiles" table and
 * --profile definitions; the first profile run is the baseline the others
 * are compared with, and --aa adds an independent copy of it.  The bench
 * trials of all units interleave round-robin.  Every
 * step runs in runner children with time limits; every result is a file
 * written atomically in the campaign directory, and a step whose record
 * holds a result or a verdict on the scheme is done, so a campaign resumes
 * after Ctrl-C, a crash or a reboot by redoing only what has no such
 * record yet (failures that were not the scheme's run again).  One run
 * holds a directory at a time (campaign_lock.h); the first file that
 * cannot be written stops the run.  An instance that fails its KAT gate
 * is still timed, and marked "output not validated".  Every built unit
 * is also built in the other library form (instance/link_scope.h) and the
 * two are timed against each other, interleaved (interposition/).
 */
#ifndef PQ_CAMPAIGN_H
#define PQ_CAMPAIGN_H

#include <stdio.h>

#include "core/pq_error.h"
#include "campaign/scheme_desc.h"

enum campaign_step {
	STEP_BUILD = 0,
	STEP_KAT,
	STEP_BENCH,
	STEP_MEM,
	STEP_SIZES,
	STEP_PROFILE,
	STEP_LEAK,                  /* off unless --steps or the descriptor asks */
	STEP_PAIRED,                /* flag studies: every build of an instance in one runner (supervise/paired.h) */
	STEP_COUNT_ALL
};

struct campaign_opts {
	const char *out_dir;        /* NULL: reports/<system>/<scheme> */
	const char *system;         /* NULL: the host name */
	const char *profiles;       /* comma list overriding the descriptor's */
	const char *steps;          /* comma list, NULL = all */
	int cpu;                    /* -1 = not pinned */
	double timeout_s;           /* per child (default 900) */
	double kat_timeout_s;       /* default 900 */
	int trials;                 /* default 5 */
	double target_s;            /* default 1.0 */
	double op_budget_s;         /* bench: wall time for one operation's trials, 0 = none */
	int quick;                  /* skip instances marked slow; shorter trials */
	int fresh;                  /* forget earlier results */
	int shard_k, shard_n;       /* run units with index % n == k-1; n = 0: all */
	int no_report;
	const char *events;         /* counter events, default "cycles" */
	double leak_budget_s;       /* leak step: seconds per operation (0: descriptor's, else default) */
	const char *command;        /* the command line, for records */
	FILE *progress;             /* where progress goes (stderr) */
	FILE *summary;              /* where the closing performance table goes (stdout), or NULL */
	int progress_tty;           /* progress as a live line, else key=value lines */
	const char *source_root;    /* --source-root: trees and links may resolve anywhere inside */
	int trust_flags;            /* --trust-flags: descriptor cflags are not checked */
	int no_observe;             /* --no-observe: do not run trees' own builds */
	/*
	 * Standard baselines (campaign_baseline.c): every candidate instance of
	 * a known NIST security category is benched interleaved with ML-DSA or
	 * ML-KEM of that category, unless no_baseline (--no-baseline).
	 */
	int no_baseline;
	int category;               /* --category N: the category of instances nothing else states; 0 none */
	/* --category NAME=N: "NAME=N" strings, N checked to be 1-5; a NAME no instance has is bad input, unless
	 * category_names_loose (a round: each package has its own instances). */
	const char *const *category_names;
	int ncategory_names;
	int category_names_loose;
	/* --baseline [CATEGORY=]TREE|LIB: replaces the in-tree baseline of that category (campaign_baseline.c). */
	const char *const *baselines;
	int nbaselines;
	/* --build-cmd, --make-var: what a tree's build is, as the user says (observe.h) */
	const char *const *build_cmds;
	int nbuild_cmds;
	const char *const *make_vars;
	int nmake_vars;
	/* Flag profiles defined on the command line: "NAME=FLAGS" (--profile). */
	const char *const *profile_defs;
	int nprofile_defs;
	/* Compilers: "COMPILER" for every profile, "NAME=COMPILER" for one (--cc). */
	const char *const *cc_defs;
	int ncc_defs;
	const char *manifest;       /* --manifest: the KAT manifest of every unit (prebuilt libraries too) */
	int aa;                     /* --aa: a second, independent build of the first profile ("<first>-aa") */
	int plain_pic;              /* --plain-pic: measure plain -fPIC libraries, as reference harnesses did */
	const char *context_hex;    /* --context: the context string of context-argument signature APIs (builder.h) */
	/* --no-interposition-check (or $PQPROF_INTERPOSITION_CHECK=off): build and time one library form only */
	int no_interposition_check;
	/*
	 * Flag studies (two profiles or more): the "paired" step measures the
	 * builds of each instance side by side in one runner per process
	 * (supervise/paired.h) and the comparisons use it; per_process keeps
	 * to the bench step's interleaved trials instead.
	 */
	double precision;           /* target relative half-width, 0: PAIRED_DEFAULT_PRECISION */
	double budget_s;            /* all paired studies together, 0: per study PAIRED_DEFAULT_BUDGET_S (2/3 with quick) */
	int per_process;
};

/* Most flag profiles one campaign runs (the A/A copy included). */
#define CAMPAIGN_MAX_PROFILES 9
#define CAMPAIGN_MAX_CATEGORY_NAMES 64
#define CAMPAIGN_MAX_BASELINES 10

/*
 * Run one target; returns 0 when the campaign completed (whatever the
 * verdicts), -PQ_EBUILD when it ran several flag profiles and one built
 * for none of its instances (its comparisons are missing), -PQ_EBUSY when another run holds the directory, -PQ_EIO when
 * a write failed (the campaign stopped there), -PQ_EINPUT when a step met
 * a bad input file (the rest of the campaign ran).
 */
int campaign_run(const char *target, const struct campaign_opts *o, pq_error *err);

/*
 * What campaign_run would do with target: one line per unit (instance,
 * implementation version, flag profile, tree, API, KAT file) on out.
 * Builds, measures and writes nothing.
 */
int campaign_plan(const char *target, const struct campaign_opts *o, FILE *out, pq_error *err);

/* Name of the default output directory for a target. */
int campaign_default_dir(const char *target, const struct campaign_opts *o, char *buf, size_t len, pq_error *err);

#endif
