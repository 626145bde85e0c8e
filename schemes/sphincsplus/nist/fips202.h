/* Keccak-f[1600] and SHAKE256 (FIPS 202) used as the only hash primitive
 * of the in-tree SPHINCS+ SHAKE instances. */
#ifndef SPX_FIPS202_H
#define SPX_FIPS202_H

#include <stddef.h>
#include <stdint.h>

#define SPX_SHAKE256_RATE 136

/* Incremental SHAKE256: init, absorb any number of times, finalize,
 * then squeeze any number of times. */
typedef struct {
    uint64_t s[25];
    size_t pos; /* bytes absorbed into / squeezed from the current block */
} spx_shake256_ctx;

void spx_keccakf1600(uint64_t s[25]);

void spx_shake256_init(spx_shake256_ctx *ctx);
void spx_shake256_absorb(spx_shake256_ctx *ctx, const unsigned char *in,
                         size_t inlen);
void spx_shake256_finalize(spx_shake256_ctx *ctx);
void spx_shake256_squeeze(unsigned char *out, size_t outlen,
                          spx_shake256_ctx *ctx);

/* One-shot SHAKE256. */
void spx_shake256(unsigned char *out, size_t outlen,
                  const unsigned char *in, size_t inlen);

/* One-shot SHAKE256 of the concatenation a || b || c whose total length
 * is below the rate (a single permutation); outlen <= 136. */
void spx_shake256_short3(unsigned char *out, size_t outlen,
                         const unsigned char *a, size_t alen,
                         const unsigned char *b, size_t blen,
                         const unsigned char *c, size_t clen);

#endif
