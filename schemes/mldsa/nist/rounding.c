/* Power2Round, Decompose, MakeHint and UseHint of the in-tree ML-DSA
 * (FIPS 204, Algorithms 35-40), one coefficient at a time. */
#include "rounding.h"

/* r mod+- alpha for even alpha and r in [0, q): the representative in
 * (-alpha/2, alpha/2]. */
static int32_t mod_pm(int32_t r, int32_t alpha)
{
    int32_t r0 = r % alpha;

    return r0 > alpha / 2 ? r0 - alpha : r0;
}

/* Algorithm 36, Decompose: r = r1 * 2 gamma2 + r0, except that the top
 * value r - r0 = q - 1 folds into r1 = 0, r0 - 1. */
static void decompose(int32_t *r1, int32_t *r0, int32_t r)
{
    *r0 = mod_pm(r, 2 * MLD_GAMMA2);
    if (r - *r0 == MLD_Q - 1) {
        *r1 = 0;
        *r0 -= 1;
    } else {
        *r1 = (r - *r0) / (2 * MLD_GAMMA2);
    }
}

void mld_poly_power2round(mld_poly *t1, mld_poly *t0, const mld_poly *t)
{
    int i;

    for (i = 0; i < MLD_N; i++) {
        int32_t r0 = mod_pm(t->coeffs[i], 1 << MLD_D);
        t1->coeffs[i] = (t->coeffs[i] - r0) >> MLD_D;
        t0->coeffs[i] = mld_mod_q(r0);
    }
}

void mld_poly_highbits(mld_poly *r1, const mld_poly *r)
{
    int32_t hi, lo;
    int i;

    for (i = 0; i < MLD_N; i++) {
        decompose(&hi, &lo, r->coeffs[i]);
        r1->coeffs[i] = hi;
    }
}

void mld_poly_lowbits(mld_poly *r0, const mld_poly *r)
{
    int32_t hi, lo;
    int i;

    for (i = 0; i < MLD_N; i++) {
        decompose(&hi, &lo, r->coeffs[i]);
        r0->coeffs[i] = mld_mod_q(lo);
    }
}

int mld_poly_make_hint(mld_poly *h, const mld_poly *r, const mld_poly *ct0)
{
    int32_t r1, v1, lo;
    int i, ones = 0;

    for (i = 0; i < MLD_N; i++) {
        decompose(&r1, &lo, r->coeffs[i]);
        decompose(&v1, &lo, mld_mod_q((int64_t)r->coeffs[i] - ct0->coeffs[i]));
        h->coeffs[i] = r1 != v1;
        ones += h->coeffs[i];
    }
    return ones;
}

void mld_poly_use_hint(mld_poly *r1, const mld_poly *h, const mld_poly *r)
{
    const int32_t m = (MLD_Q - 1) / (2 * MLD_GAMMA2);
    int32_t hi, lo;
    int i;

    for (i = 0; i < MLD_N; i++) {
        decompose(&hi, &lo, r->coeffs[i]);
        if (h->coeffs[i] && lo > 0) {
            hi = (hi + 1) % m;
        } else if (h->coeffs[i]) {
            hi = (hi - 1 + m) % m;
        }
        r1->coeffs[i] = hi;
    }
}
