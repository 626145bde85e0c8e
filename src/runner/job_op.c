/*
 * job_op: set-up shared by the jobs.  Seeding an instance (NIST-API ones
 * through the process's randombytes() DRBG, NGCC ones through their seed
 * hook); and for the jobs that run one operation many times (profile,
 * count): the benchmark seed, the operation's inputs prepared inside a
 * reported span, and a failed call turned into a "cryptofail" event.
 */
#include "config.h"
#include "runner/jobs.h"
#include "kat/nist_rng.h"

#include <string.h>

/* Same seed as the benchmark job (bytes 00..2f): profiles do the same work. */
static void job_seed(const struct pqprof_instance *inst)
{
	unsigned char seed[48];
	bench_default_seed(seed);
	runner_seed_instance(inst, seed, sizeof seed);
}

int job_prepare_op(struct runner_env *env, struct op_ctx *c, enum pq_op op, long mlen)
{
	pq_error err = { 0 };
	job_seed(env->inst);
	if (op_ctx_init(c, env->inst, (size_t)mlen, &err) < 0) {
		runner_emit_error("%s", err.msg);
		return PQ_ENOMEM;
	}
	runner_op_begin(op, 1);
	int r = op_ctx_prepare(c, op, &err);
	runner_op_end(op, 1);
	if (r < 0) {
		runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "cryptofail", "msg", err.msg));
		op_ctx_free(c);
		return PQ_ESCHEME;
	}
	return 0;
}

int job_call_failed(struct op_ctx *c, enum pq_op op, int rc, long i)
{
	pq_error err = { 0 };
	char words[64];
	if (rc != 0)
		pq_fail(&err, PQ_ESCHEME, "%s %s in call %ld", pq_op_name(op), op_ctx_rc_words(rc, words, sizeof words),
		        i + 1);
	else if (op_ctx_check(c, op, &err) == 0)
		return 0;
	runner_op_end(op, 1);
	runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "cryptofail", "msg", err.msg));
	return PQ_ESCHEME;
}

int runner_seed_instance(const struct pqprof_instance *inst, const unsigned char *seed, size_t len)
{
	if (inst->api == PQPROF_API_NIST) {
		unsigned char entropy[48] = { 0 };
		memcpy(entropy, seed, len < 48 ? len : 48);
		nist_rng_seed(entropy);
		if (inst->set_rng)
			inst->set_rng(nist_rng_randombytes);
		return 0;
	}
	if (!inst->seed)
		return -1;
	return inst->seed(seed, len);
}
