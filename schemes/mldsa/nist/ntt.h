/* The number-theoretic transform of the in-tree ML-DSA (FIPS 204,
 * Algorithms 41 and 42) on Z_q[X]/(X^256 + 1), with Montgomery
 * arithmetic (R = 2^32) and lazy reduction.  Outputs of mld_ntt are in
 * bit-reversed order, as FIPS 204 has them, so products in the NTT domain
 * are coefficient-wise (Algorithm 45). */
#ifndef MLD_NTT_H
#define MLD_NTT_H

#include <stdint.h>

#include "params.h"

/* Algorithm 41, NTT: in place.  Input |a_i| <= q; output |a_i| < 6q. */
void mld_ntt(int32_t a[MLD_N]);

/* Algorithm 42, NTT^-1, times the Montgomery factor 2^32: in place.  It
 * undoes the factor 2^-32 that a Montgomery product in the NTT domain
 * leaves, so NTT^-1 of such a product is the plain product in R_q.
 * Input |a_i| < 2q; output |a_i| < q. */
void mld_ntt_inverse(int32_t a[MLD_N]);

#endif
