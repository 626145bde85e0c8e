/*
 * analysis: .pqt trace -> symbolized per-operation aggregates, records and
 * folded stacks; see analysis.h for the attribution rules.  Reading is
 * one pass that merges identical stacks; symbolizing is one lookup per
 * distinct address per address space; everything after that works on
 * small integer ids.  The model is in analysis_model.h.  Not here: the
 * record of an operation (analysis_record.c), recording (profile_run.c),
 * the text layout of the report (profile_text.c), and writing exports
 * and flame graphs (profile_export.c).
 */
#include "config.h"
#include "core/reader_view.h"
#include "profile/analysis.h"
#include "core/clock.h"
#include "core/digest.h"
#include "core/grow.h"
#include "core/jpath.h"
#include "core/path_name.h"
#include "core/text_buf.h"
#include "profile/analysis_model.h"

#include "profile/symbolizer.h"
#include "runner/op_ctx.h"
#include "trace/trace_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* ---- operations ---- */

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
	struct text_buf sig = { 0 };
	text_printf(&sig, "%s", "");  /* "" for a space without mappings */
	for (size_t i = 0; i < s->nmaps; i++)
		text_printf(&sig, "%s@%" PRIx64 "+%" PRIx64 ":%" PRIx64 ";", s->maps[i].path, s->maps[i].start,
		            s->maps[i].len, s->maps[i].pgoff);
	if (sig.oom) {
		text_free(&sig);
		return oom(err);
	}
	s->sig = sig.s;
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
	/* Inline chains and lines matter in the instance; the runner, libc and
	 * the rest are named from their symbol tables, their DWARF never read. */
	if (a->lib_base[0] && symbolizer_dwarf_only_for(s->sym, a->lib_base) < 0)
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
		case TRACE_REC_UNWIND_STATS:
			for (size_t i = 0; i < a->nops; i++) {
				if (a->ops[i].op != rec.u.unwind.op)
					continue;
				struct trace_unwind_stats *u = &a->ops[i].unwind;
				const struct trace_unwind_stats *v = &rec.u.unwind;
				u->op = v->op;
				u->stacks += v->stacks;
				u->complete += v->complete;
				u->incomplete += v->incomplete;
				u->frames_cfi += v->frames_cfi;
				u->frames_fp += v->frames_fp;
				u->frames_scan += v->frames_scan;
				u->frames_stitched += v->frames_stitched;
				a->ops[i].has_unwind = 1;
			}
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
	trace_reader_stats(r, &a->trace_st);
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
		memset(fn, 0, sizeof *fn);
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

/*
 * A source path as reports show it: relative to the instance's source tree
 * when it is inside it, else its last component (a system header, the
 * generated shim in a removed build directory): never a path of the
 * machine the library was built on.  A suffix of path, so no copy.
 */
const char *analysis_source_display(const struct analysis *a, const char *path)
{
	if (!path)
		return NULL;
	size_t rl = strlen(a->source_root);
	if (rl && strncmp(path, a->source_root, rl) == 0 && path[rl] == '/' && path[rl + 1])
		return path + rl + 1;
	return path_base(path);
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
		a->af[a->naf++] = (struct aframe){ id, fr[i].line, analysis_source_display(a, fr[i].file), fr[i].file,
		                                   fr[i].inlined };
		if (fr[i].inlined)
			a->funcs[id].seen_inlined = 1;
		else
			a->funcs[id].seen_outline = 1;
		r->n++;
	}
	*out = (uint32_t)a->nres++;
	a->st.addresses++;
	return strmap_put(&s->addr, key, klen, *out) < 0 ? oom(err) : 0;
}

/* Is the module mapped at ip (a return address when j > 0) named base? */
static int module_is(const struct space *s, uint64_t ip, uint32_t j, const char *base)
{
	const char *m = symbolizer_module_at(s->sym, j && ip ? ip - 1 : ip);
	return m && strcmp(m, base) == 0;
}

/*
 * Symbolize what the report shows: each stack up to its outermost frame
 * in the instance library (the runner and libc frames outside it are cut
 * anyway), nothing of the harness's own stacks (only counted), all of a
 * stack that never enters the instance.  Which module an address is in
 * comes from the mappings alone, so modules only outside the instance
 * (libc, the runner) never have their symbols or DWARF loaded.
 */
static int symbolize_all(struct analysis *a, pq_error *err)
{
	for (size_t i = 0; i < a->nstks; i++) {
		struct stk *k = &a->stks[i];
		struct space *s = &a->spaces[k->space];
		k->xoff = a->nxf;
		k->xn = 0;
		uint32_t upto = k->n;   /* addresses [0, upto) get symbolized */
		int lib_seen = 0, runner_seen = 0;
		for (uint32_t j = k->n; j-- > 0;) {
			uint64_t ip = a->ips[k->ipoff + j];
			if (module_is(s, ip, j, a->lib_base)) {
				upto = j + 1;
				lib_seen = 1;
				k->outer_in_lib = j + 1 == k->n;
				break;
			}
			runner_seen |= module_is(s, ip, j, a->runner_base);
		}
		if (!lib_seen && runner_seen) {
			k->harness = 1;
			k->keep = 0;
			continue;
		}
		for (uint32_t j = 0; j < upto; j++) {
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
		if (!lib_seen && in_lib && k->xn)
			k->outer_in_lib = a->funcs[a->af[a->xf[k->xoff + k->xn - 1]].func].in_lib;
	}
	return 0;
}

/* ---- open / close ---- */

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
	double t0 = mono_s();
	if (trace_reader_open(&r, trace_path, err) < 0) {
		rc = -err->code;
		goto out;
	}
	a->header = json_deep_copy(trace_reader_header(r));
	if (!a->header || !a->unverified || !a->warnings || !a->trace_path) {
		rc = oom(err);
		goto out;
	}
	const char *lib = jp_text(a->header, "lib", "");
	snprintf(a->lib_base, sizeof a->lib_base, "%s", path_base(lib));
	const char *root = json_string_value(json_object_get(json_object_get(a->header, "instance"), "source_dir"));
	snprintf(a->source_root, sizeof a->source_root, "%s", root ? root : "");
	for (size_t l = strlen(a->source_root); l > 1 && a->source_root[l - 1] == '/'; l--)
		a->source_root[l - 1] = '\0';
	const char *runner = jp_text(a->header, "runner", "pqprof-runner");
	snprintf(a->runner_base, sizeof a->runner_base, "%s", path_base(runner));
	a->event = jp_text(a->header, "event", "samples");
	a->unit = jp_text(a->header, "unit", "samples");
	a->callgraph = jp_text(a->header, "callgraph", "fp");
	const char *cf = json_string_value(json_object_get(json_object_get(a->header, "instance"), "cflags"));
	if (strcmp(a->callgraph, "fp") == 0 && cf && !strstr(cf, "-fno-omit-frame-pointer"))
		json_array_append_new(a->warnings,
		                      json_string("fp call graph of code built without -fno-omit-frame-pointer: "
		                                  "callers are missing or wrong, so inclusive shares, the call "
		                                  "tree and group shares are too low (self shares are right); "
		                                  "record with --call-graph dwarf"));
	if ((rc = setup_groups(a, err)) < 0 || (rc = read_trace(a, r, err)) < 0)
		goto out;
	double t1 = mono_s();
	a->st.read_s = t1 - t0;
	rc = symbolize_all(a, err);
	a->st.symbolize_s = mono_s() - t1;
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
		free(a->funcs[i].iname);
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

/* ---- folded stacks for the exporters ---- */

/* Suffix of an inlined copy's frame name in the exports. */
#define INLINED_SUFFIX "_[i]"

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
			struct afunc *fn = &a->funcs[af->func];
			const char *name = fn->name;
			/* An inlined copy is its own frame in every export, marked
			 * the way FlameGraph marks one (and colours it). */
			if (af->inlined) {
				if (!fn->iname) {
					size_t l = strlen(fn->name);
					fn->iname = malloc(l + sizeof INLINED_SUFFIX);
					if (fn->iname) {
						memcpy(fn->iname, fn->name, l);
						memcpy(fn->iname + l, INLINED_SUFFIX, sizeof INLINED_SUFFIX);
					}
				}
				if (fn->iname)
					name = fn->iname;
			}
			fr[j] = (struct folded_frame){ name, af->file, af->line };
		}
		if (folded_add(f, a->ops[k->op].name, fr, k->keep, k->weight, err) < 0) {
			free(fr);
			folded_free(f);
			return -err->code;
		}
	}
	free(fr);
	/* Exact call counts (uprobes) where the profiler measured them and they
	 * were the same in every counted call: per op times the ops sampled. */
	int per_run = strcmp(jp_str(a->header, "op_markers", "per-call"), "per-run") == 0;
	for (size_t i = 0; i < a->nops; i++) {
		const struct opinfo *o = &a->ops[i];
		uint64_t ops = per_run ? o->max_end : o->ends;
		json_t *c = json_object_get(json_object_get(a->header, "calls"), o->name);
		if (!ops || !json_is_true(json_object_get(c, "available")))
			continue;
		size_t j;
		json_t *fn;
		json_array_foreach(json_object_get(c, "functions"), j, fn) {
			const char *name = json_string_value(json_object_get(fn, "name"));
			json_t *mn = json_object_get(fn, "min"), *mx = json_object_get(fn, "max");
			if (!name || !json_is_integer(mn) || !json_is_integer(mx) ||
			    json_integer_value(mn) != json_integer_value(mx) || json_integer_value(mn) < 0)
				continue;
			if (folded_set_calls(f, o->name, name, (uint64_t)json_integer_value(mn) * ops) < 0) {
				folded_free(f);
				return oom(err);
			}
		}
	}
	*out = a->folded = f;
	return 0;
}

static int view_mmap(const struct trace_record *rec, void *ctx)
{
	if (rec->type == TRACE_REC_MMAP && rec->u.mmap.path && rec->u.mmap.path[0] == '/')
		reader_view_add(ctx, rec->u.mmap.path, 0);
	return 0;
}

void analysis_view_add(struct reader_view *v, const char *trace_path)
{
	reader_view_add(v, trace_path, 0);
	reader_view_add(v, getenv("PQPROF_SOURCE_ROOT"), 0);
	trace_reader *r = NULL;
	pq_error err = { 0 };
	if (trace_reader_open(&r, trace_path, &err) < 0)
		return;
	const char *src = json_string_value(json_object_get(json_object_get(trace_reader_header(r), "instance"),
	                                                    "source_dir"));
	reader_view_add(v, src, 0);
	reader_view_add(v, json_string_value(json_object_get(trace_reader_header(r), "lib")), 0);
	trace_reader_foreach(r, view_mmap, v, &err);
	trace_reader_close(r);
}
