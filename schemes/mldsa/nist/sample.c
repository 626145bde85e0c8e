/* Rejection samplers and expansion functions of the in-tree ML-DSA
 * (FIPS 204, Algorithms 14, 15, 29-34).  Each reads one SHAKE stream a few
 * bytes at a time, exactly in the order the standard does, so the
 * polynomials match those of any conforming implementation. */
#include <string.h>

#include "encode.h"
#include "fips202.h"
#include "sample.h"

void mld_sample_in_ball(mld_poly *c, const uint8_t ctilde[MLD_CTILDE_BYTES])
{
    mld_shake_ctx ctx;
    uint8_t s[8], j;
    uint64_t signs = 0;
    int i, k;

    mld_shake256_init(&ctx);
    mld_shake_absorb(&ctx, ctilde, MLD_CTILDE_BYTES);
    mld_shake_finalize(&ctx);
    /* The first 64 bits give the signs, least significant bit first. */
    mld_shake_squeeze(&ctx, s, sizeof s);
    for (k = 0; k < 8; k++) {
        signs |= (uint64_t)s[k] << (8 * k);
    }
    memset(c->coeffs, 0, sizeof c->coeffs);
    for (i = MLD_N - MLD_TAU; i < MLD_N; i++) {
        do {
            mld_shake_squeeze(&ctx, &j, 1);
        } while (j > i);
        c->coeffs[i] = c->coeffs[j];
        c->coeffs[j] = (signs & 1) ? MLD_Q - 1 : 1;
        signs >>= 1;
    }
}

/* Algorithm 14, CoeffFromThreeBytes: a 23-bit candidate, or -1 if >= q. */
static int32_t coeff_from_three_bytes(const uint8_t b[3])
{
    int32_t z = ((int32_t)(b[2] & 0x7F) << 16) | ((int32_t)b[1] << 8) | b[0];

    return z < MLD_Q ? z : -1;
}

/* Algorithm 30, RejNTTPoly: uniform coefficients mod q from SHAKE128. */
static void rej_ntt_poly(mld_poly *a, const uint8_t seed[MLD_SEED_BYTES + 2])
{
    mld_shake_ctx ctx;
    uint8_t b[3];
    int j = 0;

    mld_shake128_init(&ctx);
    mld_shake_absorb(&ctx, seed, MLD_SEED_BYTES + 2);
    mld_shake_finalize(&ctx);
    while (j < MLD_N) {
        int32_t z;
        mld_shake_squeeze(&ctx, b, 3);
        if ((z = coeff_from_three_bytes(b)) >= 0) {
            a->coeffs[j++] = z;
        }
    }
}

/* Algorithm 15, CoeffFromHalfByte: a value in [-eta, eta], or a value
 * outside it (eta + 1) to reject the half byte. */
static int32_t coeff_from_half_byte(unsigned b)
{
#if MLD_ETA == 2
    return b < 15 ? 2 - (int32_t)(b % 5) : MLD_ETA + 1;
#else
    return b < 9 ? 4 - (int32_t)b : MLD_ETA + 1;
#endif
}

/* Algorithm 31, RejBoundedPoly: coefficients in [-eta, eta] from SHAKE256,
 * two candidates per byte, low half first. */
static void rej_bounded_poly(mld_poly *a, const uint8_t seed[MLD_RHOPRIME_BYTES + 2])
{
    mld_shake_ctx ctx;
    uint8_t z;
    int j = 0;

    mld_shake256_init(&ctx);
    mld_shake_absorb(&ctx, seed, MLD_RHOPRIME_BYTES + 2);
    mld_shake_finalize(&ctx);
    while (j < MLD_N) {
        int32_t z0, z1;
        mld_shake_squeeze(&ctx, &z, 1);
        z0 = coeff_from_half_byte(z & 0x0F);
        z1 = coeff_from_half_byte(z >> 4);
        if (z0 <= MLD_ETA) {
            a->coeffs[j++] = mld_mod_q(z0);
        }
        if (z1 <= MLD_ETA && j < MLD_N) {
            a->coeffs[j++] = mld_mod_q(z1);
        }
    }
}

void mld_expand_a(mld_poly a_hat[MLD_K][MLD_L], const uint8_t rho[MLD_SEED_BYTES])
{
    uint8_t seed[MLD_SEED_BYTES + 2];
    int r, s;

    memcpy(seed, rho, MLD_SEED_BYTES);
    for (r = 0; r < MLD_K; r++) {
        for (s = 0; s < MLD_L; s++) {
            seed[MLD_SEED_BYTES] = (uint8_t)s;
            seed[MLD_SEED_BYTES + 1] = (uint8_t)r;
            rej_ntt_poly(&a_hat[r][s], seed);
        }
    }
}

void mld_expand_s(mld_poly s1[MLD_L], mld_poly s2[MLD_K],
                  const uint8_t rhoprime[MLD_RHOPRIME_BYTES])
{
    uint8_t seed[MLD_RHOPRIME_BYTES + 2];
    int r;

    memcpy(seed, rhoprime, MLD_RHOPRIME_BYTES);
    seed[MLD_RHOPRIME_BYTES + 1] = 0;
    for (r = 0; r < MLD_L + MLD_K; r++) {
        seed[MLD_RHOPRIME_BYTES] = (uint8_t)r;
        rej_bounded_poly(r < MLD_L ? &s1[r] : &s2[r - MLD_L], seed);
    }
}

void mld_expand_mask(mld_poly y[MLD_L], const uint8_t rhoprime[MLD_RHOPRIME_BYTES],
                     unsigned kappa)
{
    uint8_t seed[MLD_RHOPRIME_BYTES + 2];
    uint8_t v[MLD_POLY_BYTES(MLD_Z_BITS)];
    int r;

    memcpy(seed, rhoprime, MLD_RHOPRIME_BYTES);
    for (r = 0; r < MLD_L; r++) {
        unsigned n = kappa + (unsigned)r;
        seed[MLD_RHOPRIME_BYTES] = (uint8_t)(n & 0xFF);
        seed[MLD_RHOPRIME_BYTES + 1] = (uint8_t)(n >> 8);
        mld_shake256(v, sizeof v, seed, sizeof seed);
        mld_bit_unpack(&y[r], v, MLD_GAMMA1, MLD_Z_BITS);
    }
}
