/*
 * charts: inline SVG bar charts for the HTML report -- one horizontal bar
 * per label, or grouped bars (one per series, e.g. flag profile, in each
 * label's group, with a legend), a value axis with ticks and its caption
 * (the unit), and a logarithmic axis when the values span more than a
 * factor of 100, so a 10 µs keygen and a 40 s sign can share one chart.
 * A bar's interval, when the data has one, is drawn as an error bar; no
 * interval is ever made up here.  The SVG is plain markup (no script, no
 * external resources); every label is escaped.
 */
#ifndef PQ_REPORT_CHARTS_H
#define PQ_REPORT_CHARTS_H

#include <stdio.h>

#include "report/report_doc.h"

/* Ratio of largest to smallest positive value beyond which the axis is logarithmic. */
#define CHART_LOG_RATIO 100.0

/* 1 when the chart's axis will be logarithmic. */
int chart_uses_log(const struct rd_chart *c);

/* Write the chart as one <svg> element. */
void chart_bar_svg(FILE *out, const struct rd_chart *c);

#endif
