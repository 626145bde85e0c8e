/*
 * escape: writing untrusted text (instance names, failure reasons, symbol
 * names, all of which come from scheme code or hand-edited records) into
 * each output format so that it stays text: HTML/XML character escapes,
 * Markdown backslash escapes, RFC 4180 CSV fields and percent-encoded
 * relative URLs.
 */
#ifndef PQ_REPORT_ESCAPE_H
#define PQ_REPORT_ESCAPE_H

#include <stdio.h>

/* & < > " ' as character references; control characters become spaces. */
void esc_html(FILE *out, const char *s);
/* Markdown inline text: punctuation that could start markup gets a backslash; table: also '|'. */
void esc_md(FILE *out, const char *s, int in_table);
/* Markdown code span, fenced with enough backticks; '|' escaped in tables. */
void esc_md_code(FILE *out, const char *s, int in_table);
/* One CSV field, quoted when it holds a comma, quote, CR or LF. */
void esc_csv(FILE *out, const char *s);
/* A relative path as a URL: unreserved characters and '/' kept, the rest %XX. */
void esc_url(FILE *out, const char *s);

#endif
