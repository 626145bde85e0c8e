/*
 * cmd_common: small things several commands share: the command line as a
 * string for records, record file names, writing JSON atomically.
 */
#ifndef PQ_CMD_COMMON_H
#define PQ_CMD_COMMON_H

#include <jansson.h>
#include <stddef.h>
#include "core/pq_error.h"

/* "pqprof bench lib.so --op sign", shell-quoted where needed; caller frees. */
char *cmd_join_argv(const char *prog, int argc, char **argv);

/* DIR/<instance>__<op><ext>, with the instance name made file-safe. */
void cmd_record_path(char *buf, size_t len, const char *dir, const char *instance, const char *op,
                     const char *ext);

/* Make a name safe as a file name component. */
void cmd_safe_name(char *buf, size_t len, const char *name);

/* Write JSON (indented, sorted keys) atomically. */
int cmd_write_json(const char *path, json_t *obj, pq_error *err);

#endif
