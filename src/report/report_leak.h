/*
 * report_leak: the report's "Timing leaks" section, present when the
 * record set holds timing-leak records (leak/<label>__<op>.json, as the
 * campaign's leak step writes them): the verdict per instance, operation
 * and class pair with what was compared, the counter and the contention
 * evidence, and the plot of |t| against measurements per operation.
 */
#ifndef PQ_REPORT_LEAK_H
#define PQ_REPORT_LEAK_H

#include "report/record_set.h"
#include "report/report_doc.h"

/* 1 when the set holds a timing-leak record: the report then has this section. */
int report_leak_present(const struct record_set *rs);
/* The section's body (the caller writes its numbered heading). */
void report_section_leak(const struct record_set *rs, rdoc *d);

#endif
