/* Polynomials of R_q = Z_q[X]/(X^256 + 1) and of the NTT domain T_q for
 * the in-tree ML-DSA, and the coefficient-wise arithmetic FIPS 204 does
 * on them (sections 7.5, 7.6): sums, products in T_q (Algorithm 45, with
 * Montgomery reduction), the dot products of a matrix row with a vector,
 * reductions to a chosen range and the infinity-norm test.
 *
 * Coefficients are int32_t and are not kept reduced: each function says
 * which range it needs and which it gives (see reduce.h). */
#ifndef MLD_POLY_H
#define MLD_POLY_H

#include <stdint.h>

#include "params.h"

typedef struct {
    int32_t coeffs[MLD_N];
} mld_poly;

/* c = a + b, c = a - b, with no reduction. */
void mld_poly_add(mld_poly *c, const mld_poly *a, const mld_poly *b);
void mld_poly_sub(mld_poly *c, const mld_poly *a, const mld_poly *b);

/* Algorithm 45, MultiplyNTT, in Montgomery form: c_i = a_i b_i 2^-32
 * mod q, |c_i| < q, for |a_i b_i| < 2^31 q.  mld_ntt_inverse removes the
 * 2^-32 again. */
void mld_poly_pointwise_montgomery(mld_poly *c, const mld_poly *a, const mld_poly *b);

/* r = sum over s < n of a[s] o b[s] (Algorithms 45 and 46 fused, one row
 * of A-hat o v-hat): the products are summed in 64 bits and reduced once
 * per coefficient, r_i = (sum) 2^-32 mod q with |r_i| < q, provided that
 * the sum of |a_i b_i| stays below 2^31 q. */
void mld_poly_dot_montgomery(mld_poly *r, const mld_poly *a, const mld_poly *b,
                             unsigned n);

/* (-q, q) -> [0, q). */
void mld_poly_caddq(mld_poly *a);
/* Any coefficient up to 2^31 - 2^22 in absolute value -> [0, q). */
void mld_poly_freeze(mld_poly *a);
/* |a_i| < 3q/2 -> a_i mod+- q, in [-(q-1)/2, (q-1)/2]. */
void mld_poly_center(mld_poly *a);
/* a = a 2^d (t1 2^d of Verify; t1 < 2^10 gives a result below q). */
void mld_poly_shift_d(mld_poly *a);

/* Nonzero if some |a_i| >= bound, for centered a_i (|a_i| < 2^30)
 * and 0 < bound.  It looks at every coefficient (no early exit inside a
 * polynomial), so its time does not depend on where a large one is. */
int mld_poly_exceeds(const mld_poly *a, int32_t bound);

#endif
