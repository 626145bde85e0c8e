/* package_desc: a package's instances as a scheme descriptor; see package_desc.h. */
#include "config.h"
#include "campaign/package_desc.h"
#include "core/safe_name.h"
#include "core/text_buf.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/*
 * `to` relative to the directory `from` (both absolute, without trailing
 * slashes); -1 when it does not fit out[len], for a cut path would name
 * another file.
 */
static int relative_path(const char *from, const char *to, char *out, size_t len)
{
	size_t common = 0;
	for (size_t i = 0;; i++) {
		if ((from[i] == '\0' || from[i] == '/') && (to[i] == '\0' || to[i] == '/'))
			common = i;
		if (from[i] == '\0' || to[i] == '\0' || from[i] != to[i])
			break;
	}
	out[0] = '\0';
	for (const char *p = from + common; *p; p++)
		if (*p == '/' && text_appendf(out, len, "../") < 0)
			return -1;
	const char *rest = to + common;
	if (*rest == '/')
		rest++;
	if (!*rest && out[0]) {
		out[strlen(out) - 1] = '\0';  /* "../" -> ".." */
		return 0;
	}
	return text_appendf(out, len, "%s", *rest ? rest : ".");
}

/* The path as the descriptor gives it: relative to the descriptor's directory, else (too long) absolute. */
static const char *shown_path(const char *desc_dir, const char *abs, char *buf, size_t len)
{
	if (!desc_dir || relative_path(desc_dir, abs, buf, len) < 0)
		return abs;
	return buf;
}

int package_desc_text(const struct pkg_scan *ps, const char *desc_dir, char **text, pq_error *err)
{
	*text = NULL;
	char real_dir[PATH_MAX];
	if (desc_dir && !realpath(desc_dir, real_dir))
		return pq_fail_errno(err, PQ_EINPUT, "%s", desc_dir);
	const char *base = strrchr(ps->root, '/');
	base = base && base[1] ? base + 1 : ps->root;
	char name[128];
	safe_name(name, sizeof name, base);
	int kem = 0, sig = 0;
	for (int i = 0; i < ps->ninst; i++) {
		kem += strcmp(ps->inst[i].kind, "kem") == 0;
		sig += strcmp(ps->inst[i].kind, "kem") != 0;
	}
	json_t *insts = json_array();
	for (int i = 0; i < ps->ninst; i++) {
		const struct pkg_instance *in = &ps->inst[i];
		char t[PATH_MAX], v[PATH_MAX];
		json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "name", in->name, "implementation", in->implementation, "tree",
		                      shown_path(desc_dir ? real_dir : NULL, in->tree, t, sizeof t), "api", in->api);
		if (in->vectors[0])
			json_object_set_new(o, "vectors",
			                    json_string(shown_path(desc_dir ? real_dir : NULL, in->vectors, v, sizeof v)));
		json_array_append_new(insts, o);
	}
	json_t *root = json_pack("{s:s, s:s, s:s, s:[s], s:o}", "name", name, "title", base, "category",
	                         kem && !sig ? "key encapsulation" : "digital signature", "profiles", "harness-default",
	                         "instances", insts);
	char *s = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(root);
	if (!s)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	size_t n = strlen(s);
	*text = realloc(s, n + 2);
	if (!*text) {
		free(s);
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	}
	memcpy(*text + n, "\n", 2);
	return 0;
}

int package_desc_from_scan(const struct pkg_scan *ps, struct scheme_desc *d, pq_error *err)
{
	char *text = NULL;
	int r = package_desc_text(ps, NULL, &text, err);
	if (r == 0) {
		char path[PATH_MAX + 64];
		snprintf(path, sizeof path, "%s (descriptor discovered from the package)", ps->root);
		r = scheme_desc_parse(text, strlen(text), path, ps->root, d, err);
	}
	free(text);
	return r;
}

int package_desc_load(const char *dir, const char *within, struct scheme_desc *d, pq_error *err)
{
	struct pkg_scan *ps = calloc(1, sizeof *ps);
	if (!ps)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	int r = package_scan(dir, within, ps, err);
	if (r == 0)
		r = package_desc_from_scan(ps, d, err);
	free(ps);
	return r;
}
