/*
 * pqprof entry point: find the subcommand in the dispatch table and run it.
 * Nothing else lives here; each command is src/cmd/cmd_<name>.c.
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/command_table.h"
#include "core/pq_error.h"
#include "core/paths.h"

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

/*
 * Commands that run scheme code need pqprof-runner: without it every
 * scheme would look broken, so say it is pqprof that is incomplete.
 */
static int needs_runner(int argc, char **argv)
{
	static const char *const users[] = { "run", "info", "kat", "bench", "mem", "sizes", "profile", "slurm", NULL };
	int uses = 0;
	for (int i = 0; users[i]; i++)
		uses |= strcmp(argv[1], users[i]) == 0;
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			uses = 0;
	pq_error err = { 0 };
	char path[4096];
	if (!uses || paths_runner(path, sizeof path, &err) == 0)
		return 0;
	fprintf(stderr, "pqprof %s: %s\n", argv[1], err.msg);
	return 1;
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
			if (needs_runner(argc, argv))
				return PQ_ERUNNER;
			return c->fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "pqprof: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return PQ_EUSAGE;
}
