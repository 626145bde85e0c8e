/* K-PKE (FIPS 203, Algorithms 13-15) on vectors of k polynomials.  Vectors
 * marked "hat" live in the NTT domain.  Secret intermediates are wiped
 * before returning. */
#include <string.h>

#include "fips202.h"
#include "kpke.h"
#include "poly.h"

typedef struct {
    mlkem_poly p[MLKEM_K];
} polyvec;

/* The matrix Â, entry [i][j] = SampleNTT(rho || j || i). */
typedef struct {
    mlkem_poly a[MLKEM_K][MLKEM_K];
} matrix;

static void wipe(void *p, size_t n)
{
    volatile uint8_t *v = (volatile uint8_t *)p;

    while (n--) {
        *v++ = 0;
    }
}

static void generate_matrix(matrix *a_hat, const uint8_t rho[MLKEM_SYM_BYTES])
{
    unsigned i, j;

    for (i = 0; i < MLKEM_K; i++) {
        for (j = 0; j < MLKEM_K; j++) {
            mlkem_sample_ntt(&a_hat->a[i][j], rho, (uint8_t)j, (uint8_t)i);
        }
    }
}

/* PRF_eta(s, b) = SHAKE256(s || b, 64 eta), then SamplePolyCBD_eta. */
static void sample_noise(mlkem_poly *f, const uint8_t s[MLKEM_SYM_BYTES],
                         uint8_t b, unsigned eta)
{
    uint8_t in[MLKEM_SYM_BYTES + 1];
    uint8_t prf[64 * 3];

    memcpy(in, s, MLKEM_SYM_BYTES);
    in[MLKEM_SYM_BYTES] = b;
    mlkem_shake256(prf, 64 * eta, in, sizeof in);
    mlkem_sample_cbd(f, prf, eta);
    wipe(in, sizeof in);
    wipe(prf, sizeof prf);
}

/* r = sum_j a[j] x b[j] in T_q. */
static void inner_product(mlkem_poly *r, const mlkem_poly *const a[MLKEM_K],
                          const polyvec *b)
{
    mlkem_poly t;
    unsigned j;

    mlkem_multiply_ntts(r, a[0], &b->p[0]);
    for (j = 1; j < MLKEM_K; j++) {
        mlkem_multiply_ntts(&t, a[j], &b->p[j]);
        mlkem_poly_add(r, r, &t);
    }
    wipe(&t, sizeof t);
}

static void polyvec_ntt(polyvec *v)
{
    unsigned i;

    for (i = 0; i < MLKEM_K; i++) {
        mlkem_ntt(&v->p[i]);
    }
}

void mlkem_kpke_keygen(uint8_t ek[MLKEM_EK_BYTES], uint8_t dk[MLKEM_DK_PKE_BYTES],
                       const uint8_t d[MLKEM_SYM_BYTES])
{
    uint8_t seed[MLKEM_SYM_BYTES + 1], rho_sigma[64];
    const uint8_t *rho = rho_sigma, *sigma = rho_sigma + MLKEM_SYM_BYTES;
    matrix a_hat;
    polyvec s_hat, e_hat, t_hat;
    uint8_t n = 0;
    unsigned i, j;

    /* (rho, sigma) = G(d || k): the byte k separates the three sets. */
    memcpy(seed, d, MLKEM_SYM_BYTES);
    seed[MLKEM_SYM_BYTES] = MLKEM_K;
    mlkem_sha3_512(rho_sigma, seed, sizeof seed);

    generate_matrix(&a_hat, rho);
    for (i = 0; i < MLKEM_K; i++) {
        sample_noise(&s_hat.p[i], sigma, n++, MLKEM_ETA1);
    }
    for (i = 0; i < MLKEM_K; i++) {
        sample_noise(&e_hat.p[i], sigma, n++, MLKEM_ETA1);
    }
    polyvec_ntt(&s_hat);
    polyvec_ntt(&e_hat);

    /* t̂ = Â ∘ ŝ + ê */
    for (i = 0; i < MLKEM_K; i++) {
        const mlkem_poly *row[MLKEM_K];

        for (j = 0; j < MLKEM_K; j++) {
            row[j] = &a_hat.a[i][j];
        }
        inner_product(&t_hat.p[i], row, &s_hat);
        mlkem_poly_add(&t_hat.p[i], &t_hat.p[i], &e_hat.p[i]);
    }

    for (i = 0; i < MLKEM_K; i++) {
        mlkem_byte_encode(ek + i * MLKEM_POLY_BYTES, &t_hat.p[i], 12);
        mlkem_byte_encode(dk + i * MLKEM_POLY_BYTES, &s_hat.p[i], 12);
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
    matrix a_hat;
    polyvec t_hat, y_hat, e1, u;
    mlkem_poly e2, mu, v;
    const mlkem_poly *t_col[MLKEM_K];
    uint8_t n = 0;
    unsigned i, j;

    for (i = 0; i < MLKEM_K; i++) {
        mlkem_byte_decode(&t_hat.p[i], ek + i * MLKEM_POLY_BYTES, 12);
        t_col[i] = &t_hat.p[i];
    }
    generate_matrix(&a_hat, ek + MLKEM_DK_PKE_BYTES);

    for (i = 0; i < MLKEM_K; i++) {
        sample_noise(&y_hat.p[i], r, n++, MLKEM_ETA1);
    }
    for (i = 0; i < MLKEM_K; i++) {
        sample_noise(&e1.p[i], r, n++, MLKEM_ETA2);
    }
    sample_noise(&e2, r, n, MLKEM_ETA2);
    polyvec_ntt(&y_hat);

    /* u = NTT^-1(Â^T ∘ ŷ) + e1: row i of Â^T is column i of Â. */
    for (i = 0; i < MLKEM_K; i++) {
        const mlkem_poly *col[MLKEM_K];

        for (j = 0; j < MLKEM_K; j++) {
            col[j] = &a_hat.a[j][i];
        }
        inner_product(&u.p[i], col, &y_hat);
        mlkem_ntt_inverse(&u.p[i]);
        mlkem_poly_add(&u.p[i], &u.p[i], &e1.p[i]);
    }

    /* v = NTT^-1(t̂^T ∘ ŷ) + e2 + mu, mu = Decompress_1(ByteDecode_1(m)). */
    mlkem_byte_decode(&mu, m, 1);
    mlkem_decompress(&mu, 1);
    inner_product(&v, t_col, &y_hat);
    mlkem_ntt_inverse(&v);
    mlkem_poly_add(&v, &v, &e2);
    mlkem_poly_add(&v, &v, &mu);

    for (i = 0; i < MLKEM_K; i++) {
        mlkem_compress(&u.p[i], MLKEM_DU);
        mlkem_byte_encode(c + i * 32 * MLKEM_DU, &u.p[i], MLKEM_DU);
    }
    mlkem_compress(&v, MLKEM_DV);
    mlkem_byte_encode(c + MLKEM_CT_U_BYTES, &v, MLKEM_DV);

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
    const mlkem_poly *s_row[MLKEM_K];
    unsigned i;

    for (i = 0; i < MLKEM_K; i++) {
        mlkem_byte_decode(&u_hat.p[i], c + i * 32 * MLKEM_DU, MLKEM_DU);
        mlkem_decompress(&u_hat.p[i], MLKEM_DU);
        mlkem_byte_decode(&s_hat.p[i], dk + i * MLKEM_POLY_BYTES, 12);
        s_row[i] = &s_hat.p[i];
    }
    mlkem_byte_decode(&v, c + MLKEM_CT_U_BYTES, MLKEM_DV);
    mlkem_decompress(&v, MLKEM_DV);

    /* w = v' - NTT^-1(ŝ^T ∘ NTT(u')) */
    polyvec_ntt(&u_hat);
    inner_product(&w, s_row, &u_hat);
    mlkem_ntt_inverse(&w);
    mlkem_poly_sub(&w, &v, &w);

    mlkem_compress(&w, 1);
    mlkem_byte_encode(m, &w, 1);

    wipe(&s_hat, sizeof s_hat);
    wipe(&u_hat, sizeof u_hat);
    wipe(&w, sizeof w);
}
