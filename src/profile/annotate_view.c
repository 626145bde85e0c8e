/* annotate_view: annotations as text (see annotate_view.h). */
#include "config.h"
#include "profile/annotate_view.h"

#include "core/jpath.h"
#include "core/units.h"

#include <string.h>

/* "file:line" with the inlined function, as lines are keyed. */
static void line_label(char *buf, size_t len, const json_t *l)
{
	const char *f = jp_str(l, "file", NULL), *in = jp_str(l, "inlined_from", NULL);
	if (!f)
		snprintf(buf, len, "(no line info)");
	else
		snprintf(buf, len, "%s:%lld%s%s%s", f, (long long)json_integer_value(json_object_get(l, "line")),
		         in ? " [inlined " : "", in ? in : "", in ? "]" : "");
}

static int same_src(const json_t *x, const json_t *y)
{
	const char *fx = jp_str(x, "file", ""), *fy = jp_str(y, "file", "");
	const char *ix = jp_str(x, "inlined_from", ""), *iy = jp_str(y, "inlined_from", "");
	return json_integer_value(json_object_get(x, "line")) == json_integer_value(json_object_get(y, "line")) &&
	       strcmp(fx, fy) == 0 && strcmp(ix, iy) == 0;
}

static void ranges(FILE *out, const json_t *arr, const char *title, int top, int loops)
{
	size_t i;
	json_t *r;
	fprintf(out, "-- %s\n", title);
	if (!json_array_size(arr))
		fprintf(out, "   (none)\n");
	json_array_foreach(arr, i, r) {
		if ((int)i >= top)
			break;
		char d[24] = "";
		if (loops)
			snprintf(d, sizeof d, ", depth %lld", (long long)json_integer_value(json_object_get(r, "depth")));
		fprintf(out, "  %6.1f%% %7lld  %s-%s (%lld insns%s)  %s\n", 100 * jp_num(r, "share", 0),
		        (long long)json_integer_value(json_object_get(r, "samples")), jp_str(r, "start", "?"),
		        jp_str(r, "end", "?"), (long long)json_integer_value(json_object_get(r, "insns")), d,
		        jp_str(r, "source", "(no line info)"));
	}
}

void annotate_view_print(FILE *out, const json_t *ann, const struct annotate_view_opts *o)
{
	int top = o && o->top > 0 ? o->top : 5;
	char u[32];
	const json_t *upo = json_object_get(ann, "units_per_op");
	if (json_is_number(upo))
		fmt_count(u, sizeof u, json_number_value(upo));
	else
		snprintf(u, sizeof u, "-");
	fprintf(out, "== %s, %s: %s (%s, %s, %s, %lld bytes, %lld instructions)\n", jp_str(ann, "op", "?"),
	        jp_str(ann, "event", "?"), jp_str(ann, "function", "?"), jp_str(ann, "module", "?"),
	        jp_str(ann, "arch", "?"), jp_str(ann, "start", "?"), (long long)json_integer_value(json_object_get(ann, "size")),
	        (long long)json_integer_value(json_object_get(ann, "instructions_total")));
	fprintf(out, "   %lld of %lld samples in its code: %.1f%% of %s (self %.1f%%), %s %s per op\n",
	        (long long)json_integer_value(json_object_get(ann, "samples")),
	        (long long)json_integer_value(json_object_get(ann, "op_samples")), 100 * jp_num(ann, "share", 0),
	        jp_str(ann, "op", "?"), 100 * jp_num(ann, "self_share", 0), u, jp_str(ann, "unit", ""));
	fprintf(out, "   skid: %s\n", jp_str(ann, "skid", "?"));
	if (!json_is_true(json_object_get(ann, "source_lines")))
		fprintf(out, "   no DWARF line information: annotated by instruction alone\n");

	const json_t *lines = json_object_get(ann, "lines");
	size_t i;
	json_t *l;
	char lab[4400];
	if (json_is_true(json_object_get(ann, "source_lines"))) {
		fprintf(out, "-- Source lines (share of %s, samples)\n", jp_str(ann, "op", "?"));
		json_array_foreach(lines, i, l) {
			line_label(lab, sizeof lab, l);
			fprintf(out, "  %6.1f%% %7lld  %-36s %s\n", 100 * jp_num(l, "share", 0),
			        (long long)json_integer_value(json_object_get(l, "samples")), lab, jp_str(l, "text", ""));
		}
	}
	ranges(out, json_object_get(ann, "loops"), "Hottest loops (back edges)", top, 1);
	ranges(out, json_object_get(ann, "blocks"), "Hottest basic blocks", top, 0);
	if (o && o->no_asm)
		return;
	fprintf(out, "-- Disassembly (share of %s, samples)\n", jp_str(ann, "op", "?"));
	const json_t *prev = NULL, *ins = json_object_get(ann, "instructions");
	json_array_foreach(ins, i, l) {
		if (jp_str(l, "file", NULL) && (!prev || !same_src(prev, l))) {
			const json_t *src = NULL;
			for (size_t j = 0; j < json_array_size(lines) && !src; j++)
				if (same_src(json_array_get(lines, j), l))
					src = json_array_get(lines, j);
			line_label(lab, sizeof lab, l);
			fprintf(out, "%28s| %s  %s\n", "", lab, src ? jp_str(src, "text", "") : "");
		}
		prev = l;
		long long s = (long long)json_integer_value(json_object_get(l, "samples"));
		if (s)
			fprintf(out, "  %6.1f%% %7lld  %8s | %s\n", 100 * jp_num(l, "share", 0), s, jp_str(l, "addr", "?"),
			        jp_str(l, "asm", "?"));
		else
			fprintf(out, "  %15s  %8s | %s\n", "", jp_str(l, "addr", "?"), jp_str(l, "asm", "?"));
	}
	long long total = json_integer_value(json_object_get(ann, "instructions_total"));
	if ((long long)json_array_size(ins) < total)
		fprintf(out, "  ... %lld more instructions\n", total - (long long)json_array_size(ins));
}

static void fmt_cost(char *buf, size_t n, double v, int shares)
{
	if (shares)
		snprintf(buf, n, "%.2f%%", 100 * v);
	else
		fmt_count(buf, n, v);
}

void annotate_view_print_diff(FILE *out, const json_t *d)
{
	const json_t *b = json_object_get(d, "before"), *a = json_object_get(d, "after");
	const char *unit = jp_str(d, "unit", "share");
	int shares = strcmp(unit, "share") == 0;
	char cb[32], ca[32], lab[4400];
	fprintf(out, "== %s, %s: before vs after, cost per %s by source line (%s)\n", jp_str(d, "function", "?"),
	        jp_str(d, "op", "?"), jp_str(d, "op", "op"), shares ? "share of the op" : unit);
	fmt_cost(cb, sizeof cb, jp_num(b, "total", 0), shares);
	fmt_cost(ca, sizeof ca, jp_num(a, "total", 0), shares);
	fprintf(out, "   before: %s (%s): %s\n", jp_str(b, "path", "?"), jp_str(b, "event", "?"), cb);
	fprintf(out, "   after:  %s (%s): %s", jp_str(a, "path", "?"), jp_str(a, "event", "?"), ca);
	if (json_is_number(json_object_get(d, "ratio")))
		fprintf(out, " (%+.1f%%)", 100 * (jp_num(d, "ratio", 0) - 1));
	fprintf(out, "\n   lines lined up: %lld (before %lld, after %lld)\n",
	        (long long)json_integer_value(json_object_get(d, "lines_matched")),
	        (long long)json_integer_value(json_object_get(d, "lines_before")),
	        (long long)json_integer_value(json_object_get(d, "lines_after")));
	fprintf(out, "  %-40s %10s %10s %9s\n", "line", "before", "after", "change");
	size_t i;
	json_t *l;
	json_array_foreach(json_object_get(d, "lines"), i, l) {
		line_label(lab, sizeof lab, l);
		fmt_cost(cb, sizeof cb, jp_num(l, "before", 0), shares);
		fmt_cost(ca, sizeof ca, jp_num(l, "after", 0), shares);
		char ch[24];
		if (json_is_number(json_object_get(l, "ratio")))
			snprintf(ch, sizeof ch, "%+.1f%%", 100 * (jp_num(l, "ratio", 0) - 1));
		else
			snprintf(ch, sizeof ch, "%s", strcmp(jp_str(l, "in", ""), "after") == 0 ? "new" :
			                             strcmp(jp_str(l, "in", ""), "before") == 0 ? "gone" : "-");
		fprintf(out, "  %-40s %10s %10s %9s  %s\n", lab, cb, ca, ch, jp_str(l, "text", ""));
	}
	for (int k = 0; k < 2; k++) {
		const json_t *side = k ? a : b;
		fprintf(out, "-- Hottest loops, %s\n", k ? "after" : "before");
		json_t *lp;
		size_t n = 0;
		json_array_foreach(json_object_get(side, "loops"), i, lp) {
			if (i >= 3)
				break;
			n++;
			fprintf(out, "  %6.1f%%  %s-%s (%lld insns)  %s\n", 100 * jp_num(lp, "share", 0), jp_str(lp, "start", "?"),
			        jp_str(lp, "end", "?"), (long long)json_integer_value(json_object_get(lp, "insns")),
			        jp_str(lp, "source", "(no line info)"));
		}
		if (!n)
			fprintf(out, "   (none)\n");
	}
}
