/* Keccak-f[1600] permutation (lanes kept in local variables, two rounds
 * per loop iteration) and the SHAKE256 sponge built on it. */
#include <string.h>

#include "fips202.h"

#define ROL64(a, n) (((a) << (n)) | ((a) >> (64 - (n))))

static const uint64_t keccak_rc[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808AULL,
    0x8000000080008000ULL, 0x000000000000808BULL, 0x0000000080000001ULL,
    0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008AULL,
    0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000AULL,
    0x000000008000808BULL, 0x800000000000008BULL, 0x8000000000008089ULL,
    0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL,
    0x000000000000800AULL, 0x800000008000000AULL, 0x8000000080008081ULL,
    0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL
};

/* Lane naming: A<row><column>, rows b,g,k,m,s = y 0..4, columns
 * a,e,i,o,u = x 0..4; lane index x + 5y. One round maps A to E
 * (theta, rho, pi, chi, iota), the next maps E back to A. */
#define KECCAK_ROUND_AE(rc) \
    Ca = Aba ^ Aga ^ Aka ^ Ama ^ Asa; \
    Ce = Abe ^ Age ^ Ake ^ Ame ^ Ase; \
    Ci = Abi ^ Agi ^ Aki ^ Ami ^ Asi; \
    Co = Abo ^ Ago ^ Ako ^ Amo ^ Aso; \
    Cu = Abu ^ Agu ^ Aku ^ Amu ^ Asu; \
    Da = Cu ^ ROL64(Ce, 1); \
    De = Ca ^ ROL64(Ci, 1); \
    Di = Ce ^ ROL64(Co, 1); \
    Do = Ci ^ ROL64(Cu, 1); \
    Du = Co ^ ROL64(Ca, 1); \
    Ba = (Aba ^ Da); Be = ROL64(Age ^ De, 44); Bi = ROL64(Aki ^ Di, 43); Bo = ROL64(Amo ^ Do, 21); Bu = ROL64(Asu ^ Du, 14); \
    Eba = Ba ^ (~Be & Bi) ^ (rc); \
    Ebe = Be ^ (~Bi & Bo); \
    Ebi = Bi ^ (~Bo & Bu); \
    Ebo = Bo ^ (~Bu & Ba); \
    Ebu = Bu ^ (~Ba & Be); \
    Ba = ROL64(Abo ^ Do, 28); Be = ROL64(Agu ^ Du, 20); Bi = ROL64(Aka ^ Da, 3); Bo = ROL64(Ame ^ De, 45); Bu = ROL64(Asi ^ Di, 61); \
    Ega = Ba ^ (~Be & Bi); \
    Ege = Be ^ (~Bi & Bo); \
    Egi = Bi ^ (~Bo & Bu); \
    Ego = Bo ^ (~Bu & Ba); \
    Egu = Bu ^ (~Ba & Be); \
    Ba = ROL64(Abe ^ De, 1); Be = ROL64(Agi ^ Di, 6); Bi = ROL64(Ako ^ Do, 25); Bo = ROL64(Amu ^ Du, 8); Bu = ROL64(Asa ^ Da, 18); \
    Eka = Ba ^ (~Be & Bi); \
    Eke = Be ^ (~Bi & Bo); \
    Eki = Bi ^ (~Bo & Bu); \
    Eko = Bo ^ (~Bu & Ba); \
    Eku = Bu ^ (~Ba & Be); \
    Ba = ROL64(Abu ^ Du, 27); Be = ROL64(Aga ^ Da, 36); Bi = ROL64(Ake ^ De, 10); Bo = ROL64(Ami ^ Di, 15); Bu = ROL64(Aso ^ Do, 56); \
    Ema = Ba ^ (~Be & Bi); \
    Eme = Be ^ (~Bi & Bo); \
    Emi = Bi ^ (~Bo & Bu); \
    Emo = Bo ^ (~Bu & Ba); \
    Emu = Bu ^ (~Ba & Be); \
    Ba = ROL64(Abi ^ Di, 62); Be = ROL64(Ago ^ Do, 55); Bi = ROL64(Aku ^ Du, 39); Bo = ROL64(Ama ^ Da, 41); Bu = ROL64(Ase ^ De, 2); \
    Esa = Ba ^ (~Be & Bi); \
    Ese = Be ^ (~Bi & Bo); \
    Esi = Bi ^ (~Bo & Bu); \
    Eso = Bo ^ (~Bu & Ba); \
    Esu = Bu ^ (~Ba & Be);

#define KECCAK_ROUND_EA(rc) \
    Ca = Eba ^ Ega ^ Eka ^ Ema ^ Esa; \
    Ce = Ebe ^ Ege ^ Eke ^ Eme ^ Ese; \
    Ci = Ebi ^ Egi ^ Eki ^ Emi ^ Esi; \
    Co = Ebo ^ Ego ^ Eko ^ Emo ^ Eso; \
    Cu = Ebu ^ Egu ^ Eku ^ Emu ^ Esu; \
    Da = Cu ^ ROL64(Ce, 1); \
    De = Ca ^ ROL64(Ci, 1); \
    Di = Ce ^ ROL64(Co, 1); \
    Do = Ci ^ ROL64(Cu, 1); \
    Du = Co ^ ROL64(Ca, 1); \
    Ba = (Eba ^ Da); Be = ROL64(Ege ^ De, 44); Bi = ROL64(Eki ^ Di, 43); Bo = ROL64(Emo ^ Do, 21); Bu = ROL64(Esu ^ Du, 14); \
    Aba = Ba ^ (~Be & Bi) ^ (rc); \
    Abe = Be ^ (~Bi & Bo); \
    Abi = Bi ^ (~Bo & Bu); \
    Abo = Bo ^ (~Bu & Ba); \
    Abu = Bu ^ (~Ba & Be); \
    Ba = ROL64(Ebo ^ Do, 28); Be = ROL64(Egu ^ Du, 20); Bi = ROL64(Eka ^ Da, 3); Bo = ROL64(Eme ^ De, 45); Bu = ROL64(Esi ^ Di, 61); \
    Aga = Ba ^ (~Be & Bi); \
    Age = Be ^ (~Bi & Bo); \
    Agi = Bi ^ (~Bo & Bu); \
    Ago = Bo ^ (~Bu & Ba); \
    Agu = Bu ^ (~Ba & Be); \
    Ba = ROL64(Ebe ^ De, 1); Be = ROL64(Egi ^ Di, 6); Bi = ROL64(Eko ^ Do, 25); Bo = ROL64(Emu ^ Du, 8); Bu = ROL64(Esa ^ Da, 18); \
    Aka = Ba ^ (~Be & Bi); \
    Ake = Be ^ (~Bi & Bo); \
    Aki = Bi ^ (~Bo & Bu); \
    Ako = Bo ^ (~Bu & Ba); \
    Aku = Bu ^ (~Ba & Be); \
    Ba = ROL64(Ebu ^ Du, 27); Be = ROL64(Ega ^ Da, 36); Bi = ROL64(Eke ^ De, 10); Bo = ROL64(Emi ^ Di, 15); Bu = ROL64(Eso ^ Do, 56); \
    Ama = Ba ^ (~Be & Bi); \
    Ame = Be ^ (~Bi & Bo); \
    Ami = Bi ^ (~Bo & Bu); \
    Amo = Bo ^ (~Bu & Ba); \
    Amu = Bu ^ (~Ba & Be); \
    Ba = ROL64(Ebi ^ Di, 62); Be = ROL64(Ego ^ Do, 55); Bi = ROL64(Eku ^ Du, 39); Bo = ROL64(Ema ^ Da, 41); Bu = ROL64(Ese ^ De, 2); \
    Asa = Ba ^ (~Be & Bi); \
    Ase = Be ^ (~Bi & Bo); \
    Asi = Bi ^ (~Bo & Bu); \
    Aso = Bo ^ (~Bu & Ba); \
    Asu = Bu ^ (~Ba & Be);

void spx_keccakf1600(uint64_t s[25])
{
    uint64_t Aba, Abe, Abi, Abo, Abu, Aga, Age, Agi, Ago, Agu;
    uint64_t Aka, Ake, Aki, Ako, Aku, Ama, Ame, Ami, Amo, Amu;
    uint64_t Asa, Ase, Asi, Aso, Asu;
    uint64_t Eba, Ebe, Ebi, Ebo, Ebu, Ega, Ege, Egi, Ego, Egu;
    uint64_t Eka, Eke, Eki, Eko, Eku, Ema, Eme, Emi, Emo, Emu;
    uint64_t Esa, Ese, Esi, Eso, Esu;
    uint64_t Ba, Be, Bi, Bo, Bu, Ca, Ce, Ci, Co, Cu, Da, De, Di, Do, Du;
    int r;

    Aba = s[0];  Abe = s[1];  Abi = s[2];  Abo = s[3];  Abu = s[4];
    Aga = s[5];  Age = s[6];  Agi = s[7];  Ago = s[8];  Agu = s[9];
    Aka = s[10]; Ake = s[11]; Aki = s[12]; Ako = s[13]; Aku = s[14];
    Ama = s[15]; Ame = s[16]; Ami = s[17]; Amo = s[18]; Amu = s[19];
    Asa = s[20]; Ase = s[21]; Asi = s[22]; Aso = s[23]; Asu = s[24];

    for (r = 0; r < 24; r += 2) {
        KECCAK_ROUND_AE(keccak_rc[r]);
        KECCAK_ROUND_EA(keccak_rc[r + 1]);
    }

    s[0] = Aba;  s[1] = Abe;  s[2] = Abi;  s[3] = Abo;  s[4] = Abu;
    s[5] = Aga;  s[6] = Age;  s[7] = Agi;  s[8] = Ago;  s[9] = Agu;
    s[10] = Aka; s[11] = Ake; s[12] = Aki; s[13] = Ako; s[14] = Aku;
    s[15] = Ama; s[16] = Ame; s[17] = Ami; s[18] = Amo; s[19] = Amu;
    s[20] = Asa; s[21] = Ase; s[22] = Asi; s[23] = Aso; s[24] = Asu;
}

static uint64_t load64_le(const unsigned char *x)
{
    return (uint64_t)x[0] | ((uint64_t)x[1] << 8) |
           ((uint64_t)x[2] << 16) | ((uint64_t)x[3] << 24) |
           ((uint64_t)x[4] << 32) | ((uint64_t)x[5] << 40) |
           ((uint64_t)x[6] << 48) | ((uint64_t)x[7] << 56);
}

static void store64_le(unsigned char *x, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++) {
        x[i] = (unsigned char)(v >> (8 * i));
    }
}

/* XOR one byte into the state at byte position pos (little-endian lanes). */
static void xor_byte(uint64_t s[25], size_t pos, unsigned char b)
{
    s[pos >> 3] ^= (uint64_t)b << (8 * (pos & 7));
}

static unsigned char get_byte(const uint64_t s[25], size_t pos)
{
    return (unsigned char)(s[pos >> 3] >> (8 * (pos & 7)));
}

void spx_shake256_init(spx_shake256_ctx *ctx)
{
    memset(ctx->s, 0, sizeof ctx->s);
    ctx->pos = 0;
}

void spx_shake256_absorb(spx_shake256_ctx *ctx, const unsigned char *in,
                         size_t inlen)
{
    size_t i;

    /* Finish a partial block byte by byte. */
    while (inlen > 0 && (ctx->pos & 7) != 0) {
        xor_byte(ctx->s, ctx->pos++, *in++);
        inlen--;
        if (ctx->pos == SPX_SHAKE256_RATE) {
            spx_keccakf1600(ctx->s);
            ctx->pos = 0;
        }
    }
    /* Whole lanes. */
    while (inlen >= 8) {
        ctx->s[ctx->pos >> 3] ^= load64_le(in);
        ctx->pos += 8;
        in += 8;
        inlen -= 8;
        if (ctx->pos == SPX_SHAKE256_RATE) {
            spx_keccakf1600(ctx->s);
            ctx->pos = 0;
        }
    }
    for (i = 0; i < inlen; i++) {
        xor_byte(ctx->s, ctx->pos++, in[i]);
    }
}

void spx_shake256_finalize(spx_shake256_ctx *ctx)
{
    xor_byte(ctx->s, ctx->pos, 0x1F);
    xor_byte(ctx->s, SPX_SHAKE256_RATE - 1, 0x80);
    spx_keccakf1600(ctx->s);
    ctx->pos = 0;
}

void spx_shake256_squeeze(unsigned char *out, size_t outlen,
                          spx_shake256_ctx *ctx)
{
    while (outlen > 0) {
        if (ctx->pos == SPX_SHAKE256_RATE) {
            spx_keccakf1600(ctx->s);
            ctx->pos = 0;
        }
        if ((ctx->pos & 7) == 0 && outlen >= 8) {
            store64_le(out, ctx->s[ctx->pos >> 3]);
            ctx->pos += 8;
            out += 8;
            outlen -= 8;
        } else {
            *out++ = get_byte(ctx->s, ctx->pos++);
            outlen--;
        }
    }
}

void spx_shake256(unsigned char *out, size_t outlen,
                  const unsigned char *in, size_t inlen)
{
    spx_shake256_ctx ctx;

    spx_shake256_init(&ctx);
    spx_shake256_absorb(&ctx, in, inlen);
    spx_shake256_finalize(&ctx);
    spx_shake256_squeeze(out, outlen, &ctx);
}

void spx_shake256_short3(unsigned char *out, size_t outlen,
                         const unsigned char *a, size_t alen,
                         const unsigned char *b, size_t blen,
                         const unsigned char *c, size_t clen)
{
    unsigned char buf[SPX_SHAKE256_RATE];
    uint64_t s[25];
    size_t len = alen + blen + clen;
    size_t i;

    memset(buf, 0, sizeof buf);
    memcpy(buf, a, alen);
    memcpy(buf + alen, b, blen);
    memcpy(buf + alen + blen, c, clen);
    buf[len] ^= 0x1F;
    buf[SPX_SHAKE256_RATE - 1] ^= 0x80;
    for (i = 0; i < SPX_SHAKE256_RATE / 8; i++) {
        s[i] = load64_le(buf + 8 * i);
    }
    for (; i < 25; i++) {
        s[i] = 0;
    }
    spx_keccakf1600(s);
    for (i = 0; i + 8 <= outlen; i += 8) {
        store64_le(out + i, s[i >> 3]);
    }
    for (; i < outlen; i++) {
        out[i] = get_byte(s, i);
    }
}
