/* charts: inline SVG bar charts; see charts.h. */
#include "config.h"
#include "report/charts.h"
#include "report/escape.h"
#include "core/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 760
#define ROW 22
#define BAR 14
#define TOP 10
#define AXIS 46
#define RIGHT 96


static void widen(double v, double *mn, double *mx)
{
	if (!isfinite(v) || v <= 0)
		return;
	if (v < *mn)
		*mn = v;
	if (v > *mx)
		*mx = v;
}

/* Smallest and largest positive value, intervals included, so the error bars fit on the axis. */
static void value_range(const struct rd_chart *c, double *mn, double *mx)
{
	*mn = INFINITY;
	*mx = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (!isfinite(c->values[i]) || c->values[i] <= 0)
			continue;
		widen(c->values[i], mn, mx);
		if (c->lo && c->hi && isfinite(c->lo[i]) && isfinite(c->hi[i])) {
			widen(c->lo[i], mn, mx);
			widen(c->hi[i], mn, mx);
		}
	}
}

int chart_uses_log(const struct rd_chart *c)
{
	double mn, mx;
	value_range(c, &mn, &mx);
	return mx > 0 && isfinite(mn) && mx / mn > CHART_LOG_RATIO;
}

/* The shown value: bytes are charted in KiB. */
static double shown(const struct rd_chart *c, double v)
{
	return c->bytes ? v / 1024.0 : v;
}

/* A shown value as text: "12 KiB", "3.04 µs", "6,916". */
static void value_label(const struct rd_chart *c, double v, char *buf, size_t len)
{
	if (c->bytes)
		snprintf(buf, len, "%.0f KiB", v);
	else if (c->time_ns)
		fmt_seconds(buf, len, v * 1e-9);
	else
		fmt_count(buf, len, v);
}

/* A "nice" linear step (1, 2 or 5 times a power of ten) for about 5 ticks. */
static double nice_step(double span)
{
	double raw = span / 5.0, p = pow(10.0, floor(log10(raw))), m = raw / p;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* Series colours; a chart of more series than this repeats them. */
static const char *const palette[] = { "#4878b0", "#e08a2c", "#4f9a55", "#c0504d", "#8064a2",
                                       "#3fa6b5", "#9c7a4a", "#d46fa8" };
#define NPALETTE (sizeof palette / sizeof *palette)

/*
 * Where the bars go.  A plain chart has a row per bar; a grouped chart
 * (bars naming a series) a group per distinct label, in order of first
 * appearance, with a slot per distinct series in every group.
 */
struct chart_layout {
	int grouped;
	size_t ngroups, nseries;
	size_t *group, *slot;          /* per bar: its group and its series slot */
	size_t *group_first;           /* per group: its first bar (for the label) */
	size_t *series_first;          /* per series: its first bar (for the legend) */
	int left, plotw, pitch, bar, group_h, legend_h, height;
	double lo, hi;
	int logscale;
};

static void layout_free(struct chart_layout *l)
{
	free(l->group);
	free(l->slot);
	free(l->group_first);
	free(l->series_first);
}

/* Index of the first of bars 0..upto-1 whose key equals bar upto's (labels or series), or upto when none. */
static size_t first_equal(char *const *keys, size_t upto)
{
	for (size_t i = 0; i < upto; i++)
		if (keys[i] && keys[upto] && strcmp(keys[i], keys[upto]) == 0)
			return i;
	return upto;
}

static int layout_groups(const struct rd_chart *c, struct chart_layout *l)
{
	size_t n = c->n ? c->n : 1;
	l->group = calloc(n, sizeof *l->group);
	l->slot = calloc(n, sizeof *l->slot);
	l->group_first = calloc(n, sizeof *l->group_first);
	l->series_first = calloc(n, sizeof *l->series_first);
	if (!l->group || !l->slot || !l->group_first || !l->series_first)
		return -1;
	for (size_t i = 0; i < c->n; i++)
		if (c->series && c->series[i])
			l->grouped = 1;
	for (size_t i = 0; i < c->n; i++) {
		size_t same = l->grouped ? first_equal(c->labels, i) : i;
		if (same == i) {
			l->group_first[l->ngroups] = i;
			l->group[i] = l->ngroups++;
		} else {
			l->group[i] = l->group[same];
		}
		if (!l->grouped) {
			l->slot[i] = 0;
			continue;
		}
		size_t s = first_equal(c->series, i);
		if (s == i)
			l->series_first[l->nseries++] = i;
		l->slot[i] = s == i ? l->nseries - 1 : l->slot[s];
	}
	if (!l->nseries)
		l->nseries = 1;
	return 0;
}

/* The legend's height: one line of series names, wrapped at the chart's width. */
static int legend_lines(const struct rd_chart *c, const struct chart_layout *l, FILE *out, int y0)
{
	if (!l->grouped)
		return 0;
	int x = l->left, lines = 1;
	for (size_t s = 0; s < l->nseries; s++) {
		const char *name = c->series[l->series_first[s]] ? c->series[l->series_first[s]] : "(none)";
		int w = 22 + (int)strlen(name) * 7;
		if (x + w > WIDTH - 10 && x > l->left) {
			x = l->left;
			lines++;
		}
		if (out) {
			int y = y0 + (lines - 1) * 16;
			fprintf(out, "<rect class=\"swatch\" fill=\"%s\" x=\"%d\" y=\"%d\" width=\"10\" height=\"10\"/>"
			        "<text class=\"legend\" x=\"%d\" y=\"%d\">", palette[s % NPALETTE], x, y, x + 14, y + 9);
			xml_escape(out, name);
			fputs("</text>\n", out);
		}
		x += w;
	}
	return lines;
}

static void layout_axis(const struct rd_chart *c, struct chart_layout *l)
{
	double mn, mx;
	value_range(c, &mn, &mx);
	l->logscale = chart_uses_log(c);
	if (mx <= 0) {
		l->lo = 0;
		l->hi = 1;
	} else if (l->logscale) {
		l->lo = pow(10.0, floor(log10(shown(c, mn))));
		l->hi = pow(10.0, ceil(log10(shown(c, mx))));
		if (l->hi <= l->lo)
			l->hi = l->lo * 10;
	} else {
		l->lo = 0;
		double step = nice_step(shown(c, mx));
		l->hi = ceil(shown(c, mx) / step) * step;
		if (l->hi <= 0)
			l->hi = 1;
	}
}

static int chart_layout(const struct rd_chart *c, struct chart_layout *l)
{
	memset(l, 0, sizeof *l);
	if (layout_groups(c, l) < 0)
		return -1;
	size_t longest = 0;
	for (size_t i = 0; i < c->n; i++)
		if (strlen(c->labels[i]) > longest)
			longest = strlen(c->labels[i]);
	l->left = (int)(longest * 7 + 12);
	if (l->left > 300)
		l->left = 300;
	if (l->left < 80)
		l->left = 80;
	l->plotw = WIDTH - l->left - RIGHT;
	/* a plain chart keeps its one bar per row; a group packs its series' bars, then a gap */
	l->pitch = l->grouped ? 13 : ROW;
	l->bar = l->grouped ? 11 : BAR;
	l->group_h = l->grouped ? (int)l->nseries * l->pitch + 10 : ROW;
	l->legend_h = 16 * legend_lines(c, l, NULL, 0) + (l->grouped ? 4 : 0);
	l->height = TOP + l->legend_h + (int)l->ngroups * l->group_h + AXIS;
	layout_axis(c, l);
	return 0;
}

static double xpos(const struct chart_layout *l, double v)
{
	if (v < l->lo)
		v = l->lo;
	if (l->logscale)
		return l->left + (log10(v) - log10(l->lo)) / (log10(l->hi) - log10(l->lo)) * l->plotw;
	return l->left + (v - l->lo) / (l->hi - l->lo) * l->plotw;
}

/* One vertical grid line at the value t, with t under the axis. */
static void grid_tick(FILE *out, const struct rd_chart *c, const struct chart_layout *l, int axis_y, double t)
{
	char lab[32];
	double x = xpos(l, t);
	value_label(c, t, lab, sizeof lab);
	fprintf(out, "<line class=\"grid\" stroke=\"#e3e3e3\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
	        "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
	        x, TOP + l->legend_h, x, axis_y, x, axis_y + 14, lab);
}

static void grid(FILE *out, const struct rd_chart *c, const struct chart_layout *l, int axis_y)
{
	if (l->logscale) {
		for (double t = l->lo; t <= l->hi * 1.0001; t *= 10)
			grid_tick(out, c, l, axis_y, t);
	} else {
		double step = nice_step(l->hi);
		for (double t = l->lo; t <= l->hi * 1.0001; t += step)
			grid_tick(out, c, l, axis_y, t);
	}
	fprintf(out, "<line class=\"axis\" stroke=\"#888\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", l->left, axis_y,
	        l->left + l->plotw, axis_y);
}

/* The interval [lo, hi] of bar i as an error bar centred on yc; returns its right end (or x when none). */
static double error_bar(FILE *out, const struct rd_chart *c, const struct chart_layout *l, size_t i, double yc,
                        double x)
{
	if (!c->lo || !c->hi || !isfinite(c->lo[i]) || !isfinite(c->hi[i]) || c->hi[i] < c->lo[i])
		return x;
	double a = xpos(l, shown(c, c->lo[i])), b = xpos(l, shown(c, c->hi[i]));
	fprintf(out, "<g class=\"err\" stroke=\"#222\" stroke-width=\"1.2\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
	        "y2=\"%.1f\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><line x1=\"%.1f\" y1=\"%.1f\" "
	        "x2=\"%.1f\" y2=\"%.1f\"/></g>", a, yc, b, yc, a, yc - 4, a, yc + 4, b, yc - 4, b, yc + 4);
	return b > x ? b : x;
}

static void one_bar(FILE *out, const struct rd_chart *c, const struct chart_layout *l, size_t i, int top)
{
	double v = c->values[i];
	if (!isfinite(v) || v <= 0)
		return;
	int y = top + (l->grouped ? 5 + (int)l->slot[i] * l->pitch : 2);
	double sv = shown(c, v), x = xpos(l, sv), w = x - l->left < 1 ? 1 : x - l->left;
	char lab[48], lo[48] = "", hi[48] = "";
	value_label(c, sv, lab, sizeof lab);
	fprintf(out, "<rect class=\"bar\" fill=\"%s\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>",
	        l->grouped ? palette[l->slot[i] % NPALETTE] : palette[0], l->left, y, w, l->bar);
	xml_escape(out, c->labels[i]);
	if (l->grouped && c->series[i]) {
		fputs(" / ", out);
		xml_escape(out, c->series[i]);
	}
	fprintf(out, ": %s", lab);
	if (c->lo && c->hi && isfinite(c->lo[i]) && isfinite(c->hi[i])) {
		value_label(c, shown(c, c->lo[i]), lo, sizeof lo);
		value_label(c, shown(c, c->hi[i]), hi, sizeof hi);
		fprintf(out, " (interval %s – %s)", lo, hi);
	}
	fputs("</title></rect>", out);
	double right = error_bar(out, c, l, i, y + l->bar / 2.0, l->left + w);
	fprintf(out, "<text class=\"value\" x=\"%.1f\" y=\"%d\"%s>%s</text>", right + 4, y + l->bar - 2,
	        l->grouped ? " font-size=\"10\"" : "", lab);
}

void chart_bar_svg(FILE *out, const struct rd_chart *c)
{
	struct chart_layout l;
	if (chart_layout(c, &l) < 0) {
		layout_free(&l);
		fputs("<p>(chart not drawn: out of memory)</p>\n", out);
		return;
	}
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" height=\"%d\" "
	        "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\" aria-label=\"", WIDTH,
	        l.height, WIDTH, l.height);
	xml_escape(out, c->title);
	fputs("\">\n", out);
	legend_lines(c, &l, out, TOP);
	int plot_top = TOP + l.legend_h, axis_y = plot_top + (int)l.ngroups * l.group_h;
	grid(out, c, &l, axis_y);
	for (size_t g = 0; g < l.ngroups; g++) {
		int top = plot_top + (int)g * l.group_h;
		fprintf(out, "<g><text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", l.left - 6,
		        top + l.group_h / 2 + 4);
		xml_escape(out, c->labels[l.group_first[g]]);
		fputs("</text>", out);
		for (size_t i = 0; i < c->n; i++)
			if (l.group[i] == g)
				one_bar(out, c, &l, i, top);
		fputs("</g>\n", out);
	}
	fprintf(out, "<text class=\"caption\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", l.left + l.plotw / 2,
	        axis_y + 36);
	xml_escape(out, c->axis);
	fprintf(out, "%s</text>\n</svg>\n", l.logscale ? " (log scale)" : "");
	layout_free(&l);
}
