/* NGCC DRNG: Hash_DRBG (SP 800-90A style) over a self-contained SM3
 * (GB/T 32905-2016) implementation; no external crypto library. */
#include <stdint.h>
#include <string.h>

#include "drng.h"

#define SM3_OUTLEN 32
#define SEEDLEN_BITS (SEEDLEN * 8)

/* ---------------------------------------------------------------- SM3 */

typedef struct {
    uint32_t h[8];
    unsigned char buf[64];
    size_t buflen;
    uint64_t total; /* bytes hashed so far */
} sm3_state;

#define ROTL32(x, n) ((uint32_t)(((x) << ((n) & 31)) | \
                                 ((x) >> ((32 - ((n) & 31)) & 31))))
#define SM3_P0(x) ((x) ^ ROTL32((x), 9) ^ ROTL32((x), 17))
#define SM3_P1(x) ((x) ^ ROTL32((x), 15) ^ ROTL32((x), 23))

static uint32_t get_be32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void sm3_compress(uint32_t h[8], const unsigned char *block)
{
    uint32_t w[68], w1[64];
    uint32_t a, b, c, d, e, f, g, hh, ss1, ss2, tt1, tt2, t;
    int j;

    for (j = 0; j < 16; j++) {
        w[j] = get_be32(block + 4 * j);
    }
    for (j = 16; j < 68; j++) {
        t = w[j - 16] ^ w[j - 9] ^ ROTL32(w[j - 3], 15);
        w[j] = SM3_P1(t) ^ ROTL32(w[j - 13], 7) ^ w[j - 6];
    }
    for (j = 0; j < 64; j++) {
        w1[j] = w[j] ^ w[j + 4];
    }

    a = h[0]; b = h[1]; c = h[2]; d = h[3];
    e = h[4]; f = h[5]; g = h[6]; hh = h[7];
    for (j = 0; j < 64; j++) {
        uint32_t tj = j < 16 ? 0x79cc4519UL : 0x7a879d8aUL;
        uint32_t ff, gg;

        t = ROTL32(a, 12);
        ss1 = ROTL32((uint32_t)(t + e + ROTL32(tj, j)), 7);
        ss2 = ss1 ^ t;
        if (j < 16) {
            ff = a ^ b ^ c;
            gg = e ^ f ^ g;
        } else {
            ff = (a & b) | (a & c) | (b & c);
            gg = (e & f) | (~e & g);
        }
        tt1 = ff + d + ss2 + w1[j];
        tt2 = gg + hh + ss1 + w[j];
        d = c;
        c = ROTL32(b, 9);
        b = a;
        a = tt1;
        hh = g;
        g = ROTL32(f, 19);
        f = e;
        e = SM3_P0(tt2);
    }
    h[0] ^= a; h[1] ^= b; h[2] ^= c; h[3] ^= d;
    h[4] ^= e; h[5] ^= f; h[6] ^= g; h[7] ^= hh;
}

static void sm3_init(sm3_state *s)
{
    static const uint32_t iv[8] = {
        0x7380166fUL, 0x4914b2b9UL, 0x172442d7UL, 0xda8a0600UL,
        0xa96f30bcUL, 0x163138aaUL, 0xe38dee4dUL, 0xb0fb0e4eUL
    };

    memcpy(s->h, iv, sizeof iv);
    s->buflen = 0;
    s->total = 0;
}

static void sm3_update(sm3_state *s, const unsigned char *in, size_t len)
{
    s->total += len;
    while (len > 0) {
        size_t take = 64 - s->buflen;

        if (take > len) {
            take = len;
        }
        memcpy(s->buf + s->buflen, in, take);
        s->buflen += take;
        in += take;
        len -= take;
        if (s->buflen == 64) {
            sm3_compress(s->h, s->buf);
            s->buflen = 0;
        }
    }
}

static void sm3_final(sm3_state *s, unsigned char out[SM3_OUTLEN])
{
    uint64_t bits = s->total * 8;
    int i;

    s->buf[s->buflen++] = 0x80;
    if (s->buflen > 56) {
        memset(s->buf + s->buflen, 0, 64 - s->buflen);
        sm3_compress(s->h, s->buf);
        s->buflen = 0;
    }
    memset(s->buf + s->buflen, 0, 56 - s->buflen);
    for (i = 0; i < 8; i++) {
        s->buf[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
    }
    sm3_compress(s->h, s->buf);
    for (i = 0; i < 8; i++) {
        put_be32(out + 4 * i, s->h[i]);
    }
}

/* ------------------------------------------------------------ Hash_DRBG */

/* Hash_df(prefix || input) truncated to SEEDLEN bytes. prefix may be empty
 * (prefix_len 0) and is used for the 0x00 byte of the C derivation. */
static void sm3_df(unsigned char out[SEEDLEN], const unsigned char *prefix,
                   size_t prefix_len, const unsigned char *in, size_t in_len)
{
    unsigned char block[SM3_OUTLEN];
    unsigned char hdr[5];
    unsigned char counter = 1;
    size_t done = 0;

    put_be32(hdr + 1, SEEDLEN_BITS);
    while (done < SEEDLEN) {
        sm3_state s;
        size_t take = SEEDLEN - done;

        hdr[0] = counter++;
        sm3_init(&s);
        sm3_update(&s, hdr, sizeof hdr);
        sm3_update(&s, prefix, prefix_len);
        sm3_update(&s, in, in_len);
        sm3_final(&s, block);
        if (take > SM3_OUTLEN) {
            take = SM3_OUTLEN;
        }
        memcpy(out + done, block, take);
        done += take;
    }
}

/* acc = acc + x (mod 2^(8*SEEDLEN)), big-endian; x has xlen <= SEEDLEN
 * bytes and is aligned to the least significant end. */
static void add_be(unsigned char acc[SEEDLEN], const unsigned char *x,
                   size_t xlen)
{
    unsigned int carry = 0;
    size_t i;

    for (i = 0; i < SEEDLEN; i++) {
        unsigned int sum = acc[SEEDLEN - 1 - i] + carry;

        if (i < xlen) {
            sum += x[xlen - 1 - i];
        }
        acc[SEEDLEN - 1 - i] = (unsigned char)sum;
        carry = sum >> 8;
    }
}

int init_random_number(DRNG_ctx *drng, const unsigned char *seed,
                       unsigned long long seed_len_bytes)
{
    static const unsigned char zero = 0x00;

    sm3_df(drng->V, NULL, 0, seed, (size_t)seed_len_bytes);
    sm3_df(drng->C, &zero, 1, drng->V, SEEDLEN);
    memset(drng->reseed_counter, 0, SEEDLEN);
    drng->reseed_counter[SEEDLEN - 1] = 1;
    return 0;
}

int get_random_number(DRNG_ctx *drng, unsigned char *random_number,
                      unsigned long long random_number_len_bits)
{
    static const unsigned char one = 0x01;
    static const unsigned char three = 0x03;
    unsigned long long nbytes = (random_number_len_bits + 7) / 8;
    unsigned char data[SEEDLEN];
    unsigned char block[SM3_OUTLEN];
    sm3_state s;

    /* Hashgen: SM3(V), SM3(V + 1), ... */
    memcpy(data, drng->V, SEEDLEN);
    while (nbytes > 0) {
        size_t take = nbytes < SM3_OUTLEN ? (size_t)nbytes : SM3_OUTLEN;

        sm3_init(&s);
        sm3_update(&s, data, SEEDLEN);
        sm3_final(&s, block);
        memcpy(random_number, block, take);
        random_number += take;
        nbytes -= take;
        add_be(data, &one, 1);
    }
    if (random_number_len_bits % 8 != 0) {
        random_number[-1] &= (unsigned char)(0xFF
                                             << (8 - random_number_len_bits % 8));
    }

    /* V = V + SM3(0x03 || V) + C + reseed_counter; reseed_counter += 1. */
    sm3_init(&s);
    sm3_update(&s, &three, 1);
    sm3_update(&s, drng->V, SEEDLEN);
    sm3_final(&s, block);
    add_be(drng->V, block, SM3_OUTLEN);
    add_be(drng->V, drng->C, SEEDLEN);
    add_be(drng->V, drng->reseed_counter, SEEDLEN);
    add_be(drng->reseed_counter, &one, 1);
    return 0;
}
