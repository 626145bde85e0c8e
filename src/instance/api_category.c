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

/* Names of hash functions and ciphers whose digits are output or key lengths. */
static int is_primitive_name(const char *letters, size_t n)
{
	static const char *const names[] = { "sha", "sha2", "sha3", "shake", "aes", "keccak", "blake", "blake2",
		                             "blake3", "haraka", "sm3", NULL };
	for (int i = 0; names[i]; i++)
		if (strlen(names[i]) == n && strncasecmp(letters, names[i], n) == 0)
			return 1;
	return 0;
}

/* 1-5 for a Roman numeral I..V token, else 0. */
static int roman(const char *t)
{
	static const char *const r[] = { "i", "ii", "iii", "iv", "v" };
	for (int i = 0; i < 5; i++)
		if (strcasecmp(t, r[i]) == 0)
			return i + 1;
	return 0;
}

static int is_level_word(const char *t, size_t n)
{
	return (n == 3 && (strncasecmp(t, "lvl", 3) == 0 || strncasecmp(t, "cat", 3) == 0)) ||
	       (n == 5 && strncasecmp(t, "level", 5) == 0) || (n == 8 && strncasecmp(t, "category", 8) == 0);
}

/*
 * The category one token states, given the token before it (prev, "" at
 * the start) and after it (next, "" at the end); 0 when none.  *shown is
 * the part of t that states it ("128f" of "Wren128f").
 */
static int token_category(const char *t, const char *prev, const char *next, const char **shown)
{
	*shown = t;
	size_t n = strlen(t), letters = 0, digits = 0;
	while (letters < n && isalpha((unsigned char)t[letters]))
		letters++;
	while (letters + digits < n && isdigit((unsigned char)t[letters + digits]))
		digits++;
	size_t rest = n - letters - digits;
	for (size_t i = letters + digits; i < n; i++)
		if (!isalpha((unsigned char)t[i]))
			return 0;
	/* L1 .. L5 */
	if (letters == 1 && digits == 1 && rest == 0 && tolower((unsigned char)t[0]) == 'l' && t[1] >= '1' && t[1] <= '5')
		return t[1] - '0';
	/* lvl1, level3, cat5; lvl-1 (the digit as the next token); Category III */
	if (is_level_word(t, letters) && digits == 1 && rest == 0 && t[letters] >= '1' && t[letters] <= '5')
		return t[letters] - '0';
	if (is_level_word(t, n)) {
		if (strlen(next) == 1 && next[0] >= '1' && next[0] <= '5')
			return next[0] - '0';
		return roman(next);
	}
	/* 128, 128f, Wren128f; not SHA3-256 or shake256 */
	if (digits == 3 && rest <= 2) {
		int v = (int)strtol(t + letters, NULL, 10);
		int c = v == 128 ? 1 : v == 192 ? 3 : v == 256 ? 5 : 0;
		if (!c || (letters && is_primitive_name(t, letters)) ||
		    (!letters && rest == 0 && is_primitive_name(prev, strlen(prev))))
			return 0;
		*shown = t + letters;
		return c;
	}
	return 0;
}

int category_from_name(const char *name, char *token, size_t tlen)
{
	char tok[32][32];
	int nt = 0, found = 0;
	if (token && tlen)
		token[0] = '\0';
	for (const char *p = name; *p && nt < 32;) {
		while (*p && !isalnum((unsigned char)*p))
			p++;
		size_t n = 0;
		while (p[n] && isalnum((unsigned char)p[n]))
			n++;
		if (!n)
			break;
		snprintf(tok[nt++], sizeof tok[0], "%.*s", (int)(n < 31 ? n : 31), p);
		p += n;
	}
	for (int i = 0; i < nt; i++) {
		const char *shown;
		int c = token_category(tok[i], i ? tok[i - 1] : "", i + 1 < nt ? tok[i + 1] : "", &shown);
		if (!c)
			continue;
		if (found && c != found)
			return 0;
		if (!found && token && tlen && shown == tok[i] && is_level_word(tok[i], strlen(tok[i])) && i + 1 < nt)
			snprintf(token, tlen, "%s %s", tok[i], tok[i + 1]);
		else if (!found && token && tlen)
			snprintf(token, tlen, "%s", shown);
		found = c;
	}
	return found;
}
