/*
 * options: one option parser for every subcommand, so every command takes
 * "--name value", "--name=value", "-x value" the same way and prints the
 * same kind of -h text (options_help.h).  Positional arguments are
 * returned in order.
 *
 * A command's table is the one description of its options: the parser,
 * the -h text, the usage line and the manual's OPTIONS section all read
 * it.  An old spelling stays in the table as an OPT_DEPRECATED row that
 * names its replacement; the parser accepts it and says which ones were
 * used, and the caller tells the user.
 */
#ifndef PQ_OPTIONS_H
#define PQ_OPTIONS_H

#include "core/pq_error.h"

#include <stdint.h>

enum opt_type {
	OPT_END = 0,
	OPT_FLAG,       /* int *, set to 1 */
	OPT_STRING,     /* const char **, last one wins */
	OPT_INT,        /* long *, decimal */
	OPT_DOUBLE,     /* double * */
	OPT_U64,        /* uint64_t *, decimal, the whole range (seeds: a double would lose bits past 2^53) */
	OPT_LIST,       /* struct opt_list *, every occurrence appended */
	OPT_SCOPED,     /* struct opt_scope[]: [SCOPE=]SECONDS, one double per scope */
	OPT_DEPRECATED, /* an old spelling of alias_of (alias_scope=VALUE when a scope is named) */
};

struct opt_list {
	const char **items;
	int n;
	int cap;
};

/*
 * One scope of an OPT_SCOPED option: "--budget leak=8" sets the value of
 * scope "leak".  The first entry is the plain value (name ""), whose help
 * and default are the option's own; a NULL name ends the array.
 */
struct opt_scope {
	const char *name;
	double *value;
	const char *help;     /* what the scope's value is for */
	const char *deflt;    /* as option_spec.deflt */
};

struct option_spec {
	enum opt_type type;
	char short_name;      /* 0 for none */
	const char *long_name;
	void *value;
	const char *arg_name; /* shown in help, e.g. "FILE" */
	const char *help;
	/*
	 * The default in words ("not pinned", "64 MiB").  NULL: the value's
	 * initial one when it has one (a number other than 0, a string).
	 */
	const char *deflt;
};

/* What an OPT_DEPRECATED row's value points to: the option to use instead. */
struct opt_alias {
	const char *of;      /* its long name */
	const char *scope;   /* the scope of it the old spelling sets, or NULL */
};

/* A row accepting --OLD as --NEW (or --NEW SCOPE=VALUE) for one more release. */
#define OPT_ALIAS(old, new, scope) \
	{ OPT_DEPRECATED, 0, (old), &(struct opt_alias){ (new), (scope) }, NULL, NULL, NULL }

/* The OPT_DEPRECATED rows a command line used, each once, in order. */
#define OPT_MAX_NOTED 16
struct opt_deprecations {
	const struct option_spec *used[OPT_MAX_NOTED];
	int n;
};

/*
 * Parse argv[1..argc-1] (argv[0] is the subcommand name).  Positional
 * arguments are stored in positional[] (up to max_pos; more is an error).
 * Returns the number of positional arguments, or a negative error.
 * "-h"/"--help" returns PQ_OK with *help_wanted set.  deprecated (may be
 * NULL) gets the old spellings used.
 */
int options_parse_noting(int argc, char **argv, const struct option_spec *specs, const char **positional,
                         int max_pos, int *help_wanted, struct opt_deprecations *deprecated, pq_error *err);
int options_parse(int argc, char **argv, const struct option_spec *specs,
                  const char **positional, int max_pos, int *help_wanted,
                  pq_error *err);

/* The replacement an OPT_DEPRECATED row names. */
static inline const struct opt_alias *opt_alias_of(const struct option_spec *s)
{
	return s->value;
}

/* The row an OPT_DEPRECATED row stands for, or NULL when the table lacks it. */
const struct option_spec *options_alias_target(const struct option_spec *specs, const struct option_spec *alias);

void opt_list_free(struct opt_list *l);

#endif
