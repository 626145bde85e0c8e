/*
 * cmd_report: what `pqprof report` does to a trace, also called by
 * `pqprof profile` after recording: analyse, print the text report (or
 * the JSON records), write the record file and the flame graph.
 */
#ifndef PQ_CMD_REPORT_H
#define PQ_CMD_REPORT_H

#include <jansson.h>

#include "core/options.h"
#include "profile/groups.h"
#include "profile/profile_run.h"

struct report_args {
	const char *op;                 /* NULL: every operation in the trace */
	int top, lines, no_tree, json, stats;
	int silent;                     /* write the record and graph, print nothing */
	const struct group_set *groups; /* NULL: the trace's groups */
	const char *record;             /* FILE: one object, or an array when several ops */
	const char *flamegraph;         /* SVG path, or NULL */
	const char *folded;             /* folded-stacks path, or NULL */
	const struct profile_op_summary *ops; /* the recording's figures (perturbation), or NULL */
	int nops;
};

/* Returns the exit status; prints its own errors as "pqprof CMD: ...". */
int report_trace(const char *cmd, const char *trace, const struct report_args *ra);

/*
 * The groups a report or recording uses: those of --groups-from FILE (a
 * scheme.json), else those in the trace header (header may be NULL),
 * else the defaults; then every --group SPEC added.
 */
int report_groups(struct group_set **out, const char *groups_from, const struct opt_list *specs,
                  const json_t *header, pq_error *err);

#endif
