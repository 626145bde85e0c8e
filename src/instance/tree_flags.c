/*
 * tree_flags: read the compile flags of a tree's Makefile without running
 * make; see tree_flags.h.  This is a reader for the make language as
 * submissions use it, not a make: no rule is run, no $(shell) is called,
 * and what it cannot follow it leaves out.
 */
#include "config.h"
#include "instance/tree_flags.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "core/grow.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MK_MAX_BYTES (4u << 20)
#define MK_MAX_DEPTH 24   /* variable expansion and include nesting */
#define MK_MAX_INCLUDES 32
/* Expansions one reading may do: a makefile built to expand exponentially stops here. */
#define MK_MAX_WORK 200000
/* Loop items read again as `make VAR=value`. */
#define MK_MAX_REREADS 64

/* Markers a $(foreach) leaves in a word list so loops can be seen as loops. */
#define MARK_LOOP "\001loop"
#define MARK_ITEM "\001item"
#define MARK_END "\001end"

int flag_list_add(struct flag_list *l, const char *flag, const char *origin)
{
	if (pq_grow(&l->v, &l->cap, (size_t)l->n + 1, sizeof *l->v, 16) < 0)
		return -1;
	struct tree_flag *f = &l->v[l->n];
	f->flag = strdup(flag);
	if (!f->flag)
		return -1;
	snprintf(f->origin, sizeof f->origin, "%s", origin ? origin : "");
	l->n++;
	return 0;
}

void flag_list_free(struct flag_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i].flag);
	free(l->v);
	memset(l, 0, sizeof *l);
}

void tree_flags_free(struct tree_flags *tf)
{
	flag_list_free(&tf->flags);
	flag_list_free(&tf->info);
	for (int i = 0; i < tf->nvariants; i++)
		flag_list_free(&tf->variants[i].defines);
	free(tf->variants);
	memset(tf, 0, sizeof *tf);
}

void define_macro_name(const char *flag, char *out, size_t len)
{
	out[0] = '\0';
	if (strncmp(flag, "-D", 2) != 0 && strncmp(flag, "-U", 2) != 0)
		return;
	size_t k = 0;
	for (const char *p = flag + 2; *p && *p != '=' && *p != '(' && k + 1 < len; p++)
		out[k++] = *p;
	out[k] = '\0';
}

int tree_flag_kind(const char *f)
{
	if (strncmp(f, "-D", 2) == 0 || strncmp(f, "-U", 2) == 0)
		return f[2] ? 1 : 0;
	if (strncmp(f, "-I", 2) == 0)
		return f[2] ? 1 : 0;
	if (strncmp(f, "-std=", 5) == 0)
		return 1;
	if (strncmp(f, "-O", 2) == 0)
		return 2;
	if (strncmp(f, "-m", 2) == 0) {
		/* Another ABI than the harness's (a 64-bit runner loads the library): information only. */
		if (strcmp(f, "-m32") == 0 || strcmp(f, "-mx32") == 0 || strcmp(f, "-m16") == 0)
			return 2;
		return f[2] ? 1 : 0;
	}
	if (strncmp(f, "-f", 2) == 0) {
		/* Instrumentation and profiling change what is measured: information only. */
		static const char *const info_only[] = { "-fsanitize", "-fprofile", "-fcoverage", "-ftest-coverage",
			                                     "-finstrument", "-fdump", "-fsave-optimization", NULL };
		for (int i = 0; info_only[i]; i++)
			if (strncmp(f, info_only[i], strlen(info_only[i])) == 0)
				return 2;
		return f[2] ? 1 : 0;
	}
	return 0;
}

int shell_split(const char *s, char ***words, int *n)
{
	*words = NULL;
	*n = 0;
	size_t cap = 0;
	size_t len = strlen(s);
	char *buf = malloc(len + 1);
	if (!buf)
		return -1;
	const char *p = s;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		size_t k = 0;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
			if (*p == '\'') {
				for (p++; *p && *p != '\''; p++)
					buf[k++] = *p;
				if (*p)
					p++;
			} else if (*p == '"') {
				for (p++; *p && *p != '"'; p++) {
					if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$' || p[1] == '`'))
						p++;
					buf[k++] = *p;
				}
				if (*p)
					p++;
			} else if (*p == '\\' && p[1]) {
				buf[k++] = p[1];
				p += 2;
			} else {
				buf[k++] = *p++;
			}
		}
		buf[k] = '\0';
		if (pq_grow(words, &cap, (size_t)*n + 1, sizeof **words, 16) < 0 || !((*words)[*n] = strdup(buf))) {
			free(buf);
			return -1;
		}
		(*n)++;
	}
	free(buf);
	return 0;
}

static void free_strv(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- make variables ---- */

struct mk_seg {
	char *text;
	char origin[256];
};

struct mk_var {
	char *name;
	int simple;          /* := : segments are expanded words */
	int cmdline;         /* set on make's command line: the makefile's assignments do not change it */
	struct mk_seg *segs;
	int nsegs;
	size_t cap;
};

struct mk {
	const char *root;      /* real path of the tree */
	struct mk_var *vars;
	int nvars;
	size_t cap;
	struct mk_var *locals; /* $(foreach) variables, innermost last */
	int nlocals;
	size_t lcap;
	int nincludes;
	struct tree_flags *out;
	struct flag_list words; /* scratch: compile-command words of the rules, with origins */
	pq_error *err;
	const char *path;      /* the top makefile, read again for `make VAR=value` in loops */
	int nested;            /* this is such a reading: no further recursion */
	long work;             /* expansions done (MK_MAX_WORK) */
	int rereads;
};

static int mk_collect(const char *real_root, const char *real_path, char **ovr, int novr, int nested,
                      struct tree_flags *out, struct flag_list *words, pq_error *err);

static struct mk_var *mk_find(struct mk *m, const char *name)
{
	for (int i = m->nlocals - 1; i >= 0; i--)
		if (strcmp(m->locals[i].name, name) == 0)
			return &m->locals[i];
	for (int i = 0; i < m->nvars; i++)
		if (strcmp(m->vars[i].name, name) == 0)
			return &m->vars[i];
	return NULL;
}

static void var_clear(struct mk_var *v)
{
	for (int i = 0; i < v->nsegs; i++)
		free(v->segs[i].text);
	v->nsegs = 0;
}

static int var_push(struct mk_var *v, const char *text, const char *origin)
{
	if (pq_grow(&v->segs, &v->cap, (size_t)v->nsegs + 1, sizeof *v->segs, 4) < 0)
		return -1;
	v->segs[v->nsegs].text = strdup(text);
	if (!v->segs[v->nsegs].text)
		return -1;
	snprintf(v->segs[v->nsegs].origin, sizeof v->segs[v->nsegs].origin, "%s", origin);
	v->nsegs++;
	return 0;
}

static struct mk_var *mk_define(struct mk *m, const char *name)
{
	struct mk_var *v = NULL;
	for (int i = 0; i < m->nvars; i++)
		if (strcmp(m->vars[i].name, name) == 0)
			v = &m->vars[i];
	if (v)
		return v;
	if (pq_grow(&m->vars, &m->cap, (size_t)m->nvars + 1, sizeof *m->vars, 32) < 0)
		return NULL;
	v = &m->vars[m->nvars];
	memset(v, 0, sizeof *v);
	v->name = strdup(name);
	if (!v->name)
		return NULL;
	m->nvars++;
	return v;
}

static void mk_free(struct mk *m)
{
	for (int i = 0; i < m->nvars; i++) {
		var_clear(&m->vars[i]);
		free(m->vars[i].segs);
		free(m->vars[i].name);
	}
	free(m->vars);
	free(m->locals);
	flag_list_free(&m->words);
}

/* ---- text helpers ---- */

/* A growing string. */
struct sbuf {
	char *s;
	size_t n, cap;
};

static void sb_addn(struct sbuf *b, const char *s, size_t n)
{
	if (pq_grow(&b->s, &b->cap, b->n + n + 1, 1, 64) < 0)
		return;
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

static void sb_add(struct sbuf *b, const char *s)
{
	sb_addn(b, s, strlen(s));
}

static char *sb_take(struct sbuf *b)
{
	if (!b->s)
		return strdup("");
	return b->s;
}

/* The position of the parenthesis closing the one at p[-1] ('(' or '{'). */
static const char *close_paren(const char *p, char open)
{
	char close = open == '(' ? ')' : '}';
	int depth = 1;
	for (; *p; p++) {
		if (*p == open)
			depth++;
		else if (*p == close && --depth == 0)
			return p;
	}
	return NULL;
}

/* Split at top-level commas (outside nested parentheses); returns the count (max 8). */
static int split_args(const char *s, size_t len, char *args[8])
{
	int n = 0, depth = 0;
	size_t start = 0;
	for (size_t i = 0; i <= len && n < 8; i++) {
		char c = i < len ? s[i] : '\0';
		if (c == '(' || c == '{')
			depth++;
		else if (c == ')' || c == '}')
			depth--;
		if ((c == ',' && depth == 0 && n < 7) || i == len) {
			args[n] = strndup(s + start, i - start);
			n++;
			start = i + 1;
		}
	}
	return n;
}

static char *trim_dup(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

/* Whitespace-separated words of s (make's view: no quoting). */
static int simple_words(const char *s, char ***w, int *n)
{
	*w = NULL;
	*n = 0;
	size_t cap = 0;
	while (*s) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		const char *e = s;
		while (*e && !isspace((unsigned char)*e))
			e++;
		if (pq_grow(w, &cap, (size_t)*n + 1, sizeof **w, 8) < 0)
			return -1;
		(*w)[(*n)++] = strndup(s, (size_t)(e - s));
		s = e;
	}
	return 0;
}

/* Does `word` match make pattern `pat` (one %)?  Fills the stem. */
static int pat_match(const char *pat, const char *word, const char **stem, size_t *stemlen)
{
	const char *pc = strchr(pat, '%');
	if (!pc)
		return strcmp(pat, word) == 0 ? (*stem = word, *stemlen = 0, 1) : 0;
	size_t pre = (size_t)(pc - pat), suf = strlen(pc + 1), wl = strlen(word);
	if (wl < pre + suf || strncmp(word, pat, pre) != 0 || strcmp(word + wl - suf, pc + 1) != 0)
		return 0;
	*stem = word + pre;
	*stemlen = wl - pre - suf;
	return 1;
}

static char *mk_expand(struct mk *m, const char *text, int depth);

/* $(patsubst pat,rep,text), also used for $(VAR:a=b). */
static char *patsubst(const char *pat, const char *rep, const char *text)
{
	char **w;
	int n;
	struct sbuf b = { 0 };
	if (simple_words(text, &w, &n) < 0)
		return strdup("");
	for (int i = 0; i < n; i++) {
		const char *stem;
		size_t sl;
		if (i)
			sb_add(&b, " ");
		if (pat_match(pat, w[i], &stem, &sl)) {
			const char *rc = strchr(rep, '%');
			if (rc && strchr(pat, '%')) {
				sb_addn(&b, rep, (size_t)(rc - rep));
				sb_addn(&b, stem, sl);
				sb_add(&b, rc + 1);
			} else {
				sb_add(&b, rep);
			}
		} else {
			sb_add(&b, w[i]);
		}
	}
	free_strv(w, n);
	return sb_take(&b);
}

static char *fn_foreach(struct mk *m, char **a, int depth)
{
	char *var = mk_expand(m, a[0], depth + 1), *list = mk_expand(m, a[1], depth + 1);
	char *vn = trim_dup(var);
	char **w;
	int n;
	struct sbuf b = { 0 };
	if (simple_words(list, &w, &n) == 0 &&
	    pq_grow(&m->locals, &m->lcap, (size_t)m->nlocals + 1, sizeof *m->locals, 4) == 0) {
		struct mk_var *lv = &m->locals[m->nlocals++];
		memset(lv, 0, sizeof *lv);
		lv->name = vn;
		lv->simple = 1;
		for (int i = 0; i < n; i++) {
			var_clear(lv);
			var_push(lv, w[i], "");
			char *e = mk_expand(m, a[2], depth + 1);
			if (i)
				sb_add(&b, " ");
			sb_add(&b, e);
			free(e);
		}
		var_clear(lv);
		free(lv->segs);
		m->nlocals--;
		free_strv(w, n);
	}
	free(vn);
	free(var);
	free(list);
	return sb_take(&b);
}

/* A make function call (name already split off); NULL when `name` is not one we know. */
static char *mk_function(struct mk *m, const char *name, const char *argtext, size_t arglen, int depth)
{
	static const char *const known[] = { "shell", "wildcard", "subst", "patsubst", "addprefix", "addsuffix",
		                                 "strip", "foreach", "if", "firstword", "word", "words", "filter",
		                                 "filter-out", "sort", "info", "warning", "error", "eval", "call",
		                                 "notdir", "dir", "basename", "realpath", "abspath", "origin", "value",
		                                 NULL };
	int k = -1;
	for (int i = 0; known[i]; i++)
		if (strcmp(name, known[i]) == 0)
			k = i;
	if (k < 0)
		return NULL;
	char *a[8] = { 0 };
	int na = split_args(argtext, arglen, a);
	char *r = NULL;
	if (strcmp(name, "foreach") == 0 && na >= 3) {
		r = fn_foreach(m, a, depth);
	} else if (strcmp(name, "subst") == 0 && na >= 3) {
		char *from = mk_expand(m, a[0], depth + 1), *to = mk_expand(m, a[1], depth + 1),
		     *t = mk_expand(m, a[2], depth + 1);
		struct sbuf b = { 0 };
		size_t fl = strlen(from);
		for (const char *p = t; *p;) {
			if (fl && strncmp(p, from, fl) == 0) {
				sb_add(&b, to);
				p += fl;
			} else {
				sb_addn(&b, p++, 1);
			}
		}
		r = sb_take(&b);
		free(from);
		free(to);
		free(t);
	} else if (strcmp(name, "patsubst") == 0 && na >= 3) {
		char *p = mk_expand(m, a[0], depth + 1), *q = mk_expand(m, a[1], depth + 1),
		     *t = mk_expand(m, a[2], depth + 1);
		char *pt = trim_dup(p), *qt = trim_dup(q);
		r = patsubst(pt, qt, t);
		free(p), free(q), free(t), free(pt), free(qt);
	} else if ((strcmp(name, "addprefix") == 0 || strcmp(name, "addsuffix") == 0) && na >= 2) {
		char *x = mk_expand(m, a[0], depth + 1), *t = mk_expand(m, a[1], depth + 1);
		char *xt = trim_dup(x);
		char **w;
		int n;
		struct sbuf b = { 0 };
		if (simple_words(t, &w, &n) == 0) {
			for (int i = 0; i < n; i++) {
				if (i)
					sb_add(&b, " ");
				if (name[3] == 'p') {
					sb_add(&b, xt);
					sb_add(&b, w[i]);
				} else {
					sb_add(&b, w[i]);
					sb_add(&b, xt);
				}
			}
			free_strv(w, n);
		}
		r = sb_take(&b);
		free(x), free(t), free(xt);
	} else if ((strcmp(name, "strip") == 0 || strcmp(name, "sort") == 0) && na >= 1) {
		char *t = mk_expand(m, a[0], depth + 1);
		char **w;
		int n;
		struct sbuf b = { 0 };
		if (simple_words(t, &w, &n) == 0) {
			for (int i = 0; i < n; i++) {
				if (i)
					sb_add(&b, " ");
				sb_add(&b, w[i]);
			}
			free_strv(w, n);
		}
		r = sb_take(&b);
		free(t);
	} else if (strcmp(name, "if") == 0 && na >= 2) {
		char *c = mk_expand(m, a[0], depth + 1), *ct = trim_dup(c);
		r = ct[0] ? mk_expand(m, a[1], depth + 1) : na >= 3 ? mk_expand(m, a[2], depth + 1) : strdup("");
		free(c), free(ct);
	} else if ((strcmp(name, "firstword") == 0 && na >= 1) || (strcmp(name, "word") == 0 && na >= 2) ||
	           (strcmp(name, "words") == 0 && na >= 1)) {
		int which = name[0] == 'f' ? 1 : 0;
		const char *textarg = a[0];
		if (strcmp(name, "word") == 0) {
			char *nn = mk_expand(m, a[0], depth + 1);
			which = atoi(nn);
			free(nn);
			textarg = a[1];
		}
		char *t = mk_expand(m, textarg, depth + 1);
		char **w;
		int n;
		if (simple_words(t, &w, &n) == 0) {
			if (strcmp(name, "words") == 0) {
				char num[32];
				snprintf(num, sizeof num, "%d", n);
				r = strdup(num);
			} else {
				r = strdup(which >= 1 && which <= n ? w[which - 1] : "");
			}
			free_strv(w, n);
		}
		free(t);
	} else if ((strcmp(name, "filter") == 0 || strcmp(name, "filter-out") == 0) && na >= 2) {
		char *p = mk_expand(m, a[0], depth + 1), *t = mk_expand(m, a[1], depth + 1);
		char **pw, **w;
		int pn, n;
		struct sbuf b = { 0 };
		if (simple_words(p, &pw, &pn) == 0 && simple_words(t, &w, &n) == 0) {
			for (int i = 0; i < n; i++) {
				int hit = 0;
				for (int j = 0; j < pn && !hit; j++) {
					const char *st;
					size_t sl;
					hit = pat_match(pw[j], w[i], &st, &sl);
				}
				if (hit == (name[6] == '\0')) {
					if (b.n)
						sb_add(&b, " ");
					sb_add(&b, w[i]);
				}
			}
			free_strv(pw, pn);
			free_strv(w, n);
		}
		r = sb_take(&b);
		free(p), free(t);
	} else if (strcmp(name, "value") == 0 && na >= 1) {
		char *vn = trim_dup(a[0]);
		struct mk_var *v = mk_find(m, vn);
		struct sbuf b = { 0 };
		for (int i = 0; v && i < v->nsegs; i++) {
			if (i)
				sb_add(&b, " ");
			sb_add(&b, v->segs[i].text);
		}
		r = sb_take(&b);
		free(vn);
	}
	/* $(shell), $(wildcard), $(eval), $(call) and the rest are never run: empty. */
	for (int i = 0; i < na; i++)
		free(a[i]);
	return r ? r : strdup("");
}

/* The value of a variable, expanded. */
static char *var_value(struct mk *m, const char *name, int depth)
{
	struct mk_var *v = mk_find(m, name);
	struct sbuf b = { 0 };
	if (!v || depth > MK_MAX_DEPTH)
		return sb_take(&b);
	for (int i = 0; i < v->nsegs; i++) {
		if (i)
			sb_add(&b, " ");
		if (v->simple) {
			sb_add(&b, v->segs[i].text);
		} else {
			char *e = mk_expand(m, v->segs[i].text, depth + 1);
			sb_add(&b, e);
			free(e);
		}
	}
	return sb_take(&b);
}

/* A $(...) reference (the text between the parentheses): a function or a variable. */
static char *mk_ref(struct mk *m, const char *in, size_t len, int depth)
{
	size_t fn = 0;
	while (fn < len && (isalnum((unsigned char)in[fn]) || in[fn] == '-'))
		fn++;
	if (fn < len && (in[fn] == ' ' || in[fn] == '\t')) {
		char name[32];
		snprintf(name, sizeof name, "%.*s", (int)(fn < 31 ? fn : 31), in);
		char *r = mk_function(m, name, in + fn + 1, len - fn - 1, depth);
		if (r)
			return r;
	}
	char *raw = strndup(in, len);
	char *name = mk_expand(m, raw, depth + 1);
	free(raw);
	/* $(VAR:a=b) substitution reference */
	char *colon = strchr(name, ':'), *r;
	if (colon && strchr(colon, '=')) {
		*colon = '\0';
		char *eq = strchr(colon + 1, '=');
		*eq = '\0';
		char *val = var_value(m, name, depth + 1);
		char pat[256], rep[256];
		if (strchr(colon + 1, '%')) {
			snprintf(pat, sizeof pat, "%s", colon + 1);
			snprintf(rep, sizeof rep, "%s", eq + 1);
		} else {
			snprintf(pat, sizeof pat, "%%%s", colon + 1);
			snprintf(rep, sizeof rep, "%%%s", eq + 1);
		}
		r = patsubst(pat, rep, val);
		free(val);
	} else {
		r = var_value(m, name, depth + 1);
	}
	free(name);
	return r;
}

static char *mk_expand(struct mk *m, const char *text, int depth)
{
	struct sbuf b = { 0 };
	if (depth > MK_MAX_DEPTH || ++m->work > MK_MAX_WORK)
		return sb_take(&b);
	for (const char *p = text; *p;) {
		if (*p != '$') {
			const char *q = strchr(p, '$');
			size_t n = q ? (size_t)(q - p) : strlen(p);
			sb_addn(&b, p, n);
			p += n;
			continue;
		}
		if (p[1] == '$') {
			sb_add(&b, "$");
			p += 2;
		} else if (p[1] == '(' || p[1] == '{') {
			const char *e = close_paren(p + 2, p[1]);
			if (!e) {
				sb_add(&b, p);
				break;
			}
			char *v = mk_ref(m, p + 2, (size_t)(e - p - 2), depth);
			sb_add(&b, v);
			free(v);
			p = e + 1;
		} else if (p[1]) {
			/* $X: a one-letter variable; automatic variables ($@ $< $^ $*) are empty here */
			char name[2] = { p[1], '\0' };
			if (isalnum((unsigned char)p[1]) || p[1] == '_') {
				char *v = var_value(m, name, depth + 1);
				sb_add(&b, v);
				free(v);
			}
			p += 2;
		} else {
			p++;
		}
	}
	return sb_take(&b);
}

/*
 * Split make text into words, keeping $(...) references and quoted
 * strings whole (a quoted -D value with spaces stays one word).
 */
static int make_words(const char *s, char ***w, int *n)
{
	*w = NULL;
	*n = 0;
	size_t cap = 0;
	for (const char *p = s;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		const char *st = p;
		char q = 0;
		while (*p && (q || !isspace((unsigned char)*p))) {
			if (!q && *p == '$' && (p[1] == '(' || p[1] == '{')) {
				const char *e = close_paren(p + 2, p[1]);
				p = e ? e + 1 : p + strlen(p);
				continue;
			}
			if (!q && *p == '\\' && p[1]) {
				p += 2;
				continue;
			}
			if (q && *p == '\\' && q == '"' && p[1]) {
				p += 2;
				continue;
			}
			if (!q && (*p == '"' || *p == '\''))
				q = *p;
			else if (q && *p == q)
				q = 0;
			p++;
		}
		if (pq_grow(w, &cap, (size_t)*n + 1, sizeof **w, 16) < 0)
			return -1;
		(*w)[(*n)++] = strndup(st, (size_t)(p - st));
	}
	return 0;
}

/* Is `w` exactly one $(NAME) / ${NAME} reference?  Copies NAME. */
static int whole_ref(const char *w, char *name, size_t len)
{
	if (w[0] != '$' || (w[1] != '(' && w[1] != '{'))
		return 0;
	const char *e = close_paren(w + 2, w[1]);
	if (!e || e[1] != '\0')
		return 0;
	size_t n = (size_t)(e - w - 2);
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)w[2 + i]) || w[2 + i] == '_' || w[2 + i] == '.' || w[2 + i] == '-'))
			return 0;
	snprintf(name, len, "%.*s", (int)n, w + 2);
	return 1;
}

/* Is `w` exactly one $(foreach v,list,body)?  Fills its three arguments. */
static int whole_foreach(const char *w, char *a[8], int *na)
{
	if (strncmp(w, "$(foreach ", 10) != 0)
		return 0;
	const char *e = close_paren(w + 2, '(');
	if (!e || e[1] != '\0')
		return 0;
	*na = split_args(w + 10, (size_t)(e - w - 10), a);
	if (*na >= 3)
		return 1;
	for (int i = 0; i < *na; i++)
		free(a[i]);
	return 0;
}

/*
 * Expand make text into words, each with the origin of the text it came
 * from: words of a variable named whole ($(CFLAGS)) keep the line that
 * assigned them.  A $(foreach) standing alone leaves loop markers around
 * each iteration's words.
 */
static int mk_expand_words(struct mk *m, const char *text, const char *origin, struct flag_list *out, int depth)
{
	char **w;
	int n;
	if (depth > MK_MAX_DEPTH || ++m->work > MK_MAX_WORK)
		return 0;
	if (make_words(text, &w, &n) < 0)
		return -1;
	int r = 0;
	for (int i = 0; i < n && r == 0; i++) {
		char name[256], *a[8];
		int na;
		struct mk_var *v;
		if (whole_ref(w[i], name, sizeof name) && (v = mk_find(m, name)) != NULL) {
			for (int s = 0; s < v->nsegs && r == 0; s++) {
				if (v->simple)
					r = flag_list_add(out, v->segs[s].text, v->segs[s].origin[0] ? v->segs[s].origin : origin);
				else
					r = mk_expand_words(m, v->segs[s].text, v->segs[s].origin, out, depth + 1);
			}
		} else if (whole_foreach(w[i], a, &na)) {
			char *var = mk_expand(m, a[0], depth + 1), *list = mk_expand(m, a[1], depth + 1);
			char *vn = trim_dup(var);
			char **items;
			int ni;
			if (simple_words(list, &items, &ni) == 0 &&
			    pq_grow(&m->locals, &m->lcap, (size_t)m->nlocals + 1, sizeof *m->locals, 4) == 0) {
				flag_list_add(out, MARK_LOOP, origin);
				struct mk_var *lv = &m->locals[m->nlocals++];
				memset(lv, 0, sizeof *lv);
				lv->name = vn;
				lv->simple = 1;
				for (int k = 0; k < ni && r == 0; k++) {
					var_clear(lv);
					var_push(lv, items[k], origin);
					char item[300];
					snprintf(item, sizeof item, "%s %s", MARK_ITEM, items[k]);
					flag_list_add(out, item, origin);
					r = mk_expand_words(m, a[2], origin, out, depth + 1);
				}
				var_clear(lv);
				free(lv->segs);
				m->nlocals--;
				flag_list_add(out, MARK_END, origin);
				free_strv(items, ni);
			}
			free(vn);
			free(var);
			free(list);
			for (int k = 0; k < na; k++)
				free(a[k]);
		} else {
			char *e = mk_expand(m, w[i], depth + 1);
			char **ew;
			int en;
			if (make_words(e, &ew, &en) == 0) {
				for (int k = 0; k < en && r == 0; k++)
					r = flag_list_add(out, ew[k], origin);
				free_strv(ew, en);
			}
			free(e);
		}
	}
	free_strv(w, n);
	return r;
}

/* ---- reading makefiles ---- */

/* Rules whose flags are not the library's (tests, benchmarks, debug and sanitizer builds, cleaning). */
static int ignored_target(const char *t)
{
	static const char *const words[] = { "test", "bench", "speed", "clean", "debug", "valgrind", "sanit",
		                                 "asan", "ubsan", "install", "dist", "check", "format", "lint",
		                                 "doc", "coverage", NULL };
	for (int i = 0; words[i]; i++)
		if (strcasestr(t, words[i]))
			return 1;
	return 0;
}

/* Is this command word a C compiler (or assembler driver)? */
static int is_compiler(const char *w, const char *cc)
{
	while (*w == '@' || *w == '-')
		w++;
	if (cc && *cc && strcmp(w, cc) == 0)
		return 1;
	const char *b = strrchr(w, '/');
	b = b ? b + 1 : w;
	static const char *const names[] = { "cc", "gcc", "clang", "c99", "c11", "icx", "icc", NULL };
	for (int i = 0; names[i]; i++) {
		size_t n = strlen(names[i]);
		const char *hit = strstr(b, names[i]);
		/* gcc, x86_64-linux-gnu-gcc, gcc-12, clang-15 */
		if (hit && (hit == b || hit[-1] == '-') && (hit[n] == '\0' || hit[n] == '-'))
			return 1;
	}
	return 0;
}

/* Strip one trailing ';' (or '&&' glued words are separate) and say whether one was there. */
static int strip_sep(char *w)
{
	size_t n = strlen(w);
	if (n && w[n - 1] == ';') {
		w[n - 1] = '\0';
		return 1;
	}
	return 0;
}

static int is_sep(const char *w)
{
	return strcmp(w, ";") == 0 || strcmp(w, "&&") == 0 || strcmp(w, "||") == 0 || strcmp(w, "|") == 0;
}

/* Replace $VAR and ${VAR} by val in a shell word. */
static char *shell_subst(const char *w, const char *var, const char *val)
{
	struct sbuf b = { 0 };
	size_t vl = strlen(var);
	for (const char *p = w; *p;) {
		if (p[0] == '$' && p[1] == '{' && strncmp(p + 2, var, vl) == 0 && p[2 + vl] == '}') {
			sb_add(&b, val);
			p += 3 + vl;
		} else if (p[0] == '$' && strncmp(p + 1, var, vl) == 0 && !isalnum((unsigned char)p[1 + vl]) &&
		           p[1 + vl] != '_') {
			sb_add(&b, val);
			p += 1 + vl;
		} else {
			sb_addn(&b, p++, 1);
		}
	}
	return sb_take(&b);
}

/* The value of a string -D switch ("-DX_NAME=\"Foo\"" -> Foo), or NULL. */
static int name_switch(const char *flag, char *out, size_t len)
{
	char mac[128];
	define_macro_name(flag, mac, sizeof mac);
	if (strncmp(flag, "-D", 2) != 0 || (!strstr(mac, "NAME") && strcmp(mac, "ALGORITHM_INSTANCE") != 0 &&
	    strcmp(mac, "CRYPTO_ALGNAME") != 0))
		return 0;
	const char *eq = strchr(flag, '=');
	if (!eq || eq[1] != '"')
		return 0;
	size_t n = strlen(eq + 2);
	if (n == 0 || eq[2 + n - 1] != '"')
		return 0;
	snprintf(out, len, "%.*s", (int)(n - 1), eq + 2);
	return 1;
}

/* Record one loop iteration's selecting switches as a variant (merging duplicates). */
static int add_variant(struct tree_flags *tf, const char *label, char **sel, int nsel, const char *origin)
{
	if (nsel == 0)
		return 0;
	for (int i = 0; i < tf->nvariants; i++) {
		struct tree_variant *v = &tf->variants[i];
		if (v->defines.n != nsel)
			continue;
		int same = 1;
		for (int k = 0; k < nsel && same; k++)
			same = strcmp(v->defines.v[k].flag, sel[k]) == 0;
		if (same)
			return 0;
	}
	if (pq_grow(&tf->variants, &tf->vcap, (size_t)tf->nvariants + 1, sizeof *tf->variants, 8) < 0)
		return -1;
	struct tree_variant *v = &tf->variants[tf->nvariants++];
	memset(v, 0, sizeof *v);
	snprintf(v->label, sizeof v->label, "%s", label);
	snprintf(v->origin, sizeof v->origin, "%s", origin);
	for (int k = 0; k < nsel; k++) {
		if (flag_list_add(&v->defines, sel[k], origin) < 0)
			return -1;
		name_switch(sel[k], v->name, sizeof v->name);
	}
	return 0;
}

/* Unquote a make word the way the shell hands it to the compiler. */
static int unquote_add(struct flag_list *out, const char *w, const char *origin)
{
	char **sw;
	int sn;
	if (shell_split(w, &sw, &sn) < 0)
		return -1;
	int r = 0;
	for (int i = 0; i < sn && r == 0; i++)
		r = flag_list_add(out, sw[i], origin);
	free_strv(sw, sn);
	return r;
}

/* One iteration of a loop: its item and the words of its body. */
struct iter {
	const char *item;
	struct tree_flag *body;
	int nb;
};

static int in_list(const struct flag_list *l, const char *f)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i].flag, f) == 0)
			return 1;
	return 0;
}

/*
 * One loop over words (shell `for V in ...; do ...; done` or a $(foreach)):
 * the compile commands of its body, once per item.  The -D/-U switches
 * that change with the item select a variant; the others are common flags.
 */
static int loop_variants(struct mk *m, const char *var, struct iter *its, int ni, const char *origin, const char *cc)
{
	int r = 0;
	struct flag_list *dl = calloc((size_t)ni + 1, sizeof *dl);   /* switches per iteration */
	struct flag_list *vary = calloc((size_t)ni + 1, sizeof *vary); /* those written with the loop variable */
	if (!dl || !vary) {
		free(dl);
		free(vary);
		return -1;
	}
	for (int it = 0; it < ni && r == 0; it++) {
		int in_cc = 0, in_make = 0, cmd_start = 1;
		char **ovr = NULL;
		int novr = 0;
		size_t ocap = 0;
		for (int k = 0; k < its[it].nb && r == 0; k++) {
			const char *w = its[it].body[k].flag;
			if (w[0] == '\001')
				continue;
			char *sw = var ? shell_subst(w, var, its[it].item) : strdup(w);
			int varies = var && strcmp(sw, w) != 0;
			int sep = is_sep(sw) || strip_sep(sw);
			const char *bw = strrchr(sw, '/') ? strrchr(sw, '/') + 1 : sw;
			if (cmd_start && !m->nested && (strcmp(bw, "make") == 0 || strcmp(bw, "gmake") == 0)) {
				in_make = 1; /* `make VAR=value`: the same makefile, read again with VAR set */
			} else if (in_make && strchr(sw, '=') && (isalpha((unsigned char)sw[0]) || sw[0] == '_')) {
				char **sv;
				int sn;
				if (shell_split(sw, &sv, &sn) == 0) {
					for (int j = 0; j < sn; j++)
						if (pq_grow(&ovr, &ocap, (size_t)novr + 1, sizeof *ovr, 4) == 0)
							ovr[novr++] = strdup(sv[j]);
					free_strv(sv, sn);
				}
			} else if (!in_cc && is_compiler(sw, cc)) {
				in_cc = 1;
			} else if (in_cc && sw[0]) {
				struct flag_list one = { 0 };
				r = unquote_add(&one, sw, its[it].body[k].origin);
				for (int j = 0; j < one.n && r == 0; j++) {
					const char *f = one.v[j].flag;
					if (strncmp(f, "-D", 2) == 0 || strncmp(f, "-U", 2) == 0) {
						r = flag_list_add(&dl[it], f, one.v[j].origin);
						if (r == 0 && varies)
							r = flag_list_add(&vary[it], f, one.v[j].origin);
					} else if (it == 0) {
						r = flag_list_add(&m->words, f, one.v[j].origin);
					}
				}
				flag_list_free(&one);
			}
			cmd_start = sep;
			if (sep)
				in_cc = in_make = 0;
			free(sw);
		}
		if (novr && r == 0 && ++m->rereads <= MK_MAX_REREADS) {
			/* the switches this reading compiles with, beside the loop's own */
			struct tree_flags scratch = { 0 };
			struct flag_list nw = { 0 };
			pq_error nerr = { 0 };
			if (mk_collect(m->root, m->path, ovr, novr, 1, &scratch, &nw, &nerr) == 0)
				for (int j = 0; j < nw.n && r == 0; j++)
					if ((strncmp(nw.v[j].flag, "-D", 2) == 0 || strncmp(nw.v[j].flag, "-U", 2) == 0) &&
					    !in_list(&dl[it], nw.v[j].flag))
						r = flag_list_add(&dl[it], nw.v[j].flag, nw.v[j].origin);
			flag_list_free(&nw);
			tree_flags_free(&scratch);
		}
		free_strv(ovr, novr);
	}
	for (int it = 0; it < ni && r == 0; it++) {
		char **sel = NULL;
		int nsel = 0;
		size_t scap = 0;
		for (int j = 0; j < dl[it].n && r == 0; j++) {
			const char *f = dl[it].v[j].flag;
			int everywhere = 1;
			for (int o = 0; o < ni && everywhere; o++)
				everywhere = in_list(&dl[o], f);
			int selects = ni > 1 ? !everywhere : in_list(&vary[it], f);
			if (selects) {
				if (pq_grow(&sel, &scap, (size_t)nsel + 1, sizeof *sel, 4) == 0)
					sel[nsel++] = strdup(f);
			} else if (it == 0) {
				r = flag_list_add(&m->words, f, dl[it].v[j].origin);
			}
		}
		if (r == 0)
			r = add_variant(m->out, its[it].item, sel, nsel, origin);
		free_strv(sel, nsel);
	}
	for (int it = 0; it < ni; it++) {
		flag_list_free(&dl[it]);
		flag_list_free(&vary[it]);
	}
	free(dl);
	free(vary);
	return r;
}

/* The words of one recipe line: compile commands give flags, loops give variants. */
static int recipe_words(struct mk *m, struct flag_list *wl, const char *origin)
{
	char *cc = var_value(m, "CC", 0);
	char *cct = trim_dup(cc);
	free(cc);
	int r = 0, in_cc = 0;
	for (int i = 0; i < wl->n && r == 0; i++) {
		char *w = wl->v[i].flag;
		if (strcmp(w, MARK_LOOP) == 0) {
			/* $(foreach): items and their bodies up to the matching end */
			int depth = 0, j;
			for (j = i + 1; j < wl->n; j++) {
				if (strcmp(wl->v[j].flag, MARK_LOOP) == 0)
					depth++;
				else if (strcmp(wl->v[j].flag, MARK_END) == 0 && depth-- == 0)
					break;
			}
			struct iter *its = calloc((size_t)(j - i) + 1, sizeof *its);
			int ni = 0;
			for (int k = i + 1; its && k < j;) {
				if (strncmp(wl->v[k].flag, MARK_ITEM, strlen(MARK_ITEM)) != 0) {
					k++;
					continue;
				}
				int e = k + 1;
				while (e < j && strncmp(wl->v[e].flag, MARK_ITEM, strlen(MARK_ITEM)) != 0)
					e++;
				its[ni].item = wl->v[k].flag + strlen(MARK_ITEM) + 1;
				its[ni].body = wl->v + k + 1;
				its[ni].nb = e - k - 1;
				ni++;
				k = e;
			}
			/* each iteration was expanded already: what differs between them selects */
			r = its ? loop_variants(m, NULL, its, ni, wl->v[i].origin, cct) : -1;
			free(its);
			i = j;
			in_cc = 0;
			continue;
		}
		if (strcmp(w, "for") == 0 && i + 3 < wl->n && strcmp(wl->v[i + 2].flag, "in") == 0) {
			const char *var = wl->v[i + 1].flag;
			char **items = NULL;
			int ni = 0, j = i + 3;
			size_t icap = 0;
			for (; j < wl->n && strcmp(wl->v[j].flag, "do") != 0; j++) {
				char *t = strdup(wl->v[j].flag);
				strip_sep(t);
				if (t[0] && strcmp(t, ";") != 0 && pq_grow(&items, &icap, (size_t)ni + 1, sizeof *items, 8) == 0)
					items[ni++] = t;
				else
					free(t);
			}
			int body = j + 1, end = body, depth = 0;
			for (; end < wl->n; end++) {
				char t[16];
				snprintf(t, sizeof t, "%s", wl->v[end].flag);
				strip_sep(t);
				if (strcmp(t, "for") == 0)
					depth++;
				else if (strcmp(t, "done") == 0 && depth-- == 0)
					break;
			}
			struct iter *its = calloc((size_t)ni + 1, sizeof *its);
			for (int k = 0; its && k < ni; k++)
				its[k] = (struct iter){ items[k], wl->v + body, end - body };
			r = its ? loop_variants(m, var, its, ni, origin, cct) : -1;
			free(its);
			free_strv(items, ni);
			i = end;
			in_cc = 0;
			continue;
		}
		char *t = strdup(w);
		int sep = is_sep(t) || strip_sep(t);
		if (!in_cc && is_compiler(t, cct))
			in_cc = 1;
		else if (in_cc && t[0])
			r = unquote_add(&m->words, t, wl->v[i].origin);
		if (sep)
			in_cc = 0;
		free(t);
	}
	free(cct);
	return r;
}

/* The next logical line (continuations joined); *lineno is where it starts. */
static char *next_line(const char **pp, int *lineno, int *next_no)
{
	const char *p = *pp;
	if (!*p)
		return NULL;
	struct sbuf b = { 0 };
	*lineno = *next_no;
	for (;;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		(*next_no)++;
		if (n && p[n - 1] == '\\') {
			sb_addn(&b, p, n - 1);
			sb_add(&b, " ");
			p = nl ? nl + 1 : p + n;
			if (!nl)
				break;
			continue;
		}
		sb_addn(&b, p, n);
		p = nl ? nl + 1 : p + n;
		break;
	}
	*pp = p;
	return sb_take(&b);
}

static void strip_comment(char *s)
{
	for (char *p = s; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == '#') {
			*p = '\0';
			return;
		}
	}
}

struct cond {
	int active;     /* this branch is being read */
	int taken;      /* some branch of this conditional was true */
	int parent;     /* the enclosing context was active */
};

/* ifeq/ifneq argument forms: (a,b)  "a" "b"  'a' 'b' */
static int cond_eq(struct mk *m, const char *args, int *result)
{
	while (isspace((unsigned char)*args))
		args++;
	char *a = NULL, *b = NULL;
	if (*args == '(') {
		const char *e = close_paren(args + 1, '(');
		if (!e)
			return -1;
		char *in[8];
		int n = split_args(args + 1, (size_t)(e - args - 1), in);
		if (n >= 2) {
			a = in[0];
			b = in[1];
			for (int i = 2; i < n; i++)
				free(in[i]);
		} else {
			for (int i = 0; i < n; i++)
				free(in[i]);
			return -1;
		}
	} else {
		char q1 = *args;
		const char *e1 = q1 ? strchr(args + 1, q1) : NULL;
		if (!e1)
			return -1;
		a = strndup(args + 1, (size_t)(e1 - args - 1));
		const char *s2 = e1 + 1;
		while (isspace((unsigned char)*s2))
			s2++;
		char q2 = *s2;
		const char *e2 = q2 ? strchr(s2 + 1, q2) : NULL;
		if (!e2) {
			free(a);
			return -1;
		}
		b = strndup(s2 + 1, (size_t)(e2 - s2 - 1));
	}
	char *ea = mk_expand(m, a, 0), *eb = mk_expand(m, b, 0);
	char *ta = trim_dup(ea), *tb = trim_dup(eb);
	*result = strcmp(ta, tb) == 0;
	free(a), free(b), free(ea), free(eb), free(ta), free(tb);
	return 0;
}

static int cond_eval(struct mk *m, const char *kw, const char *rest)
{
	int res = 0;
	if (strcmp(kw, "ifdef") == 0 || strcmp(kw, "ifndef") == 0) {
		char *e = mk_expand(m, rest, 0), *t = trim_dup(e);
		char *v = var_value(m, t, 0), *vt = trim_dup(v);
		res = vt[0] != '\0';
		free(e), free(t), free(v), free(vt);
		return kw[2] == 'n' ? !res : res;
	}
	if (cond_eq(m, rest, &res) < 0)
		res = 0; /* a form we cannot read: its branch is left out */
	return strcmp(kw, "ifneq") == 0 ? !res : res;
}

static int read_makefile(struct mk *m, const char *path, int depth);

static void origin_of(struct mk *m, const char *path, int line, char *out, size_t len)
{
	size_t rl = strlen(m->root);
	const char *rel = strncmp(path, m->root, rl) == 0 && path[rl] == '/' ? path + rl + 1 : path;
	snprintf(out, len, "%s:%d", rel, line);
}

static int do_assign(struct mk *m, const char *name, const char *op, const char *value, const char *origin)
{
	char *en = mk_expand(m, name, 0), *nm = trim_dup(en);
	free(en);
	static const char *const prefixes[] = { "export ", "override ", "private ", NULL };
	for (int again = 1; again;) {
		again = 0;
		for (int i = 0; prefixes[i]; i++)
			if (strncmp(nm, prefixes[i], strlen(prefixes[i])) == 0) {
				char *t = trim_dup(nm + strlen(prefixes[i]));
				free(nm);
				nm = t;
				again = 1;
			}
	}
	int r = 0;
	struct mk_var *v = mk_find(m, nm);
	if (v && v->cmdline) {
		free(nm);
		return 0;
	}
	if (strcmp(op, "?=") == 0 && v && v->nsegs) {
		free(nm);
		return 0;
	}
	v = mk_define(m, nm);
	free(nm);
	if (!v)
		return -1;
	char *val = trim_dup(value);
	if (strcmp(op, "!=") == 0) {
		var_clear(v); /* a shell assignment: never run */
		v->simple = 1;
	} else if (strcmp(op, ":=") == 0 || strcmp(op, "::=") == 0 || (strcmp(op, "+=") == 0 && v->simple)) {
		struct flag_list words = { 0 };
		r = mk_expand_words(m, val, origin, &words, 0);
		if (op[0] != '+')
			var_clear(v);
		v->simple = 1;
		for (int i = 0; i < words.n && r == 0; i++)
			if (words.v[i].flag[0] != '\001')
				r = var_push(v, words.v[i].flag, words.v[i].origin);
		flag_list_free(&words);
	} else {
		if (op[0] != '+') {
			var_clear(v);
			v->simple = 0;
		}
		r = val[0] ? var_push(v, val, origin) : 0;
	}
	free(val);
	return r;
}

/* Find an assignment operator at the top level; returns its position or NULL (op copied). */
static char *find_assign(char *s, char op[4])
{
	int depth = 0;
	for (char *p = s; *p; p++) {
		if (*p == '$' && (p[1] == '(' || p[1] == '{')) {
			depth++;
			p++;
			continue;
		}
		if (depth && (*p == ')' || *p == '}')) {
			depth--;
			continue;
		}
		if (depth)
			continue;
		if (*p == '=') {
			if (p > s && (p[-1] == '+' || p[-1] == '?' || p[-1] == '!')) {
				snprintf(op, 4, "%c=", p[-1]);
				return p - 1;
			}
			if (p > s + 1 && p[-1] == ':' && p[-2] == ':') {
				snprintf(op, 4, "::=");
				return p - 2;
			}
			if (p > s && p[-1] == ':') {
				snprintf(op, 4, ":=");
				return p - 1;
			}
			snprintf(op, 4, "=");
			return p;
		}
		if (*p == ':' && p[1] != '=' && !(p[1] == ':' && p[2] == '='))
			return NULL; /* a rule */
	}
	return NULL;
}

static int read_include(struct mk *m, const char *dir, const char *rest, int optional, const char *origin, int depth)
{
	char *e = mk_expand(m, rest, 0);
	char **w;
	int n, r = 0;
	if (simple_words(e, &w, &n) < 0) {
		free(e);
		return -1;
	}
	for (int i = 0; i < n && r == 0; i++) {
		char p[PATH_MAX], real[PATH_MAX];
		if (path_fmt(p, sizeof p, NULL, "%s%s%s", w[i][0] == '/' ? "" : dir, w[i][0] == '/' ? "" : "/", w[i]) < 0)
			continue;
		if (!realpath(p, real)) {
			if (!optional)
				flag_list_add(&m->out->info, w[i], origin); /* an include that is not there */
			continue;
		}
		size_t rl = strlen(m->root);
		if (strncmp(real, m->root, rl) != 0 || real[rl] != '/') {
			char why[300];
			snprintf(why, sizeof why, "%.200s (included makefile outside the tree, not read)", origin);
			flag_list_add(&m->out->info, w[i], why);
			continue;
		}
		if (++m->nincludes > MK_MAX_INCLUDES)
			break;
		r = read_makefile(m, p, depth + 1); /* named as the tree names it */
	}
	free_strv(w, n);
	free(e);
	return r;
}

static int read_makefile(struct mk *m, const char *path, int depth)
{
	if (depth > 8)
		return 0;
	struct stat sb;
	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return 0;
	char *text = NULL;
	int r = read_whole_file(path, &text, NULL, MK_MAX_BYTES, m->err);
	if (r < 0)
		return r;
	{
		size_t rl = strlen(m->root), fl = strlen(m->out->files);
		const char *rel = strncmp(path, m->root, rl) == 0 && path[rl] == '/' ? path + rl + 1 : path;
		snprintf(m->out->files + fl, sizeof m->out->files - fl, "%s%s", fl ? ", " : "", rel);
	}
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	struct cond conds[32];
	int nc = 0;
	int in_rule = 0, rule_ignored = 0, in_define = 0;
	int lineno = 0, next_no = 1;
	const char *p = text;
	char *line;
	while (r == 0 && (line = next_line(&p, &lineno, &next_no)) != NULL) {
		char origin[300];
		origin_of(m, path, lineno, origin, sizeof origin);
		int active = nc == 0 || conds[nc - 1].active;
		if (in_define) {
			char *t = trim_dup(line);
			if (strncmp(t, "endef", 5) == 0)
				in_define = 0;
			free(t);
			free(line);
			continue;
		}
		if (line[0] == '\t' && in_rule) {
			if (active && !rule_ignored) {
				struct flag_list wl = { 0 };
				r = mk_expand_words(m, line + 1, origin, &wl, 0);
				if (r == 0)
					r = recipe_words(m, &wl, origin);
				flag_list_free(&wl);
			}
			free(line);
			continue;
		}
		strip_comment(line);
		char *t = trim_dup(line);
		free(line);
		if (!t[0]) {
			free(t);
			continue;
		}
		char kw[16] = "";
		sscanf(t, "%15s", kw);
		const char *rest = t + strlen(kw);
		if (strcmp(kw, "ifeq") == 0 || strcmp(kw, "ifneq") == 0 || strcmp(kw, "ifdef") == 0 ||
		    strcmp(kw, "ifndef") == 0) {
			if (nc < 32) {
				int v = active && cond_eval(m, kw, rest);
				conds[nc++] = (struct cond){ .active = v, .taken = v, .parent = active };
			}
		} else if (strcmp(kw, "else") == 0) {
			if (nc > 0) {
				struct cond *c = &conds[nc - 1];
				char kw2[16] = "";
				sscanf(rest, "%15s", kw2);
				int v = 1;
				if (kw2[0] && strncmp(kw2, "if", 2) == 0)
					v = c->parent && cond_eval(m, kw2, rest + strspn(rest, " \t") + strlen(kw2));
				c->active = c->parent && !c->taken && v;
				c->taken |= c->active;
			}
		} else if (strcmp(kw, "endif") == 0) {
			if (nc > 0)
				nc--;
		} else if (!active) {
			/* inside a false branch */
		} else if (strcmp(kw, "define") == 0) {
			in_define = 1;
		} else if (strcmp(kw, "include") == 0 || strcmp(kw, "-include") == 0 || strcmp(kw, "sinclude") == 0) {
			r = read_include(m, dir, rest, kw[0] != 'i', origin, depth);
		} else if (strcmp(kw, "vpath") == 0 || strcmp(kw, "unexport") == 0 || strcmp(kw, "undefine") == 0 ||
		           strcmp(kw, "$(eval") == 0) {
			/* nothing for flags */
		} else {
			char op[4];
			char *at = find_assign(t, op);
			if (at) {
				*at = '\0';
				r = do_assign(m, t, op, at + strlen(op), origin);
				in_rule = 0;
			} else if (strchr(t, ':')) {
				/* a rule: targets, then prerequisites or a target-specific assignment */
				char *colon = strchr(t, ':');
				*colon = '\0';
				char *after = colon + 1 + (colon[1] == ':');
				char *targets = mk_expand(m, t, 0);
				rule_ignored = targets[0] == '.' || ignored_target(targets);
				in_rule = 1;
				char op2[4];
				char *at2 = find_assign(after, op2);
				if (at2) {
					in_rule = 0;
					if (!rule_ignored) {
						*at2 = '\0';
						char o2[400];
						snprintf(o2, sizeof o2, "%s", origin);
						r = do_assign(m, after, op2, at2 + strlen(op2), o2);
					}
				} else {
					char *semi = strchr(after, ';');
					if (semi && !rule_ignored) {
						struct flag_list wl = { 0 };
						r = mk_expand_words(m, semi + 1, origin, &wl, 0);
						if (r == 0)
							r = recipe_words(m, &wl, origin);
						flag_list_free(&wl);
					}
				}
				free(targets);
			}
		}
		free(t);
	}
	free(text);
	return r;
}

/* Keep the flags that matter, once each; -I must name a directory inside the tree. */
static int keep_flags(struct tree_flags *tf, const char *root, const char *mkdir_, struct flag_list *words)
{
	int r = 0;
	for (int i = 0; i < words->n && r == 0; i++) {
		const char *f = words->v[i].flag;
		const char *o = words->v[i].origin;
		int kind = tree_flag_kind(f);
		if (kind == 0)
			continue;
		char buf[PATH_MAX + 8];
		if (strncmp(f, "-I", 2) == 0) {
			char p[PATH_MAX], real[PATH_MAX];
			size_t rl = strlen(root);
			if (path_fmt(p, sizeof p, NULL, "%s%s%s", f[2] == '/' ? "" : mkdir_, f[2] == '/' ? "" : "/", f + 2) <
			        0 ||
			    !realpath(p, real)) {
				char why[300];
				snprintf(why, sizeof why, "%s (no such directory)", o);
				r = flag_list_add(&tf->info, f, why);
				continue;
			}
			if (strcmp(real, root) == 0) {
				continue; /* the tree root is always on the include path */
			} else if (strncmp(real, root, rl) == 0 && real[rl] == '/') {
				snprintf(buf, sizeof buf, "-I%s", real + rl + 1);
				f = buf;
			} else {
				char why[300];
				snprintf(why, sizeof why, "%s (outside the tree, not used)", o);
				r = flag_list_add(&tf->info, f, why);
				continue;
			}
		}
		struct flag_list *dst = kind == 1 ? &tf->flags : &tf->info;
		int dup = 0;
		for (int k = 0; k < dst->n && !dup; k++)
			dup = strcmp(dst->v[k].flag, f) == 0;
		if (!dup)
			r = flag_list_add(dst, f, o);
	}
	return r;
}

/* Read a makefile (with command-line variables `ovr`, NAME=VALUE) into the words its compilers get. */
static int mk_collect(const char *real_root, const char *real_path, char **ovr, int novr, int nested,
                      struct tree_flags *out, struct flag_list *words, pq_error *err)
{
	struct mk m = { .root = real_root, .out = out, .err = err, .path = real_path, .nested = nested };
	/* make's built-in compiler variables (a makefile may replace them) */
	struct mk_var *cc = mk_define(&m, "CC");
	int r = cc && var_push(cc, "cc", "") == 0 ? 0 : pq_fail(err, PQ_ENOMEM, "out of memory");
	struct mk_var *mv = r == 0 ? mk_define(&m, "MAKE") : NULL;
	if (r == 0 && (!mv || var_push(mv, "make", "") < 0))
		r = pq_fail(err, PQ_ENOMEM, "out of memory");
	for (int i = 0; i < novr && r == 0; i++) {
		char *eq = strchr(ovr[i], '=');
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)(eq - ovr[i]), ovr[i]);
		struct mk_var *ov = mk_define(&m, name);
		if (!ov || var_push(ov, eq + 1, "") < 0)
			r = pq_fail(err, PQ_ENOMEM, "out of memory");
		else
			ov->simple = ov->cmdline = 1;
	}
	if (r == 0)
		r = read_makefile(&m, real_path, 0);

	/* Make's implicit rules compile with these, whether or not a rule names them. */
	static const char *const implicit[] = { "CPPFLAGS", "CFLAGS", "ASFLAGS", NULL };
	for (int i = 0; implicit[i] && r == 0; i++) {
		struct mk_var *v = mk_find(&m, implicit[i]);
		for (int s = 0; v && s < v->nsegs && r == 0; s++) {
			struct flag_list raw = { 0 };
			if (v->simple)
				r = flag_list_add(&raw, v->segs[s].text, v->segs[s].origin);
			else
				r = mk_expand_words(&m, v->segs[s].text, v->segs[s].origin, &raw, 0);
			for (int k = 0; k < raw.n && r == 0; k++)
				if (raw.v[k].flag[0] != '\001')
					r = unquote_add(words, raw.v[k].flag, raw.v[k].origin);
			flag_list_free(&raw);
		}
	}
	for (int i = 0; i < m.words.n && r == 0; i++)
		r = flag_list_add(words, m.words.v[i].flag, m.words.v[i].origin);
	if (r == 0 && m.work > MK_MAX_WORK && !nested)
		r = flag_list_add(&out->info, "$(...)", "the makefiles (expansion stopped after 200000 steps: "
		                                        "flags past that point are missing)");
	mk_free(&m);
	return r;
}

int tree_flags_read_makefile(const char *root, const char *path, struct tree_flags *out, pq_error *err)
{
	char real_root[PATH_MAX], real_path[PATH_MAX];
	if (!realpath(root, real_root))
		return pq_fail_errno(err, PQ_EINPUT, "%s", root);
	/* Origins name the makefile as the tree does (a link stays a name in the tree). */
	size_t gl = strlen(root);
	if (strncmp(path, root, gl) == 0 && path[gl] == '/') {
		if (path_fmt(real_path, sizeof real_path, err, "%s%s", real_root, path + gl) < 0)
			return -PQ_EINPUT;
	} else if (!realpath(path, real_path)) {
		return pq_fail_errno(err, PQ_EINPUT, "%s", path);
	}
	struct flag_list words = { 0 };
	int r = mk_collect(real_root, real_path, NULL, 0, 0, out, &words, err);
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", real_path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (r == 0)
		r = keep_flags(out, real_root, dir, &words);
	/* Switches that select a variant are the variant's, not common flags. */
	for (int i = 0; i < out->nvariants && r == 0; i++)
		for (int k = 0; k < out->variants[i].defines.n; k++) {
			char mac[128], m2[128];
			define_macro_name(out->variants[i].defines.v[k].flag, mac, sizeof mac);
			for (int j = 0; j < out->flags.n; j++) {
				define_macro_name(out->flags.v[j].flag, m2, sizeof m2);
				if (m2[0] && strcmp(m2, mac) == 0) {
					free(out->flags.v[j].flag);
					memmove(out->flags.v + j, out->flags.v + j + 1, sizeof *out->flags.v * (size_t)(out->flags.n - j - 1));
					out->flags.n--;
					j--;
				}
			}
		}
	flag_list_free(&words);
	if (r < 0 && err && !err->code)
		pq_fail(err, PQ_ENOMEM, "out of memory");
	return r < 0 ? (err && err->code ? -err->code : -PQ_ENOMEM) : 0;
}

int tree_flags_read(const char *root, struct tree_flags *out, pq_error *err)
{
	memset(out, 0, sizeof *out);
	static const char *const makefiles[] = { "GNUmakefile", "makefile", "Makefile", NULL };
	int r = 0;
	for (int i = 0; makefiles[i] && r == 0; i++) {
		char p[PATH_MAX];
		struct stat sb;
		if (path_fmt(p, sizeof p, err, "%s/%s", root, makefiles[i]) < 0)
			return -PQ_EINPUT;
		if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
			r = tree_flags_read_makefile(root, p, out, err);
			break; /* make reads the first one it finds */
		}
	}
	char p[PATH_MAX];
	struct stat sb;
	if (r == 0 && path_fmt(p, sizeof p, err, "%s/CMakeLists.txt", root) == 0 && stat(p, &sb) == 0 &&
	    S_ISREG(sb.st_mode))
		r = tree_flags_read_cmake(root, p, out, err);
	if (r < 0)
		tree_flags_free(out);
	return r;
}
