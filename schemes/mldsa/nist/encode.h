/* Byte encodings of the in-tree ML-DSA (FIPS 204, section 7.1 and 7.2):
 * bit packing of polynomials (SimpleBitPack, BitPack, BitUnpack), the
 * hint (HintBitPack, HintBitUnpack), and the public key, secret key,
 * signature and w1 encodings built on them.  Polynomials come in with
 * coefficients in [0, q) and go out the same way. */
#ifndef MLD_ENCODE_H
#define MLD_ENCODE_H

#include <stdint.h>

#include "params.h"
#include "poly.h"

/* Algorithm 16: coefficients in [0, 2^bits - 1], bits each. */
void mld_simple_bit_pack(uint8_t *out, const mld_poly *w, unsigned bits);
void mld_simple_bit_unpack(mld_poly *w, const uint8_t *in, unsigned bits);
/* Algorithms 17, 19: coefficients in [-a, b] stored as b - w_i in bits
 * bits; unpacking gives [b - 2^bits + 1, b], reduced mod q. */
void mld_bit_pack(uint8_t *out, const mld_poly *w, int32_t b, unsigned bits);
void mld_bit_unpack(mld_poly *w, const uint8_t *in, int32_t b, unsigned bits);

/* Algorithms 22-27.  The decoders return 0, or -1 for a malformed hint
 * (sigDecode's "bottom"). */
void mld_pk_encode(uint8_t pk[MLD_PK_BYTES], const uint8_t rho[MLD_SEED_BYTES],
                   const mld_poly t1[MLD_K]);
void mld_pk_decode(uint8_t rho[MLD_SEED_BYTES], mld_poly t1[MLD_K],
                   const uint8_t pk[MLD_PK_BYTES]);
void mld_sk_encode(uint8_t sk[MLD_SK_BYTES], const uint8_t rho[MLD_SEED_BYTES],
                   const uint8_t key[MLD_SEED_BYTES], const uint8_t tr[MLD_TR_BYTES],
                   const mld_poly s1[MLD_L], const mld_poly s2[MLD_K],
                   const mld_poly t0[MLD_K]);
void mld_sk_decode(uint8_t rho[MLD_SEED_BYTES], uint8_t key[MLD_SEED_BYTES],
                   uint8_t tr[MLD_TR_BYTES], mld_poly s1[MLD_L], mld_poly s2[MLD_K],
                   mld_poly t0[MLD_K], const uint8_t sk[MLD_SK_BYTES]);
void mld_sig_encode(uint8_t sig[MLD_SIG_BYTES], const uint8_t ctilde[MLD_CTILDE_BYTES],
                    const mld_poly z[MLD_L], const mld_poly h[MLD_K]);
int mld_sig_decode(uint8_t ctilde[MLD_CTILDE_BYTES], mld_poly z[MLD_L],
                   mld_poly h[MLD_K], const uint8_t sig[MLD_SIG_BYTES]);
/* Algorithm 28. */
void mld_w1_encode(uint8_t out[MLD_W1_PACKED_BYTES], const mld_poly w1[MLD_K]);

#endif
