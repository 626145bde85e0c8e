/* ML-DSA key generation, signing and verification (FIPS 204, Algorithms
 * 2, 3, 6, 7, 8) and the NIST API on top of them.  Vectors are arrays of
 * polynomials.  Products with A go through the NTT domain: A-hat comes
 * out of ExpandA already there, the other factor is transformed with
 * mld_ntt, each row is one fused dot product (products summed in 64 bits,
 * one Montgomery reduction) and mld_ntt_inverse brings the row back.
 * Key generation and verification need each row of A-hat once and expand
 * it row by row; signing keeps the whole matrix for its retries.
 * Secrets are not wiped from the stack: this is a baseline for
 * measurement, constant-time in its arithmetic like the reference code,
 * but not otherwise hardened. */
#include <string.h>

#include "api.h"
#include "encode.h"
#include "fips202.h"
#include "ntt.h"
#include "poly.h"
#include "rng.h"
#include "rounding.h"
#include "sample.h"
#include "sign.h"

/* mu = H(tr || M', 64) with M' = 0 || |ctx| || ctx || M. */
static void message_representative(uint8_t mu[MLD_MU_BYTES], const uint8_t tr[MLD_TR_BYTES],
                                   const uint8_t *ctx, size_t ctxlen,
                                   const uint8_t *m, size_t mlen)
{
    uint8_t prefix[2];
    fips202_sponge h;

    prefix[0] = 0;
    prefix[1] = (uint8_t)ctxlen;
    fips202_shake256_init(&h);
    fips202_absorb(&h, tr, MLD_TR_BYTES);
    fips202_absorb(&h, prefix, sizeof prefix);
    fips202_absorb(&h, ctx, ctxlen);
    fips202_absorb(&h, m, mlen);
    fips202_finalize(&h);
    fips202_squeeze(&h, mu, MLD_MU_BYTES);
}

/* c~ = H(mu || w1Encode(w1), lambda / 4). */
static void commitment_hash(uint8_t ctilde[MLD_CTILDE_BYTES], const uint8_t mu[MLD_MU_BYTES],
                            const mld_poly w1[MLD_K])
{
    uint8_t packed[MLD_W1_PACKED_BYTES];
    fips202_sponge h;

    mld_w1_encode(packed, w1);
    fips202_shake256_init(&h);
    fips202_absorb(&h, mu, MLD_MU_BYTES);
    fips202_absorb(&h, packed, sizeof packed);
    fips202_finalize(&h);
    fips202_squeeze(&h, ctilde, MLD_CTILDE_BYTES);
}

/* Algorithm 6, ML-DSA.KeyGen_internal. */
void mld_keygen_internal(uint8_t pk[MLD_PK_BYTES], uint8_t sk[MLD_SK_BYTES],
                         const uint8_t xi[MLD_SEED_BYTES])
{
    uint8_t seed_in[MLD_SEED_BYTES + 2];
    uint8_t expanded[MLD_SEED_BYTES + MLD_RHOPRIME_BYTES + MLD_SEED_BYTES];
    const uint8_t *rho = expanded, *rhoprime = expanded + MLD_SEED_BYTES;
    const uint8_t *key = rhoprime + MLD_RHOPRIME_BYTES;
    uint8_t tr[MLD_TR_BYTES];
    mld_poly a_row[MLD_L];
    mld_poly s1[MLD_L], s1_hat[MLD_L], s2[MLD_K], t, t1[MLD_K], t0[MLD_K];
    unsigned i;

    /* (rho, rho', K) = H(xi || k || l, 128): the sizes are bound in. */
    memcpy(seed_in, xi, MLD_SEED_BYTES);
    seed_in[MLD_SEED_BYTES] = MLD_K;
    seed_in[MLD_SEED_BYTES + 1] = MLD_L;
    fips202_shake256(expanded, sizeof expanded, seed_in, sizeof seed_in);

    mld_expand_s(s1, s2, rhoprime);
    for (i = 0; i < MLD_L; i++) {
        s1_hat[i] = s1[i];
        mld_ntt(s1_hat[i].coeffs);
    }
    /* t = NTT^-1(A-hat o NTT(s1)) + s2, row by row, then Power2Round. */
    for (i = 0; i < MLD_K; i++) {
        mld_expand_a_row(a_row, rho, i);
        mld_poly_dot_montgomery(&t, a_row, s1_hat, MLD_L);
        mld_ntt_inverse(t.coeffs);
        mld_poly_add(&t, &t, &s2[i]);
        mld_poly_freeze(&t);
        mld_poly_power2round(&t1[i], &t0[i], &t);
    }
    mld_pk_encode(pk, rho, t1);
    fips202_shake256(tr, MLD_TR_BYTES, pk, MLD_PK_BYTES);
    mld_sk_encode(sk, rho, key, tr, s1, s2, t0);
}

/* One try of the signing loop (the body of Algorithm 7's while loop):
 * writes c~, z and h and returns 1 if they pass every bound, 0 if the
 * caller must try again with the next kappa.  The bounds are tested in
 * the order their inputs become available, so a rejected try stops as
 * early as it can; which test rejects does not change the result. */
static int sign_attempt(uint8_t ctilde[MLD_CTILDE_BYTES], mld_poly z[MLD_L], mld_poly h[MLD_K],
                        const mld_poly a_hat[MLD_K][MLD_L], const mld_poly s1_hat[MLD_L],
                        const mld_poly s2_hat[MLD_K], const mld_poly t0_hat[MLD_K],
                        const uint8_t mu[MLD_MU_BYTES],
                        const uint8_t rhopp[MLD_RHOPRIME_BYTES], unsigned kappa)
{
    mld_poly y_hat[MLD_L], w1[MLD_K], w0[MLD_K], c_hat, t;
    unsigned i, hint_ones = 0;

    /* y = ExpandMask(rho'', kappa); z holds y until z = y + <<c s1>>. */
    mld_expand_mask(z, rhopp, kappa);
    for (i = 0; i < MLD_L; i++) {
        y_hat[i] = z[i];
        mld_ntt(y_hat[i].coeffs);
    }
    /* w = NTT^-1(A-hat o NTT(y)), (w1, w0) = Decompose(w). */
    for (i = 0; i < MLD_K; i++) {
        mld_poly_dot_montgomery(&t, a_hat[i], y_hat, MLD_L);
        mld_ntt_inverse(t.coeffs);
        mld_poly_caddq(&t);
        mld_poly_decompose(&w1[i], &w0[i], &t);
    }
    commitment_hash(ctilde, mu, w1);
    mld_sample_in_ball(&c_hat, ctilde);
    mld_ntt(c_hat.coeffs);

    /* z = y + <<c s1>>; reject if ||z|| >= gamma1 - beta. */
    for (i = 0; i < MLD_L; i++) {
        mld_poly_pointwise_montgomery(&t, &c_hat, &s1_hat[i]);
        mld_ntt_inverse(t.coeffs);
        mld_poly_add(&z[i], &z[i], &t);
        mld_poly_center(&z[i]);
        if (mld_poly_exceeds(&z[i], MLD_GAMMA1 - MLD_BETA)) {
            return 0;
        }
    }
    /* r0 = LowBits(w - <<c s2>>) = w0 - <<c s2>> (exact, see rounding.h);
     * reject if ||r0|| >= gamma2 - beta. */
    for (i = 0; i < MLD_K; i++) {
        mld_poly_pointwise_montgomery(&t, &c_hat, &s2_hat[i]);
        mld_ntt_inverse(t.coeffs);
        mld_poly_sub(&w0[i], &w0[i], &t);
        mld_poly_center(&w0[i]);
        if (mld_poly_exceeds(&w0[i], MLD_GAMMA2 - MLD_BETA)) {
            return 0;
        }
    }
    /* <<c t0>>: reject if ||ct0|| >= gamma2; h = MakeHint(-ct0, w - cs2 + ct0),
     * rejected if it holds more than omega 1s. */
    for (i = 0; i < MLD_K; i++) {
        mld_poly_pointwise_montgomery(&t, &c_hat, &t0_hat[i]);
        mld_ntt_inverse(t.coeffs);
        mld_poly_center(&t);
        if (mld_poly_exceeds(&t, MLD_GAMMA2)) {
            return 0;
        }
        mld_poly_add(&w0[i], &w0[i], &t);
        hint_ones += mld_poly_make_hint(&h[i], &w0[i], &w1[i]);
    }
    return hint_ones <= MLD_OMEGA;
}

/* Algorithm 7, ML-DSA.Sign_internal. */
int mld_sign_internal(uint8_t sig[MLD_SIG_BYTES], const uint8_t sk[MLD_SK_BYTES],
                      const uint8_t *ctx, size_t ctxlen,
                      const uint8_t *m, size_t mlen,
                      const uint8_t rnd[MLD_SEED_BYTES])
{
    uint8_t rho[MLD_SEED_BYTES], key[MLD_SEED_BYTES], tr[MLD_TR_BYTES];
    uint8_t mu[MLD_MU_BYTES], rhopp[MLD_RHOPRIME_BYTES], ctilde[MLD_CTILDE_BYTES];
    mld_poly a_hat[MLD_K][MLD_L];
    mld_poly s1[MLD_L], s2[MLD_K], t0[MLD_K], z[MLD_L], h[MLD_K];
    fips202_sponge hctx;
    unsigned kappa, i;

    if (ctxlen > 255) {
        return -1;
    }
    mld_sk_decode(rho, key, tr, s1, s2, t0, sk);
    for (i = 0; i < MLD_L; i++) {
        mld_ntt(s1[i].coeffs);
    }
    for (i = 0; i < MLD_K; i++) {
        mld_ntt(s2[i].coeffs);
        mld_ntt(t0[i].coeffs);
    }
    mld_expand_a(a_hat, rho);
    message_representative(mu, tr, ctx, ctxlen, m, mlen);

    /* rho'' = H(K || rnd || mu, 64) */
    fips202_shake256_init(&hctx);
    fips202_absorb(&hctx, key, MLD_SEED_BYTES);
    fips202_absorb(&hctx, rnd, MLD_SEED_BYTES);
    fips202_absorb(&hctx, mu, MLD_MU_BYTES);
    fips202_finalize(&hctx);
    fips202_squeeze(&hctx, rhopp, MLD_RHOPRIME_BYTES);

    for (kappa = 0;; kappa += MLD_L) {
        if (sign_attempt(ctilde, z, h, (const mld_poly(*)[MLD_L])a_hat, s1, s2, t0,
                         mu, rhopp, kappa)) {
            break;
        }
    }
    mld_sig_encode(sig, ctilde, z, h);
    return 0;
}

/* Algorithm 8, ML-DSA.Verify_internal. */
int mld_verify_internal(const uint8_t pk[MLD_PK_BYTES],
                        const uint8_t *ctx, size_t ctxlen,
                        const uint8_t *m, size_t mlen,
                        const uint8_t sig[MLD_SIG_BYTES])
{
    uint8_t rho[MLD_SEED_BYTES], tr[MLD_TR_BYTES], mu[MLD_MU_BYTES];
    uint8_t ctilde[MLD_CTILDE_BYTES], ctilde2[MLD_CTILDE_BYTES];
    /* One row of A-hat with -NTT(c) after it, and NTT(z) with NTT(t1 2^d)
     * of the same row after it: w'_Approx's row is their dot product. */
    mld_poly a_row[MLD_L + 1], z_hat[MLD_L + 1];
    mld_poly t1[MLD_K], h[MLD_K], w1[MLD_K], w;
    unsigned i;

    if (ctxlen > 255) {
        return -1;
    }
    mld_pk_decode(rho, t1, pk);
    if (mld_sig_decode(ctilde, z_hat, h, sig) != 0) {
        return -1;
    }
    for (i = 0; i < MLD_L; i++) {
        if (mld_poly_exceeds(&z_hat[i], MLD_GAMMA1 - MLD_BETA)) {
            return -1;
        }
    }
    fips202_shake256(tr, MLD_TR_BYTES, pk, MLD_PK_BYTES);
    message_representative(mu, tr, ctx, ctxlen, m, mlen);
    mld_sample_in_ball(&a_row[MLD_L], ctilde);
    for (i = 0; i < MLD_N; i++) {
        a_row[MLD_L].coeffs[i] = -a_row[MLD_L].coeffs[i];
    }
    mld_ntt(a_row[MLD_L].coeffs);
    for (i = 0; i < MLD_L; i++) {
        mld_ntt(z_hat[i].coeffs);
    }

    /* w'_Approx = NTT^-1(A-hat o NTT(z) - NTT(c) o NTT(t1 2^d)), then
     * w1' = UseHint(h, w'_Approx), row by row. */
    for (i = 0; i < MLD_K; i++) {
        mld_expand_a_row(a_row, rho, i);
        z_hat[MLD_L] = t1[i];
        mld_poly_shift_d(&z_hat[MLD_L]);
        mld_ntt(z_hat[MLD_L].coeffs);
        mld_poly_dot_montgomery(&w, a_row, z_hat, MLD_L + 1);
        mld_ntt_inverse(w.coeffs);
        mld_poly_caddq(&w);
        mld_poly_use_hint(&w1[i], &w, &h[i]);
    }
    commitment_hash(ctilde2, mu, w1);
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
