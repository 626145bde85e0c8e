/* Polynomials of R_q = Z_q[X]/(X^256 + 1) and of its NTT domain T_q, and
 * the algorithms of FIPS 203 that act on polynomials: NTT and NTT^-1
 * (Algorithms 9, 10), MultiplyNTTs with BaseCaseMultiply (11, 12),
 * SampleNTT (7), SamplePolyCBD (8), ByteEncode/ByteDecode (5, 6) and
 * Compress/Decompress (section 4.2.1).
 *
 * Coefficients are int16_t and are NOT kept in [0, q): each function
 * states the bounds it accepts and returns, and reductions (16-bit
 * Montgomery and Barrett, see poly.c) are applied only where those bounds
 * would otherwise be exceeded.  The encoders reduce to [0, q) themselves. */
#ifndef MLKEM_POLY_H
#define MLKEM_POLY_H

#include <stdint.h>

#include "params.h"

typedef struct {
    int16_t c[MLKEM_N];
} mlkem_poly;

/* r = a + b and r = a - b, coefficient-wise, no reduction: the caller
 * keeps the sums inside int16_t (every use in kpke.c stays below 3q). */
void mlkem_poly_add(mlkem_poly *r, const mlkem_poly *a, const mlkem_poly *b);
void mlkem_poly_sub(mlkem_poly *r, const mlkem_poly *a, const mlkem_poly *b);

/* Algorithm 9, NTT, in place.  Input |f_i| <= q; output |f_i| <= (q-1)/2. */
void mlkem_ntt(mlkem_poly *f);

/* Algorithm 10, NTT^-1, in place, times the Montgomery factor R = 2^16:
 * it undoes the R^-1 that mlkem_multiply_ntts_sum leaves.  Input
 * |f_i| < q; output |f_i| < q. */
void mlkem_ntt_inverse(mlkem_poly *f);

/* Algorithms 11 and 12, summed over a vector: r = R^-1 * sum_j a[j] x b[j]
 * in T_q, for n <= 4 pairs (the entries of Â ∘ v or v^T ∘ w).  Inputs
 * |a_i|, |b_i| < q; output |r_i| < q.  r may alias neither a nor b. */
void mlkem_multiply_ntts_sum(mlkem_poly *r, const mlkem_poly *a,
                             const mlkem_poly *b, unsigned n);

/* r = R * r + e (mod q): turns an mlkem_multiply_ntts_sum result into the
 * plain domain and adds e, for t̂ = Â ∘ ŝ + ê.  Input |r_i| < q,
 * |e_i| <= (q-1)/2; output |r_i| < 2q. */
void mlkem_poly_from_mont_add(mlkem_poly *r, const mlkem_poly *e);

/* Algorithm 7, SampleNTT: Â[.,.] from the 34-byte seed rho || b0 || b1
 * (FIPS 203 writes rho || j || i for entry [i, j]).  Output in [0, q).
 * The matrix is public, so the rejection loop may take a data-dependent
 * number of SHAKE128 blocks. */
void mlkem_sample_ntt(mlkem_poly *a, const uint8_t rho[MLKEM_SYM_BYTES],
                      uint8_t b0, uint8_t b1);

/* Algorithm 8, SamplePolyCBD_eta, from 64 * eta bytes of PRF output,
 * eta in {2, 3}.  Output in [-eta, eta]. */
void mlkem_sample_poly_cbd(mlkem_poly *f, const uint8_t *b, unsigned eta);

/* ByteEncode_12 (Algorithm 5) of f mod q: 384 bytes.  Any int16_t input. */
void mlkem_byte_encode12(uint8_t out[MLKEM_POLY_BYTES], const mlkem_poly *f);
/* ByteDecode_12 (Algorithm 6): values mod q, as FIPS 203 defines it; output
 * in [0, q). */
void mlkem_byte_decode12(mlkem_poly *f, const uint8_t in[MLKEM_POLY_BYTES]);
/* Section 7.2's modulus check on one 384-byte slice of ek: 1 when every
 * 12-bit value is below q, i.e. ByteEncode_12(ByteDecode_12(x)) = x. */
int mlkem_byte_decode12_is_canonical(const uint8_t in[MLKEM_POLY_BYTES]);

/* ByteEncode_d(Compress_d(f mod q)), d in {1, 4, 5, 10, 11}: 32 * d bytes.
 * Any int16_t input. */
void mlkem_compress_encode(uint8_t *out, const mlkem_poly *f, unsigned d);
/* Decompress_d(ByteDecode_d(in)), d in {1, 4, 5, 10, 11}; output in [0, q). */
void mlkem_decode_decompress(mlkem_poly *f, const uint8_t *in, unsigned d);

#endif
