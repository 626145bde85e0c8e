/*
 * pqprof compare: two record sets (campaign directories, or plain
 * directories of records as `pqprof bench --records-dir DIR` writes them),
 * baseline A and candidate B (and, with --aa, a second run of A whose
 * spread tells what is noise).  Prints the comparison as Markdown tables
 * (or the pqprof.compare/1 JSON with --json) and, with --out, writes
 * compare.md, compare.json and differential flame graphs there.
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/options.h"
#include "core/options_help.h"
#include "core/pq_error.h"
#include "report/compare.h"
#include "report/record_set.h"
#include "report/report.h"

#include <limits.h>
#include "measure/stats.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>

static const char usage[] = "pqprof compare A B";

int cmd_compare(int argc, char **argv)
{
	const char *out = NULL, *aa_dir = NULL;
	long resamples = STATS_BOOTSTRAP_RESAMPLES, seed = 0;
	double tolerance = -1, separate = 0;
	int json = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 'o', "out", &out, "DIR", "write compare.md, compare.json and diff flame graphs here", NULL },
		{ OPT_FLAG, 0, "json", &json, NULL, "print the comparison as JSON", NULL },
		{ OPT_INT, 0, "resamples", &resamples, "N", "bootstrap resamples", NULL },
		{ OPT_INT, 0, "seed", &seed, "N", "bootstrap seed", "a fixed one" },
		{ OPT_STRING, 0, "aa", &aa_dir, "A2",
		  "a second run of the baseline (A/A): differences it shows too are no effect",
		  "the A/A arm a campaign added, if any" },
		{ OPT_DOUBLE, 0, "tolerance", &tolerance, "X", "practical threshold: ratios within 1 +- X are no effect",
		  "0.03" },
		{ OPT_DOUBLE, 0, "separate-factor", &separate, "F", "separate runs: only ratios beyond F or 1/F count",
		  "1.25 for CPU time or cycles, 2 for wall clocks" },
		OPT_ALIAS("output", "out", NULL),
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[2];
	pq_error err = { 0 };
	int status, np = cmd_parse("compare", argc, argv, usage, specs, pos, 2, &status);
	if (np < 0)
		return status;
	if (np != 2 || resamples < 0 || resamples > 1000000 || seed < 0 || (tolerance < 0 && tolerance != -1) ||
	    tolerance >= 1 || (separate != 0 && separate <= 1) || separate > 100) {
		options_usage(stderr, usage, specs);
		return PQ_EUSAGE;
	}
	struct record_set *a = NULL, *b = NULL, *aa = NULL;
	if (record_set_load(pos[0], &a, &err) < 0)
		return cmd_fail("compare", &err);
	if (record_set_load(pos[1], &b, &err) < 0 || (aa_dir && record_set_load(aa_dir, &aa, &err) < 0)) {
		record_set_free(a);
		record_set_free(b);
		return cmd_fail("compare", &err);
	}
	struct compare_opts co = { .resamples = (int)resamples, .seed = (uint64_t)seed, .tolerance = tolerance,
	                           .tolerance_set = tolerance >= 0, .separate_factor = separate, .out_dir = out,
	                           .aa = aa, .aa_is_copy = aa != NULL };
	/* Two profiles of one campaign: its paired studies (paired/) measured them side by side. */
	char ra[PATH_MAX], rb[PATH_MAX];
	if (realpath(pos[0], ra) && realpath(pos[1], rb) && strcmp(ra, rb) == 0)
		co.paired_dir = pos[0];
	json_t *res = NULL;
	int r = compare_sets(a, b, &co, &res, &err);
	record_set_free(a);
	record_set_free(b);
	record_set_free(aa);
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
