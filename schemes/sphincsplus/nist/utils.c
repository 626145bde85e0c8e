/* Big-endian conversions and Merkle tree routines (treehash, root from
 * authentication path) for SPHINCS+. */
#include <string.h>

#include "utils.h"

/* Largest tree handled by treehash (FORS trees of the 192s/256s sets). */
#define SPX_MAX_TREE_HEIGHT 16

void spx_ull_to_bytes(unsigned char *out, unsigned int outlen, uint64_t in)
{
    unsigned int i;

    for (i = outlen; i > 0; i--) {
        out[i - 1] = (unsigned char)in;
        in >>= 8;
    }
}

uint64_t spx_bytes_to_ull(const unsigned char *in, unsigned int inlen)
{
    uint64_t r = 0;
    unsigned int i;

    for (i = 0; i < inlen; i++) {
        r = (r << 8) | in[i];
    }
    return r;
}

void spx_compute_root(unsigned char *root, const unsigned char *leaf,
                      uint32_t leaf_idx, uint32_t idx_offset,
                      const unsigned char *auth_path, uint32_t tree_height,
                      const spx_ctx *ctx, spx_addr tree_addr)
{
    unsigned char buf[2 * SPX_N];
    uint32_t h;

    memcpy(buf, leaf, SPX_N);
    for (h = 1; h <= tree_height; h++) {
        /* Order the current node and its sibling left to right. */
        if (leaf_idx & 1) {
            memmove(buf + SPX_N, buf, SPX_N);
            memcpy(buf, auth_path, SPX_N);
        } else {
            memcpy(buf + SPX_N, auth_path, SPX_N);
        }
        auth_path += SPX_N;
        leaf_idx >>= 1;
        idx_offset >>= 1;
        spx_set_tree_height(tree_addr, h);
        spx_set_tree_index(tree_addr, leaf_idx + idx_offset);
        spx_thash(buf, buf, 2, ctx, tree_addr);
    }
    memcpy(root, buf, SPX_N);
}

void spx_treehash(unsigned char *root, unsigned char *auth_path,
                  const spx_ctx *ctx, uint32_t leaf_idx, uint32_t idx_offset,
                  uint32_t tree_height, spx_gen_leaf_fn gen_leaf,
                  spx_addr tree_addr, void *info)
{
    /* stack[k] holds a node of height heights[k]; heights strictly drop. */
    unsigned char stack[(SPX_MAX_TREE_HEIGHT + 1) * SPX_N];
    uint32_t heights[SPX_MAX_TREE_HEIGHT + 1];
    unsigned int top = 0;
    uint32_t idx;
    uint32_t nleaves = (uint32_t)1 << tree_height;

    for (idx = 0; idx < nleaves; idx++) {
        gen_leaf(stack + top * SPX_N, ctx, idx + idx_offset, info);
        heights[top] = 0;
        top++;
        if ((leaf_idx ^ 1) == idx) {
            memcpy(auth_path, stack + (top - 1) * SPX_N, SPX_N);
        }
        /* Merge while the two topmost nodes have equal height. */
        while (top >= 2 && heights[top - 1] == heights[top - 2]) {
            uint32_t h = heights[top - 1] + 1;
            uint32_t node_idx = idx >> h;

            spx_set_tree_height(tree_addr, h);
            spx_set_tree_index(tree_addr, node_idx + (idx_offset >> h));
            spx_thash(stack + (top - 2) * SPX_N, stack + (top - 2) * SPX_N,
                      2, ctx, tree_addr);
            top--;
            heights[top - 1] = h;
            if (h < tree_height && ((leaf_idx >> h) ^ 1) == node_idx) {
                memcpy(auth_path + h * SPX_N, stack + (top - 1) * SPX_N,
                       SPX_N);
            }
        }
    }
    memcpy(root, stack, SPX_N);
}
