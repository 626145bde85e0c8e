/* Shared helpers for SPHINCS+: big-endian integer conversion and the two
 * Merkle routines used by both FORS and the hypertree. */
#ifndef SPX_UTILS_H
#define SPX_UTILS_H

#include <stdint.h>

#include "address.h"
#include "hash.h"
#include "params.h"

void spx_ull_to_bytes(unsigned char *out, unsigned int outlen, uint64_t in);
uint64_t spx_bytes_to_ull(const unsigned char *in, unsigned int inlen);

/* Root of a tree of the given height from a leaf, its index and the
 * authentication path. idx_offset is the index of the tree's first leaf in
 * the address space (nonzero for FORS); tree_addr gets height/index set. */
void spx_compute_root(unsigned char *root, const unsigned char *leaf,
                      uint32_t leaf_idx, uint32_t idx_offset,
                      const unsigned char *auth_path, uint32_t tree_height,
                      const spx_ctx *ctx, spx_addr tree_addr);

/* Leaf generator: writes the leaf with absolute index addr_idx. */
typedef void (*spx_gen_leaf_fn)(unsigned char *leaf, const spx_ctx *ctx,
                                uint32_t addr_idx, void *info);

/* Computes the root of a tree of the given height (leaves from gen_leaf) and
 * the authentication path of leaf_idx (pass ~0 to skip it). */
void spx_treehash(unsigned char *root, unsigned char *auth_path,
                  const spx_ctx *ctx, uint32_t leaf_idx, uint32_t idx_offset,
                  uint32_t tree_height, spx_gen_leaf_fn gen_leaf,
                  spx_addr tree_addr, void *info);

#endif
