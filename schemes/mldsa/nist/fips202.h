/* FIPS 202 for pqprof's in-tree baselines (ML-DSA and ML-KEM): the
 * Keccak-f[1600] permutation and the sponge, with the instances the two
 * standards use (SHAKE128, SHAKE256, SHA3-256, SHA3-512).  The same two
 * files, fips202.h and fips202.c, sit in schemes/mldsa/nist and
 * schemes/mlkem/nist, byte for byte (make check compares them), so that
 * each tree stays a submission tree of its own.  Portable C99: no
 * intrinsics, no assumption about the host's byte order. */
#ifndef FIPS202_H
#define FIPS202_H

#include <stddef.h>
#include <stdint.h>

#define FIPS202_SHAKE128_RATE 168
#define FIPS202_SHAKE256_RATE 136
#define FIPS202_SHA3_256_RATE 136
#define FIPS202_SHA3_512_RATE 72

/* A Keccak sponge.  rate: bytes per block; pos: bytes of the current
 * block used (absorbing: filled so far; squeezing: read so far);
 * suffix: the domain bits with the first bit of pad10*1 (0x1F for SHAKE,
 * 0x06 for SHA-3). */
typedef struct {
    uint64_t s[25];
    unsigned rate;
    unsigned pos;
    uint8_t suffix;
} fips202_sponge;

/* Keccak-p[1600, 24] on 25 lanes, lane (x, y) at index x + 5y. */
void fips202_keccakf1600(uint64_t s[25]);

void fips202_shake128_init(fips202_sponge *k);
void fips202_shake256_init(fips202_sponge *k);
/* Any number of times before finalize. */
void fips202_absorb(fips202_sponge *k, const uint8_t *in, size_t inlen);
/* Pads; after this only the squeeze functions may be called. */
void fips202_finalize(fips202_sponge *k);
/* Any number of bytes; consecutive calls continue one output stream. */
void fips202_squeeze(fips202_sponge *k, uint8_t *out, size_t outlen);
/* nblocks whole blocks of rate bytes, written lane by lane: the fast
 * path for rejection samplers.  Continues the same stream as
 * fips202_squeeze, and may be mixed with it. */
void fips202_squeezeblocks(fips202_sponge *k, uint8_t *out, size_t nblocks);
/* Clears a sponge that held secret data. */
void fips202_wipe(fips202_sponge *k);

/* One-shot forms. */
void fips202_shake128(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen);
void fips202_shake256(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen);
void fips202_sha3_256(uint8_t out[32], const uint8_t *in, size_t inlen);
void fips202_sha3_512(uint8_t out[64], const uint8_t *in, size_t inlen);

#endif
