/* Bit packing and the key, signature and w1 encodings of the in-tree
 * ML-DSA (FIPS 204, Algorithms 16-28).  Bits are laid out least
 * significant first, as IntegerToBits and BitsToBytes (Algorithms 9, 12)
 * do, through a small shift accumulator instead of a bit array. */
#include <string.h>

#include "encode.h"

/* The n-bit values v[0..255] into 32 * bits bytes. */
static void pack_values(uint8_t *out, const uint32_t v[MLD_N], unsigned bits)
{
    uint64_t acc = 0;
    unsigned nacc = 0;
    int i;

    for (i = 0; i < MLD_N; i++) {
        acc |= (uint64_t)v[i] << nacc;
        nacc += bits;
        while (nacc >= 8) {
            *out++ = (uint8_t)acc;
            acc >>= 8;
            nacc -= 8;
        }
    }
}

static void unpack_values(uint32_t v[MLD_N], const uint8_t *in, unsigned bits)
{
    uint64_t acc = 0;
    unsigned nacc = 0;
    int i = 0;

    while (i < MLD_N) {
        acc |= (uint64_t)*in++ << nacc;
        nacc += 8;
        while (nacc >= bits && i < MLD_N) {
            v[i++] = (uint32_t)(acc & ((1u << bits) - 1));
            acc >>= bits;
            nacc -= bits;
        }
    }
}

void mld_simple_bit_pack(uint8_t *out, const mld_poly *w, unsigned bits)
{
    uint32_t v[MLD_N];
    int i;

    for (i = 0; i < MLD_N; i++) {
        v[i] = (uint32_t)w->coeffs[i];
    }
    pack_values(out, v, bits);
}

void mld_simple_bit_unpack(mld_poly *w, const uint8_t *in, unsigned bits)
{
    uint32_t v[MLD_N];
    int i;

    unpack_values(v, in, bits);
    for (i = 0; i < MLD_N; i++) {
        w->coeffs[i] = (int32_t)v[i];
    }
}

void mld_bit_pack(uint8_t *out, const mld_poly *w, int32_t b, unsigned bits)
{
    uint32_t v[MLD_N];
    int i;

    for (i = 0; i < MLD_N; i++) {
        v[i] = (uint32_t)(b - mld_centered(w->coeffs[i]));
    }
    pack_values(out, v, bits);
}

void mld_bit_unpack(mld_poly *w, const uint8_t *in, int32_t b, unsigned bits)
{
    uint32_t v[MLD_N];
    int i;

    unpack_values(v, in, bits);
    for (i = 0; i < MLD_N; i++) {
        w->coeffs[i] = mld_mod_q((int64_t)b - v[i]);
    }
}

/* Algorithm 20: the positions of the 1s of each h[i], in increasing order,
 * then for each i the running count of positions written so far. */
static void hint_bit_pack(uint8_t y[MLD_OMEGA + MLD_K], const mld_poly h[MLD_K])
{
    int i, j, index = 0;

    memset(y, 0, MLD_OMEGA + MLD_K);
    for (i = 0; i < MLD_K; i++) {
        for (j = 0; j < MLD_N; j++) {
            if (h[i].coeffs[j] != 0) {
                y[index++] = (uint8_t)j;
            }
        }
        y[MLD_OMEGA + i] = (uint8_t)index;
    }
}

/* Algorithm 21, which rejects every encoding but the one hint_bit_pack
 * writes: counts must not decrease nor pass omega, positions must
 * increase within a polynomial, and unused slots must be zero. */
static int hint_bit_unpack(mld_poly h[MLD_K], const uint8_t y[MLD_OMEGA + MLD_K])
{
    int i, index = 0, first;

    memset(h, 0, MLD_K * sizeof h[0]);
    for (i = 0; i < MLD_K; i++) {
        int end = y[MLD_OMEGA + i];
        if (end < index || end > MLD_OMEGA) {
            return -1;
        }
        first = index;
        while (index < end) {
            if (index > first && y[index - 1] >= y[index]) {
                return -1;
            }
            h[i].coeffs[y[index]] = 1;
            index++;
        }
    }
    for (i = index; i < MLD_OMEGA; i++) {
        if (y[i] != 0) {
            return -1;
        }
    }
    return 0;
}

void mld_pk_encode(uint8_t pk[MLD_PK_BYTES], const uint8_t rho[MLD_SEED_BYTES],
                   const mld_poly t1[MLD_K])
{
    int i;

    memcpy(pk, rho, MLD_SEED_BYTES);
    pk += MLD_SEED_BYTES;
    for (i = 0; i < MLD_K; i++) {
        mld_simple_bit_pack(pk + i * MLD_POLY_BYTES(MLD_T1_BITS), &t1[i], MLD_T1_BITS);
    }
}

void mld_pk_decode(uint8_t rho[MLD_SEED_BYTES], mld_poly t1[MLD_K],
                   const uint8_t pk[MLD_PK_BYTES])
{
    int i;

    memcpy(rho, pk, MLD_SEED_BYTES);
    pk += MLD_SEED_BYTES;
    for (i = 0; i < MLD_K; i++) {
        mld_simple_bit_unpack(&t1[i], pk + i * MLD_POLY_BYTES(MLD_T1_BITS), MLD_T1_BITS);
    }
}

/* t0 lies in [-2^(d-1) + 1, 2^(d-1)]: BitPack with a = 2^(d-1) - 1,
 * b = 2^(d-1). */
#define T0_B (1 << (MLD_D - 1))

void mld_sk_encode(uint8_t sk[MLD_SK_BYTES], const uint8_t rho[MLD_SEED_BYTES],
                   const uint8_t key[MLD_SEED_BYTES], const uint8_t tr[MLD_TR_BYTES],
                   const mld_poly s1[MLD_L], const mld_poly s2[MLD_K],
                   const mld_poly t0[MLD_K])
{
    int i;

    memcpy(sk, rho, MLD_SEED_BYTES);
    sk += MLD_SEED_BYTES;
    memcpy(sk, key, MLD_SEED_BYTES);
    sk += MLD_SEED_BYTES;
    memcpy(sk, tr, MLD_TR_BYTES);
    sk += MLD_TR_BYTES;
    for (i = 0; i < MLD_L; i++, sk += MLD_POLY_BYTES(MLD_ETA_BITS)) {
        mld_bit_pack(sk, &s1[i], MLD_ETA, MLD_ETA_BITS);
    }
    for (i = 0; i < MLD_K; i++, sk += MLD_POLY_BYTES(MLD_ETA_BITS)) {
        mld_bit_pack(sk, &s2[i], MLD_ETA, MLD_ETA_BITS);
    }
    for (i = 0; i < MLD_K; i++, sk += MLD_POLY_BYTES(MLD_T0_BITS)) {
        mld_bit_pack(sk, &t0[i], T0_B, MLD_T0_BITS);
    }
}

void mld_sk_decode(uint8_t rho[MLD_SEED_BYTES], uint8_t key[MLD_SEED_BYTES],
                   uint8_t tr[MLD_TR_BYTES], mld_poly s1[MLD_L], mld_poly s2[MLD_K],
                   mld_poly t0[MLD_K], const uint8_t sk[MLD_SK_BYTES])
{
    int i;

    memcpy(rho, sk, MLD_SEED_BYTES);
    sk += MLD_SEED_BYTES;
    memcpy(key, sk, MLD_SEED_BYTES);
    sk += MLD_SEED_BYTES;
    memcpy(tr, sk, MLD_TR_BYTES);
    sk += MLD_TR_BYTES;
    for (i = 0; i < MLD_L; i++, sk += MLD_POLY_BYTES(MLD_ETA_BITS)) {
        mld_bit_unpack(&s1[i], sk, MLD_ETA, MLD_ETA_BITS);
    }
    for (i = 0; i < MLD_K; i++, sk += MLD_POLY_BYTES(MLD_ETA_BITS)) {
        mld_bit_unpack(&s2[i], sk, MLD_ETA, MLD_ETA_BITS);
    }
    for (i = 0; i < MLD_K; i++, sk += MLD_POLY_BYTES(MLD_T0_BITS)) {
        mld_bit_unpack(&t0[i], sk, T0_B, MLD_T0_BITS);
    }
}

void mld_sig_encode(uint8_t sig[MLD_SIG_BYTES], const uint8_t ctilde[MLD_CTILDE_BYTES],
                    const mld_poly z[MLD_L], const mld_poly h[MLD_K])
{
    int i;

    memcpy(sig, ctilde, MLD_CTILDE_BYTES);
    sig += MLD_CTILDE_BYTES;
    for (i = 0; i < MLD_L; i++, sig += MLD_POLY_BYTES(MLD_Z_BITS)) {
        mld_bit_pack(sig, &z[i], MLD_GAMMA1, MLD_Z_BITS);
    }
    hint_bit_pack(sig, h);
}

int mld_sig_decode(uint8_t ctilde[MLD_CTILDE_BYTES], mld_poly z[MLD_L],
                   mld_poly h[MLD_K], const uint8_t sig[MLD_SIG_BYTES])
{
    int i;

    memcpy(ctilde, sig, MLD_CTILDE_BYTES);
    sig += MLD_CTILDE_BYTES;
    for (i = 0; i < MLD_L; i++, sig += MLD_POLY_BYTES(MLD_Z_BITS)) {
        mld_bit_unpack(&z[i], sig, MLD_GAMMA1, MLD_Z_BITS);
    }
    return hint_bit_unpack(h, sig);
}

void mld_w1_encode(uint8_t out[MLD_W1_PACKED_BYTES], const mld_poly w1[MLD_K])
{
    int i;

    for (i = 0; i < MLD_K; i++) {
        mld_simple_bit_pack(out + i * MLD_POLY_BYTES(MLD_W1_BITS), &w1[i], MLD_W1_BITS);
    }
}
