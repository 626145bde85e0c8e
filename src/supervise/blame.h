/*
 * blame: whose fault a runner child's end was.  The scheme's (it crashed,
 * hung, called exit(), failed its own checks: PQ_ESCHEME) or pqprof's and
 * the machine's (the library cannot be loaded, counters are unavailable,
 * the runner could not start, memory for the job itself ran out).  Only
 * the first kind becomes a verdict about the scheme; the rest are tool
 * failures, reported with their own exit codes and retried by a campaign.
 */
#ifndef PQ_BLAME_H
#define PQ_BLAME_H

#include "supervise/child.h"

/* 0 for CHILD_OK without orphans, else a PQ_E* code (positive) saying who failed. */
int child_blame(const struct child_result *res);

/* "scheme" when code is PQ_ESCHEME, else "tool": the failure_kind of records. */
const char *blame_kind(int code);

#endif
