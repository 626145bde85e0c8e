/*
 * sizes_audit: what a sizes record (schema pqprof.sizes/1, written by
 * `pqprof sizes` and the campaign) says about the declared sizes.  An
 * element produced larger than declared is an error, one produced smaller
 * than declared a note; elements that match give no line.  Pure reading
 * of the record: the same lines in the terminal and in reports.
 */
#ifndef PQ_SIZES_AUDIT_H
#define PQ_SIZES_AUDIT_H

#include <jansson.h>

/* The audit lines of a sizes record: "signature: produced up to 100 bytes, declared 96 (error)".
 * Fills at most max lines; returns how many. */
int sizes_audit(json_t *sizes_record, char lines[][256], int max);

#endif
