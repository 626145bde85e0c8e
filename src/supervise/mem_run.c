/* mem_run: per-operation memory and size sampling in runner children; see mem_run.h. */
#include "config.h"
#include "supervise/output_log.h"
#include "runner/op_ctx.h"
#include "supervise/mem_run.h"
#include "supervise/child.h"
#include "supervise/blame.h"

#include <stdio.h>
#include <string.h>

#define DEFAULT_AS_LIMIT (8ull << 30)

static void describe_failure(json_t *rec, const struct child_result *cr)
{
	char why[512];
	child_describe(cr, why, sizeof why);
	json_object_set_new(rec, "status", json_string("failed"));
	json_object_set_new(rec, "failure", json_string(why));
	json_object_set_new(rec, "failure_kind", json_string(blame_kind(child_blame(cr))));
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
	if (op_ctx_keys_note(op))
		json_object_set_new(rec, "keys", json_string(op_ctx_keys_note(op)));
	if (cr.end == CHILD_OK) {
		json_object_set(rec, "memory", json_object_get(cr.done, "memory"));
		json_object_set(rec, "check", json_object_get(cr.done, "check"));
		json_object_set_new(rec, "status", json_string("complete"));
	} else {
		describe_failure(rec, &cr);
		r = pq_fail(err, child_blame(&cr), "%s: %s", pq_op_name(op), json_string_value(json_object_get(rec, "failure")));
	}
	json_t *so = output_log_write(&cr, o->output_log);
	if (so)
		json_object_set_new(rec, "scheme_output", so);
	if (cr.orphans) /* killed with the runner's namespace or process group */
		json_object_set_new(rec, "processes_killed", json_integer(cr.orphans));
	child_result_free(&cr);
	*record = rec;
	return r;
}

int sizes_run(const struct mem_run_opts *o, long runs, double seconds, json_t **record, pq_error *err)
{
	char n[32], sec[32];
	snprintf(n, sizeof n, "%ld", runs);
	snprintf(sec, sizeof sec, "%g", seconds > 0 ? seconds : 0);
	const char *args[] = { "--runs", n, "--seconds", sec, NULL };
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
		const char *keys[] = { "pk", "sk", "sig", "ct", "ss", "runs", "runs_planned" };
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			if (json_object_get(cr.done, keys[i]))
				json_object_set(rec, keys[i], json_object_get(cr.done, keys[i]));
		json_object_set_new(rec, "status", json_string("complete"));
		if (seconds > 0)
			json_object_set_new(rec, "budget_s", json_real(seconds));
	} else {
		describe_failure(rec, &cr);
		r = pq_fail(err, child_blame(&cr), "sizes: %s", json_string_value(json_object_get(rec, "failure")));
	}
	if (cr.orphans)
		json_object_set_new(rec, "processes_killed", json_integer(cr.orphans));
	child_result_free(&cr);
	*record = rec;
	return r;
}
