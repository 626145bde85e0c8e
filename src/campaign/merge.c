/* merge: combine campaign directories; see merge.h. */
#include "config.h"
#include "core/path_name.h"
#include "campaign/merge.h"
#include "campaign/steps.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "core/json_file.h"

#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Environment fields that change what the figures mean. */
const char *const campaign_env_keys[] = {
	"processor", "max_clock", "governor", "turbo", "smt", "memory", "os", "kernel",
	"pqprof_version", "hardware_pmu", "machine", NULL,
};

static const char *const subdirs[] = { "lib", "build", "kat", "records", "memory", "sizes", "profile",
	                               "traces", "flame", "interposition", "leak", "output", "paired", NULL };

static int copy_file(const char *from, const char *to, pq_error *err)
{
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	int r = read_whole_file(from, &a, &la, 0, err);
	if (r < 0)
		return r;
	if (read_whole_file(to, &b, &lb, 0, NULL) == 0) {
		int same = la == lb && memcmp(a, b, la) == 0;
		free(a);
		free(b);
		if (!same)
			return pq_fail(err, PQ_EINPUT, "%s: conflicts with %s (same record, different contents)", from, to);
		return 0;
	}
	r = atomic_write(to, a, la, err);
	free(a);
	return r;
}

static int copy_dir(const char *from, const char *to, pq_error *err)
{
	DIR *d = opendir(from);
	if (!d)
		return 0;
	int r = make_dirs(to, err);
	struct dirent *de;
	while (r == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char a[PATH_MAX], b[PATH_MAX];
		if ((r = path_fmt(a, sizeof a, err, "%s/%s", from, de->d_name)) < 0 ||
		    (r = path_fmt(b, sizeof b, err, "%s/%s", to, de->d_name)) < 0)
			break;
		struct stat sb;
		if (stat(a, &sb) == 0 && S_ISREG(sb.st_mode))
			r = copy_file(a, b, err);
		else if (S_ISDIR(sb.st_mode))
			r = copy_dir(a, b, err); /* build/<unit>/compile_commands.json */
	}
	closedir(d);
	return r;
}

/*
 * Check one input folder before anything is written: every entry a regular
 * file or a folder inside the campaign (a link out of it, a FIFO, a device
 * is refused), every JSON record parseable.  Nothing is copied from a set
 * that fails here.
 */
static int validate_dir(const char *root, const char *from, pq_error *err)
{
	DIR *d = opendir(from);
	if (!d)
		return 0;
	int r = 0;
	struct dirent *de;
	while (r == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char a[PATH_MAX];
		if ((r = path_fmt(a, sizeof a, err, "%s/%s", from, de->d_name)) < 0)
			break;
		struct stat sb;
		if (lstat(a, &sb) != 0) {
			r = pq_fail_errno(err, PQ_EINPUT, "%s", a);
		} else if (S_ISLNK(sb.st_mode) && !path_inside_tree(a, root)) {
			r = pq_fail(err, PQ_EINPUT, "%s: a link out of the campaign folder %s: not merged", a, root);
		} else if (stat(a, &sb) != 0) {
			r = pq_fail_errno(err, PQ_EINPUT, "%s", a);
		} else if (S_ISDIR(sb.st_mode)) {
			r = validate_dir(root, a, err);
		} else if (!S_ISREG(sb.st_mode)) {
			r = pq_fail(err, PQ_EINPUT, "%s: not a regular file (%s): not merged", a,
			            S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device"
			                                                                            : "a special file");
		} else {
			size_t n = strlen(a);
			if (n > 5 && strcmp(a + n - 5, ".json") == 0) {
				json_error_t je;
				json_t *j = json_load_regular(a, 0, &je);
				if (!j)
					r = pq_fail(err, PQ_EINPUT, "%s: not a valid record (line %d: %s): nothing merged", a, je.line,
					            je.text);
				json_decref(j);
			}
		}
	}
	closedir(d);
	return r;
}

static const char *env_str(json_t *env, const char *k)
{
	json_t *v = json_object_get(env, k);
	static char num[64];
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
		return num;
	}
	return "unknown";
}

int campaign_merge(const char *out, const char *const *inputs, int n, int force, pq_error *err)
{
	json_t *first = NULL, *merged = NULL;
	int r = 0;
	for (int i = 0; i < n && r == 0; i++) {
		char p[PATH_MAX];
		if ((r = path_fmt(p, sizeof p, err, "%s/campaign.json", inputs[i])) < 0)
			break;
		json_error_t je;
		json_t *c = json_load_regular(p, 0, &je);
		if (!c) {
			r = pq_fail(err, PQ_EINPUT, "%s: not a campaign directory (%s)", inputs[i], je.text);
			break;
		}
		if (!first) {
			first = c;
			merged = json_deep_copy(c);
			json_object_set_new(merged, "merged_from", json_array());
		} else {
			const char *s1 = json_string_value(json_object_get(json_object_get(first, "scheme"), "name"));
			const char *s2 = json_string_value(json_object_get(json_object_get(c, "scheme"), "name"));
			if (!s1 || !s2 || strcmp(s1, s2) != 0)
				r = pq_fail(err, PQ_EINPUT, "%s: scheme %s, but %s holds %s", inputs[i], s2 ? s2 : "?", inputs[0],
				            s1 ? s1 : "?");
			json_t *e1 = json_object_get(first, "environment"), *e2 = json_object_get(c, "environment");
			for (int k = 0; r == 0 && campaign_env_keys[k]; k++) {
				char a[256];
				snprintf(a, sizeof a, "%s", env_str(e1, campaign_env_keys[k]));
				const char *b = env_str(e2, campaign_env_keys[k]);
				if (strcmp(a, b) != 0 && !force)
					r = pq_fail(err, PQ_EINPUT,
					            "%s: environment differs from %s (%s: '%s' vs '%s'); use --force to merge anyway",
					            inputs[i], inputs[0], campaign_env_keys[k], b, a);
			}
			/* union of instances, widest time span */
			size_t j;
			json_t *u;
			json_array_foreach(json_object_get(c, "instances"), j, u) {
				const char *label = json_string_value(json_object_get(u, "label"));
				size_t m;
				json_t *x;
				int dup = 0;
				json_array_foreach(json_object_get(merged, "instances"), m, x)
					dup |= label && strcmp(label, json_string_value(json_object_get(x, "label")) ?: "") == 0;
				if (!dup)
					json_array_append(json_object_get(merged, "instances"), u);
			}
			const char *st = json_string_value(json_object_get(c, "start_utc"));
			const char *en = json_string_value(json_object_get(c, "end_utc"));
			const char *mst = json_string_value(json_object_get(merged, "start_utc"));
			const char *men = json_string_value(json_object_get(merged, "end_utc"));
			if (st && (!mst || strcmp(st, mst) < 0))
				json_object_set_new(merged, "start_utc", json_string(st));
			if (en && (!men || strcmp(en, men) > 0))
				json_object_set_new(merged, "end_utc", json_string(en));
			if (strcmp(json_string_value(json_object_get(c, "status")) ?: "", "complete") != 0)
				json_object_set_new(merged, "status", json_string("incomplete"));
			if (json_is_true(json_object_get(c, "quick")))
				json_object_set_new(merged, "quick", json_true());
			json_decref(c);
		}
		if (r == 0)
			json_array_append_new(json_object_get(merged, "merged_from"), json_string(inputs[i]));
	}
	/* Every input checked whole before the first byte is written. */
	for (int i = 0; i < n && r == 0; i++)
		for (int s = 0; subdirs[s] && r == 0; s++) {
			char a[PATH_MAX];
			if ((r = path_fmt(a, sizeof a, err, "%s/%s", inputs[i], subdirs[s])) == 0)
				r = validate_dir(inputs[i], a, err);
		}
	for (int i = 0; i < n && r == 0; i++)
		for (int s = 0; subdirs[s] && r == 0; s++) {
			char a[PATH_MAX], b[PATH_MAX];
			if ((r = path_fmt(a, sizeof a, err, "%s/%s", inputs[i], subdirs[s])) == 0 &&
			    (r = path_fmt(b, sizeof b, err, "%s/%s", out, subdirs[s])) == 0)
				r = copy_dir(a, b, err);
		}
	if (r == 0) {
		json_object_del(merged, "shard");
		char p[PATH_MAX];
		r = path_fmt(p, sizeof p, err, "%s/campaign.json", out);
		if (r == 0)
			r = json_file_write(p, merged, err);
	}
	if (r == 0)
		r = steps_report(out, err);
	json_decref(first);
	json_decref(merged);
	return r;
}
