/*
 * commands: the subcommands of pqprof, one cmd_<name>() per file in
 * src/cmd/, and the table main() dispatches through.  Each returns the
 * process exit status documented in pqprof(1).
 */
#ifndef PQ_COMMANDS_H
#define PQ_COMMANDS_H

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

extern const struct command pq_commands[];

int cmd_build(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_kat(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_mem(int argc, char **argv);
int cmd_sizes(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_manifest(int argc, char **argv);
int cmd_leak(int argc, char **argv);

/* Shared by commands: print "pqprof <cmd>: <msg>" and return the exit code. */
struct pq_error;
int cmd_fail(const char *cmd, const struct pq_error *err);

#endif
