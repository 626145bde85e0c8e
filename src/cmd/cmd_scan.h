/*
 * cmd_scan: the plan of a submission package as `pqprof scan` prints it,
 * shared with `pqprof run PACKAGE --dry-run`.
 */
#ifndef PQ_CMD_SCAN_H
#define PQ_CMD_SCAN_H

#include <stdio.h>
#include "instance/package_scan.h"

/* What the scan found and why: folders, each instance, what was passed over, a summary. */
void scan_print_plan(FILE *out, const struct pkg_scan *ps);

#endif
