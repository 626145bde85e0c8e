/*
 * round_index: one index across the campaigns of a round
 * (campaign/round.h): ROOT/index.md, index.html, index.csv and index.json
 * (schema pqprof.round/1), one row per instance of every package.  Each
 * row gives the package, instance, kind, NIST security category, KAT
 * verdict, median time of each operation, key and signature or
 * ciphertext sizes, the ratios to the baseline instance with their
 * intervals, and the relative links to the package's full report.
 *
 * It reads only files: ROOT/round.json for the packages and what each
 * ended in, and in each ROOT/<package>/ the campaign's report.json
 * (summary.rows[]), its build and KAT records for a failed instance's
 * reason, or campaign.json when no report was written.  A package that
 * has no report still has its row, with its verdict and reason.  Fields
 * a report lacks (the role, category and baseline of older reports) are
 * shown as "–" and written as null.  Baseline instances are listed once
 * each, apart from the candidates.  Rows are sorted by category (none
 * last), then package, then instance.  Without round.json (a round whose
 * campaigns ran elsewhere) every folder of ROOT with a campaign is a
 * package.
 */
#ifndef PQ_ROUND_INDEX_H
#define PQ_ROUND_INDEX_H

#include "core/pq_error.h"

#define ROUND_INDEX_SCHEMA "pqprof.round/1"

/* 1 when dir holds a round (its round.json). */
int round_index_is_round(const char *dir);

/* Write the four index files of the round in root. */
int round_index_write(const char *root, pq_error *err);

#endif
