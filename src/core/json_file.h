/*
 * json_file: the one way pqprof writes a JSON document to a file: indented
 * by two, keys sorted, a trailing newline, through a temporary file renamed
 * into place (see atomic_file.h), so a reader never meets half a record.
 */
#ifndef PQ_JSON_FILE_H
#define PQ_JSON_FILE_H

#include <jansson.h>
#include "core/pq_error.h"

/* Fails (naming path) when j is NULL, cannot be serialised or written;
 * no file and no temporary is left behind then. */
int json_file_write(const char *path, const json_t *j, pq_error *err);

#endif
