/* FORS (k trees of height a) for SPHINCS+ round 3.1: secret values from
 * PRF with the FORS_PRF address type, leaves F(sk), roots compressed by
 * T_k. */
#include <string.h>

#include "fors.h"
#include "utils.h"

typedef struct {
    spx_addr leaf_addr; /* layer, tree and keypair preset */
} fors_leaf_info;

static void fors_gen_leaf(unsigned char *leaf, const spx_ctx *ctx,
                          uint32_t addr_idx, void *info)
{
    fors_leaf_info *fi = (fors_leaf_info *)info;

    spx_set_tree_index(fi->leaf_addr, addr_idx);
    spx_set_type(fi->leaf_addr, SPX_ADDR_TYPE_FORSPRF);
    spx_prf_addr(leaf, ctx, fi->leaf_addr);
    spx_set_type(fi->leaf_addr, SPX_ADDR_TYPE_FORSTREE);
    spx_thash(leaf, leaf, 1, ctx, fi->leaf_addr);
}

/* Reads k a-bit indices from m, least significant bit first. */
static void message_to_indices(uint32_t *indices, const unsigned char *m)
{
    unsigned int i, j;
    unsigned int bit = 0;

    for (i = 0; i < SPX_FORS_TREES; i++) {
        indices[i] = 0;
        for (j = 0; j < SPX_FORS_HEIGHT; j++, bit++) {
            indices[i] |= (uint32_t)((m[bit >> 3] >> (bit & 7)) & 1) << j;
        }
    }
}

void spx_fors_sign(unsigned char *sig, unsigned char *pk,
                   const unsigned char *m, const spx_ctx *ctx,
                   const spx_addr fors_addr)
{
    uint32_t indices[SPX_FORS_TREES];
    unsigned char roots[SPX_FORS_TREES * SPX_N];
    spx_addr tree_addr;
    spx_addr pk_addr;
    fors_leaf_info fi;
    unsigned int i;

    memset(tree_addr, 0, sizeof tree_addr);
    memset(pk_addr, 0, sizeof pk_addr);
    memset(fi.leaf_addr, 0, sizeof fi.leaf_addr);
    spx_copy_keypair_addr(tree_addr, fors_addr);
    spx_copy_keypair_addr(pk_addr, fors_addr);
    spx_copy_keypair_addr(fi.leaf_addr, fors_addr);
    spx_set_type(pk_addr, SPX_ADDR_TYPE_FORSPK);

    message_to_indices(indices, m);

    for (i = 0; i < SPX_FORS_TREES; i++) {
        uint32_t idx_offset = i * ((uint32_t)1 << SPX_FORS_HEIGHT);

        /* Revealed secret value of the selected leaf. */
        spx_set_tree_height(tree_addr, 0);
        spx_set_tree_index(tree_addr, indices[i] + idx_offset);
        spx_set_type(tree_addr, SPX_ADDR_TYPE_FORSPRF);
        spx_prf_addr(sig, ctx, tree_addr);
        spx_set_type(tree_addr, SPX_ADDR_TYPE_FORSTREE);
        sig += SPX_N;

        spx_treehash(roots + i * SPX_N, sig, ctx, indices[i], idx_offset,
                     SPX_FORS_HEIGHT, fors_gen_leaf, tree_addr, &fi);
        sig += SPX_N * SPX_FORS_HEIGHT;
    }
    spx_thash(pk, roots, SPX_FORS_TREES, ctx, pk_addr);
}

void spx_fors_pk_from_sig(unsigned char *pk, const unsigned char *sig,
                          const unsigned char *m, const spx_ctx *ctx,
                          const spx_addr fors_addr)
{
    uint32_t indices[SPX_FORS_TREES];
    unsigned char roots[SPX_FORS_TREES * SPX_N];
    unsigned char leaf[SPX_N];
    spx_addr tree_addr;
    spx_addr pk_addr;
    unsigned int i;

    memset(tree_addr, 0, sizeof tree_addr);
    memset(pk_addr, 0, sizeof pk_addr);
    spx_copy_keypair_addr(tree_addr, fors_addr);
    spx_copy_keypair_addr(pk_addr, fors_addr);
    spx_set_type(tree_addr, SPX_ADDR_TYPE_FORSTREE);
    spx_set_type(pk_addr, SPX_ADDR_TYPE_FORSPK);

    message_to_indices(indices, m);

    for (i = 0; i < SPX_FORS_TREES; i++) {
        uint32_t idx_offset = i * ((uint32_t)1 << SPX_FORS_HEIGHT);

        spx_set_tree_height(tree_addr, 0);
        spx_set_tree_index(tree_addr, indices[i] + idx_offset);
        spx_thash(leaf, sig, 1, ctx, tree_addr);
        sig += SPX_N;

        spx_compute_root(roots + i * SPX_N, leaf, indices[i], idx_offset,
                         sig, SPX_FORS_HEIGHT, ctx, tree_addr);
        sig += SPX_N * SPX_FORS_HEIGHT;
    }
    spx_thash(pk, roots, SPX_FORS_TREES, ctx, pk_addr);
}
