/* NIST PQC signature API for the in-tree ML-DSA (FIPS 204): sizes,
 * algorithm name and the crypto_sign_* prototypes.  Signing and
 * verification use the empty context string, as ML-DSA.Sign and
 * ML-DSA.Verify do when no context is given; signing is hedged, with rnd
 * drawn from randombytes(). */
#ifndef MLD_API_H
#define MLD_API_H

#include "params.h"

#define CRYPTO_ALGNAME MLD_PARAM_NAME

#define CRYPTO_SECRETKEYBYTES MLD_SK_BYTES
#define CRYPTO_PUBLICKEYBYTES MLD_PK_BYTES
#define CRYPTO_BYTES MLD_SIG_BYTES

#ifdef __cplusplus
extern "C" {
#endif

/* Key pair from randombytes (one call of 32 bytes: the seed xi). */
int crypto_sign_keypair(unsigned char *pk, unsigned char *sk);

/* Detached signature; *siglen is set to CRYPTO_BYTES.  Draws 32 bytes
 * (rnd) from randombytes. */
int crypto_sign_signature(unsigned char *sig, unsigned long long *siglen,
                          const unsigned char *m, unsigned long long mlen,
                          const unsigned char *sk);

/* Returns 0 if sig is a valid signature of m under pk, -1 otherwise. */
int crypto_sign_verify(const unsigned char *sig, unsigned long long siglen,
                       const unsigned char *m, unsigned long long mlen,
                       const unsigned char *pk);

/* Attached form: sm = signature || message. */
int crypto_sign(unsigned char *sm, unsigned long long *smlen,
                const unsigned char *m, unsigned long long mlen,
                const unsigned char *sk);

int crypto_sign_open(unsigned char *m, unsigned long long *mlen,
                     const unsigned char *sm, unsigned long long smlen,
                     const unsigned char *pk);

#ifdef __cplusplus
}
#endif

#endif
