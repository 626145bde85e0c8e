/* Rounding of the in-tree ML-DSA (FIPS 204, section 7.4): Power2Round,
 * Decompose (with HighBits and LowBits), MakeHint and UseHint on whole
 * polynomials, in constant time: the divisions by 2^d and 2 gamma2 are
 * shifts and multiplications by precomputed reciprocals. */
#ifndef MLD_ROUNDING_H
#define MLD_ROUNDING_H

#include "poly.h"

/* Algorithm 35, Power2Round: t = t1 2^d + t0 with t0 in
 * (-2^(d-1), 2^(d-1)], for t in [0, q). */
void mld_poly_power2round(mld_poly *t1, mld_poly *t0, const mld_poly *t);

/* Algorithm 36, Decompose, for r in [0, q): r1 = HighBits(r) in
 * [0, (q-1)/(2 gamma2)) and r0 = LowBits(r) in [-gamma2, gamma2], with
 * r = r1 2 gamma2 + r0 (mod q). */
void mld_poly_decompose(mld_poly *r1, mld_poly *r0, const mld_poly *r);

/* Algorithm 39, MakeHint, as Sign uses it: h_i = 1 exactly when
 * HighBits(w - cs2 + ct0) differs from HighBits(w - cs2) = w1, given
 * w1 = HighBits(w) and the exact low part v = LowBits(w) - cs2 + ct0
 * (|LowBits(w) - cs2| < gamma2 - beta, which is what makes
 * HighBits(w - cs2) = w1).  Returns the number of 1s. */
unsigned mld_poly_make_hint(mld_poly *h, const mld_poly *v, const mld_poly *w1);

/* Algorithm 40, UseHint: the high bits of r in [0, q), moved one step
 * (cyclically) towards the side of its low bits where h_i = 1. */
void mld_poly_use_hint(mld_poly *r1, const mld_poly *r, const mld_poly *h);

#endif
