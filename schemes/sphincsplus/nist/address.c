/* Setters for the byte-form SPHINCS+ address (see address.h). */
#include <string.h>

#include "address.h"

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

void spx_set_layer_addr(spx_addr a, uint32_t layer)
{
    put_be32(a, layer);
}

void spx_set_tree_addr(spx_addr a, uint64_t tree)
{
    put_be32(a + 4, 0);
    put_be32(a + 8, (uint32_t)(tree >> 32));
    put_be32(a + 12, (uint32_t)tree);
}

void spx_set_type(spx_addr a, uint32_t type)
{
    put_be32(a + 16, type);
}

void spx_set_keypair_addr(spx_addr a, uint32_t keypair)
{
    put_be32(a + 20, keypair);
}

void spx_set_chain_addr(spx_addr a, uint32_t chain)
{
    put_be32(a + 24, chain);
}

void spx_set_hash_addr(spx_addr a, uint32_t hash)
{
    put_be32(a + 28, hash);
}

void spx_set_tree_height(spx_addr a, uint32_t height)
{
    put_be32(a + 24, height);
}

void spx_set_tree_index(spx_addr a, uint32_t index)
{
    put_be32(a + 28, index);
}

void spx_copy_subtree_addr(spx_addr out, const spx_addr in)
{
    memcpy(out, in, 16);
}

void spx_copy_keypair_addr(spx_addr out, const spx_addr in)
{
    memcpy(out, in, 16);
    memcpy(out + 20, in + 20, 4);
}
