/* charts: inline SVG bar charts; see charts.h. */
#include "config.h"
#include "report/charts.h"
#include "report/escape.h"
#include "core/units.h"

#include <math.h>
#include <string.h>

#define WIDTH 760
#define ROW 22
#define BAR 14
#define TOP 10
#define AXIS 46
#define RIGHT 96

/* One vertical grid line at x with its value t under the axis. */
static void grid_tick(FILE *out, double x, int axis_y, double t)
{
	char lab[32];
	fmt_count(lab, sizeof lab, t);
	fprintf(out, "<line class=\"grid\" stroke=\"#e3e3e3\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
	        "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
	        x, TOP, x, axis_y, x, axis_y + 14, lab);
}

static void value_range(const struct rd_chart *c, double *mn, double *mx)
{
	*mn = INFINITY;
	*mx = 0;
	for (size_t i = 0; i < c->n; i++) {
		double v = c->values[i];
		if (!isfinite(v) || v <= 0)
			continue;
		if (v < *mn)
			*mn = v;
		if (v > *mx)
			*mx = v;
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

static void value_label(const struct rd_chart *c, double v, char *buf, size_t len)
{
	if (c->bytes)
		snprintf(buf, len, "%.0f KiB", v);
	else
		fmt_count(buf, len, v);
}

/* A "nice" linear step (1, 2 or 5 times a power of ten) for about 5 ticks. */
static double nice_step(double span)
{
	double raw = span / 5.0, p = pow(10.0, floor(log10(raw))), m = raw / p;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

void chart_bar_svg(FILE *out, const struct rd_chart *c)
{
	double mn, mx;
	value_range(c, &mn, &mx);
	int logscale = chart_uses_log(c);
	size_t longest = 0;
	for (size_t i = 0; i < c->n; i++)
		if (strlen(c->labels[i]) > longest)
			longest = strlen(c->labels[i]);
	int left = (int)(longest * 7 + 12);
	if (left > 300)
		left = 300;
	if (left < 80)
		left = 80;
	int plotw = WIDTH - left - RIGHT;
	int height = TOP + (int)c->n * ROW + AXIS;
	double lo, hi;
	if (mx <= 0) {
		lo = 0;
		hi = 1;
	} else if (logscale) {
		lo = pow(10.0, floor(log10(shown(c, mn))));
		hi = pow(10.0, ceil(log10(shown(c, mx))));
		if (hi <= lo)
			hi = lo * 10;
	} else {
		lo = 0;
		double step = nice_step(shown(c, mx));
		hi = ceil(shown(c, mx) / step) * step;
		if (hi <= 0)
			hi = 1;
	}
#define XPOS(v) (logscale ? left + (log10(v) - log10(lo)) / (log10(hi) - log10(lo)) * plotw \
                          : left + ((v) - lo) / (hi - lo) * plotw)
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" height=\"%d\" "
	        "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\" aria-label=\"", WIDTH, height, WIDTH, height);
	xml_escape(out, c->title);
	fputs("\">\n", out);
	int axis_y = TOP + (int)c->n * ROW;
	/* ticks and grid */
	if (logscale) {
		for (double t = lo; t <= hi * 1.0001; t *= 10) {
			grid_tick(out, XPOS(t), axis_y, t);
		}
	} else {
		double step = nice_step(hi);
		for (double t = lo; t <= hi * 1.0001; t += step) {
			grid_tick(out, XPOS(t), axis_y, t);
		}
	}
	fprintf(out, "<line class=\"axis\" stroke=\"#888\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", left, axis_y,
	        left + plotw, axis_y);
	for (size_t i = 0; i < c->n; i++) {
		double v = c->values[i];
		int y = TOP + (int)i * ROW;
		fputs("<g>", out);
		fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 6, y + BAR - 2);
		xml_escape(out, c->labels[i]);
		fputs("</text>", out);
		if (isfinite(v) && v > 0) {
			double sv = shown(c, v), x = XPOS(sv < lo ? lo : sv);
			char lab[48];
			value_label(c, sv, lab, sizeof lab);
			fprintf(out, "<rect class=\"bar\" fill=\"#4878b0\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>", left,
			        y + 2, x - left < 1 ? 1 : x - left, BAR);
			xml_escape(out, c->labels[i]);
			fprintf(out, ": %s</title></rect><text class=\"value\" x=\"%.1f\" y=\"%d\">%s</text>", lab,
			        (x - left < 1 ? left + 1 : x) + 4, y + BAR - 2, lab);
		}
		fputs("</g>\n", out);
	}
	fprintf(out, "<text class=\"caption\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", left + plotw / 2,
	        axis_y + 36);
	xml_escape(out, c->axis);
	fprintf(out, "%s</text>\n</svg>\n", logscale ? " (log scale)" : "");
#undef XPOS
}
