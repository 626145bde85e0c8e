/* Rejection samplers and expansion functions of the in-tree ML-DSA
 * (FIPS 204, Algorithms 14, 15, 29-34), on whole SHAKE blocks.
 *
 * The rejections of RejNTTPoly and SampleInBall depend on public data
 * only (rho, c~).  RejBoundedPoly reads secret bytes: it stores every
 * candidate and advances its count by the acceptance bit, so no branch
 * depends on a candidate's value; only the running count (where the next
 * candidate goes, when 256 are reached, how many blocks are read)
 * depends on the secret stream, as in the standard. */
#include <string.h>

#include "encode.h"
#include "fips202.h"
#include "sample.h"

/* RejNTTPoly: 256 candidates of 3 bytes need 768 bytes; 5 SHAKE128
 * blocks (840 bytes, 280 candidates) almost always suffice, and more are
 * drawn one at a time.  168 is a multiple of 3, so candidates never
 * straddle two blocks. */
#define REJ_NTT_BLOCKS 5
/* ExpandMask: the 32 (bitlen(gamma1 - 1) + 1) bytes of one y[r]. */
#define MASK_BLOCKS ((MLD_POLY_BYTES(MLD_Z_BITS) + FIPS202_SHAKE256_RATE - 1) / \
                     FIPS202_SHAKE256_RATE)

/* Algorithm 29, SampleInBall.  The first 8 bytes of H(c~) give the signs
 * (least significant bit first); then for i = 256 - tau .. 255, bytes j
 * are read until j <= i, c_i = c_j and c_j = +-1 (a Fisher-Yates step). */
void mld_sample_in_ball(mld_poly *c, const uint8_t ctilde[MLD_CTILDE_BYTES])
{
    uint8_t buf[FIPS202_SHAKE256_RATE];
    fips202_sponge ctx;
    uint64_t signs = 0;
    unsigned i, k, pos;

    fips202_shake256_init(&ctx);
    fips202_absorb(&ctx, ctilde, MLD_CTILDE_BYTES);
    fips202_finalize(&ctx);
    fips202_squeezeblocks(&ctx, buf, 1);
    for (k = 0; k < 8; k++) {
        signs |= (uint64_t)buf[k] << (8 * k);
    }
    pos = 8;
    memset(c->coeffs, 0, sizeof c->coeffs);
    for (i = MLD_N - MLD_TAU; i < MLD_N; i++) {
        unsigned j;

        do {
            if (pos == FIPS202_SHAKE256_RATE) {
                fips202_squeezeblocks(&ctx, buf, 1);
                pos = 0;
            }
            j = buf[pos++];
        } while (j > i);
        c->coeffs[i] = c->coeffs[j];
        c->coeffs[j] = 1 - 2 * (int32_t)(signs & 1);
        signs >>= 1;
    }
}

/* Algorithm 14, CoeffFromThreeBytes, over a buffer: appends the accepted
 * 23-bit values (those below q) to a->coeffs[ctr..] and returns the new
 * count. */
static unsigned rej_ntt_parse(mld_poly *a, unsigned ctr, const uint8_t *buf, size_t len)
{
    size_t pos;

    for (pos = 0; ctr < MLD_N && pos + 3 <= len; pos += 3) {
        uint32_t z = (uint32_t)buf[pos] | (uint32_t)buf[pos + 1] << 8 |
                     (uint32_t)(buf[pos + 2] & 0x7F) << 16;

        if (z < MLD_Q) {
            a->coeffs[ctr++] = (int32_t)z;
        }
    }
    return ctr;
}

/* Algorithm 30, RejNTTPoly: uniform coefficients in [0, q) from
 * SHAKE128(rho || s || r). */
static void rej_ntt_poly(mld_poly *a, const uint8_t seed[MLD_SEED_BYTES + 2])
{
    uint8_t buf[REJ_NTT_BLOCKS * FIPS202_SHAKE128_RATE];
    fips202_sponge ctx;
    unsigned ctr;

    fips202_shake128_init(&ctx);
    fips202_absorb(&ctx, seed, MLD_SEED_BYTES + 2);
    fips202_finalize(&ctx);
    fips202_squeezeblocks(&ctx, buf, REJ_NTT_BLOCKS);
    ctr = rej_ntt_parse(a, 0, buf, sizeof buf);
    while (ctr < MLD_N) {
        fips202_squeezeblocks(&ctx, buf, 1);
        ctr = rej_ntt_parse(a, ctr, buf, FIPS202_SHAKE128_RATE);
    }
}

/* Algorithm 15, CoeffFromHalfByte, without branches: *ok = 1 and
 * eta - (b mod (2 eta + 1)) if b < 2 eta + 1 (b < 15 for eta = 2, where
 * b mod 5 = b - 5 floor(b 205 / 2^10) for b < 16), else *ok = 0. */
static int32_t coeff_from_half_byte(uint32_t b, uint32_t *ok)
{
#if MLD_ETA == 2
    *ok = (b - 15) >> 31;
    return 2 - (int32_t)(b - 5 * ((b * 205) >> 10));
#else
    *ok = (b - 9) >> 31;
    return 4 - (int32_t)b;
#endif
}

/* Appends the accepted half bytes of buf (low half first) to
 * a->coeffs[ctr..]; returns the new count. */
static unsigned rej_bounded_parse(mld_poly *a, unsigned ctr, const uint8_t *buf, size_t len)
{
    size_t pos;

    for (pos = 0; ctr < MLD_N && pos < len; pos++) {
        uint32_t ok;
        int32_t v;

        v = coeff_from_half_byte(buf[pos] & 0x0F, &ok);
        a->coeffs[ctr] = v;
        ctr += ok;
        if (ctr < MLD_N) {
            v = coeff_from_half_byte(buf[pos] >> 4, &ok);
            a->coeffs[ctr] = v;
            ctr += ok;
        }
    }
    return ctr;
}

/* Algorithm 31, RejBoundedPoly: coefficients in [-eta, eta] from
 * SHAKE256(rho' || IntegerToBytes(r, 2)), one block at a time. */
static void rej_bounded_poly(mld_poly *a, const uint8_t seed[MLD_RHOPRIME_BYTES + 2])
{
    uint8_t buf[FIPS202_SHAKE256_RATE];
    fips202_sponge ctx;
    unsigned ctr = 0;

    fips202_shake256_init(&ctx);
    fips202_absorb(&ctx, seed, MLD_RHOPRIME_BYTES + 2);
    fips202_finalize(&ctx);
    while (ctr < MLD_N) {
        fips202_squeezeblocks(&ctx, buf, 1);
        ctr = rej_bounded_parse(a, ctr, buf, sizeof buf);
    }
}

void mld_expand_a_row(mld_poly a_hat[MLD_L], const uint8_t rho[MLD_SEED_BYTES],
                      unsigned r)
{
    uint8_t seed[MLD_SEED_BYTES + 2];
    unsigned s;

    memcpy(seed, rho, MLD_SEED_BYTES);
    seed[MLD_SEED_BYTES + 1] = (uint8_t)r;
    for (s = 0; s < MLD_L; s++) {
        seed[MLD_SEED_BYTES] = (uint8_t)s;
        rej_ntt_poly(&a_hat[s], seed);
    }
}

void mld_expand_a(mld_poly a_hat[MLD_K][MLD_L], const uint8_t rho[MLD_SEED_BYTES])
{
    unsigned r;

    for (r = 0; r < MLD_K; r++) {
        mld_expand_a_row(a_hat[r], rho, r);
    }
}

void mld_expand_s(mld_poly s1[MLD_L], mld_poly s2[MLD_K],
                  const uint8_t rhoprime[MLD_RHOPRIME_BYTES])
{
    uint8_t seed[MLD_RHOPRIME_BYTES + 2];
    unsigned r;

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
    uint8_t buf[MASK_BLOCKS * FIPS202_SHAKE256_RATE];
    fips202_sponge ctx;
    unsigned r;

    memcpy(seed, rhoprime, MLD_RHOPRIME_BYTES);
    for (r = 0; r < MLD_L; r++) {
        unsigned n = kappa + r;

        seed[MLD_RHOPRIME_BYTES] = (uint8_t)(n & 0xFF);
        seed[MLD_RHOPRIME_BYTES + 1] = (uint8_t)(n >> 8);
        fips202_shake256_init(&ctx);
        fips202_absorb(&ctx, seed, sizeof seed);
        fips202_finalize(&ctx);
        fips202_squeezeblocks(&ctx, buf, MASK_BLOCKS);
        mld_poly_unpack_z(&y[r], buf);
    }
}
