/*
 * cmd_scan: the plan of a submission package as `pqprof scan` prints it,
 * shared with `pqprof run PACKAGE --dry-run`.
 */
#ifndef PQ_CMD_SCAN_H
#define PQ_CMD_SCAN_H

#include <stdio.h>
#include "instance/package_scan.h"

/*
 * What the scan found and why: folders, each instance, what was passed
 * over, a summary.  With observe_root non-NULL each tree's own build is
 * run (observed, contained) and what it links is printed; observe_root is
 * the source root its links may reach ("" for the tree itself).
 */
void scan_print_plan(FILE *out, const struct pkg_scan *ps, const char *observe_root);

#endif
