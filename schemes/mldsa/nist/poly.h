/* Polynomials of R_q = Z_q[X]/(X^256 + 1) for the in-tree ML-DSA and the
 * arithmetic FIPS 204 does on them: reduction mod q, the NTT and its
 * inverse (Algorithms 41, 42), products in the NTT domain (Algorithm 45),
 * sums, and the infinity norm.  Coefficients are kept as int32_t; every
 * function here returns them reduced to [0, q). */
#ifndef MLD_POLY_H
#define MLD_POLY_H

#include <stdint.h>

#include "params.h"

typedef struct {
    int32_t coeffs[MLD_N];
} mld_poly;

/* r mod q in [0, q) for any int64_t r. */
int32_t mld_mod_q(int64_t r);
/* The representative of a mod q in [-(q-1)/2, (q-1)/2] (r mod+- q). */
int32_t mld_centered(int32_t a);

void mld_poly_reduce(mld_poly *a);
void mld_poly_ntt(mld_poly *a);
void mld_poly_invntt(mld_poly *a);
/* c = a o b, coefficient-wise (both in the NTT domain). */
void mld_poly_pointwise(mld_poly *c, const mld_poly *a, const mld_poly *b);
void mld_poly_add(mld_poly *c, const mld_poly *a, const mld_poly *b);
void mld_poly_sub(mld_poly *c, const mld_poly *a, const mld_poly *b);
/* a = a * 2^d (for t1 in Verify). */
void mld_poly_shift_d(mld_poly *a);
/* max |a_i mod+- q| < bound, as 1 or 0. */
int mld_poly_norm_below(const mld_poly *a, int32_t bound);

#endif
