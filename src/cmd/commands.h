/*
 * commands: the subcommands of pqprof, one cmd_<name>() per file in
 * src/cmd/, and the table main() dispatches through.  Each returns the
 * process exit status documented in pqprof(1).
 *
 * What every command needs is done once, by command_run(), as the table's
 * flags ask: Ctrl-C / SIGTERM forwarding to runner children before the
 * command starts, and after it returns the check that everything it
 * printed reached standard output (a write error there is exit status 3,
 * whatever the command returned).  Option parsing is cmd_parse() (in
 * cmd_common.h), called by every command with its own option table.
 */
#ifndef PQ_COMMANDS_H
#define PQ_COMMANDS_H

#include <stdio.h>

enum command_flags {
	/* Runs runner children: forward SIGINT, SIGTERM and SIGHUP to them. */
	CMD_RUNS_CHILDREN = 1u << 0,
};

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	unsigned flags;           /* enum command_flags */
};

/* Terminated by a row with a NULL name, in the order help lists them. */
extern const struct command pq_commands[];

/* The row called name in table, or NULL. */
const struct command *command_find(const struct command *table, const char *name);

/*
 * Run one command (argv[0] is its name) with the shared setup its flags
 * ask for, and check standard output afterwards.  Returns the exit status.
 */
int command_run(const struct command *c, int argc, char **argv);

/*
 * The whole command line of pqprof (argv[0] is the program): help,
 * version, or a command of table.  Returns the exit status.
 */
int command_dispatch(const struct command *table, int argc, char **argv);

/*
 * pqprof help [COMMAND | --OPTION | --man] (argv[0] is "help"): the
 * command list, one command's -h, every command's entry of one option, or
 * the OPTIONS section of pqprof(1).  Returns the exit status.
 */
int command_help(const struct command *table, int argc, char **argv);

/* "usage: pqprof <command> ..." with one line per command of table. */
void command_usage(FILE *out, const struct command *table);

int cmd_build(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_kat(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_mem(int argc, char **argv);
int cmd_sizes(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_manifest(int argc, char **argv);
int cmd_schemes(int argc, char **argv);
int cmd_slurm(int argc, char **argv);
int cmd_leak(int argc, char **argv);
int cmd_scan(int argc, char **argv);

#endif
