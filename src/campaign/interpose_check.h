/*
 * interpose_check: the campaign's interposition check.  For one instance
 * it times the locally bound library and the plain -fPIC one (see
 * instance/link_scope.h) for every operation in a paired in-process study
 * (supervise/paired.h: both forms loaded side by side in each runner,
 * round by round, fresh runner processes as the outer level), and states
 * the factor plain / local per operation with its 95% interval.  The factor says how much
 * of a reference report's number was the harness's library form rather
 * than the scheme.  It writes nothing: the record comes back to the
 * campaign, which files it under interposition/.
 */
#ifndef PQ_INTERPOSE_CHECK_H
#define PQ_INTERPOSE_CHECK_H

#include <jansson.h>

#include "core/ops.h"
#include "core/pq_error.h"

/* A factor is flagged when its whole interval lies beyond 1 +/- this. */
#define INTERPOSE_NOISE 0.10
/* It looks for factors, not for percent: a study stops at +/-3% (or its budget). */
#define INTERPOSE_PRECISION 0.03
#define INTERPOSE_MIN_PROCESSES 3
#define INTERPOSE_BUDGET_S 10.0     /* per operation */
#define INTERPOSE_QUICK_BUDGET_S 4.0

struct interpose_check_opts {
	const char *local_lib;      /* -fno-semantic-interposition, -Bsymbolic-functions */
	const char *plain_lib;      /* plain -fPIC */
	const enum pq_op *ops;
	int nops;
	double budget_s;            /* seconds per operation's study (0: INTERPOSE_BUDGET_S); at least two
	                               runner processes of two rounds each run whatever it is */
	const char *events;
	int cpu;
	double timeout_s;
	const char *command;
	json_t *instance;           /* borrowed descriptor */
	json_t *environment;        /* borrowed, or NULL */
	int measured_plain;         /* the campaign's figures are the plain form's (--plain-pic) */
};

/*
 * Run the check.  *record is a pqprof.interposition/1 record (new
 * reference) whenever it returns 0; an operation that failed in either
 * form is listed with its failure and no factor.
 */
int interpose_check_run(const struct interpose_check_opts *o, json_t **record, pq_error *err);

#endif
