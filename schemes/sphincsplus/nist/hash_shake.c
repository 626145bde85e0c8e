/* PRF, PRF_msg and H_msg of SPHINCS+ round 3.1 instantiated with SHAKE256. */
#include <string.h>

#include "fips202.h"
#include "hash.h"
#include "utils.h"

void spx_prf_addr(unsigned char *out, const spx_ctx *ctx, const spx_addr a)
{
    spx_shake256_short3(out, SPX_N, ctx->pub_seed, SPX_N, a, SPX_ADDR_BYTES,
                        ctx->sk_seed, SPX_N);
}

void spx_gen_message_random(unsigned char *R, const unsigned char *sk_prf,
                            const unsigned char *optrand,
                            const unsigned char *m, unsigned long long mlen)
{
    spx_shake256_ctx st;

    spx_shake256_init(&st);
    spx_shake256_absorb(&st, sk_prf, SPX_N);
    spx_shake256_absorb(&st, optrand, SPX_N);
    spx_shake256_absorb(&st, m, (size_t)mlen);
    spx_shake256_finalize(&st);
    spx_shake256_squeeze(R, SPX_N, &st);
}

#define SPX_TREE_BITS (SPX_TREE_HEIGHT * (SPX_D - 1))
#define SPX_TREE_BYTES ((SPX_TREE_BITS + 7) / 8)
#define SPX_LEAF_BITS SPX_TREE_HEIGHT
#define SPX_LEAF_BYTES ((SPX_LEAF_BITS + 7) / 8)
#define SPX_DGST_BYTES (SPX_FORS_MSG_BYTES + SPX_TREE_BYTES + SPX_LEAF_BYTES)

#if SPX_TREE_BITS > 64
#error the hypertree index does not fit in 64 bits
#endif

void spx_hash_message(unsigned char *digest, uint64_t *tree,
                      uint32_t *leaf_idx, const unsigned char *R,
                      const unsigned char *pk, const unsigned char *m,
                      unsigned long long mlen)
{
    unsigned char buf[SPX_DGST_BYTES];
    spx_shake256_ctx st;

    spx_shake256_init(&st);
    spx_shake256_absorb(&st, R, SPX_N);
    spx_shake256_absorb(&st, pk, SPX_PK_BYTES);
    spx_shake256_absorb(&st, m, (size_t)mlen);
    spx_shake256_finalize(&st);
    spx_shake256_squeeze(buf, SPX_DGST_BYTES, &st);

    memcpy(digest, buf, SPX_FORS_MSG_BYTES);
#if SPX_D == 1
    *tree = 0;
#elif SPX_TREE_BITS == 64
    *tree = spx_bytes_to_ull(buf + SPX_FORS_MSG_BYTES, SPX_TREE_BYTES);
#else
    *tree = spx_bytes_to_ull(buf + SPX_FORS_MSG_BYTES, SPX_TREE_BYTES) &
            (((uint64_t)1 << SPX_TREE_BITS) - 1);
#endif
    *leaf_idx = (uint32_t)spx_bytes_to_ull(
                    buf + SPX_FORS_MSG_BYTES + SPX_TREE_BYTES,
                    SPX_LEAF_BYTES) &
                (((uint32_t)1 << SPX_LEAF_BITS) - 1);
}
