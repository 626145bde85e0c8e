/*
 * leak_step: the campaign's optional "leak" step (off unless --steps names
 * it or the scheme descriptor has a "leak" key): the timing-leak test of
 * each operation of a unit, with a time budget per operation, writing
 * leak/<label>__<op>.json (pqprof.leak/1) and leak/<label>__<op>.svg (the
 * |t| plot) in the campaign directory.  A finished record is not redone.
 */
#ifndef PQ_LEAK_STEP_H
#define PQ_LEAK_STEP_H

#include <jansson.h>

#include "core/pq_error.h"

#include "runner/op_ctx.h"

#define LEAK_STEP_QUICK_BUDGET_S 2.0

struct leak_step_opts {
	const char *dir;           /* campaign directory */
	const char *label;         /* <instance>__<profile> */
	const char *lib;
	json_t *instance;          /* descriptor (borrowed) */
	json_t *environment;       /* borrowed */
	const char *command;
	double budget_s;           /* per operation; 0 = the default */
	const char *classes;       /* NULL = each operation's default pairs */
	const char *floor;         /* --floor text (checked when the descriptor was read), NULL = the default */
	int cpu;
	const char *events;
};

/*
 * Run op unless its record is done (a result, or a failure that was the
 * scheme's; the tool's failures run again).  1 when done afterwards, 0 when
 * not, < 0 (err set) when the record or plot could not be written.
 */
int leak_step_op(const struct leak_step_opts *o, enum pq_op op, pq_error *err);

/* 1 when op's record is done (leak_step_op would not run it). */
int leak_step_done(const struct leak_step_opts *o, enum pq_op op);

#endif
