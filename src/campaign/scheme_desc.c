/* scheme_desc: strict reader for scheme.json; see scheme_desc.h. */
#include "config.h"
#include "core/text_buf.h"
#include "campaign/scheme_desc.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "instance/builder.h"
#include "leak/leak_classes.h"
#include "leak/leak_stats.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DESC_MAX_BYTES (4u << 20)

static int copy_str(pq_error *err, const char *path, const char *where, json_t *v, char *out, size_t len,
                    int required)
{
	if (!v) {
		if (required)
			return pq_fail(err, PQ_EINPUT, "%s: %s is missing", path, where);
		out[0] = '\0';
		return 0;
	}
	if (!json_is_string(v))
		return pq_fail(err, PQ_EINPUT, "%s: %s must be a string", path, where);
	const char *s = json_string_value(v);
	if (required && !*s)
		return pq_fail(err, PQ_EINPUT, "%s: %s must not be empty", path, where);
	if (strlen(s) >= len)
		return pq_fail(err, PQ_EINPUT, "%s: %s is longer than %zu characters", path, where, len - 1);
	snprintf(out, len, "%s", s);
	return 0;
}

static int resolve(const char *dir, const char *rel, char *out, size_t len, pq_error *err)
{
	if (!rel[0]) {
		out[0] = '\0';
		return 0;
	}
	char tmp[PATH_MAX * 2];
	int r = rel[0] == '/' ? path_fmt(tmp, sizeof tmp, err, "%s", rel)
	                      : path_fmt(tmp, sizeof tmp, err, "%s/%s", dir, rel);
	if (r < 0)
		return r;
	char real[PATH_MAX];
	return path_fmt(out, len, err, "%s", realpath(tmp, real) ? real : tmp);
}

static int string_list(pq_error *err, const char *path, const char *where, json_t *arr, char **out, int max,
                       int *n)
{
	*n = 0;
	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return pq_fail(err, PQ_EINPUT, "%s: %s must be an array of strings", path, where);
	if ((int)json_array_size(arr) > max)
		return pq_fail(err, PQ_EINPUT, "%s: %s has more than %d entries", path, where, max);
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v) {
		if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) > 512)
			return pq_fail(err, PQ_EINPUT, "%s: %s[%zu] must be a non-empty string", path, where, i);
		if (!(out[*n] = strdup(json_string_value(v))))
			return pq_fail(err, PQ_ENOMEM, "%s: out of memory", path);
		(*n)++;
	}
	return 0;
}

static int parse_instance(json_t *o, int idx, const char *path, const char *dir, struct desc_instance *in,
                          pq_error *err)
{
	char w[64], field[96], tree[PATH_MAX] = "", vec[PATH_MAX] = "", man[PATH_MAX] = "";
	snprintf(w, sizeof w, "instances[%d]", idx);
	if (!json_is_object(o))
		return pq_fail(err, PQ_EINPUT, "%s: %s must be an object", path, w);
	const char *known[] = { "name", "tree", "api", "defines", "cflags", "vectors", "manifest", "slow",
		                        "implementation", "security_category", NULL };
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v) {
		int ok = 0;
		for (int k = 0; known[k]; k++)
			ok |= strcmp(known[k], key) == 0;
		if (!ok)
			return pq_fail(err, PQ_EINPUT, "%s: %s: unknown key '%s'", path, w, key);
	}
	int r;
	snprintf(field, sizeof field, "%s.name", w);
	if ((r = copy_str(err, path, field, json_object_get(o, "name"), in->name, sizeof in->name, 1)) < 0)
		return r;
	snprintf(field, sizeof field, "%s.implementation", w);
	if ((r = copy_str(err, path, field, json_object_get(o, "implementation"), in->implementation,
	                  sizeof in->implementation, 0)) < 0)
		return r;
	for (const char *c = in->implementation; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
		      *c == '_'))
			return pq_fail(err, PQ_EINPUT, "%s: %s.implementation may hold only letters, digits, '-' and '_'",
			               path, w);
	snprintf(field, sizeof field, "%s.tree", w);
	if ((r = copy_str(err, path, field, json_object_get(o, "tree"), tree, sizeof tree, 1)) < 0)
		return r;
	snprintf(field, sizeof field, "%s.api", w);
	if ((r = copy_str(err, path, field, json_object_get(o, "api"), in->api, sizeof in->api, 0)) < 0)
		return r;
	if (!in->api[0])
		snprintf(in->api, sizeof in->api, "auto");
	if (strcmp(in->api, "auto") && strcmp(in->api, "ngcc") && strcmp(in->api, "nist"))
		return pq_fail(err, PQ_EINPUT, "%s: %s.api must be ngcc, nist or auto", path, w);
	snprintf(field, sizeof field, "%s.cflags", w);
	if ((r = copy_str(err, path, field, json_object_get(o, "cflags"), in->cflags, sizeof in->cflags, 0)) < 0)
		return r;
	snprintf(field, sizeof field, "%s.vectors", w);
	if ((r = copy_str(err, path, field, json_object_get(o, "vectors"), vec, sizeof vec, 0)) < 0)
		return r;
	snprintf(field, sizeof field, "%s.manifest", w);
	if ((r = copy_str(err, path, field, json_object_get(o, "manifest"), man, sizeof man, 0)) < 0)
		return r;
	snprintf(field, sizeof field, "%s.defines", w);
	if ((r = string_list(err, path, field, json_object_get(o, "defines"), in->defines, DESC_MAX_DEFINES,
	                     &in->ndefines)) < 0)
		return r;
	json_t *slow = json_object_get(o, "slow");
	if (slow && !json_is_boolean(slow))
		return pq_fail(err, PQ_EINPUT, "%s: %s.slow must be true or false", path, w);
	in->slow = slow && json_is_true(slow);
	json_t *cat = json_object_get(o, "security_category");
	if (cat && (!json_is_integer(cat) || json_integer_value(cat) < 1 || json_integer_value(cat) > 5))
		return pq_fail(err, PQ_EINPUT, "%s: %s.security_category must be an integer from 1 to 5 (the NIST "
		               "security category)", path, w);
	in->security_category = cat ? (int)json_integer_value(cat) : 0;
	if ((r = resolve(dir, tree, in->tree, sizeof in->tree, err)) < 0 ||
	    (r = resolve(dir, vec, in->vectors, sizeof in->vectors, err)) < 0 ||
	    (r = resolve(dir, man, in->manifest, sizeof in->manifest, err)) < 0)
		return r;
	struct stat sb;
	if (stat(in->tree, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return pq_fail(err, PQ_EINPUT, "%s: %s.tree: %s is not a directory", path, w, in->tree);
	return 0;
}

int profile_name_ok(const char *name, char *why, size_t len)
{
	size_t n = strlen(name);
	const char *bad = NULL;
	if (n == 0 || n > 63)
		bad = "must be 1 to 63 characters";
	else if (name[0] == '.' || name[0] == '-')
		bad = "must not start with '.' or '-'";
	else
		for (const char *p = name; *p && !bad; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			      strchr("._+-", *p)))
				bad = "may only hold letters, digits and . _ + -";
	if (bad && why)
		snprintf(why, len, "%s", bad);
	return !bad;
}

int compiler_name_ok(const char *cc)
{
	char why[8];
	return profile_name_ok(cc, why, sizeof why) && !strchr(cc, '/');
}

/* "reference, performance, ..." for messages. */
static const char *builtin_names(void)
{
	static char buf[256];
	buf[0] = '\0';
	for (const struct flag_profile *p = flag_profiles(); p->name; p++)
		text_appendf(buf, sizeof buf, "%s%s", buf[0] ? ", " : "", p->name);
	return buf;
}

/*
 * "profiles": {"NAME": {"cflags": "...", "cc": "clang"}, ...}: new profiles
 * (cflags required), or a built-in name with only a compiler.
 */
static int parse_profile_table(json_t *t, const char *path, struct scheme_desc *d, pq_error *err)
{
	const char *name;
	json_t *v;
	json_object_foreach(t, name, v) {
		char why[96], where[128];
		if (d->nprofiles >= DESC_MAX_PROFILES)
			return pq_fail(err, PQ_EINPUT, "%s: profiles has more than %d entries", path, DESC_MAX_PROFILES);
		if (!profile_name_ok(name, why, sizeof why))
			return pq_fail(err, PQ_EINPUT, "%s: profiles: name '%s' %s", path, name, why);
		if (!json_is_object(v))
			return pq_fail(err, PQ_EINPUT, "%s: profiles.%s must be an object {\"cflags\": ..., \"cc\": ...}", path,
			               name);
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x) {
			if (strcmp(k, "cflags") && strcmp(k, "cc"))
				return pq_fail(err, PQ_EINPUT, "%s: profiles.%s: unknown key '%s' (cflags, cc)", path, name, k);
		}
		struct desc_profile *p = &d->profile_defs[d->nprofiles];
		snprintf(p->name, sizeof p->name, "%s", name);
		json_t *cf = json_object_get(v, "cflags");
		int r;
		snprintf(where, sizeof where, "profiles.%s.cflags", name);
		if ((r = copy_str(err, path, where, cf, p->cflags, sizeof p->cflags, 0)) < 0)
			return r;
		p->has_cflags = cf != NULL;
		snprintf(where, sizeof where, "profiles.%s.cc", name);
		if ((r = copy_str(err, path, where, json_object_get(v, "cc"), p->cc, sizeof p->cc, 0)) < 0)
			return r;
		if (p->cc[0] && !compiler_name_ok(p->cc))
			return pq_fail(err, PQ_EINPUT, "%s: %s '%s' must be a program name found in PATH (gcc, clang, "
			               "gcc-12...), not a path", path, where, p->cc);
		int builtin = flag_profile_find(name) != NULL;
		if (builtin && p->has_cflags)
			return pq_fail(err, PQ_EINPUT, "%s: profiles.%s: '%s' is a built-in profile with its own flags; give "
			               "the new profile another name", path, name, name);
		if (!builtin && !p->has_cflags)
			return pq_fail(err, PQ_EINPUT, "%s: profiles.%s: 'cflags' is missing (built-in profiles: %s)", path,
			               name, builtin_names());
		if (!(d->profiles[d->nprofiles] = strdup(name)))
			return pq_fail(err, PQ_ENOMEM, "%s: out of memory", path);
		d->nprofiles++;
	}
	if (d->nprofiles == 0)
		return pq_fail(err, PQ_EINPUT, "%s: 'profiles' must not be empty", path);
	return 0;
}

/* "leak": true / false, or an object with "time_budget" (seconds), "classes" and "floor". */
static int parse_leak(json_t *v, const char *path, struct scheme_desc *d, pq_error *err)
{
	if (!v)
		return 0;
	if (json_is_boolean(v)) {
		d->leak = json_is_true(v);
		return 0;
	}
	if (!json_is_object(v))
		return pq_fail(err, PQ_EINPUT, "%s: 'leak' must be true, false or an object", path);
	const char *k;
	json_t *x;
	json_object_foreach(v, k, x) {
		if (strcmp(k, "time_budget") && strcmp(k, "classes") && strcmp(k, "floor"))
			return pq_fail(err, PQ_EINPUT, "%s: leak: unknown key '%s' (time_budget, classes, floor)", path, k);
	}
	json_t *b = json_object_get(v, "time_budget");
	if (b && (!json_is_number(b) || !(json_number_value(b) > 0) || json_number_value(b) > 86400))
		return pq_fail(err, PQ_EINPUT, "%s: leak.time_budget must be a number of seconds above 0", path);
	d->leak = 1;
	d->leak_budget_s = b ? json_number_value(b) : 0;
	int r = copy_str(err, path, "leak.classes", json_object_get(v, "classes"), d->leak_classes,
	                 sizeof d->leak_classes, 0);
	char buf[sizeof d->leak_classes], *save = NULL;
	snprintf(buf, sizeof buf, "%s", d->leak_classes);
	for (char *t = strtok_r(buf, ",", &save); r == 0 && t; t = strtok_r(NULL, ",", &save))
		if (!leak_pair_name_known(t))
			r = pq_fail(err, PQ_EINPUT, "%s: leak.classes: unknown class pair '%s'", path, t);
	if (r == 0)
		r = copy_str(err, path, "leak.floor", json_object_get(v, "floor"), d->leak_floor, sizeof d->leak_floor, 0);
	struct leak_floor f = { LEAK_FLOOR_UNITS, LEAK_FLOOR_SHARE };
	char bad[64];
	if (r == 0 && d->leak_floor[0] && leak_floor_parse(d->leak_floor, &f, bad, sizeof bad) < 0)
		r = pq_fail(err, PQ_EINPUT, "%s: leak.floor: '%s' is not a count of counter units (2) or a share of "
		            "the mean below 100%% (0.1%%)", path, bad);
	return r;
}

int scheme_desc_parse(const char *text, size_t len, const char *path, const char *dir,
                      struct scheme_desc *d, pq_error *err)
{
	memset(d, 0, sizeof *d);
	snprintf(d->path, sizeof d->path, "%s", path);
	snprintf(d->dir, sizeof d->dir, "%s", dir);
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return pq_fail(err, PQ_EINPUT, "%s:%d: %s", path, je.line, je.text);
	int r = 0;
	if (!json_is_object(root)) {
		r = pq_fail(err, PQ_EINPUT, "%s: the descriptor must be a JSON object", path);
		goto out;
	}
	/* A misspelt key ("grups") would silently drop what it holds. */
	static const char *const top_keys[] = { "name", "title", "category", "instances", "profiles", "groups", "leak",
	                                        NULL };
	const char *tk;
	json_t *tv;
	json_object_foreach(root, tk, tv) {
		int known = 0;
		for (int k = 0; top_keys[k]; k++)
			known |= strcmp(top_keys[k], tk) == 0;
		if (!known) {
			r = pq_fail(err, PQ_EINPUT, "%s: unknown key '%s'", path, tk);
			goto out;
		}
	}
	if ((r = copy_str(err, path, "name", json_object_get(root, "name"), d->name, sizeof d->name, 1)) < 0 ||
	    (r = copy_str(err, path, "title", json_object_get(root, "title"), d->title, sizeof d->title, 0)) < 0 ||
	    (r = copy_str(err, path, "category", json_object_get(root, "category"), d->category,
	                  sizeof d->category, 0)) < 0)
		goto out;
	if (!d->title[0])
		snprintf(d->title, sizeof d->title, "%s", d->name);
	if (!d->category[0])
		snprintf(d->category, sizeof d->category, "digital signature");
	json_t *insts = json_object_get(root, "instances");
	if (!json_is_array(insts) || json_array_size(insts) == 0) {
		r = pq_fail(err, PQ_EINPUT, "%s: 'instances' must be a non-empty array", path);
		goto out;
	}
	if (json_array_size(insts) > DESC_MAX_INSTANCES) {
		r = pq_fail(err, PQ_EINPUT, "%s: more than %d instances", path, DESC_MAX_INSTANCES);
		goto out;
	}
	size_t i;
	json_t *v;
	json_array_foreach(insts, i, v) {
		/* Counted first, so that a failure half-way frees its defines. */
		d->ninstances++;
		if ((r = parse_instance(v, (int)i, path, dir, &d->instances[i], err)) < 0)
			goto out;
		for (size_t k = 0; k < i; k++)
			if (strcmp(d->instances[k].name, d->instances[i].name) == 0 &&
			    strcmp(d->instances[k].implementation, d->instances[i].implementation) == 0) {
				r = pq_fail(err, PQ_EINPUT, "%s: instance name '%s'%s%s appears twice", path, d->instances[i].name,
				            d->instances[i].implementation[0] ? " with implementation " : "",
				            d->instances[i].implementation);
				goto out;
			}
	}
	json_t *profs = json_object_get(root, "profiles");
	if (json_is_object(profs)) {
		if ((r = parse_profile_table(profs, path, d, err)) < 0)
			goto out;
	} else {
		if ((r = string_list(err, path, "profiles", profs, d->profiles, DESC_MAX_PROFILES, &d->nprofiles)) < 0)
			goto out;
		for (int k = 0; k < d->nprofiles; k++) {
			if (!flag_profile_find(d->profiles[k])) {
				r = pq_fail(err, PQ_EINPUT, "%s: profiles: unknown flag profile '%s' (built-in: %s; a table "
				            "\"profiles\": {\"NAME\": {\"cflags\": \"...\"}} defines new ones)", path,
				            d->profiles[k], builtin_names());
				goto out;
			}
			snprintf(d->profile_defs[k].name, sizeof d->profile_defs[k].name, "%s", d->profiles[k]);
		}
	}
	json_t *groups = json_object_get(root, "groups");
	if (groups && !json_is_object(groups)) {
		r = pq_fail(err, PQ_EINPUT, "%s: 'groups' must be an object of glob lists", path);
		goto out;
	}
	const char *gname;
	json_object_foreach(groups, gname, v) {
		if (d->ngroups >= DESC_MAX_GROUPS) {
			r = pq_fail(err, PQ_EINPUT, "%s: more than %d groups", path, DESC_MAX_GROUPS);
			goto out;
		}
		struct desc_group *g = &d->groups[d->ngroups];
		if (strlen(gname) == 0 || strlen(gname) >= sizeof g->name) {
			r = pq_fail(err, PQ_EINPUT, "%s: group name '%s' is empty or too long", path, gname);
			goto out;
		}
		snprintf(g->name, sizeof g->name, "%s", gname);
		char where[96];
		snprintf(where, sizeof where, "groups.%s", gname);
		d->ngroups++;
		if ((r = string_list(err, path, where, v, g->globs, DESC_MAX_GLOBS, &g->nglobs)) < 0)
			goto out;
	}
	if ((r = parse_leak(json_object_get(root, "leak"), path, d, err)) < 0)
		goto out;
out:
	json_decref(root);
	if (r < 0)
		scheme_desc_free(d);
	return r;
}

int scheme_desc_read(const char *path, struct scheme_desc *d, pq_error *err)
{
	char file[PATH_MAX], real[PATH_MAX];
	struct stat sb;
	if (stat(path, &sb) != 0)
		return pq_fail_errno(err, PQ_EINPUT, "%s", path);
	int r = S_ISDIR(sb.st_mode) ? path_fmt(file, sizeof file, err, "%s/scheme.json", path)
	                            : path_fmt(file, sizeof file, err, "%s", path);
	if (r < 0)
		return r;
	if (!realpath(file, real))
		return pq_fail_errno(err, PQ_EINPUT, "%s", file);
	char *text = NULL;
	size_t len = 0;
	r = read_whole_file(real, &text, &len, DESC_MAX_BYTES, err);
	if (r < 0)
		return r;
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", real);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	r = scheme_desc_parse(text, len, real, dir, d, err);
	free(text);
	return r;
}

void scheme_desc_free(struct scheme_desc *d)
{
	for (int i = 0; i < d->ninstances; i++)
		for (int k = 0; k < d->instances[i].ndefines; k++)
			free(d->instances[i].defines[k]);
	for (int k = 0; k < d->nprofiles; k++)
		free(d->profiles[k]);
	for (int g = 0; g < d->ngroups; g++)
		for (int k = 0; k < d->groups[g].nglobs; k++)
			free(d->groups[g].globs[k]);
	d->ninstances = d->nprofiles = d->ngroups = 0;
}
