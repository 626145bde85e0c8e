/* instance_discover: the instances a -D-switched tree can build; see instance_discover.h. */
#include "config.h"
#include "instance/instance_discover.h"
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

void instance_set_free(struct instance_set *s)
{
	tree_flags_free(&s->tf);
	free(s->defaults);
	memset(s, 0, sizeof *s);
	s->default_variant = -1;
}

const char *instance_variant_name(const struct tree_variant *v)
{
	return v->name[0] ? v->name : v->label;
}

/* Every #define of a header, with #ifndef defaults marked. */
struct hdef {
	char macro[128];
	char value[256];
	char origin[300];
	int is_default;
};

struct hdefs {
	struct hdef *v;
	int n;
	size_t cap;
};

/* Blank C comments (newlines kept, so line numbers stay right). */
static void blank_comments(char *s)
{
	for (char *p = s; *p; p++) {
		if (p[0] == '/' && p[1] == '*') {
			for (; *p && !(p[0] == '*' && p[1] == '/'); p++)
				if (*p != '\n')
					*p = ' ';
			if (*p)
				p[0] = p[1] = ' ';
		} else if (p[0] == '/' && p[1] == '/') {
			for (; *p && *p != '\n'; p++)
				*p = ' ';
			if (!*p)
				break;
		} else if (*p == '"') {
			for (p++; *p && *p != '"' && *p != '\n'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				break;
		}
	}
}

static int read_header(const char *root, const char *rel, struct hdefs *d, int depth)
{
	char p[PATH_MAX];
	struct stat sb;
	if (depth > 2 || path_fmt(p, sizeof p, NULL, "%s/%s", root, rel) < 0 || stat(p, &sb) != 0 || !S_ISREG(sb.st_mode))
		return 0;
	char *text = NULL;
	if (read_whole_file(p, &text, NULL, 8u << 20, NULL) < 0)
		return 0;
	blank_comments(text);
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", rel);
	char *sl = strrchr(dir, '/');
	if (sl)
		sl[1] = '\0';
	else
		dir[0] = '\0';
	char pending[128] = ""; /* the macro of an #ifndef just seen */
	int line = 0;
	for (char *l = text; l && *l;) {
		line++;
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		char *s = l;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#') {
			s++;
			while (*s == ' ' || *s == '\t')
				s++;
			char kw[16] = "", a[128] = "";
			sscanf(s, "%15[a-z] %127[A-Za-z0-9_]", kw, a);
			if (strcmp(kw, "ifndef") == 0) {
				snprintf(pending, sizeof pending, "%s", a);
			} else if (strcmp(kw, "define") == 0 && a[0]) {
				const char *v = s + strlen("define");
				while (*v == ' ' || *v == '\t')
					v++;
				v += strlen(a);
				if (*v != '(') { /* not a function-like macro */
					while (*v == ' ' || *v == '\t')
						v++;
					if (pq_grow(&d->v, &d->cap, (size_t)d->n + 1, sizeof *d->v, 32) == 0) {
						struct hdef *h = &d->v[d->n++];
						snprintf(h->macro, sizeof h->macro, "%s", a);
						snprintf(h->value, sizeof h->value, "%s", v);
						size_t n = strlen(h->value);
						while (n && isspace((unsigned char)h->value[n - 1]))
							h->value[--n] = '\0';
						snprintf(h->origin, sizeof h->origin, "%.250s:%d", rel, line);
						h->is_default = strcmp(pending, a) == 0;
					}
				}
				pending[0] = '\0';
			} else if (strcmp(kw, "include") == 0) {
				char *q = strchr(s, '"'), *e = q ? strchr(q + 1, '"') : NULL;
				if (q && e) {
					char inc[PATH_MAX];
					if (path_fmt(inc, sizeof inc, NULL, "%s%.*s", dir, (int)(e - q - 1), q + 1) == 0 &&
					    !strstr(inc, ".."))
						read_header(root, inc, d, depth + 1);
				}
				pending[0] = '\0';
			} else {
				pending[0] = '\0';
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	free(text);
	return 0;
}

/* The string a macro stands for, following plain macro-to-macro definitions (#ifndef defaults first). */
static int resolve_string(const struct hdefs *d, const char *macro, char *out, size_t len, char *origin,
                          size_t olen, int depth)
{
	if (depth > 8)
		return 0;
	const struct hdef *h = NULL;
	for (int i = 0; i < d->n; i++)
		if (strcmp(d->v[i].macro, macro) == 0 && (!h || (d->v[i].is_default && !h->is_default)))
			h = &d->v[i];
	if (!h)
		return 0;
	const char *v = h->value;
	size_t n = strlen(v);
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		snprintf(out, len, "%.*s", (int)(n - 2), v + 1);
		snprintf(origin, olen, "%s", h->origin);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)v[i]) || v[i] == '_'))
			return 0;
	return n ? resolve_string(d, v, out, len, origin, olen, depth + 1) : 0;
}

static int find_top_header(const char *tree, char *out, size_t len)
{
	static const char *const names[] = { "SIG_AlgorithmInstance.h", "KEM_AlgorithmInstance.h", "api.h", NULL };
	for (int i = 0; names[i]; i++) {
		char p[PATH_MAX];
		struct stat sb;
		if (path_fmt(p, sizeof p, NULL, "%s/%s", tree, names[i]) == 0 && stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
			snprintf(out, len, "%s", names[i]);
			return 1;
		}
	}
	return 0;
}

int instance_discover(const char *tree, const char *header, struct instance_set *out, pq_error *err)
{
	memset(out, 0, sizeof *out);
	out->default_variant = -1;
	int r = tree_flags_read(tree, &out->tf, err);
	if (r < 0)
		return r;
	if (header)
		snprintf(out->header, sizeof out->header, "%s", header);
	else
		find_top_header(tree, out->header, sizeof out->header);
	struct hdefs d = { 0 };
	size_t dcap = 0;
	if (out->header[0])
		read_header(tree, out->header, &d, 0);
	for (int i = 0; i < d.n; i++)
		if (d.v[i].is_default) {
			if (pq_grow(&out->defaults, &dcap, (size_t)out->ndefaults + 1, sizeof *out->defaults, 8) < 0)
				break;
			struct header_default *hd = &out->defaults[out->ndefaults++];
			snprintf(hd->macro, sizeof hd->macro, "%s", d.v[i].macro);
			snprintf(hd->value, sizeof hd->value, "%s", d.v[i].value);
			snprintf(hd->origin, sizeof hd->origin, "%s", d.v[i].origin);
		}
	if (!resolve_string(&d, "ALGORITHM_INSTANCE", out->default_name, sizeof out->default_name, out->default_origin,
	                    sizeof out->default_origin, 0))
		resolve_string(&d, "CRYPTO_ALGNAME", out->default_name, sizeof out->default_name, out->default_origin,
		               sizeof out->default_origin, 0);
	/* The variant the header's defaults select: same name, or every switch equal to a default. */
	for (int i = 0; i < out->tf.nvariants && out->default_variant < 0; i++) {
		const struct tree_variant *v = &out->tf.variants[i];
		if (out->default_name[0] && strcmp(instance_variant_name(v), out->default_name) == 0) {
			out->default_variant = i;
			break;
		}
		int all = v->defines.n > 0;
		for (int k = 0; k < v->defines.n && all; k++) {
			char mac[128];
			const char *f = v->defines.v[k].flag;
			define_macro_name(f, mac, sizeof mac);
			const char *eq = strchr(f, '=');
			int hit = 0;
			for (int j = 0; j < out->ndefaults && !hit; j++)
				hit = strcmp(out->defaults[j].macro, mac) == 0 && eq && strcmp(out->defaults[j].value, eq + 1) == 0;
			all = hit;
		}
		if (all)
			out->default_variant = i;
	}
	free(d.v);
	return 0;
}

void instance_choices(const struct instance_set *s, char *out, size_t len)
{
	out[0] = '\0';
	for (int i = 0; i < s->tf.nvariants; i++) {
		size_t used = strlen(out);
		snprintf(out + used, len - used, "%s%s%s", i ? ", " : "", instance_variant_name(&s->tf.variants[i]),
		         i == s->default_variant ? " (header default)" : "");
	}
}

static const char *base_of(const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s", path);
	size_t n = strlen(buf);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	const char *b = strrchr(buf, '/');
	return b ? b + 1 : buf;
}

int instance_select(const struct instance_set *s, const char *tree, const char *want, const char *const *defines,
                    int ndefines, int *chosen, char *dir_instance, size_t dlen, pq_error *err)
{
	*chosen = -1;
	dir_instance[0] = '\0';
	char bbuf[PATH_MAX];
	const char *dir = base_of(tree, bbuf, sizeof bbuf);
	int nv = s->tf.nvariants;
	/* The directory names an instance when it is one of the names the tree knows. */
	int dir_match = -1, dir_matches = 0;
	for (int i = 0; i < nv; i++)
		if (strcasecmp(instance_variant_name(&s->tf.variants[i]), dir) == 0) {
			dir_match = i;
			dir_matches++;
		}
	if (dir_matches == 1 && s->tf.variants[dir_match].name[0])
		snprintf(dir_instance, dlen, "%s", s->tf.variants[dir_match].name);
	else if (nv == 0 && s->default_name[0] && strcasecmp(s->default_name, dir) == 0)
		snprintf(dir_instance, dlen, "%s", s->default_name);
	/* Switches given by hand that set a selecting macro: the user has chosen. */
	int by_hand = 0;
	for (int i = 0; i < nv && !by_hand; i++)
		for (int k = 0; k < s->tf.variants[i].defines.n && !by_hand; k++) {
			char mac[128];
			define_macro_name(s->tf.variants[i].defines.v[k].flag, mac, sizeof mac);
			for (int j = 0; j < ndefines && !by_hand; j++) {
				size_t ml = strlen(mac);
				by_hand = strncmp(defines[j], mac, ml) == 0 && (defines[j][ml] == '=' || defines[j][ml] == '\0');
			}
		}
	char choices[2048];
	instance_choices(s, choices, sizeof choices);
	const char *where = nv ? s->tf.variants[0].origin : "";
	if (want && by_hand)
		return pq_fail(err, PQ_EUSAGE, "%s: --instance %s and -D switches that select an instance (%s) both given; "
		               "give one of them", tree, want, where);
	if (by_hand)
		return 0;
	if (want) {
		for (int i = 0; i < nv; i++)
			if (strcmp(instance_variant_name(&s->tf.variants[i]), want) == 0) {
				*chosen = i;
				return 0;
			}
		if (nv == 0) {
			if (s->default_name[0] && strcmp(s->default_name, want) == 0)
				return 0;
			return pq_fail(err, PQ_EUSAGE, "%s: --instance %s: the tree selects no instances by -D switches; it builds %s",
			               tree, want, s->default_name[0] ? s->default_name : "one instance (its header names none)");
		}
		return pq_fail(err, PQ_EUSAGE, "%s: no instance '%s'; the tree builds (%s): %s", tree, want, where, choices);
	}
	if (nv == 0)
		return 0;
	if (dir_matches == 1) {
		*chosen = dir_match;
		return 0;
	}
	if (nv == 1) {
		*chosen = 0;
		return 0;
	}
	return pq_fail(err, PQ_EUSAGE,
	               "%s: one source set serves %d instances selected by -D switches (%s), and the directory name "
	               "does not say which: choose one with --instance NAME: %s",
	               tree, nv, where, choices);
}

int instance_name_check(const char *tree, const char *reported, const char *expected, const char *dir_instance,
                        pq_error *err)
{
	if (!reported)
		return 0;
	if (dir_instance && dir_instance[0] && strcmp(dir_instance, reported) != 0)
		return pq_fail(err, PQ_EINPUT,
		               "%s: the directory names instance %s, but the library built reports instance %s "
		               "(check the -D switches or --instance)", tree, dir_instance, reported);
	if (expected && expected[0] && strcmp(expected, reported) != 0)
		return pq_fail(err, PQ_EINPUT, "%s: instance %s was asked for, but the library built reports instance %s",
		               tree, expected, reported);
	return 0;
}
