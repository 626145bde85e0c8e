/* api_category: the security category an API header states; see api_category.h. */
#include "config.h"
#include "instance/api_category.h"
#include "core/atomic_file.h"
#include "instance/tree_scan.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Largest header read; API headers are small. */
#define API_HEADER_MAX (1u << 20)

int api_category_name_ok(const char *name)
{
	static const char *const ends[] = { "SECURITY_LEVEL", "SECURITY_CATEGORY", "NIST_LEVEL" };
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
		size_t e = strlen(ends[i]);
		if (n >= e && strcasecmp(name + n - e, ends[i]) == 0 && (n == e || name[n - e - 1] == '_'))
			return 1;
	}
	return 0;
}

/* An integer 1..5 alone on the rest of a #define line ("3", "(3)", "3U", "3 // comment"), else 0. */
static int category_value(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '('))
		p++;
	if (p >= end || *p < '1' || *p > '5')
		return 0;
	int v = *p++ - '0';
	if (p < end && (*p == 'u' || *p == 'U'))
		p++;
	while (p < end && (*p == ' ' || *p == '\t' || *p == ')' || *p == '\r'))
		p++;
	if (p < end && !(p + 1 < end && p[0] == '/' && (p[1] == '/' || p[1] == '*')))
		return 0;
	return v;
}

int api_category_from_text(const char *text, size_t len, char *name, size_t nlen)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		const char *q = p;
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		if (q < eol && *q == '#') {
			q++;
			while (q < eol && (*q == ' ' || *q == '\t'))
				q++;
			if (eol - q > 6 && strncmp(q, "define", 6) == 0 && (q[6] == ' ' || q[6] == '\t')) {
				q += 6;
				while (q < eol && (*q == ' ' || *q == '\t'))
					q++;
				char id[128];
				size_t k = 0;
				while (q < eol && (isalnum((unsigned char)*q) || *q == '_') && k + 1 < sizeof id)
					id[k++] = *q++;
				id[k] = '\0';
				int v = k && q < eol && *q != '(' ? category_value(q, eol) : 0;
				if (v && api_category_name_ok(id)) {
					snprintf(name, nlen, "%s", id);
					return v;
				}
			}
		}
		p = eol + 1;
	}
	return 0;
}

static int category_of_file(const char *path, char *name, size_t nlen)
{
	char *text = NULL;
	size_t len = 0;
	pq_error ignore = { 0 };
	if (read_whole_file(path, &text, &len, API_HEADER_MAX, &ignore) < 0)
		return 0;
	int v = api_category_from_text(text, len, name, nlen);
	free(text);
	return v;
}

int api_category_of_tree(const char *tree, char *name, size_t nlen, int *kem)
{
	struct tree_scan *ts = calloc(1, sizeof *ts);
	pq_error ignore = { 0 };
	int v = 0;
	if (kem)
		*kem = 0;
	if (!ts || tree_scan_dir(tree, TREE_API_AUTO, ts, &ignore) < 0) {
		free(ts);
		return 0;
	}
	if (kem)
		*kem = ts->kind == TREE_KIND_KEM;
	char path[PATH_MAX * 2];
	if (ts->header[0]) {
		snprintf(path, sizeof path, "%s/%s", ts->root, ts->header);
		v = category_of_file(path, name, nlen);
		char *slash = strrchr(path, '/');
		if (!v && slash && strcmp(slash + 1, "api.h") != 0) {
			snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "api.h");
			v = category_of_file(path, name, nlen);
		}
	}
	tree_scan_free(ts);
	free(ts);
	return v;
}
