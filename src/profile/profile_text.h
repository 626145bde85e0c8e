/*
 * profile_text: a pqprof.profile/1 record (analysis.h) as the text report
 * `pqprof profile` and `pqprof report` print: the header lines (samples,
 * event and unit, lost and truncated stacks, call-graph mode), the top
 * functions by self and by inclusive share, the hottest source lines,
 * the call tree and the function-group table with exact calls per
 * operation.  Units are labelled by the event that ran: cycles for the
 * cycles event, ns of CPU time for cpu-clock and task-clock.  Only
 * formats; it computes nothing the record does not hold.
 */
#ifndef PQ_PROFILE_TEXT_H
#define PQ_PROFILE_TEXT_H

#include <jansson.h>
#include <stdio.h>

struct profile_text_opts {
	int top;           /* rows per function table, 0: 15 */
	int lines;         /* source lines, 0: 10, < 0: none */
	int no_tree;       /* leave out the call tree */
};

void profile_text_print(FILE *out, const json_t *record, const struct profile_text_opts *opts);

#endif
