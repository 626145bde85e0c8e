/* The FIPS 202 functions ML-KEM uses, on one Keccak-f[1600] sponge:
 * SHA3-256 (H), SHA3-512 (G), SHAKE128 (the XOF of SampleNTT) and
 * SHAKE256 (J and PRF).  Byte-oriented and portable; not for speed. */
#ifndef MLKEM_FIPS202_H
#define MLKEM_FIPS202_H

#include <stddef.h>
#include <stdint.h>

#define MLKEM_SHAKE128_RATE 168
#define MLKEM_SHAKE256_RATE 136
#define MLKEM_SHA3_256_RATE 136
#define MLKEM_SHA3_512_RATE 72

/* A sponge in one of two phases: absorbing until finalized, then
 * squeezing.  pos counts the bytes of the current block already used. */
typedef struct {
    uint64_t s[25];
    unsigned rate;
    unsigned pos;
    unsigned char suffix; /* domain bits and first padding bit */
} mlkem_sponge;

void mlkem_keccakf1600(uint64_t s[25]);

/* SHAKE128 / SHAKE256 as incremental XOFs: init, absorb (any number of
 * times), finalize, then squeeze any number of times. */
void mlkem_shake128_init(mlkem_sponge *ctx);
void mlkem_shake256_init(mlkem_sponge *ctx);
void mlkem_sponge_absorb(mlkem_sponge *ctx, const uint8_t *in, size_t inlen);
void mlkem_sponge_finalize(mlkem_sponge *ctx);
void mlkem_sponge_squeeze(mlkem_sponge *ctx, uint8_t *out, size_t outlen);

/* One-shot forms. */
void mlkem_shake256(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen);
void mlkem_sha3_256(uint8_t out[32], const uint8_t *in, size_t inlen);
void mlkem_sha3_512(uint8_t out[64], const uint8_t *in, size_t inlen);

/* Clears a sponge that held secret data. */
void mlkem_sponge_wipe(mlkem_sponge *ctx);

#endif
