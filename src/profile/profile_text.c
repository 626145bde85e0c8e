/* profile_text: renders one profile record as the text report; see profile_text.h. */
#include "config.h"
#include "profile/profile_text.h"

#include "core/units.h"

#include <stdlib.h>
#include <string.h>

static const char *str(const json_t *o, const char *k, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s && *s ? s : dflt;
}

static double num(const json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static long long inum(const json_t *o, const char *k)
{
	return (long long)json_integer_value(json_object_get(o, k));
}

/* "1.23 M" or "-" when the figure is null. */
/* "called directly from src/iccs/xof_glue.c (sable_xof, sable_xof_absorb)": the group's callers by file. */
static void group_callers_line(FILE *out, const json_t *g)
{
	json_t *callers = json_object_get(g, "callers");
	if (!json_array_size(callers))
		return;
	char line[1024];
	size_t off = 0;
	const char *prev = NULL;
	size_t i;
	json_t *c;
	/* Entries come grouped by the order the sites appear; one file may recur after another. */
	json_array_foreach(callers, i, c) {
		const char *file = str(c, "file", "(no DWARF line)"), *fn = str(c, "function", "?");
		if (off >= sizeof line)
			break;
		if (prev && strcmp(prev, file) == 0)
			off += (size_t)snprintf(line + off, sizeof line - off, ", %s", fn);
		else
			off += (size_t)snprintf(line + off, sizeof line - off, "%s%s (%s", prev ? "); " : "", file, fn);
		prev = file;
	}
	fprintf(out, "  %-10s called directly from %s)\n", "", line);
}

static void units(char *buf, size_t len, const json_t *v)
{
	if (!json_is_number(v))
		snprintf(buf, len, "-");
	else
		fmt_count(buf, len, json_number_value(v));
}

static void pct_ci(char *buf, size_t len, double share, double lo, double hi)
{
	snprintf(buf, len, "%5.1f%% [%4.1f-%4.1f]", 100 * share, 100 * lo, 100 * hi);
}

static void func_label(char *buf, size_t len, const json_t *f)
{
	const char *m = str(f, "module", NULL);
	snprintf(buf, len, "%s%s%s%s%s", str(f, "name", "?"),
	         json_is_true(json_object_get(f, "inlined")) ? " [inlined]" : "", m ? " (" : "",
	         m ? m : "", m ? ")" : "");
}

static int cmp_desc(const void *x, const void *y, void *key)
{
	long long a = inum(*(json_t *const *)x, key), b = inum(*(json_t *const *)y, key);
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
	snprintf(hdr, sizeof hdr, "%s/op", unit);
	fprintf(out, "\nTop functions by %s share\n", strcmp(which, "self") == 0 ? "self" : "inclusive");
	fprintf(out, "  %-22s %8s %10s  %s\n", "share [95% CI]", "samples", hdr, "function (module)");
	int shown = 0;
	for (size_t i = 0; i < n && shown < top; i++) {
		if (!inum(v[i], which))
			continue;
		char ci[64], u[32], lab[512];
		pct_ci(ci, sizeof ci, num(v[i], k_share), num(v[i], k_lo), num(v[i], k_hi));
		units(u, sizeof u, json_object_get(v[i], k_units));
		func_label(lab, sizeof lab, v[i]);
		fprintf(out, "  %-22s %8lld %10s  %s\n", ci, inum(v[i], which), u, lab);
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
		const char *file = str(l, "file", "?");
		const char *base = strrchr(file, '/');
		fprintf(out, "  %5.1f%% %8lld  %s:%lld  %s\n", 100 * num(l, "share"), inum(l, "samples"),
		        base ? base + 1 : file, inum(l, "line"), str(l, "function", "?"));
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
		int d = (int)inum(n, "depth");
		fprintf(out, "  %5.1f%% %*s%s%s\n", 100 * num(n, "share"), 2 * d, "", str(n, "name", "?"),
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
	snprintf(h1, sizeof h1, "%s/op", unit);
	snprintf(h2, sizeof h2, "%s/call", unit);
	fprintf(out, "\nFunction groups (a sample counts once per group)\n");
	fprintf(out, "  %-10s %-22s %8s %10s %10s %10s  %s\n", "group", "share [95% CI]", "samples", h1,
	        "calls/op", h2, "functions");
	size_t i;
	json_t *g;
	json_array_foreach(groups, i, g) {
		char ci[64], u[32], c[32], upc[32], globs[512] = "";
		if (json_is_false(json_object_get(g, "present")))
			snprintf(ci, sizeof ci, "n/a (no such function)");
		else
			pct_ci(ci, sizeof ci, num(g, "share"), num(g, "lo"), num(g, "hi"));
		units(u, sizeof u, json_object_get(g, "units_per_op"));
		if (json_is_number(json_object_get(g, "calls_per_op")))
			fmt_sig3(c, sizeof c, num(g, "calls_per_op"));
		else
			snprintf(c, sizeof c, "-");
		units(upc, sizeof upc, json_object_get(g, "units_per_call"));
		size_t j, off = 0;
		json_t *gl;
		json_array_foreach(json_object_get(g, "globs"), j, gl)
			off += (size_t)snprintf(globs + off, off < sizeof globs ? sizeof globs - off : 0, "%s%s",
			                        j ? "," : "", json_string_value(gl));
		fprintf(out, "  %-10s %-22s %8lld %10s %10s %10s  %s\n", str(g, "name", "?"), ci,
		        inum(g, "samples"), u, c, upc, globs);
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
				pct_ci(ci, sizeof ci, num(g, "share"), num(g, "lo"), num(g, "hi"));
			fprintf(out, "%s %s %s", i ? ";" : "", str(g, "label", "?"), ci);
		}
		fprintf(out, "\n");
	}
	if (!json_is_true(json_object_get(calls, "available"))) {
		fprintf(out, "  calls per op: unavailable: %s\n", str(calls, "reason", "unknown"));
		return;
	}
	json_t *fns = json_object_get(calls, "functions");
	fprintf(out, "\nExact calls per operation (uprobes, %lld counted calls)\n", inum(calls, "ops"));
	fprintf(out, "  %-28s %12s %10s %10s\n", "function", "calls/op", h2, "incl share");
	json_t *f;
	json_array_foreach(fns, i, f) {
		char c[32], upc[32];
		fmt_sig3(c, sizeof c, num(f, "calls_per_op"));
		units(upc, sizeof upc, json_object_get(f, "units_per_call"));
		fprintf(out, "  %-28s %12s %10s %9.1f%%\n", str(f, "name", "?"), c, upc,
		        100 * num(f, "incl_share"));
	}
}

void profile_text_print(FILE *out, const json_t *rec, const struct profile_text_opts *opts)
{
	int top = opts && opts->top > 0 ? opts->top : 15;
	int lines = opts && opts->lines ? opts->lines : 10;
	const char *unit = str(rec, "unit", "samples");
	const char *event = str(rec, "event", "?");
	const char *inst = str(json_object_get(rec, "instance"), "name", "?");
	long long samples = inum(rec, "samples"), trunc = inum(rec, "truncated");
	fprintf(out, "== %s %s: %lld samples of %s", inst, str(rec, "op", "?"), samples, event);
	if (strcmp(unit, "ns") == 0)
		fprintf(out, " (weights are ns of CPU time, not cycles)");
	fprintf(out, "\n");
	const char *fb = str(rec, "event_fallback", NULL);
	if (fb)
		fprintf(out, "   event fallback: %s\n", fb);
	char upo[32] = "-", t[32] = "";
	units(upo, sizeof upo, json_object_get(rec, "units_per_op"));
	if (strcmp(unit, "ns") == 0 && json_is_number(json_object_get(rec, "units_per_op")))
		fmt_seconds(t, sizeof t, num(rec, "units_per_op") * 1e-9);
	fprintf(out, "   call graph %s; %lld ops sampled in %lld run(s); %s %s per op%s%s%s\n",
	        str(rec, "callgraph", "?"), inum(rec, "ops"), inum(rec, "runs"), upo, unit,
	        *t ? " (" : "", t, *t ? ")" : "");
	fprintf(out, "   lost %lld; truncated stacks %lld (%.1f%%)", inum(rec, "lost"), trunc,
	        samples ? 100.0 * (double)trunc / (double)samples : 0.0);
	long long harness = inum(rec, "harness_samples");
	if (harness)
		fprintf(out, "; %lld samples in the harness (enable/disable, call wrapper) left out", harness);
	fprintf(out, "\n");
	const json_t *uw = json_object_get(rec, "unwind");
	if (json_is_object(uw)) {
		const json_t *fr = json_object_get(uw, "frames");
		fprintf(out, "   unwinding: %lld of %lld stacks reach the entry frame (%.1f%% incomplete); "
		        "frames by CFI %lld, frame pointer %lld, stack scan %lld, stitched %lld\n",
		        inum(uw, "complete"), inum(uw, "stacks"), 100 * num(uw, "incomplete_share"),
		        inum(fr, "cfi"), inum(fr, "frame_pointer"), inum(fr, "scan"), inum(fr, "stitched"));
	}
	const json_t *smp = json_object_get(rec, "sampling");
	if (json_is_object(smp)) {
		fprintf(out, "   sampling: ");
		if (inum(smp, "requested_hz"))
			fprintf(out, "requested %lld Hz, ", inum(smp, "requested_hz"));
		if (json_is_number(json_object_get(smp, "achieved_hz")))
			fprintf(out, "achieved %.0f Hz", num(smp, "achieved_hz"));
		else
			fprintf(out, "achieved rate unknown");
		fprintf(out, "; lost %lld, throttled %lld", inum(smp, "lost"), inum(smp, "throttled"));
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
