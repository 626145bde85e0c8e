/*
 * pqprof leak: the timing-leak smoke test of an instance's operations.
 * Prints each operation's verdict and every class pair's verdict line,
 * writes one pqprof.leak/1 record and one |t| plot per operation, and
 * exits 30 when a leak is likely, 31 when the test was inconclusive.
 */
#include "config.h"
#include "supervise/describe.h"
#include "cmd/cmd_outdir.h"
#include "core/json_file.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/atomic_file.h"
#include "core/options.h"
#include "leak/leak_chart.h"
#include "leak/leak_classes.h"
#include "leak/leak_run.h"
#include "measure/env.h"
#include "supervise/bench.h"
#include "supervise/child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exit statuses of `pqprof leak` beyond the common 0-9 (see pqprof(1)). */
#define LEAK_EXIT_LIKELY 30
#define LEAK_EXIT_INCONCLUSIVE 31

static const char usage[] =
	"pqprof leak LIB [--op keygen|sign|verify|enc|dec|all] [--classes PAIRS] [--measurements N]\n"
	"                [--time-budget S] [--backend NAME] [--cpu N] [--records DIR] [--json]";

static void print_record(const json_t *rec, const char *instance)
{
	printf("%s %s: %s\n", instance, json_string_value(json_object_get(rec, "op")),
	       json_string_value(json_object_get(rec, "verdict")));
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(rec, "pairs"), i, p)
		printf("  %s: %s\n", json_string_value(json_object_get(p, "classes")),
		       json_string_value(json_object_get(p, "line")));
}

int cmd_leak(int argc, char **argv)
{
	const char *opname = "all", *classes = NULL, *events = "cycles", *backend = NULL, *records = "leak";
	long measurements = 0, cpu = -1, mlen = 64, seed = 0;
	double budget = LEAK_DEFAULT_BUDGET_S, timeout = 0;
	int json = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &opname, "OP", "operation, or all (default)" },
		{ OPT_STRING, 0, "classes", &classes, "PAIRS",
		  "class pairs: fixed-vs-random, all, or names (key, message, seed, valid-vs-invalid, ciphertext)" },
		{ OPT_INT, 0, "measurements", &measurements, "N", "at most N measurements per class pair" },
		{ OPT_DOUBLE, 0, "time-budget", &budget, "S", "seconds per operation, shared by its pairs (default 4)" },
		{ OPT_STRING, 0, "events", &events, "LIST", "counter event (default cycles)" },
		{ OPT_STRING, 0, "backend", &backend, "NAME", "force perf-rdpmc, perf-read, tsc or clock" },
		{ OPT_INT, 0, "cpu", &cpu, "N", "pin the runner to CPU N" },
		{ OPT_DOUBLE, 0, "timeout", &timeout, "S", "time limit per child (default twice the budget + 120)" },
		{ OPT_INT, 0, "mlen", &mlen, "BYTES", "message length (default 64)" },
		{ OPT_INT, 0, "seed", &seed, "N", "seed of the class interleaving and random inputs (default: fresh)" },
		{ OPT_STRING, 0, "records", &records, "DIR", "write records and plots here (default ./leak)" },
		{ OPT_FLAG, 0, "json", &json, NULL, "print the records as JSON" },
		{ OPT_END, 0, NULL, NULL, NULL, NULL },
	};
	const char *pos[1];
	pq_error err = { 0 };
	int status, np = cmd_parse("leak", argc, argv, usage, specs, pos, 1, &status);
	if (np < 0)
		return status;
	if (np != 1 || budget <= 0 || budget > 86400 || measurements < 0 || mlen < 1 || mlen > (1 << 20) || seed < 0) {
		options_usage(stderr, usage, specs);
		return PQ_EUSAGE;
	}
	if (classes) {
		char buf[512];
		snprintf(buf, sizeof buf, "%s", classes);
		char *save = NULL;
		for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (!leak_pair_name_known(tok)) {
				pq_fail(&err, PQ_EUSAGE, "--classes: unknown class pair '%s' (fixed-vs-random, all, key, "
				        "message, seed, valid-vs-invalid, ciphertext)", tok);
				return cmd_fail("leak", &err);
			}
	}
	json_t *desc = NULL;
	if (instance_describe(pos[0], &desc, &err) < 0)
		return cmd_fail("leak", &err);
	enum pq_op ops[PQ_OP_COUNT];
	int nops = 0;
	int kind = strcmp(json_string_value(json_object_get(desc, "kind")) ?: "", "kem") == 0 ? 2 : 1;
	if (strcmp(opname, "all") == 0) {
		nops = pq_ops_for_kind(kind, ops);
	} else {
		int o = pq_op_parse(opname);
		if (o < 0) {
			json_decref(desc);
			pq_fail(&err, PQ_EUSAGE, "--op: unknown operation '%s'", opname);
			return cmd_fail("leak", &err);
		}
		int sig_op = o == PQ_OP_SIGN || o == PQ_OP_VERIFY, kem_op = o == PQ_OP_ENC || o == PQ_OP_DEC;
		if ((kind == 1 && kem_op) || (kind == 2 && sig_op)) {
			json_decref(desc);
			pq_fail(&err, PQ_EUSAGE, "--op: %s does not apply to a %s instance", opname,
			        kind == 2 ? "KEM" : "signature");
			return cmd_fail("leak", &err);
		}
		ops[nops++] = (enum pq_op)o;
	}
	/* A single operation that none of the named pairs applies to is a usage error, found before any output. */
	const struct leak_pair *check[16];
	if (nops == 1 && classes && leak_pairs_select(ops[0], classes, check, 16, NULL, 0) == 0) {
		json_decref(desc);
		pq_fail(&err, PQ_EUSAGE, "--classes: '%s' names no class pair of %s", classes, pq_op_name(ops[0]));
		return cmd_fail("leak", &err);
	}
	env_info env;
	json_t *envj = NULL;
	if (env_capture(&env, (int)cpu, json_string_value(json_object_get(desc, "compiler")), &err) == 0)
		envj = env_to_json(&env);
	if (records && *records && cmd_out_dir("leak", records, "the leak records and plots", "--records", &err) < 0) {
		json_decref(desc);
		json_decref(envj);
		return cmd_fail("leak", &err);
	}
	char *command = cmd_join_argv("pqprof", argc, argv);
	const char *name = json_string_value(json_object_get(desc, "name")) ?: "instance";
	int errors = 0, leaks = 0, unsure = 0, ran = 0, written = 0;
	for (int i = 0; i < nops; i++) {
		const struct leak_pair *sel[16];
		/* --op all with named pairs: the operations they do not apply to are skipped. */
		if (nops > 1 && leak_pairs_select(ops[i], classes, sel, 16, NULL, 0) <= 0)
			continue;
		ran++;
		struct leak_config cfg = {
			.lib = pos[0], .op = ops[i], .classes = classes, .budget_s = budget,
			.max_measurements = measurements, .mlen = mlen, .events = events, .backend = backend,
			.cpu = (int)cpu, .timeout_s = timeout, .seed = (uint64_t)seed, .command = command,
			.instance = desc, .environment = envj,
		};
		json_t *rec = NULL;
		pq_error lerr = { 0 };
		int r = leak_run_op(&cfg, &rec, &lerr);
		if (rec && records && *records) {
			char path[4096], svg[4096];
			pq_error werr = { 0 };
			written++;
			if (cmd_record_path(path, sizeof path, records, name, pq_op_name(ops[i]), ".json", &werr) < 0 ||
			    cmd_record_path(svg, sizeof svg, records, name, pq_op_name(ops[i]), ".svg", &werr) < 0 ||
			    json_file_write(path, rec, &werr) < 0 || (r == 0 && leak_chart_write(rec, svg, &werr) < 0)) {
				fprintf(stderr, "pqprof leak: %s\n", werr.msg);
				if (!errors)
					errors = pq_exit_code(werr.code);
			}
		}
		if (r < 0) {
			fprintf(stderr, "pqprof leak: %s: %s\n", pos[0], lerr.msg);
			if (!errors)
				errors = pq_exit_code(lerr.code);
		} else if (json) {
			char *s = json_dumps(rec, JSON_INDENT(2));
			printf("%s\n", s);
			free(s);
		} else {
			print_record(rec, name);
		}
		if (r == 0) {
			enum leak_verdict v = leak_record_verdict(rec);
			leaks += v == LEAK_LIKELY;
			unsure += v == LEAK_INCONCLUSIVE;
		}
		fflush(stdout);
		json_decref(rec);
	}
	if (!ran) {
		pq_fail(&err, PQ_EUSAGE, "--classes: '%s' names no class pair of this instance's operations", classes);
		errors = cmd_fail("leak", &err);
	} else if (written && records && *records && !json) {
		printf("records and |t| plots: %s/\n", records);
	}
	json_decref(desc);
	json_decref(envj);
	free(command);
	if (errors)
		return errors;
	return leaks ? LEAK_EXIT_LIKELY : unsure ? LEAK_EXIT_INCONCLUSIVE : 0;
}
