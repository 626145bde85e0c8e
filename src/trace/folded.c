/* folded: the per-operation folded-stack profile model; see folded.h. */
#include "config.h"
#include "trace/folded.h"
#include "core/grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

folded *folded_new(const char *event)
{
	folded *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->event = strdup(event && *event ? event : "samples");
	if (!f->event) {
		free(f);
		return NULL;
	}
	return f;
}

void folded_free(folded *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nops; i++) {
		struct folded_op *o = &f->ops[i];
		free(o->name);
		for (size_t j = 0; j < o->n; j++)
			free(o->stacks[j].key);
		free(o->stacks);
		strmap_free(&o->index);
	}
	free(f->ops);
	for (size_t i = 0; i < f->nfunc_info; i++)
		free(f->func_info[i].file);
	free(f->func_info);
	strmap_free(&f->funcs);
	strmap_free(&f->calls);
	free(f->event);
	free(f);
}

/* "op\x1ffunc" into buf; its length, or 0 when it does not fit. */
static size_t calls_key(char *buf, size_t cap, const char *op, const char *func)
{
	int n = snprintf(buf, cap, "%s\x1f%s", op, func);
	return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

int folded_set_calls(folded *f, const char *op, const char *func, uint64_t calls)
{
	char key[1024];
	size_t kl = calls_key(key, sizeof key, op, func);
	if (!kl)
		return 0;
	return strmap_put(&f->calls, key, kl, (size_t)calls);
}

int folded_get_calls(const folded *f, const char *op, const char *func, uint64_t *calls)
{
	char key[1024];
	size_t kl = calls_key(key, sizeof key, op, func), v;
	if (!kl || !strmap_get(&f->calls, key, kl, &v))
		return 0;
	*calls = (uint64_t)v;
	return 1;
}

const struct folded_op *folded_find_op(const folded *f, const char *name)
{
	for (size_t i = 0; i < f->nops; i++)
		if (strcmp(f->ops[i].name, name) == 0)
			return &f->ops[i];
	return NULL;
}

static struct folded_op *get_op(folded *f, const char *name)
{
	struct folded_op *o = (struct folded_op *)folded_find_op(f, name);
	if (o)
		return o;
	if (pq_grow(&f->ops, &f->cap, f->nops + 1, sizeof *f->ops, 4) < 0)
		return NULL;
	o = &f->ops[f->nops];
	memset(o, 0, sizeof *o);
	o->name = strdup(name);
	if (!o->name)
		return NULL;
	f->nops++;
	return o;
}

/* Merge weight into key of op; key is in folded syntax already. */
static int add_key(folded *f, const char *op, const char *key, size_t klen,
                   uint64_t weight, pq_error *err)
{
	struct folded_op *o = get_op(f, op ? op : "all");
	if (!o)
		return pq_fail(err, PQ_ENOMEM, "folded profile: out of memory");
	size_t at;
	if (strmap_get(&o->index, key, klen, &at)) {
		o->stacks[at].weight += weight;
		o->stacks[at].count++;
		o->total += weight;
		return 0;
	}
	if (pq_grow(&o->stacks, &o->cap, o->n + 1, sizeof *o->stacks, 64) < 0)
		return pq_fail(err, PQ_ENOMEM, "folded profile: out of memory");
	char *k = strndup(key, klen);
	if (!k || strmap_put(&o->index, key, klen, o->n) < 0) {
		free(k);
		return pq_fail(err, PQ_ENOMEM, "folded profile: out of memory");
	}
	o->stacks[o->n].key = k;
	o->stacks[o->n].weight = weight;
	o->stacks[o->n].count = 1;
	o->n++;
	o->total += weight;
	return 0;
}

struct strbuf {
	char *p;
	size_t n, cap;
};

static int sb_put(struct strbuf *b, const char *s, size_t n)
{
	if (pq_grow(&b->p, &b->cap, b->n + n + 1, 1, 256) < 0)
		return -1;
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
	return 0;
}

/* Append a function name, made safe for the folded syntax. */
static int sb_put_func(struct strbuf *b, const char *func)
{
	if (!func || !*func)
		func = "[unknown]";
	size_t start = b->n;
	if (sb_put(b, func, strlen(func)) < 0)
		return -1;
	for (size_t i = start; i < b->n; i++) {
		if (b->p[i] == ';')
			b->p[i] = ':';
		else if (b->p[i] == '\n' || b->p[i] == '\r' || b->p[i] == '\t')
			b->p[i] = ' ';
	}
	return 0;
}

static int note_func(folded *f, const char *name, size_t len, const char *file, unsigned line)
{
	size_t at;
	if (strmap_get(&f->funcs, name, len, &at))
		return 0;
	if (pq_grow(&f->func_info, &f->cap_func_info, f->nfunc_info + 1, sizeof *f->func_info, 64) < 0)
		return -1;
	struct folded_func *nf = f->func_info;
	nf[f->nfunc_info].file = file ? strdup(file) : NULL;
	nf[f->nfunc_info].line = line;
	if ((file && !nf[f->nfunc_info].file) ||
	    strmap_put(&f->funcs, name, len, f->nfunc_info) < 0) {
		free(nf[f->nfunc_info].file);
		return -1;
	}
	f->nfunc_info++;
	return 0;
}

int folded_add(folded *f, const char *op, const struct folded_frame *frames, size_t n,
               uint64_t weight, pq_error *err)
{
	struct strbuf b = { 0 };
	int r = 0;
	if (n == 0)
		r = sb_put_func(&b, NULL);
	for (size_t i = 0; i < n && r == 0; i++) {
		if (i && sb_put(&b, ";", 1) < 0) {
			r = -1;
			break;
		}
		size_t start = b.n;
		r = sb_put_func(&b, frames[i].func);
		if (r == 0 && frames[i].file)
			r = note_func(f, b.p + start, b.n - start, frames[i].file, frames[i].line);
	}
	if (r < 0) {
		free(b.p);
		return pq_fail(err, PQ_ENOMEM, "folded profile: out of memory");
	}
	r = add_key(f, op, b.p, b.n, weight, err);
	free(b.p);
	return r;
}

int folded_add_names(folded *f, const char *op, const char *const *names, size_t n,
                     uint64_t weight, pq_error *err)
{
	struct folded_frame stackbuf[64] = { { 0 } };
	struct folded_frame *fr = n <= 64 ? stackbuf : malloc(n * sizeof *fr);
	if (!fr)
		return pq_fail(err, PQ_ENOMEM, "folded profile: out of memory");
	for (size_t i = 0; i < n; i++) {
		fr[i].func = names[i];
		fr[i].file = NULL;
		fr[i].line = 0;
	}
	int r = folded_add(f, op, fr, n, weight, err);
	if (fr != stackbuf)
		free(fr);
	return r;
}

int folded_parse(folded *f, const char *op, const char *text, pq_error *err)
{
	unsigned lineno = 0;
	for (const char *line = text; *line; ) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		const char *next = eol ? eol + 1 : line + len;
		lineno++;
		while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
			len--;
		if (len == 0) {
			line = next;
			continue;
		}
		size_t sp = len;
		while (sp && line[sp - 1] != ' ' && line[sp - 1] != '\t')
			sp--;
		size_t klen = sp;
		while (klen && (line[klen - 1] == ' ' || line[klen - 1] == '\t'))
			klen--;
		if (sp == 0 || klen == 0 || sp == len)
			return pq_fail(err, PQ_EINPUT, "folded stacks: line %u: expected 'frame;frame;... count'", lineno);
		char num[32];
		size_t nlen = len - sp;
		if (nlen >= sizeof num)
			return pq_fail(err, PQ_EINPUT, "folded stacks: line %u: count too long", lineno);
		memcpy(num, line + sp, nlen);
		num[nlen] = '\0';
		char *end;
		errno = 0;
		unsigned long long w = strtoull(num, &end, 10);
		if (errno || *end || num[0] == '-')
			return pq_fail(err, PQ_EINPUT, "folded stacks: line %u: '%s' is not a count", lineno, num);
		int r = add_key(f, op, line, klen, (uint64_t)w, err);
		if (r < 0)
			return r;
		line = next;
	}
	return 0;
}

const char *folded_func_file(const folded *f, const char *func, unsigned *line)
{
	size_t at;
	if (!strmap_get(&f->funcs, func, strlen(func), &at)) {
		if (line)
			*line = 0;
		return NULL;
	}
	if (line)
		*line = f->func_info[at].line;
	return f->func_info[at].file;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct folded_entry *)a)->stack, ((const struct folded_entry *)b)->stack);
}

static int view_add_op(struct folded_view *v, const struct folded_op *o, int prefix)
{
	for (size_t j = 0; j < o->n; j++) {
		struct folded_entry *e = &v->e[v->n++];
		e->weight = o->stacks[j].weight;
		e->count = o->stacks[j].count;
		if (!prefix) {
			e->stack = o->stacks[j].key;
		} else {
			size_t a = strlen(o->name), b = strlen(o->stacks[j].key);
			char *s = malloc(a + b + 2);
			if (!s)
				return -1;
			memcpy(s, o->name, a);
			s[a] = ';';
			memcpy(s + a + 1, o->stacks[j].key, b + 1);
			v->owned[v->nowned++] = s;
			e->stack = s;
		}
		v->total += e->weight;
	}
	return 0;
}

int folded_view_make(const folded *f, const char *op, struct folded_view *v, pq_error *err)
{
	memset(v, 0, sizeof *v);
	size_t total = 0;
	const struct folded_op *only = NULL;
	if (op) {
		only = folded_find_op(f, op);
		if (!only)
			return pq_fail(err, PQ_EINPUT, "profile has no operation '%s'", op);
		total = only->n;
	} else {
		for (size_t i = 0; i < f->nops; i++)
			total += f->ops[i].n;
	}
	v->e = calloc(total ? total : 1, sizeof *v->e);
	v->owned = op ? NULL : calloc(total ? total : 1, sizeof *v->owned);
	if (!v->e || (!op && !v->owned)) {
		folded_view_free(v);
		return pq_fail(err, PQ_ENOMEM, "folded profile: out of memory");
	}
	int r = 0;
	if (only)
		r = view_add_op(v, only, 0);
	for (size_t i = 0; !only && i < f->nops && r == 0; i++)
		r = view_add_op(v, &f->ops[i], 1);
	if (r < 0) {
		folded_view_free(v);
		return pq_fail(err, PQ_ENOMEM, "folded profile: out of memory");
	}
	qsort(v->e, v->n, sizeof *v->e, entry_cmp);
	return 0;
}

void folded_view_free(struct folded_view *v)
{
	for (size_t i = 0; i < v->nowned; i++)
		free(v->owned[i]);
	free(v->owned);
	free(v->e);
	memset(v, 0, sizeof *v);
}
