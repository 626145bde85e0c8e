/* kat_round: one keygen/sign/verify or keygen/enc/dec round; see kat_round.h. */
#include "config.h"
#include "kat/kat_round.h"
#include "kat/fault_guard.h"
#include "kat/nist_rng.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kat_fail(struct engine *e, enum kat_verdict v, const char *field, const char *fmt, ...)
{
	if (e->failed)
		return;
	e->failed = 1;
	e->out->verdict = v;
	e->out->record = fault_guard_record();
	snprintf(e->out->field, sizeof e->out->field, "%s", field ? field : "");
	va_list ap;
	va_start(ap, fmt);
	kat_outcome_vreason(e->out, fmt, ap);
	va_end(ap);
}

/* "record 3 sign" or "deviation check keygen" for messages. */
void kat_where(char *buf, size_t n)
{
	if (fault_guard_record() >= 0)
		snprintf(buf, n, "record %ld %s", fault_guard_record(), fault_guard_op());
	else
		snprintf(buf, n, "deviation check %s", fault_guard_op());
}

/* Who wants to know which call is in progress (the runner, for exit() and crash reports). */
static void (*op_hook)(const char *op, long record);

void kat_set_op_hook(void (*hook)(const char *op, long record))
{
	op_hook = hook;
}

void kat_enter(long record, const char *op)
{
	fault_guard_at(record, op);
	if (op_hook)
		op_hook(op, record);
}

/* Canary check of every buffer of the current round. */
int kat_check_bufs(struct engine *e, struct gbuf *bufs, int n)
{
	for (int i = 0; i < n; i++) {
		size_t at;
		int r = bufs[i].map ? gbuf_check(&bufs[i], &at) : 0;
		if (r) {
			char w[64];
			kat_where(w, sizeof w);
			if (r > 0)
				kat_fail(e, KAT_OVERFLOW, bufs[i].name,
				         "%s: wrote past the end of %s (byte %zu of a %zu-byte buffer)", w,
				         bufs[i].name, at, bufs[i].len);
			else
				kat_fail(e, KAT_OVERFLOW, bufs[i].name,
				         "%s: wrote %zu byte(s) before the start of %s", w, at, bufs[i].name);
			return -1;
		}
	}
	return 0;
}

int kat_check_len(struct engine *e, const char *name, pq_u64 got, pq_u64 declared)
{
	if (got <= declared)
		return 0;
	char w[64];
	kat_where(w, sizeof w);
	kat_fail(e, KAT_OVERFLOW, name, "%s: produced %s of %llu bytes, declared %llu", w, name,
	         got, declared);
	return -1;
}

int kat_check_rc(struct engine *e, int rc, const char *field)
{
	if (rc == 0)
		return 0;
	char w[64];
	kat_where(w, sizeof w);
	if (rc == PQPROF_VERIFY_WRONG_MESSAGE)
		kat_fail(e, KAT_CRYPTOFAIL, field, "%s: crypto_sign_open returned 0 but did not give back the signed "
		         "message (another length or other bytes)", w);
	else
		kat_fail(e, KAT_CRYPTOFAIL, field, "%s returned %d", w, rc);
	return -1;
}

/* Re-seed the scheme's randomness for one record (NGCC: 64 bytes, NIST: 48). */
int kat_seed_scheme(struct engine *e, const uint8_t *seed, size_t len)
{
	if (e->nist) {
		if (nist_rng_seed(seed) < 0) {
			kat_fail(e, KAT_CRYPTOFAIL, NULL, "AES-256 CTR_DRBG unavailable in libcrypto");
			return -1;
		}
		return 0;
	}
	kat_enter(fault_guard_record(), "seed");
	return kat_check_rc(e, e->inst->seed(seed, len), NULL);
}

static pq_u64 blob_max(struct engine *e, pq_u64 mlen)
{
	if (e->inst->sig_blob_max)
		return e->inst->sig_blob_max(mlen);
	return e->nist ? e->sz.sig + mlen : e->sz.sig;
}

void sig_round_free(struct sig_round *r)
{
	for (int i = 0; i < SB_N; i++)
		gbuf_free(&r->b[i]);
}

int sig_round_alloc(struct engine *e, struct sig_round *r, const uint8_t *m, size_t mlen)
{
	memset(r, 0, sizeof *r);
	pq_u64 bmax = blob_max(e, mlen);
	if (bmax > KAT_SIZE_SANITY_MAX) {
		kat_fail(e, KAT_LOADFAIL, NULL, "instance declares a %llu-byte signature blob", bmax);
		return 1;
	}
	const char *names[SB_N];
	names[SB_PK] = e->nist ? "pk" : "PK";
	names[SB_SK] = e->nist ? "sk" : "SK";
	names[SB_BLOB] = e->nist ? "sm" : "Sn";
	names[SB_M] = e->nist ? "msg" : "M";
	names[SB_SCRATCH] = "scratch";
	size_t lens[SB_N] = {e->sz.pk, e->sz.sk, bmax, mlen, bmax};
	for (int i = 0; i < SB_N; i++) {
		if (gbuf_alloc(&r->b[i], names[i], lens[i]) < 0) {
			sig_round_free(r);
			return -PQ_ENOMEM;
		}
	}
	if (mlen)
		memcpy(r->b[SB_M].data, m, mlen);
	r->mlen = mlen;
	return 0;
}

int sig_round_verify(struct engine *e, struct sig_round *r, const uint8_t *blob, pq_u64 bloblen,
                     int *accepted)
{
	uint8_t *b = r->b[SB_BLOB].data;
	if (blob != b)
		memcpy(b, blob, (size_t)bloblen);
	int rc = e->inst->verify(r->b[SB_PK].data, r->pklen, b, bloblen, r->b[SB_M].data, r->mlen,
	                         r->b[SB_SCRATCH].data);
	*accepted = rc == 0;
	if (*accepted && e->nist && r->mlen &&
	    memcmp(r->b[SB_SCRATCH].data, r->b[SB_M].data, (size_t)r->mlen) != 0)
		*accepted = 0;
	return rc;
}

int sig_round_run(struct engine *e, struct sig_round *r)
{
	struct gbuf *b = r->b;
	kat_enter(fault_guard_record(), "keygen");
	r->pklen = e->sz.pk;
	r->sklen = e->sz.sk;
	int rc = e->inst->keygen(b[SB_PK].data, &r->pklen, b[SB_SK].data, &r->sklen);
	if (kat_check_bufs(e, b, SB_N) || kat_check_rc(e, rc, NULL) ||
	    kat_check_len(e, b[SB_PK].name, r->pklen, e->sz.pk) ||
	    kat_check_len(e, b[SB_SK].name, r->sklen, e->sz.sk))
		return -1;
	if (e->nist) {
		/* PQCgenKAT records CRYPTO_*BYTES whatever the shim says. */
		r->pklen = e->sz.pk;
		r->sklen = e->sz.sk;
	}
	uint8_t *mcopy = malloc(r->mlen ? (size_t)r->mlen : 1);
	if (!mcopy)
		return -PQ_ENOMEM; /* the engine's own failure, no verdict on the scheme */
	if (r->mlen)
		memcpy(mcopy, b[SB_M].data, (size_t)r->mlen);
	kat_enter(fault_guard_record(), "sign");
	r->bloblen = b[SB_BLOB].len;
	rc = e->inst->sign(b[SB_SK].data, r->sklen, b[SB_M].data, r->mlen, b[SB_BLOB].data,
	                       &r->bloblen);
	int bad = kat_check_bufs(e, b, SB_N) || kat_check_rc(e, rc, NULL) ||
	          kat_check_len(e, b[SB_BLOB].name, r->bloblen, b[SB_BLOB].len);
	if (!bad && r->mlen && memcmp(mcopy, b[SB_M].data, (size_t)r->mlen) != 0) {
		kat_outcome_note(e->out, "sign modified the message buffer");
		memcpy(b[SB_M].data, mcopy, (size_t)r->mlen);
	}
	free(mcopy);
	if (bad)
		return -1;
	kat_enter(fault_guard_record(), "verify");
	int accepted;
	rc = sig_round_verify(e, r, b[SB_BLOB].data, r->bloblen, &accepted);
	if (kat_check_bufs(e, b, SB_N))
		return -1;
	if (!accepted) {
		char w[64];
		kat_where(w, sizeof w);
		if (rc == 0 || rc == PQPROF_VERIFY_WRONG_MESSAGE)
			kat_fail(e, KAT_CRYPTOFAIL, b[SB_BLOB].name, "%s: %s", w,
			         rc == 0 ? "the opened message differs from the signed one"
			                 : "crypto_sign_open returned 0 but did not give back the signed message (another "
			                   "length or other bytes)");
		else
			kat_fail(e, KAT_CRYPTOFAIL, b[SB_BLOB].name,
			         "%s rejected the scheme's own signature (returned %d)", w, rc);
		return -1;
	}
	return 0;
}

void kem_round_free(struct kem_round *r)
{
	for (int i = 0; i < KB_N; i++)
		gbuf_free(&r->b[i]);
}

int kem_round_alloc(struct engine *e, struct kem_round *r)
{
	memset(r, 0, sizeof *r);
	const char *names[KB_N] = {
		e->nist ? "pk" : "PK", e->nist ? "sk" : "SK", e->nist ? "ct" : "CT",
		e->nist ? "ss" : "SS", "dec ss",
	};
	size_t lens[KB_N] = {e->sz.pk, e->sz.sk, e->sz.ct, e->sz.ss, e->sz.ss};
	for (int i = 0; i < KB_N; i++) {
		if (gbuf_alloc(&r->b[i], names[i], lens[i]) < 0) {
			kem_round_free(r);
			return -PQ_ENOMEM;
		}
	}
	return 0;
}

int kem_round_dec(struct engine *e, struct kem_round *r)
{
	struct gbuf *b = r->b;
	kat_enter(fault_guard_record(), "dec");
	memset(b[KB_SS2].data, 0, b[KB_SS2].len);
	r->ss2len = e->sz.ss;
	int rc = e->inst->dec(b[KB_SK].data, r->sklen, b[KB_CT].data, r->ctlen, b[KB_SS2].data,
	                      &r->ss2len);
	if (kat_check_bufs(e, b, KB_N) || kat_check_len(e, b[KB_SS2].name, r->ss2len, e->sz.ss))
		return -1;
	return rc;
}

int kem_round_run(struct engine *e, struct kem_round *r)
{
	struct gbuf *b = r->b;
	kat_enter(fault_guard_record(), "keygen");
	r->pklen = e->sz.pk;
	r->sklen = e->sz.sk;
	int rc = e->inst->keygen(b[KB_PK].data, &r->pklen, b[KB_SK].data, &r->sklen);
	if (kat_check_bufs(e, b, KB_N) || kat_check_rc(e, rc, NULL) ||
	    kat_check_len(e, b[KB_PK].name, r->pklen, e->sz.pk) ||
	    kat_check_len(e, b[KB_SK].name, r->sklen, e->sz.sk))
		return -1;
	kat_enter(fault_guard_record(), "enc");
	r->sslen = e->sz.ss;
	r->ctlen = e->sz.ct;
	rc = e->inst->enc(b[KB_PK].data, r->pklen, b[KB_SS].data, &r->sslen, b[KB_CT].data,
	                  &r->ctlen);
	if (kat_check_bufs(e, b, KB_N) || kat_check_rc(e, rc, NULL) ||
	    kat_check_len(e, b[KB_SS].name, r->sslen, e->sz.ss) ||
	    kat_check_len(e, b[KB_CT].name, r->ctlen, e->sz.ct))
		return -1;
	if (e->nist) {
		r->pklen = e->sz.pk;
		r->sklen = e->sz.sk;
		r->ctlen = e->sz.ct;
		r->sslen = e->sz.ss;
	}
	rc = kem_round_dec(e, r);
	if (e->failed || kat_check_rc(e, rc, NULL))
		return -1;
	if (r->ss2len != r->sslen || memcmp(b[KB_SS].data, b[KB_SS2].data, (size_t)r->sslen) != 0) {
		char w[64];
		kat_where(w, sizeof w);
		kat_fail(e, KAT_CRYPTOFAIL, b[KB_SS].name,
		         "%s: decapsulated shared secret differs from the encapsulated one", w);
		return -1;
	}
	return 0;
}
