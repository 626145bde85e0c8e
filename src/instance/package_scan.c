/* package_scan: instances, implementation versions and KAT files of a package; see package_scan.h. */
#include "config.h"
#include "instance/package_scan.h"
#include "instance/builder.h"
#include "instance/kat_drivers.h"
#include "instance/observe.h"
#include "instance/tree_scan.h"
#include "core/atomic_file.h"
#include "core/digest.h"
#include "core/fixed_str.h"
#include "core/path_name.h"
#include "core/text_buf.h"
#include "kat/kat_file.h"
#include "kat/kat_flow.h"
#include "kat/kat_locate.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_KAT_FILES 512
#define MAX_TREES (2 * PKG_MAX_INSTANCES)
#define WALK_DEPTH 5     /* package -> implementation trees (Reference_Implementation/<variant>/crypto_sign/<name>) */
#define LOOK_DEPTH 3     /* a tree's own folders searched for its KAT driver or API header */
#define NEST_BUDGET 2    /* how many levels of trees inside trees are told apart */
#define KAT_DEPTH 6
#define TREE_KAT_DEPTH 4
#define OWN_KAT_TIMEOUT_S 120.0

struct kat_file_ref {
	char rel[1024];             /* relative to the package */
	char dir[256];              /* name of the folder holding it */
	char base[256];
	int used;
};

/* An implementation tree the walk found, and what it is called. */
struct found_tree {
	char rel[1024];             /* relative to the package */
	char version[64];           /* implementation version (label) */
	char dirname[256];          /* the directory that names the instance */
	char folder[1024];          /* Reference_Implementation ..., or "" when found by content alone */
	char why[320];              /* what made it a tree */
	int rank;                   /* reference, optimized, additional, other */
};

/* Files whose first record starts a generator's seed sequence (kat_locate_all). */
struct vector_set {
	struct kat_candidate *v;
	int n;
	int *used;
};

struct pkg_state {
	struct pkg_scan *ps;
	const char *within;
	struct kat_file_ref *kats;
	int nkats;
	char kat_dirs[16][1024];    /* relative to the package */
	int nkat_dirs;
	struct found_tree *trees;
	int ntrees;
	struct vector_set vec[2];   /* [0] NGCC, [1] NIST */
};

/* in->kat_why, which is fixed: a text too long ends in "…". */
#define KAT_WHY_MORE ", \u2026"
static void kat_why_set(struct pkg_instance *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void kat_why_set(struct pkg_instance *in, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int want = vsnprintf(in->kat_why, sizeof in->kat_why, fmt, ap);
	va_end(ap);
	if (want >= (int)sizeof in->kat_why)
		text_mark_cut(in->kat_why, sizeof in->kat_why);
}

/* Room in kat_why for a list after a head of `head` bytes and before the advice to set "vectors". */
static size_t kat_why_room(int head)
{
	size_t fixed = (size_t)(head > 0 ? head : 0) + sizeof "); set \"vectors\" in the descriptor";
	size_t len = sizeof ((struct pkg_instance *)0)->kat_why;
	return fixed + 8 < len ? len - fixed : 8;
}

static void note(struct pkg_scan *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct pkg_scan *ps, const char *fmt, ...)
{
	if (ps->nnotes >= PKG_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->notes[ps->nnotes++], PKG_NOTE_LEN, fmt, ap);
	va_end(ap);
}

/* The folder being scanned (package_scan sets it): a link out of it is neither a directory nor a file here. */
static const char *walk_root;

static int is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && (!walk_root || path_inside_tree(p, walk_root));
}

static int is_file(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && (!walk_root || path_inside_tree(p, walk_root));
}

static int visible_dir(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

/* Sorted subdirectories (and files) of dir; NULL on error.  Free each entry and the list. */
static int list_dir(const char *dir, struct dirent ***out)
{
	return scandir(dir, out, visible_dir, alphasort);
}

static void free_list(struct dirent **l, int n)
{
	for (int i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

/* "Reference Implementation" and "reference-implementations" read alike. */
static void norm_name(const char *in, char *out, size_t len)
{
	size_t k = 0;
	for (; *in && k + 1 < len; in++)
		out[k++] = *in == ' ' || *in == '-' ? '_' : (char)tolower((unsigned char)*in);
	out[k] = '\0';
}

/* The implementation version a classic implementation folder stands for, or NULL (labels only). */
static const char *impl_version(const char *name)
{
	char n[256];
	norm_name(name, n, sizeof n);
	if (strncmp(n, "reference_implementation", 24) == 0)
		return "reference";
	if (strncmp(n, "optimized_implementation", 24) == 0 || strncmp(n, "optimised_implementation", 24) == 0)
		return "optimized";
	if (strncmp(n, "additional_implementation", 25) == 0)
		return "additional";
	return NULL;
}

static int is_kat_name(const char *base)
{
	size_t n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".txt") == 0)
		return strncmp(base, "KAT_SIG_", 8) == 0 || strncmp(base, "KAT_KEM_", 8) == 0;
	if (n > 4 && strcmp(base + n - 4, ".rsp") == 0)
		return strncmp(base, "PQCsignKAT_", 11) == 0 || strncmp(base, "PQCkemKAT_", 10) == 0;
	return 0;
}

/* ---------------- implementation trees, by what they hold ---------------- */

static const char *const api_headers[] = { "SIG_AlgorithmInstance.h", "KEM_AlgorithmInstance.h", "api.h", NULL };

/* An API header, or (template 1) the .h.in a build configures one from. */
static int is_api_header(const char *base, int *template)
{
	size_t n = strlen(base);
	for (int i = 0; api_headers[i]; i++) {
		size_t h = strlen(api_headers[i]);
		if (strcmp(base, api_headers[i]) == 0 || (n == h + 3 && strncmp(base, api_headers[i], h) == 0 &&
		                                          strcmp(base + h, ".in") == 0)) {
			*template = n != h;
			return 1;
		}
	}
	return 0;
}

static int is_source(const char *base)
{
	const char *dot = strrchr(base, '.');
	return dot && (strcmp(dot, ".c") == 0 || strcmp(dot, ".cpp") == 0 || strcmp(dot, ".cc") == 0 ||
	               strcmp(dot, ".cxx") == 0);
}

/* Folders that are never part of what a submitter wrote: hidden ones, build outputs. */
static int skipped_dir(const char *dir, const char *base)
{
	if (base[0] == '.' || strcmp(base, "build") == 0 || strcmp(base, "_build") == 0 ||
	    strncmp(base, "build-", 6) == 0 || strncmp(base, "build_", 6) == 0 || strncmp(base, "cmake-build-", 12) == 0 ||
	    strcmp(base, "CMakeFiles") == 0 || strcmp(base, "__pycache__") == 0)
		return 1;
	char p[PATH_MAX];
	return dir_has_file(dir, "CMakeCache.txt") ||
	       (path_fmt(p, sizeof p, NULL, "%s/meson-private", dir) == 0 && is_dir(p));
}

/* Does text call project(...)?  (CMake and meson alike; case aside, blanks allowed.) */
static int declares_project(const char *path)
{
	char *text = NULL;
	if (read_whole_file(path, &text, NULL, 1u << 20, NULL) < 0)
		return 0;
	int found = 0;
	for (char *p = text; *p && !found; p++) {
		if (strncasecmp(p, "project", 7) != 0 || (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
			continue;
		const char *q = p + 7;
		while (*q == ' ' || *q == '\t')
			q++;
		found = *q == '(';
	}
	free(text);
	return found;
}

/*
 * The build file that builds dir on its own, into out ("" when none): a
 * makefile, or a CMakeLists.txt / meson.build that declares a project or
 * has no parent of its kind (else it is a piece of its parent's build,
 * add_subdirectory / subdir()).
 */
static void own_build_file(const char *dir, char *out, size_t len)
{
	static const char *const makefiles[] = { "GNUmakefile", "makefile", "Makefile", NULL };
	static const char *const projects[] = { "CMakeLists.txt", "meson.build", NULL };
	out[0] = '\0';
	for (int i = 0; makefiles[i]; i++)
		if (dir_has_file(dir, makefiles[i])) {
			snprintf(out, len, "%s", makefiles[i]);
			return;
		}
	char parent[PATH_MAX], p[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", dir);
	char *slash = strrchr(parent, '/');
	if (slash)
		*slash = '\0';
	for (int i = 0; projects[i]; i++)
		if (dir_has_file(dir, projects[i]) && path_fmt(p, sizeof p, NULL, "%s/%s", dir, projects[i]) == 0 &&
		    (declares_project(p) || !slash || !dir_has_file(parent, projects[i]))) {
			snprintf(out, len, "%s", projects[i]);
			return;
		}
}

/* What a directory holds, as an implementation tree. */
struct tree_look {
	char build[32];             /* its own build file, or "" */
	char header[64];            /* the first API header in it or below (outside nested trees), or "" */
	char driver[64];            /* likewise its KAT driver */
	int header_here;            /* an API header (not a template) directly in it */
	int sources_here;           /* C sources directly in it */
	int nested;                 /* complete trees below it */
};

static void tree_look(const char *dir, int budget, struct tree_look *tl);

/* A build file, with a KAT driver or an API header of its own or trees of its own below it. */
static int tree_complete(const struct tree_look *tl)
{
	return tl->build[0] && (tl->header[0] || tl->driver[0] || tl->nested);
}

/* An API header beside C sources, with no build file: pqprof compiles the sources itself. */
static int tree_sources_only(const struct tree_look *tl)
{
	return !tl->build[0] && tl->header_here && tl->sources_here;
}

static void look_in(const char *dir, int depth, int budget, struct tree_look *tl)
{
	struct dirent **l;
	int n = list_dir(dir, &l);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		char p[PATH_MAX];
		const char *b = l[i]->d_name;
		int template = 0;
		if (path_fmt(p, sizeof p, NULL, "%s/%s", dir, b) < 0)
			continue;
		if (is_file(p)) {
			if (is_api_header(b, &template)) {
				if (!tl->header[0])
					str_copy(tl->header, sizeof tl->header, b);
				tl->header_here |= depth == 0 && !template;
			} else if (kat_driver_is(b) && !tl->driver[0]) {
				str_copy(tl->driver, sizeof tl->driver, b);
			}
			tl->sources_here |= depth == 0 && is_source(b);
			continue;
		}
		if (depth >= LOOK_DEPTH || !is_dir(p) || skipped_dir(p, b))
			continue;
		if (budget > 0) {
			struct tree_look sub;
			tree_look(p, budget - 1, &sub);
			if (tree_complete(&sub)) {
				tl->nested++;
				continue;
			}
		}
		look_in(p, depth + 1, budget, tl);
	}
	free_list(l, n);
}

static void tree_look(const char *dir, int budget, struct tree_look *tl)
{
	memset(tl, 0, sizeof *tl);
	own_build_file(dir, tl->build, sizeof tl->build);
	look_in(dir, 0, budget, tl);
}

/*
 * Does a complete tree give way to the trees inside it?  Only when it has
 * no API header of its own (a folder whose makefile or CMake project
 * builds its subprojects): a tree with its header is one tree, whatever
 * its subfolders hold.
 */
static int tree_defers(const struct tree_look *tl)
{
	return tree_complete(tl) && !tl->header[0] && tl->nested > 0;
}

/*
 * The implementation version of the tree at rel: its classic folder's,
 * else its path's.  -1 when the label is longer than t->version holds:
 * it keeps the parts that fit whole, and the caller says so.
 */
static int tree_label(const char *root, const char *rel, struct found_tree *t)
{
	char buf[1024], *comp[64];
	int n = 0;
	snprintf(buf, sizeof buf, "%s", rel);
	for (char *save = NULL, *c = strtok_r(buf, "/", &save); c && n < 64; c = strtok_r(NULL, "/", &save))
		comp[n++] = c;
	int at = -1;
	for (int i = 0; i < n && at < 0; i++)
		if (impl_version(comp[i]))
			at = i;
	const char *base = at >= 0 ? impl_version(comp[at]) : NULL;
	t->rank = !base ? 3 : strcmp(base, "reference") == 0 ? 0 : strcmp(base, "optimized") == 0 ? 1 : 2;
	int cut = 0;
	snprintf(t->version, sizeof t->version, "%s", base ? base : "");
	/* Classic: the variant folders between the implementation folder and the instance's own. */
	for (int i = at >= 0 ? at + 1 : 0; i < (at >= 0 ? n - 1 : n) && !cut; i++) {
		if (strcmp(comp[i], "crypto_sign") == 0 || strcmp(comp[i], "crypto_kem") == 0)
			continue;
		char c[256];
		norm_name(comp[i], c, sizeof c);
		/* A label is a file-name part and a descriptor value: letters, digits and '_' only, '-' between parts. */
		for (char *q = c; *q; q++)
			if (!isalnum((unsigned char)*q) && *q != '_')
				*q = '_';
		cut = text_add_item(t->version, sizeof t->version, "-", c, "");
	}
	/* The first parts of rel, which fits the same 1024 bytes: cannot be cut. */
	t->folder[0] = '\0';
	for (int i = 0; i <= at; i++)
		text_appendf(t->folder, sizeof t->folder, "%s%s", i ? "/" : "", comp[i]);
	/* The implementation folder itself is the tree: the package names it. */
	const char *dir = at == n - 1 ? path_base(root) : comp[n - 1];
	str_copy(t->dirname, sizeof t->dirname, dir);
	return cut ? -1 : 0;
}

static void add_tree(struct pkg_state *st, const char *rel, const struct tree_look *tl)
{
	if (st->ntrees >= MAX_TREES) {
		note(st->ps, "skipped %s: more than %d implementation trees", rel, MAX_TREES);
		return;
	}
	struct found_tree *t = &st->trees[st->ntrees++];
	memset(t, 0, sizeof *t);
	snprintf(t->rel, sizeof t->rel, "%s", rel);
	if (tree_label(st->ps->root, rel, t) < 0)
		note(st->ps, "%s: implementation label longer than %zu bytes, kept as %s", rel, sizeof t->version - 1,
		     t->version);
	if (tl->build[0])
		snprintf(t->why, sizeof t->why, "%s with %s%s%s", tl->build, tl->header[0] ? tl->header : tl->driver,
		         tl->header[0] && tl->driver[0] ? " and " : "", tl->header[0] ? tl->driver : "");
	else
		snprintf(t->why, sizeof t->why, "%s beside its sources, no build file", tl->header[0] ? tl->header : "api.h");
}

/* Is rel inside a classic implementation folder (for the wording of what was passed over)? */
static int under_classic(const char *rel)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", rel);
	char *last = strrchr(buf, '/');
	if (!last)
		return 0;
	*last = '\0';
	for (char *save = NULL, *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save))
		if (impl_version(c))
			return 1;
	return 0;
}

/*
 * The trees below rel ("" is the package), found by what they hold;
 * returns how many.  With st NULL they are only counted.  A tree is not
 * searched for trees inside it unless it defers to them (tree_defers).
 */
static int find_trees(struct pkg_state *st, const char *root, const char *rel, int depth)
{
	char abs[PATH_MAX];
	if (path_fmt(abs, sizeof abs, NULL, "%s%s%s", root, rel[0] ? "/" : "", rel) < 0)
		return 0;
	struct dirent **l;
	int n = list_dir(abs, &l);
	if (n < 0)
		return 0;
	int found = 0;
	for (int i = 0; i < n; i++) {
		char r[1024], p[PATH_MAX];
		if (path_fmt(r, sizeof r, NULL, "%s%s%s", rel, rel[0] ? "/" : "", l[i]->d_name) < 0 ||
		    path_fmt(p, sizeof p, NULL, "%s/%s", root, r) < 0 || !is_dir(p) || skipped_dir(p, l[i]->d_name))
			continue;
		struct tree_look tl;
		tree_look(p, NEST_BUDGET, &tl);
		int below = 0;
		if (tree_complete(&tl) || tree_sources_only(&tl)) {
			if (tree_defers(&tl) && depth + 1 < WALK_DEPTH)
				below = find_trees(st, root, r, depth + 1);
			if (!below) {
				if (st)
					add_tree(st, r, &tl);
				below = 1;
			}
		} else if (depth + 1 < WALK_DEPTH) {
			below = find_trees(st, root, r, depth + 1);
			if (!below && st && under_classic(r))
				note(st->ps, "skipped %s: no SIG_AlgorithmInstance.h, KEM_AlgorithmInstance.h or api.h in it or "
				     "below (nor a build file with a KAT driver)", r);
		}
		found += below;
	}
	free_list(l, n);
	return found;
}

/*
 * How the directory itself reads: 1 when it is one tree (so not a
 * package, whatever is below it), else 0; *count gets the number of
 * trees below it.
 */
static int dir_is_one_tree(const char *dir, int *count)
{
	struct tree_look tl;
	tree_look(dir, NEST_BUDGET, &tl);
	*count = find_trees(NULL, dir, "", 0);
	if (tree_sources_only(&tl))
		return 1;
	if (tree_complete(&tl))
		return !(tree_defers(&tl) && *count >= 2);
	return 0;
}

int package_is_package(const char *dir)
{
	int count = 0;
	return is_dir(dir) && !dir_is_one_tree(dir, &count) && count > 0;
}

int package_is_tree(const char *dir)
{
	int count = 0;
	return is_dir(dir) && dir_is_one_tree(dir, &count);
}

int package_classic_folder(const char *name)
{
	char n[256];
	norm_name(name, n, sizeof n);
	return impl_version(name) != NULL || strcmp(n, "crypto_sign") == 0 || strcmp(n, "crypto_kem") == 0 ||
	       strcmp(n, "kat") == 0 || strncmp(n, "kat_", 4) == 0 ||
	       strcmp(n, "known_answer_test_values") == 0 || strcmp(n, "test_vectors") == 0 ||
	       strcmp(n, "supporting_documentation") == 0;
}

int package_passed_over(const char *dir, const char *name)
{
	return skipped_dir(dir, name);
}

/* ---------------- KAT files ---------------- */

static int inside_tree(const struct pkg_state *st, const char *rel)
{
	for (int i = 0; i < st->ntrees; i++) {
		size_t n = strlen(st->trees[i].rel);
		if (strncmp(rel, st->trees[i].rel, n) == 0 && (rel[n] == '/' || rel[n] == '\0'))
			return 1;
	}
	return 0;
}

/* The folder a KAT file counts under: the package's top-level folder holding it ("." for the top level). */
static void add_kat_dir(struct pkg_state *st, const char *file_rel)
{
	char top[1024];
	const char *slash = strchr(file_rel, '/');
	snprintf(top, sizeof top, "%.*s", slash ? (int)(slash - file_rel) : 1, slash ? file_rel : ".");
	for (int i = 0; i < st->nkat_dirs; i++)
		if (strcmp(st->kat_dirs[i], top) == 0)
			return;
	if (st->nkat_dirs < 16) {
		snprintf(st->kat_dirs[st->nkat_dirs++], 1024, "%s", top);
		note(st->ps, "KAT folder %s/", top);
	}
}

/* Files with the official generators' names, anywhere outside the implementation trees. */
static void collect_kats(struct pkg_state *st, const char *rel, int depth)
{
	char abs[PATH_MAX];
	if (path_fmt(abs, sizeof abs, NULL, "%s%s%s", st->ps->root, rel[0] ? "/" : "", rel) < 0)
		return;
	struct dirent **l;
	int n = list_dir(abs, &l);
	if (n < 0)
		return;
	const char *dirname = path_base(rel);
	for (int i = 0; i < n; i++) {
		char r[1024], p[PATH_MAX];
		if (path_fmt(r, sizeof r, NULL, "%s%s%s", rel, rel[0] ? "/" : "", l[i]->d_name) < 0 ||
		    path_fmt(p, sizeof p, NULL, "%s/%s", st->ps->root, r) < 0)
			continue;
		if (is_dir(p)) {
			if (depth < KAT_DEPTH && !skipped_dir(p, l[i]->d_name) && !inside_tree(st, r))
				collect_kats(st, r, depth + 1);
		} else if (is_file(p) && is_kat_name(l[i]->d_name) && st->nkats < MAX_KAT_FILES) {
			struct kat_file_ref *k = &st->kats[st->nkats++];
			snprintf(k->rel, sizeof k->rel, "%s", r);
			snprintf(k->dir, sizeof k->dir, "%s", dirname);
			snprintf(k->base, sizeof k->base, "%s", l[i]->d_name);
			add_kat_dir(st, r);
		}
	}
	free_list(l, n);
}

/* The package-relative path of an absolute one below the root, or NULL. */
static const char *rel_of(const struct pkg_state *st, const char *abs)
{
	size_t n = strlen(st->ps->root);
	return strncmp(abs, st->ps->root, n) == 0 && abs[n] == '/' ? abs + n + 1 : NULL;
}

/*
 * Every file in the package whose first record starts the NGCC or the NIST
 * seed sequence, whatever its name or folder (kat/kat_locate.h).
 */
static void collect_vectors(struct pkg_state *st)
{
	for (int nist = 0; nist < 2; nist++) {
		uint8_t seed[64];
		size_t seedlen = 0;
		struct vector_set *vs = &st->vec[nist];
		if (kat_flow_first_seed(nist, seed, &seedlen) < 0)
			continue;
		struct kat_want w = { .seed = seed, .seedlen = seedlen, .kem = -1 };
		vs->n = kat_locate_all(st->ps->root, &w, &vs->v);
		if (vs->n < 0)
			vs->n = 0;
		vs->used = calloc((size_t)vs->n + 1, sizeof *vs->used);
		for (int i = 0; i < vs->n; i++) {
			const char *r = rel_of(st, vs->v[i].path);
			if (r && !inside_tree(st, r))
				add_kat_dir(st, r);
		}
	}
}

static void free_vectors(struct pkg_state *st)
{
	for (int k = 0; k < 2; k++) {
		free(st->vec[k].v);
		free(st->vec[k].used);
	}
}

/* ---------------- headers ---------------- */

/* Remove C comments in place (string literals are left as they are). */
static void strip_comments(char *s)
{
	char *w = s;
	for (char *r = s; *r;) {
		if (r[0] == '/' && r[1] == '*') {
			char *e = strstr(r + 2, "*/");
			for (char *q = r; q < (e ? e : r + strlen(r)); q++)
				if (*q == '\n')
					*w++ = '\n';
			r = e ? e + 2 : r + strlen(r);
		} else if (r[0] == '/' && r[1] == '/') {
			while (*r && *r != '\n')
				r++;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

struct macro_def {
	char value[256];            /* the text after the name, trimmed */
	int line;
	int conditional;            /* inside an #if other than the include guard */
	int found;
};

/* The first definition of macro in a header (unconditional ones win). */
static void find_macro(const char *path, const char *macro, struct macro_def *out)
{
	memset(out, 0, sizeof *out);
	char *text = NULL;
	if (read_whole_file(path, &text, NULL, 1u << 20, NULL) < 0)
		return;
	strip_comments(text);
	int depth = 0, guard = 0, ndirectives = 0, line = 0;
	char guard_name[128] = "";
	struct macro_def cond = { .found = 0 };
	for (char *ln = text, *next; ln; ln = next) {
		next = strchr(ln, '\n');
		if (next)
			*next++ = '\0';
		line++;
		while (isspace((unsigned char)*ln))
			ln++;
		if (*ln != '#')
			continue;
		ln++;
		while (isspace((unsigned char)*ln))
			ln++;
		char word[16] = "", name[128] = "";
		int used = 0;
		if (sscanf(ln, "%15[a-z] %127[A-Za-z0-9_]%n", word, name, &used) < 1)
			continue;
		ndirectives++;
		if (strncmp(word, "if", 2) == 0) {
			depth++;
			if (ndirectives == 1 && strcmp(word, "ifndef") == 0)
				snprintf(guard_name, sizeof guard_name, "%s", name);
		} else if (strcmp(word, "endif") == 0) {
			depth--;
		} else if (strcmp(word, "define") == 0) {
			if (ndirectives == 2 && guard_name[0] && strcmp(name, guard_name) == 0)
				guard = 1;
			if (strcmp(name, macro) == 0) {
				struct macro_def d = { .line = line, .conditional = depth > guard, .found = 1 };
				const char *v = ln + used;
				while (isspace((unsigned char)*v))
					v++;
				snprintf(d.value, sizeof d.value, "%s", v);
				size_t n = strlen(d.value);
				while (n && isspace((unsigned char)d.value[n - 1]))
					d.value[--n] = '\0';
				if (!d.conditional) {
					*out = d;
					break;
				}
				if (!cond.found)
					cond = d;
			}
		}
	}
	free(text);
	if (!out->found && cond.found)
		*out = cond;
}

/* The string literal of a macro value, if it is one made of [A-Za-z0-9_-]. */
static int literal_name(const char *value, char *out, size_t len)
{
	size_t n = strlen(value);
	if (n < 3 || value[0] != '"' || value[n - 1] != '"' || n - 2 >= len)
		return 0;
	for (size_t i = 1; i + 1 < n; i++)
		if (!isalnum((unsigned char)value[i]) && value[i] != '_' && value[i] != '-')
			return 0;
	memcpy(out, value + 1, n - 2);
	out[n - 2] = '\0';
	return 1;
}

/* ---------------- one instance ---------------- */

/* The file `name` in dir exactly `depth` folders down (not in build outputs), into out. */
static int find_at_depth(const char *dir, const char *name, int depth, char *out, size_t len)
{
	if (depth == 0) {
		int found = dir_has_file(dir, name);
		if (found && path_fmt(out, len, NULL, "%s/%s", dir, name) < 0)
			return 0;
		return found;
	}
	struct dirent **l;
	int n = list_dir(dir, &l), found = 0;
	for (int i = 0; i < n && !found; i++) {
		char p[PATH_MAX];
		if (path_fmt(p, sizeof p, NULL, "%s/%s", dir, l[i]->d_name) == 0 && is_dir(p) && !skipped_dir(p, l[i]->d_name))
			found = find_at_depth(p, name, depth - 1, out, len);
	}
	if (n >= 0)
		free_list(l, n);
	return found;
}

/* An API header of the tree, nearest its top first (a CMake tree may keep it in include/); absolute path into out. */
static int tree_header(const char *tree, const char *name, char *out, size_t len)
{
	for (int d = 0; d <= LOOK_DEPTH; d++)
		if (find_at_depth(tree, name, d, out, len))
			return 1;
	return 0;
}

static void instance_name(struct pkg_instance *in, const char *dirname)
{
	str_copy(in->name, sizeof in->name, dirname);
	if (strcmp(in->api, "nist") == 0) {
		snprintf(in->name_why, sizeof in->name_why,
		         "the directory name (a NIST package names each instance's directory after it)");
		return;
	}
	const char *hdr = strcmp(in->kind, "kem") == 0 ? "KEM_AlgorithmInstance.h" : "SIG_AlgorithmInstance.h";
	char p[PATH_MAX], lit[128];
	struct macro_def d;
	if (!tree_header(in->tree, hdr, p, sizeof p))
		return;
	find_macro(p, "ALGORITHM_INSTANCE", &d);
	if (!d.found || !literal_name(d.value, lit, sizeof lit)) {
		snprintf(in->name_why, sizeof in->name_why,
		         "the directory name (%s defines no ALGORITHM_INSTANCE string%s%s)", hdr,
		         d.found ? "; its value is " : "", d.found ? d.value : "");
		return;
	}
	if (!d.conditional || strcmp(lit, dirname) == 0) {
		snprintf(in->name, sizeof in->name, "%s", lit);
		snprintf(in->name_why, sizeof in->name_why, "ALGORITHM_INSTANCE \"%s\" in %s line %d%s", lit, hdr, d.line,
		         d.conditional ? ", the default of a conditional definition, equal to the directory name" : "");
		return;
	}
	snprintf(in->name_why, sizeof in->name_why,
	         "the directory name; %s line %d defines ALGORITHM_INSTANCE \"%s\" only as a conditional default", hdr,
	         d.line, lit);
	snprintf(in->warning, sizeof in->warning,
	         "%s defaults ALGORITHM_INSTANCE to \"%s\", not the directory name %s: the tree may choose its "
	         "instance with -D switches; give them as \"defines\" in the descriptor",
	         hdr, lit, dirname);
}

/* A size api.h gives as a plain number (CRYPTO_SECRETKEYBYTES ...), or -1. */
static long api_size(const struct pkg_instance *in, const char *macro, int *line)
{
	char p[PATH_MAX];
	struct macro_def d;
	if (!tree_header(in->tree, "api.h", p, sizeof p))
		return -1;
	find_macro(p, macro, &d);
	char *end;
	long v = d.found ? strtol(d.value, &end, 10) : -1;
	if (!d.found || d.conditional || end == d.value || *end || v <= 0)
		return -1;
	if (line)
		*line = d.line;
	return v;
}

static int same_file_content(const struct pkg_state *st, const struct kat_file_ref *a, const struct kat_file_ref *b)
{
	char pa[PATH_MAX], pb[PATH_MAX], ha[SHA256_HEX_LEN + 1], hb[SHA256_HEX_LEN + 1];
	return path_fmt(pa, sizeof pa, NULL, "%s/%s", st->ps->root, a->rel) == 0 &&
	       path_fmt(pb, sizeof pb, NULL, "%s/%s", st->ps->root, b->rel) == 0 && sha256_file_hex(pa, ha, NULL) == 0 &&
	       sha256_file_hex(pb, hb, NULL) == 0 && strcmp(ha, hb) == 0;
}

static void kat_use(struct pkg_state *st, struct pkg_instance *in, struct kat_file_ref *k, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void kat_use(struct pkg_state *st, struct pkg_instance *in, struct kat_file_ref *k, const char *fmt, ...)
{
	in->kat = PKG_KAT_MATCHED;
	k->used = 1;
	snprintf(in->kat_rel, sizeof in->kat_rel, "%s", k->rel);
	if (path_fmt(in->vectors, sizeof in->vectors, NULL, "%s/%s", st->ps->root, k->rel) < 0)
		in->vectors[0] = '\0';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(in->kat_why, sizeof in->kat_why, fmt, ap);
	va_end(ap);
}

/* Pick among candidates: one, or identical copies, is a match; else ambiguous (listed). */
static int kat_pick(struct pkg_state *st, struct pkg_instance *in, int *idx, int n, const char *rule)
{
	if (n == 0)
		return 0;
	int same = 1;
	for (int i = 1; i < n; i++)
		same &= same_file_content(st, &st->kats[idx[0]], &st->kats[idx[i]]);
	if (same) {
		for (int i = 1; i < n; i++)
			st->kats[idx[i]].used = 1;
		if (n > 1)
			kat_use(st, in, &st->kats[idx[0]], "%s (%d identical copies; the first is used)", rule, n);
		else
			kat_use(st, in, &st->kats[idx[0]], "%s", rule);
		return 1;
	}
	in->kat = PKG_KAT_AMBIGUOUS;
	/* Whole file names, then ", …": the advice after them always has room. */
	char files[sizeof in->kat_why] = "";
	size_t room = kat_why_room(snprintf(NULL, 0, "ambiguous: %s matches %d different files (", rule, n));
	for (int i = 0; i < n; i++) {
		text_add_item(files, room, ", ", st->kats[idx[i]].rel, KAT_WHY_MORE);
		st->kats[idx[i]].used = 1;
	}
	kat_why_set(in, "ambiguous: %s matches %d different files (%s); set \"vectors\" in the descriptor", rule, n,
	            files);
	return 1;
}

/* A file named `base` inside the instance tree (what `pqprof kat` would find there). */
static int find_in_tree(const char *dir, const char *rel, const char *base, int depth, char *out, size_t len)
{
	char abs[PATH_MAX];
	if (path_fmt(abs, sizeof abs, NULL, "%s%s%s", dir, rel[0] ? "/" : "", rel) < 0)
		return 0;
	struct dirent **l;
	int n = list_dir(abs, &l);
	if (n < 0)
		return 0;
	int found = 0;
	for (int i = 0; i < n && !found; i++) {
		char r[1024], p[PATH_MAX];
		if (path_fmt(r, sizeof r, NULL, "%s%s%s", rel, rel[0] ? "/" : "", l[i]->d_name) < 0 ||
		    path_fmt(p, sizeof p, NULL, "%s/%s", dir, r) < 0)
			continue;
		if (strcmp(l[i]->d_name, base) == 0 && is_file(p))
			found = path_fmt(out, len, NULL, "%s", r) == 0;
		else if (depth < TREE_KAT_DEPTH && is_dir(p))
			found = find_in_tree(dir, r, base, depth + 1, out, len);
	}
	free_list(l, n);
	return found;
}

static void kat_in_tree(struct pkg_state *st, struct pkg_instance *in, const char *official, const char *looked)
{
	char rel[1024];
	if (official[0] && find_in_tree(in->tree, "", official, 0, rel, sizeof rel)) {
		in->kat = PKG_KAT_MATCHED;
		if (path_fmt(in->kat_rel, sizeof in->kat_rel, NULL, "%s/%s", in->rel, rel) < 0)
			in->kat_rel[0] = '\0';
		if (path_fmt(in->vectors, sizeof in->vectors, NULL, "%s/%s", in->tree, rel) < 0)
			in->vectors[0] = '\0';
		snprintf(in->kat_why, sizeof in->kat_why, "%s inside the instance tree (none in %s)", official, looked);
		return;
	}
	(void)st;
	in->kat = PKG_KAT_MISSING;
	snprintf(in->kat_why, sizeof in->kat_why, "none: no %s in %s or in the instance tree; the KAT verdict will be NOKAT",
	         official[0] ? official : "KAT file", looked);
}

static void match_kat_ngcc(struct pkg_state *st, struct pkg_instance *in, const char *dirname, const char *looked)
{
	const char *prefix = strcmp(in->kind, "kem") == 0 ? "KAT_KEM_" : "KAT_SIG_";
	char official[256];
	snprintf(official, sizeof official, "%s%s.txt", prefix, in->name);
	int idx[MAX_KAT_FILES], n = 0;
	for (int i = 0; i < st->nkats; i++)
		if (strcmp(st->kats[i].base, official) == 0)
			idx[n++] = i;
	char rule[512];
	snprintf(rule, sizeof rule, "the official name %s<ALGORITHM_INSTANCE>.txt", prefix);
	if (kat_pick(st, in, idx, n, rule))
		return;
	n = 0;
	for (int i = 0; i < st->nkats; i++)
		if ((strcmp(st->kats[i].dir, dirname) == 0 || strcmp(st->kats[i].dir, in->name) == 0) &&
		    strncmp(st->kats[i].base, prefix, 8) == 0)
			idx[n++] = i;
	snprintf(rule, sizeof rule, "the only %s*.txt in a KAT folder named after the instance (not %s)", prefix,
	         official);
	if (kat_pick(st, in, idx, n, rule))
		return;
	kat_in_tree(st, in, official, looked);
}

static void match_kat_nist(struct pkg_state *st, struct pkg_instance *in, const char *looked)
{
	const char *prefix = strcmp(in->kind, "kem") == 0 ? "PQCkemKAT_" : "PQCsignKAT_";
	size_t pl = strlen(prefix);
	int line = 0;
	long sk = api_size(in, "CRYPTO_SECRETKEYBYTES", &line);
	char by_sk[128] = "", by_name[300];
	if (sk > 0)
		snprintf(by_sk, sizeof by_sk, "%s%ld.rsp", prefix, sk);
	snprintf(by_name, sizeof by_name, "%s%s.rsp", prefix, in->name);
	int idx[MAX_KAT_FILES], n = 0, nsk = 0, isk[MAX_KAT_FILES];
	for (int i = 0; i < st->nkats; i++)
		if (strcmp(st->kats[i].dir, in->name) == 0 && strncmp(st->kats[i].base, prefix, pl) == 0) {
			idx[n++] = i;
			if (strcmp(st->kats[i].base, by_sk) == 0 || strcmp(st->kats[i].base, by_name) == 0)
				isk[nsk++] = i;
		}
	char rule[512];
	if (n == 1) {
		snprintf(rule, sizeof rule, "the only %s*.rsp in the KAT folder named after the instance", prefix);
		kat_pick(st, in, idx, n, rule);
		return;
	}
	if (n > 1 && nsk == 1) {
		snprintf(rule, sizeof rule, "in the KAT folder named after the instance, the file named after %s",
		         strcmp(st->kats[isk[0]].base, by_name) == 0 ? "the instance"
		                                                     : "CRYPTO_SECRETKEYBYTES in api.h");
		kat_pick(st, in, isk, 1, rule);
		for (int i = 0; i < n; i++)
			st->kats[idx[i]].used = 1;
		return;
	}
	if (n > 1) {
		snprintf(rule, sizeof rule, "the KAT folder named after the instance%s",
		         sk > 0 ? "" : " (api.h gives CRYPTO_SECRETKEYBYTES as no plain number)");
		kat_pick(st, in, idx, n, rule);
		return;
	}
	/* Flat KAT folders: files named after the secret-key size or the instance. */
	n = 0;
	for (int i = 0; i < st->nkats; i++)
		if ((by_sk[0] && strcmp(st->kats[i].base, by_sk) == 0) || strcmp(st->kats[i].base, by_name) == 0)
			idx[n++] = i;
	snprintf(rule, sizeof rule, "named %s (after %s)", n && strcmp(st->kats[idx[0]].base, by_name) == 0 ? by_name : by_sk,
	         n && strcmp(st->kats[idx[0]].base, by_name) == 0 ? "the instance" : "CRYPTO_SECRETKEYBYTES in api.h");
	if (kat_pick(st, in, idx, n, rule))
		return;
	kat_in_tree(st, in, by_sk[0] ? by_sk : by_name, looked);
}

static void detect_api(struct pkg_instance *in)
{
	char sig_h[PATH_MAX], kem_h[PATH_MAX], api_h[PATH_MAX];
	int sig = tree_header(in->tree, "SIG_AlgorithmInstance.h", sig_h, sizeof sig_h);
	int kem = !sig && tree_header(in->tree, "KEM_AlgorithmInstance.h", kem_h, sizeof kem_h);
	int api = tree_header(in->tree, "api.h", api_h, sizeof api_h) ||
	          tree_header(in->tree, "api.h.in", api_h, sizeof api_h);
	if (sig || kem) {
		const char *hdr = sig ? sig_h : kem_h;
		snprintf(in->api, sizeof in->api, "ngcc");
		snprintf(in->kind, sizeof in->kind, "%s", sig ? "signature" : "kem");
		snprintf(in->api_why, sizeof in->api_why, "NGCC %s API: %s%s", sig ? "signature" : "KEM",
		         hdr + strlen(in->tree) + 1, api ? " (api.h is there too: the NGCC API wins)" : "");
		return;
	}
	snprintf(in->api, sizeof in->api, "nist");
	char *text = NULL;
	const char *why = "";
	if (!api || read_whole_file(api_h, &text, NULL, 1u << 20, NULL) < 0)
		text = NULL;
	int is_kem = tree_nist_is_kem(in->tree, text, &why);
	free(text);
	snprintf(in->kind, sizeof in->kind, "%s", is_kem ? "kem" : "signature");
	snprintf(in->api_why, sizeof in->api_why, "NIST %s API: %s", is_kem ? "KEM" : "signature", why);
}

/* The KAT file of ps->inst[ps->ninst] (filled in), then count it. */
static void add_instance_kat(struct pkg_state *st, struct pkg_instance *in, const char *dirname)
{
	char looked[1200] = "";
	for (int i = 0; i < st->nkat_dirs; i++) {
		char dir[PATH_MAX + 1];
		snprintf(dir, sizeof dir, "%s/", st->kat_dirs[i]);
		text_add_item(looked, sizeof looked, ", ", dir, KAT_WHY_MORE);
	}
	if (!st->nkat_dirs)
		snprintf(looked, sizeof looked, "the package (no KAT file outside the implementation trees)");
	if (strcmp(in->api, "ngcc") == 0)
		match_kat_ngcc(st, in, dirname, looked);
	else
		match_kat_nist(st, in, looked);
	st->ps->ninst++;
}

static void add_instance(struct pkg_state *st, const char *rel, const char *dirname, const char *version)
{
	struct pkg_scan *ps = st->ps;
	if (ps->ninst >= PKG_MAX_INSTANCES) {
		note(ps, "skipped %s: more than %d instances", rel, PKG_MAX_INSTANCES);
		return;
	}
	struct pkg_instance *in = &ps->inst[ps->ninst];
	memset(in, 0, sizeof *in);
	snprintf(in->rel, sizeof in->rel, "%s", rel);
	snprintf(in->implementation, sizeof in->implementation, "%s", version);
	char p[PATH_MAX];
	if (path_fmt(p, sizeof p, NULL, "%s/%s", ps->root, rel) < 0 || !realpath(p, in->tree)) {
		note(ps, "skipped %s: cannot resolve its path", rel);
		return;
	}
	detect_api(in);
	instance_name(in, dirname);
	for (int i = 0; i < ps->ninst; i++)
		if (strcmp(ps->inst[i].name, in->name) == 0 && strcmp(ps->inst[i].implementation, version) == 0) {
			note(ps, "skipped %s: instance %s (%s) is already %s", rel, in->name, version, ps->inst[i].rel);
			return;
		}
	/* What `pqprof build` will say about the tree, now rather than after the other builds. */
	struct tree_scan ts;
	pq_error err = { 0 };
	enum tree_api want = strcmp(in->api, "ngcc") == 0 ? TREE_API_NGCC : TREE_API_NIST;
	if (tree_scan_dir_within(in->tree, st->within, 1, want, &ts, &err) < 0) {
		if (text_appendf(in->warning, sizeof in->warning, "%sthe build will fail: %s", in->warning[0] ? "; " : "",
		                 err.msg) < 0)
			text_mark_cut(in->warning, sizeof in->warning);
	} else {
		tree_scan_free(&ts);
	}
	/*
	 * One tree whose own build links several KAT programs (a level per
	 * CMake target or cache value, a shell loop over parameter sets): one
	 * instance each, unless the directory names one of them.
	 */
	const struct build_plan *bp = NULL;
	pq_error perr = { 0 };
	int expand = 0;
	if (observe_enabled() && (dir_has_file(in->tree, "Makefile") || dir_has_file(in->tree, "makefile") ||
	                          dir_has_file(in->tree, "GNUmakefile") || dir_has_file(in->tree, "CMakeLists.txt")) &&
	    instance_tree_plan(in->tree, st->within, NULL, &bp, &perr) == 0 && bp->observed && bp->ninst > 1) {
		expand = 1;
		for (int v = 0; v < bp->ninst; v++)
			if (plan_instance_matches(&bp->inst[v], dirname))
				expand = 0;
	}
	if (expand) {
		struct pkg_instance base = *in;
		for (int v = 0; v < bp->ninst && ps->ninst < PKG_MAX_INSTANCES; v++) {
			const struct plan_instance *pi = &bp->inst[v];
			struct pkg_instance *one = &ps->inst[ps->ninst];
			*one = base;
			/* The header's default no longer matters: the build names each instance. */
			const char *fail = strstr(base.warning, "the build will fail");
			snprintf(one->warning, sizeof one->warning, "%s", fail ? fail : "");
			plan_instance_unique_name(bp, v, one->name, sizeof one->name);
			snprintf(one->name_why, sizeof one->name_why,
			         "observed: the tree's own build (%.300s) links %.200s for it", bp->how, pi->program);
			add_instance_kat(st, one, one->name);
		}
		return;
	}
	add_instance_kat(st, in, dirname);
}

/* ---------------- KAT files by content ---------------- */

/* Lower-case letters and digits of s. */
static void squash(const char *s, char *out, size_t len)
{
	size_t k = 0;
	for (; *s && k + 1 < len; s++)
		if (isalnum((unsigned char)*s))
			out[k++] = (char)tolower((unsigned char)*s);
	out[k] = '\0';
}

static int squashed_in(const char *hay, const char *needle)
{
	char h[512], n[256];
	squash(hay, h, sizeof h);
	squash(needle, n, sizeof n);
	return n[0] && strstr(h, n) != NULL;
}

/*
 * What ties a vector file to an instance besides its first record: its
 * name line names the instance (4), its file name holds the instance's or
 * its tree's name (2), its folder is named after either (1).  The words
 * go to why.
 */
static int vector_ties(const struct kat_candidate *c, const struct pkg_instance *in, char *why, size_t len)
{
	const char *tree_dir = path_base(in->tree);
	char folder[PATH_MAX];
	snprintf(folder, sizeof folder, "%s", c->path);
	char *slash = strrchr(folder, '/');
	if (slash)
		*slash = '\0';
	int line = c->name_line[0] && kat_names_agree(c->name_line, in->name);
	int file = squashed_in(path_base(c->path), in->name) || squashed_in(path_base(c->path), tree_dir);
	int dir = kat_names_agree(path_base(folder), in->name) || kat_names_agree(path_base(folder), tree_dir);
	snprintf(why, len, "%s%s%s", line ? "; its name line names the instance" : "",
	         file ? "; its file name names the instance or its tree" : "",
	         dir ? "; its folder is named after the instance or its tree" : "");
	return 4 * line + 2 * file + dir;
}

/* The candidates of one instance: files of its flavour and kind (and sizes, where api.h states them). */
struct content_match {
	int want;                   /* this instance is still looking */
	int nist;
	int n;
	int *idx;                   /* into st->vec[nist] */
	int *ties;
	char sizes[128];            /* "signature records of 32-byte public keys", for the words */
};

static void content_candidates(struct pkg_state *st, const struct pkg_instance *in, struct content_match *m)
{
	m->nist = strcmp(in->api, "nist") == 0;
	const struct vector_set *vs = &st->vec[m->nist];
	int kem = strcmp(in->kind, "kem") == 0;
	long pk = api_size(in, "CRYPTO_PUBLICKEYBYTES", NULL), sk = api_size(in, "CRYPTO_SECRETKEYBYTES", NULL);
	m->idx = calloc((size_t)vs->n + 1, sizeof *m->idx);
	m->ties = calloc((size_t)vs->n + 1, sizeof *m->ties);
	if (!m->idx || !m->ties)
		return;
	/* Fixed words and two numbers: m->sizes always holds them. */
	snprintf(m->sizes, sizeof m->sizes, "%s records", kem ? "KEM" : "signature");
	if (pk > 0 || sk > 0)
		text_appendf(m->sizes, sizeof m->sizes, " with api.h's key sizes (%ld, %ld bytes)", pk, sk);
	for (int i = 0; i < vs->n; i++) {
		const struct kat_candidate *c = &vs->v[i];
		char why[256];
		if (vs->used[i] || c->kem != kem || (pk > 0 && c->pklen != (size_t)pk) || (sk > 0 && c->sklen != (size_t)sk))
			continue;
		m->ties[m->n] = vector_ties(c, in, why, sizeof why);
		m->idx[m->n++] = i;
	}
	m->want = 1;
}

static void vector_use(struct pkg_state *st, struct pkg_instance *in, struct content_match *m, int c,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void vector_use(struct pkg_state *st, struct pkg_instance *in, struct content_match *m, int c,
                       const char *fmt, ...)
{
	struct vector_set *vs = &st->vec[m->nist];
	const char *rel = rel_of(st, vs->v[c].path);
	in->kat = PKG_KAT_MATCHED;
	vs->used[c] = 1;
	m->want = 0;
	snprintf(in->vectors, sizeof in->vectors, "%s", vs->v[c].path);
	str_copy(in->kat_rel, sizeof in->kat_rel, rel ? rel : vs->v[c].path);
	for (int i = 0; i < st->nkats; i++)
		if (rel && strcmp(st->kats[i].rel, rel) == 0)
			st->kats[i].used = 1;
	char what[sizeof in->kat_why];
	va_list ap;
	va_start(ap, fmt);
	int cut = vsnprintf(what, sizeof what, fmt, ap) >= (int)sizeof what;
	va_end(ap);
	kat_why_set(in, "found by content: %s%s", what, cut ? "\u2026" : "");
}

static const char *sequence_name(int nist)
{
	return nist ? "the NIST seed sequence (PQCgenKAT)" : "the NGCC seed sequence (KAT_SIG/KAT_KEM)";
}

/* Candidates no other instance took meanwhile. */
static int still_free(const struct pkg_state *st, const struct content_match *m, int *out)
{
	int n = 0;
	for (int i = 0; i < m->n; i++)
		if (!st->vec[m->nist].used[m->idx[i]])
			out[n++] = m->idx[i];
	return n;
}

/*
 * The file whose first record holds the public key that the tree's own
 * KAT program (as its observed build linked it) derives from the first
 * seed: the only evidence that ties a file to an instance when names say
 * nothing.  Returns its index in st->vec[m->nist], or -1 with why set.
 */
static int own_program_pick(struct pkg_state *st, const struct pkg_instance *in, const struct content_match *m,
                            char *program, size_t plen, char *why, size_t len)
{
	const struct build_plan *bp = NULL;
	pq_error err = { 0 };
	if (!observe_enabled()) {
		snprintf(why, len, "observing the tree's build is off, so its own KAT program was not run");
		return -1;
	}
	if (instance_tree_plan(in->tree, st->within, NULL, &bp, &err) < 0 || !bp->observed) {
		snprintf(why, len, "its own KAT program was not run: the build was not observed (%.300s)",
		         bp ? bp->why : err.msg);
		return -1;
	}
	program[0] = '\0';
	for (int v = 0; v < bp->ninst && !program[0]; v++)
		if (bp->ninst == 1 || plan_instance_matches(&bp->inst[v], in->name))
			snprintf(program, plen, "%s", bp->inst[v].program);
	char dir[PATH_MAX];
	if (observe_run_kat_program(in->tree, in->name, OWN_KAT_TIMEOUT_S, dir, sizeof dir, &err) < 0) {
		snprintf(why, len, "its own KAT program did not run: %.300s", err.msg);
		return -1;
	}
	/* What it wrote: the file in its directory that starts the seed sequence. */
	uint8_t seed[64];
	size_t seedlen = 0;
	struct kat_candidate *own = NULL;
	int n = 0;
	if (kat_flow_first_seed(m->nist, seed, &seedlen) == 0) {
		struct kat_want w = { .seed = seed, .seedlen = seedlen, .kem = strcmp(in->kind, "kem") == 0, .name = in->name };
		n = kat_locate_all(dir, &w, &own);
	}
	struct kat_file produced;
	memset(&produced, 0, sizeof produced);
	struct kat_located loc;
	int got = n > 0 && kat_file_read(own[0].path, NULL, &produced, &err) == 0 &&
	          kat_locate(st->ps->root, &produced, in->name, &loc) && loc.holds_pk;
	kat_file_free(&produced);
	free(own);
	if (!got) {
		snprintf(why, len, n > 0 ? "no file in the package holds the public key its own KAT program derives from the "
		                           "first seed"
		                         : "its own KAT program wrote no file that starts the seed sequence");
		return -1;
	}
	for (int i = 0; i < st->vec[m->nist].n; i++)
		if (strcmp(st->vec[m->nist].v[i].path, loc.path) == 0)
			return i;
	snprintf(why, len, "the file holding its public key, %.300s, is not one of its candidates", loc.path);
	return -1;
}

static int same_content(const char *a, const char *b)
{
	char ha[SHA256_HEX_LEN + 1], hb[SHA256_HEX_LEN + 1];
	return sha256_file_hex(a, ha, NULL) == 0 && sha256_file_hex(b, hb, NULL) == 0 && strcmp(ha, hb) == 0;
}

/* Nothing decided: identical copies are one file; else ambiguous, or none at all. */
static void content_last_resort(struct pkg_state *st, struct pkg_instance *in, struct content_match *m,
                                const char *own_why)
{
	const struct vector_set *vs = &st->vec[m->nist];
	int *f = calloc((size_t)m->n + 1, sizeof *f);
	int n = f ? still_free(st, m, f) : 0, same = n > 0;
	for (int i = 1; i < n; i++)
		same &= same_content(vs->v[f[0]].path, vs->v[f[i]].path);
	if (same) {
		vector_use(st, in, m, f[0], "%s, whose first record starts %s (%s)%s%s", n > 1 ? "identical files" : "a file",
		           sequence_name(m->nist), m->sizes, m->n > n ? "; the others that qualify belong to other instances" : "",
		           n > 1 ? "; the first is used" : "");
		free(f);
		return;
	}
	if (n == 0) {
		if (text_appendf(in->kat_why, sizeof in->kat_why, "; by content neither: no %sfile in the package starts %s "
		                 "with %s", m->n ? "other " : "", sequence_name(m->nist), m->sizes) < 0)
			text_mark_cut(in->kat_why, sizeof in->kat_why);
		free(f);
		return;
	}
	in->kat = PKG_KAT_AMBIGUOUS;
	/* Whole file names, then ", …": the advice after them always has room. */
	char files[sizeof in->kat_why] = "";
	size_t room = kat_why_room(snprintf(NULL, 0, "ambiguous: %d different files start %s with %s, and nothing ties "
	                                    "one to this instance (%s): ", n, sequence_name(m->nist), m->sizes, own_why));
	for (int i = 0; i < n; i++) {
		const char *rel = rel_of(st, vs->v[f[i]].path);
		text_add_item(files, room, ", ", rel ? rel : vs->v[f[i]].path, KAT_WHY_MORE);
	}
	kat_why_set(in, "ambiguous: %d different files start %s with %s, and nothing ties one to this instance (%s): "
	            "%s; set \"vectors\" in the descriptor", n, sequence_name(m->nist), m->sizes, own_why, files);
	free(f);
}

/*
 * Instances the name rules left without a KAT file: files anywhere in
 * the package whose first record starts the instance's seed sequence.
 * What ties one to an instance, strongest first: its name line, file name
 * or folder naming it (one file alone with the best tie); being the only
 * such file in the package; the public key the tree's own KAT program
 * derives from the first seed (kat_locate).
 */
static void match_by_content(struct pkg_state *st)
{
	struct pkg_scan *ps = st->ps;
	struct content_match *m = calloc((size_t)ps->ninst + 1, sizeof *m);
	if (!m)
		return;
	for (int i = 0; i < ps->ninst; i++)
		if (ps->inst[i].kat == PKG_KAT_MISSING)
			content_candidates(st, &ps->inst[i], &m[i]);
	/* Ties: one file with the strongest. */
	for (int i = 0; i < ps->ninst; i++) {
		int best = -1, nbest = 0;
		for (int c = 0; m[i].want && c < m[i].n; c++) {
			if (best < 0 || m[i].ties[c] > m[i].ties[best])
				best = c, nbest = 1;
			else if (m[i].ties[c] == m[i].ties[best])
				nbest++;
		}
		char why[256];
		if (best >= 0 && m[i].ties[best] > 0 && nbest == 1) {
			vector_ties(&st->vec[m[i].nist].v[m[i].idx[best]], &ps->inst[i], why, sizeof why);
			vector_use(st, &ps->inst[i], &m[i], m[i].idx[best], "its first record starts %s (%s)%s",
			           sequence_name(m[i].nist), m[i].sizes, why);
		}
	}
	/* The only candidate, and no other instance's. */
	for (int i = 0; i < ps->ninst; i++) {
		int f[1], n = m[i].want && m[i].n == 1 ? still_free(st, &m[i], f) : 0, shared = 0;
		for (int j = 0; n == 1 && j < ps->ninst; j++)
			for (int c = 0; j != i && m[j].want && m[j].nist == m[i].nist && c < m[j].n; c++)
				shared |= m[j].idx[c] == f[0];
		if (n == 1 && !shared)
			vector_use(st, &ps->inst[i], &m[i], f[0], "the only file in the package whose first record starts %s (%s)",
			           sequence_name(m[i].nist), m[i].sizes);
	}
	/* The public key its own KAT program derives. */
	for (int i = 0; i < ps->ninst; i++) {
		if (!m[i].want)
			continue;
		char why[512] = "no candidate", program[256] = "";
		int c = m[i].n ? own_program_pick(st, &ps->inst[i], &m[i], program, sizeof program, why, sizeof why) : -1;
		if (c >= 0)
			vector_use(st, &ps->inst[i], &m[i], c, "its first record holds the public key that the tree's own KAT "
			           "program (%s, as its observed build links it) derives from the first seed; %d file%s in the "
			           "package start%s %s with %s", program[0] ? program : "?", m[i].n, m[i].n == 1 ? "" : "s",
			           m[i].n == 1 ? "s" : "", sequence_name(m[i].nist), m[i].sizes);
		else
			content_last_resort(st, &ps->inst[i], &m[i], why);
	}
	for (int i = 0; i < ps->ninst; i++) {
		free(m[i].idx);
		free(m[i].ties);
	}
	free(m);
}

/* A file the name rules chose is no candidate for another instance. */
static void mark_vectors_used(struct pkg_state *st)
{
	for (int i = 0; i < st->ps->ninst; i++) {
		char real[PATH_MAX];
		const struct pkg_instance *in = &st->ps->inst[i];
		if (in->kat != PKG_KAT_MATCHED || !realpath(in->vectors, real))
			continue;
		for (int k = 0; k < 2; k++)
			for (int c = 0; c < st->vec[k].n; c++)
				if (strcmp(st->vec[k].v[c].path, real) == 0 || strcmp(st->vec[k].v[c].path, in->vectors) == 0)
					st->vec[k].used[c] = 1;
	}
}

/* ---------------- the package ---------------- */

/* Reference first, then optimized, then additional, then the rest, as evaluators list them. */
static int by_rank(const void *a, const void *b)
{
	const struct found_tree *x = a, *y = b;
	return x->rank != y->rank ? x->rank - y->rank : strcmp(x->rel, y->rel);
}

/* Top-level folders that hold neither an implementation tree nor a KAT file. */
static void note_passed_over(struct pkg_state *st)
{
	struct dirent **l;
	int n = list_dir(st->ps->root, &l);
	for (int i = 0; i < n; i++) {
		char p[PATH_MAX];
		const char *d = l[i]->d_name;
		if (path_fmt(p, sizeof p, NULL, "%s/%s", st->ps->root, d) < 0 || !is_dir(p) || skipped_dir(p, d))
			continue;
		int used = 0;
		for (int t = 0; t < st->ntrees && !used; t++)
			used = strncmp(st->trees[t].rel, d, strlen(d)) == 0 &&
			       (st->trees[t].rel[strlen(d)] == '/' || st->trees[t].rel[strlen(d)] == '\0');
		for (int k = 0; k < st->nkat_dirs && !used; k++)
			used = strcmp(st->kat_dirs[k], d) == 0;
		if (!used)
			note(st->ps, "skipped %s: not an implementation or KAT folder (no implementation tree and no KAT file "
			     "in it or below)", d);
	}
	if (n >= 0)
		free_list(l, n);
}

/* What was found where: one line per classic implementation folder, one per tree found by content alone. */
static void note_trees(struct pkg_state *st, const int *counts)
{
	for (int t = 0; t < st->ntrees; t++) {
		const struct found_tree *ft = &st->trees[t];
		if (!ft->folder[0]) {
			note(st->ps, "implementation tree %s/: %s; implementation version %s, %d instance%s", ft->rel, ft->why,
			     ft->version, counts[t], counts[t] == 1 ? "" : "s");
			continue;
		}
		int first = 1, total = 0;
		for (int u = 0; u < st->ntrees; u++)
			if (strcmp(st->trees[u].folder, ft->folder) == 0) {
				first &= u >= t;
				total += counts[u];
			}
		if (first)
			note(st->ps, "implementation folder %s/: implementation version %s, %d instance%s", ft->folder,
			     impl_version(path_base(ft->folder)), total, total == 1 ? "" : "s");
	}
}

static void note_unused(struct pkg_state *st)
{
	for (int i = 0; i < st->nkats; i++)
		if (!st->kats[i].used)
			note(st->ps, "unused KAT file %s: no instance matched it", st->kats[i].rel);
	for (int k = 0; k < 2; k++)
		for (int c = 0; c < st->vec[k].n; c++) {
			const char *rel = rel_of(st, st->vec[k].v[c].path);
			if (st->vec[k].used[c] || !rel || inside_tree(st, rel) || is_kat_name(path_base(rel)))
				continue;
			note(st->ps, "unused KAT file %s: no instance matched it (its first record starts %s)", rel,
			     sequence_name(k));
		}
}

int package_scan(const char *dir, const char *within, struct pkg_scan *ps, pq_error *err)
{
	memset(ps, 0, sizeof *ps);
	if (!is_dir(dir))
		return pq_fail(err, PQ_EINPUT, "%s: not a directory", dir);
	if (!realpath(dir, ps->root))
		return pq_fail_errno(err, PQ_EINPUT, "%s", dir);
	struct pkg_state st = { .ps = ps, .within = within ? within : ps->root };
	walk_root = st.within;
	st.kats = calloc(MAX_KAT_FILES, sizeof *st.kats);
	st.trees = calloc(MAX_TREES, sizeof *st.trees);
	int *counts = calloc(MAX_TREES, sizeof *counts);
	int r = 0, ntrees = 0;
	if (!st.kats || !st.trees || !counts) {
		r = pq_fail(err, PQ_ENOMEM, "out of memory");
		goto out;
	}
	int one = dir_is_one_tree(ps->root, &ntrees);
	if (one || ntrees == 0) {
		r = pq_fail(err, PQ_EINPUT, one ? "%s: not a submission package: it is itself one implementation tree; "
		                                     "build or run it as a tree"
		                                   : "%s: not a submission package: no implementation tree in it (a folder "
		                                     "with a build file and a KAT driver or API header, or an API header "
		                                     "beside its sources)", dir);
		goto out;
	}
	find_trees(&st, ps->root, "", 0);
	qsort(st.trees, (size_t)st.ntrees, sizeof *st.trees, by_rank);
	collect_kats(&st, "", 1);
	collect_vectors(&st);
	note_passed_over(&st);
	for (int t = 0; t < st.ntrees; t++) {
		int before = ps->ninst;
		add_instance(&st, st.trees[t].rel, st.trees[t].dirname, st.trees[t].version);
		counts[t] = ps->ninst - before;
	}
	note_trees(&st, counts);
	mark_vectors_used(&st);
	match_by_content(&st);
	int ngcc = 0, nist = 0;
	for (int i = 0; i < ps->ninst; i++) {
		ngcc += strcmp(ps->inst[i].api, "ngcc") == 0;
		nist += strcmp(ps->inst[i].api, "nist") == 0;
	}
	snprintf(ps->layout, sizeof ps->layout, "%s", ngcc && nist ? "NGCC+NIST" : ngcc ? "NGCC" : "NIST");
	note_unused(&st);
	if (ps->ninst == 0)
		r = pq_fail(err, PQ_EINPUT, "%s: no instance found in its implementation trees", dir);
out:
	walk_root = NULL;
	free_vectors(&st);
	free(st.kats);
	free(st.trees);
	free(counts);
	return r;
}
