/* Pseudorandom sampling of the in-tree ML-DSA (FIPS 204, section 7.3):
 * the challenge c (SampleInBall), the public matrix A-hat in the NTT
 * domain (ExpandA over RejNTTPoly), the secrets s1, s2 (ExpandS over
 * RejBoundedPoly) and the masking vector y (ExpandMask).  Each reads its
 * SHAKE stream in whole blocks (fips202_squeezeblocks) and parses them
 * in place, in the order the standard reads the stream, so the
 * polynomials match those of any conforming implementation. */
#ifndef MLD_SAMPLE_H
#define MLD_SAMPLE_H

#include <stdint.h>

#include "params.h"
#include "poly.h"

/* Algorithm 29, SampleInBall: tau coefficients +-1, the rest 0. */
void mld_sample_in_ball(mld_poly *c, const uint8_t ctilde[MLD_CTILDE_BYTES]);
/* Algorithm 32, ExpandA, one row: a_hat[s] = RejNTTPoly(rho || s || r)
 * for s < l, coefficients in [0, q). */
void mld_expand_a_row(mld_poly a_hat[MLD_L], const uint8_t rho[MLD_SEED_BYTES],
                      unsigned r);
/* Algorithm 32, ExpandA: all k rows. */
void mld_expand_a(mld_poly a_hat[MLD_K][MLD_L], const uint8_t rho[MLD_SEED_BYTES]);
/* Algorithm 33, ExpandS: s1[r], s2[r] from rho' || IntegerToBytes(r, 2),
 * coefficients in [-eta, eta]. */
void mld_expand_s(mld_poly s1[MLD_L], mld_poly s2[MLD_K],
                  const uint8_t rhoprime[MLD_RHOPRIME_BYTES]);
/* Algorithm 34, ExpandMask: y[r] from rho'' || IntegerToBytes(kappa + r, 2),
 * coefficients in (-gamma1, gamma1]. */
void mld_expand_mask(mld_poly y[MLD_L], const uint8_t rhoprime[MLD_RHOPRIME_BYTES],
                     unsigned kappa);

#endif
