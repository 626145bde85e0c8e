/* Coefficient-wise arithmetic on polynomials of the in-tree ML-DSA
 * (FIPS 204, sections 7.5, 7.6).  Straight loops over the 256
 * coefficients, no data-dependent branches: compilers unroll or
 * vectorize them. */
#include "poly.h"
#include "reduce.h"

void mld_poly_add(mld_poly *c, const mld_poly *a, const mld_poly *b)
{
    unsigned i;

    for (i = 0; i < MLD_N; i++) {
        c->coeffs[i] = a->coeffs[i] + b->coeffs[i];
    }
}

void mld_poly_sub(mld_poly *c, const mld_poly *a, const mld_poly *b)
{
    unsigned i;

    for (i = 0; i < MLD_N; i++) {
        c->coeffs[i] = a->coeffs[i] - b->coeffs[i];
    }
}

void mld_poly_pointwise_montgomery(mld_poly *c, const mld_poly *a, const mld_poly *b)
{
    unsigned i;

    for (i = 0; i < MLD_N; i++) {
        c->coeffs[i] = mld_montgomery_mul(a->coeffs[i], b->coeffs[i]);
    }
}

void mld_poly_dot_montgomery(mld_poly *r, const mld_poly *a, const mld_poly *b,
                             unsigned n)
{
    int64_t acc[MLD_N];
    unsigned i, s;

    for (i = 0; i < MLD_N; i++) {
        acc[i] = (int64_t)a[0].coeffs[i] * b[0].coeffs[i];
    }
    for (s = 1; s < n; s++) {
        for (i = 0; i < MLD_N; i++) {
            acc[i] += (int64_t)a[s].coeffs[i] * b[s].coeffs[i];
        }
    }
    for (i = 0; i < MLD_N; i++) {
        r->coeffs[i] = mld_montgomery_reduce(acc[i]);
    }
}

void mld_poly_caddq(mld_poly *a)
{
    unsigned i;

    for (i = 0; i < MLD_N; i++) {
        a->coeffs[i] = mld_caddq(a->coeffs[i]);
    }
}

void mld_poly_freeze(mld_poly *a)
{
    unsigned i;

    for (i = 0; i < MLD_N; i++) {
        a->coeffs[i] = mld_freeze(a->coeffs[i]);
    }
}

void mld_poly_center(mld_poly *a)
{
    unsigned i;

    for (i = 0; i < MLD_N; i++) {
        a->coeffs[i] = mld_center(a->coeffs[i]);
    }
}

void mld_poly_shift_d(mld_poly *a)
{
    unsigned i;

    for (i = 0; i < MLD_N; i++) {
        a->coeffs[i] *= 1 << MLD_D;
    }
}

int mld_poly_exceeds(const mld_poly *a, int32_t bound)
{
    int32_t over = 0;
    unsigned i;

    for (i = 0; i < MLD_N; i++) {
        int32_t v = a->coeffs[i];
        int32_t abs = v - ((v >> 31) & (2 * v));  /* |v| */

        over |= (bound - 1) - abs;                /* negative iff |v| >= bound */
    }
    return over < 0;
}
