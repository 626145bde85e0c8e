/* SPHINCS+ hash addresses (ADRS): 32 bytes, eight big-endian 32-bit words
 * (layer, tree[3 words], type, keypair, chain/height, hash/index). */
#ifndef SPX_ADDRESS_H
#define SPX_ADDRESS_H

#include <stdint.h>

#include "params.h"

#define SPX_ADDR_TYPE_WOTS 0
#define SPX_ADDR_TYPE_WOTSPK 1
#define SPX_ADDR_TYPE_HASHTREE 2
#define SPX_ADDR_TYPE_FORSTREE 3
#define SPX_ADDR_TYPE_FORSPK 4
#define SPX_ADDR_TYPE_WOTSPRF 5
#define SPX_ADDR_TYPE_FORSPRF 6

typedef unsigned char spx_addr[SPX_ADDR_BYTES];

void spx_set_layer_addr(spx_addr a, uint32_t layer);
void spx_set_tree_addr(spx_addr a, uint64_t tree);
/* Sets the type word only; the other words are left as they are. */
void spx_set_type(spx_addr a, uint32_t type);
void spx_set_keypair_addr(spx_addr a, uint32_t keypair);
void spx_set_chain_addr(spx_addr a, uint32_t chain);
void spx_set_hash_addr(spx_addr a, uint32_t hash);
void spx_set_tree_height(spx_addr a, uint32_t height);
void spx_set_tree_index(spx_addr a, uint32_t index);

/* Copies the layer and tree words. */
void spx_copy_subtree_addr(spx_addr out, const spx_addr in);
/* Copies the layer, tree and keypair words. */
void spx_copy_keypair_addr(spx_addr out, const spx_addr in);

#endif
