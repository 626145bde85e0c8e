/* Tweakable hash of SPHINCS+ "simple" with SHAKE256: out = first n bytes
 * of SHAKE256(PK.seed || ADRS || in); short inputs take one permutation. */
#include "fips202.h"
#include "hash.h"

void spx_thash(unsigned char *out, const unsigned char *in,
               unsigned int inblocks, const spx_ctx *ctx, const spx_addr a)
{
    size_t inlen = (size_t)inblocks * SPX_N;

    if (SPX_N + SPX_ADDR_BYTES + inlen < SPX_SHAKE256_RATE) {
        spx_shake256_short3(out, SPX_N, ctx->pub_seed, SPX_N,
                            a, SPX_ADDR_BYTES, in, inlen);
    } else {
        spx_shake256_ctx st;

        spx_shake256_init(&st);
        spx_shake256_absorb(&st, ctx->pub_seed, SPX_N);
        spx_shake256_absorb(&st, a, SPX_ADDR_BYTES);
        spx_shake256_absorb(&st, in, inlen);
        spx_shake256_finalize(&st);
        spx_shake256_squeeze(out, SPX_N, &st);
    }
}
