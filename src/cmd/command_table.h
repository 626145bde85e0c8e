/* command_table: the one list of subcommands (defined in command_table.c). */
#ifndef PQ_COMMAND_TABLE_H
#define PQ_COMMAND_TABLE_H
#include "cmd/commands.h"
#endif
