/* NIST PQC signature API for the in-tree SPHINCS+ (SHAKE, simple):
 * sizes, algorithm name and the crypto_sign_* prototypes. */
#ifndef SPX_API_H
#define SPX_API_H

#include "params.h"

#define CRYPTO_ALGNAME "SPHINCS+-" SPX_PARAM_NAME "-simple"

#define CRYPTO_SECRETKEYBYTES SPX_SK_BYTES
#define CRYPTO_PUBLICKEYBYTES SPX_PK_BYTES
#define CRYPTO_BYTES SPX_BYTES
#define CRYPTO_SEEDBYTES SPX_SEED_BYTES

#ifdef __cplusplus
extern "C" {
#endif

/* Key pair from an explicit 3*n-byte seed (SK.seed || SK.prf || PK.seed). */
int crypto_sign_seed_keypair(unsigned char *pk, unsigned char *sk,
                             const unsigned char *seed);

/* Key pair from randombytes (one call of 3*n bytes). */
int crypto_sign_keypair(unsigned char *pk, unsigned char *sk);

/* Detached signature; *siglen is set to CRYPTO_BYTES. */
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
