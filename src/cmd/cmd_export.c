/*
 * pqprof export: symbolize a .pqt trace into the folded model and write it
 * for other tools, in one of the formats of trace/export_format.h (folded
 * stacks, speedscope, callgrind, SVG flame graph); and, with --diff BEFORE
 * AFTER, a differential flame graph of two traces.
 *   pqprof export TRACE --format FORMAT [--op OP] -o FILE
 *   pqprof export --diff BEFORE.pqt AFTER.pqt [--op OP] -o DIFF.svg
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/options.h"
#include "core/options_help.h"
#include "profile/profile_export.h"
#include "trace/export_format.h"

#include <stdio.h>
#include <string.h>

/* What the export has to tell (an uncompressed pprof file), on standard error. */
static void export_note(void *user, const char *line)
{
	(void)user;
	fprintf(stderr, "pqprof export: %s\n", line);
}

int cmd_export(int argc, char **argv)
{
	char names[256], usage[512], format_help[300];
	snprintf(usage, sizeof usage,
	         "pqprof export TRACE --format %s -o FILE\n"
	         "With --diff: pqprof export --diff BEFORE.pqt AFTER.pqt -o DIFF.svg",
	         export_format_names(names, sizeof names, "|", "|"));
	snprintf(format_help, sizeof format_help, "%s",
	         export_format_names(names, sizeof names, ", ", " or "));
	const char *format = NULL, *op = NULL, *out = NULL;
	int diff = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "format", &format, "FMT", format_help, NULL },
		{ OPT_STRING, 0, "op", &op, "OP", "one operation", "all, each rooted at its name" },
		{ OPT_STRING, 'o', "out", &out, "FILE", "file to write, - for standard output (required)", NULL },
		{ OPT_FLAG, 0, "diff", &diff, NULL, "differential flame graph of BEFORE and AFTER", NULL },
		OPT_ALIAS("output", "out", NULL),
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[2];
	pq_error err = { 0 };
	int status, np = cmd_parse("export", argc, argv, usage, specs, pos, 2, &status);
	if (np < 0)
		return status;
	if (!out || (diff ? np != 2 || (format && strcmp(format, "svg") != 0) : np != 1 || !format)) {
		options_usage(stderr, usage, specs);
		return pq_exit_code(PQ_EUSAGE);
	}
	/* The submitter's ELF and DWARF are parsed in a reader view: nothing else of the machine is in sight. */
	const char *outs[] = { strcmp(out, "-") != 0 ? out : NULL };
	int vstatus;
	if (cmd_reader_view("export", pos, diff ? 2 : 1, outs, 1, &vstatus))
		return vstatus;
	int r = diff ? profile_flamegraph_diff(pos[0], pos[1], op, out, &err)
	             : profile_export(pos[0], op, format, out, export_note, NULL, &err);
	if (r < 0)
		return cmd_fail("export", &err);
	if (strcmp(out, "-") != 0)
		fprintf(stderr, "wrote %s\n", out);
	return 0;
}
