/*
 * job_keys: the runner side of the key-origin check (supervise/key_origin.h).
 * `keys --write FILE` generates a key pair from the benchmark seed, signs
 * and verifies with it in this process, and writes the pair to FILE;
 * `keys --read FILE` signs with a pair another process generated (no
 * keygen here) and verifies the signature with its public key.  Whether a
 * scheme accepts a key it did not generate itself is an API question the
 * other jobs never ask: they all sign with keys made in their own process.
 */
#include "config.h"
#include "runner/jobs.h"
#include "core/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int write_pair(const char *path, const struct op_ctx *c)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	int ok = fprintf(f, "%llu %llu\n", c->pklen, c->sklen) > 0 && fwrite(c->pk, 1, (size_t)c->pklen, f) == c->pklen &&
	         fwrite(c->sk, 1, (size_t)c->sklen, f) == c->sklen;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static int read_pair(const char *path, struct op_ctx *c)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	unsigned long long pkl = 0, skl = 0;
	int ok = fscanf(f, "%llu %llu", &pkl, &skl) == 2 && fgetc(f) == '\n' && pkl <= c->sz.pk && skl <= c->sz.sk &&
	         fread(c->pk, 1, (size_t)pkl, f) == pkl && fread(c->sk, 1, (size_t)skl, f) == skl;
	fclose(f);
	c->pklen = pkl;
	c->sklen = skl;
	return ok ? 0 : -1;
}

int job_keys(struct runner_env *env, int argc, char **argv)
{
	const char *wpath = NULL, *rpath = NULL;
	int help = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "write", &wpath, "FILE", "", NULL },
		{ OPT_STRING, 0, "read", &rpath, "FILE", "", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	pq_error err = { 0 };
	if (options_parse(argc, argv, specs, NULL, 0, &help, &err) < 0 || !wpath == !rpath) {
		runner_emit_error("keys job: %s", err.msg[0] ? err.msg : "one of --write and --read is required");
		return 1;
	}
	if (env->inst->kind != PQPROF_KIND_SIG) {
		runner_emit_error("keys job: not a signature instance");
		return 1;
	}
	unsigned char seed[48];
	bench_default_seed(seed);
	runner_seed_instance(env->inst, seed, sizeof seed);
	struct op_ctx c;
	if (op_ctx_init(&c, env->inst, 64, &err) < 0) {
		runner_emit_error("%s", err.msg);
		return PQ_ENOMEM;
	}
	c.mark = runner_mark_call;
	json_t *done = json_pack("{s:s, s:s}", "ev", "done", "mode", wpath ? "write" : "read");
	if (wpath) {
		int r = op_ctx_prepare(&c, PQ_OP_SIGN, &err);
		/* Evidence first: a sign that fails with its own key says nothing about keys from elsewhere. */
		char own[128] = "ok";
		if (r == 0) {
			runner_op_begin(PQ_OP_SIGN, 0);
			int rc = op_ctx_call(&c, PQ_OP_SIGN);
			runner_op_end(PQ_OP_SIGN, 0);
			if (rc != 0)
				snprintf(own, sizeof own, "sign returned %d with the key pair of its own process", rc);
		}
		json_object_set_new(done, "own_key_sign", json_string(r == 0 ? own : err.msg));
		if (r == 0 && write_pair(wpath, &c) < 0) {
			runner_emit_error("keys job: cannot write %s", wpath);
			op_ctx_free(&c);
			json_decref(done);
			return PQ_EIO;
		}
	} else {
		if (read_pair(rpath, &c) < 0) {
			runner_emit_error("keys job: cannot read a key pair from %s", rpath);
			op_ctx_free(&c);
			json_decref(done);
			return PQ_EIO;
		}
		runner_op_begin(PQ_OP_SIGN, 0);
		int rc = op_ctx_call(&c, PQ_OP_SIGN);
		runner_op_end(PQ_OP_SIGN, 0);
		json_object_set_new(done, "sign_rc", json_integer(rc));
		if (rc == 0)
			json_object_set_new(done, "verify", json_string(op_ctx_check(&c, PQ_OP_SIGN, &err) == 0 ? "ok" : err.msg));
	}
	op_ctx_free(&c);
	runner_emit(done);
	return 0;
}
