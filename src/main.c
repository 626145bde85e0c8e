/*
 * pqprof entry point: hand the command line to the command layer
 * (src/cmd/commands.h), which finds the subcommand in the table and runs
 * it.  Nothing else lives here; each command is src/cmd/cmd_<name>.c.
 */
#include "config.h"
#include "cmd/commands.h"

int main(int argc, char **argv)
{
	return command_dispatch(pq_commands, argc, argv);
}
