/* SHAKE128 and SHAKE256 (FIPS 202) for the in-tree ML-DSA: an incremental
 * sponge (absorb, finalize, squeeze any number of bytes at a time) and a
 * one-shot SHAKE256.  ML-DSA uses SHAKE256 as H and SHAKE128 as G
 * (FIPS 204, section 3.7); nothing else of SHA-3 is needed. */
#ifndef MLD_FIPS202_H
#define MLD_FIPS202_H

#include <stddef.h>
#include <stdint.h>

#define MLD_SHAKE128_RATE 168
#define MLD_SHAKE256_RATE 136

/* A Keccak[c] sponge: 25 lanes, the rate in bytes and the byte position
 * inside the current block (absorbing before finalize, squeezing after). */
typedef struct {
    uint64_t lanes[25];
    unsigned rate;
    unsigned pos;
} mld_shake_ctx;

void mld_keccakf1600(uint64_t lanes[25]);

void mld_shake128_init(mld_shake_ctx *ctx);
void mld_shake256_init(mld_shake_ctx *ctx);
void mld_shake_absorb(mld_shake_ctx *ctx, const uint8_t *in, size_t inlen);
/* Pads with the SHAKE suffix; after this only squeeze is allowed. */
void mld_shake_finalize(mld_shake_ctx *ctx);
/* Consecutive calls continue one output stream. */
void mld_shake_squeeze(mld_shake_ctx *ctx, uint8_t *out, size_t outlen);

/* out = SHAKE256(in, 8 * outlen). */
void mld_shake256(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen);

#endif
