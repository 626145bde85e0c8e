/*
 * options: one option parser for every subcommand, so every command takes
 * "--name value", "--name=value", "-x value" the same way and prints the
 * same kind of -h text.  Positional arguments are returned in order.
 */
#ifndef PQ_OPTIONS_H
#define PQ_OPTIONS_H

#include "core/pq_error.h"

enum opt_type {
	OPT_END = 0,
	OPT_FLAG,    /* int *, set to 1 */
	OPT_STRING,  /* const char **, last one wins */
	OPT_INT,     /* long *, decimal */
	OPT_DOUBLE,  /* double * */
	OPT_LIST,    /* struct opt_list *, every occurrence appended */
};

struct opt_list {
	const char **items;
	int n;
	int cap;
};

struct option_spec {
	enum opt_type type;
	char short_name;      /* 0 for none */
	const char *long_name;
	void *value;
	const char *arg_name; /* shown in help, e.g. "FILE" */
	const char *help;
};

/*
 * Parse argv[1..argc-1] (argv[0] is the subcommand name).  Positional
 * arguments are stored in positional[] (up to max_pos; more is an error).
 * Returns the number of positional arguments, or a negative error.
 * "-h"/"--help" returns PQ_OK with *help_wanted set.
 */
int options_parse(int argc, char **argv, const struct option_spec *specs,
                  const char **positional, int max_pos, int *help_wanted,
                  pq_error *err);

#include <stdio.h>
void options_usage(FILE *out, const char *usage, const struct option_spec *specs);

void opt_list_free(struct opt_list *l);

#endif
