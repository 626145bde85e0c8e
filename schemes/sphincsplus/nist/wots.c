/* WOTS+ (w = 16) for SPHINCS+: secret chain starts from PRF with the
 * WOTS_PRF address type, chains of F, public key compressed with T_len. */
#include <string.h>

#include "utils.h"
#include "wots.h"

/* Applies `steps` iterations of F to in, starting at chain position start. */
static void gen_chain(unsigned char *out, const unsigned char *in,
                      unsigned int start, unsigned int steps,
                      const spx_ctx *ctx, spx_addr addr)
{
    unsigned int i;

    memcpy(out, in, SPX_N);
    for (i = start; i < start + steps && i < SPX_WOTS_W; i++) {
        spx_set_hash_addr(addr, i);
        spx_thash(out, out, 1, ctx, addr);
    }
}

/* Splits bytes into base-w (4-bit, high nibble first) digits. */
static void base_w(unsigned int *out, unsigned int outlen,
                   const unsigned char *in)
{
    unsigned int i;

    for (i = 0; i < outlen; i++) {
        out[i] = (in[i >> 1] >> ((i & 1) ? 0 : 4)) & (SPX_WOTS_W - 1);
    }
}

void spx_chain_lengths(unsigned int *lengths, const unsigned char *msg)
{
    unsigned int csum = 0;
    unsigned char csum_bytes[(SPX_WOTS_LEN2 * SPX_WOTS_LOGW + 7) / 8];
    unsigned int i;

    base_w(lengths, SPX_WOTS_LEN1, msg);
    for (i = 0; i < SPX_WOTS_LEN1; i++) {
        csum += SPX_WOTS_W - 1 - lengths[i];
    }
    /* Left-align the checksum in its bytes, then take len2 digits. */
    csum <<= (8 - ((SPX_WOTS_LEN2 * SPX_WOTS_LOGW) % 8)) % 8;
    spx_ull_to_bytes(csum_bytes, sizeof csum_bytes, csum);
    base_w(lengths + SPX_WOTS_LEN1, SPX_WOTS_LEN2, csum_bytes);
}

void spx_wots_gen_leaf(unsigned char *leaf, const spx_ctx *ctx,
                       uint32_t leaf_idx, void *info)
{
    spx_wots_leaf_info *wi = (spx_wots_leaf_info *)info;
    unsigned char pk[SPX_WOTS_BYTES];
    spx_addr addr;
    spx_addr pk_addr;
    int signing = (leaf_idx == wi->sign_leaf);
    unsigned int i, k;

    memset(addr, 0, sizeof addr);
    spx_copy_subtree_addr(addr, wi->subtree_addr);
    spx_set_keypair_addr(addr, leaf_idx);
    memcpy(pk_addr, addr, sizeof addr);
    spx_set_type(pk_addr, SPX_ADDR_TYPE_WOTSPK);

    for (i = 0; i < SPX_WOTS_LEN; i++) {
        unsigned char *node = pk + i * SPX_N;
        unsigned int stop = signing ? wi->lengths[i] : SPX_WOTS_W;

        spx_set_chain_addr(addr, i);
        spx_set_hash_addr(addr, 0);
        spx_set_type(addr, SPX_ADDR_TYPE_WOTSPRF);
        spx_prf_addr(node, ctx, addr);
        spx_set_type(addr, SPX_ADDR_TYPE_WOTS);
        for (k = 0; k < SPX_WOTS_W - 1; k++) {
            if (k == stop) {
                memcpy(wi->wots_sig + i * SPX_N, node, SPX_N);
            }
            spx_set_hash_addr(addr, k);
            spx_thash(node, node, 1, ctx, addr);
        }
        if (stop == SPX_WOTS_W - 1) {
            memcpy(wi->wots_sig + i * SPX_N, node, SPX_N);
        }
    }
    spx_thash(leaf, pk, SPX_WOTS_LEN, ctx, pk_addr);
}

void spx_wots_pk_from_sig(unsigned char *pk, const unsigned char *sig,
                          const unsigned char *msg, const spx_ctx *ctx,
                          const spx_addr wots_addr)
{
    unsigned int lengths[SPX_WOTS_LEN];
    spx_addr addr;
    unsigned int i;

    memcpy(addr, wots_addr, sizeof addr);
    spx_set_type(addr, SPX_ADDR_TYPE_WOTS);
    spx_chain_lengths(lengths, msg);
    for (i = 0; i < SPX_WOTS_LEN; i++) {
        spx_set_chain_addr(addr, i);
        gen_chain(pk + i * SPX_N, sig + i * SPX_N, lengths[i],
                  SPX_WOTS_W - 1 - lengths[i], ctx, addr);
    }
}
