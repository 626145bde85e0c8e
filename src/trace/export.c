/*
 * export: folded text, speedscope JSON and callgrind writers over the
 * folded model; see export.h.  Deterministic output: entries come sorted
 * from folded_view_make and every table keeps first-seen order.
 */
#include "config.h"
#include "trace/export.h"
#include "core/grow.h"
#include "trace/strmap.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int export_out_open(struct export_out *o, const char *path, pq_error *err)
{
	memset(o, 0, sizeof *o);
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		o->is_stdout = 1;
		return 0;
	}
	int r = atomic_file_open(&o->af, path, err);
	if (r < 0)
		return r;
	o->fp = o->af.fp;
	return 0;
}

int export_out_close(struct export_out *o, int ok, pq_error *err)
{
	if (o->is_stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			return pq_fail_errno(err, PQ_EIO, "standard output: write failed");
		return ok ? 0 : -PQ_EINTERNAL;
	}
	if (!ok) {
		atomic_file_abort(&o->af);
		return -PQ_EINTERNAL;
	}
	return atomic_file_commit(&o->af, err);
}

int export_folded(const folded *f, const char *op, const char *path, pq_error *err)
{
	struct folded_view v;
	int r = folded_view_make(f, op, &v, err);
	if (r < 0)
		return r;
	struct export_out o;
	r = export_out_open(&o, path, err);
	if (r < 0) {
		folded_view_free(&v);
		return r;
	}
	for (size_t i = 0; i < v.n; i++)
		fprintf(o.fp, "%s %" PRIu64 "\n", v.e[i].stack, v.e[i].weight);
	folded_view_free(&v);
	return export_out_close(&o, 1, err);
}

/*
 * Split a folded stack into function ids of names (added as first seen).
 * ids must hold as many entries as the stack has frames; returns the
 * count or -1 when out of memory.
 */
static long split_stack(const char *stack, struct strmap *names, size_t **ids, size_t *cap)
{
	size_t n = 0;
	for (const char *s = stack; ; ) {
		const char *semi = strchr(s, ';');
		size_t len = semi ? (size_t)(semi - s) : strlen(s);
		size_t id;
		if (!strmap_get(names, s, len, &id)) {
			id = names->n;
			if (strmap_put(names, s, len, id) < 0)
				return -1;
		}
		if (pq_grow(&*ids, &*cap, n + 1, sizeof **ids, 64) < 0)
			return -1;
		(*ids)[n++] = id;
		if (!semi)
			break;
		s = semi + 1;
	}
	return (long)n;
}

/*
 * speedscope's unit for the weights: the profiler's clock events weigh
 * samples in ns ("ns"); cycles and plain counts have no speedscope unit.
 */
static const char *speedscope_unit(const char *event)
{
	if (strcmp(event, "ns") == 0 || strcmp(event, "cpu-clock") == 0 || strcmp(event, "task-clock") == 0)
		return "nanoseconds";
	return "none";
}

static json_t *speedscope_profile(const char *name, const char *unit, const struct folded_view *v,
                                  struct strmap *frames, size_t **ids, size_t *cap)
{
	json_t *p = json_object();
	json_t *samples = json_array(), *weights = json_array();
	if (!p || !samples || !weights)
		goto oom;
	json_object_set_new(p, "type", json_string("sampled"));
	json_object_set_new(p, "name", json_string(name));
	json_object_set_new(p, "unit", json_string(unit));
	json_object_set_new(p, "startValue", json_integer(0));
	json_object_set_new(p, "endValue", json_integer((json_int_t)v->total));
	for (size_t i = 0; i < v->n; i++) {
		long n = split_stack(v->e[i].stack, frames, ids, cap);
		json_t *st = json_array();
		if (n < 0 || !st)
			goto oom;
		for (long k = 0; k < n; k++)
			json_array_append_new(st, json_integer((json_int_t)(*ids)[k]));
		json_array_append_new(samples, st);
		json_array_append_new(weights, json_integer((json_int_t)v->e[i].weight));
	}
	json_object_set_new(p, "samples", samples);
	json_object_set_new(p, "weights", weights);
	return p;
oom:
	json_decref(p);
	json_decref(samples);
	json_decref(weights);
	return NULL;
}

static json_t *speedscope_doc(const folded *f, const char *op, const char *name, pq_error *err)
{
	struct strmap frames = { 0 };
	size_t *ids = NULL, cap = 0;
	json_t *doc = json_object(), *profiles = json_array(), *fr = json_array();
	int r = 0;
	if (!doc || !profiles || !fr)
		r = pq_fail(err, PQ_ENOMEM, "speedscope: out of memory");
	for (size_t i = 0; r == 0 && i < f->nops; i++) {
		if (op && strcmp(op, f->ops[i].name) != 0)
			continue;
		struct folded_view v;
		r = folded_view_make(f, f->ops[i].name, &v, err);
		if (r < 0)
			break;
		json_t *p = speedscope_profile(f->ops[i].name, speedscope_unit(f->event), &v, &frames, &ids, &cap);
		folded_view_free(&v);
		if (!p)
			r = pq_fail(err, PQ_ENOMEM, "speedscope: out of memory");
		else
			json_array_append_new(profiles, p);
	}
	if (r == 0 && op && json_array_size(profiles) == 0)
		r = pq_fail(err, PQ_EINPUT, "profile has no operation '%s'", op);
	for (size_t i = 0; r == 0 && i < frames.n; i++) {
		json_t *o = json_pack("{s:s}", "name", frames.keys[i]);
		unsigned line;
		const char *file = folded_func_file(f, frames.keys[i], &line);
		if (o && file)
			json_object_set_new(o, "file", json_string(file));
		if (o && file && line)
			json_object_set_new(o, "line", json_integer(line));
		if (!o)
			r = pq_fail(err, PQ_ENOMEM, "speedscope: out of memory");
		else
			json_array_append_new(fr, o);
	}
	free(ids);
	strmap_free(&frames);
	if (r < 0) {
		json_decref(doc);
		json_decref(profiles);
		json_decref(fr);
		return NULL;
	}
	json_object_set_new(doc, "$schema", json_string("https://www.speedscope.app/file-format-schema.json"));
	json_object_set_new(doc, "shared", json_pack("{s:o}", "frames", fr));
	json_object_set_new(doc, "profiles", profiles);
	json_object_set_new(doc, "name", json_string(name ? name : "pqprof"));
	json_object_set_new(doc, "activeProfileIndex", json_integer(0));
	json_object_set_new(doc, "exporter", json_string("pqprof " PACKAGE_VERSION));
	return doc;
}

int export_speedscope(const folded *f, const char *op, const char *name,
                      const char *path, pq_error *err)
{
	json_t *doc = speedscope_doc(f, op, name, err);
	if (!doc)
		return -(err ? err->code : PQ_ENOMEM);
	struct export_out o;
	int r = export_out_open(&o, path, err);
	if (r == 0) {
		int ok = json_dumpf(doc, o.fp, JSON_COMPACT) == 0;
		fputc('\n', o.fp);
		r = export_out_close(&o, ok, err);
		if (!ok && r == -PQ_EINTERNAL)
			r = pq_fail(err, PQ_EIO, "%s: cannot write JSON", path);
	}
	json_decref(doc);
	return r;
}

/* Callgrind: per-function self cost and per-edge inclusive cost. */
struct cg_edge {
	size_t caller, callee;
	uint64_t inclusive;
	uint64_t paths;
	size_t stamp;       /* last entry that counted this edge (+1) */
};

struct callgrind {
	struct strmap funcs;    /* name -> id */
	uint64_t *self;
	size_t nself;
	struct strmap edge_ix;  /* "caller:callee" -> edge */
	struct cg_edge *edges;
	size_t nedges, capedges;
};

static int cg_grow_self(struct callgrind *cg)
{
	if (cg->nself >= cg->funcs.n)
		return 0;
	size_t cap = cg->nself;
	if (pq_grow(&cg->self, &cap, cg->funcs.n, sizeof *cg->self, 64) < 0)
		return -1;
	memset(cg->self + cg->nself, 0, (cap - cg->nself) * sizeof *cg->self);
	cg->nself = cap;
	return 0;
}

static int cg_edge(struct callgrind *cg, size_t a, size_t b, uint64_t w, size_t stamp)
{
	char key[48];
	int kl = snprintf(key, sizeof key, "%zu:%zu", a, b);
	size_t at;
	if (!strmap_get(&cg->edge_ix, key, (size_t)kl, &at)) {
		if (pq_grow(&cg->edges, &cg->capedges, cg->nedges + 1, sizeof *cg->edges, 64) < 0)
			return -1;
		at = cg->nedges++;
		cg->edges[at] = (struct cg_edge){ a, b, 0, 0, 0 };
		if (strmap_put(&cg->edge_ix, key, (size_t)kl, at) < 0)
			return -1;
	}
	struct cg_edge *e = &cg->edges[at];
	if (e->stamp == stamp)
		return 0;   /* recursion: count each edge once per stack */
	e->stamp = stamp;
	e->inclusive += w;
	e->paths++;
	return 0;
}

static int cg_build(struct callgrind *cg, const struct folded_view *v)
{
	size_t *ids = NULL, cap = 0;
	for (size_t i = 0; i < v->n; i++) {
		long n = split_stack(v->e[i].stack, &cg->funcs, &ids, &cap);
		if (n < 0 || cg_grow_self(cg) < 0)
			goto oom;
		cg->self[ids[n - 1]] += v->e[i].weight;
		for (long k = 0; k + 1 < n; k++)
			if (cg_edge(cg, ids[k], ids[k + 1], v->e[i].weight, i + 1) < 0)
				goto oom;
	}
	free(ids);
	return 0;
oom:
	free(ids);
	return -1;
}

static int edge_cmp(const void *a, const void *b)
{
	const struct cg_edge *x = a, *y = b;
	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

static void cg_event_name(const char *event, char *out, size_t cap)
{
	if (strcmp(event, "samples") == 0)
		event = "Samples";
	size_t n = 0;
	for (; *event && n + 1 < cap; event++) {
		char c = *event;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
		out[n++] = ok ? c : '_';
	}
	out[n] = '\0';
	if (n == 0 || (out[0] >= '0' && out[0] <= '9'))
		snprintf(out, cap, "Samples");
}

/*
 * An edge gets calls= (and so its inclusive cost) only when the callee's
 * calls in op were counted exactly and this edge is the callee's only
 * caller, so the count is the edge's.  Sampling cannot count calls.
 */
static int cg_edge_calls(const folded *f, const char *op, const struct callgrind *cg,
                         const size_t *callers, const struct cg_edge *ed, uint64_t *calls)
{
	if (!op || callers[ed->callee] != 1)
		return 0;
	return folded_get_calls(f, op, cg->funcs.keys[ed->callee], calls);
}

static void cg_write(FILE *fp, const folded *f, const char *op, const struct callgrind *cg,
                     const size_t *callers, uint64_t total)
{
	char ev[64];
	cg_event_name(f->event, ev, sizeof ev);
	fprintf(fp, "# callgrind format\nversion: 1\ncreator: pqprof %s\n", PACKAGE_VERSION);
	fprintf(fp, "cmd: %s\npositions: line\nevents: %s\nsummary: %" PRIu64 "\n",
	        op ? op : "all operations", ev, total);
	size_t e = 0;
	for (size_t fn = 0; fn < cg->funcs.n; fn++) {
		unsigned line;
		const char *file = folded_func_file(f, cg->funcs.keys[fn], &line);
		fprintf(fp, "\nfl=%s\nfn=%s\n", file ? file : "???", cg->funcs.keys[fn]);
		size_t first = e, shown = 0;
		uint64_t calls;
		for (size_t k = first; k < cg->nedges && cg->edges[k].caller == fn; k++)
			shown += (size_t)cg_edge_calls(f, op, cg, callers, &cg->edges[k], &calls);
		if (cg->self[fn] || !shown)
			fprintf(fp, "%u %" PRIu64 "\n", line, cg->self[fn]);
		for (; e < cg->nedges && cg->edges[e].caller == fn; e++) {
			const struct cg_edge *ed = &cg->edges[e];
			if (!cg_edge_calls(f, op, cg, callers, ed, &calls))
				continue;
			unsigned cline;
			const char *cfile = folded_func_file(f, cg->funcs.keys[ed->callee], &cline);
			fprintf(fp, "cfi=%s\ncfn=%s\ncalls=%" PRIu64 " %u\n%u %" PRIu64 "\n",
			        cfile ? cfile : "???", cg->funcs.keys[ed->callee], calls, cline,
			        line, ed->inclusive);
		}
	}
	fprintf(fp, "\ntotals: %" PRIu64 "\n", total);
}

int export_callgrind(const folded *f, const char *op, const char *path, pq_error *err)
{
	struct folded_view v;
	int r = folded_view_make(f, op, &v, err);
	if (r < 0)
		return r;
	struct callgrind cg = { 0 };
	if (cg_build(&cg, &v) < 0) {
		r = pq_fail(err, PQ_ENOMEM, "callgrind: out of memory");
	} else {
		qsort(cg.edges, cg.nedges, sizeof *cg.edges, edge_cmp);
		size_t *callers = calloc(cg.funcs.n + 1, sizeof *callers);
		struct export_out o;
		if (!callers)
			r = pq_fail(err, PQ_ENOMEM, "callgrind: out of memory");
		else
			r = export_out_open(&o, path, err);
		if (r == 0) {
			for (size_t k = 0; k < cg.nedges; k++)
				callers[cg.edges[k].callee]++;
			cg_write(o.fp, f, op, &cg, callers, v.total);
			r = export_out_close(&o, 1, err);
		}
		free(callers);
	}
	folded_view_free(&v);
	strmap_free(&cg.funcs);
	strmap_free(&cg.edge_ix);
	free(cg.self);
	free(cg.edges);
	return r;
}
