/*
 * summary_charts: the summary's median times as charts, so the page shows
 * at a glance what the summary table says in numbers.  With one flag
 * profile: one chart, a group of bars per instance, a bar per operation.
 * A flag study (several profiles): a chart per operation, a group per
 * instance, a bar per profile.  Everything comes from the summary object
 * (report_summary.h); the charts are HTML only (Markdown leaves charts out).
 *
 * Error bars: the timing records give each median with its n but no
 * interval for it, so no bar has one; each chart says so rather than
 * drawing a spread the data does not state.
 */
#ifndef PQ_REPORT_SUMMARY_CHARTS_H
#define PQ_REPORT_SUMMARY_CHARTS_H

#include <jansson.h>

#include "report/report_doc.h"

/* Append the summary's charts to d (nothing when no median was measured). */
void report_summary_charts(const json_t *summary, rdoc *d);

#endif
