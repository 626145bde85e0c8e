/* report_doc: the block model of a report; see report_doc.h. */
#include "config.h"
#include "report/report_doc.h"
#include "core/grow.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *vdupf(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

char *rd_strdupf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vdupf(fmt, ap);
	va_end(ap);
	return s;
}

void rdoc_init(rdoc *d)
{
	memset(d, 0, sizeof *d);
}

static struct rd_block *push(rdoc *d, enum rd_kind kind)
{
	if (pq_grow(&d->b, &d->cap, d->n + 1, sizeof *d->b, 64) < 0) {
		d->oom = 1;
		return NULL;
	}
	struct rd_block *b = &d->b[d->n++];
	memset(b, 0, sizeof *b);
	b->kind = kind;
	return b;
}

static char *checked(rdoc *d, char *s)
{
	if (!s)
		d->oom = 1;
	return s;
}

/* A new block whose text is formatted from fmt; NULL when out of memory. */
static struct rd_block *push_text(rdoc *d, enum rd_kind kind, const char *fmt, va_list ap)
{
	struct rd_block *b = push(d, kind);
	if (b)
		b->text = checked(d, vdupf(fmt, ap));
	return b;
}

void rdoc_heading(rdoc *d, int level, const char *id, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct rd_block *b = push_text(d, RD_HEADING, fmt, ap);
	va_end(ap);
	if (!b)
		return;
	b->level = level;
	b->id = checked(d, strdup(id ? id : ""));
}

void rdoc_para(rdoc *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	push_text(d, RD_PARA, fmt, ap);
	va_end(ap);
}

void rdoc_list(rdoc *d)
{
	push(d, RD_LIST);
}

void rdoc_item(rdoc *d, const char *fmt, ...)
{
	if (!d->n || d->b[d->n - 1].kind != RD_LIST)
		rdoc_list(d);
	if (d->oom)
		return;
	struct rd_block *b = &d->b[d->n - 1];
	if (pq_grow(&b->items, &b->cap_items, b->nitems + 1, sizeof *b->items, 8) < 0) {
		d->oom = 1;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	b->items[b->nitems] = checked(d, vdupf(fmt, ap));
	va_end(ap);
	if (b->items[b->nitems])
		b->nitems++;
}

struct rd_table *rdoc_table(rdoc *d, int ncols, const char *const *headers)
{
	struct rd_block *b = push(d, RD_TABLE);
	if (!b)
		return NULL;
	struct rd_table *t = calloc(1, sizeof *t);
	char **h = calloc((size_t)ncols, sizeof *h);
	if (!t || !h) {
		free(t);
		free(h);
		d->oom = 1;
		return NULL;
	}
	t->ncols = ncols;
	t->headers = h;
	for (int i = 0; i < ncols; i++)
		h[i] = checked(d, strdup(headers[i] ? headers[i] : ""));
	b->table = t;
	return t;
}

void rd_row(rdoc *d, struct rd_table *t, const char *const *cells, unsigned code)
{
	if (!t)
		return;
	/* one element of the growth is a whole row */
	if (pq_grow(&t->cells, &t->cap, t->nrows + 1, (size_t)t->ncols * sizeof *t->cells, 16) < 0) {
		d->oom = 1;
		return;
	}
	struct rd_cell *row = &t->cells[t->nrows * (size_t)t->ncols];
	for (int i = 0; i < t->ncols; i++) {
		row[i].text = checked(d, strdup(cells[i] ? cells[i] : "–"));
		row[i].code = cells[i] && (code >> i & 1u);
		row[i].suffix = NULL;
	}
	t->nrows++;
}

void rd_suffix(rdoc *d, struct rd_table *t, int col, const char *suffix)
{
	if (!t || !t->nrows || col < 0 || col >= t->ncols)
		return;
	struct rd_cell *c = &t->cells[(t->nrows - 1) * (size_t)t->ncols + (size_t)col];
	free(c->suffix);
	c->suffix = checked(d, strdup(suffix));
}

struct rd_chart *rdoc_chart(rdoc *d, const char *title, const char *axis, int bytes)
{
	struct rd_block *b = push(d, RD_CHART);
	if (!b)
		return NULL;
	struct rd_chart *c = calloc(1, sizeof *c);
	if (!c) {
		d->oom = 1;
		return NULL;
	}
	c->title = checked(d, strdup(title));
	c->axis = checked(d, strdup(axis));
	c->bytes = bytes;
	b->chart = c;
	return c;
}

/* Room for one more bar in every per-bar array; the arrays share c->cap. */
static int chart_room(struct rd_chart *c)
{
	size_t need = c->n + 1, cap[5] = { c->cap, c->cap, c->cap, c->cap, c->cap };
	if (pq_grow(&c->labels, &cap[0], need, sizeof *c->labels, 8) < 0 ||
	    pq_grow(&c->series, &cap[1], need, sizeof *c->series, 8) < 0 ||
	    pq_grow(&c->values, &cap[2], need, sizeof *c->values, 8) < 0 ||
	    pq_grow(&c->lo, &cap[3], need, sizeof *c->lo, 8) < 0 ||
	    pq_grow(&c->hi, &cap[4], need, sizeof *c->hi, 8) < 0)
		return -1;
	/* pq_grow grows every array the same way from the same capacity */
	c->cap = cap[0];
	return 0;
}

void rd_bar_in(rdoc *d, struct rd_chart *c, const char *label, const char *series, double value, double lo,
               double hi)
{
	if (!c)
		return;
	if (chart_room(c) < 0) {
		d->oom = 1;
		return;
	}
	c->labels[c->n] = checked(d, strdup(label));
	c->series[c->n] = series ? checked(d, strdup(series)) : NULL;
	c->values[c->n] = value;
	c->lo[c->n] = lo;
	c->hi[c->n] = hi;
	if (c->labels[c->n] && (!series || c->series[c->n]))
		c->n++;
	else {
		free(c->labels[c->n]);
		free(c->series[c->n]);
	}
}

void rd_bar(rdoc *d, struct rd_chart *c, const char *label, double value)
{
	rd_bar_in(d, c, label, NULL, value, NAN, NAN);
}

void rd_chart_note(rdoc *d, struct rd_chart *c, const char *note)
{
	if (!c)
		return;
	free(c->note);
	c->note = checked(d, strdup(note));
}

void rdoc_flame(rdoc *d, const char *caption, const char *path)
{
	struct rd_block *b = push(d, RD_FLAME);
	if (!b)
		return;
	b->text = checked(d, strdup(caption));
	b->path = checked(d, strdup(path));
}

void rdoc_fold(rdoc *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	push_text(d, RD_FOLD, fmt, ap);
	va_end(ap);
}

void rdoc_fold_end(rdoc *d)
{
	push(d, RD_FOLD_END);
}

void rdoc_pre(rdoc *d, const char *text)
{
	struct rd_block *b = push(d, RD_PRE);
	if (b)
		b->text = checked(d, strdup(text ? text : ""));
}

void rdoc_free(rdoc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		struct rd_block *b = &d->b[i];
		free(b->text);
		free(b->id);
		free(b->path);
		for (size_t k = 0; k < b->nitems; k++)
			free(b->items[k]);
		free(b->items);
		if (b->table) {
			for (int k = 0; k < b->table->ncols; k++)
				free(b->table->headers[k]);
			free(b->table->headers);
			for (size_t k = 0; k < b->table->nrows * (size_t)b->table->ncols; k++)
			{
				free(b->table->cells[k].text);
				free(b->table->cells[k].suffix);
			}
			free(b->table->cells);
			free(b->table);
		}
		if (b->chart) {
			free(b->chart->title);
			free(b->chart->axis);
			free(b->chart->note);
			for (size_t k = 0; k < b->chart->n; k++) {
				free(b->chart->labels[k]);
				free(b->chart->series[k]);
			}
			free(b->chart->labels);
			free(b->chart->series);
			free(b->chart->values);
			free(b->chart->lo);
			free(b->chart->hi);
			free(b->chart);
		}
	}
	free(d->b);
	memset(d, 0, sizeof *d);
}
