/* NIST PQC KEM API for the in-tree ML-KEM (FIPS 203): sizes, algorithm
 * name and the crypto_kem_* prototypes, plus the deterministic internal
 * functions of FIPS 203 section 6 for testing with fixed randomness. */
#ifndef MLKEM_API_H
#define MLKEM_API_H

#include "params.h"

#define CRYPTO_ALGNAME MLKEM_PARAM_NAME

#define CRYPTO_SECRETKEYBYTES MLKEM_DK_BYTES
#define CRYPTO_PUBLICKEYBYTES MLKEM_EK_BYTES
#define CRYPTO_CIPHERTEXTBYTES MLKEM_CT_BYTES
#define CRYPTO_BYTES MLKEM_SS_BYTES

#ifdef __cplusplus
extern "C" {
#endif

/* ML-KEM.KeyGen (Algorithm 19): pk = ek, sk = dk.  Draws d || z from
 * randombytes in one 64-byte call. */
int crypto_kem_keypair(unsigned char *pk, unsigned char *sk);

/* ML-KEM.Encaps (Algorithm 20): ct and the 32-byte shared secret ss.
 * Draws m from randombytes (32 bytes).  Returns -1, drawing nothing,
 * when pk fails the modulus check of section 7.2. */
int crypto_kem_enc(unsigned char *ct, unsigned char *ss, const unsigned char *pk);

/* ML-KEM.Decaps (Algorithm 21).  A ciphertext that does not decrypt
 * consistently yields the implicit-rejection secret, with return value 0;
 * -1 only when sk fails the hash check of section 7.3. */
int crypto_kem_dec(unsigned char *ss, const unsigned char *ct, const unsigned char *sk);

/* ML-KEM.KeyGen_internal (Algorithm 16) from explicit 32-byte d and z. */
void mlkem_keygen_internal(unsigned char *pk, unsigned char *sk,
                           const unsigned char *d, const unsigned char *z);

/* ML-KEM.Encaps_internal (Algorithm 17) with an explicit 32-byte m. */
void mlkem_encaps_internal(unsigned char *ct, unsigned char *ss,
                           const unsigned char *pk, const unsigned char *m);

/* ML-KEM.Decaps_internal (Algorithm 18). */
void mlkem_decaps_internal(unsigned char *ss, const unsigned char *ct,
                           const unsigned char *sk);

#ifdef __cplusplus
}
#endif

#endif
