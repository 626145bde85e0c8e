/*
 * job_mem: the runner's "mem" job.  `pqprof-runner mem LIB --op OP
 * [--stack-size BYTES]` readies one operation (key pair, signature...),
 * measures a single call of it with memprobe, and reports
 * {"ev":"done","op":OP,"rc":..,"check":..,"memory":{...}}.  One operation
 * per process: the parent starts a fresh runner for each, so that the
 * baseline and the peak belong to that operation alone.
 */
#include "config.h"
#include "runner/scheme_output.h"
#include "runner/jobs.h"
#include "runner/memprobe.h"
#include "runner/op_ctx.h"
#include "core/options.h"

#include <stdio.h>
#include <string.h>

/*
 * The runner's event descriptor, for the fault handler's diagnosis line
 * (a signal handler cannot use runner_emit).  Weak, so this file links
 * against a runner that does not export it yet; then no diagnosis is
 * written and the runner's own crash report stands alone.
 */
int runner_result_fd(void) __attribute__((weak));

#define MEM_MESSAGE_BYTES 64

/* Report a failure of the job itself (not of the scheme's call); the exit status. */
static int mem_fail(int code, const pq_error *err)
{
	runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "job", "mem", "msg", err->msg));
	return code < 0 ? -code : code;
}

static int parse_args(int argc, char **argv, enum pq_op *op, size_t *stack, pq_error *err)
{
	const char *op_name = NULL;
	long stack_size = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &op_name, "OP", "operation to measure (keygen, sign, verify, enc, dec)", NULL },
		{ OPT_INT, 0, "stack-size", &stack_size, "BYTES", "stack for the call (default 64 MiB)", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	int help = 0;
	int r = options_parse(argc, argv, specs, NULL, 0, &help, err);
	if (r < 0)
		return r;
	if (!op_name)
		return pq_fail(err, PQ_EUSAGE, "mem: --op is required");
	int o = pq_op_parse(op_name);
	if (o < 0)
		return pq_fail(err, PQ_EUSAGE, "mem: unknown operation '%s'", op_name);
	if (stack_size != 0 && (stack_size < 0 || (size_t)stack_size < MEMPROBE_MIN_STACK))
		return pq_fail(err, PQ_EUSAGE, "mem: --stack-size must be at least %zu bytes", MEMPROBE_MIN_STACK);
	*op = (enum pq_op)o;
	*stack = (size_t)stack_size;
	return 0;
}

int job_mem(struct runner_env *env, int argc, char **argv)
{
	pq_error err = { 0 };
	enum pq_op op = PQ_OP_KEYGEN;
	size_t stack = 0;
	int r = parse_args(argc, argv, &op, &stack, &err);
	if (r < 0)
		return mem_fail(r, &err);

	struct op_ctx c;
	r = op_ctx_init(&c, env->inst, MEM_MESSAGE_BYTES, &err);
	if (r < 0)
		return mem_fail(r, &err);
	unsigned char seed[48];
	for (size_t i = 0; i < sizeof seed; i++)
		seed[i] = (unsigned char)i;
	int seeded = runner_seed_instance(env->inst, seed, sizeof seed) == 0;
	c.mark = runner_mark_call;
	r = op_ctx_prepare(&c, op, &err);
	if (r < 0) {
		op_ctx_free(&c);
		return mem_fail(r, &err);
	}

	scheme_output_settle(-1, NULL, NULL);   /* set-up's output is not the operation's */
	struct memprobe_config cfg;
	memprobe_config_init(&cfg);
	if (stack)
		cfg.stack_size = stack;
	cfg.fault_fd = runner_result_fd ? runner_result_fd() : -1;
	struct memprobe_result res;
	runner_op_begin(op, 1);
	r = memprobe_run(&c, op, &cfg, &res, &err);
	runner_op_end(op, 1);
	scheme_output_settle(op, NULL, NULL);
	if (r < 0) {
		op_ctx_free(&c);
		return mem_fail(r, &err);
	}

	/* Outside the measurement: does what the call produced hold up? */
	pq_error chk = { 0 };
	const char *check = "ok";
	if (res.rc != 0) {
		snprintf(chk.msg, sizeof chk.msg, "%s returned %d", pq_op_name(op), res.rc);
		check = chk.msg;
	} else if (op_ctx_check(&c, op, &chk) < 0) {
		check = chk.msg;
	}

	json_t *done = json_pack("{s:s, s:s, s:i, s:s, s:b, s:o}", "ev", "done", "op", pq_op_name(op),
	                         "rc", res.rc, "check", check, "seeded", seeded,
	                         "memory", memprobe_result_to_json(&res));
	op_ctx_free(&c);
	if (!done) {
		runner_emit_error("mem: cannot build the result event");
		return PQ_EINTERNAL;
	}
	runner_emit(done);
	return 0;
}
