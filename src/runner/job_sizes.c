/*
 * job_sizes: the runner's "sizes" job.  Runs keygen and sign (or enc) many
 * times under different seeds and reports the smallest and largest public
 * key, secret key and signature (ciphertext, shared secret) the instance
 * actually produced, next to the sizes it declares.  Signature lengths of
 * NIST instances are sm minus the message.  With --seconds S, sampling
 * stops once S seconds are spent (after two runs at least): an instance
 * whose keygen takes seconds is not run twenty times.
 */
#include "config.h"
#include "runner/jobs.h"
#include "core/clock.h"
#include "core/options.h"

#include <string.h>

struct minmax {
	pq_u64 min, max;
	int seen;
};

static void note(struct minmax *m, pq_u64 v)
{
	if (!m->seen || v < m->min)
		m->min = v;
	if (!m->seen || v > m->max)
		m->max = v;
	m->seen = 1;
}

static json_t *mm_json(const struct minmax *m, pq_u64 declared)
{
	return json_pack("{s:I, s:I, s:I}", "declared", (json_int_t)declared, "min", (json_int_t)m->min,
	                 "max", (json_int_t)m->max);
}

int job_sizes(struct runner_env *env, int argc, char **argv)
{
	long runs = 20, done_runs = 0;
	double seconds = 0;
	int help = 0;
	const struct option_spec specs[] = {
		{ OPT_INT, 0, "runs", &runs, "N", "", NULL },
		{ OPT_DOUBLE, 0, "seconds", &seconds, "S", "", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	pq_error err = { 0 };
	if (options_parse(argc, argv, specs, NULL, 0, &help, &err) < 0 || runs < 1 || runs > 100000) {
		runner_emit_error("sizes job: bad arguments");
		return 1;
	}
	const struct pqprof_instance *in = env->inst;
	struct op_ctx c;
	if (op_ctx_init(&c, in, 64, &err) < 0) {
		runner_emit_error("%s", err.msg);
		return PQ_ENOMEM;
	}
	c.mark = runner_mark_call;
	int sig = in->kind == PQPROF_KIND_SIG;
	int nist = in->api == PQPROF_API_NIST;
	struct minmax pk = { 0 }, sk = { 0 }, s = { 0 }, ss = { 0 };
	double t0 = mono_s();
	for (long i = 0; i < runs; i++) {
		if (seconds > 0 && i >= 2 && mono_s() - t0 >= seconds)
			break;
		unsigned char seed[48];
		for (int k = 0; k < 48; k++)
			seed[k] = (unsigned char)(k + 31 * i);
		runner_seed_instance(in, seed, sizeof seed);
		enum pq_op second = sig ? PQ_OP_SIGN : PQ_OP_ENC;
		runner_op_begin(PQ_OP_KEYGEN, 0);
		int r = op_ctx_call(&c, PQ_OP_KEYGEN);
		runner_op_end(PQ_OP_KEYGEN, 0);
		if (r == 0) {
			runner_op_begin(second, 0);
			r = op_ctx_call(&c, second);
			runner_op_end(second, 0);
		}
		if (r != 0) {
			runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "cryptofail", "msg",
			                      "keygen or sign failed while sampling sizes"));
			op_ctx_free(&c);
			return PQ_ESCHEME;
		}
		note(&pk, c.pklen);
		note(&sk, c.sklen);
		if (sig)
			note(&s, nist ? c.bloblen - c.mlen : c.bloblen);
		else {
			note(&s, c.ctlen);
			note(&ss, c.sslen);
		}
		done_runs++;
	}
	json_t *done = json_pack("{s:s, s:I, s:o, s:o}", "ev", "done", "runs", (json_int_t)done_runs,
	                         "pk", mm_json(&pk, c.sz.pk), "sk", mm_json(&sk, c.sz.sk));
	if (done_runs < runs)
		json_object_set_new(done, "runs_planned", json_integer(runs));
	if (sig) {
		json_object_set_new(done, "sig", mm_json(&s, c.sz.sig));
	} else {
		json_object_set_new(done, "ct", mm_json(&s, c.sz.ct));
		json_object_set_new(done, "ss", mm_json(&ss, c.sz.ss));
	}
	op_ctx_free(&c);
	runner_emit(done);
	return 0;
}
