/*
 * report_html: renders the report's blocks as one self-contained HTML
 * page: inline CSS, inline SVG charts (charts.h), and the flame graphs
 * embedded as sandboxed iframes whose srcdoc holds the SVG file itself,
 * so each graph keeps its own script and ids without touching the page
 * or the other graphs.  Nothing is loaded from elsewhere; every piece of
 * record text is escaped.
 */
#include "config.h"
#include "report/report.h"
#include "report/charts.h"
#include "report/escape.h"
#include "core/atomic_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Flame graphs larger than this are linked rather than embedded. */
#define FLAME_EMBED_MAX (8u << 20)

static const char css[] =
	"body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1100px;"
	"padding:0 1em;color:#222;line-height:1.45}\n"
	"h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.8em}\n"
	"h3{font-size:1.05em;margin-top:1.4em}\n"
	"table{border-collapse:collapse;margin:.6em 0 1em;font-size:.9em}\n"
	"th,td{border:1px solid #ccc;padding:.25em .55em;text-align:left;vertical-align:top}\n"
	"th{background:#f2f2f2}tr:nth-child(even) td{background:#fafafa}\n"
	"code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.95em}\n"
	"figure{margin:1em 0}figcaption{font-size:.85em;color:#555}\n"
	"svg.chart text{font-size:11px;fill:#333}svg.chart .bar{fill:#4878b0}\n"
	"svg.chart .grid{stroke:#e3e3e3}svg.chart .axis{stroke:#888}svg.chart .caption{font-size:12px}\n"
	"iframe.flame{width:100%;height:520px;border:1px solid #ccc}\n"
	"details.fold{margin:.4em 0 .8em;padding:.2em .6em;border:1px solid #ddd;border-radius:3px}\n"
	"details.fold>summary{cursor:pointer;font-weight:600}\n"
	"pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8em;overflow-x:auto;"
	"background:#fafafa;padding:.5em}\n";

static void html_cell(FILE *f, const char *tag, const struct rd_cell *c)
{
	fprintf(f, "<%s>", tag);
	if (c->code)
		fputs("<code>", f);
	xml_escape(f, c->text);
	if (c->code)
		fputs("</code>", f);
	if (c->suffix)
		xml_escape(f, c->suffix);
	fprintf(f, "</%s>", tag);
}

static void html_table(FILE *f, const struct rd_table *t)
{
	fputs("<table>\n<thead><tr>", f);
	for (int i = 0; i < t->ncols; i++) {
		fputs("<th>", f);
		xml_escape(f, t->headers[i]);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs("<tr>", f);
		for (int i = 0; i < t->ncols; i++)
			html_cell(f, "td", &t->cells[r * (size_t)t->ncols + (size_t)i]);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

static void html_flame(FILE *f, const struct rd_block *b, const char *set_dir)
{
	char path[8192];
	snprintf(path, sizeof path, "%s/%s", set_dir ? set_dir : ".", b->path);
	char *svg = NULL;
	size_t len = 0;
	int ok = read_whole_file(path, &svg, &len, FLAME_EMBED_MAX, NULL) == 0 && len > 0;
	fputs("<figure class=\"flame\">\n", f);
	if (ok) {
		fputs("<iframe class=\"flame\" sandbox=\"allow-scripts\" title=\"", f);
		xml_escape(f, b->text);
		fputs("\" srcdoc=\"", f);
		xml_escape(f, svg);
		fputs("\"></iframe>\n", f);
	}
	fputs("<figcaption>", f);
	xml_escape(f, b->text);
	fputs(": <a href=\"", f);
	esc_url(f, b->path);
	fputs("\">", f);
	xml_escape(f, b->path);
	fprintf(f, "</a>%s</figcaption>\n</figure>\n", ok ? "" : " (not embedded: missing, empty or too large)");
	free(svg);
}

static void html_block(FILE *f, const struct rd_block *b, const char *set_dir)
{
	switch (b->kind) {
	case RD_HEADING:
		fprintf(f, "<h%d", b->level);
		if (b->id && b->id[0]) {
			fputs(" id=\"", f);
			xml_escape(f, b->id);
			fputc('"', f);
		}
		fputc('>', f);
		xml_escape(f, b->text);
		fprintf(f, "</h%d>\n", b->level);
		break;
	case RD_PARA:
		fputs("<p>", f);
		xml_escape(f, b->text);
		fputs("</p>\n", f);
		break;
	case RD_LIST:
		fputs("<ul>\n", f);
		for (size_t i = 0; i < b->nitems; i++) {
			fputs("<li>", f);
			xml_escape(f, b->items[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
		break;
	case RD_TABLE:
		html_table(f, b->table);
		break;
	case RD_CHART:
		fputs("<figure class=\"chart\">\n", f);
		chart_bar_svg(f, b->chart);
		fputs("<figcaption>", f);
		xml_escape(f, b->chart->title);
		fputs("</figcaption>\n</figure>\n", f);
		break;
	case RD_FLAME:
		html_flame(f, b, set_dir);
		break;
	case RD_FOLD:
		fputs("<details class=\"fold\"><summary>", f);
		xml_escape(f, b->text);
		fputs("</summary>\n", f);
		break;
	case RD_FOLD_END:
		fputs("</details>\n", f);
		break;
	case RD_PRE:
		fputs("<pre>", f);
		xml_escape(f, b->text);
		fputs("</pre>\n", f);
		break;
	}
}

int report_write_html(const rdoc *doc, const char *set_dir, const char *path, pq_error *err)
{
	if (doc->oom)
		return pq_fail(err, PQ_ENOMEM, "%s: report incomplete (out of memory)", path);
	atomic_file af;
	int r = atomic_file_open(&af, path, err);
	if (r < 0)
		return r;
	FILE *f = af.fp;
	const char *title = doc->n && doc->b[0].kind == RD_HEADING ? doc->b[0].text : "pqprof report";
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	xml_escape(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
	for (size_t i = 0; i < doc->n; i++)
		html_block(f, &doc->b[i], set_dir);
	fprintf(f, "<p><small>Generated by pqprof %s.</small></p>\n</body>\n</html>\n", PACKAGE_VERSION);
	return atomic_file_commit(&af, err);
}
