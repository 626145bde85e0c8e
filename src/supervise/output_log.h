/*
 * output_log: a runner child's scheme output (what the scheme wrote to
 * stdout and stderr, captured by child.c) written to the job's own log,
 * and the record's note about it: how many bytes, per stream and
 * operation as the runner counted them (runner/scheme_output.h).  The
 * text never goes into a record.
 */
#ifndef PQ_OUTPUT_LOG_H
#define PQ_OUTPUT_LOG_H

#include <jansson.h>

#include "supervise/child.h"

/*
 * When the child printed anything: write its captured output to path
 * (atomically; NULL: nowhere) and return {"bytes": N, "per_op": {...},
 * "log": path} (new reference); NULL when it printed nothing.
 */
json_t *output_log_write(const struct child_result *cr, const char *path);

#endif
