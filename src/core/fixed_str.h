/*
 * fixed_str: text into fixed-size buffers, with truncation either refused
 * or asked for.  path_fmt builds a path and fails, naming the path, when it
 * does not fit: a path cut short would name another file.  str_copy is for
 * labels and messages, where a shortened copy is what is wanted.
 */
#ifndef PQ_FIXED_STR_H
#define PQ_FIXED_STR_H

#include <stddef.h>
#include "core/pq_error.h"

/* snprintf into buf[len]; PQ_EINPUT ("<start of path>...: path too long")
 * when the result needs len bytes or more, buf then holds "". */
int path_fmt(char *buf, size_t len, pq_error *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Copy src (NULL is "") into dst[cap], cut short if needed; returns 1 when
 * it was cut, else 0. */
int str_copy(char *dst, size_t cap, const char *src);

#endif
