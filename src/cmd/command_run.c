/*
 * command_run: how a command of the table is run -- the setup every
 * command shares, done here once instead of in each cmd_*() -- and the
 * dispatch of pqprof's own command line.  See commands.h.
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/interrupt.h"
#include "core/paths.h"
#include "core/pq_error.h"
#include "supervise/child.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const struct command *command_find(const struct command *table, const char *name)
{
	for (const struct command *c = table; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/*
 * Whatever a command printed must have reached standard output: a full
 * disk or a closed pipe is an I/O error (exit status 3), reported once,
 * even when the command itself succeeded.
 */
static int check_stdout(const char *who, int status)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	pq_error err;
	if (errno)
		pq_fail_errno(&err, PQ_EIO, "standard output");
	else
		pq_fail(&err, PQ_EIO, "standard output: write error");
	int code = cmd_fail(who, &err);
	return status ? status : code;
}

/*
 * Commands that run scheme code need pqprof-runner: without it every
 * scheme would look broken, so say it is pqprof that is incomplete
 * (PQ_ERUNNER, naming where it looked).  Asking for help needs no runner.
 */
static int runner_missing(const struct command *c, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 0;
	pq_error err = { 0 };
	char path[4096];
	if (paths_runner(path, sizeof path, &err) == 0)
		return 0;
	return cmd_fail(c->name, &err);
}

int command_run(const struct command *c, int argc, char **argv)
{
	interrupt_install(c->name); /* SIGINT, SIGTERM, SIGHUP: clean up, say where, exit 128 + sig */
	if (c->flags & CMD_RUNS_CHILDREN) {
		int missing = runner_missing(c, argc, argv);
		if (missing)
			return missing;
		child_install_signal_forwarding();
	}
	return check_stdout(c->name, c->fn(argc, argv));
}

void command_usage(FILE *out, const struct command *table)
{
	fprintf(out, "usage: pqprof <command> [options]\n\ncommands:\n");
	for (const struct command *c = table; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fprintf(out, "\n'pqprof help <command>' describes one command, 'pqprof help --<option>' one option; see pqprof(1).\n");
}

int command_dispatch(const struct command *table, int argc, char **argv)
{
	if (argc < 2) {
		command_usage(stderr, table);
		return pq_exit_code(PQ_EUSAGE);
	}
	const char *name = argv[1];
	if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
		command_usage(stdout, table);
		return check_stdout("help", 0);
	}
	if (strcmp(name, "help") == 0)
		return check_stdout("help", command_help(table, argc - 1, argv + 1));
	if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
		printf("pqprof %s\n", PACKAGE_VERSION);
		return check_stdout("version", 0);
	}
	const struct command *c = command_find(table, name);
	if (c)
		return command_run(c, argc - 1, argv + 1);
	fprintf(stderr, "pqprof: unknown command '%s'\n", name);
	command_usage(stderr, table);
	return pq_exit_code(PQ_EUSAGE);
}
