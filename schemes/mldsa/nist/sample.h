/* Pseudorandom sampling of the in-tree ML-DSA (FIPS 204, section 7.3):
 * the challenge c (SampleInBall), the public matrix A in the NTT domain
 * (ExpandA over RejNTTPoly), the secrets s1, s2 (ExpandS over
 * RejBoundedPoly) and the masking vector y (ExpandMask). */
#ifndef MLD_SAMPLE_H
#define MLD_SAMPLE_H

#include <stdint.h>

#include "params.h"
#include "poly.h"

/* Algorithm 29: tau coefficients +-1, the rest 0, from c~. */
void mld_sample_in_ball(mld_poly *c, const uint8_t ctilde[MLD_CTILDE_BYTES]);
/* Algorithm 32: A-hat[r][s] = RejNTTPoly(rho || s || r). */
void mld_expand_a(mld_poly a_hat[MLD_K][MLD_L], const uint8_t rho[MLD_SEED_BYTES]);
/* Algorithm 33: s1[r], s2[r] from rho' || IntegerToBytes(r, 2). */
void mld_expand_s(mld_poly s1[MLD_L], mld_poly s2[MLD_K],
                  const uint8_t rhoprime[MLD_RHOPRIME_BYTES]);
/* Algorithm 34: y[r] from rho'' || IntegerToBytes(kappa + r, 2). */
void mld_expand_mask(mld_poly y[MLD_L], const uint8_t rhoprime[MLD_RHOPRIME_BYTES],
                     unsigned kappa);

#endif
