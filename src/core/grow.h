/*
 * grow: the one way pqprof grows a heap array.  pq_grow makes *p (elements
 * of `elem` bytes, capacity *cap) hold at least `need` elements, doubling
 * from `first`.  On failure *p and *cap are unchanged and it returns -1.
 */
#ifndef PQ_GROW_H
#define PQ_GROW_H

#include <stddef.h>

int pq_grow(void *pp, size_t *cap, size_t need, size_t elem, size_t first);

#endif
