/*
 * json_mask: prints a JSON file with what varies from run to run and from
 * machine to machine masked, so that the rest can be compared with an
 * expected file (tests/e2e/campaign_golden.sh).  What stays is structure,
 * names, verdicts, states and wording; what goes is every measured figure.
 *   json_mask RULES FILE [FROM=TO ...]
 * Always: a number becomes "<num>", an array of numbers "<numbers>" (its
 * length is a count of calls), a run of 16 or more hex digits "<hex>", a
 * UTC time (2024-01-31T12:00:00Z) "<utc>", and each FROM in a string
 * becomes TO (a scratch directory, the source tree).  RULES, one a line
 * ("#" starts a comment), add:
 *   mask PATH           the value becomes "<masked>" (the key stays)
 *   keep PATH           numbers under PATH are kept (sizes in bytes)
 *   drop PATH KEY=VAL   array elements at PATH whose KEY is the string VAL go
 * PATH: dot-separated keys; "*" is any one key or array index, "**" any
 * number of them (none included).  Output: indented, keys sorted.
 */
#include "config.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RULES 128
#define MAX_DEPTH 64
#define MAX_SUBS 8

enum action { MASK, KEEP, DROP };

struct rule {
	enum action act;
	char *seg[MAX_DEPTH];
	int nseg;
	char key[128], val[256];    /* drop only */
};

static struct rule rules[MAX_RULES];
static int nrules;
static const char *sub_from[MAX_SUBS], *sub_to[MAX_SUBS];
static int nsubs;

/* Whether path[0..n) matches the rule's segments from s on. */
static int match(const struct rule *r, int s, const char *const *path, int n)
{
	if (s == r->nseg)
		return n == 0;
	if (strcmp(r->seg[s], "**") == 0)
		return match(r, s + 1, path, n) || (n > 0 && match(r, s, path + 1, n - 1));
	return n > 0 && (strcmp(r->seg[s], "*") == 0 || strcmp(r->seg[s], path[0]) == 0) &&
	       match(r, s + 1, path + 1, n - 1);
}

static const struct rule *find_rule(enum action act, const char *const *path, int n)
{
	for (int i = 0; i < nrules; i++)
		if (rules[i].act == act && match(&rules[i], 0, path, n))
			return &rules[i];
	return NULL;
}

static int is_utc(const char *p)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
	for (int i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)p[i]) : p[i] != shape[i])
			return 0;
	return 1;
}

static size_t hex_run(const char *p)
{
	size_t n = 0;
	while (isxdigit((unsigned char)p[n]))
		n++;
	return n;
}

static json_t *mask_string(const char *s)
{
	size_t cap = strlen(s) * 2 + 64, len = 0;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	while (*s) {
		const char *rep = NULL;
		size_t skip = 0;
		for (int i = 0; i < nsubs && !rep; i++)
			if (strncmp(s, sub_from[i], strlen(sub_from[i])) == 0)
				rep = sub_to[i], skip = strlen(sub_from[i]);
		if (!rep && is_utc(s))
			rep = "<utc>", skip = 20;
		if (!rep && hex_run(s) >= 16)
			rep = "<hex>", skip = hex_run(s);
		if (!rep) {
			static char one[2];
			one[0] = *s;
			rep = one, skip = 1;
		}
		size_t rl = strlen(rep);
		if (len + rl + 1 > cap) {
			cap = (len + rl + 1) * 2;
			char *grown = realloc(out, cap);
			if (!grown) {
				free(out);
				return NULL;
			}
			out = grown;
		}
		memcpy(out + len, rep, rl);
		len += rl;
		s += skip;
	}
	out[len] = '\0';
	json_t *j = json_string(out);
	free(out);
	return j;
}

static int all_numbers(const json_t *a)
{
	size_t i;
	json_t *e;
	if (json_array_size(a) == 0)
		return 0;
	json_array_foreach(a, i, e)
		if (!json_is_number(e))
			return 0;
	return 1;
}

static int dropped(const json_t *e, const char *const *path, int n)
{
	for (int i = 0; i < nrules; i++) {
		const struct rule *r = &rules[i];
		const char *v = json_string_value(json_object_get(e, r->key));
		if (r->act == DROP && v && strcmp(v, r->val) == 0 && match(r, 0, path, n))
			return 1;
	}
	return 0;
}

/* A masked copy of v, found at path[0..n). */
static json_t *mask(const json_t *v, const char **path, int n, int keep)
{
	if (n > 0 && find_rule(MASK, path, n))
		return json_string("<masked>");
	keep = keep || find_rule(KEEP, path, n);
	if (json_is_object(v)) {
		json_t *o = json_object();
		const char *k;
		json_t *e;
		json_object_foreach((json_t *)v, k, e) {
			if (n >= MAX_DEPTH)
				break;
			path[n] = k;
			json_object_set_new(o, k, mask(e, path, n + 1, keep));
		}
		return o;
	}
	if (json_is_array(v)) {
		if (!keep && all_numbers(v))
			return json_string("<numbers>");
		json_t *a = json_array();
		size_t i;
		json_t *e;
		char idx[32];
		json_array_foreach(v, i, e) {
			if (n >= MAX_DEPTH || dropped(e, path, n))
				continue;
			snprintf(idx, sizeof idx, "%zu", i);
			path[n] = idx;
			json_array_append_new(a, mask(e, path, n + 1, keep));
		}
		return a;
	}
	if (json_is_number(v))
		return keep ? json_deep_copy(v) : json_string("<num>");
	if (json_is_string(v))
		return mask_string(json_string_value(v));
	return json_deep_copy(v);
}

static int read_rules(const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		perror(file);
		return -1;
	}
	char line[1024];
	int lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *act = strtok(line, " \t\r\n"), *path = strtok(NULL, " \t\r\n"), *kv = strtok(NULL, " \t\r\n");
		if (!act)
			continue;
		struct rule *r = &rules[nrules];
		r->act = strcmp(act, "mask") == 0 ? MASK : strcmp(act, "keep") == 0 ? KEEP : DROP;
		char *eq = kv ? strchr(kv, '=') : NULL;
		if (nrules == MAX_RULES || !path || (r->act == DROP) != (eq != NULL) ||
		    (r->act == DROP && strcmp(act, "drop") != 0)) {
			fprintf(stderr, "%s:%d: bad rule\n", file, lineno);
			fclose(f);
			return -1;
		}
		if (eq) {
			*eq = '\0';
			snprintf(r->key, sizeof r->key, "%s", kv);
			snprintf(r->val, sizeof r->val, "%s", eq + 1);
		}
		for (char *s = strtok(path, "."); s && r->nseg < MAX_DEPTH; s = strtok(NULL, "."))
			r->seg[r->nseg++] = strdup(s);
		nrules++;
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: json_mask RULES FILE [FROM=TO ...]\n");
		return 2;
	}
	if (read_rules(argv[1]) < 0)
		return 2;
	for (int i = 3; i < argc && nsubs < MAX_SUBS; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq || eq == argv[i])
			continue;   /* an empty FROM would match everywhere */
		*eq = '\0';
		sub_from[nsubs] = argv[i];
		sub_to[nsubs++] = eq + 1;
	}
	json_error_t je;
	json_t *in = json_load_file(argv[2], 0, &je);
	if (!in) {
		fprintf(stderr, "%s:%d: %s\n", argv[2], je.line, je.text);
		return 2;
	}
	const char *path[MAX_DEPTH];
	json_t *out = mask(in, path, 0, 0);
	int r = json_dumpf(out, stdout, JSON_INDENT(1) | JSON_SORT_KEYS) == 0 && putchar('\n') != EOF ? 0 : 1;
	json_decref(in);
	json_decref(out);
	return r;
}
