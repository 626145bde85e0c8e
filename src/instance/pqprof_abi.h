/*
 * pqprof_abi.h: the one ABI every instance library exports.
 *
 * `pqprof build` compiles a submission together with a generated shim that
 * includes the submission's own header and defines `pqprof_instance`, a
 * struct pqprof_instance.  Everything after the build (runner, KAT gate,
 * bench, memory, profile) talks to the scheme only through it, so NGCC and
 * NIST trees look the same from there on.
 *
 * This header is compiled into the shim as text, so it must stay plain C99
 * with no includes beyond <stddef.h>.
 *
 * Calling conventions, whatever the flavour:
 *  - keygen(pk, &pklen, sk, &sklen)
 *  - sign(sk, sklen, m, mlen, blob, &bloblen): NGCC writes the detached
 *    signature, NIST writes the attached signed message sm.
 *  - verify(pk, pklen, blob, bloblen, m, mlen, scratch): 0 = valid.
 *    scratch holds at least bloblen bytes (NIST's crypto_sign_open output).
 *  - enc(pk, pklen, ss, &sslen, ct, &ctlen); dec(sk, sklen, ct, ctlen, ss, &sslen)
 *  - NIST signatures whose API takes a context string (FIPS 204 / 205
 *    style crypto_sign_ctx, crypto_sign_open_ctx): sign and verify call
 *    those with `context` when sig_api is PQPROF_SIG_CONTEXT.
 *  - NGCC randomness: seed() re-instantiates the tree's drng_algorithm.
 *    NIST randomness: randombytes() calls the function given to set_rng().
 */
#ifndef PQPROF_ABI_H
#define PQPROF_ABI_H

#define PQPROF_ABI_MAGIC 0x66707170u /* "pqpf" */
#define PQPROF_ABI_VERSION 2u
#define PQPROF_ABI_SYMBOL "pqprof_instance"

enum pqprof_api { PQPROF_API_NGCC = 1, PQPROF_API_NIST = 2 };
enum pqprof_kind { PQPROF_KIND_SIG = 1, PQPROF_KIND_KEM = 2 };
/* Which NIST signature functions sign/verify call (0: not a NIST signature). */
enum pqprof_sig_api { PQPROF_SIG_PLAIN = 1, PQPROF_SIG_CONTEXT = 2 };

typedef unsigned long long pq_u64;
typedef int (*pqprof_rng_fn)(unsigned char *out, pq_u64 len);

/*
 * What a NIST shim's verify returns when crypto_sign_open returned 0 but did
 * not give back the signed message (another length, other bytes): the
 * scheme's own return was 0, and the harness says so rather than a value
 * of its own making.
 */
#define PQPROF_VERIFY_WRONG_MESSAGE (-2147454895)

struct pqprof_sizes {
	pq_u64 pk, sk;
	pq_u64 sig;      /* NGCC: max detached signature; NIST: CRYPTO_BYTES */
	pq_u64 ct, ss;   /* KEM only */
};

struct pqprof_instance {
	unsigned magic;
	unsigned abi_version;
	int api;                 /* enum pqprof_api */
	int kind;                /* enum pqprof_kind */
	const char *name;        /* ALGORITHM_INSTANCE or CRYPTO_ALGNAME */
	const char *compiler;    /* "gcc (Debian 12.2.0-14) 12.2.0" */
	const char *profile;     /* flag profile name */
	const char *cflags;      /* the full flags the sources were built with */
	const char *source_dir;  /* absolute path of the submission tree */
	const char *build_notes; /* kept/left-out files and flag origins, one per line */

	void (*get_sizes)(struct pqprof_sizes *out);
	/* Bytes the sign blob may take for an mlen-byte message. */
	pq_u64 (*sig_blob_max)(pq_u64 mlen);

	int (*seed)(const unsigned char *seed, pq_u64 len);  /* NGCC, else NULL */
	void (*set_rng)(pqprof_rng_fn fn);                   /* NIST, else NULL */

	int (*keygen)(unsigned char *pk, pq_u64 *pklen, unsigned char *sk, pq_u64 *sklen);
	int (*sign)(unsigned char *sk, pq_u64 sklen, unsigned char *m, pq_u64 mlen,
	            unsigned char *blob, pq_u64 *bloblen);
	int (*verify)(unsigned char *pk, pq_u64 pklen, unsigned char *blob, pq_u64 bloblen,
	              unsigned char *m, pq_u64 mlen, unsigned char *scratch);
	int (*enc)(unsigned char *pk, pq_u64 pklen, unsigned char *ss, pq_u64 *sslen,
	           unsigned char *ct, pq_u64 *ctlen);
	int (*dec)(unsigned char *sk, pq_u64 sklen, unsigned char *ct, pq_u64 ctlen,
	           unsigned char *ss, pq_u64 *sslen);

	int sig_api;                  /* enum pqprof_sig_api */
	unsigned sig_apis;            /* what the header offers: bit 1 << PQPROF_SIG_PLAIN, 1 << PQPROF_SIG_CONTEXT */
	const unsigned char *context; /* the context string sign and verify pass (PQPROF_SIG_CONTEXT) */
	pq_u64 context_len;
};

#endif
