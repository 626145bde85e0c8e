/* K-PKE (FIPS 203, Algorithms 13-15) on vectors of k polynomials.  Vectors
 * marked "hat" live in the NTT domain.  The matrix Â is never held whole:
 * each row (of Â for key generation, of Â^T for encryption) is sampled
 * into k polynomials and consumed at once by mlkem_multiply_ntts_sum,
 * which returns sum_j Â[i, j] x v[j] with one factor R^-1 (Montgomery);
 * mlkem_ntt_inverse and mlkem_poly_from_mont_add remove that factor.
 * Secret intermediates are wiped before returning. */
#include <string.h>

#include "fips202.h"
#include "kpke.h"
#include "poly.h"

typedef struct {
    mlkem_poly p[MLKEM_K];
} polyvec;

/* memset through a volatile pointer, so that clearing a buffer that is
 * about to go out of scope cannot be optimised away. */
static void *(*const volatile wipe_memset)(void *, int, size_t) = memset;

static void wipe(void *p, size_t n)
{
    wipe_memset(p, 0, n);
}

/* PRF_eta(s, b) = SHAKE256(s || b, 64 eta), then SamplePolyCBD_eta
 * (Algorithm 8), as lines 9-16 of Algorithm 13 and 10-17 of Algorithm 14. */
static void sample_noise(mlkem_poly *f, const uint8_t s[MLKEM_SYM_BYTES],
                         uint8_t b, unsigned eta)
{
    uint8_t in[MLKEM_SYM_BYTES + 1];
    uint8_t prf[64 * 3];

    memcpy(in, s, MLKEM_SYM_BYTES);
    in[MLKEM_SYM_BYTES] = b;
    fips202_shake256(prf, 64 * eta, in, sizeof in);
    mlkem_sample_poly_cbd(f, prf, eta);
    wipe(in, sizeof in);
    wipe(prf, 64 * eta);
}

void mlkem_kpke_keygen(uint8_t ek[MLKEM_EK_BYTES], uint8_t dk[MLKEM_DK_PKE_BYTES],
                       const uint8_t d[MLKEM_SYM_BYTES])
{
    uint8_t seed[MLKEM_SYM_BYTES + 1], rho_sigma[64];
    const uint8_t *rho = rho_sigma, *sigma = rho_sigma + MLKEM_SYM_BYTES;
    polyvec a_row, s_hat, e_hat;
    mlkem_poly t_hat;
    uint8_t n = 0;
    unsigned i, j;

    /* (rho, sigma) = G(d || k): the byte k separates the three sets. */
    memcpy(seed, d, MLKEM_SYM_BYTES);
    seed[MLKEM_SYM_BYTES] = MLKEM_K;
    fips202_sha3_512(rho_sigma, seed, sizeof seed);

    for (i = 0; i < MLKEM_K; i++) {
        sample_noise(&s_hat.p[i], sigma, n++, MLKEM_ETA1);
    }
    for (i = 0; i < MLKEM_K; i++) {
        sample_noise(&e_hat.p[i], sigma, n++, MLKEM_ETA1);
    }
    for (i = 0; i < MLKEM_K; i++) {
        mlkem_ntt(&s_hat.p[i]);
        mlkem_ntt(&e_hat.p[i]);
    }

    /* t̂ = Â ∘ ŝ + ê, row by row; Â[i, j] = SampleNTT(rho || j || i). */
    for (i = 0; i < MLKEM_K; i++) {
        for (j = 0; j < MLKEM_K; j++) {
            mlkem_sample_ntt(&a_row.p[j], rho, (uint8_t)j, (uint8_t)i);
        }
        mlkem_multiply_ntts_sum(&t_hat, a_row.p, s_hat.p, MLKEM_K);
        mlkem_poly_from_mont_add(&t_hat, &e_hat.p[i]);
        mlkem_byte_encode12(ek + i * MLKEM_POLY_BYTES, &t_hat);
    }
    for (i = 0; i < MLKEM_K; i++) {
        mlkem_byte_encode12(dk + i * MLKEM_POLY_BYTES, &s_hat.p[i]);
    }
    memcpy(ek + MLKEM_DK_PKE_BYTES, rho, MLKEM_SYM_BYTES);

    wipe(seed, sizeof seed);
    wipe(rho_sigma, sizeof rho_sigma);
    wipe(&s_hat, sizeof s_hat);
    wipe(&e_hat, sizeof e_hat);
}

void mlkem_kpke_encrypt(uint8_t c[MLKEM_CT_BYTES], const uint8_t ek[MLKEM_EK_BYTES],
                        const uint8_t m[MLKEM_SYM_BYTES],
                        const uint8_t r[MLKEM_SYM_BYTES])
{
    const uint8_t *rho = ek + MLKEM_DK_PKE_BYTES;
    polyvec a_row, t_hat, y_hat;
    mlkem_poly u, e1, v, e2, mu;
    unsigned i, j;

    for (i = 0; i < MLKEM_K; i++) {
        mlkem_byte_decode12(&t_hat.p[i], ek + i * MLKEM_POLY_BYTES);
    }
    /* y: PRF counters 0..k-1; e1: k..2k-1; e2: 2k. */
    for (i = 0; i < MLKEM_K; i++) {
        sample_noise(&y_hat.p[i], r, (uint8_t)i, MLKEM_ETA1);
        mlkem_ntt(&y_hat.p[i]);
    }

    /* u = NTT^-1(Â^T ∘ ŷ) + e1, row i of Â^T being column i of Â:
     * Â[j, i] = SampleNTT(rho || i || j). */
    for (i = 0; i < MLKEM_K; i++) {
        for (j = 0; j < MLKEM_K; j++) {
            mlkem_sample_ntt(&a_row.p[j], rho, (uint8_t)i, (uint8_t)j);
        }
        mlkem_multiply_ntts_sum(&u, a_row.p, y_hat.p, MLKEM_K);
        mlkem_ntt_inverse(&u);
        sample_noise(&e1, r, (uint8_t)(MLKEM_K + i), MLKEM_ETA2);
        mlkem_poly_add(&u, &u, &e1);
        mlkem_compress_encode(c + i * 32 * MLKEM_DU, &u, MLKEM_DU);
    }

    /* v = NTT^-1(t̂^T ∘ ŷ) + e2 + mu, mu = Decompress_1(ByteDecode_1(m)). */
    mlkem_multiply_ntts_sum(&v, t_hat.p, y_hat.p, MLKEM_K);
    mlkem_ntt_inverse(&v);
    sample_noise(&e2, r, (uint8_t)(2 * MLKEM_K), MLKEM_ETA2);
    mlkem_decode_decompress(&mu, m, 1);
    mlkem_poly_add(&v, &v, &e2);
    mlkem_poly_add(&v, &v, &mu);
    mlkem_compress_encode(c + MLKEM_CT_U_BYTES, &v, MLKEM_DV);

    wipe(&y_hat, sizeof y_hat);
    wipe(&e1, sizeof e1);
    wipe(&e2, sizeof e2);
    wipe(&mu, sizeof mu);
    wipe(&u, sizeof u);
    wipe(&v, sizeof v);
}

void mlkem_kpke_decrypt(uint8_t m[MLKEM_SYM_BYTES], const uint8_t dk[MLKEM_DK_PKE_BYTES],
                        const uint8_t c[MLKEM_CT_BYTES])
{
    polyvec u_hat, s_hat;
    mlkem_poly v, w;
    unsigned i;

    for (i = 0; i < MLKEM_K; i++) {
        mlkem_decode_decompress(&u_hat.p[i], c + i * 32 * MLKEM_DU, MLKEM_DU);
        mlkem_ntt(&u_hat.p[i]);
        mlkem_byte_decode12(&s_hat.p[i], dk + i * MLKEM_POLY_BYTES);
    }

    /* w = v' - NTT^-1(ŝ^T ∘ NTT(u')), m = ByteEncode_1(Compress_1(w)) */
    mlkem_multiply_ntts_sum(&w, s_hat.p, u_hat.p, MLKEM_K);
    mlkem_ntt_inverse(&w);
    mlkem_decode_decompress(&v, c + MLKEM_CT_U_BYTES, MLKEM_DV);
    mlkem_poly_sub(&w, &v, &w);
    mlkem_compress_encode(m, &w, 1);

    wipe(&s_hat, sizeof s_hat);
    wipe(&u_hat, sizeof u_hat);
    wipe(&w, sizeof w);
}
