/*
 * profile_jget: prints one value of a JSON file, for the end-to-end shell
 * tests that check records and exports (tests/e2e/profile.sh).  Exit 2
 * when the file is not JSON (so "jget FILE ." checks that it parses), 1
 * when the path names nothing.
 *   profile_jget FILE PATH
 * PATH: "." for the whole document, else dot-separated steps, each a key,
 * optionally followed by [N] (array index) or [KEY=VALUE] (the first
 * array element whose KEY is the string VALUE); a final "#" prints the
 * length of the array or object reached.
 */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *select_elem(json_t *arr, const char *sel)
{
	if (!json_is_array(arr))
		return NULL;
	const char *eq = strchr(sel, '=');
	if (!eq)
		return json_array_get(arr, (size_t)strtoul(sel, NULL, 10));
	size_t kl = (size_t)(eq - sel), i;
	json_t *e;
	json_array_foreach(arr, i, e) {
		const char *key;
		json_t *v;
		json_object_foreach(e, key, v) {
			if (strlen(key) == kl && strncmp(key, sel, kl) == 0 && json_is_string(v) &&
			    strcmp(json_string_value(v), eq + 1) == 0)
				return e;
		}
	}
	return NULL;
}

static json_t *walk(json_t *cur, char *path, int *count)
{
	*count = 0;
	size_t n = strlen(path);
	if (n && path[n - 1] == '#') {
		*count = 1;
		path[--n] = 0;
		if (n && path[n - 1] == '.')
			path[--n] = 0;
	}
	if (!n || strcmp(path, ".") == 0)
		return cur;
	for (char *save = NULL, *step = strtok_r(path, ".", &save); step && cur;
	     step = strtok_r(NULL, ".", &save)) {
		char *br = strchr(step, '[');
		if (br)
			*br = 0;
		if (*step)
			cur = json_object_get(cur, step);
		while (br && cur) {
			char *end = strchr(br + 1, ']');
			if (!end)
				return NULL;
			*end = 0;
			cur = select_elem(cur, br + 1);
			br = end[1] == '[' ? end + 1 : NULL;
		}
	}
	return cur;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: profile_jget FILE PATH\n");
		return 2;
	}
	json_error_t je;
	json_t *root = json_load_file(argv[1], 0, &je);
	if (!root) {
		fprintf(stderr, "%s:%d: %s\n", argv[1], je.line, je.text);
		return 2;
	}
	char *path = strdup(argv[2]);
	int count;
	json_t *v = path ? walk(root, path, &count) : NULL;
	int rc = 0;
	if (!v)
		rc = 1;
	else if (count)
		printf("%zu\n", json_is_array(v) ? json_array_size(v) : json_object_size(v));
	else if (json_is_string(v))
		printf("%s\n", json_string_value(v));
	else if (json_is_integer(v))
		printf("%lld\n", (long long)json_integer_value(v));
	else if (json_is_real(v))
		printf("%.6g\n", json_real_value(v));
	else {
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		printf("%s\n", s ? s : "?");
		free(s);
	}
	free(path);
	json_decref(root);
	return rc;
}
