/* FIPS 202 for pqprof's in-tree baselines: Keccak-f[1600] and the sponge,
 * shared byte for byte by schemes/mldsa/nist and schemes/mlkem/nist (see
 * fips202.h).
 *
 * The permutation keeps the 25 lanes in local variables and writes each
 * round out lane by lane, so that a compiler can hold the state in
 * registers: theta's column parities, then, for each output row, the five
 * lanes that rho and pi bring into it (A'[x, y] = rot(A[(x + 3y) mod 5, x]),
 * FIPS 202 section 3.2.2-3.2.3), chi along the row and iota on lane 0.
 * Two rounds per loop pass swap the roles of the two lane sets, so no
 * copying is needed between rounds.
 *
 * Bytes enter and leave the lanes little-endian (FIPS 202, Appendix B.1),
 * by shifts that compilers fold into plain loads and stores on
 * little-endian hosts. */
#include <string.h>

#include "fips202.h"

#define KECCAK_ROUNDS 24

#define ROL64(v, n) (((v) << (n)) | ((v) >> (64 - (n))))

/* RC[ir] of the iota step: the bits of FIPS 202's rc(t) LFSR (Algorithm 5)
 * placed at positions 2^j - 1 (Algorithm 6). */
static const uint64_t round_constants[KECCAK_ROUNDS] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL,
    0x8000000080008000ULL, 0x000000000000808bULL, 0x0000000080000001ULL,
    0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008aULL,
    0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL,
    0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL,
    0x000000000000800aULL, 0x800000008000000aULL, 0x8000000080008081ULL,
    0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

void fips202_keccakf1600(uint64_t s[25])
{
    uint64_t a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24;
    uint64_t e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24;
    uint64_t b0, b1, b2, b3, b4, c0, c1, c2, c3, c4, d0, d1, d2, d3, d4;
    unsigned r;

    a0 = s[0];
    a1 = s[1];
    a2 = s[2];
    a3 = s[3];
    a4 = s[4];
    a5 = s[5];
    a6 = s[6];
    a7 = s[7];
    a8 = s[8];
    a9 = s[9];
    a10 = s[10];
    a11 = s[11];
    a12 = s[12];
    a13 = s[13];
    a14 = s[14];
    a15 = s[15];
    a16 = s[16];
    a17 = s[17];
    a18 = s[18];
    a19 = s[19];
    a20 = s[20];
    a21 = s[21];
    a22 = s[22];
    a23 = s[23];
    a24 = s[24];
    for (r = 0; r < KECCAK_ROUNDS; r += 2) {
        /* theta */
        c0 = a0 ^ a5 ^ a10 ^ a15 ^ a20;
        c1 = a1 ^ a6 ^ a11 ^ a16 ^ a21;
        c2 = a2 ^ a7 ^ a12 ^ a17 ^ a22;
        c3 = a3 ^ a8 ^ a13 ^ a18 ^ a23;
        c4 = a4 ^ a9 ^ a14 ^ a19 ^ a24;
        d0 = c4 ^ ROL64(c1, 1);
        d1 = c0 ^ ROL64(c2, 1);
        d2 = c1 ^ ROL64(c3, 1);
        d3 = c2 ^ ROL64(c4, 1);
        d4 = c3 ^ ROL64(c0, 1);
        /* rho and pi into row 0, then chi */
        b0 = a0 ^ d0;
        b1 = ROL64(a6 ^ d1, 44);
        b2 = ROL64(a12 ^ d2, 43);
        b3 = ROL64(a18 ^ d3, 21);
        b4 = ROL64(a24 ^ d4, 14);
        e0 = b0 ^ (~b1 & b2);
        e1 = b1 ^ (~b2 & b3);
        e2 = b2 ^ (~b3 & b4);
        e3 = b3 ^ (~b4 & b0);
        e4 = b4 ^ (~b0 & b1);
        /* rho and pi into row 1, then chi */
        b0 = ROL64(a3 ^ d3, 28);
        b1 = ROL64(a9 ^ d4, 20);
        b2 = ROL64(a10 ^ d0, 3);
        b3 = ROL64(a16 ^ d1, 45);
        b4 = ROL64(a22 ^ d2, 61);
        e5 = b0 ^ (~b1 & b2);
        e6 = b1 ^ (~b2 & b3);
        e7 = b2 ^ (~b3 & b4);
        e8 = b3 ^ (~b4 & b0);
        e9 = b4 ^ (~b0 & b1);
        /* rho and pi into row 2, then chi */
        b0 = ROL64(a1 ^ d1, 1);
        b1 = ROL64(a7 ^ d2, 6);
        b2 = ROL64(a13 ^ d3, 25);
        b3 = ROL64(a19 ^ d4, 8);
        b4 = ROL64(a20 ^ d0, 18);
        e10 = b0 ^ (~b1 & b2);
        e11 = b1 ^ (~b2 & b3);
        e12 = b2 ^ (~b3 & b4);
        e13 = b3 ^ (~b4 & b0);
        e14 = b4 ^ (~b0 & b1);
        /* rho and pi into row 3, then chi */
        b0 = ROL64(a4 ^ d4, 27);
        b1 = ROL64(a5 ^ d0, 36);
        b2 = ROL64(a11 ^ d1, 10);
        b3 = ROL64(a17 ^ d2, 15);
        b4 = ROL64(a23 ^ d3, 56);
        e15 = b0 ^ (~b1 & b2);
        e16 = b1 ^ (~b2 & b3);
        e17 = b2 ^ (~b3 & b4);
        e18 = b3 ^ (~b4 & b0);
        e19 = b4 ^ (~b0 & b1);
        /* rho and pi into row 4, then chi */
        b0 = ROL64(a2 ^ d2, 62);
        b1 = ROL64(a8 ^ d3, 55);
        b2 = ROL64(a14 ^ d4, 39);
        b3 = ROL64(a15 ^ d0, 41);
        b4 = ROL64(a21 ^ d1, 2);
        e20 = b0 ^ (~b1 & b2);
        e21 = b1 ^ (~b2 & b3);
        e22 = b2 ^ (~b3 & b4);
        e23 = b3 ^ (~b4 & b0);
        e24 = b4 ^ (~b0 & b1);
        e0 ^= round_constants[r];
        /* theta */
        c0 = e0 ^ e5 ^ e10 ^ e15 ^ e20;
        c1 = e1 ^ e6 ^ e11 ^ e16 ^ e21;
        c2 = e2 ^ e7 ^ e12 ^ e17 ^ e22;
        c3 = e3 ^ e8 ^ e13 ^ e18 ^ e23;
        c4 = e4 ^ e9 ^ e14 ^ e19 ^ e24;
        d0 = c4 ^ ROL64(c1, 1);
        d1 = c0 ^ ROL64(c2, 1);
        d2 = c1 ^ ROL64(c3, 1);
        d3 = c2 ^ ROL64(c4, 1);
        d4 = c3 ^ ROL64(c0, 1);
        /* rho and pi into row 0, then chi */
        b0 = e0 ^ d0;
        b1 = ROL64(e6 ^ d1, 44);
        b2 = ROL64(e12 ^ d2, 43);
        b3 = ROL64(e18 ^ d3, 21);
        b4 = ROL64(e24 ^ d4, 14);
        a0 = b0 ^ (~b1 & b2);
        a1 = b1 ^ (~b2 & b3);
        a2 = b2 ^ (~b3 & b4);
        a3 = b3 ^ (~b4 & b0);
        a4 = b4 ^ (~b0 & b1);
        /* rho and pi into row 1, then chi */
        b0 = ROL64(e3 ^ d3, 28);
        b1 = ROL64(e9 ^ d4, 20);
        b2 = ROL64(e10 ^ d0, 3);
        b3 = ROL64(e16 ^ d1, 45);
        b4 = ROL64(e22 ^ d2, 61);
        a5 = b0 ^ (~b1 & b2);
        a6 = b1 ^ (~b2 & b3);
        a7 = b2 ^ (~b3 & b4);
        a8 = b3 ^ (~b4 & b0);
        a9 = b4 ^ (~b0 & b1);
        /* rho and pi into row 2, then chi */
        b0 = ROL64(e1 ^ d1, 1);
        b1 = ROL64(e7 ^ d2, 6);
        b2 = ROL64(e13 ^ d3, 25);
        b3 = ROL64(e19 ^ d4, 8);
        b4 = ROL64(e20 ^ d0, 18);
        a10 = b0 ^ (~b1 & b2);
        a11 = b1 ^ (~b2 & b3);
        a12 = b2 ^ (~b3 & b4);
        a13 = b3 ^ (~b4 & b0);
        a14 = b4 ^ (~b0 & b1);
        /* rho and pi into row 3, then chi */
        b0 = ROL64(e4 ^ d4, 27);
        b1 = ROL64(e5 ^ d0, 36);
        b2 = ROL64(e11 ^ d1, 10);
        b3 = ROL64(e17 ^ d2, 15);
        b4 = ROL64(e23 ^ d3, 56);
        a15 = b0 ^ (~b1 & b2);
        a16 = b1 ^ (~b2 & b3);
        a17 = b2 ^ (~b3 & b4);
        a18 = b3 ^ (~b4 & b0);
        a19 = b4 ^ (~b0 & b1);
        /* rho and pi into row 4, then chi */
        b0 = ROL64(e2 ^ d2, 62);
        b1 = ROL64(e8 ^ d3, 55);
        b2 = ROL64(e14 ^ d4, 39);
        b3 = ROL64(e15 ^ d0, 41);
        b4 = ROL64(e21 ^ d1, 2);
        a20 = b0 ^ (~b1 & b2);
        a21 = b1 ^ (~b2 & b3);
        a22 = b2 ^ (~b3 & b4);
        a23 = b3 ^ (~b4 & b0);
        a24 = b4 ^ (~b0 & b1);
        a0 ^= round_constants[r + 1];
    }
    s[0] = a0;
    s[1] = a1;
    s[2] = a2;
    s[3] = a3;
    s[4] = a4;
    s[5] = a5;
    s[6] = a6;
    s[7] = a7;
    s[8] = a8;
    s[9] = a9;
    s[10] = a10;
    s[11] = a11;
    s[12] = a12;
    s[13] = a13;
    s[14] = a14;
    s[15] = a15;
    s[16] = a16;
    s[17] = a17;
    s[18] = a18;
    s[19] = a19;
    s[20] = a20;
    s[21] = a21;
    s[22] = a22;
    s[23] = a23;
    s[24] = a24;
}

static uint64_t load64_le(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
           (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
           (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

static void store64_le(uint8_t *p, uint64_t v)
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

static void sponge_init(fips202_sponge *k, unsigned rate, uint8_t suffix)
{
    memset(k->s, 0, sizeof k->s);
    k->rate = rate;
    k->pos = 0;
    k->suffix = suffix;
}

void fips202_shake128_init(fips202_sponge *k)
{
    sponge_init(k, FIPS202_SHAKE128_RATE, 0x1F);
}

void fips202_shake256_init(fips202_sponge *k)
{
    sponge_init(k, FIPS202_SHAKE256_RATE, 0x1F);
}

/* XORs n bytes into the state from byte offset pos (pos + n <= rate). */
static void xor_bytes(uint64_t s[25], unsigned pos, const uint8_t *in, size_t n)
{
    while (n > 0 && pos % 8 != 0) {
        s[pos / 8] ^= (uint64_t)*in++ << (8 * (pos % 8));
        pos++;
        n--;
    }
    for (; n >= 8; n -= 8, in += 8, pos += 8) {
        s[pos / 8] ^= load64_le(in);
    }
    for (; n > 0; n--, pos++) {
        s[pos / 8] ^= (uint64_t)*in++ << (8 * (pos % 8));
    }
}

/* Copies n bytes of the state from byte offset pos (pos + n <= rate). */
static void read_bytes(const uint64_t s[25], unsigned pos, uint8_t *out, size_t n)
{
    while (n > 0 && pos % 8 != 0) {
        *out++ = (uint8_t)(s[pos / 8] >> (8 * (pos % 8)));
        pos++;
        n--;
    }
    for (; n >= 8; n -= 8, out += 8, pos += 8) {
        store64_le(out, s[pos / 8]);
    }
    for (; n > 0; n--, pos++) {
        *out++ = (uint8_t)(s[pos / 8] >> (8 * (pos % 8)));
    }
}

void fips202_absorb(fips202_sponge *k, const uint8_t *in, size_t inlen)
{
    while (inlen > 0) {
        size_t n = k->rate - k->pos;

        if (n > inlen) {
            n = inlen;
        }
        xor_bytes(k->s, k->pos, in, n);
        k->pos += (unsigned)n;
        in += n;
        inlen -= n;
        if (k->pos == k->rate) {
            fips202_keccakf1600(k->s);
            k->pos = 0;
        }
    }
}

/* pad10*1 after the suffix: the suffix byte carries the domain bits and
 * the first 1 of the padding, the last byte of the block gets the final 1.
 * The block is permuted by the first squeeze, which finds it used up. */
void fips202_finalize(fips202_sponge *k)
{
    k->s[k->pos / 8] ^= (uint64_t)k->suffix << (8 * (k->pos % 8));
    k->s[(k->rate - 1) / 8] ^= (uint64_t)0x80 << (8 * ((k->rate - 1) % 8));
    k->pos = k->rate;
}

void fips202_squeeze(fips202_sponge *k, uint8_t *out, size_t outlen)
{
    while (outlen > 0) {
        size_t n;

        if (k->pos == k->rate) {
            fips202_keccakf1600(k->s);
            k->pos = 0;
        }
        n = k->rate - k->pos;
        if (n > outlen) {
            n = outlen;
        }
        read_bytes(k->s, k->pos, out, n);
        k->pos += (unsigned)n;
        out += n;
        outlen -= n;
    }
}

void fips202_squeezeblocks(fips202_sponge *k, uint8_t *out, size_t nblocks)
{
    unsigned i;

    if (k->pos != k->rate) {
        /* Mid-block: the plain path keeps the stream in order. */
        fips202_squeeze(k, out, nblocks * k->rate);
        return;
    }
    for (; nblocks > 0; nblocks--, out += k->rate) {
        fips202_keccakf1600(k->s);
        for (i = 0; i < k->rate / 8; i++) {
            store64_le(out + 8 * i, k->s[i]);
        }
    }
}

void fips202_wipe(fips202_sponge *k)
{
    volatile uint8_t *p = (volatile uint8_t *)k;
    size_t i;

    for (i = 0; i < sizeof *k; i++) {
        p[i] = 0;
    }
}

static void one_shot(unsigned rate, uint8_t suffix, uint8_t *out, size_t outlen,
                     const uint8_t *in, size_t inlen)
{
    fips202_sponge k;

    sponge_init(&k, rate, suffix);
    fips202_absorb(&k, in, inlen);
    fips202_finalize(&k);
    fips202_squeeze(&k, out, outlen);
    fips202_wipe(&k);
}

void fips202_shake128(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen)
{
    one_shot(FIPS202_SHAKE128_RATE, 0x1F, out, outlen, in, inlen);
}

void fips202_shake256(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen)
{
    one_shot(FIPS202_SHAKE256_RATE, 0x1F, out, outlen, in, inlen);
}

void fips202_sha3_256(uint8_t out[32], const uint8_t *in, size_t inlen)
{
    one_shot(FIPS202_SHA3_256_RATE, 0x06, out, 32, in, inlen);
}

void fips202_sha3_512(uint8_t out[64], const uint8_t *in, size_t inlen)
{
    one_shot(FIPS202_SHA3_512_RATE, 0x06, out, 64, in, inlen);
}
