/* json_file: atomic, newline-terminated JSON documents; see json_file.h. */
#include "config.h"
#include "core/json_file.h"

#include <stdlib.h>
#include <string.h>

#include "core/atomic_file.h"

int json_file_write(const char *path, const json_t *j, pq_error *err)
{
	if (!j)
		return pq_fail(err, PQ_EINTERNAL, "%s: no JSON document to write", path);
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (!text)
		return pq_fail(err, PQ_ENOMEM, "%s: cannot serialise JSON", path);
	size_t n = strlen(text);
	char *nl = realloc(text, n + 2);
	if (!nl) {
		free(text);
		return pq_fail(err, PQ_ENOMEM, "%s: out of memory", path);
	}
	nl[n] = '\n';
	nl[n + 1] = '\0';
	int r = atomic_write(path, nl, n + 1, err);
	free(nl);
	return r;
}
