/* profile_text: renders one profile record as the text report; see profile_text.h. */
#include "config.h"
#include "profile/profile_text.h"

#include "core/jpath.h"
#include "core/path_name.h"
#include "core/units.h"

#include <stdlib.h>
#include <string.h>

/* "1.23 M" or "-" when the figure is null. */
/* "called directly from src/iccs/xof_glue.c (sable_xof, sable_xof_absorb)": the group's callers by file. */
static void group_callers_line(FILE *out, const json_t *g)
{
	json_t *callers = json_object_get(g, "callers");
	if (!json_array_size(callers))
		return;
	/* Written piece by piece: the line is as long as the callers are many, never cut. */
	fprintf(out, "  %-10s called directly from ", "");
	const char *prev = NULL;
	size_t i;
	json_t *c;
	/* Entries come grouped by the order the sites appear; one file may recur after another. */
	json_array_foreach(callers, i, c) {
		const char *file = jp_text(c, "file", "(no DWARF line)"), *fn = jp_text(c, "function", "?");
		if (prev && strcmp(prev, file) == 0)
			fprintf(out, ", %s", fn);
		else
			fprintf(out, "%s%s (%s", prev ? "); " : "", file, fn);
		prev = file;
	}
	fprintf(out, ")\n");
}

/* A weight in the record's unit: ns as a time (ns, µs, ms, s), counts scaled. */
static void units(char *buf, size_t len, const json_t *v, const char *unit)
{
	if (!json_is_number(v))
		snprintf(buf, len, "-");
	else if (strcmp(unit, "ns") == 0)
		fmt_seconds(buf, len, json_number_value(v) * 1e-9);
	else
		fmt_count(buf, len, json_number_value(v));
}

/* The column header of a weight: "time/op" for ns, "cycles/op" & co. */
static void unit_header(char *buf, size_t len, const char *unit, const char *per)
{
	snprintf(buf, len, "%s/%s", strcmp(unit, "ns") == 0 ? "time" : unit, per);
}

static void pct_ci(char *buf, size_t len, double share, double lo, double hi)
{
	snprintf(buf, len, "%5.1f%% [%4.1f-%4.1f]", 100 * share, 100 * lo, 100 * hi);
}

static void func_label(char *buf, size_t len, const json_t *f)
{
	const char *m = jp_text(f, "module", NULL);
	snprintf(buf, len, "%s%s%s%s%s", jp_text(f, "name", "?"),
	         json_is_true(json_object_get(f, "inlined")) ? " [inlined]" : "", m ? " (" : "",
	         m ? m : "", m ? ")" : "");
}

static int cmp_desc(const void *x, const void *y, void *key)
{
	long long a = jp_int(*(json_t *const *)x, key, 0), b = jp_int(*(json_t *const *)y, key, 0);
	return a != b ? (a > b ? -1 : 1) : 0;
}

static void function_table(FILE *out, const json_t *rec, const char *which, int top, const char *unit)
{
	json_t *fns = json_object_get(rec, "functions");
	size_t n = json_array_size(fns);
	json_t **v = malloc((n + 1) * sizeof *v);
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(fns, i);
	qsort_r(v, n, sizeof *v, cmp_desc, (void *)which);
	char k_share[32], k_lo[32], k_hi[32], k_units[48], hdr[48];
	snprintf(k_share, sizeof k_share, "%s_share", which);
	snprintf(k_lo, sizeof k_lo, "%s_lo", which);
	snprintf(k_hi, sizeof k_hi, "%s_hi", which);
	snprintf(k_units, sizeof k_units, "%s_units_per_op", which);
	unit_header(hdr, sizeof hdr, unit, "op");
	fprintf(out, "\nTop functions by %s share\n", strcmp(which, "self") == 0 ? "self" : "inclusive");
	fprintf(out, "  %-22s %8s %10s  %s\n", "share [95% CI]", "samples", hdr, "function (module)");
	int shown = 0;
	for (size_t i = 0; i < n && shown < top; i++) {
		if (!jp_int(v[i], which, 0))
			continue;
		char ci[64], u[32], lab[512];
		pct_ci(ci, sizeof ci, jp_num(v[i], k_share, 0), jp_num(v[i], k_lo, 0), jp_num(v[i], k_hi, 0));
		units(u, sizeof u, json_object_get(v[i], k_units), unit);
		func_label(lab, sizeof lab, v[i]);
		fprintf(out, "  %-22s %8lld %10s  %s\n", ci, jp_int(v[i], which, 0), u, lab);
		shown++;
	}
	free(v);
}

static void lines_table(FILE *out, const json_t *rec, int max)
{
	json_t *lines = json_object_get(rec, "lines");
	if (max < 0 || !json_array_size(lines))
		return;
	fprintf(out, "\nHottest source lines (self samples)\n");
	size_t i;
	json_t *l;
	json_array_foreach(lines, i, l) {
		if ((int)i >= max)
			break;
		const char *file = jp_text(l, "file", "?");
		fprintf(out, "  %5.1f%% %8lld  %s:%lld  %s\n", 100 * jp_num(l, "share", 0), jp_int(l, "samples", 0),
		        path_base(file), jp_int(l, "line", 0), jp_text(l, "function", "?"));
	}
}

static void call_tree(FILE *out, const json_t *rec)
{
	json_t *tree = json_object_get(rec, "tree");
	if (!json_array_size(tree))
		return;
	fprintf(out, "\nCall tree (inclusive share; branches under 1%% left out)\n");
	size_t i;
	json_t *n;
	json_array_foreach(tree, i, n) {
		int d = (int)jp_int(n, "depth", 0);
		fprintf(out, "  %5.1f%% %*s%s%s\n", 100 * jp_num(n, "share", 0), 2 * d, "", jp_text(n, "name", "?"),
		        json_is_true(json_object_get(n, "inlined")) ? " [inlined]" : "");
	}
}

static void group_table(FILE *out, const json_t *rec, const char *unit)
{
	json_t *groups = json_object_get(rec, "groups");
	json_t *calls = json_object_get(rec, "calls");
	if (!json_array_size(groups))
		return;
	char h1[48], h2[48];
	unit_header(h1, sizeof h1, unit, "op");
	unit_header(h2, sizeof h2, unit, "call");
	fprintf(out, "\nFunction groups (a sample counts once per group)\n");
	fprintf(out, "  %-10s %-22s %8s %10s %10s %10s  %s\n", "group", "share [95% CI]", "samples", h1,
	        "calls/op", h2, "functions");
	size_t i;
	json_t *g;
	json_array_foreach(groups, i, g) {
		char ci[64], u[32], c[32], upc[32];
		if (json_is_false(json_object_get(g, "present")))
			snprintf(ci, sizeof ci, "n/a (no such function)");
		else
			pct_ci(ci, sizeof ci, jp_num(g, "share", 0), jp_num(g, "lo", 0), jp_num(g, "hi", 0));
		units(u, sizeof u, json_object_get(g, "units_per_op"), unit);
		if (json_is_number(json_object_get(g, "calls_per_op")))
			fmt_sig3(c, sizeof c, jp_num(g, "calls_per_op", 0));
		else
			snprintf(c, sizeof c, "-");
		units(upc, sizeof upc, json_object_get(g, "units_per_call"), unit);
		fprintf(out, "  %-10s %-22s %8lld %10s %10s %10s  ", jp_text(g, "name", "?"), ci,
		        jp_int(g, "samples", 0), u, c, upc);
		/* The globs last on the line, written one by one: never cut. */
		size_t j;
		json_t *gl;
		json_array_foreach(json_object_get(g, "globs"), j, gl)
			fprintf(out, "%s%s", j ? "," : "", json_string_value(gl));
		fprintf(out, "\n");
		group_callers_line(out, g);
	}
	/* The scheme's own primitives, by name and source file (profile/families.h). */
	json_t *fams = json_object_get(rec, "families");
	if (json_array_size(fams)) {
		fprintf(out, "  own primitives:");
		json_array_foreach(fams, i, g) {
			char ci[64];
			if (json_is_false(json_object_get(g, "present")))
				snprintf(ci, sizeof ci, "n/a (no such function)");
			else
				pct_ci(ci, sizeof ci, jp_num(g, "share", 0), jp_num(g, "lo", 0), jp_num(g, "hi", 0));
			fprintf(out, "%s %s %s", i ? ";" : "", jp_text(g, "label", "?"), ci);
		}
		fprintf(out, "\n");
	}
	if (!json_is_true(json_object_get(calls, "available"))) {
		fprintf(out, "  calls per op: unavailable: %s\n", jp_text(calls, "reason", "unknown"));
		return;
	}
	json_t *fns = json_object_get(calls, "functions");
	fprintf(out, "\nExact calls per operation (uprobes, %lld counted calls)\n", jp_int(calls, "ops", 0));
	fprintf(out, "  %-28s %12s %10s %10s\n", "function", "calls/op", h2, "incl share");
	json_t *f;
	json_array_foreach(fns, i, f) {
		char c[32], upc[32];
		fmt_sig3(c, sizeof c, jp_num(f, "calls_per_op", 0));
		units(upc, sizeof upc, json_object_get(f, "units_per_call"), unit);
		fprintf(out, "  %-28s %12s %10s %9.1f%%\n", jp_text(f, "name", "?"), c, upc,
		        100 * jp_num(f, "incl_share", 0));
	}
}

void profile_text_print(FILE *out, const json_t *rec, const struct profile_text_opts *opts)
{
	int top = opts && opts->top > 0 ? opts->top : 15;
	int lines = opts && opts->lines ? opts->lines : 10;
	const char *unit = jp_text(rec, "unit", "samples");
	const char *event = jp_text(rec, "event", "?");
	const char *inst = jp_text(json_object_get(rec, "instance"), "name", "?");
	long long samples = jp_int(rec, "samples", 0), trunc = jp_int(rec, "truncated", 0);
	fprintf(out, "== %s %s: %lld samples of %s", inst, jp_text(rec, "op", "?"), samples, event);
	if (strcmp(unit, "ns") == 0)
		fprintf(out, " (weights are ns of CPU time, not cycles)");
	fprintf(out, "\n");
	const char *fb = jp_text(rec, "event_fallback", NULL);
	if (fb)
		fprintf(out, "   event fallback: %s\n", fb);
	char upo[32] = "-";
	units(upo, sizeof upo, json_object_get(rec, "units_per_op"), unit);
	fprintf(out, "   call graph %s; %lld ops sampled in %lld run(s); %s%s%s per op\n", jp_text(rec, "callgraph", "?"),
	        jp_int(rec, "ops", 0), jp_int(rec, "runs", 0), upo, strcmp(unit, "ns") == 0 ? "" : " ",
	        strcmp(unit, "ns") == 0 ? "" : unit);
	/* One count of stacks cut short: the unwinder's when it ran, else the kernel's truncated ones. */
	const json_t *uw = json_object_get(rec, "unwind");
	if (json_is_object(uw)) {
		const json_t *fr = json_object_get(uw, "frames");
		fprintf(out, "   incomplete stacks: %lld of %lld (%.1f%%) did not reach the entry frame; "
		        "frames by CFI %lld, frame pointer %lld, stack scan %lld, stitched %lld\n",
		        jp_int(uw, "stacks", 0) - jp_int(uw, "complete", 0), jp_int(uw, "stacks", 0), 100 * jp_num(uw, "incomplete_share", 0),
		        jp_int(fr, "cfi", 0), jp_int(fr, "frame_pointer", 0), jp_int(fr, "scan", 0), jp_int(fr, "stitched", 0));
	} else {
		fprintf(out, "   incomplete stacks: %lld of %lld (%.1f%%) truncated by the kernel's stack copy\n", trunc,
		        samples, samples ? 100.0 * (double)trunc / (double)samples : 0.0);
	}
	long long harness = jp_int(rec, "harness_samples", 0);
	if (harness)
		fprintf(out, "   %lld samples in the harness (enable/disable, call wrapper) left out\n", harness);
	const json_t *smp = json_object_get(rec, "sampling");
	if (!json_is_object(smp))
		fprintf(out, "   lost %lld\n", jp_int(rec, "lost", 0));
	if (json_is_object(smp)) {
		fprintf(out, "   sampling: ");
		if (jp_int(smp, "requested_hz", 0))
			fprintf(out, "requested %lld Hz, ", jp_int(smp, "requested_hz", 0));
		if (json_is_number(json_object_get(smp, "achieved_hz")))
			fprintf(out, "achieved %.0f Hz", jp_num(smp, "achieved_hz", 0));
		else
			fprintf(out, "achieved rate unknown");
		fprintf(out, "; lost %lld, throttled %lld", jp_int(smp, "lost", 0), jp_int(smp, "throttled", 0));
		fprintf(out, "\n");
	}
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(rec, "modules_unverified"), i, w)
		fprintf(out, "   warning: module not verified: %s\n", json_string_value(w));
	json_array_foreach(json_object_get(rec, "warnings"), i, w)
		fprintf(out, "   warning: %s\n", json_string_value(w));
	function_table(out, rec, "self", top, unit);
	function_table(out, rec, "incl", top, unit);
	lines_table(out, rec, lines);
	if (!opts || !opts->no_tree)
		call_tree(out, rec);
	group_table(out, rec, unit);
}
