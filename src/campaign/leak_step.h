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
	int cpu;
	const char *events;
};

/* Path of the unit's leak record for op. */
void leak_step_record_path(const struct leak_step_opts *o, enum pq_op op, char *buf, size_t len);

/* Run op unless its record exists; returns 1 when the record exists afterwards. */
int leak_step_op(const struct leak_step_opts *o, enum pq_op op);

#endif
