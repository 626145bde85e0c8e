/*
 * cmd_help: pqprof help [COMMAND | --OPTION | --man].  Every answer is
 * read from the commands' own option tables (cmd_describe), so help, -h
 * and the OPTIONS section of pqprof(1) say the same words.
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/options.h"
#include "core/options_help.h"
#include "core/pq_error.h"

#include <stdio.h>
#include <string.h>

struct option_query {
	const char *name;  /* long name, without the dashes; or a one-letter short name */
	int found;
};

static int matches(const struct option_spec *s, const char *name)
{
	if (s->long_name && strcmp(s->long_name, name) == 0)
		return 1;
	return s->short_name && name[0] == s->short_name && name[1] == '\0';
}

static void print_option(void *ctx, const char *cmd, const char *usage, const struct option_spec *specs)
{
	(void)usage;
	struct option_query *q = ctx;
	for (const struct option_spec *s = specs; s->type != OPT_END; s++) {
		if (!matches(s, q->name))
			continue;
		printf("%spqprof %s:\n", q->found++ ? "\n" : "", cmd);
		if (s->type == OPT_DEPRECATED) {
			char use[160];
			options_replacement(use, sizeof use, specs, s);
			printf("  --%s is an old spelling, accepted for one more release; %s\n", s->long_name, use);
		} else {
			options_entry(stdout, s);
		}
	}
}

static void print_usage(void *ctx, const char *cmd, const char *usage, const struct option_spec *specs)
{
	(void)ctx;
	(void)cmd;
	options_usage(stdout, usage, specs);
}

static void print_man(void *ctx, const char *cmd, const char *usage, const struct option_spec *specs)
{
	(void)ctx;
	options_man(stdout, cmd, usage, specs);
}

/* The OPTIONS section of pqprof(1), between the markers doc/pqprof.1 keeps it in. */
static int help_man(const struct command *table)
{
	printf(".\\\" BEGIN OPTIONS: made by `pqprof help --man' from the option tables; `make update-man' rewrites it\n"
	       ".SH OPTIONS\n"
	       "What each command takes; `pqprof help \\fICOMMAND\\fR', `pqprof \\fICOMMAND\\fR \\-h' and\n"
	       "`pqprof help \\-\\-\\fIOPTION\\fR' print the same text.  Every option takes its value as\n"
	       "\\-\\-\\fIname value\\fR or \\-\\-\\fIname\\fR=\\fIvalue\\fR.  A time limit of a child is \\-\\-timeout;\n"
	       "the time a step may spend is \\-\\-budget; either may name a scope, as\n"
	       "\\fISCOPE\\fR=\\fIS\\fR, where the command has several.\n");
	for (const struct command *c = table; c->name; c++)
		cmd_describe(c, print_man, NULL);
	printf(".\\\" END OPTIONS\n");
	return 0;
}

int command_help(const struct command *table, int argc, char **argv)
{
	if (argc < 2) {
		command_usage(stdout, table);
		return 0;
	}
	const char *what = argv[1];
	if (strcmp(what, "--man") == 0)
		return help_man(table);
	if (what[0] == '-') {
		struct option_query q = { what + (what[1] == '-' ? 2 : 1), 0 };
		for (const struct command *c = table; c->name; c++)
			cmd_describe(c, print_option, &q);
		if (q.found)
			return 0;
		fprintf(stderr, "pqprof help: no command takes %s\n", what);
		return pq_exit_code(PQ_EUSAGE);
	}
	const struct command *c = command_find(table, what);
	if (!c) {
		fprintf(stderr, "pqprof help: unknown command '%s'\n", what);
		command_usage(stderr, table);
		return pq_exit_code(PQ_EUSAGE);
	}
	return cmd_describe(c, print_usage, NULL);
}
