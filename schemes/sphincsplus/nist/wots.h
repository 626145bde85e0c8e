/* WOTS+ one-time signatures of SPHINCS+: message-to-chain-length encoding,
 * leaf generation (optionally emitting a signature) and pk recovery. */
#ifndef SPX_WOTS_H
#define SPX_WOTS_H

#include <stdint.h>

#include "address.h"
#include "hash.h"
#include "params.h"

/* Base-w digits of the n-byte message followed by the checksum digits. */
void spx_chain_lengths(unsigned int *lengths, const unsigned char *msg);

/* Leaf-generation context for one subtree (layer and tree in subtree_addr).
 * If sign_leaf matches the leaf being built, the WOTS+ signature of the
 * chain lengths in `lengths` is written to wots_sig on the way. */
typedef struct {
    spx_addr subtree_addr;
    uint32_t sign_leaf;
    unsigned char *wots_sig;
    unsigned int lengths[SPX_WOTS_LEN];
} spx_wots_leaf_info;

/* spx_gen_leaf_fn for hypertree leaves: compressed WOTS+ public key. */
void spx_wots_gen_leaf(unsigned char *leaf, const spx_ctx *ctx,
                       uint32_t leaf_idx, void *info);

/* WOTS+ public key (len * n bytes) from a signature of msg; wots_addr holds
 * layer, tree and keypair. */
void spx_wots_pk_from_sig(unsigned char *pk, const unsigned char *sig,
                          const unsigned char *msg, const spx_ctx *ctx,
                          const spx_addr wots_addr);

#endif
