/*
 * report_compare: the report's "Comparison" section, present when the
 * campaign holds comparisons (compare/<A>_vs_<B>/compare.json, as
 * `pqprof run --profiles A,B` writes them): for each, the ratios with
 * their intervals, how the runs were made (interleaved or separate), the
 * verdicts with their reasons, the A/A line when there is one, and the
 * per-function table in absolute cost per operation.
 */
#ifndef PQ_REPORT_COMPARE_SECTION_H
#define PQ_REPORT_COMPARE_SECTION_H

#include "core/pq_error.h"
#include "report/record_set.h"
#include "report/report_doc.h"

/* 1 when the campaign holds a comparison: the report then has this section. */
int report_compare_present(const struct record_set *rs);
/*
 * The section's body (the caller writes its numbered heading).  Fails
 * (naming the file) when a compare.json is unreadable or not pqprof.compare/1.
 */
int report_section_compare(const struct record_set *rs, rdoc *d, pq_error *err);

#endif
