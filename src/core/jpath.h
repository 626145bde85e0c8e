/*
 * jpath: tolerant lookups into parsed records.  Reports, profiles and
 * commands read records that other stages (and other versions of pqprof)
 * wrote, so every lookup must
 * survive a missing key or a value of the wrong type: a dotted path such
 * as "summary.mean_units" either names a value of the wanted type or the
 * caller's default comes back.  Nothing here allocates or fails.
 */
#ifndef PQ_CORE_JPATH_H
#define PQ_CORE_JPATH_H

#include <jansson.h>

/* The value at a dotted path ("a.b.c"), or NULL. */
json_t *jp(const json_t *root, const char *path);
/* A number (integer or real) at path, or dflt. */
double jp_num(const json_t *root, const char *path, double dflt);
/* An integer at path (a real does not count), or dflt. */
long long jp_int(const json_t *root, const char *path, long long dflt);
/* A string at path, or dflt. */
const char *jp_str(const json_t *root, const char *path, const char *dflt);
/* A non-empty string at path, or dflt ("" counts as absent: a label to show). */
const char *jp_text(const json_t *root, const char *path, const char *dflt);
/* 1 if the value at path is JSON true, 0 otherwise. */
int jp_true(const json_t *root, const char *path);

#endif
