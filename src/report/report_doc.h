/*
 * report_doc: the report as an ordered list of blocks -- headings,
 * paragraphs, bullet lists, tables, charts and flame graph references --
 * built once from a record set and then rendered as Markdown and as
 * HTML.  Blocks hold plain text (never markup); each renderer escapes
 * for its own format, so a hostile instance name or failure reason cannot
 * inject anything.  Table cells may be marked as code (instance names,
 * file paths), which Markdown shows in backticks and HTML in <code>.
 */
#ifndef PQ_REPORT_DOC_H
#define PQ_REPORT_DOC_H

#include <stddef.h>

enum rd_kind { RD_HEADING, RD_PARA, RD_LIST, RD_TABLE, RD_CHART, RD_FLAME, RD_FOLD, RD_FOLD_END, RD_PRE };

struct rd_cell {
	char *text;
	int code;
	char *suffix;             /* plain text after a code cell, or NULL */
};

struct rd_table {
	int ncols;
	char **headers;
	struct rd_cell *cells;    /* nrows * ncols, row-major */
	size_t nrows, cap;
};

/*
 * A horizontal bar chart: one bar per label, or, when bars name a series
 * (a flag profile), one group of bars per label with a bar per series.
 * A bar may carry an interval (lo, hi), drawn as an error bar; NAN when
 * the data has none, and then nothing is drawn for it.
 */
struct rd_chart {
	char *title;
	char *axis;               /* axis caption, with the unit */
	int bytes;                /* values are bytes: label bars in KiB */
	int time_ns;              /* values are nanoseconds: label bars as times */
	char *note;               /* shown under the chart (what the error bars are, or why there are none), or NULL */
	size_t n, cap;
	char **labels;
	char **series;            /* per bar, NULL when the bar is in no series */
	double *values;
	double *lo, *hi;          /* per bar interval, NAN when none */
};

struct rd_block {
	enum rd_kind kind;
	int level;                /* heading level 1..3 */
	char *text;               /* heading, paragraph; flame graph caption;
	                           * fold summary; preformatted text */
	char *id;                 /* heading anchor, "" if none */
	char **items;             /* list items */
	size_t nitems, cap_items;
	struct rd_table *table;
	struct rd_chart *chart;
	char *path;               /* flame graph: file relative to the report */
};

typedef struct rdoc {
	struct rd_block *b;
	size_t n, cap;
	int oom;                  /* an allocation failed; rendering refuses */
} rdoc;

void rdoc_init(rdoc *d);
void rdoc_free(rdoc *d);

void rdoc_heading(rdoc *d, int level, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void rdoc_para(rdoc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Start a bullet list; then add items to it. */
void rdoc_list(rdoc *d);
void rdoc_item(rdoc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Start a table with ncols headers (const char *), then add rows. */
struct rd_table *rdoc_table(rdoc *d, int ncols, const char *const *headers);
/* Append a row; cells[i] NULL is shown as "–".  code: bit i marks cell i as code. */
void rd_row(rdoc *d, struct rd_table *t, const char *const *cells, unsigned code);

/* Plain text shown after cell col of the table's last row. */
void rd_suffix(rdoc *d, struct rd_table *t, int col, const char *suffix);

struct rd_chart *rdoc_chart(rdoc *d, const char *title, const char *axis, int bytes);
void rd_bar(rdoc *d, struct rd_chart *c, const char *label, double value);
/* A bar of series (NULL: none) in label's group, with its interval [lo, hi] (NAN: none). */
void rd_bar_in(rdoc *d, struct rd_chart *c, const char *label, const char *series, double value, double lo,
               double hi);
/* The chart's note, shown under it. */
void rd_chart_note(rdoc *d, struct rd_chart *c, const char *note);

void rdoc_flame(rdoc *d, const char *caption, const char *path);

/*
 * A collapsible part of the page, closed until clicked (HTML <details>
 * with the summary), holding the blocks up to the matching
 * rdoc_fold_end; folds nest.  Detail for the page only: Markdown leaves
 * the folds and everything in them out.
 */
void rdoc_fold(rdoc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rdoc_fold_end(rdoc *d);
/* Preformatted text shown as it is (monospace, lines kept). */
void rdoc_pre(rdoc *d, const char *text);

/* "%s" of a printf format into a new string (NULL when out of memory). */
char *rd_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
