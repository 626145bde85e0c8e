/* mem_run: per-operation memory and size sampling in runner children; see mem_run.h. */
#include "config.h"
#include "runner/mem_run.h"
#include "runner/child.h"

#include <stdio.h>
#include <string.h>

#define DEFAULT_AS_LIMIT (8ull << 30)

static void describe_failure(json_t *rec, const struct child_result *cr)
{
	char why[512];
	child_describe(cr, why, sizeof why);
	json_object_set_new(rec, "status", json_string("failed"));
	json_object_set_new(rec, "failure", json_string(why));
}

int mem_run_op(const struct mem_run_opts *o, enum pq_op op, json_t **record, pq_error *err)
{
	char stack[32];
	const char *args[5] = { "--op", pq_op_name(op), NULL, NULL, NULL };
	if (o->stack_size > 0) {
		snprintf(stack, sizeof stack, "%ld", o->stack_size);
		args[2] = "--stack-size";
		args[3] = stack;
	}
	struct child_spec cs = {
		.job = "mem", .lib = o->lib, .args = args, .timeout_s = o->timeout_s > 0 ? o->timeout_s : 300,
		.cpu = o->cpu, .as_limit = o->as_limit ? o->as_limit : DEFAULT_AS_LIMIT,
	};
	struct child_result cr;
	int r = child_run(&cs, &cr, err);
	if (r < 0)
		return r;
	json_t *rec = json_pack("{s:s, s:s}", "schema", "pqprof.memory/1", "op", pq_op_name(op));
	if (cr.end == CHILD_OK) {
		json_object_set(rec, "memory", json_object_get(cr.done, "memory"));
		json_object_set(rec, "check", json_object_get(cr.done, "check"));
		json_object_set_new(rec, "status", json_string("complete"));
	} else {
		describe_failure(rec, &cr);
		r = pq_fail(err, PQ_ESCHEME, "%s: %s", pq_op_name(op), json_string_value(json_object_get(rec, "failure")));
	}
	if (cr.orphans) /* killed with the runner's namespace or process group */
		json_object_set_new(rec, "processes_killed", json_integer(cr.orphans));
	child_result_free(&cr);
	*record = rec;
	return r;
}

int sizes_run(const struct mem_run_opts *o, long runs, json_t **record, pq_error *err)
{
	char n[32];
	snprintf(n, sizeof n, "%ld", runs);
	const char *args[] = { "--runs", n, NULL };
	struct child_spec cs = {
		.job = "sizes", .lib = o->lib, .args = args, .timeout_s = o->timeout_s > 0 ? o->timeout_s : 900,
		.cpu = o->cpu, .as_limit = o->as_limit ? o->as_limit : DEFAULT_AS_LIMIT,
	};
	struct child_result cr;
	int r = child_run(&cs, &cr, err);
	if (r < 0)
		return r;
	json_t *rec = json_pack("{s:s}", "schema", "pqprof.sizes/1");
	if (cr.end == CHILD_OK) {
		const char *keys[] = { "pk", "sk", "sig", "ct", "ss", "runs" };
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			if (json_object_get(cr.done, keys[i]))
				json_object_set(rec, keys[i], json_object_get(cr.done, keys[i]));
		json_object_set_new(rec, "status", json_string("complete"));
	} else {
		describe_failure(rec, &cr);
		r = pq_fail(err, PQ_ESCHEME, "sizes: %s", json_string_value(json_object_get(rec, "failure")));
	}
	if (cr.orphans)
		json_object_set_new(rec, "processes_killed", json_integer(cr.orphans));
	child_result_free(&cr);
	*record = rec;
	return r;
}

int sizes_audit(json_t *rec, char lines[][256], int max)
{
	static const char *const keys[] = { "pk", "sk", "sig", "ct", "ss" };
	static const char *const names[] = { "public key", "secret key", "signature", "ciphertext", "shared secret" };
	int n = 0;
	for (int i = 0; i < 5 && n < max; i++) {
		json_t *e = json_object_get(rec, keys[i]);
		if (!e)
			continue;
		json_int_t d = json_integer_value(json_object_get(e, "declared"));
		json_int_t mn = json_integer_value(json_object_get(e, "min"));
		json_int_t mx = json_integer_value(json_object_get(e, "max"));
		if (mx > d)
			snprintf(lines[n++], 256, "%s: produced up to %lld bytes, declared %lld (error: larger than declared)",
			         names[i], (long long)mx, (long long)d);
		else if (mn < d)
			snprintf(lines[n++], 256, "%s: produced %lld..%lld bytes, declared %lld (note: smaller than declared)",
			         names[i], (long long)mn, (long long)mx, (long long)d);
	}
	return n;
}
