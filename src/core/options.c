/* options: the shared command-line parser; see options.h. */
#include "config.h"
#include "core/options.h"
#include "core/grow.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const struct option_spec *find_long(const struct option_spec *s, const char *name, size_t len)
{
	for (; s->type != OPT_END; s++)
		if (s->long_name && strlen(s->long_name) == len && strncmp(s->long_name, name, len) == 0)
			return s;
	return NULL;
}

static const struct option_spec *find_short(const struct option_spec *s, char c)
{
	for (; s->type != OPT_END; s++)
		if (s->short_name == c)
			return s;
	return NULL;
}

static int list_push(struct opt_list *l, const char *v)
{
	size_t cap = (size_t)l->cap;
	if (pq_grow(&l->items, &cap, (size_t)l->n + 1, sizeof *l->items, 8) < 0 || cap > INT_MAX)
		return -1;
	l->cap = (int)cap;
	l->items[l->n++] = v;
	return 0;
}

static int store(const struct option_spec *s, const char *name, const char *arg, pq_error *err)
{
	char *end;
	switch (s->type) {
	case OPT_FLAG:
		*(int *)s->value = 1;
		return 0;
	case OPT_STRING:
		*(const char **)s->value = arg;
		return 0;
	case OPT_INT:
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (errno || *end || end == arg)
			return pq_fail(err, PQ_EUSAGE, "option %s: '%s' is not an integer", name, arg);
		*(long *)s->value = v;
		return 0;
	case OPT_DOUBLE:
		errno = 0;
		double d = strtod(arg, &end);
		if (errno || *end || end == arg)
			return pq_fail(err, PQ_EUSAGE, "option %s: '%s' is not a number", name, arg);
		*(double *)s->value = d;
		return 0;
	case OPT_LIST:
		if (list_push(s->value, arg) < 0)
			return pq_fail(err, PQ_ENOMEM, "out of memory");
		return 0;
	default:
		return pq_fail(err, PQ_EINTERNAL, "bad option table");
	}
}

int options_parse(int argc, char **argv, const struct option_spec *specs,
                  const char **positional, int max_pos, int *help_wanted,
                  pq_error *err)
{
	int npos = 0, only_pos = 0;
	*help_wanted = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct option_spec *s = NULL;
		const char *arg = NULL;
		if (!only_pos && strcmp(a, "--") == 0) {
			only_pos = 1;
			continue;
		}
		if (!only_pos && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
			*help_wanted = 1;
			return 0;
		}
		if (!only_pos && a[0] == '-' && a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			s = find_long(specs, name, len);
			if (!s)
				return pq_fail(err, PQ_EUSAGE, "unknown option '%s'", a);
			if (eq) {
				if (s->type == OPT_FLAG)
					return pq_fail(err, PQ_EUSAGE, "option --%s takes no value", s->long_name);
				arg = eq + 1;
			}
		} else if (!only_pos && a[0] == '-' && a[1] != '\0') {
			s = find_short(specs, a[1]);
			if (!s)
				return pq_fail(err, PQ_EUSAGE, "unknown option '%s'", a);
			if (a[2] != '\0') {
				if (s->type == OPT_FLAG)
					return pq_fail(err, PQ_EUSAGE, "option -%c takes no value", a[1]);
				arg = a + 2;  /* -DNAME=VALUE */
			}
		} else {
			if (npos >= max_pos)
				return pq_fail(err, PQ_EUSAGE, "unexpected argument '%s'", a);
			positional[npos++] = a;
			continue;
		}
		if (s->type != OPT_FLAG && !arg) {
			if (i + 1 >= argc)
				return pq_fail(err, PQ_EUSAGE, "option '%s' needs a value", a);
			arg = argv[++i];
		}
		int r = store(s, a, arg, err);
		if (r < 0)
			return r;
	}
	return npos;
}

void options_usage(FILE *out, const char *usage, const struct option_spec *specs)
{
	fprintf(out, "usage: %s\n\n", usage);
	for (const struct option_spec *s = specs; s->type != OPT_END; s++) {
		char left[96];
		int n = 0;
		if (s->short_name)
			n = snprintf(left, sizeof left, "-%c%s", s->short_name, s->long_name ? ", " : "");
		if (s->long_name)
			n += snprintf(left + n, sizeof left - (size_t)n, "--%s", s->long_name);
		if (s->type != OPT_FLAG && s->arg_name)
			snprintf(left + n, sizeof left - (size_t)n, " %s", s->arg_name);
		fprintf(out, "  %-28s %s\n", left, s->help ? s->help : "");
	}
}

void opt_list_free(struct opt_list *l)
{
	free(l->items);
	l->items = NULL;
	l->n = l->cap = 0;
}
