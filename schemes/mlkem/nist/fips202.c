/* Keccak-f[1600] and the sponge construction of FIPS 202, with the four
 * instances ML-KEM needs.  The state is 25 little-endian 64-bit lanes,
 * lane (x, y) at index x + 5y; a message byte at position i of a block
 * lands in lane i / 8 at bit 8 * (i % 8) (FIPS 202, section 3.1.2 and
 * Appendix B.1).  Everything here is free of data-dependent branches
 * and table look-ups, so it is constant-time for secret inputs. */
#include <string.h>

#include "fips202.h"

#define KECCAK_ROUNDS 24

/* RC[ir] of the iota step, the output of FIPS 202's rc(t) LFSR
 * (Algorithm 5) gathered into lanes as Algorithm 6 specifies. */
static const uint64_t round_constants[KECCAK_ROUNDS] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808AULL,
    0x8000000080008000ULL, 0x000000000000808BULL, 0x0000000080000001ULL,
    0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008AULL,
    0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000AULL,
    0x000000008000808BULL, 0x800000000000008BULL, 0x8000000000008089ULL,
    0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL,
    0x000000000000800AULL, 0x800000008000000AULL, 0x8000000080008081ULL,
    0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL
};

/* Rotation offsets of the rho step for lane x + 5y (FIPS 202, Table 2). */
static const unsigned rho_offsets[25] = {
     0,  1, 62, 28, 27,
    36, 44,  6, 55, 20,
     3, 10, 43, 25, 39,
    41, 45, 15, 21,  8,
    18,  2, 61, 56, 14
};

static uint64_t rotl64(uint64_t v, unsigned n)
{
    return n == 0 ? v : (v << n) | (v >> (64 - n));
}

/* Keccak-p[1600, 24] = Keccak-f[1600] (FIPS 202, Algorithm 7): each round
 * is theta, rho, pi, chi, iota on the state in place. */
void mlkem_keccakf1600(uint64_t s[25])
{
    uint64_t c[5], d[5], b[25];
    unsigned round, x, y;

    for (round = 0; round < KECCAK_ROUNDS; round++) {
        /* theta: add to each lane the parities of two nearby columns. */
        for (x = 0; x < 5; x++) {
            c[x] = s[x] ^ s[x + 5] ^ s[x + 10] ^ s[x + 15] ^ s[x + 20];
        }
        for (x = 0; x < 5; x++) {
            d[x] = c[(x + 4) % 5] ^ rotl64(c[(x + 1) % 5], 1);
        }
        for (y = 0; y < 5; y++) {
            for (x = 0; x < 5; x++) {
                s[x + 5 * y] ^= d[x];
            }
        }
        /* rho and pi: A'[x, y] = rot(A[(x + 3y) mod 5, x]). */
        for (y = 0; y < 5; y++) {
            for (x = 0; x < 5; x++) {
                unsigned from = (x + 3 * y) % 5 + 5 * x;
                b[x + 5 * y] = rotl64(s[from], rho_offsets[from]);
            }
        }
        /* chi: the only non-linear step, along each row. */
        for (y = 0; y < 5; y++) {
            for (x = 0; x < 5; x++) {
                s[x + 5 * y] = b[x + 5 * y] ^
                    (~b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
            }
        }
        /* iota */
        s[0] ^= round_constants[round];
    }
}

static void sponge_init(mlkem_sponge *ctx, unsigned rate, unsigned char suffix)
{
    memset(ctx->s, 0, sizeof ctx->s);
    ctx->rate = rate;
    ctx->pos = 0;
    ctx->suffix = suffix;
}

static void xor_byte(uint64_t s[25], unsigned i, uint8_t v)
{
    s[i / 8] ^= (uint64_t)v << (8 * (i % 8));
}

static uint8_t get_byte(const uint64_t s[25], unsigned i)
{
    return (uint8_t)(s[i / 8] >> (8 * (i % 8)));
}

/* SHAKE's suffix is the domain bits 1111 then the first pad bit; SHA-3's
 * is 01 then the pad bit (FIPS 202, sections 6.1 and 6.2, read LSB first). */
void mlkem_shake128_init(mlkem_sponge *ctx)
{
    sponge_init(ctx, MLKEM_SHAKE128_RATE, 0x1F);
}

void mlkem_shake256_init(mlkem_sponge *ctx)
{
    sponge_init(ctx, MLKEM_SHAKE256_RATE, 0x1F);
}

void mlkem_sponge_absorb(mlkem_sponge *ctx, const uint8_t *in, size_t inlen)
{
    size_t i;

    for (i = 0; i < inlen; i++) {
        xor_byte(ctx->s, ctx->pos++, in[i]);
        if (ctx->pos == ctx->rate) {
            mlkem_keccakf1600(ctx->s);
            ctx->pos = 0;
        }
    }
}

/* pad10*1 after the domain bits; the next squeeze starts a fresh block. */
void mlkem_sponge_finalize(mlkem_sponge *ctx)
{
    xor_byte(ctx->s, ctx->pos, ctx->suffix);
    xor_byte(ctx->s, ctx->rate - 1, 0x80);
    ctx->pos = ctx->rate;
}

void mlkem_sponge_squeeze(mlkem_sponge *ctx, uint8_t *out, size_t outlen)
{
    size_t i;

    for (i = 0; i < outlen; i++) {
        if (ctx->pos == ctx->rate) {
            mlkem_keccakf1600(ctx->s);
            ctx->pos = 0;
        }
        out[i] = get_byte(ctx->s, ctx->pos++);
    }
}

void mlkem_sponge_wipe(mlkem_sponge *ctx)
{
    volatile uint8_t *p = (volatile uint8_t *)ctx;
    size_t i;

    for (i = 0; i < sizeof *ctx; i++) {
        p[i] = 0;
    }
}

static void one_shot(unsigned rate, unsigned char suffix, uint8_t *out,
                     size_t outlen, const uint8_t *in, size_t inlen)
{
    mlkem_sponge ctx;

    sponge_init(&ctx, rate, suffix);
    mlkem_sponge_absorb(&ctx, in, inlen);
    mlkem_sponge_finalize(&ctx);
    mlkem_sponge_squeeze(&ctx, out, outlen);
    mlkem_sponge_wipe(&ctx);
}

void mlkem_shake256(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen)
{
    one_shot(MLKEM_SHAKE256_RATE, 0x1F, out, outlen, in, inlen);
}

void mlkem_sha3_256(uint8_t out[32], const uint8_t *in, size_t inlen)
{
    one_shot(MLKEM_SHA3_256_RATE, 0x06, out, 32, in, inlen);
}

void mlkem_sha3_512(uint8_t out[64], const uint8_t *in, size_t inlen)
{
    one_shot(MLKEM_SHA3_512_RATE, 0x06, out, 64, in, inlen);
}
