/* Polynomials of R_q = Z_q[X]/(X^256 + 1) and of its NTT domain T_q, and
 * the algorithms of FIPS 203 that act on one polynomial: arithmetic mod q,
 * NTT and NTT^-1 (Algorithms 9, 10), MultiplyNTTs (11), SampleNTT (7),
 * SamplePolyCBD (8), ByteEncode/ByteDecode (5, 6), Compress/Decompress
 * (section 4.2.1).  Every coefficient is kept fully reduced, in [0, q). */
#ifndef MLKEM_POLY_H
#define MLKEM_POLY_H

#include <stdint.h>

#include "params.h"

typedef struct {
    uint16_t c[MLKEM_N];
} mlkem_poly;

void mlkem_poly_add(mlkem_poly *r, const mlkem_poly *a, const mlkem_poly *b);
void mlkem_poly_sub(mlkem_poly *r, const mlkem_poly *a, const mlkem_poly *b);

void mlkem_ntt(mlkem_poly *f);
void mlkem_ntt_inverse(mlkem_poly *f);
/* r = a x b in T_q (r may alias neither a nor b). */
void mlkem_multiply_ntts(mlkem_poly *r, const mlkem_poly *a, const mlkem_poly *b);

/* Â[i, j] from rho || j || i; the matrix is public, so this rejection
 * sampler may take a data-dependent number of SHAKE128 blocks. */
void mlkem_sample_ntt(mlkem_poly *a, const uint8_t rho[MLKEM_SYM_BYTES],
                      uint8_t j, uint8_t i);
/* D_eta(R_q) from 64 * eta bytes of PRF output, eta in {2, 3}. */
void mlkem_sample_cbd(mlkem_poly *f, const uint8_t *b, unsigned eta);

/* ByteEncode_d / ByteDecode_d, 1 <= d <= 12: 32 * d bytes.  ByteDecode_12
 * reduces each coefficient mod q, as FIPS 203 defines it. */
void mlkem_byte_encode(uint8_t *out, const mlkem_poly *f, unsigned d);
void mlkem_byte_decode(mlkem_poly *f, const uint8_t *in, unsigned d);

/* Compress_d / Decompress_d on every coefficient, 1 <= d <= 11. */
void mlkem_compress(mlkem_poly *f, unsigned d);
void mlkem_decompress(mlkem_poly *f, unsigned d);

#endif
