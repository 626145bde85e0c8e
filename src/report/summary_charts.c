/* summary_charts: the summary's median times as charts; see summary_charts.h. */
#include "config.h"
#include "report/summary_charts.h"
#include "core/jpath.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NO_INTERVAL "Bars are medians of n calls (n is in the summary table). No error bars: the timing " \
                    "records give no interval for a median, so none is drawn."

/* The median of row's op in ns, NAN when the op was not measured to completion. */
static double median_ns(const json_t *row, const char *op)
{
	const json_t *o = jp(jp(row, "ops"), op);
	if (strcmp(jp_str(o, "status", ""), "complete") != 0)
		return NAN;
	double v = jp_num(o, "median_ns", NAN);
	return isfinite(v) && v > 0 ? v : NAN;
}

/* 1 when the rows name more than one flag profile. */
static int several_profiles(const json_t *rows)
{
	const char *first = NULL;
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) {
		const char *p = jp_str(r, "profile", "");
		if (!first)
			first = p;
		else if (strcmp(first, p) != 0)
			return 1;
	}
	return 0;
}

/* One profile: a group per instance, a bar per operation. */
static void by_operation(const json_t *ops, const json_t *rows, rdoc *d)
{
	struct rd_chart *c = NULL;
	size_t i, k;
	json_t *r, *op;
	json_array_foreach(rows, i, r)
		json_array_foreach(ops, k, op) {
			double v = median_ns(r, json_string_value(op));
			if (!isfinite(v))
				continue;
			if (!c) {
				c = rdoc_chart(d, "Median time per operation and instance", "median time per call", 0);
				if (c)
					c->time_ns = 1;
				rd_chart_note(d, c, NO_INTERVAL);
			}
			rd_bar_in(d, c, jp_str(r, "shown", "?"), json_string_value(op), v, NAN, NAN);
		}
}

/* A flag study: a chart per operation, a group per instance, a bar per profile. */
static void by_profile(const json_t *ops, const json_t *rows, rdoc *d)
{
	size_t i, k;
	json_t *r, *op;
	json_array_foreach(ops, k, op) {
		const char *name = json_string_value(op);
		struct rd_chart *c = NULL;
		json_array_foreach(rows, i, r) {
			double v = median_ns(r, name);
			if (!isfinite(v))
				continue;
			if (!c) {
				char *title = rd_strdupf("%s: median time per instance and flag profile", name);
				c = rdoc_chart(d, title ? title : name, "median time per call", 0);
				free(title);
				if (c)
					c->time_ns = 1;
				rd_chart_note(d, c, NO_INTERVAL);
			}
			rd_bar_in(d, c, jp_str(r, "shown", "?"), jp_str(r, "profile", "(no profile)"), v, NAN, NAN);
		}
	}
}

void report_summary_charts(const json_t *summary, rdoc *d)
{
	const json_t *ops = jp(summary, "operations"), *rows = jp(summary, "rows");
	if (several_profiles(rows))
		by_profile(ops, rows, d);
	else
		by_operation(ops, rows, d);
}
