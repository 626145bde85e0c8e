/* Keccak-f[1600] and the SHAKE sponge, written from FIPS 202 for the
 * in-tree ML-DSA.  The permutation follows the step mappings of FIPS 202
 * section 3.2 (theta, rho, pi, chi, iota) on a lane array indexed x + 5y,
 * as plain loops: clarity before speed.  Bytes enter and leave the lanes
 * little-endian (FIPS 202, Appendix B.1) by shifts, so the code does not
 * depend on the host's byte order. */
#include <string.h>

#include "fips202.h"

#define KECCAK_ROUNDS 24

/* RC[i_r] of the iota step: rc(j + 7 i_r) at bit 2^j - 1 (Algorithm 5, 6). */
static const uint64_t round_constants[KECCAK_ROUNDS] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL,
    0x8000000080008000ULL, 0x000000000000808bULL, 0x0000000080000001ULL,
    0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008aULL,
    0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL,
    0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL,
    0x000000000000800aULL, 0x800000008000000aULL, 0x8000000080008081ULL,
    0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

/* rho offsets for lane x + 5y: (t+1)(t+2)/2 mod 64 along the walk
 * (x, y) -> (y, 2x + 3y) from (1, 0) (Algorithm 2). */
static const unsigned rho_offsets[25] = {
    0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39,
    41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
};

static uint64_t rotl64(uint64_t v, unsigned n)
{
    return n == 0 ? v : (v << n) | (v >> (64 - n));
}

void mld_keccakf1600(uint64_t a[25])
{
    uint64_t c[5], d[5], b[25];
    int round, x, y;

    for (round = 0; round < KECCAK_ROUNDS; round++) {
        /* theta: each lane gets the parities of two neighbouring columns. */
        for (x = 0; x < 5; x++) {
            c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        }
        for (x = 0; x < 5; x++) {
            d[x] = c[(x + 4) % 5] ^ rotl64(c[(x + 1) % 5], 1);
        }
        for (y = 0; y < 25; y += 5) {
            for (x = 0; x < 5; x++) {
                a[x + y] ^= d[x];
            }
        }
        /* rho and pi: B[y, 2x + 3y] = rot(A[x, y], r[x, y]). */
        for (y = 0; y < 5; y++) {
            for (x = 0; x < 5; x++) {
                b[y + 5 * ((2 * x + 3 * y) % 5)] =
                    rotl64(a[x + 5 * y], rho_offsets[x + 5 * y]);
            }
        }
        /* chi: the only non-linear step, along each row. */
        for (y = 0; y < 25; y += 5) {
            for (x = 0; x < 5; x++) {
                a[x + y] = b[x + y] ^ (~b[(x + 1) % 5 + y] & b[(x + 2) % 5 + y]);
            }
        }
        /* iota */
        a[0] ^= round_constants[round];
    }
}

static void sponge_init(mld_shake_ctx *ctx, unsigned rate)
{
    memset(ctx->lanes, 0, sizeof ctx->lanes);
    ctx->rate = rate;
    ctx->pos = 0;
}

void mld_shake128_init(mld_shake_ctx *ctx)
{
    sponge_init(ctx, MLD_SHAKE128_RATE);
}

void mld_shake256_init(mld_shake_ctx *ctx)
{
    sponge_init(ctx, MLD_SHAKE256_RATE);
}

static void xor_byte(uint64_t lanes[25], unsigned i, uint8_t v)
{
    lanes[i / 8] ^= (uint64_t)v << (8 * (i % 8));
}

static uint8_t get_byte(const uint64_t lanes[25], unsigned i)
{
    return (uint8_t)(lanes[i / 8] >> (8 * (i % 8)));
}

void mld_shake_absorb(mld_shake_ctx *ctx, const uint8_t *in, size_t inlen)
{
    while (inlen > 0) {
        xor_byte(ctx->lanes, ctx->pos, *in++);
        inlen--;
        if (++ctx->pos == ctx->rate) {
            mld_keccakf1600(ctx->lanes);
            ctx->pos = 0;
        }
    }
}

/* SHAKE appends the suffix 1111 and pad10*1: bits 1,1,1,1,1 then a final
 * 1 at the end of the block, i.e. bytes 0x1F ... 0x80. */
void mld_shake_finalize(mld_shake_ctx *ctx)
{
    xor_byte(ctx->lanes, ctx->pos, 0x1F);
    xor_byte(ctx->lanes, ctx->rate - 1, 0x80);
    mld_keccakf1600(ctx->lanes);
    ctx->pos = 0;
}

void mld_shake_squeeze(mld_shake_ctx *ctx, uint8_t *out, size_t outlen)
{
    while (outlen > 0) {
        if (ctx->pos == ctx->rate) {
            mld_keccakf1600(ctx->lanes);
            ctx->pos = 0;
        }
        *out++ = get_byte(ctx->lanes, ctx->pos++);
        outlen--;
    }
}

void mld_shake256(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen)
{
    mld_shake_ctx ctx;

    mld_shake256_init(&ctx);
    mld_shake_absorb(&ctx, in, inlen);
    mld_shake_finalize(&ctx);
    mld_shake_squeeze(&ctx, out, outlen);
}
