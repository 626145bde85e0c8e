/*
 * paths: where pqprof's own files are.  The runner executable
 * (pqprof-runner) and the package data directory (in-tree schemes, their
 * KAT vectors and manifests, the documentation) are found relative to the
 * running pqprof binary, so an installed prefix that was moved or copied
 * elsewhere keeps working; the configured install directories come last.
 * Not for campaign output locations (those are the commands' business).
 *
 * Runner, first that is an executable file:
 *   $PQPROF_RUNNER (if set, nothing else is tried);
 *   <dir of pqprof>/pqprof-runner (a build tree);
 *   for a pqprof in a bin directory like the configured one, the runner of
 *   that prefix: <prefix>/<pkglibexecdir below the configured prefix>
 *   (bin/../libexec/pqprof/pqprof-runner with the default layout), and
 *   never the configured one, which may belong to another version;
 *   otherwise the configured pkglibexecdir.
 * Data directory: $PQPROF_DATADIR, else in the same way
 *   <prefix>/<pkgdatadir below the configured prefix> (bin/../share/pqprof)
 *   or the configured pkgdatadir.
 * A scheme NAME given to `pqprof run`: a path that exists is taken as it
 * is; else ./schemes/NAME (a source tree), then <datadir>/schemes/NAME.
 */
#ifndef PQ_PATHS_H
#define PQ_PATHS_H

#include <stddef.h>
#include "core/pq_error.h"

/* The runner's path; PQ_ERUNNER naming every place looked in when none. */
int paths_runner(char *buf, size_t len, pq_error *err);

/* The package data directory; PQ_EINPUT naming the places looked in. */
int paths_datadir(char *buf, size_t len, pq_error *err);

/*
 * Resolve a `pqprof run` target: returns 0 with the path in buf, or
 * PQ_EINPUT saying where a scheme of that name was looked for.
 */
int paths_find_scheme(const char *target, char *buf, size_t len, pq_error *err);

#endif
