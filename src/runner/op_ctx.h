/*
 * op_ctx: one instance's operations as the runner child calls them.
 *
 * An op_ctx owns the key, message and signature (or ciphertext) buffers
 * for one instance, knows how to put them in the state an operation needs
 * (sign needs a secret key, verify a valid signature, dec a ciphertext),
 * and performs exactly one call of an operation.  Timing, sampling and
 * memory probes wrap op_ctx_call() and nothing else, so they measure the
 * scheme's code and not the set-up.
 */
#ifndef PQ_OP_CTX_H
#define PQ_OP_CTX_H

#include "core/ops.h"
#include "core/pq_error.h"
#include "instance/pqprof_abi.h"

#include <stddef.h>

struct op_ctx {
	const struct pqprof_instance *inst;
	struct pqprof_sizes sz;
	unsigned char *pk, *sk, *m, *blob, *scratch, *ct, *ss, *ss2;
	pq_u64 pklen, sklen, mlen, bloblen, bloblen_max, ctlen, sslen, ss2len;
	int last_rc;       /* return code of the last scheme call */
	/* Called around every scheme call (set-up included), so that a crash or
	 * exit() is attributed to the call really running; may be NULL. */
	void (*mark)(enum pq_op op, int begin);
	char what[128];    /* description of the last failure */
};

/*
 * Where the keys an operation uses come from, for records: every job
 * generates them with keygen in its own process before the operation, as
 * the submitters' own programs do (some schemes refuse keys from another
 * process: supervise/key_origin.h).  NULL for keygen, which needs none.
 */
const char *op_ctx_keys_note(enum pq_op op);
/*
 * A scheme call's failure in words: "returned N", or for a NIST verify
 * whose crypto_sign_open returned 0 with another message, says that
 * (PQPROF_VERIFY_WRONG_MESSAGE) instead of the shim's code.
 */
const char *op_ctx_rc_words(int rc, char *buf, size_t len);

/* Allocate buffers for an mlen-byte message (64 in benchmarks). */
int op_ctx_init(struct op_ctx *c, const struct pqprof_instance *inst, size_t mlen, pq_error *err);
void op_ctx_free(struct op_ctx *c);

/*
 * Make the state `op` needs: a key pair for sign/enc, a signature or
 * ciphertext for verify/dec.  Fails (PQ_ESCHEME) if the scheme's own calls
 * fail while doing so.
 */
int op_ctx_prepare(struct op_ctx *c, enum pq_op op, pq_error *err);

/* One call of `op`; returns the scheme's return code (0 = success). */
int op_ctx_call(struct op_ctx *c, enum pq_op op);

/*
 * Check the output of the last call: a sign's signature verifies, a dec's
 * shared secret matches the enc one, lengths stay within declared sizes.
 * 0 when good, else PQ_ESCHEME with a reason.
 */
int op_ctx_check(struct op_ctx *c, enum pq_op op, pq_error *err);

#endif
