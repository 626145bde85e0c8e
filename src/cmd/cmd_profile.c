/*
 * pqprof profile: sample an instance's operations into a .pqt trace
 * (profile/profile_run.h), with exact calls per operation of the group
 * functions counted first, then print the report as `pqprof report`
 * would.  With --op all every operation goes into the one trace, marked
 * by its OP_BEGIN/OP_END records.
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "cmd/cmd_report.h"
#include "core/options.h"
#include "core/options_help.h"
#include "measure/env.h"
#include "profile/profile_run.h"
#include "supervise/describe.h"
#include "supervise/child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "pqprof profile LIB -o TRACE";

static void print_progress(void *user, const char *line)
{
	(void)user;
	fprintf(stderr, "pqprof profile: %s\n", line);
}

static int parse_ops(const char *opname, const json_t *desc, enum pq_op ops[PQ_OP_COUNT], pq_error *err)
{
	if (strcmp(opname, "all") == 0) {
		const char *kind = json_string_value(json_object_get(desc, "kind"));
		return pq_ops_for_kind(kind && strcmp(kind, "kem") == 0 ? 2 : 1, ops);
	}
	int n = 0;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", opname);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int o = pq_op_parse(t);
		if (o < 0 || n == PQ_OP_COUNT)
			return pq_fail(err, PQ_EUSAGE, "--op: unknown operation '%s'", t);
		ops[n++] = (enum pq_op)o;
	}
	return n;
}

static void print_summary(const char *trace, const struct profile_summary *sum)
{
	printf("trace: %s: %llu bytes, %llu samples", trace, (unsigned long long)sum->trace.bytes,
	       (unsigned long long)sum->trace.samples);
	if (sum->trace.samples)
		printf(", %.2f bytes per sample", sum->trace.bytes_per_sample);
	printf("\nevent: %s%s%s", sum->event, sum->fallback[0] ? " (" : "", sum->fallback);
	printf("%s, %s %llu\n", sum->fallback[0] ? ")" : "", sum->freq ? "frequency" : "period",
	       sum->freq ? (unsigned long long)sum->freq : sum->period);
	for (int i = 0; i < sum->nops; i++) {
		const struct profile_op_summary *o = &sum->ops[i];
		printf("  %-8s %8llu samples, %llu calls in %u run(s), %.2f s in calls; ",
		       pq_op_name(o->op), (unsigned long long)o->samples, (unsigned long long)o->calls,
		       o->runs, o->seconds);
		if (sum->freq)
			printf("requested %u Hz, ", sum->freq);
		printf("achieved %.0f Hz; lost %llu, throttled %llu",
		       o->seconds > 0 ? (double)o->samples / o->seconds : 0.0,
		       (unsigned long long)o->lost, (unsigned long long)o->throttles);
		if (o->truncated)
			printf(", %llu stacks truncated by the unwinder", (unsigned long long)o->truncated);
		if (o->on_calls && o->off_calls && o->off_cpu_s > 0)
			printf(", sampling perturbation x%.3f CPU time (%llu calls on, %llu off)",
			       o->on_cpu_s / (double)o->on_calls / (o->off_cpu_s / (double)o->off_calls),
			       (unsigned long long)o->on_calls, (unsigned long long)o->off_calls);
		printf("\n");
	}
}

int cmd_profile(int argc, char **argv)
{
	const char *opname = "all", *event = "auto", *callgraph = "auto", *out = NULL;
	const char *groups_from = NULL, *record = NULL, *flame = NULL, *foldedp = NULL;
	struct opt_list gspecs = { 0 }, counts = { 0 };
	long freq = 0, period = 0, stack = 0, pages = 0, min_samples = 2000, mlen = 64, count_iters = 3;
	long top = 15, lines = 10;
	double seconds = 30, timeout = 900;
	int no_counts = 0, no_report = 0, json = 0, quiet = 0;
	struct opt_scope budgets[] = {
		{ "", &seconds, NULL, NULL },
		{ "profile", &seconds, "the same", NULL },
		{ NULL, NULL, NULL, NULL },
	};
	const struct option_spec specs[] = {
		{ OPT_STRING, 'o', "out", &out, "TRACE", "the .pqt trace to write (required)", NULL },
		{ OPT_STRING, 0, "op", &opname, "OP", "operation(s), comma-separated, or all", NULL },
		{ OPT_STRING, 0, "event", &event, "NAME", "auto, cycles, cpu-clock or task-clock",
		  "auto: cycles where a PMU exists, else cpu-clock" },
		{ OPT_INT, 0, "freq", &freq, "HZ", "samples per second", "3999 for cycles, 1999 for clocks" },
		{ OPT_INT, 0, "period", &period, "N", "events per sample instead of a frequency", "a frequency" },
		{ OPT_STRING, 0, "call-graph", &callgraph, "MODE", "auto, fp, dwarf or none",
		  "auto: fp if built with -fno-omit-frame-pointer, else dwarf" },
		{ OPT_INT, 0, "stack", &stack, "BYTES", "dwarf: user stack copied per sample",
		  "the measured depth of the operation, up to 65528" },
		{ OPT_INT, 0, "pages", &pages, "N", "ring buffer data pages (power of two)",
		  "128 with frame pointers, 512 with dwarf (2048 privileged), within perf_event_mlock_kb" },
		{ OPT_INT, 0, "min-samples", &min_samples, "N", "samples per operation to reach", NULL },
		{ OPT_SCOPED, 0, "budget", budgets, "S", "at most this much sampled time per operation", NULL },
		{ OPT_LIST, 0, "group", &gspecs, "NAME=GLOB,...", "add or extend a function group", NULL },
		{ OPT_STRING, 0, "groups-from", &groups_from, "FILE", "the groups of a scheme.json instead of the defaults",
		  "hash and drng" },
		{ OPT_LIST, 0, "count", &counts, "GLOB", "also count calls of these functions", NULL },
		{ OPT_FLAG, 0, "no-counts", &no_counts, NULL, "skip the exact call counts (uprobes)", NULL },
		{ OPT_INT, 0, "count-iters", &count_iters, "N", "operations run under the call counters", NULL },
		{ OPT_INT, 0, "mlen", &mlen, "BYTES", "message length for sign/verify", NULL },
		{ OPT_DOUBLE, 0, "timeout", &timeout, "S", "time limit per child", NULL },
		{ OPT_STRING, 0, "record", &record, "FILE", "write the pqprof.profile/1 record(s)", NULL },
		{ OPT_STRING, 0, "flamegraph", &flame, "SVG", "also draw a flame graph", NULL },
		{ OPT_STRING, 0, "folded", &foldedp, "FILE", "also write the folded stacks", NULL },
		{ OPT_INT, 0, "top", &top, "N", "functions per table", NULL },
		{ OPT_INT, 0, "lines", &lines, "N", "hottest source lines (0: none)", NULL },
		{ OPT_FLAG, 0, "no-report", &no_report, NULL, "record only", NULL },
		{ OPT_FLAG, 0, "json", &json, NULL, "print the records as JSON instead of the report", NULL },
		{ OPT_FLAG, 'q', "quiet", &quiet, NULL, "no progress lines", NULL },
		OPT_ALIAS("output", "out", NULL),
		OPT_ALIAS("seconds", "budget", NULL),
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[1];
	pq_error err = { 0 };
	int status, np = cmd_parse("profile", argc, argv, usage, specs, pos, 1, &status);
	if (np < 0)
		goto done;
	if (np != 1 || !out || freq < 0 || period < 0 || stack < 0 || pages < 0 || min_samples < 1 ||
	    seconds <= 0 || mlen < 0 || count_iters < 1 || top < 1 || (freq && period)) {
		options_usage(stderr, usage, specs);
		status = pq_exit_code(PQ_EUSAGE);
		goto done;
	}
	struct group_set *gs = NULL;
	if (report_groups(&gs, groups_from, &gspecs, NULL, &err) < 0) {
		status = cmd_fail("profile", &err);
		goto done;
	}
	json_t *desc = NULL, *envj = NULL;
	char *command = NULL;
	struct profile_summary sum = { 0 };
	enum pq_op ops[PQ_OP_COUNT];
	int nops;
	if (instance_describe(pos[0], &desc, &err) < 0 || (nops = parse_ops(opname, desc, ops, &err)) < 0) {
		status = cmd_fail("profile", &err);
		goto out;
	}
	env_info env;
	if (env_capture(&env, -1, json_string_value(json_object_get(desc, "compiler")), &err) == 0)
		envj = env_to_json(&env);
	command = cmd_join_argv("pqprof", argc, argv);
	struct profile_opts po = {
		.lib = pos[0], .ops = ops, .nops = nops, .event = event, .freq = (unsigned)freq,
		.period = (unsigned long long)period, .callgraph = callgraph, .stack_bytes = (unsigned)stack,
		.pages = (unsigned)pages, .min_samples = min_samples, .max_seconds = seconds, .mlen = mlen,
		.timeout_s = timeout, .groups = gs, .count_globs = counts.items, .ncount_globs = counts.n,
		.no_counts = no_counts, .count_iters = count_iters, .instance = desc,
		.environment = envj, .command = command, .progress = quiet ? NULL : print_progress,
	};
	if (profile_record(&po, out, &sum, &err) < 0) {
		status = cmd_fail("profile", &err);
		goto out;
	}
	print_summary(out, &sum);
	fflush(stdout);
	if (!no_report || record || flame || foldedp) {
		struct report_args ra = { .top = (int)top, .lines = lines > 0 ? (int)lines : -1,
		                          .json = json, .record = record, .flamegraph = flame,
		                          .folded = foldedp, .ops = sum.ops, .nops = sum.nops };
		ra.silent = no_report;
		if (!no_report)
			printf("\n");
		status = report_trace("profile", out, &ra);
	}
out:
	profile_summary_free(&sum);
	json_decref(desc);
	json_decref(envj);
	free(command);
	groups_free(gs);
done:
	opt_list_free(&gspecs);
	opt_list_free(&counts);
	return status;
}
