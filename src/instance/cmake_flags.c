/*
 * cmake_flags: the compile flags a tree's CMakeLists.txt asks for, read
 * without running cmake (see tree_flags.h).  Reads set() and
 * string(APPEND) of variables with ${VAR} expansion, and the commands
 * that add compile options, definitions and include directories.
 * Conditions are not evaluated: every branch is read, and the kept flags
 * go through the same filter as the Makefile's.
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

#define CM_MAX_BYTES (4u << 20)

struct cm_var {
	char name[128];
	struct flag_list words;
};

struct cm {
	struct cm_var *vars;
	int nvars;
	size_t cap;
	const char *root;
	const char *dir;       /* the CMakeLists.txt directory */
	struct flag_list out;  /* candidate flags with origins */
};

static struct cm_var *cm_var(struct cm *c, const char *name, int create)
{
	for (int i = 0; i < c->nvars; i++)
		if (strcmp(c->vars[i].name, name) == 0)
			return &c->vars[i];
	if (!create || pq_grow(&c->vars, &c->cap, (size_t)c->nvars + 1, sizeof *c->vars, 16) < 0)
		return NULL;
	struct cm_var *v = &c->vars[c->nvars++];
	memset(v, 0, sizeof *v);
	snprintf(v->name, sizeof v->name, "%s", name);
	return v;
}

/* ${VAR} expansion (nested), generator expressions $<...> dropped. */
static void cm_expand(struct cm *c, const char *in, char *out, size_t len, int depth)
{
	size_t k = 0;
	for (const char *p = in; *p && k + 1 < len;) {
		if (p[0] == '$' && (p[1] == '{' || p[1] == '<')) {
			char open = p[1], close = open == '{' ? '}' : '>';
			int d = 1;
			const char *e = p + 2;
			for (; *e && d; e++) {
				if (*e == open)
					d++;
				else if (*e == close)
					d--;
			}
			if (open == '{' && depth < 16) {
				char name[256], en[256];
				snprintf(name, sizeof name, "%.*s", (int)(e - p - 3), p + 2);
				cm_expand(c, name, en, sizeof en, depth + 1);
				const char *val = NULL;
				char buf[4096] = "";
				if (strcmp(en, "CMAKE_CURRENT_SOURCE_DIR") == 0 || strcmp(en, "CMAKE_SOURCE_DIR") == 0 ||
				    strcmp(en, "PROJECT_SOURCE_DIR") == 0) {
					val = c->dir;
				} else {
					struct cm_var *v = cm_var(c, en, 0);
					for (int i = 0; v && i < v->words.n; i++) {
						size_t bl = strlen(buf);
						snprintf(buf + bl, sizeof buf - bl, "%s%s", bl ? " " : "", v->words.v[i].flag);
					}
					val = buf;
				}
				k += (size_t)snprintf(out + k, len - k, "%s", val);
				if (k >= len)
					k = len - 1;
			}
			p = e;
		} else {
			out[k++] = *p++;
		}
	}
	out[k] = '\0';
}

/* Parse the arguments of one command into expanded words (quoted args stay whole). */
static int cm_args(struct cm *c, const char *s, size_t n, char ***words, int *nw)
{
	*words = NULL;
	*nw = 0;
	size_t cap = 0;
	size_t i = 0;
	while (i < n) {
		while (i < n && isspace((unsigned char)s[i]))
			i++;
		if (i >= n)
			break;
		char raw[4096];
		size_t k = 0;
		int quoted = 0;
		if (s[i] == '"') {
			quoted = 1;
			for (i++; i < n && s[i] != '"'; i++) {
				if (s[i] == '\\' && i + 1 < n)
					i++;
				if (k + 1 < sizeof raw)
					raw[k++] = s[i];
			}
			i++;
		} else {
			while (i < n && !isspace((unsigned char)s[i])) {
				if (k + 1 < sizeof raw)
					raw[k++] = s[i];
				i++;
			}
		}
		raw[k] = '\0';
		char ex[8192];
		cm_expand(c, raw, ex, sizeof ex, 0);
		/* an unquoted argument is a list: split at ';' and spaces; a quoted one at spaces for flags */
		(void)quoted;
		char *save = NULL;
		for (char *t = strtok_r(ex, quoted ? " \t\n" : " \t\n;", &save); t; t = strtok_r(NULL, quoted ? " \t\n" : " \t\n;", &save)) {
			if (pq_grow(words, &cap, (size_t)*nw + 1, sizeof **words, 8) < 0)
				return -1;
			(*words)[(*nw)++] = strdup(t);
		}
	}
	return 0;
}

static void free_v(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int is_scope(const char *w)
{
	return strcmp(w, "PRIVATE") == 0 || strcmp(w, "PUBLIC") == 0 || strcmp(w, "INTERFACE") == 0 ||
	       strcmp(w, "BEFORE") == 0 || strcmp(w, "AFTER") == 0 || strcmp(w, "SYSTEM") == 0;
}

static int test_target(const char *t)
{
	static const char *const words[] = { "test", "bench", "speed", "debug", "sanit", NULL };
	for (int i = 0; words[i]; i++)
		if (strcasestr(t, words[i]))
			return 1;
	return 0;
}

static int cm_command(struct cm *c, const char *cmd, char **a, int na, const char *origin)
{
	int r = 0;
	if ((strcasecmp(cmd, "set") == 0 && na >= 1) || (strcasecmp(cmd, "string") == 0 && na >= 2 &&
	                                                 strcmp(a[0], "APPEND") == 0)) {
		int app = strcasecmp(cmd, "string") == 0;
		const char *name = app ? a[1] : a[0];
		struct cm_var *v = cm_var(c, name, 1);
		if (!v)
			return -1;
		struct flag_list nw = { 0 };
		for (int i = app ? 0 : 1; app && i < v->words.n && r == 0; i++)
			r = flag_list_add(&nw, v->words.v[i].flag, v->words.v[i].origin);
		for (int i = app ? 2 : 1; i < na && r == 0; i++) {
			if (!app && (strcmp(a[i], "CACHE") == 0 || strcmp(a[i], "PARENT_SCOPE") == 0))
				break;
			/* a word the variable had already keeps where it was first written */
			const char *o = origin;
			for (int k = 0; k < v->words.n; k++)
				if (strcmp(v->words.v[k].flag, a[i]) == 0)
					o = v->words.v[k].origin;
			r = flag_list_add(&nw, a[i], o);
		}
		flag_list_free(&v->words);
		v->words = nw;
		return r;
	}
	int start = -1;
	int defs = 0, incs = 0;
	if (strcasecmp(cmd, "add_compile_options") == 0 || strcasecmp(cmd, "add_definitions") == 0)
		start = 0;
	else if (strcasecmp(cmd, "add_compile_definitions") == 0)
		start = 0, defs = 1;
	else if (strcasecmp(cmd, "include_directories") == 0)
		start = 0, incs = 1;
	else if ((strcasecmp(cmd, "target_compile_options") == 0 || strcasecmp(cmd, "target_compile_definitions") == 0 ||
	          strcasecmp(cmd, "target_include_directories") == 0) && na >= 1 && !test_target(a[0])) {
		start = 1;
		defs = strcasecmp(cmd, "target_compile_definitions") == 0;
		incs = strcasecmp(cmd, "target_include_directories") == 0;
	}
	for (int i = start < 0 ? na : start; i < na && r == 0; i++) {
		if (is_scope(a[i]))
			continue;
		char f[4200];
		if (defs && strncmp(a[i], "-D", 2) != 0)
			snprintf(f, sizeof f, "-D%s", a[i]);
		else if (incs)
			snprintf(f, sizeof f, "-I%s", a[i]);
		else
			snprintf(f, sizeof f, "%s", a[i]);
		r = flag_list_add(&c->out, f, origin);
	}
	return r;
}

int tree_flags_read_cmake(const char *root, const char *path, struct tree_flags *out, pq_error *err)
{
	char real_root[PATH_MAX], dir[PATH_MAX];
	if (!realpath(root, real_root))
		return pq_fail_errno(err, PQ_EINPUT, "%s", root);
	if (!realpath(path, dir))
		return pq_fail_errno(err, PQ_EINPUT, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	char *text = NULL;
	int r = read_whole_file(path, &text, NULL, CM_MAX_BYTES, err);
	if (r < 0)
		return r;
	size_t rl = strlen(real_root);
	const char *rel = strncmp(dir, real_root, rl) == 0 && dir[rl] == '/' ? dir + rl + 1 : "";
	char relfile[PATH_MAX];
	snprintf(relfile, sizeof relfile, "%s%sCMakeLists.txt", rel, rel[0] ? "/" : "");
	size_t fl = strlen(out->files);
	snprintf(out->files + fl, sizeof out->files - fl, "%s%s", fl ? ", " : "", relfile);
	struct cm c = { .root = real_root, .dir = dir };
	int line = 1;
	for (const char *p = text; *p && r == 0;) {
		if (*p == '#') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (*p == '\n') {
			line++;
			p++;
			continue;
		}
		if (!(isalpha((unsigned char)*p) || *p == '_')) {
			p++;
			continue;
		}
		const char *s = p;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		char cmd[64];
		snprintf(cmd, sizeof cmd, "%.*s", (int)(p - s), s);
		const char *q = p;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '(')
			continue;
		int cmd_line = line;
		const char *a = q + 1, *e = a;
		int depth = 1, inq = 0;
		for (; *e && depth; e++) {
			if (*e == '\n')
				line++;
			if (*e == '"' && e[-1] != '\\')
				inq = !inq;
			else if (!inq && *e == '(')
				depth++;
			else if (!inq && *e == ')')
				depth--;
		}
		size_t alen = (size_t)(e - a) - (depth == 0);
		/* comments inside the argument list */
		char *args = strndup(a, alen);
		for (char *h = args; h && *h; h++)
			if (*h == '#')
				while (*h && *h != '\n')
					*h++ = ' ';
		char **w;
		int nw;
		char origin[300];
		snprintf(origin, sizeof origin, "%.240s:%d", relfile, cmd_line);
		if (args && cm_args(&c, args, strlen(args), &w, &nw) == 0) {
			r = cm_command(&c, cmd, w, nw, origin);
			free_v(w, nw);
		}
		free(args);
		p = e;
	}
	free(text);
	/* CMAKE_C_FLAGS applies to every C file (and CMAKE_ASM_FLAGS to assembly). */
	static const char *const global[] = { "CMAKE_C_FLAGS", "CMAKE_ASM_FLAGS", NULL };
	for (int g = 0; global[g] && r == 0; g++) {
		struct cm_var *v = cm_var(&c, global[g], 0);
		for (int i = 0; v && i < v->words.n && r == 0; i++)
			r = flag_list_add(&c.out, v->words.v[i].flag, v->words.v[i].origin);
	}
	/* The same filter as the Makefile's (relative -I against the CMakeLists.txt directory). */
	for (int i = 0; i < c.out.n && r == 0; i++) {
		const char *f = c.out.v[i].flag;
		int kind = tree_flag_kind(f);
		if (kind == 0)
			continue;
		char buf[PATH_MAX + 8];
		if (strncmp(f, "-I", 2) == 0) {
			char pth[PATH_MAX], real[PATH_MAX];
			if (path_fmt(pth, sizeof pth, NULL, "%s%s%s", f[2] == '/' ? "" : dir, f[2] == '/' ? "" : "/", f + 2) < 0 ||
			    !realpath(pth, real)) {
				char why[320];
				snprintf(why, sizeof why, "%s (no such directory)", c.out.v[i].origin);
				r = flag_list_add(&out->info, f, why);
				continue;
			}
			if (strcmp(real, real_root) == 0)
				continue;
			if (strncmp(real, real_root, rl) != 0 || real[rl] != '/') {
				char why[320];
				snprintf(why, sizeof why, "%s (outside the tree, not used)", c.out.v[i].origin);
				r = flag_list_add(&out->info, f, why);
				continue;
			}
			snprintf(buf, sizeof buf, "-I%s", real + rl + 1);
			f = buf;
		}
		struct flag_list *dst = kind == 1 ? &out->flags : &out->info;
		int dup = 0;
		for (int k = 0; k < dst->n && !dup; k++)
			dup = strcmp(dst->v[k].flag, f) == 0;
		if (!dup)
			r = flag_list_add(dst, f, c.out.v[i].origin);
	}
	for (int i = 0; i < c.nvars; i++)
		flag_list_free(&c.vars[i].words);
	free(c.vars);
	flag_list_free(&c.out);
	if (r < 0 && err && !err->code)
		pq_fail(err, PQ_ENOMEM, "out of memory");
	return r < 0 ? -PQ_ENOMEM : 0;
}
