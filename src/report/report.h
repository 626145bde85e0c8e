/*
 * report: the human and machine reports of a campaign, written into the
 * campaign directory next to the records they come from:
 *   report.md    Markdown, the sections of the reference reports in order
 *   report.html  the same content as one self-contained page, with SVG
 *                charts and the flame graphs embedded
 *   report.csv   every figure, one row per (instance, profile, op, metric)
 *   report.json  every record merged into one document (pqprof.report/1)
 * The formats are described in doc/records.md.  Every file is written
 * atomically; nothing here prints.
 */
#ifndef PQ_REPORT_H
#define PQ_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "core/pq_error.h"
#include "report/record_set.h"
#include "report/report_doc.h"

/* Load campaign_dir and write all four reports into it. */
int report_write_all(const char *campaign_dir, pq_error *err);

/* The same for a loaded set, into out_dir (the set's directory when NULL). */
int report_write_set(const struct record_set *rs, const char *out_dir, pq_error *err);

/* The report's sections as blocks (report_build.c). */
int report_build_doc(const struct record_set *rs, rdoc *doc, pq_error *err);

/* Renderers.  set_dir is where relative paths in the document point. */
int report_write_markdown(const rdoc *doc, const char *path, pq_error *err);
/* The Markdown of doc onto an open stream (standard output for commands). */
void report_markdown_to(FILE *out, const rdoc *doc);
int report_write_html(const rdoc *doc, const char *set_dir, const char *path, pq_error *err);
/* The reports' one style sheet (CSS text), for other pages of pqprof's (report/round_index.h). */
const char *report_html_style(void);
int report_write_csv(const struct record_set *rs, const char *path, pq_error *err);
/* The merged document (new reference), NULL when out of memory. */
json_t *report_json(const struct record_set *rs);
int report_write_json(const struct record_set *rs, const char *path, pq_error *err);

/*
 * What a timing record's numbers count, as a column label: "cycles" only
 * when the backend counted CPU cycles, otherwise its unit ("TSC ticks",
 * "ns"); NULL when the record says nothing.
 */
const char *report_bench_unit(const json_t *bench);

/* A share in [0,1] as the reports write it: "0.5%", "4.1%", "23%"; "–" if not finite. */
void report_fmt_share(char *buf, size_t len, double share);

#endif
