/*
 * bench: the parent side of `pqprof bench`.  Calibrates an operation with
 * one call in a fresh runner child, chooses iterations per trial, runs each
 * trial in its own fresh child, and turns the per-call counter values into
 * a record: every raw trial, the backend that produced the numbers and its
 * read overhead, the summary statistics, the command and the environment.
 * What the scheme prints never enters the record: the record says how
 * many bytes per timed call went to stdout and stderr, the text goes to
 * the job's log (output_log).  The record schema is documented in
 * doc/records.md.
 */
#ifndef PQ_BENCH_H
#define PQ_BENCH_H

#include <jansson.h>

#include "core/pq_error.h"
#include "runner/op_ctx.h"

struct bench_config {
	const char *lib;
	enum pq_op op;
	int trials;             /* default 5 */
	double target_s;        /* target trial time, default 1.0 */
	long min_calls;         /* default 100 */
	long max_iters;         /* cap per trial, default 20000 */
	long fixed_iters;       /* skip calibration when > 0 */
	const char *events;     /* default "cycles" */
	const char *backend;    /* force a counter backend, or NULL */
	int cpu;                /* -1: no pinning */
	double timeout_s;       /* per child, default 900; a trial's limit grows with its planned length */
	/*
	 * Wall time for all the trials of this operation, 0 = none.  An
	 * operation of seconds then gets fewer iterations per trial (and, when
	 * even one call per trial does not fit, fewer trials) so that its
	 * trials fit the budget; the record says what n it reached and why.
	 */
	double op_budget_s;
	int op_budget_default;  /* op_budget_s is a default: recorded only where it lowered n */
	long mlen;              /* default 64 */
	unsigned long long as_limit;
	const char *command;    /* the command line, for the record */
	json_t *instance;       /* descriptor (borrowed), from instance_describe() (describe.h) */
	json_t *environment;    /* borrowed, or NULL */
	/* The scheme's stdout/stderr of every child goes here (written whole at the end), or nowhere: NULL. */
	const char *output_log;
};

/*
 * Run calibration and trials.  On success *record holds the record (new
 * reference).  When scheme code misbehaves the return is PQ_ESCHEME and
 * *record still holds a record with "status":"failed" and the reason.
 */
int bench_run(const struct bench_config *cfg, json_t **record, pq_error *err);

/*
 * Several benches run together, their trials interleaved (A, B, C, A, B,
 * C...; each trial records its "seq" in that order): so that drifts and
 * slow spells of the machine do not favour whichever unit ran first.
 * Every trial carries its contention evidence (measure/contention.h);
 * the summary's headline is the median and minimum of per-call values.  records[i] and
 * errs[i] belong to cfgs[i]; returns the first failure, 0 if none.
 */
int bench_run_interleaved(const struct bench_config *cfgs, int n, json_t **records, pq_error *errs);

/* The child result as a verdict string and one-line reason. */
struct child_result;
const char *bench_failure_kind(const struct child_result *res);
/*
 * The record of a bench that was not run because the operation already
 * timed out (in the KAT replay): status failed, failure kind TIMEOUT,
 * blamed on the scheme, "not_run": true, the reason why (new reference).
 */
json_t *bench_not_run_record(const struct bench_config *cfg, const char *why);

#endif
