/*
 * report_md: renders the report's blocks as Markdown (GitHub flavour
 * tables).  Charts exist only in the HTML page; flame graphs become links
 * to their SVG files.
 */
#include "config.h"
#include "report/report.h"
#include "report/escape.h"
#include "core/atomic_file.h"

#include <stdio.h>

static void md_cell(FILE *f, const struct rd_cell *c)
{
	if (c->code)
		esc_md_code(f, c->text, 1);
	else
		esc_md(f, c->text, 1);
	if (c->suffix)
		esc_md(f, c->suffix, 1);
}

static void md_table(FILE *f, const struct rd_table *t)
{
	fputc('|', f);
	for (int i = 0; i < t->ncols; i++) {
		fputc(' ', f);
		esc_md(f, t->headers[i], 1);
		fputs(" |", f);
	}
	fputs("\n|", f);
	for (int i = 0; i < t->ncols; i++)
		fputs("---|", f);
	fputc('\n', f);
	for (size_t r = 0; r < t->nrows; r++) {
		fputc('|', f);
		for (int i = 0; i < t->ncols; i++) {
			fputc(' ', f);
			md_cell(f, &t->cells[r * (size_t)t->ncols + (size_t)i]);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void md_block(FILE *f, const struct rd_block *b)
{
	switch (b->kind) {
	case RD_HEADING:
		for (int i = 0; i < b->level; i++)
			fputc('#', f);
		fputc(' ', f);
		esc_md(f, b->text, 0);
		fputs("\n\n", f);
		break;
	case RD_PARA:
		esc_md(f, b->text, 0);
		fputs("\n\n", f);
		break;
	case RD_LIST:
		for (size_t i = 0; i < b->nitems; i++) {
			fputs("- ", f);
			esc_md(f, b->items[i], 0);
			fputc('\n', f);
		}
		fputc('\n', f);
		break;
	case RD_TABLE:
		md_table(f, b->table);
		break;
	case RD_CHART:
		break;
	case RD_FLAME:
		esc_md(f, b->text, 0);
		fputs(": [", f);
		esc_md(f, b->path, 0);
		fputs("](", f);
		esc_url(f, b->path);
		fputs(")\n\n", f);
		break;
	case RD_FOLD:
	case RD_FOLD_END:
	case RD_PRE:
		break;
	}
}

void report_markdown_to(FILE *out, const rdoc *doc)
{
	int folded = 0;   /* folds are detail for the page only */
	for (size_t i = 0; i < doc->n; i++) {
		if (doc->b[i].kind == RD_FOLD)
			folded++;
		else if (doc->b[i].kind == RD_FOLD_END)
			folded -= folded > 0;
		else if (!folded)
			md_block(out, &doc->b[i]);
	}
}

int report_write_markdown(const rdoc *doc, const char *path, pq_error *err)
{
	if (doc->oom)
		return pq_fail(err, PQ_ENOMEM, "%s: report incomplete (out of memory)", path);
	atomic_file af;
	int r = atomic_file_open(&af, path, err);
	if (r < 0)
		return r;
	report_markdown_to(af.fp, doc);
	return atomic_file_commit(&af, err);
}
