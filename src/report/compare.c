/* compare: ratios with bootstrap intervals and per-function deltas between two record sets; see compare.h. */
#include "config.h"
#include "report/compare.h"
#include "report/jpath.h"
#include "report/report.h"
#include "core/units.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "core/json_file.h"
#include "measure/stats.h"
#include "trace/flamegraph.h"
#include "trace/folded.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A JSON string from a printf format (jansson's json_sprintf needs 2.11). */
static json_t *jfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *jfmt(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return json_string(buf);
}

struct pair {
	const struct rs_instance *a, *b;
};

static int name_count(const struct record_set *rs, const char *name)
{
	int n = 0;
	for (size_t i = 0; i < rs->ninst; i++)
		n += strcmp(rs->inst[i].name, name) == 0;
	return n;
}

/* Pairs by (name, profile, implementation); a name unique on both sides pairs across them. */
static size_t make_pairs(const struct record_set *a, const struct record_set *b, struct pair *out)
{
	size_t n = 0;
	for (size_t i = 0; i < a->ninst; i++) {
		const struct rs_instance *ia = &a->inst[i], *match = NULL;
		for (size_t k = 0; k < b->ninst && !match; k++)
			if (strcmp(b->inst[k].name, ia->name) == 0 && strcmp(b->inst[k].profile, ia->profile) == 0 &&
			    strcmp(b->inst[k].implementation, ia->implementation) == 0)
				match = &b->inst[k];
		if (!match && name_count(a, ia->name) == 1 && name_count(b, ia->name) == 1)
			for (size_t k = 0; k < b->ninst && !match; k++)
				if (strcmp(b->inst[k].name, ia->name) == 0)
					match = &b->inst[k];
		if (match) {
			out[n].a = ia;
			out[n].b = match;
			n++;
		}
	}
	return n;
}

static int complete(const json_t *bench)
{
	const char *st = jp_str(bench, "status", NULL);
	return bench && (!st || strcmp(st, "complete") == 0) && jp(bench, "summary");
}

/*
 * Every per-call value of every trial; when a record kept none, the
 * per-trial means stand in (*per_call = 0).  NULL on bad data or memory.
 */
static double *per_call_values(const json_t *bench, size_t *n, int *per_call)
{
	json_t *trials = jp(bench, "trials");
	size_t total = 0, i;
	json_t *t;
	json_array_foreach(trials, i, t)
		total += json_array_size(jp(t, "values"));
	*per_call = total > 0;
	if (!total)
		total = json_array_size(trials);
	double *v = malloc((total ? total : 1) * sizeof *v);
	if (!v)
		return NULL;
	size_t k = 0;
	json_array_foreach(trials, i, t) {
		if (*per_call) {
			size_t j;
			json_t *x;
			json_array_foreach(jp(t, "values"), j, x)
				if (json_is_number(x) && k < total)
					v[k++] = json_number_value(x);
		} else if (json_is_number(jp(t, "mean_units")) && k < total) {
			v[k++] = jp_num(t, "mean_units", 0);
		}
	}
	*n = k;
	return v;
}

static json_t *timing_entry(const struct pair *p, const struct rs_op *oa, const struct rs_op *ob,
                            const struct compare_opts *o, json_t *notes, pq_error *err, int *rc)
{
	const char *ua = report_bench_unit(oa->bench), *ub = report_bench_unit(ob->bench);
	if (!ua || !ub || strcmp(ua, ub) != 0) {
		*rc = pq_fail(err, PQ_EINPUT,
		              "cannot compare %s %s: A counts %s, B counts %s; measure both with the same counter "
		              "backend (pqprof bench --backend)", p->a->name, oa->op, ua ? ua : "an unrecorded unit",
		              ub ? ub : "an unrecorded unit");
		return NULL;
	}
	size_t na = 0, nb = 0;
	int pca = 0, pcb = 0;
	double *va = per_call_values(oa->bench, &na, &pca), *vb = per_call_values(ob->bench, &nb, &pcb);
	json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:f}", "instance", p->a->name, "profile_a",
	                      p->a->profile, "profile_b", p->b->profile, "op", oa->op, "unit", ua,
	                      "a_mean", jp_num(oa->bench, "summary.mean_units", NAN),
	                      "b_mean", jp_num(ob->bench, "summary.mean_units", NAN));
	stats_interval ci;
	pq_error serr = { 0 };
	if (!va || !vb || !na || !nb ||
	    stats_bootstrap_ratio_ci(vb, nb, va, na, 0, o->resamples, o->seed ? o->seed : STATS_BOOTSTRAP_SEED,
	                             &ci, &serr) < 0) {
		json_object_set_new(e, "verdict", json_string("unknown"));
		json_array_append_new(notes, jfmt("%s %s: no ratio: %s", p->a->name, oa->op,
		                      serr.msg[0] ? serr.msg : "no per-call values in the records"));
	} else {
		json_object_set_new(e, "ratio", json_real(ci.estimate));
		json_object_set_new(e, "lo", json_real(ci.lo));
		json_object_set_new(e, "hi", json_real(ci.hi));
		json_object_set_new(e, "verdict", json_string(stats_verdict_name(stats_ratio_verdict(&ci, o->tolerance))));
		json_object_set_new(e, "a_values", json_integer((json_int_t)na));
		json_object_set_new(e, "b_values", json_integer((json_int_t)nb));
		json_object_set_new(e, "per_call", json_boolean(pca && pcb));
		if (!pca || !pcb)
			json_array_append_new(notes, jfmt("%s %s: the records keep no per-call values; the "
			                      "interval is over per-trial means", p->a->name, oa->op));
	}
	free(va);
	free(vb);
	return e;
}

/* Static image of an instance: the sizes record, or any memory record. */
static double image_of(const struct rs_instance *in)
{
	double v = jp_num(in->sizes, "elf.image_memsz", -1);
	for (int k = 0; k < in->nops && v < 0; k++)
		v = jp_num(in->ops[k].memory, "static_image_bytes", -1);
	return v;
}

static int memory_ok(const json_t *m)
{
	const char *st = jp_str(m, "status", NULL);
	return m && (!st || strcmp(st, "complete") == 0) && jp(m, "memory");
}

static json_t *memory_entry(const struct pair *p, const struct rs_op *oa, const struct rs_op *ob)
{
	double pa = jp_num(oa->memory, "memory.peak_rss", NAN), pb = jp_num(ob->memory, "memory.peak_rss", NAN);
	double sa = jp_num(oa->memory, "memory.stack.used", NAN), sb = jp_num(ob->memory, "memory.stack.used", NAN);
	json_t *e = json_pack("{s:s, s:s}", "instance", p->a->name, "op", oa->op);
	if (isfinite(pa) && isfinite(pb))
		json_object_set_new(e, "peak_rss", json_pack("{s:f, s:f, s:f}", "a", pa, "b", pb, "delta", pb - pa));
	if (isfinite(sa) && isfinite(sb))
		json_object_set_new(e, "stack", json_pack("{s:f, s:f, s:f}", "a", sa, "b", sb, "delta", sb - sa));
	return e;
}

static double self_share_of(const json_t *prof, const char *name)
{
	size_t i;
	json_t *f;
	json_array_foreach(jp(prof, "functions"), i, f)
		if (strcmp(jp_str(f, "name", ""), name) == 0)
			return jp_num(f, "self_share", 0);
	return 0;
}

struct fn_delta {
	const char *name;
	double a, b;
};

static int cmp_delta(const void *x, const void *y)
{
	const struct fn_delta *p = x, *q = y;
	double dp = fabs(p->b - p->a), dq = fabs(q->b - q->a);
	if (dp != dq)
		return dp < dq ? 1 : -1;
	return strcmp(p->name, q->name);
}

static json_t *function_entry(const struct pair *p, const struct rs_op *oa, const struct rs_op *ob, int top)
{
	size_t na = json_array_size(jp(oa->profile, "functions")), nb = json_array_size(jp(ob->profile, "functions"));
	struct fn_delta *d = calloc(na + nb + 1, sizeof *d);
	if (!d)
		return NULL;
	size_t n = 0;
	const json_t *profs[2] = { oa->profile, ob->profile };
	for (int s = 0; s < 2; s++) {
		size_t i;
		json_t *f;
		json_array_foreach(jp(profs[s], "functions"), i, f) {
			const char *name = jp_str(f, "name", NULL);
			int seen = !name;
			for (size_t k = 0; k < n && !seen; k++)
				seen = strcmp(d[k].name, name) == 0;
			if (seen)
				continue;
			d[n].name = name;
			d[n].a = self_share_of(oa->profile, name);
			d[n].b = self_share_of(ob->profile, name);
			n++;
		}
	}
	qsort(d, n, sizeof *d, cmp_delta);
	json_t *rows = json_array();
	for (size_t i = 0; i < n && i < (size_t)top; i++)
		json_array_append_new(rows, json_pack("{s:s, s:f, s:f, s:f}", "name", d[i].name, "a_self_share", d[i].a,
		                                      "b_self_share", d[i].b, "delta", d[i].b - d[i].a));
	free(d);
	return json_pack("{s:s, s:s, s:o}", "instance", p->a->name, "op", oa->op, "functions", rows);
}

static int load_folded(const char *dir, const char *rel, const char *op, const char *event, folded **out,
                       pq_error *err)
{
	char path[4096 + RS_PATH + 2];
	char *text = NULL;
	int r = path_fmt(path, sizeof path, err, "%s/%s", dir, rel);
	if (r == 0)
		r = read_whole_file(path, &text, NULL, 256u << 20, err);
	if (r < 0)
		return r;
	folded *f = folded_new(event);
	if (!f) {
		free(text);
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	}
	r = folded_parse(f, op, text, err);
	free(text);
	if (r < 0) {
		pq_error_prefix(err, "%s: ", path);
		folded_free(f);
		return r;
	}
	*out = f;
	return 0;
}

/* A differential flame graph when both sides kept folded stacks; notes say why not. */
static void diff_flame(const struct record_set *a, const struct record_set *b, const struct pair *p,
                       const struct rs_op *oa, const struct rs_op *ob, const struct compare_opts *o,
                       json_t *flames, json_t *notes)
{
	if (!oa->folded_file[0] || !ob->folded_file[0]) {
		if ((oa->trace_file[0] || oa->flame_file[0]) && (ob->trace_file[0] || ob->flame_file[0]))
			json_array_append_new(notes, jfmt("%s %s: no differential flame graph: it is drawn from folded "
			                      "stacks (flame/<label>__<op>.folded, or \"folded\" in the profile record), "
			                      "which %s lacks; .pqt traces need the symbolizer to fold",
			                      p->a->name, oa->op, !oa->folded_file[0] ? "A" : "B"));
		return;
	}
	if (!o->out_dir) {
		json_array_append_new(notes, jfmt("%s %s: differential flame graph not drawn (give --out DIR)",
		                                  p->a->name, oa->op));
		return;
	}
	const char *event = jp_str(ob->profile, "event", NULL);
	folded *fa = NULL, *fb = NULL;
	pq_error e = { 0 };
	char dir[4200], path[4200 + RS_NAME + 32];
	if (path_fmt(dir, sizeof dir, &e, "%s/flame", o->out_dir) < 0 ||
	    path_fmt(path, sizeof path, &e, "%s/diff_%s__%s.svg", dir, p->b->label, oa->op) < 0)
		dir[0] = path[0] = '\0';
	char title[2 * RS_NAME + 64];
	snprintf(title, sizeof title, "%s %s: B vs A (red grew, blue shrank)", p->a->name, oa->op);
	struct flamegraph_opts fo = { .title = title };
	if (load_folded(a->dir, oa->folded_file, oa->op, event, &fa, &e) == 0 &&
	    load_folded(b->dir, ob->folded_file, ob->op, event, &fb, &e) == 0 && make_dirs(dir, &e) == 0 &&
	    flamegraph_diff_svg(fa, fb, oa->op, &fo, path, &e) == 0)
		json_array_append_new(flames, json_pack("{s:s, s:s, s:s}", "instance", p->a->name, "op", oa->op,
		                                        "file", path));
	else
		json_array_append_new(notes, jfmt("%s %s: differential flame graph failed: %s", p->a->name, oa->op,
		                                  e.msg));
	folded_free(fa);
	folded_free(fb);
}

int compare_sets(const struct record_set *a, const struct record_set *b, const struct compare_opts *o,
                 json_t **result, pq_error *err)
{
	*result = NULL;
	struct compare_opts dflt = { 0 };
	if (!o)
		o = &dflt;
	struct pair *pairs = calloc(a->ninst + 1, sizeof *pairs);
	if (!pairs)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	size_t np = make_pairs(a, b, pairs);
	json_t *timing = json_array(), *images = json_array(), *memory = json_array(), *functions = json_array();
	json_t *flames = json_array(), *notes = json_array();
	int rc = 0, timed = 0;
	int top = o->max_functions > 0 ? o->max_functions : COMPARE_TOP_FUNCTIONS;
	for (size_t i = 0; i < np && rc == 0; i++) {
		const struct pair *p = &pairs[i];
		double ia = image_of(p->a), ib = image_of(p->b);
		if (ia >= 0 && ib >= 0)
			json_array_append_new(images, json_pack("{s:s, s:f, s:f, s:f}", "instance", p->a->name, "a", ia,
			                                        "b", ib, "delta", ib - ia));
		for (int k = 0; k < p->a->nops && rc == 0; k++) {
			const struct rs_op *oa = &p->a->ops[k], *ob = rs_find_op(p->b, oa->op);
			if (!ob)
				continue;
			if (complete(oa->bench) && complete(ob->bench)) {
				json_t *e = timing_entry(p, oa, ob, o, notes, err, &rc);
				if (e) {
					json_array_append_new(timing, e);
					timed++;
				}
			} else if (oa->bench || ob->bench) {
				json_array_append_new(notes, jfmt("%s %s: not timed on both sides (A %s, B %s)", p->a->name,
				                      oa->op, oa->bench ? jp_str(oa->bench, "status", "?") : "missing",
				                      ob->bench ? jp_str(ob->bench, "status", "?") : "missing"));
			}
			if (memory_ok(oa->memory) && memory_ok(ob->memory))
				json_array_append_new(memory, memory_entry(p, oa, ob));
			if (oa->profile && ob->profile) {
				json_t *fe = function_entry(p, oa, ob, top);
				if (fe)
					json_array_append_new(functions, fe);
			}
			diff_flame(a, b, p, oa, ob, o, flames, notes);
		}
	}
	free(pairs);
	if (rc == 0 && !np)
		rc = pq_fail(err, PQ_EINPUT, "%s and %s have no instance in common", a->dir, b->dir);
	if (rc == 0 && !timed && !json_array_size(memory) && !json_array_size(functions) && !json_array_size(images))
		rc = pq_fail(err, PQ_EINPUT, "%s and %s have no (instance, op) measured on both sides", a->dir, b->dir);
	if (rc < 0) {
		json_decref(timing);
		json_decref(images);
		json_decref(memory);
		json_decref(functions);
		json_decref(flames);
		json_decref(notes);
		return rc;
	}
	*result = json_pack("{s:s, s:s, s:s, s:i, s:I, s:f, s:o, s:o, s:o, s:o, s:o, s:o}", "schema",
	                    "pqprof.compare/1", "a", a->dir, "b", b->dir, "resamples",
	                    o->resamples > 0 ? o->resamples : STATS_BOOTSTRAP_RESAMPLES, "seed",
	                    (json_int_t)(o->seed ? o->seed : STATS_BOOTSTRAP_SEED), "tolerance", o->tolerance,
	                    "timing", timing, "static_image", images, "memory", memory, "functions", functions,
	                    "flamegraphs", flames, "notes", notes);
	if (!*result)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	return 0;
}

/* ---------------- rendering ---------------- */

static void fmt_ratio(char *buf, size_t len, const json_t *e)
{
	double r = jp_num(e, "ratio", NAN), lo = jp_num(e, "lo", NAN), hi = jp_num(e, "hi", NAN);
	if (!isfinite(r))
		snprintf(buf, len, "–");
	else
		snprintf(buf, len, "%.3f (%.3f–%.3f)", r, lo, hi);
}

static void fmt_delta_bytes(char *buf, size_t len, double a, double b)
{
	if (a > 0)
		snprintf(buf, len, "%+.0f (%+.1f%%)", b - a, (b - a) / a * 100.0);
	else
		snprintf(buf, len, "%+.0f", b - a);
}

static void fmt_delta_kib(char *buf, size_t len, double d)
{
	snprintf(buf, len, "%+.0f KiB", d / 1024.0);
}

int compare_doc(const json_t *res, rdoc *d, pq_error *err)
{
	rdoc_heading(d, 1, "compare", "Comparison: B / A");
	rdoc_item(d, "A (baseline): %s", jp_str(res, "a", "?"));
	rdoc_item(d, "B (candidate): %s", jp_str(res, "b", "?"));
	rdoc_para(d, "Ratios are mean cost per call of B over A (below 1: B is faster), with a percentile bootstrap "
	          "95%% interval over every per-call value of every trial (%.0f resamples, fixed seed); the verdict "
	          "is \"no significant change\" while the interval contains 1%s.",
	          jp_num(res, "resamples", 0), jp_num(res, "tolerance", 0) > 0 ? " (within the tolerance)" : "");
	size_t i;
	json_t *e;
	rdoc_heading(d, 2, "timing", "Timing");
	json_t *timing = jp(res, "timing");
	if (json_array_size(timing)) {
		static const char *const hdr[] = { "instance", "operation", "unit", "A mean", "B mean",
		                                   "ratio B/A (95% interval)", "verdict" };
		struct rd_table *t = rdoc_table(d, 7, hdr);
		json_array_foreach(timing, i, e) {
			char ma[32], mb[32], ratio[96], inst[2 * RS_NAME + 16];
			fmt_count(ma, sizeof ma, jp_num(e, "a_mean", NAN));
			fmt_count(mb, sizeof mb, jp_num(e, "b_mean", NAN));
			fmt_ratio(ratio, sizeof ratio, e);
			const char *pa = jp_str(e, "profile_a", ""), *pb = jp_str(e, "profile_b", "");
			snprintf(inst, sizeof inst, "%s", jp_str(e, "instance", "?"));
			const char *cells[] = { inst, jp_str(e, "op", "?"), jp_str(e, "unit", "?"), ma, mb, ratio,
			                        jp_str(e, "verdict", "unknown") };
			rd_row(d, t, cells, 1u);
			if (strcmp(pa, pb) != 0) {
				char sfx[2 * RS_NAME + 16];
				snprintf(sfx, sizeof sfx, " (%s → %s)", pa[0] ? pa : "?", pb[0] ? pb : "?");
				rd_suffix(d, t, 0, sfx);
			}
		}
	} else {
		rdoc_para(d, "No operation was timed on both sides.");
	}
	json_t *images = jp(res, "static_image");
	if (json_array_size(images)) {
		rdoc_heading(d, 2, "image", "Static image");
		static const char *const hdr[] = { "instance", "A (bytes)", "B (bytes)", "delta" };
		struct rd_table *t = rdoc_table(d, 4, hdr);
		json_array_foreach(images, i, e) {
			char a[32], b[32], dl[64];
			double va = jp_num(e, "a", NAN), vb = jp_num(e, "b", NAN);
			snprintf(a, sizeof a, "%.0f", va);
			snprintf(b, sizeof b, "%.0f", vb);
			fmt_delta_bytes(dl, sizeof dl, va, vb);
			const char *cells[] = { jp_str(e, "instance", "?"), a, b, dl };
			rd_row(d, t, cells, 1u);
		}
	}
	json_t *memory = jp(res, "memory");
	if (json_array_size(memory)) {
		rdoc_heading(d, 2, "memory", "Memory");
		static const char *const hdr[] = { "instance", "operation", "peak RSS A", "peak RSS B", "delta",
		                                   "stack A", "stack B", "delta" };
		struct rd_table *t = rdoc_table(d, 8, hdr);
		json_array_foreach(memory, i, e) {
			char c[6][48];
			const char *cells[8] = { jp_str(e, "instance", "?"), jp_str(e, "op", "?") };
			if (jp(e, "peak_rss")) {
				fmt_kib(c[0], 48, jp_num(e, "peak_rss.a", NAN));
				fmt_kib(c[1], 48, jp_num(e, "peak_rss.b", NAN));
				fmt_delta_kib(c[2], 48, jp_num(e, "peak_rss.delta", NAN));
				cells[2] = c[0], cells[3] = c[1], cells[4] = c[2];
			}
			if (jp(e, "stack")) {
				snprintf(c[3], 48, "%.0f B", jp_num(e, "stack.a", NAN));
				snprintf(c[4], 48, "%.0f B", jp_num(e, "stack.b", NAN));
				snprintf(c[5], 48, "%+.0f B", jp_num(e, "stack.delta", NAN));
				cells[5] = c[3], cells[6] = c[4], cells[7] = c[5];
			}
			rd_row(d, t, cells, 1u);
		}
	}
	json_t *functions = jp(res, "functions");
	if (json_array_size(functions)) {
		rdoc_heading(d, 2, "functions", "Functions");
		rdoc_para(d, "Self share of samples in A and in B, largest changes first (delta in percentage points).");
		json_array_foreach(functions, i, e) {
			rdoc_heading(d, 3, NULL, "%s — %s", jp_str(e, "instance", "?"), jp_str(e, "op", "?"));
			static const char *const hdr[] = { "function", "self share A", "self share B", "delta" };
			struct rd_table *t = rdoc_table(d, 4, hdr);
			size_t k;
			json_t *f;
			json_array_foreach(jp(e, "functions"), k, f) {
				char a[32], b[32], dl[32];
				report_fmt_share(a, sizeof a, jp_num(f, "a_self_share", NAN));
				report_fmt_share(b, sizeof b, jp_num(f, "b_self_share", NAN));
				snprintf(dl, sizeof dl, "%+.1f", jp_num(f, "delta", NAN) * 100.0);
				const char *cells[] = { jp_str(f, "name", "?"), a, b, dl };
				rd_row(d, t, cells, 1u);
			}
		}
	}
	json_t *flames = jp(res, "flamegraphs");
	json_array_foreach(flames, i, e)
		rdoc_item(d, "differential flame graph, %s %s: %s", jp_str(e, "instance", "?"), jp_str(e, "op", "?"),
		          jp_str(e, "file", "?"));
	json_t *notes = jp(res, "notes");
	if (json_array_size(notes)) {
		rdoc_heading(d, 2, "notes", "Notes");
		json_array_foreach(notes, i, e)
			if (json_is_string(e))
				rdoc_item(d, "%s", json_string_value(e));
	}
	if (d->oom)
		return pq_fail(err, PQ_ENOMEM, "out of memory rendering the comparison");
	return 0;
}

int compare_write(const json_t *result, const char *out_dir, pq_error *err)
{
	int r = make_dirs(out_dir, err);
	if (r < 0)
		return r;
	char path[4200];
	rdoc doc;
	rdoc_init(&doc);
	r = compare_doc(result, &doc, err);
	if (r == 0) {
		r = path_fmt(path, sizeof path, err, "%s/compare.md", out_dir);
		if (r == 0)
			r = report_write_markdown(&doc, path, err);
	}
	rdoc_free(&doc);
	if (r < 0)
		return r;
	r = path_fmt(path, sizeof path, err, "%s/compare.json", out_dir);
	return r < 0 ? r : json_file_write(path, result, err);
}
