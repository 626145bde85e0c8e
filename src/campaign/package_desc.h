/*
 * package_desc: a scheme descriptor for a whole submission package.  The
 * instances package_scan finds become descriptor instances (name, tree,
 * API, implementation version, KAT file when one matched), so a package
 * runs through the same campaign code as a hand-written scheme.json: in
 * memory for `pqprof run PACKAGE`, or as text for `pqprof scan
 * --write-descriptor`, for the user to edit (flag profiles, -D switches,
 * function groups).
 */
#ifndef PQ_PACKAGE_DESC_H
#define PQ_PACKAGE_DESC_H

#include "campaign/scheme_desc.h"
#include "instance/package_scan.h"

/*
 * Descriptor text (JSON, malloc'd) for a scanned package.  Paths are
 * written relative to desc_dir (where the descriptor will live), or
 * absolute when desc_dir is NULL.
 */
int package_desc_text(const struct pkg_scan *ps, const char *desc_dir, char **text, pq_error *err);

/* Parse the descriptor of a scanned package into d, as scheme_desc_read would a file. */
int package_desc_from_scan(const struct pkg_scan *ps, struct scheme_desc *d, pq_error *err);

/*
 * Scan the package at dir (links inside `within`, NULL: the package) and
 * parse the generated descriptor into d, as scheme_desc_read would a file.
 */
int package_desc_load(const char *dir, const char *within, struct scheme_desc *d, pq_error *err);

#endif
