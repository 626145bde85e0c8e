/*
 * cmd_common: what the commands share inside their cmd_*() functions:
 * option parsing, reporting a failure with its exit status, the command
 * line as a string for records, record file names, writing JSON
 * atomically.  The setup done around a command is in commands.h.
 */
#ifndef PQ_CMD_COMMON_H
#define PQ_CMD_COMMON_H

#include <jansson.h>
#include <stddef.h>
#include "core/json_file.h"
#include "core/pq_error.h"
#include "core/safe_name.h"

/* "pqprof bench lib.so --op sign", shell-quoted where needed; caller frees. */
char *cmd_join_argv(const char *prog, int argc, char **argv);

/* DIR/<instance>__<op><ext> (record_path), with the instance name made file-safe. */
int cmd_record_path(char *buf, size_t len, const char *dir, const char *instance, const char *op,
                    const char *ext, pq_error *err);

/*
 * Parse a command's options the same way for every command: on -h print
 * the usage and set *status to 0; on a bad option print "pqprof CMD: why"
 * and set *status to the exit code.  Each old spelling used (an
 * OPT_DEPRECATED row) is named once on stderr with the one to use.  Returns the number of positional
 * arguments, or -1 when the command should return *status at once.
 */
struct option_spec;
int cmd_parse(const char *cmd, int argc, char **argv, const char *usage, const struct option_spec *specs,
              const char **pos, int max_pos, int *status);

/*
 * Run command c only to read its option table: its -h hands (cmd, usage,
 * specs) to fn, which may read the table's values (their defaults) during
 * the call.  pqprof help and the manual's OPTIONS section are made this
 * way, so they say what the command's own -h says.  Returns c's status.
 */
struct command;
typedef void (*cmd_describe_fn)(void *ctx, const char *cmd, const char *usage, const struct option_spec *specs);
int cmd_describe(const struct command *c, cmd_describe_fn fn, void *ctx);

/* Print "pqprof <cmd>: <msg>" on stderr and return the exit status of err. */
int cmd_fail(const char *cmd, const struct pq_error *err);

/*
 * Check --make-var values: NAME=V1[,V2...] with NAME a make variable name.
 * 0 when all are well formed; else PQ_EUSAGE, the bad one named on stderr.
 */
int cmd_check_make_vars(const char *cmd, const char *const *vars, int n);

/*
 * Analyse traces inside a reader view (core/reader_view.h): what the
 * traces name is readable, the folders of outputs (NULL entries skipped)
 * and the working directory writable, nothing else.  Returns 1 in the
 * parent once the child has ended (*status: its exit status, the
 * command's), 0 in the child (or where no view could be made, with a
 * note on stderr): go on with the command.
 */
int cmd_reader_view(const char *cmd, const char *const *traces, int ntraces, const char *const *outputs,
                    int noutputs, int *status);
#endif
