/* options: the shared command-line parser; see options.h. */
#include "config.h"
#include "core/options.h"
#include "core/grow.h"
#include "core/text_buf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
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

static int parse_double(const char *name, const char *arg, double *out, pq_error *err)
{
	char *end;
	errno = 0;
	double d = strtod(arg, &end);
	if (errno || *end || end == arg)
		return pq_fail(err, PQ_EUSAGE, "option %s: '%s' is not a number", name, arg);
	*out = d;
	return 0;
}

/* An unsigned 64-bit decimal: no sign, no fraction or exponent, nothing past 2^64 - 1. */
static int parse_u64(const char *name, const char *arg, uint64_t *out, pq_error *err)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	/* strtoull takes a leading '-' (and blanks before it) and negates: refuse all but digits first. */
	if (*arg < '0' || *arg > '9' || errno || *end || end == arg)
		return pq_fail(err, PQ_EUSAGE, "option %s: '%s' is not an unsigned 64-bit integer", name, arg);
	*out = (uint64_t)v;
	return 0;
}

/* SCOPE=S sets that scope; a plain S the first (unnamed) one. */
static int store_scoped(const struct option_spec *s, const char *name, const char *scope, const char *arg,
                        pq_error *err)
{
	const struct opt_scope *sc = s->value;
	const char *eq = scope ? NULL : strchr(arg, '=');
	size_t len = scope ? strlen(scope) : eq ? (size_t)(eq - arg) : 0;
	if (!scope && !eq)
		return parse_double(name, arg, sc[0].value, err);
	const char *key = scope ? scope : arg;
	for (int i = 1; sc[i].name; i++)
		if (strlen(sc[i].name) == len && strncmp(sc[i].name, key, len) == 0)
			return parse_double(name, scope ? arg : eq + 1, sc[i].value, err);
	/* pqprof's own scope names: too many for known ends it in ", …". */
	char known[256] = "";
	for (int i = 1; sc[i].name; i++)
		text_add_item(known, sizeof known, ", ", sc[i].name, ", \u2026");
	return pq_fail(err, PQ_EUSAGE, "option %s: unknown scope '%.*s'%s%s%s", name, (int)len, key,
	               known[0] ? " (" : " (it takes a plain number", known, ")");
}

static int store(const struct option_spec *s, const char *name, const char *scope, const char *arg, pq_error *err)
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
		return parse_double(name, arg, s->value, err);
	case OPT_U64:
		return parse_u64(name, arg, s->value, err);
	case OPT_LIST:
		if (list_push(s->value, arg) < 0)
			return pq_fail(err, PQ_ENOMEM, "out of memory");
		return 0;
	case OPT_SCOPED:
		return store_scoped(s, name, scope, arg, err);
	default:
		return pq_fail(err, PQ_EINTERNAL, "bad option table");
	}
}

const struct option_spec *options_alias_target(const struct option_spec *specs, const struct option_spec *alias)
{
	if (alias->type != OPT_DEPRECATED || !opt_alias_of(alias)->of)
		return NULL;
	const struct option_spec *t = find_long(specs, opt_alias_of(alias)->of, strlen(opt_alias_of(alias)->of));
	return t && t->type != OPT_DEPRECATED ? t : NULL;
}

static void note(struct opt_deprecations *d, const struct option_spec *s)
{
	if (!d)
		return;
	for (int i = 0; i < d->n; i++)
		if (d->used[i] == s)
			return;
	if (d->n < OPT_MAX_NOTED)
		d->used[d->n++] = s;
}

int options_parse_noting(int argc, char **argv, const struct option_spec *specs, const char **positional,
                         int max_pos, int *help_wanted, struct opt_deprecations *deprecated, pq_error *err)
{
	int npos = 0, only_pos = 0;
	*help_wanted = 0;
	if (deprecated)
		deprecated->n = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct option_spec *s = NULL;
		const char *arg = NULL, *scope = NULL;
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
			if (s->type == OPT_DEPRECATED) {
				const struct option_spec *t = options_alias_target(specs, s);
				if (!t)
					return pq_fail(err, PQ_EINTERNAL, "bad option table: --%s", s->long_name);
				note(deprecated, s);
				scope = opt_alias_of(s)->scope;
				s = t;
			}
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
		int r = store(s, a, scope, arg, err);
		if (r < 0)
			return r;
	}
	return npos;
}

int options_parse(int argc, char **argv, const struct option_spec *specs,
                  const char **positional, int max_pos, int *help_wanted,
                  pq_error *err)
{
	return options_parse_noting(argc, argv, specs, positional, max_pos, help_wanted, NULL, err);
}

void opt_list_free(struct opt_list *l)
{
	free(l->items);
	l->items = NULL;
	l->n = l->cap = 0;
}
