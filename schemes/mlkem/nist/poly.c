/* Polynomial arithmetic for ML-KEM (FIPS 203, sections 4.2 and 4.3).
 *
 * Representation: int16_t coefficients, signed, not always reduced.  Two
 * reductions keep them inside 16 bits, both free of '%', '/' and of
 * branches:
 *   - Montgomery (R = 2^16): for |a| < 2^15 q, mont_reduce(a) is congruent
 *     to a R^-1 and lies in (-q, q); products by a constant c are taken
 *     as mont_reduce(a * (c R mod q)), so tables hold c R mod q;
 *   - Barrett: barrett_reduce(a) = a mod q, centred in [-(q-1)/2, (q-1)/2],
 *     for |a| < 2^16.
 * The bounds quoted in the comments below were also checked by running
 * the functions on extreme inputs; none of them exceeds 2^15 - 1 where a
 * value is stored in an int16_t, nor 2^31 - 1 in an int32_t.
 *
 * Signed arithmetic assumes what every C99 compiler for pqprof's targets
 * does: two's complement, conversions to int16_t wrap modulo 2^16, and
 * '>>' of a negative int is an arithmetic shift.
 *
 * Constant time: no branch, loop bound or table index depends on a
 * coefficient, except in SampleNTT, whose input (the matrix seed) is
 * public. */
#include "poly.h"
#include "fips202.h"

#define Q MLKEM_Q

/* q^-1 mod 2^16. */
#define QINV 62209u
/* round(2^26 / q). */
#define BARRETT_V 20159
/* R^2 mod q, R = 2^16: mont_reduce(a * R2_MOD_Q) = a R mod q. */
#define R2_MOD_Q 1353
/* The constants of NTT^-1's last layer (see mlkem_ntt_inverse), centred:
 * INV_SCALE = 128^-1 R^2 mod q, INV_SCALE_ZETA = zeta^64 128^-1 R^2 mod q. */
#define INV_SCALE 1441
#define INV_SCALE_ZETA 1397

/* zetas[i] = zeta^BitRev7(i) * R mod q, zeta = 17, R = 2^16, as the
 * representative in [-(q-1)/2, (q-1)/2] (FIPS 203, Appendix A, in
 * Montgomery form).  Computed by
 *   python3 -c 'q=3329; br=lambda i: int(f"{i:07b}"[::-1], 2);
 *     c=lambda x: (x+q//2)%q-q//2;
 *     print([c(pow(17, br(i), q) * 2**16) for i in range(128)])'
 * Entry 0 is unused by the NTT.  Since BitRev7(64 + m) = 2 BitRev7(2m) + 1,
 * entries 64..127 are also the roots gamma_2m = zeta^(2 BitRev7(2m) + 1) of
 * MultiplyNTTs; gamma_2m+1 = -gamma_2m. */
static const int16_t zetas[128] = {
    -1044,  -758,  -359, -1517,  1493,  1422,   287,   202,
     -171,   622,  1577,   182,   962, -1202, -1474,  1468,
      573, -1325,   264,   383,  -829,  1458, -1602,  -130,
     -681,  1017,   732,   608, -1542,   411,  -205, -1571,
     1223,   652,  -552,  1015, -1293,  1491,  -282, -1544,
      516,    -8,  -320,  -666, -1618, -1162,   126,  1469,
     -853,   -90,  -271,   830,   107, -1421,  -247,  -951,
     -398,   961, -1508,  -725,   448, -1065,   677, -1275,
    -1103,   430,   555,   843, -1251,   871,  1550,   105,
      422,   587,   177,  -235,  -291,  -460,  1574,  1653,
     -246,   778,  1159,  -147,  -777,  1483,  -602,  1119,
    -1590,   644,  -872,   349,   418,   329,  -156,   -75,
      817,  1097,   603,   610,  1322, -1285, -1465,   384,
    -1215,  -136,  1218, -1335,  -874,   220, -1187, -1659,
    -1185, -1530, -1278,   794, -1510,  -854,  -870,   478,
     -108,  -308,   996,   991,   958, -1460,  1522,  1628
};

/* a R^-1 mod q in (-q, q) for |a| < 2^15 q: subtract the multiple m q of q
 * (|m| <= 2^15) that clears the low 16 bits, then shift them out. */
static int16_t mont_reduce(int32_t a)
{
    int16_t m = (int16_t)(uint16_t)((uint32_t)a * QINV);

    return (int16_t)((a - (int32_t)m * Q) >> 16);
}

/* a b R^-1 mod q; with b a table constant, |b| <= (q-1)/2, any |a| < 2^16. */
static int16_t mont_mul(int32_t a, int16_t b)
{
    return mont_reduce(a * b);
}

/* a mod q in [-(q-1)/2, (q-1)/2] for |a| < 2^16: the quotient estimate
 * round(a 2^26/q / 2^26) is the nearest integer to a/q. */
static int16_t barrett_reduce(int32_t a)
{
    int32_t t = (BARRETT_V * a + (1 << 25)) >> 26;

    return (int16_t)(a - t * Q);
}

/* a mod q in [0, q) for any int16_t a: Barrett, then add q to a negative
 * result under a mask. */
static uint16_t to_unsigned(int16_t a)
{
    int16_t r = barrett_reduce(a);

    r = (int16_t)(r + ((r >> 15) & Q));
    return (uint16_t)r;
}

void mlkem_poly_add(mlkem_poly *r, const mlkem_poly *a, const mlkem_poly *b)
{
    unsigned i;

    for (i = 0; i < MLKEM_N; i++) {
        r->c[i] = (int16_t)(a->c[i] + b->c[i]);
    }
}

void mlkem_poly_sub(mlkem_poly *r, const mlkem_poly *a, const mlkem_poly *b)
{
    unsigned i;

    for (i = 0; i < MLKEM_N; i++) {
        r->c[i] = (int16_t)(a->c[i] - b->c[i]);
    }
}

/* Algorithm 9, NTT: seven layers of Cooley-Tukey butterflies
 * (f_j, f_j+len) <- (f_j + zeta f_j+len, f_j - zeta f_j+len), len = 128 down
 * to 2, zeta = zetas[k] for k = 1, 2, ..., 127 in order.  Lazy reduction:
 * zeta f_j+len is a Montgomery product, |t| < q, so each layer adds less
 * than q to the bound; from |f| <= q the first six layers stay below 7q,
 * and the last layer Barrett-reduces what it stores. */
void mlkem_ntt(mlkem_poly *f)
{
    int16_t *c = f->c;
    unsigned len, start, j, k = 1;

    for (len = 128; len >= 4; len >>= 1) {
        for (start = 0; start < MLKEM_N; start += 2 * len) {
            const int16_t zeta = zetas[k++];

            for (j = start; j < start + len; j++) {
                int16_t t = mont_mul(c[j + len], zeta);

                c[j + len] = (int16_t)(c[j] - t);
                c[j] = (int16_t)(c[j] + t);
            }
        }
    }
    /* len = 2, k = 64..127: results below 8q, reduced to (q-1)/2. */
    for (start = 0; start < MLKEM_N; start += 4) {
        const int16_t zeta = zetas[k++];
        int16_t t0 = mont_mul(c[start + 2], zeta);
        int16_t t1 = mont_mul(c[start + 3], zeta);
        int32_t a0 = c[start], a1 = c[start + 1];

        c[start] = barrett_reduce(a0 + t0);
        c[start + 1] = barrett_reduce(a1 + t1);
        c[start + 2] = barrett_reduce(a0 - t0);
        c[start + 3] = barrett_reduce(a1 - t1);
    }
}

/* One Gentleman-Sande layer of Algorithm 10 with distance len, zetas[k]
 * for the first block and downwards: (f_j, f_j+len) <- (f_j + f_j+len,
 * zeta (f_j+len - f_j)).  With reduce_sums the sums are Barrett-reduced. */
static void gs_layer(int16_t *c, unsigned len, unsigned k, int reduce_sums)
{
    unsigned start, j;

    for (start = 0; start < MLKEM_N; start += 2 * len) {
        const int16_t zeta = zetas[k--];

        for (j = start; j < start + len; j++) {
            int32_t a = c[j], b = c[j + len];

            c[j] = reduce_sums ? barrett_reduce(a + b) : (int16_t)(a + b);
            c[j + len] = mont_mul(b - a, zeta);
        }
    }
}

/* Algorithm 10, NTT^-1: the butterflies of Algorithm 9 undone in reverse
 * order (len = 2 up to 128, zetas[127] down to zetas[1]), then the factor
 * 128^-1.  Bounds from |f| < q on input (B = 3017 is the largest input
 * mlkem_multiply_ntts_sum produces): differences leave each layer
 * Montgomery-reduced, |.| < q; sums double, 8B after len = 8, so the
 * sums of len = 16 (up to 16B < 2^16) are Barrett-reduced, and those of
 * len = 32, 64 stay below 8q.  The last layer (len = 128, zeta = zeta^64)
 * folds in the scaling: multiplying by 128^-1 R^2 in Montgomery form
 * leaves 128^-1 R, i.e. the R^-1 of the base-case products cancels. */
void mlkem_ntt_inverse(mlkem_poly *f)
{
    int16_t *c = f->c;
    unsigned j;

    gs_layer(c, 2, 127, 0);
    gs_layer(c, 4, 63, 0);
    gs_layer(c, 8, 31, 0);
    gs_layer(c, 16, 15, 1);
    gs_layer(c, 32, 7, 0);
    gs_layer(c, 64, 3, 0);
    for (j = 0; j < MLKEM_N / 2; j++) {
        int32_t a = c[j], b = c[j + MLKEM_N / 2];

        c[j] = mont_mul(a + b, INV_SCALE);
        c[j + MLKEM_N / 2] = mont_mul(b - a, INV_SCALE_ZETA);
    }
}

/* Algorithms 11 and 12, MultiplyNTTs with BaseCaseMultiply, summed over n
 * products.  Coefficients 2i, 2i+1 of each factor are a degree-one
 * polynomial mod X^2 - gamma_i; the sums
 *   c0 = sum_j (a0 b0 + a1 b1 gamma),  c1 = sum_j (a0 b1 + a1 b0)
 * are accumulated in 32 bits and reduced once: sum_j a1 b1 is brought to
 * 16 bits by one Montgomery reduction (a factor R^-1), then multiplied by
 * gamma R (the table entry), which restores the scale.  Both results carry
 * one factor R^-1.  Bounds, n <= 4, |a|, |b| <= q - 1: the sums are below
 * 4.5e7 and 8.9e7 < 2^15 q, so |c0| <= 2400 and |c1| <= 3017. */
void mlkem_multiply_ntts_sum(mlkem_poly *r, const mlkem_poly *a,
                             const mlkem_poly *b, unsigned n)
{
    unsigned i, j;

    for (i = 0; i < MLKEM_N; i += 4) {
        const int16_t gamma = zetas[64 + i / 4];
        int32_t lo0 = 0, hi0 = 0, mid0 = 0, lo1 = 0, hi1 = 0, mid1 = 0;
        int16_t t0, t1;

        for (j = 0; j < n; j++) {
            const int16_t *x = a[j].c + i, *y = b[j].c + i;

            lo0 += (int32_t)x[0] * y[0];
            hi0 += (int32_t)x[1] * y[1];
            mid0 += (int32_t)x[0] * y[1] + (int32_t)x[1] * y[0];
            lo1 += (int32_t)x[2] * y[2];
            hi1 += (int32_t)x[3] * y[3];
            mid1 += (int32_t)x[2] * y[3] + (int32_t)x[3] * y[2];
        }
        /* modulus X^2 - gamma for i, X^2 + gamma for i + 2 */
        t0 = mont_reduce(hi0);
        t1 = mont_reduce(hi1);
        r->c[i] = mont_reduce(lo0 + (int32_t)t0 * gamma);
        r->c[i + 1] = mont_reduce(mid0);
        r->c[i + 2] = mont_reduce(lo1 - (int32_t)t1 * gamma);
        r->c[i + 3] = mont_reduce(mid1);
    }
}

void mlkem_poly_from_mont_add(mlkem_poly *r, const mlkem_poly *e)
{
    unsigned i;

    for (i = 0; i < MLKEM_N; i++) {
        r->c[i] = (int16_t)(mont_mul(r->c[i], R2_MOD_Q) + e->c[i]);
    }
}

/* Candidates of Algorithm 7 from whole 3-byte groups of buf, two 12-bit
 * values per group, kept when below q; returns the new count.  While two
 * free slots remain both candidates are stored and the count advances by
 * the comparisons, without a branch per candidate. */
static unsigned sample_ntt_parse(int16_t *c, unsigned n, const uint8_t *buf,
                                 unsigned len)
{
    unsigned pos = 0;

    while (n + 2 <= MLKEM_N && pos + 3 <= len) {
        unsigned d1 = buf[pos] | ((unsigned)(buf[pos + 1] & 0x0F) << 8);
        unsigned d2 = (buf[pos + 1] >> 4) | ((unsigned)buf[pos + 2] << 4);

        c[n] = (int16_t)d1;
        n += d1 < Q;
        c[n] = (int16_t)d2;
        n += d2 < Q;
        pos += 3;
    }
    while (n < MLKEM_N && pos + 3 <= len) {
        unsigned d1 = buf[pos] | ((unsigned)(buf[pos + 1] & 0x0F) << 8);
        unsigned d2 = (buf[pos + 1] >> 4) | ((unsigned)buf[pos + 2] << 4);

        if (d1 < Q) {
            c[n++] = (int16_t)d1;
        }
        if (d2 < Q && n < MLKEM_N) {
            c[n++] = (int16_t)d2;
        }
        pos += 3;
    }
    return n;
}

/* First squeeze: 3 blocks (504 bytes, 336 candidates) give the 256 values
 * with probability above 0.99; further blocks one at a time.  168 is a
 * multiple of 3, so the groups never straddle two squeezes and the
 * stream read is exactly the standard's. */
#define SAMPLE_NTT_FIRST_BLOCKS 3

void mlkem_sample_ntt(mlkem_poly *a, const uint8_t rho[MLKEM_SYM_BYTES],
                      uint8_t b0, uint8_t b1)
{
    fips202_sponge xof;
    uint8_t seed[MLKEM_SYM_BYTES + 2];
    uint8_t buf[SAMPLE_NTT_FIRST_BLOCKS * FIPS202_SHAKE128_RATE];
    unsigned i, n;

    for (i = 0; i < MLKEM_SYM_BYTES; i++) {
        seed[i] = rho[i];
    }
    seed[MLKEM_SYM_BYTES] = b0;
    seed[MLKEM_SYM_BYTES + 1] = b1;
    fips202_shake128_init(&xof);
    fips202_absorb(&xof, seed, sizeof seed);
    fips202_finalize(&xof);

    fips202_squeezeblocks(&xof, buf, SAMPLE_NTT_FIRST_BLOCKS);
    n = sample_ntt_parse(a->c, 0, buf, sizeof buf);
    while (n < MLKEM_N) {
        fips202_squeezeblocks(&xof, buf, 1);
        n = sample_ntt_parse(a->c, n, buf, FIPS202_SHAKE128_RATE);
    }
}

static uint32_t load24_le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static uint32_t load32_le(const uint8_t *p)
{
    return load24_le(p) | (uint32_t)p[3] << 24;
}

static uint64_t load40_le(const uint8_t *p)
{
    return (uint64_t)load32_le(p) | (uint64_t)p[4] << 32;
}

static uint64_t load64_le(const uint8_t *p)
{
    return (uint64_t)load32_le(p) | (uint64_t)load32_le(p + 4) << 32;
}

static void store40_le(uint8_t *p, uint64_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
    p[4] = (uint8_t)(v >> 32);
}

static void store64_le(uint8_t *p, uint64_t v)
{
    store40_le(p, v);
    p[5] = (uint8_t)(v >> 40);
    p[6] = (uint8_t)(v >> 48);
    p[7] = (uint8_t)(v >> 56);
}

/* Algorithm 8, SamplePolyCBD_eta: f_i = x - y, x and y each the sum of eta
 * consecutive bits of b.  The bits are summed in parallel within a word:
 * eta = 2 takes 32 bits (8 coefficients of 4 bits), adding the two bits
 * of each 2-bit field; eta = 3 takes 24 bits (4 coefficients of 6 bits),
 * adding the three bits of each 3-bit field. */
static void sample_cbd2(int16_t *f, const uint8_t *b)
{
    unsigned i, k;

    for (i = 0; i < MLKEM_N / 8; i++) {
        uint32_t w = load32_le(b + 4 * i);
        uint32_t s = (w & 0x55555555u) + ((w >> 1) & 0x55555555u);

        for (k = 0; k < 8; k++) {
            int16_t x = (int16_t)((s >> (4 * k)) & 3);
            int16_t y = (int16_t)((s >> (4 * k + 2)) & 3);

            f[8 * i + k] = (int16_t)(x - y);
        }
    }
}

static void sample_cbd3(int16_t *f, const uint8_t *b)
{
    unsigned i, k;

    for (i = 0; i < MLKEM_N / 4; i++) {
        uint32_t w = load24_le(b + 3 * i);
        uint32_t s = (w & 0x249249u) + ((w >> 1) & 0x249249u) + ((w >> 2) & 0x249249u);

        for (k = 0; k < 4; k++) {
            int16_t x = (int16_t)((s >> (6 * k)) & 7);
            int16_t y = (int16_t)((s >> (6 * k + 3)) & 7);

            f[4 * i + k] = (int16_t)(x - y);
        }
    }
}

void mlkem_sample_poly_cbd(mlkem_poly *f, const uint8_t *b, unsigned eta)
{
    if (eta == 3) {
        sample_cbd3(f->c, b);
    } else {
        sample_cbd2(f->c, b);
    }
}

/* Algorithm 5, ByteEncode_12: two coefficients (reduced to [0, q)) per 3
 * bytes, least significant bits first. */
void mlkem_byte_encode12(uint8_t out[MLKEM_POLY_BYTES], const mlkem_poly *f)
{
    unsigned i;

    for (i = 0; i < MLKEM_N / 2; i++) {
        uint32_t t0 = to_unsigned(f->c[2 * i]);
        uint32_t t1 = to_unsigned(f->c[2 * i + 1]);

        out[3 * i] = (uint8_t)t0;
        out[3 * i + 1] = (uint8_t)((t0 >> 8) | (t1 << 4));
        out[3 * i + 2] = (uint8_t)(t1 >> 4);
    }
}

/* Algorithm 6, ByteDecode_12: 12-bit values below 2^12 < 2q, taken mod q
 * by one masked subtraction of q. */
void mlkem_byte_decode12(mlkem_poly *f, const uint8_t in[MLKEM_POLY_BYTES])
{
    unsigned i;

    for (i = 0; i < MLKEM_N / 2; i++) {
        uint32_t w = load24_le(in + 3 * i);
        int16_t t0 = (int16_t)((w & 0xFFF) - Q);
        int16_t t1 = (int16_t)((w >> 12) - Q);

        f->c[2 * i] = (int16_t)(t0 + ((t0 >> 15) & Q));
        f->c[2 * i + 1] = (int16_t)(t1 + ((t1 >> 15) & Q));
    }
}

int mlkem_byte_decode12_is_canonical(const uint8_t in[MLKEM_POLY_BYTES])
{
    uint32_t bad = 0;
    unsigned i;

    for (i = 0; i < MLKEM_N / 2; i++) {
        uint32_t w = load24_le(in + 3 * i);

        /* bit 31 set iff a 12-bit value is >= q */
        bad |= (uint32_t)(Q - 1) - (w & 0xFFF);
        bad |= (uint32_t)(Q - 1) - (w >> 12);
    }
    return (int)(1 - (bad >> 31));
}

/* Compress_d(x) = round(2^d x / q) mod 2^d for x in [0, q), by a
 * multiplication and a shift instead of a division (q is odd, so there is
 * no tie).  d <= 5: (x M + 2^(30-d)) >> (31-d) with M = 645083, about
 * 2^31 / q, fits in 32 bits; d = 10, 11: (x M' + 2^(32-d)) >> (33-d) with
 * M' = 2580335, about 2^33 / q, in 64 bits.  Both were checked against
 * the exact rounding for every x in [0, q) and every d used. */
static uint32_t compress_small(int16_t a, unsigned d)
{
    uint32_t x = to_unsigned(a);

    return ((x * 645083u + (1u << (30 - d))) >> (31 - d)) & ((1u << d) - 1);
}

static uint32_t compress_large(int16_t a, unsigned d)
{
    uint64_t x = to_unsigned(a);

    return (uint32_t)((x * 2580335u + ((uint64_t)1 << (32 - d))) >> (33 - d)) &
           ((1u << d) - 1);
}

/* Decompress_d(y) = round(q y / 2^d), ties up. */
static int16_t decompress(uint32_t y, unsigned d)
{
    return (int16_t)((y * Q + (1u << (d - 1))) >> d);
}

/* ByteEncode_d(Compress_d(f)) on groups of coefficients that fill whole
 * bytes: d = 1: 8 per byte; d = 4: 2 per byte; d = 5: 8 per 5 bytes;
 * d = 10: 4 per 5 bytes; d = 11: 8 per 11 bytes. */
void mlkem_compress_encode(uint8_t *out, const mlkem_poly *f, unsigned d)
{
    const int16_t *c = f->c;
    unsigned i, k;

    switch (d) {
    case 1:
        for (i = 0; i < MLKEM_N / 8; i++) {
            uint32_t byte = 0;

            for (k = 0; k < 8; k++) {
                byte |= compress_small(c[8 * i + k], 1) << k;
            }
            out[i] = (uint8_t)byte;
        }
        break;
    case 4:
        for (i = 0; i < MLKEM_N / 2; i++) {
            out[i] = (uint8_t)(compress_small(c[2 * i], 4) |
                               compress_small(c[2 * i + 1], 4) << 4);
        }
        break;
    case 5:
        for (i = 0; i < MLKEM_N / 8; i++) {
            uint64_t v = 0;

            for (k = 0; k < 8; k++) {
                v |= (uint64_t)compress_small(c[8 * i + k], 5) << (5 * k);
            }
            store40_le(out + 5 * i, v);
        }
        break;
    case 10:
        for (i = 0; i < MLKEM_N / 4; i++) {
            uint64_t v = 0;

            for (k = 0; k < 4; k++) {
                v |= (uint64_t)compress_large(c[4 * i + k], 10) << (10 * k);
            }
            store40_le(out + 5 * i, v);
        }
        break;
    case 11:
        for (i = 0; i < MLKEM_N / 8; i++) {
            uint64_t t[8], lo, hi;

            for (k = 0; k < 8; k++) {
                t[k] = compress_large(c[8 * i + k], 11);
            }
            /* bits 0..63, then 64..87 (t5 straddles the two) */
            lo = t[0] | t[1] << 11 | t[2] << 22 | t[3] << 33 | t[4] << 44 | t[5] << 55;
            hi = t[5] >> 9 | t[6] << 2 | t[7] << 13;
            store64_le(out + 11 * i, lo);
            out[11 * i + 8] = (uint8_t)hi;
            out[11 * i + 9] = (uint8_t)(hi >> 8);
            out[11 * i + 10] = (uint8_t)(hi >> 16);
        }
        break;
    default:
        break;
    }
}

/* Decompress_d(ByteDecode_d(in)) on the same byte groups. */
void mlkem_decode_decompress(mlkem_poly *f, const uint8_t *in, unsigned d)
{
    int16_t *c = f->c;
    unsigned i, k;

    switch (d) {
    case 1:
        /* Decompress_1(b) = (q + 1) / 2 when b = 1, else 0: a mask. */
        for (i = 0; i < MLKEM_N / 8; i++) {
            for (k = 0; k < 8; k++) {
                uint32_t bit = ((uint32_t)in[i] >> k) & 1;

                c[8 * i + k] = (int16_t)((0u - bit) & ((Q + 1) / 2));
            }
        }
        break;
    case 4:
        for (i = 0; i < MLKEM_N / 2; i++) {
            c[2 * i] = decompress(in[i] & 15u, 4);
            c[2 * i + 1] = decompress((uint32_t)in[i] >> 4, 4);
        }
        break;
    case 5:
        for (i = 0; i < MLKEM_N / 8; i++) {
            uint64_t v = load40_le(in + 5 * i);

            for (k = 0; k < 8; k++) {
                c[8 * i + k] = decompress((uint32_t)(v >> (5 * k)) & 31u, 5);
            }
        }
        break;
    case 10:
        for (i = 0; i < MLKEM_N / 4; i++) {
            uint64_t v = load40_le(in + 5 * i);

            for (k = 0; k < 4; k++) {
                c[4 * i + k] = decompress((uint32_t)(v >> (10 * k)) & 1023u, 10);
            }
        }
        break;
    case 11:
        for (i = 0; i < MLKEM_N / 8; i++) {
            uint64_t lo = load64_le(in + 11 * i);
            uint32_t hi = load24_le(in + 11 * i + 8);

            for (k = 0; k < 5; k++) {
                c[8 * i + k] = decompress((uint32_t)(lo >> (11 * k)) & 2047u, 11);
            }
            c[8 * i + 5] = decompress((uint32_t)((lo >> 55) | (uint64_t)hi << 9) & 2047u, 11);
            c[8 * i + 6] = decompress((hi >> 2) & 2047u, 11);
            c[8 * i + 7] = decompress((hi >> 13) & 2047u, 11);
        }
        break;
    default:
        break;
    }
}
