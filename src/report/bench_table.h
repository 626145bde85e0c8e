/*
 * bench_table: the performance table as pqprof prints it on a terminal,
 * from pqprof.bench/1 records (used by `pqprof bench` and `pqprof run`).
 * The unit columns say what was measured ("median cycles" only when the
 * backend counted cycles); the median and minimum of per-call values lead,
 * the mean follows, and "contended" counts the flagged trials.
 */
#ifndef PQ_BENCH_TABLE_H
#define PQ_BENCH_TABLE_H

#include <jansson.h>
#include <stdio.h>

/* Header line for records whose backend unit is `unit` ("cycles", "TSC ticks", "ns"). */
void bench_table_header(FILE *out, const char *unit);
/* One row; `name` overrides the record's instance name (may be NULL);
 * `extra` (may be NULL) is appended, e.g. a KAT verdict. */
void bench_table_row(FILE *out, json_t *record, const char *name, const char *extra);

#endif
