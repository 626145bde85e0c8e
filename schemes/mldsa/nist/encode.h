/* Byte encodings of the in-tree ML-DSA (FIPS 204, sections 7.1, 7.2):
 * SimpleBitPack / BitPack and their inverses for each coefficient range
 * the scheme stores (Algorithms 16-19), the hint (Algorithms 20, 21), and
 * the public key, secret key, signature and w1 encodings built on them
 * (Algorithms 22-28).
 *
 * Bits are laid out least significant first (IntegerToBits, BitsToBytes),
 * so a group of g coefficients of b bits with g b a multiple of 8 fills
 * g b / 8 bytes on its own; each packer handles one such group per step
 * through a 32- or 64-bit word.  Signed ranges are kept centered in
 * memory: s1, s2 in [-eta, eta], t0 in (-2^(d-1), 2^(d-1)], z in
 * (-gamma1, gamma1]; BitPack stores b - w_i. */
#ifndef MLD_ENCODE_H
#define MLD_ENCODE_H

#include <stdint.h>

#include "params.h"
#include "poly.h"

/* BitPack(w, gamma1 - 1, gamma1) and BitUnpack (Algorithms 17, 19), the
 * encoding of z and of ExpandMask's output: MLD_POLY_BYTES(MLD_Z_BITS)
 * bytes.  Unpacking gives (-gamma1, gamma1]. */
void mld_poly_pack_z(uint8_t *out, const mld_poly *z);
void mld_poly_unpack_z(mld_poly *z, const uint8_t *in);

/* Algorithms 22-27.  The decoders of pk and sk take any input; sigDecode
 * returns 0, or -1 for a malformed hint (the "bottom" of Algorithm 27). */
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
/* z centered; h with coefficients 0 and 1 and at most omega 1s. */
void mld_sig_encode(uint8_t sig[MLD_SIG_BYTES], const uint8_t ctilde[MLD_CTILDE_BYTES],
                    const mld_poly z[MLD_L], const mld_poly h[MLD_K]);
int mld_sig_decode(uint8_t ctilde[MLD_CTILDE_BYTES], mld_poly z[MLD_L],
                   mld_poly h[MLD_K], const uint8_t sig[MLD_SIG_BYTES]);
/* Algorithm 28, w1Encode: SimpleBitPack of each w1[i] (values below
 * (q-1) / (2 gamma2)). */
void mld_w1_encode(uint8_t out[MLD_W1_PACKED_BYTES], const mld_poly w1[MLD_K]);

#endif
