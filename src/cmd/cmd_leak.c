/*
 * pqprof leak: the timing-leak smoke test of an instance's operations.
 * Prints each operation's verdict and every class pair's verdict line
 * (with the effect, its interval, the floor and the A/A control's largest
 * |t|), writes one pqprof.leak/1 record and one |t| plot per operation,
 * and exits 30 when a leak is likely, 31 when the test was inconclusive.
 */
#include "config.h"
#include "supervise/describe.h"
#include "cmd/cmd_outdir.h"
#include "core/json_file.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/atomic_file.h"
#include "core/options.h"
#include "core/options_help.h"
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

static const char usage[] = "pqprof leak LIB";

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

/* Every pair named in --classes is one the leak test knows; 0, or -1 with err set. */
static int check_classes(const char *classes, pq_error *err)
{
	if (!classes)
		return 0;
	char buf[512];
	snprintf(buf, sizeof buf, "%s", classes);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!leak_pair_name_known(tok))
			return pq_fail(err, PQ_EUSAGE, "--classes: unknown class pair '%s' (fixed-vs-random, all, key, "
			               "message, seed, valid-vs-invalid, ciphertext)", tok);
	return 0;
}

/*
 * The operations to test: every one of the instance's kind for "all",
 * else the one named, which must apply to the kind.  A single operation
 * that none of the named pairs applies to is a usage error, found before
 * any output.  0, or -1 with err set.
 */
static int choose_ops(const json_t *desc, const char *opname, const char *classes, enum pq_op *ops, int *nops,
                      pq_error *err)
{
	int kind = strcmp(json_string_value(json_object_get(desc, "kind")) ?: "", "kem") == 0 ? 2 : 1;
	*nops = 0;
	if (strcmp(opname, "all") == 0) {
		*nops = pq_ops_for_kind(kind, ops);
	} else {
		int o = pq_op_parse(opname);
		if (o < 0)
			return pq_fail(err, PQ_EUSAGE, "--op: unknown operation '%s'", opname);
		int sig_op = o == PQ_OP_SIGN || o == PQ_OP_VERIFY, kem_op = o == PQ_OP_ENC || o == PQ_OP_DEC;
		if ((kind == 1 && kem_op) || (kind == 2 && sig_op))
			return pq_fail(err, PQ_EUSAGE, "--op: %s does not apply to a %s instance", opname,
			               kind == 2 ? "KEM" : "signature");
		ops[(*nops)++] = (enum pq_op)o;
	}
	const struct leak_pair *check[16];
	if (*nops == 1 && classes && leak_pairs_select(ops[0], classes, check, 16, NULL, 0) == 0)
		return pq_fail(err, PQ_EUSAGE, "--classes: '%s' names no class pair of %s", classes, pq_op_name(ops[0]));
	return 0;
}

/* What the operations' runs add up to: the exit status follows from it. */
struct leak_tally {
	int errors;     /* the first failure's exit status, 0 for none */
	int leaks, unsure, ran, written;
};

static void note_error(struct leak_tally *t, const pq_error *e)
{
	if (!t->errors)
		t->errors = pq_exit_code(e->code);
}

/* One operation's test: its record and |t| plot written (records_dir), the record printed, the verdict counted. */
static void run_one(const struct leak_config *cfg, const char *records_dir, const char *name, int json,
                    struct leak_tally *t)
{
	json_t *rec = NULL;
	pq_error lerr = { 0 };
	int r = leak_run_op(cfg, &rec, &lerr);
	if (rec && records_dir && *records_dir) {
		char path[4096], svg[4096];
		pq_error werr = { 0 };
		t->written++;
		if (cmd_record_path(path, sizeof path, records_dir, name, pq_op_name(cfg->op), ".json", &werr) < 0 ||
		    cmd_record_path(svg, sizeof svg, records_dir, name, pq_op_name(cfg->op), ".svg", &werr) < 0 ||
		    json_file_write(path, rec, &werr) < 0 || (r == 0 && leak_chart_write(rec, svg, &werr) < 0)) {
			fprintf(stderr, "pqprof leak: %s\n", werr.msg);
			note_error(t, &werr);
		}
	}
	if (r < 0) {
		fprintf(stderr, "pqprof leak: %s: %s\n", cfg->lib, lerr.msg);
		note_error(t, &lerr);
	} else if (json) {
		char *s = json_dumps(rec, JSON_INDENT(2));
		printf("%s\n", s);
		free(s);
	} else {
		print_record(rec, name);
	}
	if (r == 0) {
		enum leak_verdict v = leak_record_verdict(rec);
		t->leaks += v == LEAK_LIKELY;
		t->unsure += v == LEAK_INCONCLUSIVE;
	}
	fflush(stdout);
	json_decref(rec);
}

/* Each operation in turn, with cfg's settings; with --op all and named pairs, those none applies to are skipped. */
static void run_ops(struct leak_config *cfg, const enum pq_op *ops, int nops, const char *records_dir, const char *name,
                    int json, struct leak_tally *t)
{
	for (int i = 0; i < nops; i++) {
		const struct leak_pair *sel[16];
		if (nops > 1 && leak_pairs_select(ops[i], cfg->classes, sel, 16, NULL, 0) <= 0)
			continue;
		t->ran++;
		cfg->op = ops[i];
		run_one(cfg, records_dir, name, json, t);
	}
}

int cmd_leak(int argc, char **argv)
{
	const char *opname = "all", *classes = NULL, *events = "cycles", *backend = NULL, *records = "leak";
	const char *floorspec = NULL;
	long measurements = 0, cpu = -1, mlen = 64, seed = 0;
	double budget = LEAK_DEFAULT_BUDGET_S, timeout = 0;
	int json = 0;
	struct opt_scope budgets[] = {
		{ "", &budget, NULL, NULL },
		{ "leak", &budget, "the same", NULL },
		{ NULL, NULL, NULL, NULL },
	};
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &opname, "OP", "keygen, sign, verify, enc, dec, or all", NULL },
		{ OPT_STRING, 0, "classes", &classes, "PAIRS",
		  "class pairs: fixed-vs-random, all, or names (key, message, seed, valid-vs-invalid, ciphertext)",
		  "each operation's fixed-vs-random pairs" },
		{ OPT_INT, 0, "measurements", &measurements, "N", "at most N measurements per class pair",
		  "as many as the budget allows" },
		{ OPT_SCOPED, 0, "budget", budgets, "S", "seconds per operation, shared by its pairs", NULL },
		{ OPT_STRING, 0, "floor", &floorspec, "SPEC",
		  "practical floor: smaller differences are no leak; N counter units and/or P% of the mean",
		  "1,0.05%: the larger of the two" },
		{ OPT_STRING, 0, "events", &events, "LIST", "counter event", NULL },
		{ OPT_STRING, 0, "backend", &backend, "NAME", "force perf-rdpmc, perf-read, tsc or clock",
		  "the best that works" },
		{ OPT_INT, 0, "cpu", &cpu, "N", "pin the runner to CPU N", "not pinned" },
		{ OPT_DOUBLE, 0, "timeout", &timeout, "S", "time limit per child", "twice the budget + 120" },
		{ OPT_INT, 0, "mlen", &mlen, "BYTES", "message length", NULL },
		{ OPT_INT, 0, "seed", &seed, "N", "seed of the class interleaving and random inputs", "fresh" },
		{ OPT_STRING, 0, "records-dir", &records, "DIR", "write records and plots here (\"\" for none)", NULL },
		{ OPT_FLAG, 0, "json", &json, NULL, "print the records as JSON", NULL },
		OPT_ALIAS("time-budget", "budget", NULL),
		OPT_ALIAS("records", "records-dir", NULL),
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
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
	if (check_classes(classes, &err) < 0)
		return cmd_fail("leak", &err);
	struct leak_floor floor = { LEAK_FLOOR_UNITS, LEAK_FLOOR_SHARE };
	char badpart[64];
	if (floorspec && leak_floor_parse(floorspec, &floor, badpart, sizeof badpart) < 0) {
		pq_fail(&err, PQ_EUSAGE, "--floor: '%s' is not a count of counter units (2) or a share of the mean "
		        "below 100%% (0.1%%)", badpart);
		return cmd_fail("leak", &err);
	}
	json_t *desc = NULL;
	if (instance_describe(pos[0], &desc, &err) < 0)
		return cmd_fail("leak", &err);
	enum pq_op ops[PQ_OP_COUNT];
	int nops = 0;
	if (choose_ops(desc, opname, classes, ops, &nops, &err) < 0) {
		json_decref(desc);
		return cmd_fail("leak", &err);
	}
	env_info env;
	json_t *envj = NULL;
	if (env_capture(&env, (int)cpu, json_string_value(json_object_get(desc, "compiler")), &err) == 0)
		envj = env_to_json(&env);
	if (records && *records && cmd_out_dir("leak", records, "the leak records and plots", "--records-dir", &err) < 0) {
		json_decref(desc);
		json_decref(envj);
		return cmd_fail("leak", &err);
	}
	char *command = cmd_join_argv("pqprof", argc, argv);
	struct leak_config cfg = {
		.lib = pos[0], .classes = classes, .budget_s = budget, .max_measurements = measurements, .mlen = mlen,
		.events = events, .backend = backend, .cpu = (int)cpu, .timeout_s = timeout, .seed = (uint64_t)seed,
		.floor = &floor, .command = command, .instance = desc, .environment = envj,
	};
	struct leak_tally t = { 0 };
	run_ops(&cfg, ops, nops, records, json_string_value(json_object_get(desc, "name")) ?: "instance", json, &t);
	if (!t.ran) {
		pq_fail(&err, PQ_EUSAGE, "--classes: '%s' names no class pair of this instance's operations", classes);
		t.errors = cmd_fail("leak", &err);
	} else if (t.written && records && *records && !json) {
		printf("records and |t| plots: %s/\n", records);
	}
	json_decref(desc);
	json_decref(envj);
	free(command);
	if (t.errors)
		return t.errors;
	return t.leaks ? LEAK_EXIT_LIKELY : t.unsure ? LEAK_EXIT_INCONCLUSIVE : 0;
}
