/* op_ctx: buffers and single calls of an instance's operations; see op_ctx.h. */
#include "config.h"
#include "runner/op_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slack after every buffer, so a scheme that overruns slightly in a benchmark
 * corrupts nothing of ours; the KAT gate is where overruns are caught. */
#define SLACK 64

static unsigned char *alloc_buf(pq_u64 n)
{
	if (n > (1ull << 34))
		return NULL;
	return calloc(1, (size_t)n + SLACK);
}

int op_ctx_init(struct op_ctx *c, const struct pqprof_instance *inst, size_t mlen, pq_error *err)
{
	memset(c, 0, sizeof *c);
	c->inst = inst;
	inst->get_sizes(&c->sz);
	c->mlen = mlen;
	c->m = alloc_buf(mlen);
	c->pk = alloc_buf(c->sz.pk);
	c->sk = alloc_buf(c->sz.sk);
	if (inst->kind == PQPROF_KIND_SIG) {
		c->bloblen_max = inst->sig_blob_max(mlen);
		c->blob = alloc_buf(c->bloblen_max);
		c->scratch = alloc_buf(c->bloblen_max);
	} else {
		c->ct = alloc_buf(c->sz.ct);
		c->ss = alloc_buf(c->sz.ss);
		c->ss2 = alloc_buf(c->sz.ss);
	}
	int ok = c->m && c->pk && c->sk &&
	         (inst->kind == PQPROF_KIND_SIG ? c->blob && c->scratch : c->ct && c->ss && c->ss2);
	if (!ok) {
		op_ctx_free(c);
		return pq_fail(err, PQ_ENOMEM, "cannot allocate buffers for the declared sizes (pk %llu, sk %llu, sig %llu)",
		               c->sz.pk, c->sz.sk, c->sz.sig);
	}
	/* A fixed message, so every build of an instance signs the same bytes. */
	for (size_t i = 0; i < mlen; i++)
		c->m[i] = (unsigned char)(i * 7 + 1);
	return 0;
}

void op_ctx_free(struct op_ctx *c)
{
	free(c->m);
	free(c->pk);
	free(c->sk);
	free(c->blob);
	free(c->scratch);
	free(c->ct);
	free(c->ss);
	free(c->ss2);
	c->m = c->pk = c->sk = c->blob = c->scratch = c->ct = c->ss = c->ss2 = NULL;
}

int op_ctx_call(struct op_ctx *c, enum pq_op op)
{
	const struct pqprof_instance *in = c->inst;
	int r;
	if (c->mark)
		c->mark(op, 1);
	switch (op) {
	case PQ_OP_KEYGEN:
		c->pklen = c->sz.pk;
		c->sklen = c->sz.sk;
		r = in->keygen(c->pk, &c->pklen, c->sk, &c->sklen);
		break;
	case PQ_OP_SIGN:
		c->bloblen = c->bloblen_max;
		r = in->sign(c->sk, c->sklen, c->m, c->mlen, c->blob, &c->bloblen);
		break;
	case PQ_OP_VERIFY:
		r = in->verify(c->pk, c->pklen, c->blob, c->bloblen, c->m, c->mlen, c->scratch);
		break;
	case PQ_OP_ENC:
		c->sslen = c->sz.ss;
		c->ctlen = c->sz.ct;
		r = in->enc(c->pk, c->pklen, c->ss, &c->sslen, c->ct, &c->ctlen);
		break;
	case PQ_OP_DEC:
		c->ss2len = c->sz.ss;
		r = in->dec(c->sk, c->sklen, c->ct, c->ctlen, c->ss2, &c->ss2len);
		break;
	default:
		r = -99;
	}
	if (c->mark)
		c->mark(op, 0);
	c->last_rc = r;
	return r;
}

static int call_checked(struct op_ctx *c, enum pq_op op, pq_error *err)
{
	int r = op_ctx_call(c, op);
	if (r != 0)
		return pq_fail(err, PQ_ESCHEME, "%s returned %d", pq_op_name(op), r);
	return op_ctx_check(c, op, err);
}

int op_ctx_prepare(struct op_ctx *c, enum pq_op op, pq_error *err)
{
	int sig = c->inst->kind == PQPROF_KIND_SIG;
	if ((sig && (op == PQ_OP_ENC || op == PQ_OP_DEC)) || (!sig && (op == PQ_OP_SIGN || op == PQ_OP_VERIFY)))
		return pq_fail(err, PQ_EUSAGE, "operation %s does not apply to a %s instance",
		               pq_op_name(op), sig ? "signature" : "KEM");
	if (op == PQ_OP_KEYGEN)
		return 0;
	int r = call_checked(c, PQ_OP_KEYGEN, err);
	if (r == 0 && (op == PQ_OP_VERIFY))
		r = call_checked(c, PQ_OP_SIGN, err);
	if (r == 0 && (op == PQ_OP_DEC))
		r = call_checked(c, PQ_OP_ENC, err);
	if (r < 0)
		pq_error_prefix(err, "preparing %s: ", pq_op_name(op));
	return r;
}

int op_ctx_check(struct op_ctx *c, enum pq_op op, pq_error *err)
{
	switch (op) {
	case PQ_OP_KEYGEN:
		if (c->pklen > c->sz.pk || c->sklen > c->sz.sk)
			return pq_fail(err, PQ_ESCHEME, "keygen produced pk %llu / sk %llu bytes, declared %llu / %llu",
			               c->pklen, c->sklen, c->sz.pk, c->sz.sk);
		return 0;
	case PQ_OP_SIGN: {
		if (c->bloblen > c->bloblen_max)
			return pq_fail(err, PQ_ESCHEME, "sign produced %llu bytes, declared at most %llu",
			               c->bloblen, c->bloblen_max);
		/* Under the verify mark: a crash or hang here is verify's, not sign's. */
		if (c->mark)
			c->mark(PQ_OP_VERIFY, 1);
		int v = c->inst->verify(c->pk, c->pklen, c->blob, c->bloblen, c->m, c->mlen, c->scratch);
		if (c->mark)
			c->mark(PQ_OP_VERIFY, 0);
		if (v != 0)
			return pq_fail(err, PQ_ESCHEME, "verify rejected a fresh signature (returned %d)", v);
		return 0;
	}
	case PQ_OP_VERIFY:
		if (c->last_rc != 0)
			return pq_fail(err, PQ_ESCHEME, "verify rejected a valid signature (returned %d)", c->last_rc);
		return 0;
	case PQ_OP_ENC:
		if (c->sslen > c->sz.ss || c->ctlen > c->sz.ct)
			return pq_fail(err, PQ_ESCHEME, "enc produced ss %llu / ct %llu bytes, declared %llu / %llu",
			               c->sslen, c->ctlen, c->sz.ss, c->sz.ct);
		return 0;
	case PQ_OP_DEC:
		if (c->ss2len != c->sslen || memcmp(c->ss, c->ss2, (size_t)c->sslen) != 0)
			return pq_fail(err, PQ_ESCHEME, "dec produced a shared secret different from enc's");
		return 0;
	default:
		return pq_fail(err, PQ_EUSAGE, "unknown operation");
	}
}
