/*
 * analysis: .pqt trace -> symbolized per-operation aggregates, records and
 * folded stacks; see analysis.h for the attribution rules.  Reading is
 * one pass that merges identical stacks; symbolizing is one lookup per
 * distinct address per address space; everything after that works on
 * small integer ids.  Not here: recording (profile_run.c), the text
 * layout of the report (profile_text.c), and writing exports and flame
 * graphs (profile_export.c).
 */
#include "config.h"
#include "profile/analysis.h"
#include "core/digest.h"
#include "core/grow.h"

#include "profile/symbolizer.h"
#include "runner/op_ctx.h"
#include "trace/strmap.h"
#include "trace/trace_reader.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NONE ((size_t)-1)
#define NO_FUNC UINT32_MAX

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Grow *p (elements of size elem) so that it holds at least need. */
static int grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	return pq_grow(pp, cap, need, elem, 16);
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Integer keys of the string maps: 16 hex digits. */
static size_t int_key(char buf[17], uint64_t v)
{
	return (size_t)snprintf(buf, 17, "%016" PRIx64, v);
}

/* ---- the model ---- */

struct mapping {
	char *path;
	uint64_t start, len, pgoff;
	uint8_t id[TRACE_MAX_BUILD_ID];
	size_t idlen;
};

/* One runner child's address space. */
struct space {
	struct mapping *maps;
	size_t nmaps, capmaps;
	int final;
	size_t canon;               /* the space whose symbolizer resolves this one */
	char *sig;                  /* the mappings as text, to find identical spaces */
	struct symbolizer *sym;     /* canonical spaces only */
	struct strmap addr;         /* address (int_key) -> index into a->res */
};

struct resolved {
	uint32_t first, n;          /* into a->af */
};

struct aframe {
	uint32_t func;
	unsigned line;
	const char *file;           /* interned by the space's symbolizer */
	int inlined;
};

struct afunc {
	char *name;
	char *module;               /* NULL for "[unknown]" */
	int in_lib;
	int in_runner;              /* the pqprof-runner executable */
};

struct stk {
	uint64_t hash;
	uint32_t space, op, n;
	size_t ipoff;
	uint64_t count, weight;
	size_t xoff;                /* expanded frames: a->xf[xoff .. xoff + xn) */
	uint32_t xn;
	uint32_t keep;              /* frames kept after dropping the runner's */
	int harness;                /* no instance frame, but runner frames: the
	                             * enable/disable ioctls and the call wrapper */
};

struct opinfo {
	uint64_t op;
	char *name;
	uint64_t samples, weight, lost, runs, ends, max_end;
};

struct analysis {
	json_t *header;
	char *trace_path;
	struct analysis_opts opts;
	char lib_base[256];
	char runner_base[256];
	const char *event, *unit, *callgraph;
	struct group_set *own_groups;
	const struct group_set *groups;

	struct space *spaces;
	size_t nspaces, capspaces, cur_space;
	struct opinfo *ops;
	size_t nops, capops, cur_op;
	uint64_t lost_outside_ops;

	struct stk *stks;
	size_t nstks, capstks;
	uint32_t *slots;            /* stack index + 1 */
	size_t nslots;
	uint64_t *ips;
	size_t nips, capips;

	struct resolved *res;
	size_t nres, capres;
	struct aframe *af;
	size_t naf, capaf;
	uint32_t *xf;
	size_t nxf, capxf;
	struct afunc *funcs;
	size_t nfuncs, capfuncs;
	struct strmap funcidx;

	json_t *unverified;         /* module problems, one line each */
	struct strmap problem_paths;
	json_t *warnings;
	struct analysis_stats st;
	folded *folded;             /* built on first use */
};

static int oom(pq_error *err)
{
	return pq_fail(err, PQ_ENOMEM, "out of memory");
}

static size_t op_slot(struct analysis *a, uint64_t op, const char *name)
{
	for (size_t i = 0; i < a->nops; i++)
		if (a->ops[i].op == op) {
			if (name && *name && strcmp(a->ops[i].name, name) != 0) {
				free(a->ops[i].name);
				a->ops[i].name = strdup(name);
			}
			return i;
		}
	if (grow(&a->ops, &a->capops, a->nops + 1, sizeof *a->ops) < 0)
		return NONE;
	struct opinfo *o = &a->ops[a->nops];
	memset(o, 0, sizeof *o);
	o->op = op;
	char buf[32];
	if (!name || !*name) {
		if (op < PQ_OP_COUNT)
			name = pq_op_name((enum pq_op)op);
		else {
			snprintf(buf, sizeof buf, "op%" PRIu64, op);
			name = buf;
		}
	}
	if (!(o->name = strdup(name)))
		return NONE;
	return a->nops++;
}

/* ---- address spaces and modules ---- */

static size_t space_new(struct analysis *a)
{
	if (grow(&a->spaces, &a->capspaces, a->nspaces + 1, sizeof *a->spaces) < 0)
		return NONE;
	struct space *s = &a->spaces[a->nspaces];
	memset(s, 0, sizeof *s);
	s->canon = a->nspaces;
	a->cur_space = a->nspaces;
	return a->nspaces++;
}

static void note_problem(struct analysis *a, const char *path, const char *msg)
{
	size_t v;
	if (strmap_get(&a->problem_paths, path, strlen(path), &v))
		return;
	strmap_put(&a->problem_paths, path, strlen(path), 0);
	json_array_append_new(a->unverified, json_string(msg));
}

static void register_module(struct analysis *a, struct symbolizer *sym, const struct mapping *m)
{
	pq_error e = { 0 };
	if (symbolizer_add_module(sym, m->path, m->start, m->start + m->len, m->pgoff,
	                          m->idlen ? m->id : NULL, m->idlen, &e) < 0) {
		char hex[2 * TRACE_MAX_BUILD_ID + 1];
		hex_encode(m->id, m->idlen < TRACE_MAX_BUILD_ID ? m->idlen : TRACE_MAX_BUILD_ID, hex);
		char msg[1400];
		snprintf(msg, sizeof msg, "%s (build id %s): %s; its addresses are shown as [lib+offset]",
		         m->path, m->idlen ? hex : "none recorded", e.msg);
		note_problem(a, m->path, msg);
	}
}

/* The first sample of a space: find an identical earlier space or make a symbolizer. */
static int space_finalize(struct analysis *a, size_t si, pq_error *err)
{
	struct space *s = &a->spaces[si];
	size_t len = 1;
	for (size_t i = 0; i < s->nmaps; i++)
		len += strlen(s->maps[i].path) + 80;
	if (!(s->sig = malloc(len)))
		return oom(err);
	size_t off = 0;
	s->sig[0] = 0;
	for (size_t i = 0; i < s->nmaps; i++)
		off += (size_t)snprintf(s->sig + off, len - off, "%s@%" PRIx64 "+%" PRIx64 ":%" PRIx64 ";",
		                        s->maps[i].path, s->maps[i].start, s->maps[i].len, s->maps[i].pgoff);
	s->final = 1;
	for (size_t j = 0; j < si; j++) {
		struct space *o = &a->spaces[j];
		if (o->final && o->canon == j && o->sym && strcmp(o->sig, s->sig) == 0) {
			s->canon = j;
			return 0;
		}
	}
	s->canon = si;
	if (!(s->sym = symbolizer_new()))
		return oom(err);
	a->st.symbolizers++;
	for (size_t i = 0; i < s->nmaps; i++)
		register_module(a, s->sym, &s->maps[i]);
	return 0;
}

static int add_mapping(struct analysis *a, const struct trace_record *rec, pq_error *err)
{
	if (a->cur_space == NONE && space_new(a) == NONE)
		return oom(err);
	struct space *s = &a->spaces[a->cur_space];
	if (grow(&s->maps, &s->capmaps, s->nmaps + 1, sizeof *s->maps) < 0)
		return oom(err);
	struct mapping *m = &s->maps[s->nmaps];
	memset(m, 0, sizeof *m);
	if (!(m->path = strdup(rec->u.mmap.path)))
		return oom(err);
	m->start = rec->u.mmap.start;
	m->len = rec->u.mmap.len;
	m->pgoff = rec->u.mmap.pgoff;
	m->idlen = rec->u.mmap.build_id_len <= TRACE_MAX_BUILD_ID ? rec->u.mmap.build_id_len : 0;
	memcpy(m->id, rec->u.mmap.build_id, m->idlen);
	s->nmaps++;
	/* A mapping that appears after samples (a late dlopen) joins the
	 * symbolizer already in use. */
	if (s->final)
		register_module(a, a->spaces[s->canon].sym, m);
	return 0;
}

/* ---- reading: merge identical (space, op, stack) ---- */

static uint64_t stack_hash(uint32_t space, uint32_t op, const uint64_t *ips, size_t n)
{
	uint64_t h = mix64(((uint64_t)space << 32) ^ op ^ ((uint64_t)n << 48));
	for (size_t i = 0; i < n; i++)
		h = mix64(h ^ ips[i]) + i;
	return h;
}

static int rehash_stacks(struct analysis *a)
{
	size_t ns = a->nslots ? 2 * a->nslots : 4096;
	uint32_t *sl = calloc(ns, sizeof *sl);
	if (!sl)
		return -1;
	for (size_t i = 0; i < a->nstks; i++) {
		size_t j = a->stks[i].hash & (ns - 1);
		while (sl[j])
			j = (j + 1) & (ns - 1);
		sl[j] = (uint32_t)i + 1;
	}
	free(a->slots);
	a->slots = sl;
	a->nslots = ns;
	return 0;
}

static int add_sample(struct analysis *a, const struct trace_record *rec, pq_error *err)
{
	if (a->cur_space == NONE && space_new(a) == NONE)
		return oom(err);
	if (!a->spaces[a->cur_space].final && space_finalize(a, a->cur_space, err) < 0)
		return -err->code;
	size_t op = op_slot(a, rec->u.sample.op, NULL);
	if (op == NONE)
		return oom(err);
	uint32_t space = (uint32_t)a->spaces[a->cur_space].canon;
	const uint64_t *ips = rec->u.sample.ips;
	size_t n = rec->u.sample.n;
	uint64_t h = stack_hash(space, (uint32_t)op, ips, n);
	struct opinfo *o = &a->ops[op];
	o->samples++;
	o->weight += rec->u.sample.weight;
	a->st.samples++;
	if (2 * (a->nstks + 1) > a->nslots && rehash_stacks(a) < 0)
		return oom(err);
	size_t j = h & (a->nslots - 1);
	for (; a->slots[j]; j = (j + 1) & (a->nslots - 1)) {
		struct stk *k = &a->stks[a->slots[j] - 1];
		if (k->hash == h && k->space == space && k->op == op && k->n == n &&
		    memcmp(a->ips + k->ipoff, ips, n * sizeof *ips) == 0) {
			k->count++;
			k->weight += rec->u.sample.weight;
			return 0;
		}
	}
	if (grow(&a->stks, &a->capstks, a->nstks + 1, sizeof *a->stks) < 0 ||
	    grow(&a->ips, &a->capips, a->nips + n, sizeof *a->ips) < 0)
		return oom(err);
	struct stk *k = &a->stks[a->nstks];
	memset(k, 0, sizeof *k);
	k->hash = h;
	k->space = space;
	k->op = (uint32_t)op;
	k->n = (uint32_t)n;
	k->ipoff = a->nips;
	k->count = 1;
	k->weight = rec->u.sample.weight;
	memcpy(a->ips + a->nips, ips, n * sizeof *ips);
	a->nips += n;
	a->slots[j] = (uint32_t)++a->nstks;
	return 0;
}

static int read_trace(struct analysis *a, trace_reader *r, pq_error *err)
{
	struct trace_record rec;
	pq_error rerr = { 0 };
	int k;
	while ((k = trace_reader_next(r, &rec, &rerr)) == 1) {
		int rc = 0;
		size_t op;
		switch (rec.type) {
		case TRACE_REC_OP_BEGIN:
			if ((op = op_slot(a, rec.u.op.op, rec.u.op.name)) == NONE || space_new(a) == NONE)
				return oom(err);
			a->cur_op = op;
			a->ops[op].runs++;
			break;
		case TRACE_REC_OP_END:
			if ((op = op_slot(a, rec.u.op.op, rec.u.op.name)) == NONE)
				return oom(err);
			a->ops[op].ends++;
			if (rec.u.op.iteration > a->ops[op].max_end)
				a->ops[op].max_end = rec.u.op.iteration;
			a->cur_op = NONE;
			break;
		case TRACE_REC_MMAP:
			rc = add_mapping(a, &rec, err);
			break;
		case TRACE_REC_SAMPLE:
			rc = add_sample(a, &rec, err);
			break;
		case TRACE_REC_LOST:
			if (a->cur_op != NONE)
				a->ops[a->cur_op].lost += rec.u.lost.count;
			else
				a->lost_outside_ops += rec.u.lost.count;
			break;
		default:
			break;
		}
		if (rc < 0)
			return rc;
	}
	if (k < 0) {
		/* What came before the damage is still good data. */
		if (a->st.samples == 0) {
			*err = rerr;
			return -rerr.code;
		}
		char w[1200];
		snprintf(w, sizeof w, "trace damaged, analysed the readable part: %s", rerr.msg);
		json_array_append_new(a->warnings, json_string(w));
	} else if (trace_reader_check_complete(r, &rerr) < 0) {
		json_array_append_new(a->warnings, json_string(rerr.msg));
	}
	return 0;
}

/* ---- symbolizing: every distinct address once per space ---- */

static uint32_t func_id(struct analysis *a, const struct sym_frame *f)
{
	const char *mod = f->module ? f->module : "";
	size_t ln = strlen(f->function), lm = strlen(mod);
	char stackbuf[512];
	char *key = ln + lm + 2 <= sizeof stackbuf ? stackbuf : malloc(ln + lm + 2);
	if (!key)
		return NO_FUNC;
	memcpy(key, mod, lm);
	key[lm] = '\x1f';
	memcpy(key + lm + 1, f->function, ln);
	size_t v;
	uint32_t id = NO_FUNC;
	if (strmap_get(&a->funcidx, key, lm + 1 + ln, &v)) {
		id = (uint32_t)v;
	} else if (grow(&a->funcs, &a->capfuncs, a->nfuncs + 1, sizeof *a->funcs) == 0) {
		struct afunc *fn = &a->funcs[a->nfuncs];
		fn->name = strdup(f->function);
		fn->module = f->module ? strdup(f->module) : NULL;
		fn->in_lib = f->module && strcmp(f->module, a->lib_base) == 0;
		fn->in_runner = f->module && strcmp(f->module, a->runner_base) == 0;
		if (fn->name && strmap_put(&a->funcidx, key, lm + 1 + ln, a->nfuncs) == 0)
			id = (uint32_t)a->nfuncs++;
	}
	if (key != stackbuf)
		free(key);
	return id;
}

/* Index into a->res of addr's frames in space si. */
static int resolve_addr(struct analysis *a, struct space *s, uint64_t addr, uint32_t *out, pq_error *err)
{
	char key[17];
	size_t klen = int_key(key, addr), v;
	if (strmap_get(&s->addr, key, klen, &v)) {
		*out = (uint32_t)v;
		return 0;
	}
	const struct sym_frame *fr;
	int nf = 0;
	if (symbolizer_resolve(s->sym, addr, &fr, &nf) < 0)
		return oom(err);
	if (grow(&a->res, &a->capres, a->nres + 1, sizeof *a->res) < 0 ||
	    grow(&a->af, &a->capaf, a->naf + (size_t)nf, sizeof *a->af) < 0)
		return oom(err);
	struct resolved *r = &a->res[a->nres];
	r->first = (uint32_t)a->naf;
	r->n = 0;
	for (int i = 0; i < nf; i++) {
		uint32_t id = func_id(a, &fr[i]);
		if (id == NO_FUNC)
			return oom(err);
		a->af[a->naf++] = (struct aframe){ id, fr[i].line, fr[i].file, fr[i].inlined };
		r->n++;
	}
	*out = (uint32_t)a->nres++;
	a->st.addresses++;
	return strmap_put(&s->addr, key, klen, *out) < 0 ? oom(err) : 0;
}

static int symbolize_all(struct analysis *a, pq_error *err)
{
	for (size_t i = 0; i < a->nstks; i++) {
		struct stk *k = &a->stks[i];
		struct space *s = &a->spaces[k->space];
		k->xoff = a->nxf;
		k->xn = 0;
		for (uint32_t j = 0; j < k->n; j++) {
			uint64_t ip = a->ips[k->ipoff + j];
			uint32_t ri = 0;
			/* Return addresses are looked up inside their call instruction. */
			if (resolve_addr(a, s, j && ip ? ip - 1 : ip, &ri, err) < 0)
				return -err->code;
			const struct resolved *r = &a->res[ri];
			if (grow(&a->xf, &a->capxf, a->nxf + r->n, sizeof *a->xf) < 0)
				return oom(err);
			for (uint32_t f = 0; f < r->n; f++)
				a->xf[a->nxf++] = r->first + f;
			k->xn += r->n;
		}
		/* Keep up to the outermost frame of the instance library. */
		k->keep = k->xn;
		int in_lib = 0, in_runner = 0;
		for (uint32_t j = k->xn; j-- > 0;) {
			const struct afunc *fn = &a->funcs[a->af[a->xf[k->xoff + j]].func];
			if (fn->in_lib) {
				k->keep = j + 1;
				in_lib = 1;
				break;
			}
			in_runner |= fn->in_runner;
		}
		k->harness = !in_lib && in_runner;
	}
	return 0;
}

/* ---- open / close ---- */

static const char *header_str(const json_t *h, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(h, key));
	return s && *s ? s : dflt;
}

/* Groups: the caller's, else the header's, else the defaults. */
static int setup_groups(struct analysis *a, pq_error *err)
{
	if (a->opts.groups) {
		a->groups = a->opts.groups;
		return 0;
	}
	if (!(a->own_groups = groups_new()))
		return oom(err);
	a->groups = a->own_groups;
	json_t *hg = json_object_get(a->header, "groups");
	if (!json_is_array(hg))
		return groups_add_defaults(a->own_groups, err);
	size_t i, j;
	json_t *g, *glob;
	json_array_foreach(hg, i, g) {
		const char *name = json_string_value(json_object_get(g, "name"));
		json_array_foreach(json_object_get(g, "globs"), j, glob) {
			if (name && json_is_string(glob) &&
			    groups_add(a->own_groups, name, json_string_value(glob), err) < 0)
				return -err->code;
		}
	}
	return 0;
}

int analysis_open(struct analysis **out, const char *trace_path, const struct analysis_opts *opts,
                  pq_error *err)
{
	*out = NULL;
	struct analysis *a = calloc(1, sizeof *a);
	if (!a)
		return oom(err);
	if (opts)
		a->opts = *opts;
	a->cur_space = a->cur_op = NONE;
	a->unverified = json_array();
	a->warnings = json_array();
	a->trace_path = strdup(trace_path);
	trace_reader *r = NULL;
	int rc = 0;
	double t0 = now_s();
	if (trace_reader_open(&r, trace_path, err) < 0) {
		rc = -err->code;
		goto out;
	}
	a->header = json_deep_copy(trace_reader_header(r));
	if (!a->header || !a->unverified || !a->warnings || !a->trace_path) {
		rc = oom(err);
		goto out;
	}
	const char *lib = header_str(a->header, "lib", "");
	const char *slash = strrchr(lib, '/');
	snprintf(a->lib_base, sizeof a->lib_base, "%s", slash ? slash + 1 : lib);
	const char *runner = header_str(a->header, "runner", "pqprof-runner");
	slash = strrchr(runner, '/');
	snprintf(a->runner_base, sizeof a->runner_base, "%s", slash ? slash + 1 : runner);
	a->event = header_str(a->header, "event", "samples");
	a->unit = header_str(a->header, "unit", "samples");
	a->callgraph = header_str(a->header, "callgraph", "fp");
	const char *cf = json_string_value(json_object_get(json_object_get(a->header, "instance"), "cflags"));
	if (strcmp(a->callgraph, "fp") == 0 && cf && !strstr(cf, "-fno-omit-frame-pointer"))
		json_array_append_new(a->warnings,
		                      json_string("fp call graph of code built without -fno-omit-frame-pointer: "
		                                  "callers are missing or wrong, so inclusive shares, the call "
		                                  "tree and group shares are too low (self shares are right); "
		                                  "record with --call-graph dwarf"));
	if ((rc = setup_groups(a, err)) < 0 || (rc = read_trace(a, r, err)) < 0)
		goto out;
	double t1 = now_s();
	a->st.read_s = t1 - t0;
	rc = symbolize_all(a, err);
	a->st.symbolize_s = now_s() - t1;
	a->st.stacks = a->nstks;
	a->st.spaces = a->nspaces;
out:
	if (r)
		trace_reader_close(r);
	if (rc < 0)
		analysis_close(a);
	else
		*out = a;
	return rc;
}

void analysis_close(struct analysis *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nspaces; i++) {
		struct space *s = &a->spaces[i];
		for (size_t j = 0; j < s->nmaps; j++)
			free(s->maps[j].path);
		free(s->maps);
		free(s->sig);
		if (s->sym)
			symbolizer_free(s->sym);
		strmap_free(&s->addr);
	}
	free(a->spaces);
	for (size_t i = 0; i < a->nops; i++)
		free(a->ops[i].name);
	free(a->ops);
	for (size_t i = 0; i < a->nfuncs; i++) {
		free(a->funcs[i].name);
		free(a->funcs[i].module);
	}
	free(a->funcs);
	strmap_free(&a->funcidx);
	strmap_free(&a->problem_paths);
	free(a->stks);
	free(a->slots);
	free(a->ips);
	free(a->res);
	free(a->af);
	free(a->xf);
	json_decref(a->header);
	json_decref(a->unverified);
	json_decref(a->warnings);
	groups_free(a->own_groups);
	folded_free(a->folded);
	free(a->trace_path);
	free(a);
}

size_t analysis_op_count(const struct analysis *a)
{
	return a->nops;
}

const char *analysis_op_name(const struct analysis *a, size_t i)
{
	return i < a->nops ? a->ops[i].name : NULL;
}

const json_t *analysis_header(const struct analysis *a)
{
	return a->header;
}

const char *analysis_trace_path(const struct analysis *a)
{
	return a->trace_path;
}

const char *analysis_event(const struct analysis *a)
{
	return a->event;
}

const char *analysis_unit(const struct analysis *a)
{
	return a->unit;
}

void analysis_get_stats(const struct analysis *a, struct analysis_stats *st)
{
	*st = a->st;
}

/* ---- one operation's record ---- */

struct op_tally {
	uint64_t *self, *incl;
	uint32_t *stamp;            /* last stack that counted a function inclusively */
	uint64_t truncated;
};

struct line_hit {
	uint32_t func;
	const char *file;
	unsigned line;
	uint64_t samples;
};

struct tree_node {
	uint32_t func, parent;
	uint64_t count;
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
		uint32_t f = a->af[a->xf[k->xoff + j]].func;
		char key[17];
		size_t klen = int_key(key, (uint64_t)parent << 32 | f), v;
		uint32_t node;
		if (strmap_get(&t->idx, key, klen, &v)) {
			node = (uint32_t)v;
		} else {
			if (grow(&t->n, &t->cap, t->nn + 1, sizeof *t->n) < 0)
				return -1;
			node = (uint32_t)t->nn++;
			t->n[node] = (struct tree_node){ f, parent, 0 };
			if (strmap_put(&t->idx, key, klen, node) < 0)
				return -1;
		}
		t->n[node].count += k->count;
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
		json_array_append_new(e->out, json_pack("{s:i, s:s, s:s?, s:I, s:f}", "depth", depth,
		                                        "name", f->name, "module", f->module, "samples",
		                                        (json_int_t)n->count, "share",
		                                        (double)n->count / (double)e->total));
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
			h[n] = (struct line_hit){ f->func, f->file, f->line, 0 };
			v = n++;
		}
		h[v].samples += k->count;
	}
	qsort(h, n, sizeof *h, cmp_lines);
	for (size_t i = 0; i < n && (int)i < want; i++)
		json_array_append_new(out, json_pack("{s:s, s:s, s:i, s:I, s:f}", "function",
		                                     a->funcs[h[i].func].name, "file", h[i].file, "line",
		                                     (int)h[i].line, "samples", (json_int_t)h[i].samples,
		                                     "share", (double)h[i].samples / (double)samples));
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
		json_t *o = json_pack("{s:s, s:s?}", "name", fn->name, "module", fn->module);
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
		                 header_str(c, "reason", "unknown"), "functions");
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

static json_t *groups_json(const struct analysis *a, const uint64_t *hits, uint64_t samples,
                           double upo, const json_t *calls)
{
	json_t *out = json_array();
	for (size_t g = 0; g < groups_count(a->groups); g++) {
		char buf[4096];
		groups_describe(a->groups, g, buf, sizeof buf);
		json_t *globs = json_array();
		for (char *save = NULL, *tk = strtok_r(buf, ",", &save); tk; tk = strtok_r(NULL, ",", &save))
			json_array_append_new(globs, json_string(tk));
		json_t *o = json_pack("{s:s, s:o}", "name", groups_name(a->groups, g), "globs", globs);
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

static uint64_t op_calls(const struct analysis *a, const struct opinfo *o)
{
	const char *markers = header_str(a->header, "op_markers", "per-call");
	return strcmp(markers, "per-run") == 0 ? o->max_end : o->ends;
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
	const char **names = NULL;
	size_t capnames = 0;
	struct tree tr = { 0 };
	int rc = 0;
	if (!t.self || !t.incl || !t.stamp || !ghits || !gflag ||
	    grow(&tr.n, &tr.cap, 1, sizeof *tr.n) < 0) {
		rc = oom(err);
		goto out;
	}
	tr.n[0] = (struct tree_node){ NO_FUNC, 0, 0 };
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
		if (count_truncated && a->funcs[a->af[x[k->xn - 1]].func].in_lib)
			t.truncated += k->count;
		if (grow(&names, &capnames, k->xn, sizeof *names) < 0) {
			rc = oom(err);
			goto out;
		}
		for (uint32_t j = 0; j < k->xn; j++)
			names[j] = a->funcs[a->af[x[j]].func].name;
		if (groups_match_stack(a->groups, names, k->xn, gflag))
			for (size_t g = 0; g < ng; g++)
				if (gflag[g])
					ghits[g] += k->count;
		if (tree_add(&tr, a, k) < 0) {
			rc = oom(err);
			goto out;
		}
	}
	uint64_t ops = op_calls(a, o);
	double upo = ops ? (double)weight / (double)ops : 0;
	json_t *calls = calls_json(a, &t, o->name, samples, upo);
	json_t *r = json_object();
	json_object_set_new(r, "schema", json_string("pqprof.profile/1"));
	json_object_set_new(r, "status", json_string("complete"));
	json_object_set_new(r, "instance", json_deep_copy(json_object_get(a->header, "instance")));
	json_object_set_new(r, "op", json_string(o->name));
	json_object_set_new(r, "event", json_string(a->event));
	json_object_set_new(r, "unit", json_string(a->unit));
	json_object_set_new(r, "event_fallback", json_string(header_str(a->header, "event_fallback", "")));
	json_object_set_new(r, "callgraph", json_string(a->callgraph));
	json_object_set_new(r, "freq", json_deep_copy(json_object_get(a->header, "freq")));
	json_object_set_new(r, "period", json_deep_copy(json_object_get(a->header, "period")));
	json_object_set_new(r, "samples", json_integer((json_int_t)samples));
	json_object_set_new(r, "weight", json_integer((json_int_t)weight));
	json_object_set_new(r, "harness_samples", json_integer((json_int_t)harness));
	json_object_set_new(r, "trace_samples", json_integer((json_int_t)o->samples));
	json_object_set_new(r, "lost", json_integer((json_int_t)o->lost));
	json_object_set_new(r, "truncated", json_integer((json_int_t)t.truncated));
	json_object_set_new(r, "runs", json_integer((json_int_t)o->runs));
	json_object_set_new(r, "ops", json_integer((json_int_t)ops));
	json_object_set_new(r, "units_per_op", ops ? json_real(upo) : json_null());
	json_object_set_new(r, "functions", functions_json(a, &t, samples, upo));
	json_object_set_new(r, "lines", lines_json(a, samples, (uint32_t)opi));
	json_object_set_new(r, "tree", tree_json(a, &tr, samples));
	json_object_set_new(r, "groups", groups_json(a, ghits, samples, upo, calls));
	json_object_set_new(r, "calls", calls);
	json_object_set_new(r, "trace", json_string(a->trace_path));
	json_object_set_new(r, "flamegraph", a->opts.flamegraph ? json_string(a->opts.flamegraph) : json_null());
	json_object_set_new(r, "folded", a->opts.folded ? json_string(a->opts.folded) : json_null());
	json_object_set_new(r, "modules_unverified", json_deep_copy(a->unverified));
	json_object_set_new(r, "warnings", json_deep_copy(a->warnings));
	*record = r;
out:
	free(t.self);
	free(t.incl);
	free(t.stamp);
	free(ghits);
	free(gflag);
	free(names);
	free(tr.n);
	strmap_free(&tr.idx);
	return rc;
}

/* ---- folded stacks for the exporters ---- */

int analysis_folded(struct analysis *a, const folded **out, pq_error *err)
{
	*out = a->folded;
	if (a->folded)
		return 0;
	folded *f = folded_new(a->unit);
	if (!f)
		return oom(err);
	struct folded_frame *fr = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < a->nstks; i++) {
		const struct stk *k = &a->stks[i];
		if (!k->keep || k->harness)
			continue;
		if (grow(&fr, &cap, k->keep, sizeof *fr) < 0) {
			free(fr);
			folded_free(f);
			return oom(err);
		}
		for (uint32_t j = 0; j < k->keep; j++) {
			const struct aframe *af = &a->af[a->xf[k->xoff + k->keep - 1 - j]];
			fr[j] = (struct folded_frame){ a->funcs[af->func].name, af->file, af->line };
		}
		if (folded_add(f, a->ops[k->op].name, fr, k->keep, k->weight, err) < 0) {
			free(fr);
			folded_free(f);
			return -err->code;
		}
	}
	free(fr);
	*out = a->folded = f;
	return 0;
}
