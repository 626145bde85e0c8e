/* Power2Round, Decompose, MakeHint and UseHint of the in-tree ML-DSA
 * (FIPS 204, Algorithms 35-40), branch-free.
 *
 * Decompose.  With alpha = 2 gamma2 and r in [0, q), r0 = r mod+- alpha
 * lies in (-gamma2, gamma2], so r1 = (r - r0) / alpha is the integer with
 * r1 alpha in [r - gamma2, r + gamma2), that is
 *     r1 = floor((r + gamma2 - 1) / alpha).
 * The quotient is computed without a division: alpha = 2^9 * 1023 for
 * gamma2 = (q-1)/32 and alpha = 2^11 * 93 for gamma2 = (q-1)/88, and
 * floor(x / (2^e c)) = floor(floor(x / 2^e) / c); the division by c is a
 * multiplication by ceil(2^s / c) and a shift by s, exact here because
 * floor(x / 2^e) < 2^15 (resp. 2^13) makes the error of the reciprocal
 * smaller than 1/c (s = 26, ceil(2^26 / 1023) = 65601; s = 25,
 * ceil(2^25 / 93) = 360801; checked for every r in [0, q)).
 * The top quotient (q-1)/alpha (16 or 44) is the case r - r0 = q - 1 of
 * Algorithm 36: r1 becomes 0, and r0 = r - q (its r0 - 1). */
#include "reduce.h"
#include "rounding.h"

#define MLD_ALPHA (2 * MLD_GAMMA2)
#define MLD_M ((MLD_Q - 1) / MLD_ALPHA)   /* number of high-bit values */

/* floor(x / alpha) for 0 <= x < q + gamma2. */
static int32_t div_alpha(int32_t x)
{
#if MLD_GAMMA2 == (MLD_Q - 1) / 32
    return (int32_t)(((uint32_t)x >> 9) * 65601u >> 26);
#else
    return (int32_t)(((uint32_t)x >> 11) * 360801u >> 25);
#endif
}

/* Algorithm 36 on one coefficient. */
static int32_t decompose(int32_t *r0, int32_t r)
{
    int32_t r1 = div_alpha(r + MLD_GAMMA2 - 1);

#if MLD_M == 16
    r1 &= 15;                                 /* 16 -> 0 */
#else
    r1 &= ~((MLD_M - 1 - r1) >> 31);          /* 44 -> 0 */
#endif
    /* r0 = r - r1 alpha, except that the folded case gives r > (q-1)/2,
     * which becomes r - q. */
    *r0 = r - r1 * MLD_ALPHA;
    *r0 -= ((MLD_HALF_Q - *r0) >> 31) & MLD_Q;
    return r1;
}

void mld_poly_power2round(mld_poly *t1, mld_poly *t0, const mld_poly *t)
{
    unsigned i;

    for (i = 0; i < MLD_N; i++) {
        /* t1 = floor((t + 2^(d-1) - 1) / 2^d), the same argument as
         * Decompose with alpha = 2^d. */
        int32_t hi = (t->coeffs[i] + (1 << (MLD_D - 1)) - 1) >> MLD_D;

        t1->coeffs[i] = hi;
        t0->coeffs[i] = t->coeffs[i] - hi * (1 << MLD_D);
    }
}

void mld_poly_decompose(mld_poly *r1, mld_poly *r0, const mld_poly *r)
{
    unsigned i;

    for (i = 0; i < MLD_N; i++) {
        r1->coeffs[i] = decompose(&r0->coeffs[i], r->coeffs[i]);
    }
}

/* With u = w1 alpha + v (mod q) and |v| < alpha, HighBits(u) = w1 unless
 * v > gamma2 or v < -gamma2, or v = -gamma2 (which Decompose rounds to
 * w1 - 1, except for w1 = 0, where u = q - gamma2 folds back to 0). */
unsigned mld_poly_make_hint(mld_poly *h, const mld_poly *v, const mld_poly *w1)
{
    unsigned i, ones = 0;

    for (i = 0; i < MLD_N; i++) {
        int32_t x = v->coeffs[i];
        int32_t up = (MLD_GAMMA2 - x) >> 31;               /* x > gamma2 */
        int32_t down = (x + MLD_GAMMA2) >> 31;             /* x < -gamma2 */
        int32_t edge = ~((x + MLD_GAMMA2) | -(x + MLD_GAMMA2)) >> 31; /* x = -gamma2 */
        int32_t nz = (w1->coeffs[i] | -w1->coeffs[i]) >> 31;          /* w1 != 0 */
        int32_t bit = (up | down | (edge & nz)) & 1;

        h->coeffs[i] = bit;
        ones += (unsigned)bit;
    }
    return ones;
}

void mld_poly_use_hint(mld_poly *r1, const mld_poly *r, const mld_poly *h)
{
    unsigned i;

    for (i = 0; i < MLD_N; i++) {
        int32_t lo, hi = decompose(&lo, r->coeffs[i]);
        /* +1 if h and r0 > 0, -1 if h and r0 <= 0, else 0. */
        int32_t down = (lo - 1) >> 31;                     /* r0 <= 0 */
        int32_t step = (1 + 2 * down) & -h->coeffs[i];

        hi += step;
#if MLD_M == 16
        hi &= 15;
#else
        hi += (hi >> 31) & MLD_M;                          /* -1 -> 43 */
        hi -= ((MLD_M - 1 - hi) >> 31) & MLD_M;            /* 44 -> 0 */
#endif
        r1->coeffs[i] = hi;
    }
}
