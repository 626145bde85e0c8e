/*
 * paired: the parent side of a paired in-process study, the default way
 * a flag study compares builds of one instance.  One runner process loads
 * every build side by side (runner job "paired": each build in a link
 * namespace of its own, one slot of calls per build per round, the order
 * shuffled per round, each build reseeded alike per round), and times
 * each slot by CPU time (cycles where a PMU exists).  Fresh runner
 * processes are the outer level: each has its own address-space layout
 * and its own rounds.
 *
 * How many processes and rounds: a pilot measures the variance between
 * processes and between rounds within a process (Kalibera & Jones,
 * "Rigorous benchmarking in reasonable time", ISMM 2013); the planner
 * (measure/paired_stats.h) then chooses the rounds per process and the
 * processes that reach the target precision on every ratio in the least
 * time.  The study re-plans after each process and stops when every
 * interval is that narrow or the time budget is spent, and says which.
 *
 * The record (schema pqprof.paired/1, doc/records.md) keeps every
 * process's rounds, both variance components, the plan, and per
 * candidate its ratio to the baseline, its difference from the A/A arm,
 * the verdict and what this run could have detected.
 */
#ifndef PQ_PAIRED_H
#define PQ_PAIRED_H

#include <jansson.h>
#include <stdint.h>

#include "core/ops.h"
#include "core/pq_error.h"

#define PAIRED_MAX_BUILDS 12          /* glibc's 16 link namespaces, less the runner's own and spare */
#define PAIRED_DEFAULT_PRECISION 0.01 /* relative half-width of each ratio's 95% interval */
#define PAIRED_DEFAULT_BUDGET_S 30.0  /* one study (one instance, one operation) */
#define PAIRED_MIN_PROCESSES 4
#define PAIRED_PILOT_PROCESSES 3
#define PAIRED_PILOT_ROUNDS 8
#define PAIRED_MAX_ROUNDS 400
#define PAIRED_SLOT_US 20000          /* a slot's length: calls of one build back to back */
#define PAIRED_SAMPLE_HZ "997"        /* self samples of the slots, for the per-function deltas */

struct paired_build {
	const char *lib;
	const char *label;     /* the flag profile (or the build's name) */
};

struct paired_config {
	struct paired_build builds[PAIRED_MAX_BUILDS];
	int nbuilds;           /* builds[0] is the baseline */
	int aa;                /* index of the A/A copy of the baseline, -1 for none */
	enum pq_op op;
	double precision;      /* 0: PAIRED_DEFAULT_PRECISION */
	double threshold;      /* practical threshold; 0: the precision */
	double budget_s;       /* wall time for the study; 0: PAIRED_DEFAULT_BUDGET_S */
	int min_processes;     /* 0: PAIRED_MIN_PROCESSES */
	uint64_t seed;         /* shuffles and round seeds (0: a fixed default) */
	const char *events;    /* counter events, default "cycles" */
	int cpu;               /* -1: not pinned */
	double timeout_s;      /* per runner process, 0: 900 */
	unsigned long long as_limit;
	long mlen;             /* default 64 */
	const char *command;   /* for the record */
	json_t *instance;      /* borrowed descriptor, or NULL */
	json_t *environment;   /* borrowed, or NULL */
	const char *output_log;/* the scheme's output goes here, or nowhere (NULL) */
	/* Called after each process with a one-line status (may be NULL). */
	void (*progress)(void *user, const char *line);
	void *progress_user;
};

/*
 * Run the study.  *record gets the record (new reference), also when the
 * study failed ("status": "failed" and why; the return is then the
 * failure's PQ_* code).
 */
int paired_run(const struct paired_config *cfg, json_t **record, pq_error *err);

#endif
