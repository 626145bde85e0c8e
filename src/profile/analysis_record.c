/*
 * analysis_record: the pqprof.profile/1 record of one operation, from the
 * model analysis.c built (analysis_model.h): self and inclusive shares
 * with their intervals, hottest source lines, the call tree, function
 * groups and exact calls per operation.  The attribution rules are in
 * analysis.h.
 */
#include "config.h"
#include "runner/op_ctx.h"
#include "core/jpath.h"
#include "profile/analysis.h"
#include "profile/analysis_model.h"
#include "profile/annotate.h"
#include "profile/call_sites.h"
#include "profile/families.h"
#include "profile/uprobe_count.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct op_tally {
	uint64_t *self, *incl;
	uint32_t *stamp;            /* last stack that counted a function inclusively */
	uint64_t truncated;
};

struct line_hit {
	uint32_t func;
	const char *file, *file_abs;
	unsigned line;
	uint64_t samples;
};

struct tree_node {
	uint32_t func, parent;
	uint64_t count;
	int inlined;                /* the function's code was inlined here */
};

struct tree {
	struct tree_node *n;
	size_t nn, cap;
	struct strmap idx;          /* int_key(parent << 32 | func) -> node */
};

static int tree_add(struct tree *t, const struct analysis *a, const struct stk *k)
{
	uint32_t parent = 0;
	t->n[0].count += k->count;
	for (uint32_t j = k->keep; j-- > 0;) {
		const struct aframe *af = &a->af[a->xf[k->xoff + j]];
		uint32_t f = af->func;
		char key[17];
		size_t klen = int_key(key, (uint64_t)parent << 32 | f), v;
		uint32_t node;
		if (strmap_get(&t->idx, key, klen, &v)) {
			node = (uint32_t)v;
		} else {
			if (grow(&t->n, &t->cap, t->nn + 1, sizeof *t->n) < 0)
				return -1;
			node = (uint32_t)t->nn++;
			t->n[node] = (struct tree_node){ f, parent, 0, 0 };
			if (strmap_put(&t->idx, key, klen, node) < 0)
				return -1;
		}
		t->n[node].count += k->count;
		t->n[node].inlined |= af->inlined;
		parent = node;
	}
	return 0;
}

struct tree_emit {
	const struct analysis *a;
	const struct tree *t;
	uint32_t *order;            /* nodes sorted by parent, then count descending */
	size_t *first;              /* first child of node in order[], per node */
	uint64_t total, min;
	int maxdepth;
	json_t *out;
};

static int cmp_tree(const void *x, const void *y, void *ctx)
{
	const struct tree *t = ctx;
	const struct tree_node *a = &t->n[*(const uint32_t *)x];
	const struct tree_node *b = &t->n[*(const uint32_t *)y];
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return 0;
}

static void tree_walk(struct tree_emit *e, uint32_t node, int depth)
{
	for (size_t i = e->first[node]; i < e->t->nn - 1; i++) {
		uint32_t c = e->order[i];
		const struct tree_node *n = &e->t->n[c];
		if (n->parent != node || n->count < e->min)
			break;
		const struct afunc *f = &e->a->funcs[n->func];
		json_array_append_new(e->out, json_pack("{s:i, s:s, s:s?, s:I, s:f, s:b}", "depth", depth,
		                                        "name", f->name, "module", f->module, "samples",
		                                        (json_int_t)n->count, "share",
		                                        (double)n->count / (double)e->total,
		                                        "inlined", n->inlined));
		if (depth + 1 < e->maxdepth)
			tree_walk(e, c, depth + 1);
	}
}

static json_t *tree_json(const struct analysis *a, struct tree *t, uint64_t total)
{
	json_t *out = json_array();
	if (t->nn < 2 || !total)
		return out;
	uint32_t *order = malloc((t->nn - 1) * sizeof *order);
	size_t *first = malloc(t->nn * sizeof *first);
	if (!order || !first) {
		free(order);
		free(first);
		return out;
	}
	for (size_t i = 1; i < t->nn; i++)
		order[i - 1] = (uint32_t)i;
	qsort_r(order, t->nn - 1, sizeof *order, cmp_tree, t);
	for (size_t i = 0; i < t->nn; i++)
		first[i] = t->nn - 1;
	for (size_t i = t->nn - 1; i-- > 0;)
		first[t->n[order[i]].parent] = i;
	double ms = a->opts.tree_min_share > 0 ? a->opts.tree_min_share : 0.01;
	uint64_t min = (uint64_t)(ms * (double)total);
	struct tree_emit e = { a, t, order, first, total, min ? min : 1,
	                       a->opts.tree_depth > 0 ? a->opts.tree_depth : 24, out };
	tree_walk(&e, 0, 0);
	free(order);
	free(first);
	return out;
}

static int cmp_lines(const void *x, const void *y)
{
	const struct line_hit *a = x, *b = y;
	return a->samples != b->samples ? (a->samples > b->samples ? -1 : 1) : 0;
}

static json_t *lines_json(const struct analysis *a, uint64_t samples, uint32_t opi)
{
	json_t *out = json_array();
	int want = a->opts.lines ? a->opts.lines : 10;
	if (want < 0 || !samples)
		return out;
	struct strmap idx = { 0 };
	struct line_hit *h = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < a->nstks; i++) {
		const struct stk *k = &a->stks[i];
		if (k->op != opi || !k->xn || k->harness)
			continue;
		const struct aframe *f = &a->af[a->xf[k->xoff]];
		if (!f->file || !f->line)
			continue;
		char key[4400];
		int kl = snprintf(key, sizeof key, "%u\x1f%s\x1f%u", f->func, f->file, f->line);
		if (kl < 0 || (size_t)kl >= sizeof key)
			continue;
		size_t v;
		if (!strmap_get(&idx, key, (size_t)kl, &v)) {
			if (grow(&h, &cap, n + 1, sizeof *h) < 0 || strmap_put(&idx, key, (size_t)kl, n) < 0)
				break;
			h[n] = (struct line_hit){ f->func, f->file, f->file_abs, f->line, 0 };
			v = n++;
		}
		h[v].samples += k->count;
	}
	qsort(h, n, sizeof *h, cmp_lines);
	for (size_t i = 0; i < n && (int)i < want; i++)
		json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:i, s:I, s:f}", "function",
		                                     a->funcs[h[i].func].name, "file", h[i].file, "file_abs",
		                                     h[i].file_abs, "line", (int)h[i].line, "samples",
		                                     (json_int_t)h[i].samples, "share",
		                                     (double)h[i].samples / (double)samples));
	free(h);
	strmap_free(&idx);
	return out;
}

static int cmp_self(const void *x, const void *y, void *ctx)
{
	const struct op_tally *t = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	if (t->self[a] != t->self[b])
		return t->self[a] > t->self[b] ? -1 : 1;
	if (t->incl[a] != t->incl[b])
		return t->incl[a] > t->incl[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int cmp_incl(const void *x, const void *y, void *ctx)
{
	const struct op_tally *t = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	if (t->incl[a] != t->incl[b])
		return t->incl[a] > t->incl[b] ? -1 : 1;
	return cmp_self(x, y, ctx);
}

static json_t *share_pack(uint64_t k, uint64_t n, const char *pfx, json_t *obj)
{
	double lo, hi;
	groups_wilson95(k, n, &lo, &hi);
	char key[32];
	snprintf(key, sizeof key, "%s", pfx);
	json_object_set_new(obj, key, json_integer((json_int_t)k));
	snprintf(key, sizeof key, "%s_share", pfx);
	json_object_set_new(obj, key, json_real(n ? (double)k / (double)n : 0));
	snprintf(key, sizeof key, "%s_lo", pfx);
	json_object_set_new(obj, key, json_real(lo));
	snprintf(key, sizeof key, "%s_hi", pfx);
	json_object_set_new(obj, key, json_real(hi));
	return obj;
}

static json_t *units_or_null(double share, double upo)
{
	return upo > 0 ? json_real(share * upo) : json_null();
}

/*
 * How sampling went over the whole trace, from its END record (traces
 * of format 1.x do not say: null).
 */
static json_t *sampling_json(const struct analysis *a)
{
	const struct trace_read_stats *t = &a->trace_st;
	if (!t->run_known)
		return json_null();
	double secs = (double)t->run_active_ns * 1e-9;
	return json_pack("{s:I, s:o, s:f, s:I, s:I, s:I}", "requested_hz", (json_int_t)t->run_requested_hz,
	                 "achieved_hz", secs > 0 ? json_real((double)t->samples / secs) : json_null(),
	                 "active_seconds", secs, "lost", (json_int_t)t->run_lost,
	                 "throttled", (json_int_t)t->run_throttles,
	                 "unthrottled", (json_int_t)t->run_unthrottles);
}

static json_t *functions_json(const struct analysis *a, const struct op_tally *t, uint64_t samples,
                              double upo)
{
	int top = a->opts.top > 0 ? a->opts.top : 15;
	json_t *out = json_array();
	uint32_t *ids = malloc((a->nfuncs + 1) * sizeof *ids);
	unsigned char *pick = calloc(a->nfuncs + 1, 1);
	if (!ids || !pick) {
		free(ids);
		free(pick);
		return out;
	}
	size_t n = 0;
	for (size_t i = 0; i < a->nfuncs; i++)
		if (t->incl[i] || t->self[i])
			ids[n++] = (uint32_t)i;
	qsort_r(ids, n, sizeof *ids, cmp_incl, (void *)t);
	for (size_t i = 0; i < n && (int)i < top; i++)
		pick[ids[i]] = 1;
	qsort_r(ids, n, sizeof *ids, cmp_self, (void *)t);
	for (size_t i = 0; i < n && (int)i < top; i++)
		if (t->self[ids[i]])
			pick[ids[i]] = 1;
	for (size_t i = 0; i < n; i++) {
		uint32_t f = ids[i];
		if (!pick[f])
			continue;
		const struct afunc *fn = &a->funcs[f];
		/* "inlined": every sampled frame of it was an inlined copy. */
		json_t *o = json_pack("{s:s, s:s?, s:b}", "name", fn->name, "module", fn->module, "inlined",
		                      fn->seen_inlined && !fn->seen_outline);
		share_pack(t->self[f], samples, "self", o);
		share_pack(t->incl[f], samples, "incl", o);
		double ss = samples ? (double)t->self[f] / (double)samples : 0;
		double is = samples ? (double)t->incl[f] / (double)samples : 0;
		json_object_set_new(o, "self_units_per_op", units_or_null(ss, upo));
		json_object_set_new(o, "incl_units_per_op", units_or_null(is, upo));
		json_object_set_new(o, "units_per_op", units_or_null(is, upo));
		json_object_set_new(o, "in_instance", json_boolean(fn->in_lib));
		json_array_append_new(out, o);
	}
	free(ids);
	free(pick);
	return out;
}

/* Inclusive share of the function called name (the instance's copy first). */
static double incl_share_of(const struct analysis *a, const struct op_tally *t, uint64_t samples,
                            const char *name)
{
	uint64_t best = 0;
	int found_lib = 0;
	for (size_t i = 0; i < a->nfuncs; i++) {
		if (strcmp(a->funcs[i].name, name) != 0)
			continue;
		if (a->funcs[i].in_lib && !found_lib) {
			best = t->incl[i];
			found_lib = 1;
		} else if (!found_lib && t->incl[i] > best) {
			best = t->incl[i];
		}
	}
	return samples ? (double)best / (double)samples : 0;
}

static json_t *calls_json(const struct analysis *a, const struct op_tally *t, const char *opname,
                          uint64_t samples, double upo)
{
	json_t *c = json_object_get(json_object_get(a->header, "calls"), opname);
	if (!json_is_object(c))
		return json_pack("{s:b, s:s, s:[]}", "available", 0, "reason",
		                 "the trace holds no call counts for this operation", "functions");
	if (!json_is_true(json_object_get(c, "available")))
		return json_pack("{s:b, s:s, s:[]}", "available", 0, "reason",
		                 jp_text(c, "reason", "unknown"), "functions");
	json_t *fns = json_array();
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(c, "functions"), i, f) {
		const char *name = json_string_value(json_object_get(f, "name"));
		if (!name)
			continue;
		double cpo = json_number_value(json_object_get(f, "calls_per_op"));
		double share = incl_share_of(a, t, samples, name);
		json_array_append_new(fns, json_pack("{s:s, s:f, s:O?, s:O?, s:f, s:o}", "name", name,
		                                     "calls_per_op", cpo, "min", json_object_get(f, "min"),
		                                     "max", json_object_get(f, "max"), "incl_share", share,
		                                     "units_per_call",
		                                     cpo > 0 && upo > 0 ? json_real(share * upo / cpo)
		                                                        : json_null()));
	}
	return json_pack("{s:b, s:s, s:O?, s:o}", "available", 1, "reason", "", "ops",
	                 json_object_get(c, "ops"), "functions", fns);
}

#define MAX_CALLERS 32
#define MAX_GROUP_FILES 16

/* The competition's helpers (placeholder hash functions) and DRNG: never the scheme's own primitives. */
static int iccs_group(const char *name)
{
	return strcmp(name, "hash") == 0 || strcmp(name, "drng") == 0;
}

/* The source files that define the functions of the hash and drng groups (absolute, as DWARF names them). */
struct group_files {
	char *path[MAX_GROUP_FILES];
	size_t n;
};

static void group_files_free(struct group_files *gf)
{
	for (size_t i = 0; i < gf->n; i++)
		free(gf->path[i]);
	gf->n = 0;
}

/* The entry of callers for (function, file), made when absent. */
static json_t *caller_entry(json_t *callers, const char *fn, const char *file)
{
	size_t i;
	json_t *c;
	json_array_foreach(callers, i, c) {
		const char *f = json_string_value(json_object_get(c, "file"));
		if (strcmp(json_string_value(json_object_get(c, "function")), fn) == 0 &&
		    ((!f && !file) || (f && file && strcmp(f, file) == 0)))
			return c;
	}
	if (json_array_size(callers) >= MAX_CALLERS)
		return NULL;
	c = json_pack("{s:s, s:s?, s:[], s:I}", "function", fn, "file", file, "calls", "sites", (json_int_t)0);
	json_array_append_new(callers, c);
	return c;
}

static int has_string(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
		if (strcmp(json_string_value(v), s) == 0)
			return 1;
	return 0;
}

/*
 * Who calls the group's functions, from the library's machine code
 * (profile/call_sites.h): one entry per calling function and source
 * file, with the group functions it calls and how many call sites.  The
 * group's functions calling each other, and calls from the source files
 * that define them (the ICCS helper file's internals), are not callers.
 * Null when the library cannot be read any more.  Report section 7 names
 * the file that routes hashing into the placeholder functions from this.
 * The files of the hash and drng groups go into gf (NULL for other groups).
 */
static void group_callers(const struct analysis *a, json_t *o, const char *const *globs, size_t nglobs,
                          struct group_files *gf)
{
	const char *lib = jp_text(a->header, "lib", NULL);
	struct call_sites cs;
	pq_error err;
	if (!lib || call_sites_find(lib, globs, nglobs, &cs, &err) < 0) {
		json_object_set_new(o, "callers", json_null());
		return;
	}
	json_t *defined_in = json_array();
	for (size_t t = 0; t < cs.ntargets; t++) {
		const char *f = cs.targets[t].file;
		if (!f)
			continue;
		const char *shown = analysis_source_display(a, f);
		if (!has_string(defined_in, shown))
			json_array_append_new(defined_in, json_string(shown));
		int known = !gf;
		for (size_t k = 0; gf && k < gf->n && !known; k++)
			known = strcmp(gf->path[k], f) == 0;
		if (!known && gf->n < MAX_GROUP_FILES && (gf->path[gf->n] = strdup(f)))
			gf->n++;
	}
	json_object_set_new(o, "defined_in", defined_in);
	json_t *callers = json_array();
	for (size_t i = 0; i < cs.nsites; i++) {
		const struct call_site *s = &cs.sites[i];
		int own = s->caller_is_target;
		for (size_t t = 0; t < cs.ntargets && !own && s->file; t++)
			own = cs.targets[t].file && strcmp(cs.targets[t].file, s->file) == 0;
		if (own)
			continue;
		json_t *c = caller_entry(callers, s->caller ? s->caller : "?",
		                         s->file ? analysis_source_display(a, s->file) : NULL);
		if (!c)
			continue;
		const char *callee = cs.targets[s->target].name;
		if (!has_string(json_object_get(c, "calls"), callee))
			json_array_append_new(json_object_get(c, "calls"), json_string(callee));
		json_object_set_new(c, "sites", json_integer(json_integer_value(json_object_get(c, "sites")) + 1));
	}
	json_object_set_new(o, "callers", callers);
	json_object_set_new(o, "callers_found_by", json_string(cs.dwarf ? "direct calls in the machine code; files from the DWARF line table"
	                                                                 : "direct calls in the machine code (no DWARF line table: no files)"));
	call_sites_free(&cs);
}

/*
 * Which functions of the instance library match a group's globs: "present"
 * is false when none does (the report then says "n/a (no such function)"
 * instead of a measured 0%), null when the library cannot be read any
 * more (a record re-made elsewhere).  Up to 8 names are listed.
 */
static void group_presence(const struct analysis *a, json_t *o, json_t *globs, struct group_files *gf)
{
	const char *lib = jp_text(a->header, "lib", NULL);
	size_t n = json_array_size(globs);
	const char **gl = calloc(n ? n : 1, sizeof *gl);
	json_t *defined = json_array();
	struct uprobe_targets ts;
	pq_error err;
	for (size_t i = 0; gl && i < n; i++)
		gl[i] = json_string_value(json_array_get(globs, i));
	if (gl && lib && uprobe_resolve(lib, gl, n, &ts, &err) == 0) {
		for (size_t i = 0; i < ts.n && i < 8; i++)
			json_array_append_new(defined, json_string(ts.t[i].name));
		json_object_set_new(o, "present", json_boolean(ts.n > 0));
		uprobe_targets_free(&ts);
	} else {
		json_object_set_new(o, "present", json_null());
	}
	json_object_set_new(o, "defined", defined);
	if (gl)
		group_callers(a, o, gl, n, gf);
	free(gl);
}

static json_t *groups_json(const struct analysis *a, const uint64_t *hits, uint64_t samples,
                           double upo, const json_t *calls, struct group_files *gf)
{
	json_t *out = json_array();
	for (size_t g = 0; g < groups_count(a->groups); g++) {
		json_t *globs = json_array();
		for (size_t j = 0; j < groups_nglobs(a->groups, g); j++)
			json_array_append_new(globs, json_string(groups_glob(a->groups, g, j)));
		json_t *o = json_pack("{s:s, s:o}", "name", groups_name(a->groups, g), "globs", globs);
		group_presence(a, o, globs, iccs_group(groups_name(a->groups, g)) ? gf : NULL);
		double lo, hi, share = samples ? (double)hits[g] / (double)samples : 0;
		groups_wilson95(hits[g], samples, &lo, &hi);
		json_object_set_new(o, "samples", json_integer((json_int_t)hits[g]));
		json_object_set_new(o, "share", json_real(share));
		json_object_set_new(o, "lo", json_real(lo));
		json_object_set_new(o, "hi", json_real(hi));
		json_object_set_new(o, "units_per_op", units_or_null(share, upo));
		/* Calls: every counted function matching one of the globs. */
		double cpo = 0;
		json_t *called = json_array();
		size_t i, j;
		json_t *f, *glob;
		json_array_foreach(json_object_get(calls, "functions"), i, f) {
			const char *name = json_string_value(json_object_get(f, "name"));
			json_array_foreach(json_object_get(o, "globs"), j, glob) {
				if (name && fnmatch(json_string_value(glob), name, 0) == 0) {
					cpo += json_number_value(json_object_get(f, "calls_per_op"));
					json_array_append_new(called, json_string(name));
					break;
				}
			}
		}
		int have = json_is_true(json_object_get(calls, "available")) && json_array_size(called);
		json_object_set_new(o, "counted", called);
		json_object_set_new(o, "calls_per_op", have ? json_real(cpo) : json_null());
		json_object_set_new(o, "units_per_call",
		                    have && cpo > 0 && upo > 0 ? json_real(share * upo / cpo) : json_null());
		json_array_append_new(out, o);
	}
	return out;
}

/*
 * The scheme's own symmetric primitives (profile/families.h); the files
 * that define the hash and drng groups' functions (the competition's
 * helper files, with their own SM3) are not the scheme's own.
 */
static json_t *families_json(const struct analysis *a, const uint64_t *fhits, uint64_t samples,
                             const struct group_files *gf)
{
	struct family_presence fp;
	pq_error err;
	const char *lib = jp_text(a->header, "lib", NULL);
	int known = lib && families_in_library(lib, (const char *const *)gf->path, gf->n, &fp, &err) == 0;
	json_t *out = json_array();
	for (int f = 0; f < FAMILY_COUNT; f++) {
		double lo, hi;
		groups_wilson95(fhits[f], samples, &lo, &hi);
		unsigned bit = 1u << f;
		/* Sampled frames count as evidence too (a library no longer on disk). */
		int present = known ? ((fp.by_symbol | fp.by_file) & bit) != 0 : fhits[f] > 0;
		const char *by = !known ? NULL
		                 : (fp.by_symbol & bit) && (fp.by_file & bit) ? "symbol and source file"
		                 : (fp.by_symbol & bit) ? "symbol"
		                 : (fp.by_file & bit) ? "source file" : NULL;
		json_t *o = json_pack("{s:s, s:s, s:o, s:s?, s:s?, s:I, s:f, s:f, s:f}", "name", family_name(f),
		                      "label", family_label(f),
		                      "present", known || fhits[f] ? json_boolean(present) : json_null(),
		                      "found_by", by, "example", known && fp.example[f][0] ? fp.example[f] : NULL,
		                      "samples", (json_int_t)fhits[f], "share",
		                      samples ? (double)fhits[f] / (double)samples : 0.0, "lo", lo, "hi", hi);
		json_array_append_new(out, o);
	}
	return out;
}

/* Family bits of the instance-library frames of stack k, by name and file. */
static unsigned stack_families(const struct analysis *a, const struct stk *k, const unsigned char *func_fam)
{
	unsigned m = 0;
	const uint32_t *x = a->xf + k->xoff;
	for (uint32_t j = 0; j < k->xn; j++) {
		const struct aframe *f = &a->af[x[j]];
		if (!a->funcs[f->func].in_lib)
			continue;
		m |= func_fam[f->func];
		m |= family_match_file(f->file_abs);
	}
	return m;
}

uint64_t analysis_op_calls(const struct analysis *a, const struct opinfo *o)
{
	const char *markers = jp_text(a->header, "op_markers", "per-call");
	return strcmp(markers, "per-run") == 0 ? o->max_end : o->ends;
}

/*
 * How the unwinder recovered this operation's stacks (dwarf mode), or
 * null when the trace does not say.  More than 1% of stacks that did not
 * reach the entry frame adds a warning: every inclusive share is then too
 * low by about that much.
 */
#define INCOMPLETE_WARN_SHARE 0.01

static json_t *unwind_json(const struct opinfo *o, json_t *warnings)
{
	if (!o->has_unwind)
		return json_null();
	const struct trace_unwind_stats *u = &o->unwind;
	double share = u->stacks ? (double)u->incomplete / (double)u->stacks : 0.0;
	if (share > INCOMPLETE_WARN_SHARE) {
		char w[256];
		snprintf(w, sizeof w,
		         "%" PRIu64 " of %" PRIu64 " stacks (%.1f%%) did not reach the scheme's entry frame: "
		         "inclusive shares and the call tree are low by up to that much",
		         u->incomplete, u->stacks, 100.0 * share);
		json_array_append_new(warnings, json_string(w));
	}
	return json_pack("{s:I, s:I, s:I, s:f, s:{s:I, s:I, s:I, s:I}}", "stacks", (json_int_t)u->stacks,
	                 "complete", (json_int_t)u->complete, "incomplete", (json_int_t)u->incomplete,
	                 "incomplete_share", share, "frames", "cfi", (json_int_t)u->frames_cfi,
	                 "frame_pointer", (json_int_t)u->frames_fp, "scan", (json_int_t)u->frames_scan,
	                 "stitched", (json_int_t)u->frames_stitched);
}

/*
 * The hottest functions of the operation down to the instruction
 * (annotate.h), so that other tools can render them; a function that
 * cannot be annotated (its library is gone) is named with the reason.
 */
static json_t *annotate_json(struct analysis *a, const char *op)
{
	int want = a->opts.annotate ? a->opts.annotate : 3;
	json_t *out = json_array();
	if (want < 0)
		return out;
	json_t *names = analysis_annotate_hottest(a, op, (size_t)want);
	const struct annotate_opts ao = { ANNOTATE_RECORD_INSNS, 1 };
	size_t i;
	json_t *nm;
	json_array_foreach(names, i, nm) {
		json_t *ann = NULL;
		pq_error e = { 0 };
		if (analysis_annotate(a, op, json_string_value(nm), &ao, &ann, &e) < 0)
			ann = json_pack("{s:O, s:s}", "function", nm, "error", e.msg);
		if (ann)
			json_array_append_new(out, ann);
	}
	json_decref(names);
	return out;
}

int analysis_record(struct analysis *a, const char *opname, json_t **record, pq_error *err)
{
	*record = NULL;
	size_t opi = NONE;
	for (size_t i = 0; i < a->nops; i++)
		if (strcmp(a->ops[i].name, opname) == 0)
			opi = i;
	if (opi == NONE)
		return pq_fail(err, PQ_EUSAGE, "%s: no operation '%s' in the trace", a->trace_path, opname);
	const struct opinfo *o = &a->ops[opi];
	size_t ng = groups_count(a->groups);
	struct op_tally t = { calloc(a->nfuncs + 1, 8), calloc(a->nfuncs + 1, 8),
	                      calloc(a->nfuncs + 1, 4), 0 };
	uint64_t *ghits = calloc(ng + 1, sizeof *ghits);
	unsigned char *gflag = calloc(ng + 1, 1);
	uint64_t fhits[FAMILY_COUNT] = { 0 };
	unsigned char *func_fam = calloc(a->nfuncs + 1, 1);
	/* The competition's helpers and DRNG are not the scheme's own primitives. */
	unsigned char *iccs = calloc(ng + 1, 1);
	for (size_t g = 0; iccs && g < ng; g++)
		iccs[g] = (unsigned char)iccs_group(groups_name(a->groups, g));
	for (size_t f = 0; func_fam && f < a->nfuncs; f++)
		func_fam[f] = (unsigned char)family_match_name(a->funcs[f].name);
	const char **names = NULL;
	size_t capnames = 0;
	struct tree tr = { 0 };
	int rc = 0;
	if (!t.self || !t.incl || !t.stamp || !ghits || !gflag || !func_fam || !iccs ||
	    grow(&tr.n, &tr.cap, 1, sizeof *tr.n) < 0) {
		rc = oom(err);
		goto out;
	}
	tr.n[0] = (struct tree_node){ NO_FUNC, 0, 0, 0 };
	tr.nn = 1;
	int count_truncated = strcmp(a->callgraph, "none") != 0;
	uint64_t samples = 0, weight = 0, harness = 0;
	for (size_t i = 0; i < a->nstks; i++) {
		const struct stk *k = &a->stks[i];
		if (k->op != opi)
			continue;
		if (k->harness) {
			harness += k->count;
			continue;
		}
		samples += k->count;
		weight += k->weight;
		if (!k->xn)
			continue;
		const uint32_t *x = a->xf + k->xoff;
		t.self[a->af[x[0]].func] += k->count;
		for (uint32_t j = 0; j < k->keep; j++) {
			uint32_t f = a->af[x[j]].func;
			if (t.stamp[f] != i + 1) {
				t.stamp[f] = (uint32_t)i + 1;
				t.incl[f] += k->count;
			}
		}
		if (count_truncated && k->outer_in_lib)
			t.truncated += k->count;
		if (grow(&names, &capnames, k->xn, sizeof *names) < 0) {
			rc = oom(err);
			goto out;
		}
		for (uint32_t j = 0; j < k->xn; j++)
			names[j] = a->funcs[a->af[x[j]].func].name;
		int in_iccs = 0;
		if (groups_match_stack(a->groups, names, k->xn, gflag))
			for (size_t g = 0; g < ng; g++)
				if (gflag[g]) {
					ghits[g] += k->count;
					in_iccs |= iccs[g];
				}
		if (!in_iccs) {
			unsigned fm = stack_families(a, k, func_fam);
			for (int f = 0; f < FAMILY_COUNT; f++)
				if (fm >> f & 1u)
					fhits[f] += k->count;
		}
		if (tree_add(&tr, a, k) < 0) {
			rc = oom(err);
			goto out;
		}
	}
	uint64_t ops = analysis_op_calls(a, o);
	double upo = ops ? (double)weight / (double)ops : 0;
	json_t *calls = calls_json(a, &t, o->name, samples, upo);
	json_t *r = json_object();
	json_object_set_new(r, "schema", json_string("pqprof.profile/1"));
	json_object_set_new(r, "status", json_string("complete"));
	json_object_set_new(r, "instance", json_deep_copy(json_object_get(a->header, "instance")));
	json_object_set_new(r, "op", json_string(o->name));
	int kop = pq_op_parse(o->name);
	if (kop >= 0 && op_ctx_keys_note((enum pq_op)kop))
		json_object_set_new(r, "keys", json_string(op_ctx_keys_note((enum pq_op)kop)));
	json_object_set_new(r, "event", json_string(a->event));
	json_object_set_new(r, "unit", json_string(a->unit));
	json_object_set_new(r, "event_fallback", json_string(jp_text(a->header, "event_fallback", "")));
	json_object_set_new(r, "callgraph", json_string(a->callgraph));
	json_object_set_new(r, "freq", json_deep_copy(json_object_get(a->header, "freq")));
	json_object_set_new(r, "period", json_deep_copy(json_object_get(a->header, "period")));
	json_object_set_new(r, "samples", json_integer((json_int_t)samples));
	json_object_set_new(r, "weight", json_integer((json_int_t)weight));
	json_object_set_new(r, "harness_samples", json_integer((json_int_t)harness));
	json_object_set_new(r, "trace_samples", json_integer((json_int_t)o->samples));
	json_object_set_new(r, "lost", json_integer((json_int_t)o->lost));
	json_object_set_new(r, "sampling", sampling_json(a));
	json_object_set_new(r, "truncated", json_integer((json_int_t)t.truncated));
	json_object_set_new(r, "runs", json_integer((json_int_t)o->runs));
	json_object_set_new(r, "ops", json_integer((json_int_t)ops));
	json_object_set_new(r, "units_per_op", ops ? json_real(upo) : json_null());
	json_object_set_new(r, "functions", functions_json(a, &t, samples, upo));
	json_object_set_new(r, "source_root", a->source_root[0] ? json_string(a->source_root) : json_null());
	json_object_set_new(r, "lines", lines_json(a, samples, (uint32_t)opi));
	json_object_set_new(r, "tree", tree_json(a, &tr, samples));
	struct group_files gf = { .n = 0 };
	json_object_set_new(r, "groups", groups_json(a, ghits, samples, upo, calls, &gf));
	json_object_set_new(r, "families", families_json(a, fhits, samples, &gf));
	group_files_free(&gf);
	json_object_set_new(r, "calls", calls);
	json_object_set_new(r, "trace", json_string(a->trace_path));
	json_object_set_new(r, "flamegraph", a->opts.flamegraph ? json_string(a->opts.flamegraph) : json_null());
	json_object_set_new(r, "folded", a->opts.folded ? json_string(a->opts.folded) : json_null());
	json_object_set_new(r, "annotate", annotate_json(a, o->name));
	json_object_set_new(r, "modules_unverified", json_deep_copy(a->unverified));
	json_t *warn = json_deep_copy(a->warnings);
	json_object_set_new(r, "unwind", unwind_json(o, warn));
	json_object_set_new(r, "warnings", warn);
	*record = r;
out:
	free(t.self);
	free(t.incl);
	free(t.stamp);
	free(ghits);
	free(gflag);
	free(func_fam);
	free(iccs);
	free(names);
	free(tr.n);
	strmap_free(&tr.idx);
	return rc;
}
