/*
 * pqprof report: offline analysis of a .pqt trace: per operation the top
 * functions by self and inclusive share, source lines, call tree, function
 * groups and exact calls per operation (profile/analysis.h), as text or
 * JSON, with the pqprof.profile/1 record written on request.  Given a
 * round's folder instead, it writes the round's index again
 * (report/round_index.h).
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "cmd/cmd_report.h"
#include "campaign/scheme_desc.h"
#include "core/options.h"
#include "core/options_help.h"
#include "profile/analysis.h"
#include "profile/profile_export.h"
#include "profile/profile_text.h"
#include "trace/trace_reader.h"
#include "report/round_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"pqprof report TRACE\n"
	"pqprof report ROOT   (a round's folder, `pqprof run` of a round: write its index again from the packages' reports)";

int report_trace(const char *cmd, const char *trace, const struct report_args *ra)
{
	/* The submitter's ELF and DWARF are parsed in a reader view: nothing else of the machine is in sight. */
	const char *outs[] = { ra->flamegraph, ra->folded, ra->record };
	int vstatus;
	if (cmd_reader_view(cmd, &trace, 1, outs, 3, &vstatus))
		return vstatus;
	struct analysis_opts ao = { .top = ra->top, .lines = ra->lines, .groups = ra->groups,
	                            .flamegraph = ra->flamegraph, .folded = ra->folded };
	struct analysis *a;
	pq_error err = { 0 };
	if (analysis_open(&a, trace, &ao, &err) < 0)
		return cmd_fail(cmd, &err);
	json_t *all = json_array();
	int status = 0;
	for (size_t i = 0; i < analysis_op_count(a); i++) {
		const char *op = analysis_op_name(a, i);
		if (ra->op && strcmp(ra->op, op) != 0)
			continue;
		json_t *rec;
		if (analysis_record(a, op, &rec, &err) < 0) {
			status = cmd_fail(cmd, &err);
			break;
		}
		/* Profiling's own perturbation, when the recording measured it. */
		for (int k = 0; k < ra->nops; k++)
			if (strcmp(pq_op_name(ra->ops[k].op), op) == 0) {
				json_t *pt = profile_perturbation_json(&ra->ops[k]);
				if (pt)
					json_object_set_new(rec, "perturbation", pt);
			}
		json_array_append_new(all, rec);
	}
	if (!status && json_array_size(all) == 0) {
		pq_fail(&err, PQ_EUSAGE, "%s: %s%s", trace,
		        ra->op ? "no samples of operation " : "no operations in the trace",
		        ra->op ? ra->op : "");
		status = cmd_fail(cmd, &err);
	}
	if (!status && (ra->flamegraph || ra->folded)) {
		/* One operation: its stacks as they are; several: each rooted at its op. */
		const char *fop = ra->op ? ra->op : analysis_op_count(a) == 1 ? analysis_op_name(a, 0) : NULL;
		if ((ra->flamegraph &&
		     analysis_export(a, fop, export_format_find("svg"), ra->flamegraph, NULL, NULL, &err) < 0) ||
		    (ra->folded && analysis_export(a, fop, export_format_find("folded"), ra->folded, NULL, NULL, &err) < 0))
			status = cmd_fail(cmd, &err);
	}
	if (!status) {
		size_t i;
		json_t *rec;
		struct profile_text_opts to = { ra->top, ra->lines, ra->no_tree };
		json_array_foreach(all, i, rec) {
			if (ra->silent)
				break;
			if (ra->json) {
				char *s = json_dumps(rec, JSON_INDENT(2) | JSON_SORT_KEYS);
				printf("%s\n", s ? s : "null");
				free(s);
			} else {
				if (i)
					printf("\n");
				profile_text_print(stdout, rec, &to);
			}
		}
		if (ra->stats) {
			struct analysis_stats st;
			analysis_get_stats(a, &st);
			fprintf(ra->json ? stderr : stdout,
			        "\nanalysis: %llu samples, %llu distinct stacks, %llu addresses symbolized, "
			        "%zu address space(s), %zu symbolizer(s); read %.3f s, symbolize %.3f s\n",
			        (unsigned long long)st.samples, (unsigned long long)st.stacks,
			        (unsigned long long)st.addresses, st.spaces, st.symbolizers, st.read_s,
			        st.symbolize_s);
		}
		if (ra->record) {
			json_t *out = json_array_size(all) == 1 ? json_array_get(all, 0) : all;
			if (json_file_write(ra->record, out, &err) < 0)
				status = cmd_fail(cmd, &err);
		}
	}
	json_decref(all);
	analysis_close(a);
	return status;
}

int report_groups(struct group_set **out, const char *groups_from, const struct opt_list *specs,
                  const json_t *header, pq_error *err)
{
	struct group_set *gs = groups_new();
	*out = NULL;
	if (!gs)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	int r = 0;
	json_t *hg = header ? json_object_get(header, "groups") : NULL;
	if (groups_from) {
		struct scheme_desc *d = calloc(1, sizeof *d);
		if (!d)
			r = pq_fail(err, PQ_ENOMEM, "out of memory");
		else if ((r = scheme_desc_read(groups_from, d, err)) == 0) {
			for (int g = 0; g < d->ngroups && r == 0; g++)
				for (int j = 0; j < d->groups[g].nglobs && r == 0; j++)
					r = groups_add(gs, d->groups[g].name, d->groups[g].globs[j], err);
			scheme_desc_free(d);
		}
		free(d);
	} else if (json_is_array(hg)) {
		size_t i, j;
		json_t *g, *glob;
		json_array_foreach(hg, i, g) {
			json_array_foreach(json_object_get(g, "globs"), j, glob) {
				if (r == 0)
					r = groups_add(gs, json_string_value(json_object_get(g, "name")),
					               json_string_value(glob), err);
			}
		}
	} else {
		r = groups_add_defaults(gs, err);
	}
	for (int i = 0; r == 0 && specs && i < specs->n; i++)
		r = groups_parse_spec(gs, specs->items[i], err);
	if (r < 0) {
		groups_free(gs);
		return r;
	}
	*out = gs;
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_args ra = { 0 };
	const char *groups_from = NULL;
	struct opt_list gspecs = { 0 };
	long top = 15, lines = 10;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &ra.op, "OP", "only this operation", "every one in the trace" },
		{ OPT_INT, 0, "top", &top, "N", "functions per table", NULL },
		{ OPT_INT, 0, "lines", &lines, "N", "hottest source lines (0: none)", NULL },
		{ OPT_LIST, 0, "group", &gspecs, "NAME=GLOB,...", "add or extend a function group", NULL },
		{ OPT_STRING, 0, "groups-from", &groups_from, "FILE", "groups of a scheme.json instead of the trace's",
		  "the trace's groups" },
		{ OPT_FLAG, 0, "json", &ra.json, NULL, "print the pqprof.profile/1 records", NULL },
		{ OPT_STRING, 0, "record", &ra.record, "FILE", "write the record (an array when several ops)", NULL },
		{ OPT_STRING, 0, "flamegraph", &ra.flamegraph, "SVG", "also draw a flame graph", NULL },
		{ OPT_STRING, 0, "folded", &ra.folded, "FILE", "also write the folded stacks", NULL },
		{ OPT_FLAG, 0, "no-tree", &ra.no_tree, NULL, "leave the call tree out", NULL },
		{ OPT_FLAG, 0, "stats", &ra.stats, NULL, "print how long reading and symbolizing took", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[1];
	pq_error err = { 0 };
	int status, np = cmd_parse("report", argc, argv, usage, specs, pos, 1, &status);
	if (np < 0) {
		opt_list_free(&gspecs);
		return status;
	}
	if (np != 1 || top < 1) {
		options_usage(stderr, usage, specs);
		opt_list_free(&gspecs);
		return pq_exit_code(PQ_EUSAGE);
	}
	if (round_index_is_round(pos[0])) {
		opt_list_free(&gspecs);
		if (round_index_write(pos[0], &err) < 0)
			return cmd_fail("report", &err);
		printf("%s/index.md, index.html, index.csv, index.json\n", pos[0]);
		return 0;
	}
	ra.top = (int)top;
	ra.lines = lines > 0 ? (int)lines : -1;
	struct group_set *gs = NULL;
	if (groups_from || gspecs.n) {
		trace_reader *r;
		if (trace_reader_open(&r, pos[0], &err) < 0) {
			opt_list_free(&gspecs);
			return cmd_fail("report", &err);
		}
		int k = report_groups(&gs, groups_from, &gspecs, trace_reader_header(r), &err);
		trace_reader_close(r);
		if (k < 0) {
			opt_list_free(&gspecs);
			return cmd_fail("report", &err);
		}
	}
	ra.groups = gs;
	status = report_trace("report", pos[0], &ra);
	groups_free(gs);
	opt_list_free(&gspecs);
	return status;
}
