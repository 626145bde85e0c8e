/*
 * pqprof annotate: one function of a .pqt trace down to the instruction:
 * its disassembly with each instruction's share, interleaved with source
 * lines, the per-line shares and the hottest loops and blocks
 * (profile/annotate.h); or, with --diff, one function of two builds lined
 * up by source line.
 *   pqprof annotate TRACE [--op OP] [--function NAME] [--json] [--no-asm]
 *   pqprof annotate --diff BEFORE.pqt AFTER.pqt [--function NAME] [--op OP] [--json]
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/options.h"
#include "core/options_help.h"
#include "profile/analysis.h"
#include "profile/annotate.h"
#include "profile/annotate_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"pqprof annotate TRACE\n"
	"With --diff: pqprof annotate --diff BEFORE.pqt AFTER.pqt";

/* The operation to annotate: the one asked for, else the trace's only one. */
static int pick_op(const struct analysis *a, const char *want, const char **op, pq_error *err)
{
	if (want) {
		*op = want;
		return 0;
	}
	if (analysis_op_count(a) == 1) {
		*op = analysis_op_name(a, 0);
		return 0;
	}
	char names[256] = "";
	for (size_t i = 0; i < analysis_op_count(a); i++)
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
		         analysis_op_name(a, i));
	return pq_fail(err, PQ_EUSAGE, "%s: %s; choose one with --op", analysis_trace_path(a),
	               analysis_op_count(a) ? names : "no operations in the trace");
}

static int annotate_one(const char *trace, const char *opw, const char *function, json_t **out,
                        pq_error *err)
{
	struct analysis_opts ao = { .lines = -1 };
	struct analysis *a;
	const char *op = NULL;
	if (analysis_open(&a, trace, &ao, err) < 0)
		return -err->code;
	int r = pick_op(a, opw, &op, err);
	if (r == 0)
		r = analysis_annotate(a, op, function, NULL, out, err);
	analysis_close(a);
	return r;
}

static void print_json(const json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
	printf("%s\n", s ? s : "null");
	free(s);
}

int cmd_annotate(int argc, char **argv)
{
	const char *op = NULL, *function = NULL;
	int diff = 0, json = 0, no_asm = 0;
	long top = 5;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &op, "OP", "the operation", "the trace's only one" },
		{ OPT_STRING, 0, "function", &function, "NAME", "the function", "the hottest one" },
		{ OPT_INT, 0, "top", &top, "N", "loops and basic blocks listed", NULL },
		{ OPT_FLAG, 0, "no-asm", &no_asm, NULL, "leave the disassembly out", NULL },
		{ OPT_FLAG, 0, "json", &json, NULL, "print the pqprof.annotate/1 (or -diff/1) JSON", NULL },
		{ OPT_FLAG, 0, "diff", &diff, NULL, "line up BEFORE and AFTER by source line", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[2];
	pq_error err = { 0 };
	int status, np = cmd_parse("annotate", argc, argv, usage, specs, pos, 2, &status);
	if (np < 0)
		return status;
	if (np != (diff ? 2 : 1) || top < 1) {
		options_usage(stderr, usage, specs);
		return pq_exit_code(PQ_EUSAGE);
	}
	/* The submitter's ELF and DWARF are parsed in a reader view: nothing else of the machine is in sight. */
	int vstatus;
	if (cmd_reader_view("annotate", pos, diff ? 2 : 1, NULL, 0, &vstatus))
		return vstatus;
	json_t *before = NULL, *after = NULL;
	if (annotate_one(pos[0], op, function, &before, &err) < 0)
		return cmd_fail("annotate", &err);
	if (!diff) {
		struct annotate_view_opts vo = { no_asm, (int)top };
		if (json)
			print_json(before);
		else
			annotate_view_print(stdout, before, &vo);
		json_decref(before);
		return 0;
	}
	/* The same function in both builds: the one named, else BEFORE's hottest. */
	const char *fn = json_string_value(json_object_get(before, "function"));
	const char *bop = json_string_value(json_object_get(before, "op"));
	if (annotate_one(pos[1], bop, function ? function : fn, &after, &err) < 0) {
		json_decref(before);
		return cmd_fail("annotate", &err);
	}
	json_t *d = annotate_diff(before, after);
	if (json)
		print_json(d);
	else
		annotate_view_print_diff(stdout, d);
	json_decref(d);
	json_decref(before);
	json_decref(after);
	return 0;
}
