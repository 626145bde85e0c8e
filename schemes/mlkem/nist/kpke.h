/* K-PKE, the CPA-secure public-key encryption underneath ML-KEM
 * (FIPS 203, section 5, Algorithms 13-15).  Only kem.c calls it; it is
 * not meant to be used on its own. */
#ifndef MLKEM_KPKE_H
#define MLKEM_KPKE_H

#include <stdint.h>

#include "params.h"

/* Algorithm 13: (ek_PKE, dk_PKE) from the 32-byte seed d. */
void mlkem_kpke_keygen(uint8_t ek[MLKEM_EK_BYTES], uint8_t dk[MLKEM_DK_PKE_BYTES],
                       const uint8_t d[MLKEM_SYM_BYTES]);

/* Algorithm 14: encrypts the 32-byte m with the 32-byte randomness r. */
void mlkem_kpke_encrypt(uint8_t c[MLKEM_CT_BYTES], const uint8_t ek[MLKEM_EK_BYTES],
                        const uint8_t m[MLKEM_SYM_BYTES],
                        const uint8_t r[MLKEM_SYM_BYTES]);

/* Algorithm 15: recovers m from c. */
void mlkem_kpke_decrypt(uint8_t m[MLKEM_SYM_BYTES], const uint8_t dk[MLKEM_DK_PKE_BYTES],
                        const uint8_t c[MLKEM_CT_BYTES]);

#endif
