/*
 * leak_run: the parent side of `pqprof leak`.  For one operation of an
 * instance, runs each selected pair of input classes in its own runner
 * child (job "leak"), sharing the operation's time budget between them,
 * judges each pair's t trace with its A/A control, its effect against the
 * practical floor and its contention evidence, and writes a pqprof.leak/1
 * record: per pair the verdict in words, the effect with its interval,
 * the floor, what was compared, the counter, the contention, the crop
 * thresholds, the whole t trace and the control's; and the operation's
 * verdict, the worst of its pairs (leak likely, then inconclusive, then
 * no leak above the floor, then no leak detected).  The schema is in
 * doc/records.md.
 */
#ifndef PQ_LEAK_RUN_H
#define PQ_LEAK_RUN_H

#include <jansson.h>
#include <stdint.h>

#include "core/pq_error.h"
#include "leak/leak_stats.h"
#include "runner/op_ctx.h"

#define LEAK_DEFAULT_BUDGET_S 4.0

struct leak_config {
	const char *lib;
	enum pq_op op;
	const char *classes;       /* --classes value, NULL = the op's defaults */
	double budget_s;           /* per operation, shared by its pairs (default 4) */
	long max_measurements;     /* per pair, 0 = as many as the budget allows */
	long mlen;                 /* message bytes (default 64) */
	const char *events;        /* default "cycles" */
	const char *backend;       /* force a counter backend, or NULL */
	int cpu;                   /* -1: no pinning */
	double timeout_s;          /* per child; 0 = twice the budget plus 120 s */
	uint64_t seed;             /* interleaving seed, 0 = fresh per child */
	const struct leak_floor *floor;  /* practical floor, NULL = the default (1 unit or 0.05% of the mean) */
	const char *command;       /* for the record */
	json_t *instance;          /* descriptor (borrowed) */
	json_t *environment;       /* borrowed, or NULL */
	const char *output_log;    /* the scheme's stdout/stderr go here, or nowhere: NULL (output_log.h) */
};

/*
 * Run the test for cfg->op.  On success (whatever the verdict) returns 0
 * and *record holds the record.  When scheme code misbehaves the return is
 * negative (PQ_ESCHEME) and *record still holds a record with "status":
 * "failed" and the reason.  A --classes value that names no pair of this
 * operation is PQ_EUSAGE with no record.
 */
int leak_run_op(const struct leak_config *cfg, json_t **record, pq_error *err);

/* The verdict of a complete record, from its "verdict" field. */
enum leak_verdict leak_record_verdict(const json_t *rec);

#endif
