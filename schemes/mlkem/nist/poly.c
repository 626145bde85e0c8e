/* Arithmetic on one polynomial for ML-KEM (FIPS 203, sections 4.2 and 4.3).
 * Coefficients are uint16_t in [0, q).  Reduction mod q and the division
 * by q inside Compress never branch on or index by coefficient values: a
 * Barrett quotient estimate is corrected with a mask, so the code is
 * constant-time without relying on the compiler turning '%' or '/' into
 * multiplications (an integer divide instruction may be variable-time). */
#include "poly.h"
#include "fips202.h"

#define Q MLKEM_Q

/* floor(2^32 / q): Barrett's estimate of 1/q. */
#define BARRETT_MULTIPLIER 1290167u

/* 128^-1 mod q, the scaling of NTT^-1's last line. */
#define NTT_INVERSE_SCALE 3303u

/* zeta^BitRev7(i) mod q for zeta = 17 and i = 0..127 (FIPS 203, Appendix A). */
static const uint16_t zetas[128] = {
       1, 1729, 2580, 3289, 2642,  630, 1897,  848,
    1062, 1919,  193,  797, 2786, 3260,  569, 1746,
     296, 2447, 1339, 1476, 3046,   56, 2240, 1333,
    1426, 2094,  535, 2882, 2393, 2879, 1974,  821,
     289,  331, 3253, 1756, 1197, 2304, 2277, 2055,
     650, 1977, 2513,  632, 2865,   33, 1320, 1915,
    2319, 1435,  807,  452, 1438, 2868, 1534, 2402,
    2647, 2617, 1481,  648, 2474, 3110, 1227,  910,
      17, 2761,  583, 2649, 1637,  723, 2288, 1100,
    1409, 2662, 3281,  233,  756, 2156, 3015, 3050,
    1703, 1651, 2789, 1789, 1847,  952, 1461, 2687,
     939, 2308, 2437, 2388,  733, 2337,  268,  641,
    1584, 2298, 2037, 3220,  375, 2549, 2090, 1645,
    1063,  319, 2773,  757, 2099,  561, 2466, 2594,
    2804, 1092,  403, 1026, 1143, 2150, 2775,  886,
    1722, 1212, 1874, 1029, 2110, 2935,  885, 2154
};

/* gamma_i = zeta^(2 BitRev7(i) + 1) mod q, the roots of the 128 quadratic
 * factors X^2 - gamma_i that MultiplyNTTs works in (Appendix A). */
static const uint16_t gammas[128] = {
      17, 3312, 2761,  568,  583, 2746, 2649,  680,
    1637, 1692,  723, 2606, 2288, 1041, 1100, 2229,
    1409, 1920, 2662,  667, 3281,   48,  233, 3096,
     756, 2573, 2156, 1173, 3015,  314, 3050,  279,
    1703, 1626, 1651, 1678, 2789,  540, 1789, 1540,
    1847, 1482,  952, 2377, 1461, 1868, 2687,  642,
     939, 2390, 2308, 1021, 2437,  892, 2388,  941,
     733, 2596, 2337,  992,  268, 3061,  641, 2688,
    1584, 1745, 2298, 1031, 2037, 1292, 3220,  109,
     375, 2954, 2549,  780, 2090, 1239, 1645, 1684,
    1063, 2266,  319, 3010, 2773,  556,  757, 2572,
    2099, 1230,  561, 2768, 2466,  863, 2594,  735,
    2804,  525, 1092, 2237,  403, 2926, 1026, 2303,
    1143, 2186, 2150, 1179, 2775,  554,  886, 2443,
    1722, 1607, 1212, 2117, 1874, 1455, 1029, 2300,
    2110, 1219, 2935,  394,  885, 2444, 2154, 1175
};

/* floor(n / q) and n mod q for any 32-bit n.  The Barrett estimate is
 * exact or one too small; the remainder's sign after subtracting q says
 * which, and becomes a mask instead of a branch. */
static uint32_t divmod_q(uint32_t n, uint32_t *rem)
{
    uint32_t quot = (uint32_t)(((uint64_t)n * BARRETT_MULTIPLIER) >> 32);
    uint32_t r = n - quot * Q;             /* in [0, 2q) */
    uint32_t too_small = (uint32_t)(Q - 1 - r) >> 31; /* 1 iff r >= q */

    *rem = r - (too_small * Q);
    return quot + too_small;
}

static uint16_t reduce(uint32_t n)
{
    uint32_t r;

    (void)divmod_q(n, &r);
    return (uint16_t)r;
}

static uint16_t add_q(uint16_t a, uint16_t b)
{
    return reduce((uint32_t)a + b);
}

static uint16_t sub_q(uint16_t a, uint16_t b)
{
    return reduce((uint32_t)a + Q - b);
}

static uint16_t mul_q(uint16_t a, uint16_t b)
{
    return reduce((uint32_t)a * b);
}

void mlkem_poly_add(mlkem_poly *r, const mlkem_poly *a, const mlkem_poly *b)
{
    unsigned i;

    for (i = 0; i < MLKEM_N; i++) {
        r->c[i] = add_q(a->c[i], b->c[i]);
    }
}

void mlkem_poly_sub(mlkem_poly *r, const mlkem_poly *a, const mlkem_poly *b)
{
    unsigned i;

    for (i = 0; i < MLKEM_N; i++) {
        r->c[i] = sub_q(a->c[i], b->c[i]);
    }
}

/* Algorithm 9, NTT: seven layers of Cooley-Tukey butterflies. */
void mlkem_ntt(mlkem_poly *f)
{
    unsigned len, start, j, i = 1;

    for (len = 128; len >= 2; len /= 2) {
        for (start = 0; start < MLKEM_N; start += 2 * len) {
            uint16_t zeta = zetas[i++];
            for (j = start; j < start + len; j++) {
                uint16_t t = mul_q(zeta, f->c[j + len]);
                f->c[j + len] = sub_q(f->c[j], t);
                f->c[j] = add_q(f->c[j], t);
            }
        }
    }
}

/* Algorithm 10, NTT^-1: Gentleman-Sande butterflies, then times 128^-1. */
void mlkem_ntt_inverse(mlkem_poly *f)
{
    unsigned len, start, j, i = 127;

    for (len = 2; len <= 128; len *= 2) {
        for (start = 0; start < MLKEM_N; start += 2 * len) {
            uint16_t zeta = zetas[i--];
            for (j = start; j < start + len; j++) {
                uint16_t t = f->c[j];
                f->c[j] = add_q(t, f->c[j + len]);
                f->c[j + len] = mul_q(zeta, sub_q(f->c[j + len], t));
            }
        }
    }
    for (j = 0; j < MLKEM_N; j++) {
        f->c[j] = mul_q(f->c[j], NTT_INVERSE_SCALE);
    }
}

/* Algorithms 11 and 12: 128 products of degree-one polynomials modulo
 * X^2 - gamma_i. */
void mlkem_multiply_ntts(mlkem_poly *r, const mlkem_poly *a, const mlkem_poly *b)
{
    unsigned i;

    for (i = 0; i < MLKEM_N / 2; i++) {
        uint16_t a0 = a->c[2 * i], a1 = a->c[2 * i + 1];
        uint16_t b0 = b->c[2 * i], b1 = b->c[2 * i + 1];

        r->c[2 * i] = add_q(mul_q(a0, b0), mul_q(mul_q(a1, b1), gammas[i]));
        r->c[2 * i + 1] = add_q(mul_q(a0, b1), mul_q(a1, b0));
    }
}

/* Algorithm 7, SampleNTT: 12-bit candidates from SHAKE128(rho || j || i),
 * kept when below q.  A SHAKE128 block (168 bytes) holds 56 whole 3-byte
 * groups, so squeezing block by block reads the same stream as the
 * standard's 3-byte squeezes. */
void mlkem_sample_ntt(mlkem_poly *a, const uint8_t rho[MLKEM_SYM_BYTES],
                      uint8_t j, uint8_t i)
{
    mlkem_sponge xof;
    uint8_t seed[MLKEM_SYM_BYTES + 2];
    uint8_t buf[MLKEM_SHAKE128_RATE];
    unsigned n = 0, k;

    for (k = 0; k < MLKEM_SYM_BYTES; k++) {
        seed[k] = rho[k];
    }
    seed[MLKEM_SYM_BYTES] = j;
    seed[MLKEM_SYM_BYTES + 1] = i;
    mlkem_shake128_init(&xof);
    mlkem_sponge_absorb(&xof, seed, sizeof seed);
    mlkem_sponge_finalize(&xof);
    while (n < MLKEM_N) {
        mlkem_sponge_squeeze(&xof, buf, sizeof buf);
        for (k = 0; k + 3 <= sizeof buf && n < MLKEM_N; k += 3) {
            uint16_t d1 = (uint16_t)(buf[k] | ((buf[k + 1] & 0x0F) << 8));
            uint16_t d2 = (uint16_t)((buf[k + 1] >> 4) | (buf[k + 2] << 4));

            if (d1 < Q) {
                a->c[n++] = d1;
            }
            if (d2 < Q && n < MLKEM_N) {
                a->c[n++] = d2;
            }
        }
    }
}

static unsigned bit_at(const uint8_t *b, unsigned pos)
{
    return ((unsigned)b[pos / 8] >> (pos % 8)) & 1u;
}

/* Algorithm 8, SamplePolyCBD_eta: x - y with x and y sums of eta bits. */
void mlkem_sample_cbd(mlkem_poly *f, const uint8_t *b, unsigned eta)
{
    unsigned i, j;

    for (i = 0; i < MLKEM_N; i++) {
        uint16_t x = 0, y = 0;

        for (j = 0; j < eta; j++) {
            x = (uint16_t)(x + bit_at(b, 2 * i * eta + j));
            y = (uint16_t)(y + bit_at(b, 2 * i * eta + eta + j));
        }
        f->c[i] = sub_q(x, y);
    }
}

/* Algorithm 5, ByteEncode_d: the d low bits of each coefficient, least
 * significant first, packed into bytes least significant bit first. */
void mlkem_byte_encode(uint8_t *out, const mlkem_poly *f, unsigned d)
{
    uint32_t acc = 0;
    unsigned bits = 0, i;

    for (i = 0; i < MLKEM_N; i++) {
        acc |= (uint32_t)(f->c[i] & ((1u << d) - 1)) << bits;
        bits += d;
        while (bits >= 8) {
            *out++ = (uint8_t)acc;
            acc >>= 8;
            bits -= 8;
        }
    }
}

/* Algorithm 6, ByteDecode_d; for d = 12 the values are taken mod q. */
void mlkem_byte_decode(mlkem_poly *f, const uint8_t *in, unsigned d)
{
    uint32_t acc = 0;
    unsigned bits = 0, i;

    for (i = 0; i < MLKEM_N; i++) {
        while (bits < d) {
            acc |= (uint32_t)*in++ << bits;
            bits += 8;
        }
        f->c[i] = (uint16_t)(acc & ((1u << d) - 1));
        acc >>= d;
        bits -= d;
        if (d == 12) {
            f->c[i] = reduce(f->c[i]);
        }
    }
}

/* Compress_d(x) = round(2^d x / q) mod 2^d.  Since q is odd, 2^d x / q is
 * never half-way, and round(n / q) = floor((n + (q - 1) / 2) / q). */
void mlkem_compress(mlkem_poly *f, unsigned d)
{
    unsigned i;

    for (i = 0; i < MLKEM_N; i++) {
        uint32_t rem;
        uint32_t quot = divmod_q(((uint32_t)f->c[i] << d) + (Q - 1) / 2, &rem);

        f->c[i] = (uint16_t)(quot & ((1u << d) - 1));
    }
}

/* Decompress_d(y) = round(q y / 2^d), ties rounded up. */
void mlkem_decompress(mlkem_poly *f, unsigned d)
{
    unsigned i;

    for (i = 0; i < MLKEM_N; i++) {
        f->c[i] = (uint16_t)(((uint32_t)f->c[i] * Q + (1u << (d - 1))) >> d);
    }
}
