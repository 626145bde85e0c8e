/*
 * escape: writing untrusted text (instance names, failure reasons, symbol
 * names, all of which come from scheme code or hand-edited records) into
 * each output format so that it stays text: Markdown backslash escapes,
 * RFC 4180 CSV fields and percent-encoded relative URLs.  HTML/XML text
 * escaping, which SVG output shares, is core/xml_escape.h.
 */
#ifndef PQ_REPORT_ESCAPE_H
#define PQ_REPORT_ESCAPE_H

#include <stdio.h>
#include "core/xml_escape.h"

/* Markdown inline text: punctuation that could start markup gets a backslash; table: also '|'. */
void esc_md(FILE *out, const char *s, int in_table);
/* Markdown code span, fenced with enough backticks; '|' escaped in tables. */
void esc_md_code(FILE *out, const char *s, int in_table);
/* One CSV field, quoted when it holds a comma, quote, CR or LF. */
void esc_csv(FILE *out, const char *s);
/* A relative path as a URL: unreserved characters and '/' kept, the rest %XX. */
void esc_url(FILE *out, const char *s);

#endif
