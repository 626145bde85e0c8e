/* SPHINCS+ round 3.1 key generation, signing and verification (hypertree
 * of WOTS+ subtrees over FORS) behind the NIST crypto_sign API. */
#include <stdint.h>
#include <string.h>

#include "api.h"
#include "fors.h"
#include "hash.h"
#include "rng.h"
#include "utils.h"
#include "wots.h"

/* Builds the subtree at (layer, tree); if sign_leaf is a leaf of it, writes
 * the WOTS+ signature of msg and the authentication path to sig. */
static void subtree_sign(unsigned char *sig, unsigned char *root,
                         const unsigned char *msg, const spx_ctx *ctx,
                         uint32_t layer, uint64_t tree, uint32_t sign_leaf)
{
    spx_wots_leaf_info wi;
    spx_addr tree_addr;

    memset(&wi, 0, sizeof wi);
    memset(tree_addr, 0, sizeof tree_addr);
    spx_set_layer_addr(tree_addr, layer);
    spx_set_tree_addr(tree_addr, tree);
    spx_copy_subtree_addr(wi.subtree_addr, tree_addr);
    spx_set_type(wi.subtree_addr, SPX_ADDR_TYPE_WOTS);
    spx_set_type(tree_addr, SPX_ADDR_TYPE_HASHTREE);
    wi.sign_leaf = sign_leaf;
    wi.wots_sig = sig;
    if (msg != NULL) {
        spx_chain_lengths(wi.lengths, msg);
    }
    spx_treehash(root, sig != NULL ? sig + SPX_WOTS_BYTES : NULL, ctx,
                 sign_leaf, 0,
                 SPX_TREE_HEIGHT, spx_wots_gen_leaf, tree_addr, &wi);
}

int crypto_sign_seed_keypair(unsigned char *pk, unsigned char *sk,
                             const unsigned char *seed)
{
    spx_ctx ctx;

    /* sk = SK.seed || SK.prf || PK.seed || PK.root, pk = PK.seed || root */
    memcpy(sk, seed, SPX_SEED_BYTES);
    memcpy(pk, sk + 2 * SPX_N, SPX_N);
    memcpy(ctx.pub_seed, pk, SPX_N);
    memcpy(ctx.sk_seed, sk, SPX_N);

    subtree_sign(NULL, pk + SPX_N, NULL, &ctx, SPX_D - 1, 0, ~(uint32_t)0);
    memcpy(sk + 3 * SPX_N, pk + SPX_N, SPX_N);
    return 0;
}

int crypto_sign_keypair(unsigned char *pk, unsigned char *sk)
{
    unsigned char seed[SPX_SEED_BYTES];

    if (randombytes(seed, SPX_SEED_BYTES) != 0) {
        return -1;
    }
    return crypto_sign_seed_keypair(pk, sk, seed);
}

int crypto_sign_signature(unsigned char *sig, unsigned long long *siglen,
                          const unsigned char *m, unsigned long long mlen,
                          const unsigned char *sk)
{
    spx_ctx ctx;
    const unsigned char *sk_prf = sk + SPX_N;
    const unsigned char *pk = sk + 2 * SPX_N;
    unsigned char optrand[SPX_N];
    unsigned char mhash[SPX_FORS_MSG_BYTES];
    unsigned char root[SPX_N];
    spx_addr fors_addr;
    uint64_t tree;
    uint32_t idx_leaf;
    uint32_t i;

    memcpy(ctx.sk_seed, sk, SPX_N);
    memcpy(ctx.pub_seed, pk, SPX_N);

    /* Randomized signing: optrand is n fresh random bytes. */
    if (randombytes(optrand, SPX_N) != 0) {
        return -1;
    }
    spx_gen_message_random(sig, sk_prf, optrand, m, mlen);
    spx_hash_message(mhash, &tree, &idx_leaf, sig, pk, m, mlen);
    sig += SPX_N;

    memset(fors_addr, 0, sizeof fors_addr);
    spx_set_tree_addr(fors_addr, tree);
    spx_set_keypair_addr(fors_addr, idx_leaf);
    spx_fors_sign(sig, root, mhash, &ctx, fors_addr);
    sig += SPX_FORS_BYTES;

    for (i = 0; i < SPX_D; i++) {
        subtree_sign(sig, root, root, &ctx, i, tree, idx_leaf);
        sig += SPX_WOTS_BYTES + SPX_TREE_HEIGHT * SPX_N;
        idx_leaf = (uint32_t)(tree & (((uint64_t)1 << SPX_TREE_HEIGHT) - 1));
        tree >>= SPX_TREE_HEIGHT;
    }

    *siglen = SPX_BYTES;
    return 0;
}

int crypto_sign_verify(const unsigned char *sig, unsigned long long siglen,
                       const unsigned char *m, unsigned long long mlen,
                       const unsigned char *pk)
{
    spx_ctx ctx;
    const unsigned char *pub_root = pk + SPX_N;
    unsigned char mhash[SPX_FORS_MSG_BYTES];
    unsigned char wots_pk[SPX_WOTS_BYTES];
    unsigned char root[SPX_N];
    unsigned char leaf[SPX_N];
    spx_addr wots_addr;
    spx_addr wots_pk_addr;
    spx_addr tree_addr;
    uint64_t tree;
    uint32_t idx_leaf;
    uint32_t i;

    if (siglen != SPX_BYTES) {
        return -1;
    }
    memcpy(ctx.pub_seed, pk, SPX_N);
    memset(ctx.sk_seed, 0, SPX_N);

    spx_hash_message(mhash, &tree, &idx_leaf, sig, pk, m, mlen);
    sig += SPX_N;

    memset(wots_addr, 0, sizeof wots_addr);
    spx_set_tree_addr(wots_addr, tree);
    spx_set_keypair_addr(wots_addr, idx_leaf);
    spx_fors_pk_from_sig(root, sig, mhash, &ctx, wots_addr);
    sig += SPX_FORS_BYTES;

    for (i = 0; i < SPX_D; i++) {
        memset(tree_addr, 0, sizeof tree_addr);
        spx_set_layer_addr(tree_addr, i);
        spx_set_tree_addr(tree_addr, tree);
        spx_set_type(tree_addr, SPX_ADDR_TYPE_HASHTREE);

        memset(wots_addr, 0, sizeof wots_addr);
        spx_copy_subtree_addr(wots_addr, tree_addr);
        spx_set_keypair_addr(wots_addr, idx_leaf);
        memcpy(wots_pk_addr, wots_addr, sizeof wots_addr);
        spx_set_type(wots_pk_addr, SPX_ADDR_TYPE_WOTSPK);

        spx_wots_pk_from_sig(wots_pk, sig, root, &ctx, wots_addr);
        sig += SPX_WOTS_BYTES;
        spx_thash(leaf, wots_pk, SPX_WOTS_LEN, &ctx, wots_pk_addr);

        spx_compute_root(root, leaf, idx_leaf, 0, sig, SPX_TREE_HEIGHT,
                         &ctx, tree_addr);
        sig += SPX_TREE_HEIGHT * SPX_N;

        idx_leaf = (uint32_t)(tree & (((uint64_t)1 << SPX_TREE_HEIGHT) - 1));
        tree >>= SPX_TREE_HEIGHT;
    }

    return memcmp(root, pub_root, SPX_N) == 0 ? 0 : -1;
}

int crypto_sign(unsigned char *sm, unsigned long long *smlen,
                const unsigned char *m, unsigned long long mlen,
                const unsigned char *sk)
{
    unsigned long long siglen;

    memmove(sm + SPX_BYTES, m, (size_t)mlen);
    if (crypto_sign_signature(sm, &siglen, sm + SPX_BYTES, mlen, sk) != 0) {
        return -1;
    }
    *smlen = siglen + mlen;
    return 0;
}

int crypto_sign_open(unsigned char *m, unsigned long long *mlen,
                     const unsigned char *sm, unsigned long long smlen,
                     const unsigned char *pk)
{
    if (smlen < SPX_BYTES) {
        *mlen = 0;
        return -1;
    }
    *mlen = smlen - SPX_BYTES;
    if (crypto_sign_verify(sm, SPX_BYTES, sm + SPX_BYTES, *mlen, pk) != 0) {
        *mlen = 0;
        return -1;
    }
    memmove(m, sm + SPX_BYTES, (size_t)*mlen);
    return 0;
}
