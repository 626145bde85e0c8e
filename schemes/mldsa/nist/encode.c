/* Bit packing and the key, signature and w1 encodings of the in-tree
 * ML-DSA (FIPS 204, Algorithms 16-28).  Each packer moves one group of
 * coefficients that fills a whole number of bytes (8 coefficients of 3
 * or 13 bits, 4 of 6, 10 or 18 bits, 2 of 4 or 20 bits) through a word
 * or a byte, least significant bit first, with byte loads and stores
 * written out so that the result does not depend on the host's byte
 * order. */
#include <string.h>

#include "encode.h"

/* Little-endian loads and stores of n <= 8 bytes. */
static uint64_t load_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    unsigned i;

    for (i = 0; i < n; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

static void store_le(uint8_t *p, uint64_t v, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint64_t load64(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
           (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
           (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

static void store64(uint8_t *p, uint64_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
    p[4] = (uint8_t)(v >> 32);
    p[5] = (uint8_t)(v >> 40);
    p[6] = (uint8_t)(v >> 48);
    p[7] = (uint8_t)(v >> 56);
}

/* ---- s1, s2: BitPack(s, eta, eta), eta - s_i in 3 or 4 bits ---- */

static void pack_eta(uint8_t *out, const mld_poly *s)
{
    const int32_t *c = s->coeffs;
    unsigned i;

#if MLD_ETA == 2
    for (i = 0; i < MLD_N; i += 8, out += 3) {       /* 8 x 3 bits = 3 bytes */
        uint32_t w = (uint32_t)(MLD_ETA - c[i]) | (uint32_t)(MLD_ETA - c[i + 1]) << 3 |
                     (uint32_t)(MLD_ETA - c[i + 2]) << 6 | (uint32_t)(MLD_ETA - c[i + 3]) << 9 |
                     (uint32_t)(MLD_ETA - c[i + 4]) << 12 | (uint32_t)(MLD_ETA - c[i + 5]) << 15 |
                     (uint32_t)(MLD_ETA - c[i + 6]) << 18 | (uint32_t)(MLD_ETA - c[i + 7]) << 21;
        out[0] = (uint8_t)w;
        out[1] = (uint8_t)(w >> 8);
        out[2] = (uint8_t)(w >> 16);
    }
#else
    for (i = 0; i < MLD_N; i += 2, out++) {          /* 2 x 4 bits = 1 byte */
        *out = (uint8_t)((uint32_t)(MLD_ETA - c[i]) | (uint32_t)(MLD_ETA - c[i + 1]) << 4);
    }
#endif
}

static void unpack_eta(mld_poly *s, const uint8_t *in)
{
    int32_t *c = s->coeffs;
    unsigned i;

#if MLD_ETA == 2
    for (i = 0; i < MLD_N; i += 8, in += 3) {
        uint32_t w = (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16;
        c[i] = MLD_ETA - (int32_t)(w & 7);
        c[i + 1] = MLD_ETA - (int32_t)((w >> 3) & 7);
        c[i + 2] = MLD_ETA - (int32_t)((w >> 6) & 7);
        c[i + 3] = MLD_ETA - (int32_t)((w >> 9) & 7);
        c[i + 4] = MLD_ETA - (int32_t)((w >> 12) & 7);
        c[i + 5] = MLD_ETA - (int32_t)((w >> 15) & 7);
        c[i + 6] = MLD_ETA - (int32_t)((w >> 18) & 7);
        c[i + 7] = MLD_ETA - (int32_t)(w >> 21);
    }
#else
    for (i = 0; i < MLD_N; i += 2, in++) {
        c[i] = MLD_ETA - (int32_t)(*in & 15);
        c[i + 1] = MLD_ETA - (int32_t)(*in >> 4);
    }
#endif
}

/* ---- t1: SimpleBitPack(t1, 2^10 - 1), 4 x 10 bits = 5 bytes ---- */

static void pack_t1(uint8_t *out, const mld_poly *t1)
{
    unsigned i;

    for (i = 0; i < MLD_N; i += 4, out += 5) {
        uint64_t w = (uint64_t)t1->coeffs[i] | (uint64_t)t1->coeffs[i + 1] << 10 |
                     (uint64_t)t1->coeffs[i + 2] << 20 | (uint64_t)t1->coeffs[i + 3] << 30;
        store_le(out, w, 5);
    }
}

static void unpack_t1(mld_poly *t1, const uint8_t *in)
{
    unsigned i;

    for (i = 0; i < MLD_N; i += 4, in += 5) {
        uint64_t w = load_le(in, 5);
        t1->coeffs[i] = (int32_t)(w & 0x3FF);
        t1->coeffs[i + 1] = (int32_t)((w >> 10) & 0x3FF);
        t1->coeffs[i + 2] = (int32_t)((w >> 20) & 0x3FF);
        t1->coeffs[i + 3] = (int32_t)(w >> 30);
    }
}

/* ---- t0: BitPack(t0, 2^12 - 1, 2^12), 8 x 13 bits = 13 bytes, as a
 * 64-bit word (coefficients 0-3 and the low 12 bits of 4) and a 40-bit
 * one (the top bit of 4, then 5-7) ---- */

#define T0_B (1 << (MLD_D - 1))

static void pack_t0(uint8_t *out, const mld_poly *t0)
{
    unsigned i, j;

    for (i = 0; i < MLD_N; i += 8, out += 13) {
        uint64_t v[8];
        for (j = 0; j < 8; j++) {
            v[j] = (uint64_t)(uint32_t)(T0_B - t0->coeffs[i + j]);
        }
        store64(out, v[0] | v[1] << 13 | v[2] << 26 | v[3] << 39 | v[4] << 52);
        store_le(out + 8, v[4] >> 12 | v[5] << 1 | v[6] << 14 | v[7] << 27, 5);
    }
}

static void unpack_t0(mld_poly *t0, const uint8_t *in)
{
    unsigned i;

    for (i = 0; i < MLD_N; i += 8, in += 13) {
        uint64_t lo = load64(in), hi = load_le(in + 8, 5);
        t0->coeffs[i] = T0_B - (int32_t)(lo & 0x1FFF);
        t0->coeffs[i + 1] = T0_B - (int32_t)((lo >> 13) & 0x1FFF);
        t0->coeffs[i + 2] = T0_B - (int32_t)((lo >> 26) & 0x1FFF);
        t0->coeffs[i + 3] = T0_B - (int32_t)((lo >> 39) & 0x1FFF);
        t0->coeffs[i + 4] = T0_B - (int32_t)(((lo >> 52) | (hi << 12)) & 0x1FFF);
        t0->coeffs[i + 5] = T0_B - (int32_t)((hi >> 1) & 0x1FFF);
        t0->coeffs[i + 6] = T0_B - (int32_t)((hi >> 14) & 0x1FFF);
        t0->coeffs[i + 7] = T0_B - (int32_t)((hi >> 27) & 0x1FFF);
    }
}

/* ---- z: BitPack(z, gamma1 - 1, gamma1), gamma1 - z_i in 18 bits
 * (4 = 9 bytes: a 64-bit word and the top byte) or 20 bits (2 = 5
 * bytes) ---- */

void mld_poly_pack_z(uint8_t *out, const mld_poly *z)
{
    unsigned i;

#if MLD_Z_BITS == 18
    for (i = 0; i < MLD_N; i += 4, out += 9) {
        uint64_t v0 = (uint32_t)(MLD_GAMMA1 - z->coeffs[i]);
        uint64_t v1 = (uint32_t)(MLD_GAMMA1 - z->coeffs[i + 1]);
        uint64_t v2 = (uint32_t)(MLD_GAMMA1 - z->coeffs[i + 2]);
        uint64_t v3 = (uint32_t)(MLD_GAMMA1 - z->coeffs[i + 3]);
        store64(out, v0 | v1 << 18 | v2 << 36 | v3 << 54);
        out[8] = (uint8_t)(v3 >> 10);
    }
#elif MLD_Z_BITS == 20
    for (i = 0; i < MLD_N; i += 2, out += 5) {
        uint64_t v0 = (uint32_t)(MLD_GAMMA1 - z->coeffs[i]);
        uint64_t v1 = (uint32_t)(MLD_GAMMA1 - z->coeffs[i + 1]);
        store_le(out, v0 | v1 << 20, 5);
    }
#else
#error unsupported gamma1
#endif
}

void mld_poly_unpack_z(mld_poly *z, const uint8_t *in)
{
    unsigned i;

#if MLD_Z_BITS == 18
    for (i = 0; i < MLD_N; i += 4, in += 9) {
        uint64_t w = load64(in);
        z->coeffs[i] = MLD_GAMMA1 - (int32_t)(w & 0x3FFFF);
        z->coeffs[i + 1] = MLD_GAMMA1 - (int32_t)((w >> 18) & 0x3FFFF);
        z->coeffs[i + 2] = MLD_GAMMA1 - (int32_t)((w >> 36) & 0x3FFFF);
        z->coeffs[i + 3] = MLD_GAMMA1 - (int32_t)((w >> 54) | (uint64_t)in[8] << 10);
    }
#else
    for (i = 0; i < MLD_N; i += 2, in += 5) {
        uint64_t w = load_le(in, 5);
        z->coeffs[i] = MLD_GAMMA1 - (int32_t)(w & 0xFFFFF);
        z->coeffs[i + 1] = MLD_GAMMA1 - (int32_t)(w >> 20);
    }
#endif
}

/* ---- w1: SimpleBitPack(w1, (q-1)/(2 gamma2) - 1), 4 x 6 bits = 3
 * bytes or 2 x 4 bits = 1 byte ---- */

static void pack_w1(uint8_t *out, const mld_poly *w1)
{
    unsigned i;

#if MLD_W1_BITS == 6
    for (i = 0; i < MLD_N; i += 4, out += 3) {
        uint32_t w = (uint32_t)w1->coeffs[i] | (uint32_t)w1->coeffs[i + 1] << 6 |
                     (uint32_t)w1->coeffs[i + 2] << 12 | (uint32_t)w1->coeffs[i + 3] << 18;
        out[0] = (uint8_t)w;
        out[1] = (uint8_t)(w >> 8);
        out[2] = (uint8_t)(w >> 16);
    }
#else
    for (i = 0; i < MLD_N; i += 2, out++) {
        *out = (uint8_t)(w1->coeffs[i] | w1->coeffs[i + 1] << 4);
    }
#endif
}

/* ---- the hint (Algorithms 20, 21) ---- */

/* Algorithm 20, HintBitPack: the positions of the 1s of each h[i] in
 * increasing order, then for each i the number of positions written so
 * far.  h is public (part of the signature), so this may branch on it. */
static void hint_bit_pack(uint8_t y[MLD_OMEGA + MLD_K], const mld_poly h[MLD_K])
{
    unsigned i, j, index = 0;

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

/* Algorithm 21, HintBitUnpack, which rejects every encoding but the one
 * HintBitPack writes: counts must not decrease nor pass omega, positions
 * must increase within a polynomial, and unused slots must be zero. */
static int hint_bit_unpack(mld_poly h[MLD_K], const uint8_t y[MLD_OMEGA + MLD_K])
{
    unsigned i, index = 0;

    memset(h, 0, MLD_K * sizeof h[0]);
    for (i = 0; i < MLD_K; i++) {
        unsigned first = index, end = y[MLD_OMEGA + i];

        if (end < index || end > MLD_OMEGA) {
            return -1;
        }
        for (; index < end; index++) {
            if (index > first && y[index - 1] >= y[index]) {
                return -1;
            }
            h[i].coeffs[y[index]] = 1;
        }
    }
    for (; index < MLD_OMEGA; index++) {
        if (y[index] != 0) {
            return -1;
        }
    }
    return 0;
}

/* ---- Algorithms 22-28 ---- */

void mld_pk_encode(uint8_t pk[MLD_PK_BYTES], const uint8_t rho[MLD_SEED_BYTES],
                   const mld_poly t1[MLD_K])
{
    unsigned i;

    memcpy(pk, rho, MLD_SEED_BYTES);
    pk += MLD_SEED_BYTES;
    for (i = 0; i < MLD_K; i++, pk += MLD_POLY_BYTES(MLD_T1_BITS)) {
        pack_t1(pk, &t1[i]);
    }
}

void mld_pk_decode(uint8_t rho[MLD_SEED_BYTES], mld_poly t1[MLD_K],
                   const uint8_t pk[MLD_PK_BYTES])
{
    unsigned i;

    memcpy(rho, pk, MLD_SEED_BYTES);
    pk += MLD_SEED_BYTES;
    for (i = 0; i < MLD_K; i++, pk += MLD_POLY_BYTES(MLD_T1_BITS)) {
        unpack_t1(&t1[i], pk);
    }
}

void mld_sk_encode(uint8_t sk[MLD_SK_BYTES], const uint8_t rho[MLD_SEED_BYTES],
                   const uint8_t key[MLD_SEED_BYTES], const uint8_t tr[MLD_TR_BYTES],
                   const mld_poly s1[MLD_L], const mld_poly s2[MLD_K],
                   const mld_poly t0[MLD_K])
{
    unsigned i;

    memcpy(sk, rho, MLD_SEED_BYTES);
    sk += MLD_SEED_BYTES;
    memcpy(sk, key, MLD_SEED_BYTES);
    sk += MLD_SEED_BYTES;
    memcpy(sk, tr, MLD_TR_BYTES);
    sk += MLD_TR_BYTES;
    for (i = 0; i < MLD_L; i++, sk += MLD_POLY_BYTES(MLD_ETA_BITS)) {
        pack_eta(sk, &s1[i]);
    }
    for (i = 0; i < MLD_K; i++, sk += MLD_POLY_BYTES(MLD_ETA_BITS)) {
        pack_eta(sk, &s2[i]);
    }
    for (i = 0; i < MLD_K; i++, sk += MLD_POLY_BYTES(MLD_T0_BITS)) {
        pack_t0(sk, &t0[i]);
    }
}

void mld_sk_decode(uint8_t rho[MLD_SEED_BYTES], uint8_t key[MLD_SEED_BYTES],
                   uint8_t tr[MLD_TR_BYTES], mld_poly s1[MLD_L], mld_poly s2[MLD_K],
                   mld_poly t0[MLD_K], const uint8_t sk[MLD_SK_BYTES])
{
    unsigned i;

    memcpy(rho, sk, MLD_SEED_BYTES);
    sk += MLD_SEED_BYTES;
    memcpy(key, sk, MLD_SEED_BYTES);
    sk += MLD_SEED_BYTES;
    memcpy(tr, sk, MLD_TR_BYTES);
    sk += MLD_TR_BYTES;
    for (i = 0; i < MLD_L; i++, sk += MLD_POLY_BYTES(MLD_ETA_BITS)) {
        unpack_eta(&s1[i], sk);
    }
    for (i = 0; i < MLD_K; i++, sk += MLD_POLY_BYTES(MLD_ETA_BITS)) {
        unpack_eta(&s2[i], sk);
    }
    for (i = 0; i < MLD_K; i++, sk += MLD_POLY_BYTES(MLD_T0_BITS)) {
        unpack_t0(&t0[i], sk);
    }
}

void mld_sig_encode(uint8_t sig[MLD_SIG_BYTES], const uint8_t ctilde[MLD_CTILDE_BYTES],
                    const mld_poly z[MLD_L], const mld_poly h[MLD_K])
{
    unsigned i;

    memcpy(sig, ctilde, MLD_CTILDE_BYTES);
    sig += MLD_CTILDE_BYTES;
    for (i = 0; i < MLD_L; i++, sig += MLD_POLY_BYTES(MLD_Z_BITS)) {
        mld_poly_pack_z(sig, &z[i]);
    }
    hint_bit_pack(sig, h);
}

int mld_sig_decode(uint8_t ctilde[MLD_CTILDE_BYTES], mld_poly z[MLD_L],
                   mld_poly h[MLD_K], const uint8_t sig[MLD_SIG_BYTES])
{
    unsigned i;

    memcpy(ctilde, sig, MLD_CTILDE_BYTES);
    sig += MLD_CTILDE_BYTES;
    for (i = 0; i < MLD_L; i++, sig += MLD_POLY_BYTES(MLD_Z_BITS)) {
        mld_poly_unpack_z(&z[i], sig);
    }
    return hint_bit_unpack(h, sig);
}

void mld_w1_encode(uint8_t out[MLD_W1_PACKED_BYTES], const mld_poly w1[MLD_K])
{
    unsigned i;

    for (i = 0; i < MLD_K; i++, out += MLD_POLY_BYTES(MLD_W1_BITS)) {
        pack_w1(out, &w1[i]);
    }
}
