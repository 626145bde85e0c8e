/* ML-DSA key generation, signing and verification (FIPS 204, Algorithms
 * 2, 3, 6, 7, 8) and the NIST API on top of them.  Vectors are arrays of
 * polynomials; the matrix A is kept in the NTT domain, as ExpandA yields
 * it.  Secrets are not wiped from the stack and nothing is hardened
 * against side channels: this is a readable baseline for measurement. */
#include <string.h>

#include "api.h"
#include "encode.h"
#include "fips202.h"
#include "poly.h"
#include "rng.h"
#include "rounding.h"
#include "sample.h"
#include "sign.h"

/* out = A-hat o v-hat, the NTT-domain matrix-vector product. */
static void matrix_times_vector(mld_poly out[MLD_K], const mld_poly a_hat[MLD_K][MLD_L],
                                const mld_poly v_hat[MLD_L])
{
    mld_poly t;
    int r, s;

    for (r = 0; r < MLD_K; r++) {
        mld_poly_pointwise(&out[r], &a_hat[r][0], &v_hat[0]);
        for (s = 1; s < MLD_L; s++) {
            mld_poly_pointwise(&t, &a_hat[r][s], &v_hat[s]);
            mld_poly_add(&out[r], &out[r], &t);
        }
    }
}

/* mu = H(tr || M', 64) with M' = 0 || |ctx| || ctx || M. */
static void message_representative(uint8_t mu[MLD_MU_BYTES], const uint8_t tr[MLD_TR_BYTES],
                                   const uint8_t *ctx, size_t ctxlen,
                                   const uint8_t *m, size_t mlen)
{
    uint8_t prefix[2] = { 0, (uint8_t)ctxlen };
    mld_shake_ctx h;

    mld_shake256_init(&h);
    mld_shake_absorb(&h, tr, MLD_TR_BYTES);
    mld_shake_absorb(&h, prefix, sizeof prefix);
    mld_shake_absorb(&h, ctx, ctxlen);
    mld_shake_absorb(&h, m, mlen);
    mld_shake_finalize(&h);
    mld_shake_squeeze(&h, mu, MLD_MU_BYTES);
}

/* c~ = H(mu || w1Encode(w1), lambda / 4). */
static void commitment_hash(uint8_t ctilde[MLD_CTILDE_BYTES], const uint8_t mu[MLD_MU_BYTES],
                            const mld_poly w1[MLD_K])
{
    uint8_t packed[MLD_W1_PACKED_BYTES];
    mld_shake_ctx h;

    mld_w1_encode(packed, w1);
    mld_shake256_init(&h);
    mld_shake_absorb(&h, mu, MLD_MU_BYTES);
    mld_shake_absorb(&h, packed, sizeof packed);
    mld_shake_finalize(&h);
    mld_shake_squeeze(&h, ctilde, MLD_CTILDE_BYTES);
}

void mld_keygen_internal(uint8_t pk[MLD_PK_BYTES], uint8_t sk[MLD_SK_BYTES],
                         const uint8_t xi[MLD_SEED_BYTES])
{
    uint8_t seed_in[MLD_SEED_BYTES + 2];
    uint8_t expanded[MLD_SEED_BYTES + MLD_RHOPRIME_BYTES + MLD_SEED_BYTES];
    const uint8_t *rho = expanded, *rhoprime = expanded + MLD_SEED_BYTES;
    const uint8_t *key = rhoprime + MLD_RHOPRIME_BYTES;
    uint8_t tr[MLD_TR_BYTES];
    mld_poly a_hat[MLD_K][MLD_L];
    mld_poly s1[MLD_L], s1_hat[MLD_L], s2[MLD_K], t[MLD_K], t1[MLD_K], t0[MLD_K];
    int i;

    /* (rho, rho', K) = H(xi || k || l, 128): the sizes are bound in. */
    memcpy(seed_in, xi, MLD_SEED_BYTES);
    seed_in[MLD_SEED_BYTES] = MLD_K;
    seed_in[MLD_SEED_BYTES + 1] = MLD_L;
    mld_shake256(expanded, sizeof expanded, seed_in, sizeof seed_in);

    mld_expand_a(a_hat, rho);
    mld_expand_s(s1, s2, rhoprime);
    /* t = NTT^-1(A-hat o NTT(s1)) + s2 */
    for (i = 0; i < MLD_L; i++) {
        s1_hat[i] = s1[i];
        mld_poly_ntt(&s1_hat[i]);
    }
    matrix_times_vector(t, (const mld_poly(*)[MLD_L])a_hat, s1_hat);
    for (i = 0; i < MLD_K; i++) {
        mld_poly_invntt(&t[i]);
        mld_poly_add(&t[i], &t[i], &s2[i]);
        mld_poly_power2round(&t1[i], &t0[i], &t[i]);
    }
    mld_pk_encode(pk, rho, t1);
    mld_shake256(tr, MLD_TR_BYTES, pk, MLD_PK_BYTES);
    mld_sk_encode(sk, rho, key, tr, s1, s2, t0);
}

/* One try of the signing loop (the body of Algorithm 7's while loop):
 * writes c~, z and h and returns 1 if they pass every bound, 0 if the
 * caller must try again with the next kappa. */
static int sign_attempt(uint8_t ctilde[MLD_CTILDE_BYTES], mld_poly z[MLD_L], mld_poly h[MLD_K],
                        const mld_poly a_hat[MLD_K][MLD_L], const mld_poly s1_hat[MLD_L],
                        const mld_poly s2_hat[MLD_K], const mld_poly t0_hat[MLD_K],
                        const uint8_t mu[MLD_MU_BYTES],
                        const uint8_t rhopp[MLD_RHOPRIME_BYTES], unsigned kappa)
{
    mld_poly y_hat[MLD_L], w[MLD_K], w1[MLD_K], c, r, tmp;
    int i, hint_ones = 0;

    mld_expand_mask(z, rhopp, kappa);  /* z holds y until z = y + cs1 */
    for (i = 0; i < MLD_L; i++) {
        y_hat[i] = z[i];
        mld_poly_ntt(&y_hat[i]);
    }
    matrix_times_vector(w, a_hat, y_hat);
    for (i = 0; i < MLD_K; i++) {
        mld_poly_invntt(&w[i]);
        mld_poly_highbits(&w1[i], &w[i]);
    }
    commitment_hash(ctilde, mu, w1);
    mld_sample_in_ball(&c, ctilde);
    mld_poly_ntt(&c);

    /* z = y + <<c s1>>, rejected if ||z|| >= gamma1 - beta. */
    for (i = 0; i < MLD_L; i++) {
        mld_poly_pointwise(&tmp, &c, &s1_hat[i]);
        mld_poly_invntt(&tmp);
        mld_poly_add(&z[i], &z[i], &tmp);
        if (!mld_poly_norm_below(&z[i], MLD_GAMMA1 - MLD_BETA)) {
            return 0;
        }
    }
    for (i = 0; i < MLD_K; i++) {
        /* r = w - <<c s2>>; reject if ||LowBits(r)|| >= gamma2 - beta. */
        mld_poly_pointwise(&tmp, &c, &s2_hat[i]);
        mld_poly_invntt(&tmp);
        mld_poly_sub(&r, &w[i], &tmp);
        mld_poly_lowbits(&tmp, &r);
        if (!mld_poly_norm_below(&tmp, MLD_GAMMA2 - MLD_BETA)) {
            return 0;
        }
        /* <<c t0>>: reject if ||ct0|| >= gamma2, then the hint. */
        mld_poly_pointwise(&tmp, &c, &t0_hat[i]);
        mld_poly_invntt(&tmp);
        if (!mld_poly_norm_below(&tmp, MLD_GAMMA2)) {
            return 0;
        }
        mld_poly_add(&r, &r, &tmp);
        hint_ones += mld_poly_make_hint(&h[i], &r, &tmp);
    }
    return hint_ones <= MLD_OMEGA;
}

int mld_sign_internal(uint8_t sig[MLD_SIG_BYTES], const uint8_t sk[MLD_SK_BYTES],
                      const uint8_t *ctx, size_t ctxlen,
                      const uint8_t *m, size_t mlen,
                      const uint8_t rnd[MLD_SEED_BYTES])
{
    uint8_t rho[MLD_SEED_BYTES], key[MLD_SEED_BYTES], tr[MLD_TR_BYTES];
    uint8_t mu[MLD_MU_BYTES], rhopp[MLD_RHOPRIME_BYTES], ctilde[MLD_CTILDE_BYTES];
    mld_poly a_hat[MLD_K][MLD_L];
    mld_poly s1[MLD_L], s2[MLD_K], t0[MLD_K], z[MLD_L], h[MLD_K];
    mld_shake_ctx hctx;
    unsigned kappa;
    int i;

    if (ctxlen > 255) {
        return -1;
    }
    mld_sk_decode(rho, key, tr, s1, s2, t0, sk);
    for (i = 0; i < MLD_L; i++) {
        mld_poly_ntt(&s1[i]);
    }
    for (i = 0; i < MLD_K; i++) {
        mld_poly_ntt(&s2[i]);
        mld_poly_ntt(&t0[i]);
    }
    mld_expand_a(a_hat, rho);
    message_representative(mu, tr, ctx, ctxlen, m, mlen);

    /* rho'' = H(K || rnd || mu, 64) */
    mld_shake256_init(&hctx);
    mld_shake_absorb(&hctx, key, MLD_SEED_BYTES);
    mld_shake_absorb(&hctx, rnd, MLD_SEED_BYTES);
    mld_shake_absorb(&hctx, mu, MLD_MU_BYTES);
    mld_shake_finalize(&hctx);
    mld_shake_squeeze(&hctx, rhopp, MLD_RHOPRIME_BYTES);

    for (kappa = 0;; kappa += MLD_L) {
        if (sign_attempt(ctilde, z, h, (const mld_poly(*)[MLD_L])a_hat, s1, s2, t0,
                         mu, rhopp, kappa)) {
            break;
        }
    }
    mld_sig_encode(sig, ctilde, z, h);
    return 0;
}

int mld_verify_internal(const uint8_t pk[MLD_PK_BYTES],
                        const uint8_t *ctx, size_t ctxlen,
                        const uint8_t *m, size_t mlen,
                        const uint8_t sig[MLD_SIG_BYTES])
{
    uint8_t rho[MLD_SEED_BYTES], tr[MLD_TR_BYTES], mu[MLD_MU_BYTES];
    uint8_t ctilde[MLD_CTILDE_BYTES], ctilde2[MLD_CTILDE_BYTES];
    mld_poly a_hat[MLD_K][MLD_L];
    mld_poly t1[MLD_K], z[MLD_L], h[MLD_K], w[MLD_K], c, tmp;
    int i;

    if (ctxlen > 255) {
        return -1;
    }
    mld_pk_decode(rho, t1, pk);
    if (mld_sig_decode(ctilde, z, h, sig) != 0) {
        return -1;
    }
    for (i = 0; i < MLD_L; i++) {
        if (!mld_poly_norm_below(&z[i], MLD_GAMMA1 - MLD_BETA)) {
            return -1;
        }
    }
    mld_expand_a(a_hat, rho);
    mld_shake256(tr, MLD_TR_BYTES, pk, MLD_PK_BYTES);
    message_representative(mu, tr, ctx, ctxlen, m, mlen);
    mld_sample_in_ball(&c, ctilde);
    mld_poly_ntt(&c);

    /* w'_Approx = NTT^-1(A-hat o NTT(z) - NTT(c) o NTT(t1 * 2^d)) */
    for (i = 0; i < MLD_L; i++) {
        mld_poly_ntt(&z[i]);
    }
    matrix_times_vector(w, (const mld_poly(*)[MLD_L])a_hat, z);
    for (i = 0; i < MLD_K; i++) {
        mld_poly_shift_d(&t1[i]);
        mld_poly_ntt(&t1[i]);
        mld_poly_pointwise(&tmp, &c, &t1[i]);
        mld_poly_sub(&w[i], &w[i], &tmp);
        mld_poly_invntt(&w[i]);
        mld_poly_use_hint(&w[i], &h[i], &w[i]);
    }
    commitment_hash(ctilde2, mu, w);
    return memcmp(ctilde, ctilde2, MLD_CTILDE_BYTES) == 0 ? 0 : -1;
}

/* Algorithms 1 (ML-DSA.KeyGen), 2 and 3 (ML-DSA.Sign, ML-DSA.Verify) with
 * the empty context, behind the NIST API. */

int crypto_sign_keypair(unsigned char *pk, unsigned char *sk)
{
    uint8_t xi[MLD_SEED_BYTES];

    if (randombytes(xi, sizeof xi) != 0) {
        return -1;
    }
    mld_keygen_internal(pk, sk, xi);
    return 0;
}

int crypto_sign_signature(unsigned char *sig, unsigned long long *siglen,
                          const unsigned char *m, unsigned long long mlen,
                          const unsigned char *sk)
{
    uint8_t rnd[MLD_SEED_BYTES];

    if (randombytes(rnd, sizeof rnd) != 0 ||
        mld_sign_internal(sig, sk, NULL, 0, m, (size_t)mlen, rnd) != 0) {
        return -1;
    }
    *siglen = CRYPTO_BYTES;
    return 0;
}

int crypto_sign_verify(const unsigned char *sig, unsigned long long siglen,
                       const unsigned char *m, unsigned long long mlen,
                       const unsigned char *pk)
{
    if (siglen != CRYPTO_BYTES) {
        return -1;
    }
    return mld_verify_internal(pk, NULL, 0, m, (size_t)mlen, sig);
}

int crypto_sign(unsigned char *sm, unsigned long long *smlen,
                const unsigned char *m, unsigned long long mlen,
                const unsigned char *sk)
{
    unsigned long long siglen;

    /* m may lie inside sm: move it into place before signing it there. */
    if (mlen > 0) {
        memmove(sm + CRYPTO_BYTES, m, (size_t)mlen);
    }
    if (crypto_sign_signature(sm, &siglen, sm + CRYPTO_BYTES, mlen, sk) != 0) {
        return -1;
    }
    *smlen = siglen + mlen;
    return 0;
}

int crypto_sign_open(unsigned char *m, unsigned long long *mlen,
                     const unsigned char *sm, unsigned long long smlen,
                     const unsigned char *pk)
{
    if (smlen < CRYPTO_BYTES ||
        crypto_sign_verify(sm, CRYPTO_BYTES, sm + CRYPTO_BYTES, smlen - CRYPTO_BYTES, pk) != 0) {
        *mlen = 0;
        return -1;
    }
    *mlen = smlen - CRYPTO_BYTES;
    if (*mlen > 0) {
        memmove(m, sm + CRYPTO_BYTES, (size_t)*mlen);
    }
    return 0;
}
