/*
 * analysis_annotate: one function of an analysed trace down to its
 * instructions, source lines, blocks and loops (see annotate.h).  Part of
 * the analysis (it reads the model of analysis_model.h), but it never
 * changes it.
 */
#include "config.h"
#include "core/text_buf.h"
#include "core/atomic_file.h"
#include "profile/annotate.h"
#include "core/jpath.h"
#include "core/path_name.h"

#include "profile/analysis_model.h"
#include "profile/code_flow.h"
#include "profile/disasm.h"
#include "profile/symbolizer.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LOOPS 50
#define MAX_BLOCKS 10
#define MAX_TEXT 160

/* Where each instruction's code came from. */
struct insn_src {
	const char *file;           /* as reports show it, NULL when unknown */
	const char *file_abs;
	unsigned line;
	const char *inlined_from;   /* the inlined function, NULL for the function's own code */
};

struct line_sum {
	const char *file, *file_abs, *inlined_from;
	unsigned line;
	uint64_t samples;
	size_t first_insn;
};

/* A source file read once, split into lines. */
struct src_file {
	const char *path;
	char *buf;
	char **line;
	size_t n;
};

struct src_cache {
	struct src_file *f;
	size_t n, cap;
	const char *root;   /* the instance's recorded source tree, "" when unknown */
};

/* At most this much of one source file is read for display. */
#define SRC_TEXT_CAP (8u << 20)

/* Is the resolved path inside root (itself resolved), a tree that may be shown? */
static int inside_root(const char *real, const char *root)
{
	char rr[PATH_MAX];
	return root && *root && realpath(root, rr) && !path_is_system_dir(rr) && path_is_below(real, rr);
}

/*
 * The rule for source text named by DWARF (which the submitter controls):
 * only a regular file whose resolved path lies in the instance's source
 * tree, the tree that PQPROF_SOURCE_ROOT names, or the system's and the
 * compiler's include directories, read without blocking, at most
 * SRC_TEXT_CAP bytes.  Anything else is shown as a path with no text.
 */
static int src_allowed(const char *path, const char *root, char *real)
{
	static const char *const incl[] = { "/usr/include", "/usr/local/include", "/usr/lib/gcc", "/usr/lib/clang" };
	if (!realpath(path, real))
		return 0;
	if (inside_root(real, root) || inside_root(real, getenv("PQPROF_SOURCE_ROOT")))
		return 1;
	for (size_t i = 0; i < sizeof incl / sizeof incl[0]; i++)
		if (path_is_below(real, incl[i]))
			return 1;
	return 0;
}

static size_t find_op(const struct analysis *a, const char *opname)
{
	for (size_t i = 0; i < a->nops; i++)
		if (strcmp(a->ops[i].name, opname) == 0)
			return i;
	return NONE;
}

/* The out-of-line function a stack's leaf address is in. */
static uint32_t leaf_function(const struct analysis *a, const struct stk *k)
{
	const uint32_t *x = a->xf + k->xoff;
	for (uint32_t j = 0; j < k->xn; j++)
		if (!a->af[x[j]].inlined)
			return a->af[x[j]].func;
	return NO_FUNC;
}

/* Samples of op per out-of-line function (leaf addresses only). */
static uint64_t *leaf_counts(const struct analysis *a, size_t opi)
{
	uint64_t *c = calloc(a->nfuncs + 1, sizeof *c);
	for (size_t i = 0; c && i < a->nstks; i++) {
		const struct stk *k = &a->stks[i];
		if (k->op != opi || k->harness || !k->xn)
			continue;
		uint32_t f = leaf_function(a, k);
		if (f != NO_FUNC)
			c[f] += k->count;
	}
	return c;
}

/* "memcpy@plt": a trampoline the linker made, with no code of the scheme's to annotate. */
static int is_plt_stub(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	return n > 4 && strcmp(name + n - 4, "@plt") == 0;
}

json_t *analysis_annotate_hottest(struct analysis *a, const char *op, size_t n)
{
	json_t *out = json_array();
	size_t opi = find_op(a, op);
	uint64_t *c = opi == NONE ? NULL : leaf_counts(a, opi);
	if (!c)
		return out;
	while (json_array_size(out) < n) {
		size_t best = NONE;
		for (size_t f = 0; f < a->nfuncs; f++)
			if (c[f] && a->funcs[f].in_lib && !is_plt_stub(a->funcs[f].name) && (best == NONE || c[f] > c[best]))
				best = f;
		if (best == NONE)
			break;
		json_array_append_new(out, json_string(a->funcs[best].name));
		c[best] = 0;
	}
	free(c);
	return out;
}

/* The mapping of module base in space s that holds addr, or NULL. */
static const struct mapping *map_of(const struct space *s, const char *base, uint64_t addr)
{
	for (size_t i = 0; i < s->nmaps; i++) {
		const struct mapping *m = &s->maps[i];
		if (addr >= m->start && addr < m->start + m->len && strcmp(path_base(m->path), base) == 0)
			return m;
	}
	return NULL;
}

/* The mapping of module base in s that maps file offset off, or NULL. */
static const struct mapping *map_of_offset(const struct space *s, const char *base, uint64_t off)
{
	for (size_t i = 0; i < s->nmaps; i++) {
		const struct mapping *m = &s->maps[i];
		if (off >= m->pgoff && off < m->pgoff + m->len && strcmp(path_base(m->path), base) == 0)
			return m;
	}
	return NULL;
}

static const struct src_file *src_get(struct src_cache *c, const char *path)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->f[i].path == path)
			return &c->f[i];
	if (grow(&c->f, &c->cap, c->n + 1, sizeof *c->f) < 0)
		return NULL;
	struct src_file *f = &c->f[c->n++];
	memset(f, 0, sizeof *f);
	f->path = path;
	char real[PATH_MAX];
	int fd = src_allowed(path, c->root, real) ? open_regular(real) : -1;
	if (fd < 0)
		return f;
	size_t len = 0;
	struct stat sb;
	size_t want = fstat(fd, &sb) == 0 && (unsigned long long)sb.st_size < SRC_TEXT_CAP ? (size_t)sb.st_size
	                                                                                 : SRC_TEXT_CAP;
	if (!(f->buf = malloc(want + 1))) {
		close(fd);
		return f;
	}
	while (len < want) {
		ssize_t got = read(fd, f->buf + len, want - len);
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	f->buf[len] = 0;
	size_t nl = 1;
	for (size_t i = 0; i < len; i++)
		nl += f->buf[i] == '\n';
	if (!(f->line = calloc(nl + 1, sizeof *f->line)))
		return f;
	char *p = f->buf;
	while (p && *p) {
		f->line[f->n++] = p;
		if ((p = strchr(p, '\n')) != NULL)
			*p++ = 0;
	}
	return f;
}

static void src_free(struct src_cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->f[i].buf);
		free(c->f[i].line);
	}
	free(c->f);
}

/* Line l (from 1) of path, trimmed on the right, or NULL. */
static json_t *src_text(struct src_cache *c, const char *path, unsigned l)
{
	const struct src_file *f = path ? src_get(c, path) : NULL;
	if (!f || !l || l > f->n)
		return json_null();
	char buf[MAX_TEXT + 1];
	snprintf(buf, sizeof buf, "%s", f->line[l - 1]);
	size_t n = strlen(buf);
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\r'))
		buf[--n] = 0;
	json_t *j = json_string(buf);   /* NULL when not UTF-8 */
	return j ? j : json_null();
}

static void hex(char *buf, size_t n, uint64_t v)
{
	snprintf(buf, n, "0x%" PRIx64, v);
}

/* "file:a-b" of the instructions [i0, i1], the function's own lines first. */
static json_t *source_range(const struct insn_src *src, size_t i0, size_t i1)
{
	const char *file = NULL;
	int own = 0;    /* the function's own lines only, when it has some here */
	for (int pass = 0; pass < 2 && !file; pass++)
		for (size_t i = i0; i <= i1 && !file; i++)
			if (src[i].file && src[i].line && (pass || !src[i].inlined_from)) {
				file = src[i].file;
				own = !pass;
			}
	if (!file)
		return json_null();
	unsigned lo = 0, hi = 0;
	for (size_t i = i0; i <= i1; i++)
		if (src[i].file == file && src[i].line && !(own && src[i].inlined_from)) {
			if (!lo || src[i].line < lo)
				lo = src[i].line;
			if (src[i].line > hi)
				hi = src[i].line;
		}
	char buf[4200];
	if (lo == hi)
		snprintf(buf, sizeof buf, "%s:%u", file, lo);
	else
		snprintf(buf, sizeof buf, "%s:%u-%u", file, lo, hi);
	return json_string(buf);
}

static uint64_t range_samples(const uint64_t *cnt, size_t i0, size_t i1)
{
	uint64_t s = 0;
	for (size_t i = i0; i <= i1; i++)
		s += cnt[i];
	return s;
}

static int cmp_line_src(const void *x, const void *y)
{
	const struct line_sum *a = x, *b = y;
	int c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return strcmp(a->inlined_from ? a->inlined_from : "", b->inlined_from ? b->inlined_from : "");
}

struct ranked {
	size_t i;
	uint64_t samples;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* The skid note of the header, from the event the trace was sampled with. */
static json_t *skid_note(const struct analysis *a)
{
	const char *ev = a->event;
	const char *fb = jp_text(a->header, "event_fallback", "");
	char buf[600];
	if (strncmp(ev, "cycles:p", 8) == 0)
		snprintf(buf, sizeof buf,
		         "precise event %s: the PMU records the address of the instruction that overflowed the "
		         "counter (PEBS/IBS), so samples land on the instruction itself or within one of it",
		         ev);
	else if (strcmp(ev, "cycles") == 0)
		snprintf(buf, sizeof buf,
		         "cycles without precise sampling (this PMU has no :pp mode): the overflow interrupt "
		         "lands a few instructions after the one that cost the time (skid); read the cost of a "
		         "slow instruction on the ones after it");
	else
		snprintf(buf, sizeof buf,
		         "%s is a timer interrupt: each sample lands on the instruction after the one that was "
		         "interrupted (skid), so a slow instruction's cost shows on the next one; no precise "
		         "(:pp) PMU event was used%s%s",
		         ev, fb[0] ? " (" : "", fb[0] ? fb : "");
	if (!(strncmp(ev, "cycles", 6) == 0) && fb[0])
		text_appendf(buf, sizeof buf, ")");
	return json_string(buf);
}

struct ann {
	struct analysis *a;
	size_t opi;
	uint32_t fid;               /* NO_FUNC when the function was never sampled */
	const char *module;
	const char *path;
	struct disasm_func df;
	uint64_t *cnt;              /* per instruction */
	struct insn_src *src;
	uint64_t op_samples, op_weight, in_code, self;
};

/* The file of module base recorded in the trace, or NULL. */
static const char *module_path(const struct analysis *a, const char *base)
{
	for (size_t s = 0; s < a->nspaces; s++)
		for (size_t i = 0; i < a->spaces[s].nmaps; i++)
			if (strcmp(path_base(a->spaces[s].maps[i].path), base) == 0)
				return a->spaces[s].maps[i].path;
	return NULL;
}

/* The virtual address of a sample whose leaf is in the function. */
static int sampled_vaddr(const struct ann *n, uint64_t *va)
{
	const struct analysis *a = n->a;
	if (n->fid == NO_FUNC)
		return -1;
	for (size_t i = 0; i < a->nstks; i++) {
		const struct stk *k = &a->stks[i];
		if (k->op != n->opi || k->harness || !k->xn || !k->n || leaf_function(a, k) != n->fid)
			continue;
		uint64_t ip = a->ips[k->ipoff];
		const struct mapping *m = map_of(&a->spaces[k->space], n->module, ip);
		if (!m)
			continue;
		return disasm_file_vaddr(n->path, ip - m->start + m->pgoff, va);
	}
	return -1;
}

/* Samples per instruction, from the leaf address of each stack. */
static void count_samples(struct ann *n)
{
	struct analysis *a = n->a;
	for (size_t i = 0; i < a->nstks; i++) {
		const struct stk *k = &a->stks[i];
		if (k->op != n->opi || k->harness)
			continue;
		n->op_samples += k->count;
		n->op_weight += k->weight;
		if (!k->n)
			continue;
		uint64_t ip = a->ips[k->ipoff];
		const struct mapping *m = map_of(&a->spaces[k->space], n->module, ip);
		uint64_t va;
		if (!m || disasm_vaddr_of(&n->df, ip - m->start + m->pgoff, &va) < 0)
			continue;
		size_t j = flow_find(n->df.flow, n->df.n, va);
		if (j == n->df.n)
			continue;
		n->cnt[j] += k->count;
		n->in_code += k->count;
		if (k->xn && a->af[a->xf[k->xoff]].func == n->fid)
			n->self += k->count;
	}
}

/* Source line and inlined function of each instruction. */
static int resolve_sources(struct ann *n, pq_error *err)
{
	struct analysis *a = n->a;
	const struct space *s = NULL;
	/* Any symbolizer that has the module: identical files resolve alike. */
	for (size_t i = 0; i < a->nspaces && !s; i++) {
		const struct space *c = &a->spaces[a->spaces[i].canon];
		if (a->spaces[i].final && c->sym)
			for (size_t j = 0; j < c->nmaps && !s; j++)
				if (strcmp(path_base(c->maps[j].path), n->module) == 0)
					s = c;
	}
	if (!s)
		return 0;
	for (size_t i = 0; i < n->df.n; i++) {
		uint64_t off;
		const struct mapping *m;
		if (disasm_offset_of(&n->df, n->df.flow[i].addr, &off) < 0 ||
		    !(m = map_of_offset(s, n->module, off)))
			continue;
		const struct sym_frame *fr;
		int nf = 0;
		if (symbolizer_resolve(s->sym, m->start + off - m->pgoff, &fr, &nf) < 0)
			return oom(err);
		if (nf < 1 || fr[0].source != SYM_FROM_DWARF || !fr[0].file || !fr[0].line)
			continue;
		n->src[i] = (struct insn_src){ analysis_source_display(a, fr[0].file), fr[0].file, fr[0].line,
		                               fr[0].inlined ? fr[0].function : NULL };
	}
	return 0;
}

static json_t *share_obj(json_t *o, uint64_t samples, const struct ann *n, double upo)
{
	double sh = n->op_samples ? (double)samples / (double)n->op_samples : 0;
	json_object_set_new(o, "samples", json_integer((json_int_t)samples));
	json_object_set_new(o, "share", json_real(sh));
	json_object_set_new(o, "units_per_op", upo > 0 ? json_real(sh * upo) : json_null());
	return o;
}

static json_t *lines_json(const struct ann *n, struct src_cache *sc, double upo, int with_text)
{
	json_t *out = json_array();
	struct line_sum *l = NULL;
	size_t nl = 0, cap = 0;
	for (size_t i = 0; i < n->df.n; i++) {
		const struct insn_src *s = &n->src[i];
		size_t j;
		for (j = 0; j < nl; j++)
			if (l[j].file == s->file && l[j].line == s->line && l[j].inlined_from == s->inlined_from)
				break;
		if (j == nl) {
			if (grow(&l, &cap, nl + 1, sizeof *l) < 0)
				break;
			l[nl++] = (struct line_sum){ s->file, s->file_abs, s->inlined_from, s->line, 0, i };
		}
		l[j].samples += n->cnt[i];
	}
	if (nl)
		qsort(l, nl, sizeof *l, cmp_line_src);
	for (size_t j = 0; j < nl; j++) {
		json_t *o = json_object();
		json_object_set_new(o, "file", l[j].file ? json_string(l[j].file) : json_null());
		json_object_set_new(o, "line", json_integer(l[j].line));
		json_object_set_new(o, "inlined_from", l[j].inlined_from ? json_string(l[j].inlined_from) : json_null());
		json_object_set_new(o, "text", with_text ? src_text(sc, l[j].file_abs, l[j].line) : json_null());
		json_array_append_new(out, share_obj(o, l[j].samples, n, upo));
	}
	free(l);
	return out;
}

static json_t *insns_json(const struct ann *n, int max)
{
	json_t *out = json_array();
	char buf[32];
	for (size_t i = 0; i < n->df.n && (!max || (int)i < max); i++) {
		const struct insn_src *s = &n->src[i];
		hex(buf, sizeof buf, n->df.flow[i].addr);
		json_t *o = json_pack("{s:s, s:I, s:s, s:I, s:f}", "addr", buf, "offset",
		                      (json_int_t)(n->df.flow[i].addr - n->df.start), "asm", n->df.insn[i].text,
		                      "samples", (json_int_t)n->cnt[i], "share",
		                      n->op_samples ? (double)n->cnt[i] / (double)n->op_samples : 0.0);
		json_object_set_new(o, "file", s->file ? json_string(s->file) : json_null());
		json_object_set_new(o, "line", json_integer(s->line));
		json_object_set_new(o, "inlined_from", s->inlined_from ? json_string(s->inlined_from) : json_null());
		json_array_append_new(out, o);
	}
	return out;
}

static json_t *range_json(const struct ann *n, size_t i0, size_t i1, double upo)
{
	char b0[32], b1[32];
	hex(b0, sizeof b0, n->df.flow[i0].addr);
	hex(b1, sizeof b1, n->df.flow[i1].addr);
	json_t *o = json_pack("{s:s, s:s, s:I}", "start", b0, "end", b1, "insns", (json_int_t)(i1 - i0 + 1));
	json_object_set_new(o, "source", source_range(n->src, i0, i1));
	return share_obj(o, range_samples(n->cnt, i0, i1), n, upo);
}

static int blocks_loops_json(const struct ann *n, double upo, json_t **blocks, json_t **loops, pq_error *err)
{
	struct flow_block *b = NULL;
	struct flow_loop *l = NULL;
	size_t nb = 0, nl = 0;
	struct ranked *r = NULL;
	if (flow_blocks(n->df.flow, n->df.n, &b, &nb) < 0 || flow_loops(n->df.flow, n->df.n, &l, &nl) < 0 ||
	    !(r = calloc((nb > nl ? nb : nl) + 1, sizeof *r))) {
		free(b);
		free(l);
		return oom(err);
	}
	*blocks = json_array();
	*loops = json_array();
	for (size_t i = 0; i < nb; i++)
		r[i] = (struct ranked){ i, range_samples(n->cnt, b[i].first, b[i].first + b[i].n - 1) };
	qsort(r, nb, sizeof *r, cmp_ranked);
	for (size_t i = 0; i < nb && i < MAX_BLOCKS && r[i].samples; i++)
		json_array_append_new(*blocks, range_json(n, b[r[i].i].first, b[r[i].i].first + b[r[i].i].n - 1, upo));
	for (size_t i = 0; i < nl; i++)
		r[i] = (struct ranked){ i, range_samples(n->cnt, l[i].head, l[i].tail) };
	qsort(r, nl, sizeof *r, cmp_ranked);
	for (size_t i = 0; i < nl && i < MAX_LOOPS; i++) {
		json_t *o = range_json(n, l[r[i].i].head, l[r[i].i].tail, upo);
		json_object_set_new(o, "depth", json_integer(l[r[i].i].depth));
		json_array_append_new(*loops, o);
	}
	free(r);
	free(b);
	free(l);
	return 0;
}

static json_t *build_json(const struct ann *n, const struct annotate_opts *ao, pq_error *err)
{
	struct analysis *a = n->a;
	uint64_t ops = analysis_op_calls(a, &a->ops[n->opi]);
	double upo = ops ? (double)n->op_weight / (double)ops : 0;
	json_t *blocks = NULL, *loops = NULL;
	if (blocks_loops_json(n, upo, &blocks, &loops, err) < 0)
		return NULL;
	struct src_cache sc = { .root = a->source_root };
	char start[32];
	hex(start, sizeof start, n->df.start);
	int dwarf = 0;
	for (size_t i = 0; i < n->df.n && !dwarf; i++)
		dwarf = n->src[i].line != 0;
	json_t *o = json_object();
	json_object_set_new(o, "schema", json_string("pqprof.annotate/1"));
	json_object_set_new(o, "function", json_string(n->fid != NO_FUNC ? a->funcs[n->fid].name : n->df.name));
	json_object_set_new(o, "symbol", json_string(n->df.name));
	json_object_set_new(o, "module", json_string(n->module));
	json_object_set_new(o, "path", json_string(n->path));
	json_object_set_new(o, "arch", json_string(n->df.arch));
	json_object_set_new(o, "start", json_string(start));
	json_object_set_new(o, "size", json_integer((json_int_t)n->df.size));
	json_object_set_new(o, "op", json_string(a->ops[n->opi].name));
	json_object_set_new(o, "event", json_string(a->event));
	json_object_set_new(o, "unit", json_string(a->unit));
	json_object_set_new(o, "skid", skid_note(a));
	json_object_set_new(o, "source_lines", json_boolean(dwarf));
	json_object_set_new(o, "op_samples", json_integer((json_int_t)n->op_samples));
	json_object_set_new(o, "op_units_per_op", ops ? json_real(upo) : json_null());
	share_obj(o, n->in_code, n, upo);
	json_object_set_new(o, "self_samples", json_integer((json_int_t)n->self));
	json_object_set_new(o, "self_share",
	                    json_real(n->op_samples ? (double)n->self / (double)n->op_samples : 0));
	json_object_set_new(o, "lines", lines_json(n, &sc, upo, ao->with_text));
	json_object_set_new(o, "loops", loops);
	json_object_set_new(o, "blocks", blocks);
	json_object_set_new(o, "instructions", insns_json(n, ao->max_insns));
	json_object_set_new(o, "instructions_total", json_integer((json_int_t)n->df.n));
	src_free(&sc);
	return o;
}

int analysis_annotate(struct analysis *a, const char *op, const char *function,
                      const struct annotate_opts *ao, json_t **out, pq_error *err)
{
	static const struct annotate_opts dflt = { 0, 1 };
	*out = NULL;
	if (!ao)
		ao = &dflt;
	struct ann n = { .a = a, .fid = NO_FUNC };
	if ((n.opi = find_op(a, op)) == NONE)
		return pq_fail(err, PQ_EUSAGE, "%s: no operation '%s' in the trace", a->trace_path, op);
	uint64_t *c = leaf_counts(a, n.opi);
	if (!c)
		return oom(err);
	for (size_t f = 0; f < a->nfuncs; f++) {
		if (!a->funcs[f].module || !c[f])
			continue;
		if (function ? strcmp(a->funcs[f].name, function) == 0
		             : a->funcs[f].in_lib && (n.fid == NO_FUNC || c[f] > c[n.fid]))
			n.fid = (uint32_t)f;
	}
	if (function && n.fid == NO_FUNC)   /* never a leaf: an inlined frame or unsampled */
		for (size_t f = 0; f < a->nfuncs; f++)
			if (strcmp(a->funcs[f].name, function) == 0 && a->funcs[f].module)
				n.fid = (uint32_t)f;
	free(c);
	if (!function && n.fid == NO_FUNC)
		return pq_fail(err, PQ_EUSAGE, "%s: no samples of %s in the instance library", a->trace_path, op);
	n.module = n.fid != NO_FUNC ? a->funcs[n.fid].module : a->lib_base;
	if (!(n.path = module_path(a, n.module)))
		return pq_fail(err, PQ_EUSAGE, "%s: module %s is not in the trace", a->trace_path, n.module);
	int rc = disasm_function(n.path, n.fid != NO_FUNC ? a->funcs[n.fid].name : function, 0, &n.df, err);
	uint64_t va;
	if (rc < 0 && err->code == PQ_EUSAGE && sampled_vaddr(&n, &va) == 0)
		/* A clone the compiler renamed (f.constprop.0, f.part.1): by address. */
		rc = disasm_function(n.path, NULL, va, &n.df, err);
	if (rc < 0) {
		if (err->code == PQ_EUSAGE && n.fid != NO_FUNC && a->funcs[n.fid].seen_inlined &&
		    !a->funcs[n.fid].seen_outline)
			pq_fail(err, PQ_EUSAGE, "%s is only ever inlined: annotate the function it is inlined into",
			        a->funcs[n.fid].name);
		return rc;
	}
	n.cnt = calloc(n.df.n + 1, sizeof *n.cnt);
	n.src = calloc(n.df.n + 1, sizeof *n.src);
	if (!n.cnt || !n.src)
		rc = oom(err);
	if (rc == 0) {
		count_samples(&n);
		rc = resolve_sources(&n, err);
	}
	if (rc == 0 && !(*out = build_json(&n, ao, err)))
		rc = -err->code;
	free(n.cnt);
	free(n.src);
	disasm_func_free(&n.df);
	return rc;
}

/* ---- two builds ---- */

static int same_line(const json_t *x, const json_t *y)
{
	const char *fx = jp_str(x, "file", NULL), *fy = jp_str(y, "file", NULL);
	const char *ix = jp_str(x, "inlined_from", NULL), *iy = jp_str(y, "inlined_from", NULL);
	return jp_num(x, "line", 0) == jp_num(y, "line", 0) && (fx && fy ? strcmp(fx, fy) == 0 : fx == fy) &&
	       (ix && iy ? strcmp(ix, iy) == 0 : ix == iy);
}

/* Units per op when the record has them, else the share. */
static double cost(const json_t *l)
{
	const json_t *u = json_object_get(l, "units_per_op");
	return json_is_number(u) ? json_number_value(u) : jp_num(l, "share", 0);
}

json_t *annotate_diff(const json_t *before, const json_t *after)
{
	json_t *lines = json_array();
	const json_t *lb = json_object_get(before, "lines"), *la = json_object_get(after, "lines");
	size_t nb = json_array_size(lb), na = json_array_size(la);
	unsigned char *used = calloc(na + 1, 1);
	size_t matched = 0;
	for (size_t i = 0; i < nb; i++) {
		const json_t *x = json_array_get(lb, i), *y = NULL;
		for (size_t j = 0; j < na && !y; j++)
			if (used && !used[j] && same_line(x, json_array_get(la, j))) {
				used[j] = 1;
				y = json_array_get(la, j);
			}
		matched += y != NULL;
		double cb = cost(x), ca = y ? cost(y) : 0;
		json_t *o = json_pack("{s:O, s:O, s:O, s:O, s:f, s:f, s:f}", "file", json_object_get(x, "file"),
		                      "line", json_object_get(x, "line"), "inlined_from",
		                      json_object_get(x, "inlined_from"), "text", json_object_get(x, "text"),
		                      "before", cb, "after", ca, "change", ca - cb);
		json_object_set_new(o, "in", json_string(y ? "both" : "before"));
		json_object_set_new(o, "ratio", cb > 0 && y ? json_real(ca / cb) : json_null());
		json_array_append_new(lines, o);
	}
	for (size_t j = 0; j < na; j++) {
		if (used && used[j])
			continue;
		const json_t *y = json_array_get(la, j);
		double ca = cost(y);
		json_t *o = json_pack("{s:O, s:O, s:O, s:O, s:f, s:f, s:f}", "file", json_object_get(y, "file"),
		                      "line", json_object_get(y, "line"), "inlined_from",
		                      json_object_get(y, "inlined_from"), "text", json_object_get(y, "text"),
		                      "before", 0.0, "after", ca, "change", ca);
		json_object_set_new(o, "in", json_string("after"));
		json_object_set_new(o, "ratio", json_null());
		json_array_append_new(lines, o);
	}
	free(used);
	double tb = cost(before), ta = cost(after);
	json_t *d = json_object();
	json_object_set_new(d, "schema", json_string("pqprof.annotate-diff/1"));
	json_object_set_new(d, "function", json_deep_copy(json_object_get(after, "function")));
	json_object_set_new(d, "op", json_deep_copy(json_object_get(after, "op")));
	json_object_set_new(d, "unit", json_string(json_is_number(json_object_get(before, "units_per_op")) &&
	                                                   json_is_number(json_object_get(after, "units_per_op"))
	                                               ? jp_str(after, "unit", NULL) ? jp_str(after, "unit", NULL) : "units"
	                                               : "share"));
	json_object_set_new(d, "before", json_pack("{s:O, s:O, s:f, s:O}", "path", json_object_get(before, "path"),
	                                           "event", json_object_get(before, "event"), "total", tb,
	                                           "loops", json_object_get(before, "loops")));
	json_object_set_new(d, "after", json_pack("{s:O, s:O, s:f, s:O}", "path", json_object_get(after, "path"),
	                                          "event", json_object_get(after, "event"), "total", ta,
	                                          "loops", json_object_get(after, "loops")));
	json_object_set_new(d, "lines_before", json_integer((json_int_t)nb));
	json_object_set_new(d, "lines_after", json_integer((json_int_t)na));
	json_object_set_new(d, "lines_matched", json_integer((json_int_t)matched));
	json_object_set_new(d, "change", json_real(ta - tb));
	json_object_set_new(d, "ratio", tb > 0 ? json_real(ta / tb) : json_null());
	json_object_set_new(d, "lines", lines);
	return d;
}
