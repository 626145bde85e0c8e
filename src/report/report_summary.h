/*
 * report_summary: what a reader needs before the numbered sections of a
 * report -- the command that made the campaign and when it ran, the
 * machine in one line, one row per instance and flag profile (KAT
 * verdict, each operation's median time and n, declared sizes, peak RSS;
 * for a candidate benched beside the standard baseline of its security
 * category, each operation and size as a multiple of the baseline's),
 * and the warnings that hold for the whole run, each said once.
 *
 * It is worked out once, as a JSON object (report.json's "summary", with
 * exact numbers), and the Markdown and HTML summary is rendered from that
 * object, so the formats cannot disagree.  Every fact comes from the
 * records; nothing here measures, prints or fails on a missing record.
 */
#ifndef PQ_REPORT_SUMMARY_H
#define PQ_REPORT_SUMMARY_H

#include <jansson.h>

#include "report/record_set.h"
#include "report/report_doc.h"

/*
 * The summary of rs (new reference), NULL when out of memory:
 *   {"command", "start_utc", "end_utc" (null when not recorded),
 *    "machine": {"text", "processor", "cpus", "pinned_cpu", "kernel", "os", "counters"},
 *    "operations": [op, ...] (the table's columns, in report order),
 *    "rows": [{"instance", "shown", "profile", "kind", "role", "category", "category_from",
 *              "standard" (baselines), "kat", "validated",
 *              "ops": {op: {"status", "median_ns", "median_of", "n", "failure"}},
 *              "sizes": {"pk", "sk", "sig" | "ct"}, "peak_rss_bytes",
 *              "baseline" (candidates with one): {"instance", "label", "standard", "note",
 *                 "ops": {op: {"ratio", "lo", "hi", "trials"}}, "sizes": {"pk", "sk", "sig" | "ct"}}}],
 *    "warnings": [{"kind", "text"}]}
 * The layout is described in doc/records.md (report.json).
 */
json_t *report_summary(const struct record_set *rs);

/* The summary as report blocks: an unnumbered "Summary" heading, the facts, the table, the warnings. */
void report_summary_doc(const json_t *summary, rdoc *d);

#endif
