/*
 * pqprof entry point: find the subcommand in the dispatch table and run it.
 * Nothing else lives here; each command is src/cmd/cmd_<name>.c.
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/command_table.h"
#include "core/interrupt.h"
#include "core/pq_error.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: pqprof <command> [options]\n\ncommands:\n");
	for (const struct command *c = pq_commands; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fprintf(out, "\n'pqprof <command> -h' describes one command; see pqprof(1).\n");
}

int cmd_fail(const char *cmd, const struct pq_error *err)
{
	fprintf(stderr, "pqprof %s: %s\n", cmd, err->msg[0] ? err->msg : "failed");
	return pq_exit_code(err->code ? err->code : PQ_EINTERNAL);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return PQ_EUSAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("pqprof %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (const struct command *c = pq_commands; c->name; c++)
		if (strcmp(c->name, argv[1]) == 0) {
			interrupt_install(c->name);
			return c->fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "pqprof: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return PQ_EUSAGE;
}
