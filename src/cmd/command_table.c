/* command_table: name -> cmd_* function, in the order help lists them. */
#include "config.h"
#include "cmd/commands.h"

#include <stddef.h>

const struct command pq_commands[] = {
	{ "build", cmd_build, "compile a submission tree into an instance library" },
	{ "info", cmd_info, "print an instance library's descriptor" },
	{ "bench", cmd_bench, "time keygen / sign / verify with counters" },
	{ "env", cmd_env, "print the assessment environment and what makes figures unstable" },
	{ NULL, NULL, NULL },
};
