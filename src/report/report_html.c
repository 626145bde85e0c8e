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
	"svg.chart text{font-size:11px;fill:#333}\n"
	"svg.chart .grid{stroke:#e3e3e3}svg.chart .axis{stroke:#888}svg.chart .caption{font-size:12px}\n"
	"figcaption .note{display:block;color:#666}\n"
	"nav.toc{font-size:.85em;margin:.3em 0 .6em;padding:.3em .6em;background:#f6f6f6;border:1px solid #e2e2e2}\n"
	"nav.toc ol{display:inline;margin:0;padding:0;list-style:none}nav.toc li{display:inline;white-space:nowrap}\n"
	"nav.toc li+li:before{content:' · ';color:#999}nav.toc .toc-title{font-weight:600;margin-right:.5em}\n"
	"span.inlined{display:inline-block;font-size:.75em;font-weight:600;color:#7a4b00;background:#fff1d6;"
	"border:1px solid #e0b96a;border-radius:3px;padding:0 .3em;margin-left:.35em;vertical-align:1px}\n"
	"iframe.flame{width:100%;height:520px;border:1px solid #ccc}\n"
	"details.fold{margin:.4em 0 .8em;padding:.2em .6em;border:1px solid #ddd;border-radius:3px}\n"
	"details.fold>summary{cursor:pointer;font-weight:600}\n"
	"pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8em;overflow-x:auto;"
	"background:#fafafa;padding:.5em}\n";

/*
 * The report's mark of a function whose samples all fell in inlined
 * copies: plain text in the model (and in Markdown), a visible badge here.
 */
#define INLINED_MARK "[inlined]"

/* The first k bytes of s, escaped (xml_escape works byte by byte, so a prefix needs no copy). */
static void xml_escape_n(FILE *f, const char *s, size_t k)
{
	char one[2] = { 0, 0 };
	for (size_t i = 0; i < k && s[i]; i++) {
		one[0] = s[i];
		xml_escape(f, one);
	}
}

/* Escaped text in which every INLINED_MARK becomes a styled span. */
static void text_with_marks(FILE *f, const char *s)
{
	const char *m;
	while ((m = strstr(s, INLINED_MARK)) != NULL) {
		size_t k = (size_t)(m - s);
		/* a space before the mark is the badge's margin */
		if (k && s[k - 1] == ' ')
			k--;
		xml_escape_n(f, s, k);
		fputs("<span class=\"inlined\" title=\"every sample of this function fell in code inlined into its "
		      "callers\">inlined</span>", f);
		s = m + strlen(INLINED_MARK);
	}
	xml_escape(f, s);
}

static void html_cell(FILE *f, const char *tag, const struct rd_cell *c)
{
	fprintf(f, "<%s>", tag);
	if (c->code) {
		/* the mark stays outside the code element */
		const char *m = strstr(c->text, INLINED_MARK);
		size_t k = m ? (size_t)(m - c->text) : strlen(c->text);
		while (m && k && c->text[k - 1] == ' ')
			k--;
		fputs("<code>", f);
		xml_escape_n(f, c->text, k);
		fputs("</code>", f);
		if (m)
			text_with_marks(f, c->text + k);
	} else {
		text_with_marks(f, c->text);
	}
	if (c->suffix)
		text_with_marks(f, c->suffix);
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
			text_with_marks(f, b->items[i]);
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
		if (b->chart->note) {
			fputs("<span class=\"note\">", f);
			xml_escape(f, b->chart->note);
			fputs("</span>", f);
		}
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

/* The contents: a link to every section heading that has an anchor, on one line so the summary stays in view. */
static void html_toc(FILE *f, const rdoc *doc)
{
	int any = 0;
	for (size_t i = 1; i < doc->n; i++) {
		const struct rd_block *b = &doc->b[i];
		if (b->kind != RD_HEADING || b->level != 2 || !b->id || !b->id[0])
			continue;
		if (!any++)
			fputs("<nav class=\"toc\" aria-label=\"Contents\"><span class=\"toc-title\">Contents</span><ol>", f);
		fputs("<li><a href=\"#", f);
		xml_escape(f, b->id);
		fputs("\">", f);
		xml_escape(f, b->text);
		fputs("</a></li>\n", f);
	}
	if (any)
		fputs("</ol></nav>\n", f);
}

const char *report_html_style(void)
{
	return css;
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
	for (size_t i = 0; i < doc->n; i++) {
		html_block(f, &doc->b[i], set_dir);
		if (i == 0 && doc->b[0].kind == RD_HEADING)
			html_toc(f, doc);
	}
	fprintf(f, "<p><small>Generated by pqprof %s.</small></p>\n</body>\n</html>\n", PACKAGE_VERSION);
	return atomic_file_commit(&af, err);
}
