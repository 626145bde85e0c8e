/*
 * leak_chart: |t| against the number of measurements, as a self-contained
 * SVG line chart drawn from a pqprof.leak/1 record: one line per class
 * pair (the largest |t| over its crops and tests at each point), a
 * logarithmic measurement axis, and the 4.5 threshold as a dashed line.
 * Plain markup, no script; every label is escaped.
 */
#ifndef PQ_LEAK_CHART_H
#define PQ_LEAK_CHART_H

#include <jansson.h>
#include <stdio.h>

#include "core/pq_error.h"

void leak_chart_svg(FILE *out, const json_t *rec);
/* The chart written atomically to path. */
int leak_chart_write(const json_t *rec, const char *path, pq_error *err);

#endif
