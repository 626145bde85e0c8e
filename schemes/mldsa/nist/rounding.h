/* Rounding of the in-tree ML-DSA (FIPS 204, section 7.4): Power2Round,
 * Decompose with HighBits and LowBits, MakeHint and UseHint, applied to
 * whole polynomials.  Inputs are in [0, q); r1 outputs are non-negative,
 * r0 outputs are reduced mod q (so their infinity norm can be tested). */
#ifndef MLD_ROUNDING_H
#define MLD_ROUNDING_H

#include "poly.h"

/* Algorithm 35: t = t1 * 2^d + t0 with t0 in (-2^(d-1), 2^(d-1)]. */
void mld_poly_power2round(mld_poly *t1, mld_poly *t0, const mld_poly *t);
/* Algorithm 37: r1 = HighBits(r). */
void mld_poly_highbits(mld_poly *r1, const mld_poly *r);
/* Algorithm 38: r0 = LowBits(r). */
void mld_poly_lowbits(mld_poly *r0, const mld_poly *r);
/* Algorithm 39 with z = -ct0 and r + z = w - cs2, written as
 * HighBits(r) != HighBits(r - ct0) for r = w - cs2 + ct0.  Returns the
 * number of 1s in h. */
int mld_poly_make_hint(mld_poly *h, const mld_poly *r, const mld_poly *ct0);
/* Algorithm 40: the high bits of r, corrected by h. */
void mld_poly_use_hint(mld_poly *r1, const mld_poly *h, const mld_poly *r);

#endif
