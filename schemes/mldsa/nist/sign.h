/* The internal algorithms of the in-tree ML-DSA (FIPS 204, section 6):
 * key generation from a seed, signing with explicit randomness and
 * verification, each over M' = 0 || |ctx| || ctx || M (section 5.2) given
 * in pieces.  api.h's functions call these with an empty context. */
#ifndef MLD_SIGN_H
#define MLD_SIGN_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"

/* Algorithm 6, ML-DSA.KeyGen_internal. */
void mld_keygen_internal(uint8_t pk[MLD_PK_BYTES], uint8_t sk[MLD_SK_BYTES],
                         const uint8_t xi[MLD_SEED_BYTES]);
/* Algorithm 7, ML-DSA.Sign_internal; ctxlen must be at most 255
 * (returns -1 otherwise). */
int mld_sign_internal(uint8_t sig[MLD_SIG_BYTES], const uint8_t sk[MLD_SK_BYTES],
                      const uint8_t *ctx, size_t ctxlen,
                      const uint8_t *m, size_t mlen,
                      const uint8_t rnd[MLD_SEED_BYTES]);
/* Algorithm 8, ML-DSA.Verify_internal: 0 if valid, -1 otherwise. */
int mld_verify_internal(const uint8_t pk[MLD_PK_BYTES],
                        const uint8_t *ctx, size_t ctxlen,
                        const uint8_t *m, size_t mlen,
                        const uint8_t sig[MLD_SIG_BYTES]);

#endif
