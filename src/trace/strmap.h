/*
 * strmap: a string-keyed hash map from owned keys to size_t values (in
 * practice indices into the caller's own arrays), used by the folded
 * profile model and the exporters to merge stacks, frames and call
 * edges.  Keys are kept in insertion order, so iteration is
 * deterministic.  Not a general container library.
 */
#ifndef PQ_STRMAP_H
#define PQ_STRMAP_H

#include <stddef.h>

struct strmap {
	char **keys;      /* insertion order; keys[i] is NUL-terminated */
	size_t *vals;
	size_t n, cap;
	size_t *slots;    /* index + 1, 0 = empty */
	size_t nslots;
};

/* 1 and *val set if key[0..len) is present, else 0. */
int strmap_get(const struct strmap *m, const char *key, size_t len, size_t *val);

/* Insert or overwrite; the key is copied.  0, or -1 when out of memory. */
int strmap_put(struct strmap *m, const char *key, size_t len, size_t val);

void strmap_free(struct strmap *m);

#endif
