/* SPHINCS+ keyed hash functions for SHAKE: the context (seeds), PRF,
 * PRF_msg, H_msg and the tweakable hash T_l / F / H (simple variant). */
#ifndef SPX_HASH_H
#define SPX_HASH_H

#include <stdint.h>

#include "address.h"
#include "params.h"

typedef struct {
    unsigned char pub_seed[SPX_N];
    unsigned char sk_seed[SPX_N];
} spx_ctx;

/* PRF(PK.seed, SK.seed, ADRS) = SHAKE256(PK.seed || ADRS || SK.seed, 8n). */
void spx_prf_addr(unsigned char *out, const spx_ctx *ctx, const spx_addr a);

/* R = PRF_msg(SK.prf, optrand, M) = SHAKE256(SK.prf || optrand || M, 8n). */
void spx_gen_message_random(unsigned char *R, const unsigned char *sk_prf,
                            const unsigned char *optrand,
                            const unsigned char *m, unsigned long long mlen);

/* H_msg(R, PK.seed, PK.root, M): FORS message digest, tree and leaf index. */
void spx_hash_message(unsigned char *digest, uint64_t *tree,
                      uint32_t *leaf_idx, const unsigned char *R,
                      const unsigned char *pk, const unsigned char *m,
                      unsigned long long mlen);

/* T_l(PK.seed, ADRS, in[inblocks * n]) = SHAKE256(PK.seed || ADRS || in). */
void spx_thash(unsigned char *out, const unsigned char *in,
               unsigned int inblocks, const spx_ctx *ctx, const spx_addr a);

#endif
