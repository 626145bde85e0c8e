/* jpath: tolerant dotted-path lookups into records; see jpath.h. */
#include "config.h"
#include "core/jpath.h"

#include <string.h>

json_t *jp(const json_t *root, const char *path)
{
	json_t *cur = (json_t *)root;
	const char *p = path;
	while (cur && p && *p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		char key[256];
		if (!json_is_object(cur) || n >= sizeof key)
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		cur = json_object_get(cur, key);
		p = dot ? dot + 1 : NULL;
	}
	return cur;
}

double jp_num(const json_t *root, const char *path, double dflt)
{
	json_t *v = jp(root, path);
	return json_is_number(v) ? json_number_value(v) : dflt;
}

long long jp_int(const json_t *root, const char *path, long long dflt)
{
	json_t *v = jp(root, path);
	return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

const char *jp_str(const json_t *root, const char *path, const char *dflt)
{
	json_t *v = jp(root, path);
	return json_is_string(v) ? json_string_value(v) : dflt;
}

const char *jp_text(const json_t *root, const char *path, const char *dflt)
{
	const char *s = jp_str(root, path, NULL);
	return s && *s ? s : dflt;
}

int jp_true(const json_t *root, const char *path)
{
	return json_is_true(jp(root, path));
}
