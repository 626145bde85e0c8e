/*
 * label: the one rule for turning a name (an instance, a scheme, a host)
 * into a file-name stem, and for checking one.  Writers of records make
 * labels with label_make(); readers accept exactly what label_ok() says,
 * so that pqprof always reads back what it wrote.  A label keeps letters,
 * digits and "-_.+", turns every other byte into '_', never starts with
 * '.' (a hidden file that directory scans skip), is never empty and is
 * shorter than LABEL_MAX.  Different names can give one label ("x y" and
 * "x_y"): callers that put several names in one directory must check.
 */
#ifndef PQ_LABEL_H
#define PQ_LABEL_H

#include <stddef.h>

#define LABEL_MAX 240

/* The label of `name` (NULL or "" gives "unnamed"), at most len-1 and LABEL_MAX-1 bytes. */
void label_make(char *buf, size_t len, const char *name);

/* 1 when `label` is one label_make() can produce. */
int label_ok(const char *label);

#endif
