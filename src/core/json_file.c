/* json_file: atomic, newline-terminated JSON documents; see json_file.h. */
#include "config.h"
#include "core/json_file.h"

#include <errno.h>
#include <stdio.h>

#include "core/atomic_file.h"

int json_file_write(const char *path, const json_t *j, pq_error *err)
{
	if (!j)
		return pq_fail(err, PQ_EINTERNAL, "%s: no JSON document to write", path);
	atomic_file af;
	int r = atomic_file_open(&af, path, err);
	if (r < 0)
		return r;
	if (json_dumpf(j, af.fp, JSON_INDENT(2) | JSON_SORT_KEYS) != 0 || fputc('\n', af.fp) == EOF) {
		int e = errno;
		atomic_file_abort(&af);
		errno = e;
		return pq_fail_errno(err, PQ_EIO, "%s: write failed", path);
	}
	return atomic_file_commit(&af, err);
}
