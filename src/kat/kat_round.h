/*
 * kat_round: one round of a known-answer flow on guarded buffers:
 * keygen, sign, verify (signatures) or keygen, enc, dec (KEMs), each call
 * checked for canaries, declared lengths and return codes.  The engine
 * context records the first failure as the outcome's verdict and reason.
 * Shared by the record loop (kat_flow.c) and the API deviation checks
 * (api_checks.c); internal to the KAT engine.
 */
#ifndef PQ_KAT_ROUND_H
#define PQ_KAT_ROUND_H

#include <stddef.h>
#include <stdint.h>

#include "kat/kat_engine.h"
#include "kat/guarded_buf.h"

/* Declared sizes above this are a broken descriptor, not a scheme. */
#define KAT_SIZE_SANITY_MAX ((pq_u64)1 << 30)
#define KAT_NGCC_SEED_LEN 64
#define KAT_NIST_SEED_LEN 48

struct engine {
	const struct pqprof_instance *inst;
	struct pqprof_sizes sz;
	int nist;
	struct kat_outcome *out;
	int failed;            /* the outcome already holds a failure */
};

/* Record the first failure: verdict, field (or NULL), reason. */
void kat_fail(struct engine *e, enum kat_verdict v, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "record 3 sign" or "deviation check keygen" for messages. */
void kat_where(char *buf, size_t n);
/* A scheme call begins: tell the fault handler and the op hook. */
void kat_enter(long record, const char *op);
/* Who is told about each call (kat_engine_opts.op_hook); NULL = nobody. */
void kat_set_op_hook(void (*hook)(const char *op, long record));
/* Each 0 when fine, else -1 with the failure recorded. */
int kat_check_bufs(struct engine *e, struct gbuf *bufs, int n);
int kat_check_len(struct engine *e, const char *name, pq_u64 got, pq_u64 declared);
int kat_check_rc(struct engine *e, int rc, const char *field);
/* Re-seed the scheme's randomness for one record (NGCC: 64 bytes, NIST: 48). */
int kat_seed_scheme(struct engine *e, const uint8_t *seed, size_t len);

enum { SB_PK, SB_SK, SB_BLOB, SB_M, SB_SCRATCH, SB_N };

struct sig_round {
	struct gbuf b[SB_N];
	pq_u64 pklen, sklen, bloblen, mlen;
};

/* 0, 1 when the descriptor is unusable (failure recorded), -PQ_ENOMEM. */
int sig_round_alloc(struct engine *e, struct sig_round *r, const uint8_t *m, size_t mlen);
void sig_round_free(struct sig_round *r);
/* keygen, sign, verify; 0 ok, -1 failure recorded, -PQ_ENOMEM (the engine's own; nothing recorded). */
int sig_round_run(struct engine *e, struct sig_round *r);
/* verify and, for NIST, the opened message; returns the scheme's answer. */
int sig_round_verify(struct engine *e, struct sig_round *r, const uint8_t *blob, pq_u64 bloblen,
                     int *accepted);

enum { KB_PK, KB_SK, KB_CT, KB_SS, KB_SS2, KB_N };

struct kem_round {
	struct gbuf b[KB_N];
	pq_u64 pklen, sklen, ctlen, sslen, ss2len;
};

int kem_round_alloc(struct engine *e, struct kem_round *r);
void kem_round_free(struct kem_round *r);
/* keygen, enc, dec and the shared secrets compared; 0 ok, -1 failure recorded. */
int kem_round_run(struct engine *e, struct kem_round *r);
/* dec alone (the ciphertext in r); the scheme's return code, -1 on a failure recorded. */
int kem_round_dec(struct engine *e, struct kem_round *r);

#endif
