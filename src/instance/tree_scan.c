/* tree_scan: classify a submission tree's files; see tree_scan.h. */
#include "config.h"
#include "instance/tree_scan.h"
#include "core/grow.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "core/path_name.h"
#include "instance/kat_drivers.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_FILES 20000
#define MAX_DEPTH 8
#define MAX_SOURCE_BYTES (512u << 20)

/* Directories that hold a submission's tests, drivers or outputs, not its library. */
static const char *const skipped_dirs[] = {
	"test", "tests", "testing", "bench", "benchmark", "benchmarks", "example",
	"examples", "kat", "kats", "test_vectors", "testvectors", "kat_vectors",
	"output", "build", "doc", "docs", "supporting_documentation", NULL,
};

const char *tree_api_name(enum tree_api api)
{
	switch (api) {
	case TREE_API_NGCC: return "ngcc";
	case TREE_API_NIST: return "nist";
	default: return "auto";
	}
}

int tree_api_parse(const char *s, enum tree_api *out)
{
	if (strcmp(s, "ngcc") == 0) *out = TREE_API_NGCC;
	else if (strcmp(s, "nist") == 0) *out = TREE_API_NIST;
	else if (strcmp(s, "auto") == 0) *out = TREE_API_AUTO;
	else return -1;
	return 0;
}

/* Copy of text with comments and string/char literals blanked (newlines kept). */
static char *strip_comments(const char *text)
{
	size_t n = strlen(text);
	char *o = malloc(n + 1);
	if (!o)
		return NULL;
	size_t i = 0;
	while (i < n) {
		char c = text[i];
		if (c == '/' && text[i + 1] == '*') {
			o[i] = o[i + 1] = ' ';
			i += 2;
			while (i < n && !(text[i] == '*' && text[i + 1] == '/')) {
				o[i] = text[i] == '\n' ? '\n' : ' ';
				i++;
			}
			if (i < n) {
				o[i] = o[i + 1] = ' ';
				i += 2;
			}
		} else if (c == '/' && text[i + 1] == '/') {
			while (i < n && text[i] != '\n')
				o[i++] = ' ';
		} else if (c == '"' || c == '\'') {
			o[i++] = c;
			while (i < n && text[i] != c && text[i] != '\n') {
				if (text[i] == '\\' && i + 1 < n) {
					o[i++] = ' ';
				}
				o[i++] = ' ';
			}
			if (i < n)
				o[i] = text[i], i++;
		} else {
			o[i] = c;
			i++;
		}
	}
	o[n] = '\0';
	return o;
}

static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* Is the preprocessor directive at the line containing position p? */
static int on_directive_line(const char *s, const char *p)
{
	const char *l = p;
	while (l > s && l[-1] != '\n')
		l--;
	while (*l == ' ' || *l == '\t')
		l++;
	return *l == '#';
}

/* Find `name(...) {` as a function definition in stripped text. */
static int defines_function_stripped(const char *s, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = strstr(s, name); p; p = strstr(p + 1, name)) {
		if (p > s && is_ident((unsigned char)p[-1]))
			continue;
		if (is_ident((unsigned char)p[len]))
			continue;
		if (on_directive_line(s, p))
			continue;
		const char *q = p + len;
		while (isspace((unsigned char)*q))
			q++;
		if (*q != '(')
			continue;
		int depth = 0;
		for (; *q; q++) {
			if (*q == '(')
				depth++;
			else if (*q == ')' && --depth == 0)
				break;
		}
		if (!*q)
			return 0;
		q++;
		while (isspace((unsigned char)*q))
			q++;
		if (*q == '{')
			return 1;
	}
	return 0;
}

int source_defines_function(const char *text, const char *name)
{
	char *s = strip_comments(text);
	if (!s)
		return 0;
	int r = defines_function_stripped(s, name);
	free(s);
	return r;
}

int source_defines_main(const char *text)
{
	return source_defines_function(text, "main");
}

/*
 * The next #include directive after p: the name between its quotes or
 * angle brackets (*name, *len, not NUL-terminated) and the closing
 * character; returns where to look for the next one, NULL when none is left.
 */
static const char *next_include(const char *p, const char **name, size_t *len, char *close)
{
	for (p = strchr(p, '#'); p; p = strchr(p + 1, '#')) {
		const char *q = p + 1;
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, "include", 7) != 0)
			continue;
		q += 7;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '"' && *q != '<')
			continue;
		char c = *q == '"' ? '"' : '>';
		const char *e = q + 1;
		while (*e && *e != c && *e != '\n')
			e++;
		if (*e != c)
			continue;
		*name = q + 1;
		*len = (size_t)(e - q - 1);
		*close = c;
		return e;
	}
	return NULL;
}

int source_included_sources(const char *text, char names[][256], int max)
{
	int n = 0;
	const char *nm;
	size_t nl;
	char close;
	for (const char *p = next_include(text, &nm, &nl, &close); p && n < max; p = next_include(p, &nm, &nl, &close)) {
		if (close != '"' || nl <= 2 || nl >= 255 || strncmp(nm + nl - 2, ".c", 2) != 0)
			continue;
		const char *base = nm;
		for (const char *r = nm; r < nm + nl; r++)
			if (*r == '/')
				base = r + 1;
		snprintf(names[n], 256, "%.*s", (int)(nm + nl - base), base);
		n++;
	}
	return n;
}

/* Does stripped text define (not just declare extern) `DRNG_ctx drng_algorithm`? */
static int defines_drng_object(const char *s)
{
	for (const char *p = strstr(s, "drng_algorithm"); p; p = strstr(p + 1, "drng_algorithm")) {
		if (p > s && is_ident((unsigned char)p[-1]))
			continue;
		const char *q = p + strlen("drng_algorithm");
		while (isspace((unsigned char)*q))
			q++;
		if (*q != ';' && *q != '=')
			continue;
		/* walk back over "DRNG_ctx" and whitespace to the previous token */
		const char *b = p;
		while (b > s && isspace((unsigned char)b[-1]))
			b--;
		if (b - s < 8 || strncmp(b - 8, "DRNG_ctx", 8) != 0)
			continue;
		b -= 8;
		while (b > s && isspace((unsigned char)b[-1]))
			b--;
		const char *e = b;
		while (b > s && is_ident((unsigned char)b[-1]))
			b--;
		if (e - b == 6 && strncmp(b, "extern", 6) == 0)
			continue;
		if (on_directive_line(s, p))
			continue;
		return 1;
	}
	return 0;
}

struct scan_state {
	struct tree_scan *ts;
	size_t cap;
	size_t inc_cap;
	pq_error *err;
	const char *within;           /* real path every file must resolve into */
	dev_t dev[MAX_DEPTH + 2];     /* directories on the current path, for loops */
	ino_t ino[MAX_DEPTH + 2];
};

/* Is real path `p` the directory `dir` or inside it? */
static int path_within(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return 1;
	return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

static const char *file_kind(mode_t m)
{
	if (S_ISFIFO(m)) return "a FIFO";
	if (S_ISCHR(m)) return "a character device";
	if (S_ISBLK(m)) return "a block device";
	if (S_ISSOCK(m)) return "a socket";
	return "not a regular file";
}

/*
 * Sources, headers and vectors must be regular files that resolve inside
 * the source root: a link out of the tree, a FIFO or a device is refused
 * by name.  Fills *sb with what the entry resolves to.  Returns 1 to use
 * the entry, 0 to skip it (a dangling link), negative on refusal.
 */
static int check_entry(struct scan_state *st, const char *cpath, const char *crel, struct stat *sb)
{
	struct stat lsb;
	if (lstat(cpath, &lsb) != 0)
		return 0;
	if (S_ISLNK(lsb.st_mode)) {
		char real[PATH_MAX];
		if (!realpath(cpath, real)) {
			if (errno == ELOOP)
				return pq_fail(st->err, PQ_EINPUT, "%s: symbolic link loop in the tree (%s)", st->ts->root, crel);
			return 0; /* dangling link */
		}
		if (!path_within(real, st->within))
			return pq_fail(st->err, PQ_EINPUT,
			               "%s: symbolic link %s leaves the tree (points to %s, outside %s)", st->ts->root, crel,
			               real, st->within);
	}
	if (stat(cpath, sb) != 0)
		return 0;
	if (!S_ISDIR(sb->st_mode) && !S_ISREG(sb->st_mode))
		return pq_fail(st->err, PQ_EINPUT,
		               "%s: %s is %s: sources, headers and data in a tree must be regular files", st->ts->root,
		               crel, file_kind(sb->st_mode));
	return 1;
}

static int add_incdir(struct scan_state *st, const char *rel)
{
	struct tree_scan *ts = st->ts;
	for (int i = 0; i < ts->nincdirs; i++)
		if (strcmp(ts->incdirs[i], rel) == 0)
			return 0;
	if (pq_grow(&ts->incdirs, &st->inc_cap, (size_t)ts->nincdirs + 1, sizeof *ts->incdirs, 16) < 0)
		return pq_fail(st->err, PQ_ENOMEM, "out of memory");
	ts->incdirs[ts->nincdirs] = strdup(rel);
	if (!ts->incdirs[ts->nincdirs])
		return pq_fail(st->err, PQ_ENOMEM, "out of memory");
	ts->nincdirs++;
	return 0;
}

static int add_file(struct scan_state *st, const char *rel, int is_asm)
{
	struct tree_scan *ts = st->ts;
	if (ts->nfiles >= MAX_FILES)
		return pq_fail(st->err, PQ_EINPUT, "%s: more than %d source files", ts->root, MAX_FILES);
	if (pq_grow(&ts->files, &st->cap, (size_t)ts->nfiles + 1, sizeof *ts->files, 64) < 0)
		return pq_fail(st->err, PQ_ENOMEM, "out of memory");
	struct tree_file *f = &ts->files[ts->nfiles];
	memset(f, 0, sizeof *f);
	f->rel = strdup(rel);
	if (!f->rel)
		return pq_fail(st->err, PQ_ENOMEM, "out of memory");
	f->keep = 1;
	f->is_asm = is_asm;
	ts->nfiles++;
	return 0;
}

static int skipped_dir(const char *name)
{
	if (name[0] == '.')
		return 1;
	for (int i = 0; skipped_dirs[i]; i++)
		if (strcasecmp(name, skipped_dirs[i]) == 0)
			return 1;
	return 0;
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int check_includes(struct scan_state *st, const char *rel, const char *text);

static int walk(struct scan_state *st, const char *rel, int depth)
{
	char path[PATH_MAX];
	if (path_fmt(path, sizeof path, st->err, "%s%s%s", st->ts->root, rel[0] ? "/" : "", rel) < 0)
		return -PQ_EINPUT;
	/* A directory that is its own ancestor (through a link) is a loop. */
	struct stat dsb;
	if (stat(path, &dsb) == 0) {
		for (int i = 0; i < depth; i++)
			if (st->dev[i] == dsb.st_dev && st->ino[i] == dsb.st_ino)
				return pq_fail(st->err, PQ_EINPUT, "%s: symbolic link loop: %s leads back to a directory above it",
				               st->ts->root, rel);
		st->dev[depth] = dsb.st_dev;
		st->ino[depth] = dsb.st_ino;
	}
	DIR *d = opendir(path);
	if (!d)
		return pq_fail_errno(st->err, PQ_EINPUT, "%s: cannot read directory", path);
	/* Sorted, so builds and listings do not depend on directory order. */
	char **names = NULL;
	int n = 0, r = 0;
	size_t cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (pq_grow(&names, &cap, (size_t)n + 1, sizeof *names, 64) < 0 || !(names[n] = strdup(de->d_name))) {
			r = pq_fail(st->err, PQ_ENOMEM, "out of memory");
			break;
		}
		n++;
	}
	closedir(d);
	if (r == 0 && n > 1) /* qsort wants a non-NULL array, even for an empty directory */
		qsort(names, (size_t)n, sizeof *names, cmp_names);
	int has_header = 0;
	for (int i = 0; i < n && r == 0; i++) {
		char crel[PATH_MAX], cpath[PATH_MAX];
		if ((r = path_fmt(crel, sizeof crel, st->err, "%s%s%s", rel, rel[0] ? "/" : "", names[i])) < 0 ||
		    (r = path_fmt(cpath, sizeof cpath, st->err, "%s/%s", st->ts->root, crel)) < 0)
			break;
		struct stat sb;
		int use = check_entry(st, cpath, crel, &sb);
		if (use <= 0) {
			r = use;
			continue;
		}
		if (S_ISDIR(sb.st_mode)) {
			if (depth < MAX_DEPTH && !skipped_dir(names[i]))
				r = walk(st, crel, depth + 1);
		} else if (S_ISREG(sb.st_mode)) {
			if (ends_with(names[i], ".h")) {
				has_header = 1;
				char *text = NULL;
				r = read_whole_file(cpath, &text, NULL, MAX_SOURCE_BYTES, st->err);
				if (r == 0)
					r = check_includes(st, crel, text);
				free(text);
			}
			else if (ends_with(names[i], ".c"))
				r = add_file(st, crel, 0);
			else if (ends_with(names[i], ".S") || ends_with(names[i], ".s"))
				r = add_file(st, crel, 1);
		}
	}
	if (r == 0 && has_header)
		r = add_incdir(st, rel[0] ? rel : ".");
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

static int file_exists(const char *root, const char *rel)
{
	char p[PATH_MAX];
	struct stat sb;
	return path_fmt(p, sizeof p, NULL, "%s/%s", root, rel) == 0 && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Find a header by basename anywhere in the scanned include dirs. */
static int find_header(const struct tree_scan *ts, const char *base, char *out, size_t len)
{
	for (int i = 0; i < ts->nincdirs; i++) {
		char rel[PATH_MAX];
		int r = strcmp(ts->incdirs[i], ".") == 0 ? path_fmt(rel, sizeof rel, NULL, "%s", base)
		                                         : path_fmt(rel, sizeof rel, NULL, "%s/%s", ts->incdirs[i], base);
		/* a header whose name does not fit the caller's buffer is not one it can use */
		if (r == 0 && file_exists(ts->root, rel) && path_fmt(out, len, NULL, "%s", rel) == 0)
			return 1;
	}
	return 0;
}

/*
 * A header base that is a link to nothing, in the root or an include dir:
 * its path in the tree into rel and what it points to into target.  Such a
 * tree is missing a file, which "no api.h" would hide.
 */
static int find_dangling_header(const struct tree_scan *ts, const char *base, char *rel, size_t rlen, char *target,
                                size_t tlen)
{
	for (int i = -1; i < ts->nincdirs; i++) {
		const char *dir = i < 0 ? "." : ts->incdirs[i];
		char p[PATH_MAX];
		struct stat sb;
		int r = strcmp(dir, ".") == 0 ? path_fmt(rel, rlen, NULL, "%s", base)
		                              : path_fmt(rel, rlen, NULL, "%s/%s", dir, base);
		if (r < 0 || path_fmt(p, sizeof p, NULL, "%s/%s", ts->root, rel) < 0)
			continue;
		if (lstat(p, &sb) != 0 || !S_ISLNK(sb.st_mode) || stat(p, &sb) == 0)
			continue;
		ssize_t n = readlink(p, target, tlen - 1);
		target[n > 0 ? n : 0] = '\0';
		return 1;
	}
	return 0;
}

/* PQ_EINPUT for a tree without the header base: a dangling link named as one, else why. */
static int no_header(const struct tree_scan *ts, const char *base, pq_error *err, const char *why)
{
	char rel[PATH_MAX], target[PATH_MAX];
	if (find_dangling_header(ts, base, rel, sizeof rel, target, sizeof target))
		return pq_fail(err, PQ_EINPUT, "%s/%s: the %s link is dangling: it points to %s, which does not exist",
		               ts->root, rel, base, target);
	return pq_fail(err, PQ_EINPUT, "%s: %s", ts->root, why);
}

static void leave_out(struct tree_file *f, const char *fmt, const char *arg)
{
	f->keep = 0;
	snprintf(f->reason, sizeof f->reason, fmt, arg);
}

int tree_nist_is_kem(const char *dir, const char *api_text, const char **why)
{
	int kem_drv = dir_has_file(dir, "PQCgenKAT_kem.c"), sig_drv = dir_has_file(dir, "PQCgenKAT_sign.c");
	if (kem_drv != sig_drv) {
		*why = kem_drv ? "the tree's KAT driver is PQCgenKAT_kem.c" : "the tree's KAT driver is PQCgenKAT_sign.c";
		return kem_drv;
	}
	int kem = api_text && (strstr(api_text, "crypto_kem_") || strstr(api_text, "CIPHERTEXTBYTES"));
	*why = kem ? "api.h names crypto_kem_ or a CIPHERTEXTBYTES size" : "api.h names no KEM function or size";
	return kem;
}

/* Whether `text` names the identifier `prefix``name` as a whole word. */
static int names_word(const char *text, const char *prefix, const char *name)
{
	char word[192];
	if ((size_t)snprintf(word, sizeof word, "%s%s", prefix, name) >= sizeof word)
		return 0;
	size_t n = strlen(word);
	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
		if ((p == text || !is_ident((unsigned char)p[-1])) && !is_ident((unsigned char)p[n]))
			return 1;
	return 0;
}

/*
 * Parameters of the first declaration of `prefix``name`(...) in text (comments
 * stripped), counted by top-level commas; 0 when there is none.
 */
static int params_of(const char *text, const char *prefix, const char *name)
{
	char word[192];
	if ((size_t)snprintf(word, sizeof word, "%s%s", prefix, name) >= sizeof word)
		return 0;
	size_t n = strlen(word);
	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
		if ((p != text && is_ident((unsigned char)p[-1])) || is_ident((unsigned char)p[n]))
			continue;
		const char *q = p + n;
		while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
			q++;
		if (*q != '(')
			continue;
		int depth = 0, commas = 0, any = 0;
		for (q++; *q; q++) {
			if (*q == '(')
				depth++;
			else if (*q == ')' && depth-- == 0)
				return any ? commas + 1 : 0;
			else if (*q == ',' && depth == 0)
				commas++;
			else if (!isspace((unsigned char)*q))
				any = 1;
		}
		return 0;
	}
	return 0;
}

int tree_nist_sig_decls(const char *text, struct nist_sig_decls *out)
{
	memset(out, 0, sizeof *out);
	char *s = strip_comments(text);
	if (!s)
		return -1;
	/* The prefix is whatever identifier characters run up to the first whole-word crypto_sign_keypair. */
	const char *key = "crypto_sign_keypair";
	size_t kl = strlen(key);
	const char *at = NULL;
	for (const char *p = strstr(s, key); p && !at; p = strstr(p + 1, key))
		if (!is_ident((unsigned char)p[kl]))
			at = p;
	if (!at) {
		free(s);
		return 0;
	}
	const char *b = at;
	while (b > s && is_ident((unsigned char)b[-1]))
		b--;
	if ((size_t)(at - b) < sizeof out->prefix)
		snprintf(out->prefix, sizeof out->prefix, "%.*s", (int)(at - b), b);
	out->plain = names_word(s, out->prefix, "crypto_sign") && names_word(s, out->prefix, "crypto_sign_open");
	out->context = names_word(s, out->prefix, "crypto_sign_ctx") && names_word(s, out->prefix, "crypto_sign_open_ctx");
	if (out->plain && !out->context && params_of(s, out->prefix, "crypto_sign") == 7 &&
	    params_of(s, out->prefix, "crypto_sign_open") == 7) {
		out->plain = 0;
		out->context = out->in_plain = 1;
	}
	free(s);
	return 1;
}

/*
 * A header template the build configures into the API header (meson's
 * configure_file, CMake's configure_file, autoconf): a .h.in file in the
 * tree's root or include directories that declares or sizes the NIST API.
 * Its path relative to the tree into out; 0 when there is none.
 */
static int find_api_template(const struct tree_scan *ts, char *out, size_t len)
{
	for (int i = -1; i < ts->nincdirs; i++) {
		const char *rel = i < 0 ? "." : ts->incdirs[i];
		char dir[PATH_MAX];
		if (path_fmt(dir, sizeof dir, NULL, "%s/%s", ts->root, rel) < 0)
			continue;
		DIR *d = opendir(dir);
		struct dirent *de;
		int found = 0;
		while (!found && d && (de = readdir(d))) {
			size_t n = strlen(de->d_name);
			if (n < 6 || strcmp(de->d_name + n - 5, ".h.in") != 0)
				continue;
			char p[PATH_MAX], *text = NULL;
			if (path_fmt(p, sizeof p, NULL, "%s/%s", dir, de->d_name) < 0 ||
			    read_whole_file(p, &text, NULL, 1u << 20, NULL) < 0)
				continue;
			found = strstr(text, "crypto_sign_keypair") || strstr(text, "crypto_kem_keypair") ||
			        strstr(text, "CRYPTO_SECRETKEYBYTES");
			free(text);
			if (found && path_fmt(out, len, NULL, "%s%s%s", i < 0 ? "" : rel, i < 0 ? "" : "/", de->d_name) < 0)
				found = 0;
		}
		if (d)
			closedir(d);
		if (found)
			return 1;
	}
	return 0;
}

/* Decide the flavour and kind from the headers present. */
static int detect_api(struct tree_scan *ts, enum tree_api want, pq_error *err)
{
	char sig[256] = "", kem[256] = "", api[256] = "";
	find_header(ts, "SIG_AlgorithmInstance.h", sig, sizeof sig);
	find_header(ts, "KEM_AlgorithmInstance.h", kem, sizeof kem);
	find_header(ts, "api.h", api, sizeof api);
	int ngcc = sig[0] || kem[0];
	if (want == TREE_API_NGCC && !ngcc)
		return pq_fail(err, PQ_EINPUT, "%s: --api ngcc but no SIG_AlgorithmInstance.h or KEM_AlgorithmInstance.h", ts->root);
	if (want == TREE_API_NIST && !api[0])
		return no_header(ts, "api.h", err, "--api nist but no api.h");
	if (want == TREE_API_NGCC || (want == TREE_API_AUTO && ngcc)) {
		ts->api = TREE_API_NGCC;
		ts->kind = sig[0] ? TREE_KIND_SIG : TREE_KIND_KEM;
		snprintf(ts->header, sizeof ts->header, "%s", sig[0] ? sig : kem);
		ts->nist_in_ngcc = api[0] != 0;
		find_header(ts, "drng.h", ts->drng_header, sizeof ts->drng_header);
		return 0;
	}
	if (!api[0] && find_api_template(ts, api, sizeof api))
		ts->api_configured = 1;
	if (!api[0])
		return no_header(ts, "api.h", err,
		                 "not a submission tree: no SIG_AlgorithmInstance.h, KEM_AlgorithmInstance.h or api.h "
		                 "(nor a .h.in template of one that its build configures)");
	ts->api = TREE_API_NIST;
	snprintf(ts->header, sizeof ts->header, "%s", api);
	char *text = NULL;
	char p[PATH_MAX];
	int r = path_fmt(p, sizeof p, err, "%s/%s", ts->root, api);
	if (r == 0)
		r = read_whole_file(p, &text, NULL, 1u << 20, err);
	if (r < 0)
		return r;
	char *s = strip_comments(text);
	free(text);
	if (!s)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", p);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	const char *why;
	int kem_api = tree_nist_is_kem(dir, s, &why);
	ts->kind = kem_api ? TREE_KIND_KEM : TREE_KIND_SIG;
	ts->api_h_declares = strstr(s, kem_api ? "crypto_kem_keypair" : "crypto_sign_keypair") != NULL;
	if (!kem_api && tree_nist_sig_decls(s, &ts->sig) < 0) {
		free(s);
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	}
	free(s);
	return 0;
}

/*
 * #include lines a compiler would follow out of the tree: an absolute
 * path, a relative one that resolves outside the source root, or one
 * that names something other than a regular file (a FIFO would hang the
 * compiler, a device would feed it forever).
 */
static int check_includes(struct scan_state *st, const char *rel, const char *text)
{
	const char *nm;
	size_t nl;
	char close;
	for (const char *p = next_include(text, &nm, &nl, &close); p; p = next_include(p, &nm, &nl, &close)) {
		if (nl == 0 || nl >= PATH_MAX / 2)
			continue;
		char name[PATH_MAX / 2];
		snprintf(name, sizeof name, "%.*s", (int)nl, nm);
		if (name[0] == '/')
			return pq_fail(st->err, PQ_EINPUT, "%s: %s includes \"%s\": an absolute path outside the tree",
			               st->ts->root, rel, name);
		if (close == '>')
			continue;
		char dir[PATH_MAX], cand[PATH_MAX], real[PATH_MAX];
		if (path_fmt(dir, sizeof dir, st->err, "%s/%s", st->ts->root, rel) < 0)
			return -PQ_EINPUT;
		char *slash = strrchr(dir, '/');
		*slash = '\0';
		if (path_fmt(cand, sizeof cand, NULL, "%s/%s", dir, name) < 0)
			continue; /* longer than any path: the compiler cannot open it either */
		struct stat sb;
		if (stat(cand, &sb) != 0 || !realpath(cand, real))
			continue; /* found through -I, or missing: the compiler says */
		if (!path_within(real, st->within))
			return pq_fail(st->err, PQ_EINPUT, "%s: %s includes \"%s\", which is outside the tree (%s)",
			               st->ts->root, rel, name, real);
		if (!S_ISREG(sb.st_mode))
			return pq_fail(st->err, PQ_EINPUT, "%s: %s includes \"%s\", which is %s, not a regular file",
			               st->ts->root, rel, name, file_kind(sb.st_mode));
	}
	return 0;
}

static int classify(struct scan_state *st)
{
	struct tree_scan *ts = st->ts;
	pq_error *err = st->err;
	char (*included)[256] = malloc(sizeof(char[256]) * 4096);
	char (*by)[256] = malloc(sizeof(char[256]) * 4096);
	int ninc = 0;
	if (!included || !by) {
		free(included);
		free(by);
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	}
	int r = 0;
	for (int i = 0; i < ts->nfiles && r == 0; i++) {
		struct tree_file *f = &ts->files[i];
		const char *base = path_base(f->rel);
		if (kat_driver_is(base))
			leave_out(f, "official KAT generator (%s)", base);
		if (!f->keep || f->is_asm)
			continue;
		char p[PATH_MAX], *text = NULL;
		r = path_fmt(p, sizeof p, err, "%s/%s", ts->root, f->rel);
		if (r == 0)
			r = read_whole_file(p, &text, NULL, MAX_SOURCE_BYTES, err);
		if (r < 0)
			break;
		r = check_includes(st, f->rel, text);
		char *s = r == 0 ? strip_comments(text) : NULL;
		if (r < 0 || !s) {
			free(text);
			if (r == 0)
				r = pq_fail(err, PQ_ENOMEM, "out of memory");
			break;
		}
		if (defines_function_stripped(s, "main"))
			leave_out(f, "defines main() (%s is a driver)", base);
		else if (ts->api == TREE_API_NIST && strcmp(base, "rng.c") == 0)
			leave_out(f, "%s: NIST DRBG; the harness supplies randombytes()", base);
		else if (ts->api == TREE_API_NIST && defines_function_stripped(s, "randombytes"))
			leave_out(f, "%s defines randombytes(); the harness supplies it", base);
		if (f->keep) {
			if (defines_drng_object(s))
				ts->defines_drng_object = 1;
			if (defines_function_stripped(s, "init_random_number"))
				ts->has_init_random_number = 1;
			/* files only pulled in by #include "x.c" are not units of their own */
			char names[64][256];
			/* the raw text: stripping blanks the quoted file names */
			int k = source_included_sources(text, names, 64);
			for (int j = 0; j < k && ninc < 4096; j++) {
				snprintf(included[ninc], 256, "%s", names[j]);
				snprintf(by[ninc], 256, "%s", base);
				ninc++;
			}
		}
		free(s);
		free(text);
	}
	for (int i = 0; i < ts->nfiles && r == 0; i++) {
		struct tree_file *f = &ts->files[i];
		if (!f->keep)
			continue;
		for (int j = 0; j < ninc; j++)
			if (strcmp(path_base(f->rel), included[j]) == 0) {
				f->keep = 0;
				snprintf(f->reason, sizeof f->reason, "only #included by %s", by[j]);
				break;
			}
	}
	free(included);
	free(by);
	return r;
}

int tree_scan_dir(const char *dir, enum tree_api want, struct tree_scan *out, pq_error *err)
{
	return tree_scan_dir_within(dir, NULL, 0, want, out, err);
}

int tree_scan_dir_within(const char *dir, const char *within, int tree_inside, enum tree_api want,
                         struct tree_scan *out, pq_error *err)
{
	memset(out, 0, sizeof *out);
	struct stat sb;
	if (stat(dir, &sb) != 0)
		return pq_fail_errno(err, PQ_EINPUT, "%s", dir);
	if (!S_ISDIR(sb.st_mode))
		return pq_fail(err, PQ_EINPUT, "%s: not a directory", dir);
	if (!realpath(dir, out->root))
		return pq_fail_errno(err, PQ_EINPUT, "%s", dir);
	char real_within[PATH_MAX];
	if (within && !realpath(within, real_within))
		return pq_fail_errno(err, PQ_EINPUT, "source root %s", within);
	struct scan_state st = { .ts = out, .err = err, .within = within ? real_within : out->root };
	if (!path_within(out->root, st.within) && !tree_inside)
		st.within = out->root; /* a tree named by the user: links stay inside it */
	else if (!path_within(out->root, st.within))
		return pq_fail(err, PQ_EINPUT, "%s: the tree is outside the source root %s (widen it with --source-root)",
		               out->root, st.within);
	snprintf(out->within, sizeof out->within, "%s", st.within);
	int r = walk(&st, "", 0);
	if (r == 0)
		r = detect_api(out, want, err);
	if (r == 0)
		r = classify(&st);
	if (r == 0) {
		int kept = 0;
		for (int i = 0; i < out->nfiles; i++)
			kept += out->files[i].keep;
		if (kept == 0)
			r = pq_fail(err, PQ_EINPUT, "%s: no library sources left to compile", out->root);
	}
	if (r < 0)
		tree_scan_free(out);
	return r;
}

void tree_scan_free(struct tree_scan *ts)
{
	for (int i = 0; i < ts->nfiles; i++)
		free(ts->files[i].rel);
	free(ts->files);
	for (int i = 0; i < ts->nincdirs; i++)
		free(ts->incdirs[i]);
	free(ts->incdirs);
	ts->files = NULL;
	ts->incdirs = NULL;
	ts->nfiles = ts->nincdirs = 0;
}
