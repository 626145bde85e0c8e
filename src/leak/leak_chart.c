/* leak_chart: the |t| trace as an SVG line chart; see leak_chart.h. */
#include "config.h"
#include "leak/leak_chart.h"
#include "leak/leak_stats.h"
#include "core/atomic_file.h"
#include "core/xml_escape.h"

#include <math.h>
#include <string.h>

#define W 640
#define H 320
#define ML 56
#define MR 16
#define MT 36
#define MB 64

static const char *const colours[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b" };

/* The largest |t| over the tests of one trace point. */
static double point_max(const json_t *p)
{
	double m = 0;
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(p, "t"), i, v) {
		double a = fabs(json_number_value(v));
		if (isfinite(a) && a > m)
			m = a;
	}
	return m;
}

void leak_chart_svg(FILE *out, const json_t *rec)
{
	json_t *pairs = json_object_get(rec, "pairs");
	double nmin = INFINITY, nmax = 0, tmax = LEAK_T_THRESHOLD * 1.5;
	size_t i, k;
	json_t *pr, *p;
	json_array_foreach(pairs, i, pr) {
		for (int ctl = 0; ctl < 2; ctl++)
			json_array_foreach(json_object_get(ctl ? json_object_get(pr, "control") : pr, "trace"), k, p) {
				double n = (double)json_integer_value(json_object_get(p, "n"));
				if (n > 0 && n < nmin)
					nmin = n;
				if (n > nmax)
					nmax = n;
				if (point_max(p) > tmax)
					tmax = point_max(p);
			}
	}
	if (!(nmax > 0)) {
		nmin = 100;
		nmax = 1000;
	}
	if (nmax <= nmin)
		nmax = nmin * 10;
	tmax *= 1.05;
	double lx0 = log10(nmin), lx1 = log10(nmax);
	const int pw = W - ML - MR, ph = H - MT - MB;
#define X(n) (ML + (log10(n) - lx0) / (lx1 - lx0) * pw)
#define Y(t) (MT + ph - (t) / tmax * ph)
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	        "font-family=\"sans-serif\" font-size=\"11\">\n", W, H, W, H);
	fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
	fputs("<text x=\"8\" y=\"18\" font-size=\"13\">|t| against measurements: ", out);
	xml_escape(out, json_string_value(json_object_get(json_object_get(rec, "instance"), "name")) ?: "");
	fputs(" ", out);
	xml_escape(out, json_string_value(json_object_get(rec, "op")) ?: "");
	fputs("</text>\n", out);
	/* axes, ticks at powers of ten and at round |t| values */
	fprintf(out, "<path d=\"M%d %d V%d H%d\" stroke=\"#333\" fill=\"none\"/>\n", ML, MT, MT + ph, ML + pw);
	for (double d = pow(10, floor(lx0)); d <= nmax * 1.0001; d *= 10) {
		if (d < nmin * 0.9999)
			continue;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>"
		        "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>\n",
		        X(d), MT + ph, X(d), MT + ph + 4, X(d), MT + ph + 16, d);
	}
	double step = tmax > 200 ? 100 : tmax > 40 ? 20 : tmax > 20 ? 5 : tmax > 8 ? 2 : 1;
	for (double t = 0; t <= tmax; t += step)
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>"
		        "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
		        ML - 4, Y(t) + 4, t, ML, Y(t), ML + pw, Y(t));
	fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#000\" stroke-dasharray=\"5,4\"/>"
	        "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n",
	        ML, Y(LEAK_T_THRESHOLD), ML + pw, Y(LEAK_T_THRESHOLD), ML + pw - 2, Y(LEAK_T_THRESHOLD) - 3,
	        LEAK_T_THRESHOLD);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">measurements (log scale)</text>\n",
	        ML + pw / 2, MT + ph + 32);
	/* The A/A controls first, grey and dashed, under the pairs they stand beside. */
	json_array_foreach(pairs, i, pr) {
		fputs("<polyline fill=\"none\" stroke=\"#999\" stroke-width=\"1\" stroke-dasharray=\"3,3\" points=\"", out);
		json_array_foreach(json_object_get(json_object_get(pr, "control"), "trace"), k, p) {
			double n = (double)json_integer_value(json_object_get(p, "n"));
			if (n > 0)
				fprintf(out, "%.1f,%.1f ", X(n), Y(point_max(p)));
		}
		fputs("\"/>\n", out);
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" fill=\"#777\">dashed grey: A/A controls (random vs random)</text>\n",
	        ML + 8, MT + 12);
	json_array_foreach(pairs, i, pr) {
		const char *col = colours[i % (sizeof colours / sizeof colours[0])];
		fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" points=\"", col);
		json_array_foreach(json_object_get(pr, "trace"), k, p) {
			double n = (double)json_integer_value(json_object_get(p, "n"));
			if (n > 0)
				fprintf(out, "%.1f,%.1f ", X(n), Y(point_max(p)));
		}
		fputs("\"/>\n", out);
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">",
		        ML + 200 * (int)(i % 3), H - 18 + 0 * (int)i, col, ML + 200 * (int)(i % 3) + 14, H - 9);
		xml_escape(out, json_string_value(json_object_get(pr, "classes")) ?: "?");
		fputs(": ", out);
		xml_escape(out, json_string_value(json_object_get(pr, "verdict")) ?: "?");
		fputs("</text>\n", out);
	}
#undef X
#undef Y
	fputs("</svg>\n", out);
}

int leak_chart_write(const json_t *rec, const char *path, pq_error *err)
{
	atomic_file af;
	int r = atomic_file_open(&af, path, err);
	if (r < 0)
		return r;
	leak_chart_svg(af.fp, rec);
	return atomic_file_commit(&af, err);
}
