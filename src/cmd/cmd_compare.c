/*
 * pqprof compare: two record sets (campaign directories, or plain
 * directories of records as `pqprof bench --records DIR` writes them),
 * baseline A and candidate B.  Prints the comparison as Markdown tables
 * (or the pqprof.compare/1 JSON with --json) and, with --out, writes
 * compare.md, compare.json and differential flame graphs there.
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/options.h"
#include "core/pq_error.h"
#include "report/compare.h"
#include "report/record_set.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>

static const char usage[] = "pqprof compare A B [--out DIR] [--json] [--resamples N] [--seed N] [--tolerance X]";

int cmd_compare(int argc, char **argv)
{
	const char *out = NULL;
	long resamples = 0, seed = 0;
	double tolerance = 0;
	int json = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "out", &out, "DIR", "write compare.md, compare.json and diff flame graphs here" },
		{ OPT_FLAG, 0, "json", &json, NULL, "print the comparison as JSON" },
		{ OPT_INT, 0, "resamples", &resamples, "N", "bootstrap resamples (default 2000)" },
		{ OPT_INT, 0, "seed", &seed, "N", "bootstrap seed (default fixed)" },
		{ OPT_DOUBLE, 0, "tolerance", &tolerance, "X", "treat ratios within 1 +- X as no change (default 0)" },
		{ OPT_END, 0, NULL, NULL, NULL, NULL },
	};
	const char *pos[2];
	pq_error err = { 0 };
	int status, np = cmd_parse("compare", argc, argv, usage, specs, pos, 2, &status);
	if (np < 0)
		return status;
	if (np != 2 || resamples < 0 || resamples > 1000000 || seed < 0 || tolerance < 0) {
		options_usage(stderr, usage, specs);
		return PQ_EUSAGE;
	}
	struct record_set *a = NULL, *b = NULL;
	if (record_set_load(pos[0], &a, &err) < 0)
		return cmd_fail("compare", &err);
	if (record_set_load(pos[1], &b, &err) < 0) {
		record_set_free(a);
		return cmd_fail("compare", &err);
	}
	struct compare_opts co = { .resamples = (int)resamples, .seed = (uint64_t)seed, .tolerance = tolerance,
	                           .out_dir = out };
	json_t *res = NULL;
	int r = compare_sets(a, b, &co, &res, &err);
	record_set_free(a);
	record_set_free(b);
	if (r < 0)
		return cmd_fail("compare", &err);
	if (out && compare_write(res, out, &err) < 0) {
		json_decref(res);
		return cmd_fail("compare", &err);
	}
	if (json) {
		char *s = json_dumps(res, JSON_INDENT(2) | JSON_SORT_KEYS);
		if (s)
			printf("%s\n", s);
		free(s);
	} else {
		rdoc doc;
		rdoc_init(&doc);
		if (compare_doc(res, &doc, &err) == 0)
			report_markdown_to(stdout, &doc);
		rdoc_free(&doc);
	}
	json_decref(res);
	return 0;
}
