/*
 * safe_name: the one rule for turning free text (an instance name, a
 * profile, a scheme, a host name), which may come from a hand-edited
 * descriptor or from scheme code, into a file-name component, and for
 * checking one.  Writers of records make names with safe_name(); readers
 * accept exactly what safe_name_ok() says, so that pqprof always reads
 * back what it wrote.  Letters, digits and "-_.+" are kept, every other
 * byte becomes '_', a leading '.' becomes '_' and empty text becomes
 * "unnamed", so the result is never "", ".", ".." nor a hidden file, never
 * holds a '/', and is shorter than SAFE_NAME_MAX.  Different texts can give
 * one name ("x y" and "x_y"): callers that put several in one directory
 * must check.
 */
#ifndef PQ_SAFE_NAME_H
#define PQ_SAFE_NAME_H

#include <stddef.h>

#define SAFE_NAME_MAX 240

/* Writes at most min(len, SAFE_NAME_MAX) - 1 bytes and a NUL (len >= 2);
 * NULL text is empty; buf may be text itself. */
void safe_name(char *buf, size_t len, const char *text);

/* 1 when name is one safe_name() can produce. */
int safe_name_ok(const char *name);

#endif
