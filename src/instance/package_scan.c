/* package_scan: instances, implementation versions and KAT files of a package; see package_scan.h. */
#include "config.h"
#include "instance/package_scan.h"
#include "instance/builder.h"
#include "instance/observe.h"
#include "instance/tree_scan.h"
#include "core/atomic_file.h"
#include "core/digest.h"
#include "core/fixed_str.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_KAT_FILES 512
#define IMPL_DEPTH 4     /* Reference_Implementation/<variant>/crypto_sign/<name> */
#define KAT_DEPTH 4
#define TREE_KAT_DEPTH 4

struct kat_file_ref {
	char rel[1024];             /* relative to the package */
	char dir[256];              /* name of the folder holding it */
	char base[256];
	int used;
};

struct pkg_state {
	struct pkg_scan *ps;
	const char *within;
	struct kat_file_ref *kats;
	int nkats;
	char kat_dirs[16][1024];    /* relative to the package */
	int nkat_dirs;
};

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

static int is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int is_file(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
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

/* The implementation version an implementation folder stands for, or NULL. */
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

static int is_kat_folder(const char *name)
{
	char n[256];
	norm_name(name, n, sizeof n);
	return strncmp(n, "kat", 3) == 0 || strstr(n, "test_vector") || strstr(n, "testvector");
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

int package_is_package(const char *dir)
{
	struct dirent **l;
	int n = list_dir(dir, &l);
	if (n < 0)
		return 0;
	int found = 0;
	for (int i = 0; i < n && !found; i++) {
		char p[PATH_MAX];
		if (path_fmt(p, sizeof p, NULL, "%s/%s", dir, l[i]->d_name) < 0 || !is_dir(p))
			continue;
		if (impl_version(l[i]->d_name)) {
			found = 1;
			continue;
		}
		struct dirent **l2;
		int n2 = list_dir(p, &l2);
		for (int k = 0; k < n2 && !found; k++) {
			char q[PATH_MAX];
			found = impl_version(l2[k]->d_name) && path_fmt(q, sizeof q, NULL, "%s/%s", p, l2[k]->d_name) == 0 &&
			        is_dir(q);
		}
		if (n2 >= 0)
			free_list(l2, n2);
	}
	free_list(l, n);
	return found;
}

/* ---------------- KAT folders ---------------- */

static void collect_kats(struct pkg_state *st, const char *rel, int depth)
{
	char abs[PATH_MAX];
	if (path_fmt(abs, sizeof abs, NULL, "%s/%s", st->ps->root, rel) < 0)
		return;
	struct dirent **l;
	int n = list_dir(abs, &l);
	if (n < 0)
		return;
	const char *dirname = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	for (int i = 0; i < n; i++) {
		char r[1024], p[PATH_MAX];
		if (path_fmt(r, sizeof r, NULL, "%s/%s", rel, l[i]->d_name) < 0 ||
		    path_fmt(p, sizeof p, NULL, "%s/%s", st->ps->root, r) < 0)
			continue;
		if (is_dir(p)) {
			if (depth < KAT_DEPTH)
				collect_kats(st, r, depth + 1);
		} else if (is_file(p) && is_kat_name(l[i]->d_name) && st->nkats < MAX_KAT_FILES) {
			struct kat_file_ref *k = &st->kats[st->nkats++];
			snprintf(k->rel, sizeof k->rel, "%s", r);
			snprintf(k->dir, sizeof k->dir, "%s", dirname);
			snprintf(k->base, sizeof k->base, "%s", l[i]->d_name);
		}
	}
	free_list(l, n);
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

static void instance_name(struct pkg_instance *in, const char *dirname)
{
	snprintf(in->name, sizeof in->name, "%s", dirname);
	if (strcmp(in->api, "nist") == 0) {
		snprintf(in->name_why, sizeof in->name_why,
		         "the directory name (a NIST package names each instance's directory after it)");
		return;
	}
	const char *hdr = strcmp(in->kind, "kem") == 0 ? "KEM_AlgorithmInstance.h" : "SIG_AlgorithmInstance.h";
	char p[PATH_MAX], lit[128];
	struct macro_def d;
	if (path_fmt(p, sizeof p, NULL, "%s/%s", in->tree, hdr) < 0)
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

/* The NIST secret-key size, when api.h gives it as a plain number. */
static long nist_sk_bytes(const struct pkg_instance *in, int *line)
{
	char p[PATH_MAX];
	struct macro_def d;
	if (path_fmt(p, sizeof p, NULL, "%s/api.h", in->tree) < 0)
		return -1;
	find_macro(p, "CRYPTO_SECRETKEYBYTES", &d);
	char *end;
	long v = d.found ? strtol(d.value, &end, 10) : -1;
	if (!d.found || d.conditional || end == d.value || *end || v <= 0)
		return -1;
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
	size_t k = (size_t)snprintf(in->kat_why, sizeof in->kat_why, "ambiguous: %s matches %d different files (", rule, n);
	for (int i = 0; i < n && k < sizeof in->kat_why; i++) {
		k += (size_t)snprintf(in->kat_why + k, sizeof in->kat_why - k, "%s%s", i ? ", " : "", st->kats[idx[i]].rel);
		st->kats[idx[i]].used = 1;
	}
	if (k < sizeof in->kat_why)
		snprintf(in->kat_why + k, sizeof in->kat_why - k, "); set \"vectors\" in the descriptor");
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
	long sk = nist_sk_bytes(in, &line);
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
	int sig = dir_has_file(in->tree, "SIG_AlgorithmInstance.h"), kem = dir_has_file(in->tree, "KEM_AlgorithmInstance.h");
	int api = dir_has_file(in->tree, "api.h");
	if (sig || kem) {
		snprintf(in->api, sizeof in->api, "ngcc");
		snprintf(in->kind, sizeof in->kind, "%s", sig ? "signature" : "kem");
		snprintf(in->api_why, sizeof in->api_why, "NGCC %s API: %s%s", sig ? "signature" : "KEM",
		         sig ? "SIG_AlgorithmInstance.h" : "KEM_AlgorithmInstance.h",
		         api ? " (api.h is there too: the NGCC API wins)" : "");
		return;
	}
	snprintf(in->api, sizeof in->api, "nist");
	char p[PATH_MAX], *text = NULL;
	const char *why = "";
	if (path_fmt(p, sizeof p, NULL, "%s/api.h", in->tree) < 0 || read_whole_file(p, &text, NULL, 1u << 20, NULL) < 0)
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
	size_t k = 0;
	for (int i = 0; i < st->nkat_dirs && k < sizeof looked; i++)
		k += (size_t)snprintf(looked + k, sizeof looked - k, "%s%s/", i ? ", " : "", st->kat_dirs[i]);
	if (!st->nkat_dirs)
		snprintf(looked, sizeof looked, "the package (no KAT folder)");
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
		size_t k = strlen(in->warning);
		snprintf(in->warning + k, sizeof in->warning - k, "%sthe build will fail: %s", k ? "; " : "", err.msg);
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
	    instance_tree_plan(in->tree, st->within, &bp, &perr) == 0 && bp->observed && bp->ninst > 1) {
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
			snprintf(one->name, sizeof one->name, "%s", pi->name[0] ? pi->name : pi->label);
			snprintf(one->name_why, sizeof one->name_why,
			         "observed: the tree's own build (%.300s) links %.200s for it", bp->how, pi->program);
			add_instance_kat(st, one, one->name);
		}
		return;
	}
	add_instance_kat(st, in, dirname);
}

/* The implementation version of an instance: the folder's, plus any variant folders on the way. */
static void version_of(const char *base, const char *path_in_root, char *out, size_t len)
{
	size_t k = (size_t)snprintf(out, len, "%s", base);
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", path_in_root);
	for (char *save = NULL, *c = strtok_r(buf, "/", &save); c && k < len; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, "crypto_sign") == 0 || strcmp(c, "crypto_kem") == 0)
			continue;
		char n[256];
		norm_name(c, n, sizeof n);
		k += (size_t)snprintf(out + k, len - k, "-%s", n);
	}
}

static int is_instance_dir(const char *abs)
{
	return dir_has_file(abs, "SIG_AlgorithmInstance.h") || dir_has_file(abs, "KEM_AlgorithmInstance.h") ||
	       dir_has_file(abs, "api.h");
}

/* Walk an implementation folder; returns the number of instances found below rel. */
static int walk_impl(struct pkg_state *st, const char *rel, const char *in_root, const char *base, int depth)
{
	char abs[PATH_MAX];
	if (path_fmt(abs, sizeof abs, NULL, "%s/%s", st->ps->root, rel) < 0)
		return 0;
	struct dirent **l;
	int n = list_dir(abs, &l);
	if (n < 0) {
		note(st->ps, "skipped %s: cannot read it", rel);
		return 0;
	}
	int found = 0;
	for (int i = 0; i < n; i++) {
		char r[1024], p[PATH_MAX], sub[1024];
		if (path_fmt(r, sizeof r, NULL, "%s/%s", rel, l[i]->d_name) < 0 ||
		    path_fmt(p, sizeof p, NULL, "%s/%s", st->ps->root, r) < 0 || !is_dir(p))
			continue;
		if (is_instance_dir(p)) {
			char version[64];
			version_of(base, in_root, version, sizeof version);
			add_instance(st, r, l[i]->d_name, version);
			found++;
			continue;
		}
		int below = 0;
		if (depth < IMPL_DEPTH &&
		    path_fmt(sub, sizeof sub, NULL, "%s%s%s", in_root, in_root[0] ? "/" : "", l[i]->d_name) == 0)
			below = walk_impl(st, r, sub, base, depth + 1);
		if (!below)
			note(st->ps, "skipped %s: no SIG_AlgorithmInstance.h, KEM_AlgorithmInstance.h or api.h in it%s", r,
			     depth < IMPL_DEPTH ? " or below" : "");
		found += below;
	}
	free_list(l, n);
	return found;
}

/* Top level (and one wrapper folder down): implementation and KAT folders. */
static void walk_top(struct pkg_state *st, const char *rel, int depth, char impl[][1024], const char **impl_ver,
                     int *nimpl)
{
	char abs[PATH_MAX];
	if (path_fmt(abs, sizeof abs, NULL, "%s%s%s", st->ps->root, rel[0] ? "/" : "", rel) < 0)
		return;
	struct dirent **l;
	int n = list_dir(abs, &l);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		char r[1024], p[PATH_MAX];
		if (path_fmt(r, sizeof r, NULL, "%s%s%s", rel, rel[0] ? "/" : "", l[i]->d_name) < 0 ||
		    path_fmt(p, sizeof p, NULL, "%s/%s", st->ps->root, r) < 0 || !is_dir(p))
			continue;
		const char *v = impl_version(l[i]->d_name);
		if (v && *nimpl < 16) {
			snprintf(impl[*nimpl], 1024, "%s", r);
			impl_ver[(*nimpl)++] = v;
		} else if (is_kat_folder(l[i]->d_name) && st->nkat_dirs < 16) {
			snprintf(st->kat_dirs[st->nkat_dirs++], 1024, "%s", r);
			note(st->ps, "KAT folder %s/", r);
			collect_kats(st, r, 1);
		} else if (depth == 0 && is_dir(p)) {
			int before = *nimpl + st->nkat_dirs;
			walk_top(st, r, 1, impl, impl_ver, nimpl);
			if (*nimpl + st->nkat_dirs == before)
				note(st->ps, "skipped %s: not an implementation or KAT folder", r);
		}
	}
	free_list(l, n);
}

int package_scan(const char *dir, const char *within, struct pkg_scan *ps, pq_error *err)
{
	memset(ps, 0, sizeof *ps);
	if (!is_dir(dir))
		return pq_fail(err, PQ_EINPUT, "%s: not a directory", dir);
	if (!realpath(dir, ps->root))
		return pq_fail_errno(err, PQ_EINPUT, "%s", dir);
	struct pkg_state st = { .ps = ps, .within = within ? within : ps->root };
	st.kats = calloc(MAX_KAT_FILES, sizeof *st.kats);
	if (!st.kats)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	char impl[16][1024];
	const char *impl_ver[16];
	int nimpl = 0;
	walk_top(&st, "", 0, impl, impl_ver, &nimpl);
	int r = 0;
	if (nimpl == 0) {
		r = pq_fail(err, PQ_EINPUT,
		            "%s: not a submission package: no Reference_Implementation, Optimized_Implementation or "
		            "Additional_Implementations folder", dir);
		goto out;
	}
	/* Reference first, then optimized, then additional, as evaluators list them. */
	static const char *const rank[] = { "reference", "optimized", "additional" };
	int order[16], no = 0;
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < nimpl; i++)
			if (strcmp(impl_ver[i], rank[k]) == 0)
				order[no++] = i;
	int ngcc = 0, nist = 0;
	for (int o = 0; o < no; o++) {
		int i = order[o];
		int before = ps->ninst;
		char abs[PATH_MAX];
		if (path_fmt(abs, sizeof abs, NULL, "%s/%s", ps->root, impl[i]) == 0 && is_instance_dir(abs)) {
			/* The implementation folder is itself one instance tree. */
			const char *b = strrchr(ps->root, '/');
			add_instance(&st, impl[i], b ? b + 1 : ps->root, impl_ver[i]);
		} else {
			walk_impl(&st, impl[i], "", impl_ver[i], 1);
		}
		note(ps, "implementation folder %s/: implementation version %s, %d instance%s", impl[i], impl_ver[i],
		     ps->ninst - before, ps->ninst - before == 1 ? "" : "s");
	}
	for (int i = 0; i < ps->ninst; i++) {
		ngcc += strcmp(ps->inst[i].api, "ngcc") == 0;
		nist += strcmp(ps->inst[i].api, "nist") == 0;
	}
	snprintf(ps->layout, sizeof ps->layout, "%s", ngcc && nist ? "NGCC+NIST" : ngcc ? "NGCC" : "NIST");
	for (int i = 0; i < st.nkats; i++)
		if (!st.kats[i].used)
			note(ps, "unused KAT file %s: no instance matched it", st.kats[i].rel);
	if (ps->ninst == 0)
		r = pq_fail(err, PQ_EINPUT, "%s: no instance found in its implementation folders", dir);
out:
	free(st.kats);
	return r;
}
