/* pqprof bench: time an instance's operations, print the table, write records. */
#include "config.h"
#include "core/json_file.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/atomic_file.h"
#include "core/options.h"
#include "core/options_help.h"
#include "cmd/cmd_outdir.h"
#include "measure/env.h"
#include "report/bench_table.h"
#include "supervise/bench.h"
#include "supervise/describe.h"
#include "supervise/child.h"
#include "record/records.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "pqprof bench LIB";

int cmd_bench(int argc, char **argv)
{
	const char *opname = "all", *events = "cycles", *backend = NULL, *records = "records";
	long trials = 5, iters = 0, cpu = -1, mlen = 64;
	double target = 1.0, timeout = 900, op_budget = 0;
	int json = 0;
	struct opt_scope budgets[] = {
		{ "", &op_budget, NULL, NULL },
		{ "op", &op_budget, "the same", "none" },
		{ NULL, NULL, NULL, NULL },
	};
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &opname, "OP", "keygen, sign, verify, enc, dec, or all", NULL },
		{ OPT_INT, 0, "trials", &trials, "N", "trials, each in a fresh child", NULL },
		{ OPT_DOUBLE, 0, "target", &target, "S", "target time of one trial in seconds", NULL },
		{ OPT_INT, 0, "iters", &iters, "N", "fixed iterations per trial", "calibrated to the target time" },
		{ OPT_STRING, 0, "events", &events, "LIST", "perf events named through libpfm4, comma-separated", NULL },
		{ OPT_STRING, 0, "backend", &backend, "NAME", "force perf-rdpmc, perf-read, tsc or clock",
		  "the best that works" },
		{ OPT_INT, 0, "cpu", &cpu, "N", "pin the runner to CPU N", "not pinned" },
		{ OPT_DOUBLE, 0, "timeout", &timeout, "S", "time limit per child", NULL },
		{ OPT_SCOPED, 0, "budget", budgets, "S",
		  "wall time for all trials of one operation: long operations get fewer calls (n says how many)",
		  "none" },
		{ OPT_INT, 0, "mlen", &mlen, "BYTES", "message length for sign/verify", NULL },
		{ OPT_STRING, 0, "records-dir", &records, "DIR", "write one JSON record per op here (\"\" for none)", NULL },
		{ OPT_FLAG, 0, "json", &json, NULL, "print the records as JSON instead of the table", NULL },
		OPT_ALIAS("op-budget", "budget", NULL),
		OPT_ALIAS("records", "records-dir", NULL),
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[1];
	pq_error err = { 0 };
	int status, np = cmd_parse("bench", argc, argv, usage, specs, pos, 1, &status);
	if (np < 0)
		return status;
	if (np != 1 || trials < 1 || trials > 1000 || target <= 0 || mlen < 0 || op_budget < 0) {
		options_usage(stderr, usage, specs);
		return PQ_EUSAGE;
	}
	json_t *desc = NULL;
	instance_describe_limit(timeout);
	if (instance_describe(pos[0], &desc, &err) < 0)
		return cmd_fail("bench", &err);
	enum pq_op ops[PQ_OP_COUNT];
	int nops = 0;
	int kind = strcmp(json_string_value(json_object_get(desc, "kind")), "kem") == 0 ? 2 : 1;
	if (strcmp(opname, "all") == 0) {
		nops = pq_ops_for_kind(kind, ops);
	} else {
		int o = pq_op_parse(opname);
		if (o < 0) {
			json_decref(desc);
			pq_fail(&err, PQ_EUSAGE, "--op: unknown operation '%s'", opname);
			return cmd_fail("bench", &err);
		}
		ops[nops++] = (enum pq_op)o;
	}
	env_info env;
	json_t *envj = NULL;
	if (env_capture(&env, (int)cpu, json_string_value(json_object_get(desc, "compiler")), &err) == 0) {
		char warns[ENV_MAX_WARNINGS][ENV_WARNING_LEN];
		int nw = env_warnings(&env, warns, ENV_MAX_WARNINGS);
		for (int i = 0; i < nw; i++)
			fprintf(stderr, "warning: %s\n", warns[i]);
		envj = env_to_json(&env);
	}
	char *command = cmd_join_argv("pqprof", argc, argv);
	int header = 0;
	status = 0;
	if (records && *records && cmd_out_dir("bench", records, "the timing records", "--records-dir", &err) < 0) {
		json_decref(desc);
		json_decref(envj);
		free(command);
		return cmd_fail("bench", &err);
	}
	for (int i = 0; i < nops; i++) {
		struct bench_config cfg = {
			.lib = pos[0], .op = ops[i], .trials = (int)trials, .target_s = target,
			.fixed_iters = iters, .events = events, .backend = backend, .cpu = (int)cpu,
			.timeout_s = timeout, .op_budget_s = op_budget, .mlen = mlen, .command = command, .instance = desc,
			.environment = envj,
		};
		/* The scheme's own output goes to a log beside the record, never into it. */
		char logp[4096];
		pq_error lerr = { 0 };
		if (records && *records && cmd_record_path(logp, sizeof logp, records,
		                                           json_string_value(json_object_get(desc, "name")),
		                                           pq_op_name(ops[i]), ".output.log", &lerr) == 0)
			cfg.output_log = logp;
		json_t *rec = NULL;
		pq_error berr = { 0 };
		int r = record_bench(&cfg, 1, NULL, &rec, &berr);
		if (rec && records && *records) {
			char path[4096];
			pq_error werr = { 0 };
			if (cmd_record_path(path, sizeof path, records, json_string_value(json_object_get(desc, "name")),
			                    pq_op_name(ops[i]), ".json", &werr) < 0 ||
			    json_file_write(path, rec, &werr) < 0)
				fprintf(stderr, "pqprof bench: %s\n", werr.msg);
		}
		if (r < 0) {
			fprintf(stderr, "pqprof bench: %s: %s\n", pos[0], berr.msg);
			status = pq_exit_code(berr.code);
		} else if (json) {
			char *s = json_dumps(rec, JSON_INDENT(2));
			printf("%s\n", s);
			free(s);
		} else {
			if (!header) {
				json_t *b = json_object_get(rec, "backend");
				printf("counter: %s\n", json_string_value(json_object_get(b, "description")));
				json_t *ov = json_object_get(b, "read_overhead");
				if (ov)
					printf("read overhead: %.1f %s, %.1f ns per read\n",
					       json_number_value(json_object_get(ov, "units")),
					       json_string_value(json_object_get(b, "unit")),
					       json_number_value(json_object_get(ov, "ns")));
				bench_table_header(stdout, json_string_value(json_object_get(b, "unit")));
				header = 1;
			}
			bench_table_row(stdout, rec, NULL, NULL);
			fflush(stdout);
		}
		json_decref(rec);
	}
	json_decref(desc);
	json_decref(envj);
	free(command);
	return status;
}
