/* kat_locate: a tree's vector file found by its first record; see kat_locate.h. */
#include "config.h"
#include "core/path_name.h"
#include "kat/kat_locate.h"
#include "core/digest.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* The first record of a candidate, as text: enough to qualify it. */
#define HEAD_BYTES ((size_t)8 << 20)

/* A field of a record whose name matches, case aside (NIST: pk; NGCC: PK). */
static const struct kat_field *field_ci(const struct kat_record *r, const char *name)
{
	for (size_t i = 0; i < r->nfields; i++)
		if (strcasecmp(r->fields[i].name, name) == 0)
			return &r->fields[i];
	return NULL;
}

/* Lower-case alphanumerics only. */
static void squash(const char *s, char *out, size_t len)
{
	size_t k = 0;
	for (; s && *s && k + 1 < len; s++)
		if (isalnum((unsigned char)*s))
			out[k++] = (char)tolower((unsigned char)*s);
	out[k] = '\0';
}

int kat_names_agree(const char *a, const char *b)
{
	char x[256], y[256];
	squash(a, x, sizeof x);
	squash(b, y, sizeof y);
	return x[0] && strcmp(x, y) == 0;
}

/* Does the hex text [p, end) spell exactly the bytes b[0..n)? */
static int hex_is(const char *p, const char *end, const uint8_t *b, size_t n)
{
	if ((size_t)(end - p) != 2 * n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int hi = hex_value(p[2 * i]), lo = hex_value(p[2 * i + 1]);
		if (hi < 0 || lo < 0 || (uint8_t)(hi << 4 | lo) != b[i])
			return 0;
	}
	return 1;
}

/* The hex text [p, end) as a length in bytes (0 when it is not hex of whole bytes). */
static size_t hex_len(const char *p, const char *end)
{
	size_t n = (size_t)(end - p);
	for (const char *q = p; q < end; q++)
		if (hex_value(*q) < 0)
			return 0;
	return n % 2 ? 0 : n / 2;
}

/*
 * Qualify the head of a file: its name line, then the key = value lines of
 * its first record (up to the second count line).  Returns the score, or
 * -1 when it does not qualify.
 */
static int qualify(const char *text, size_t len, const char *fname, const struct kat_want *w, struct kat_candidate *c)
{
	const char *p = text, *end = text + len;
	int counts = 0, seed_ok = w->seed == NULL, has_pk = 0, sk_len_ok = w->sklen == 0, ct_len_ok = 1, has_ct = 0;
	char header[256] = "";
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *q = p;
		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		const char *e = le;
		while (e > q && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (q < e && *q == '#' && !header[0] && counts == 0) {
			q++;
			while (q < e && *q == ' ')
				q++;
			snprintf(header, sizeof header, "%.*s", (int)(e - q), q);
		} else if (q < e) {
			const char *eq = memchr(q, '=', (size_t)(e - q));
			if (eq) {
				const char *ke = eq;
				while (ke > q && (ke[-1] == ' ' || ke[-1] == '\t'))
					ke--;
				const char *v = eq + 1;
				while (v < e && (*v == ' ' || *v == '\t'))
					v++;
				char key[16];
				snprintf(key, sizeof key, "%.*s", (int)(ke - q < 15 ? ke - q : 15), q);
				if (strcasecmp(key, "count") == 0 && ++counts > 1)
					break;
				if (strcasecmp(key, "seed") == 0 && w->seed)
					seed_ok = hex_is(v, e, w->seed, w->seedlen);
				else if (strcasecmp(key, "pk") == 0) {
					c->pklen = hex_len(v, e);
					has_pk = c->pklen > 0 && (w->pklen == 0 || c->pklen == w->pklen);
					c->holds_pk = has_pk && w->pk && hex_is(v, e, w->pk, c->pklen);
				} else if (strcasecmp(key, "sk") == 0) {
					c->sklen = hex_len(v, e);
					sk_len_ok = w->sklen == 0 || c->sklen == w->sklen;
				} else if (strcasecmp(key, "ct") == 0) {
					has_ct = 1;
					ct_len_ok = w->ctlen == 0 || (size_t)(e - v) == 2 * w->ctlen;
				}
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (counts == 0 || !seed_ok || !has_pk || !sk_len_ok || !ct_len_ok || (w->kem >= 0 && has_ct != w->kem))
		return -1;
	c->kem = has_ct;
	snprintf(c->name_line, sizeof c->name_line, "%s", header);
	c->names_instance = w->name && header[0] && kat_names_agree(header, w->name);
	char fn[512], nm[256];
	squash(fname, fn, sizeof fn);
	squash(w->name, nm, sizeof nm);
	c->file_names_instance = nm[0] && strstr(fn, nm) != NULL;
	c->score = 4 * c->holds_pk + 2 * c->names_instance + c->file_names_instance;
	return c->score;
}

/* Names that can hold vectors: .rsp, .txt, .kat, or a name with "kat" in it. */
static int may_hold_vectors(const char *name)
{
	const char *dot = strrchr(name, '.');
	if (dot && (strcasecmp(dot, ".rsp") == 0 || strcasecmp(dot, ".txt") == 0 || strcasecmp(dot, ".kat") == 0))
		return 1;
	for (const char *s = name; *s; s++)
		if (strncasecmp(s, "kat", 3) == 0)
			return !dot || (strcasecmp(dot, ".c") && strcasecmp(dot, ".h") && strcasecmp(dot, ".o") &&
			                strcasecmp(dot, ".sh") && strcasecmp(dot, ".py") && strcasecmp(dot, ".req"));
	return 0;
}

static int read_head(const char *path, char *buf, size_t cap, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	*len = fread(buf, 1, cap, f);
	fclose(f);
	return 0;
}

struct walk {
	const char *root;       /* the folder searched: links out of it are passed over */
	const struct kat_want *w;
	struct kat_candidate *v;
	size_t n, cap;
	char *head;
	int failed;
};

static void walk(struct walk *wk, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	char sub[4096];
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name) >= sizeof sub)
			continue;
		struct stat sb;
		if (lstat(sub, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			if (depth > 0)
				walk(wk, sub, depth - 1);
			continue;
		}
		if (S_ISLNK(sb.st_mode) && (!path_inside_tree(sub, wk->root) || stat(sub, &sb) != 0))
			continue;
		if (!S_ISREG(sb.st_mode) || (size_t)sb.st_size > KAT_LOCATE_MAX_BYTES || !may_hold_vectors(de->d_name))
			continue;
		size_t len = 0;
		struct kat_candidate c;
		memset(&c, 0, sizeof c);
		if (read_head(sub, wk->head, HEAD_BYTES, &len) < 0)
			continue;
		if (qualify(wk->head, len, de->d_name, wk->w, &c) < 0)
			continue;
		if (wk->n == wk->cap) {
			size_t nc = wk->cap ? 2 * wk->cap : 8;
			struct kat_candidate *nv = realloc(wk->v, nc * sizeof *nv);
			if (!nv) {
				wk->failed = 1;
				continue;
			}
			wk->v = nv;
			wk->cap = nc;
		}
		snprintf(c.path, sizeof c.path, "%s", sub);
		wk->v[wk->n++] = c;
	}
	closedir(d);
}

/* Best first, then by path. */
static int by_score(const void *a, const void *b)
{
	const struct kat_candidate *x = a, *y = b;
	return x->score != y->score ? y->score - x->score : strcmp(x->path, y->path);
}

int kat_locate_all(const char *root, const struct kat_want *w, struct kat_candidate **out)
{
	*out = NULL;
	if (!root || !w)
		return 0;
	struct walk wk = { .root = root, .w = w, .head = malloc(HEAD_BYTES) };
	if (!wk.head)
		return -1;
	walk(&wk, root, KAT_LOCATE_DEPTH);
	free(wk.head);
	if (wk.failed) {
		free(wk.v);
		return -1;
	}
	if (wk.n > 1)
		qsort(wk.v, wk.n, sizeof *wk.v, by_score);
	*out = wk.v;
	return (int)wk.n;
}

int kat_locate(const char *root, const struct kat_file *produced, const char *name, struct kat_located *out)
{
	memset(out, 0, sizeof *out);
	if (!root || !produced || produced->nrecords == 0)
		return 0;
	const struct kat_record *r0 = &produced->records[0];
	const struct kat_field *seed = field_ci(r0, "seed"), *pk = field_ci(r0, "pk"), *sk = field_ci(r0, "sk");
	const struct kat_field *ct = field_ci(r0, "ct");
	if (!pk || pk->kind != KAT_VALUE_HEX || pk->len == 0)
		return 0;
	struct kat_want w = {
		.seed = seed && seed->kind == KAT_VALUE_HEX && seed->len ? seed->bytes : NULL,
		.seedlen = seed ? seed->len : 0, .pk = pk->bytes, .pklen = pk->len,
		.sklen = sk && sk->kind == KAT_VALUE_HEX ? sk->len : 0, .name = name,
		.ctlen = ct && ct->kind == KAT_VALUE_HEX ? ct->len : 0, .kem = -1,
	};
	struct kat_candidate *v = NULL;
	int n = kat_locate_all(root, &w, &v);
	if (n > 0) {
		snprintf(out->path, sizeof out->path, "%s", v[0].path);
		out->candidates = n;
		out->holds_pk = v[0].holds_pk;
		out->names_instance = v[0].names_instance;
	}
	free(v);
	return n > 0;
}
