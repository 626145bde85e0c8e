/* ML-KEM (FIPS 203, sections 6 and 7): the Fujisaki-Okamoto transform of
 * K-PKE with implicit rejection, and the NIST KEM API on top of it.
 * Decapsulation compares ciphertexts and selects the shared secret without
 * branching on secret data. */
#include <string.h>

#include "api.h"
#include "fips202.h"
#include "kpke.h"
#include "poly.h"
#include "rng.h"

/* Offsets inside dk = dk_PKE || ek || H(ek) || z. */
#define DK_EK_OFFSET MLKEM_DK_PKE_BYTES
#define DK_H_OFFSET (DK_EK_OFFSET + MLKEM_EK_BYTES)
#define DK_Z_OFFSET (DK_H_OFFSET + MLKEM_SYM_BYTES)

/* memset through a volatile pointer, so that clearing a buffer that is
 * about to go out of scope cannot be optimised away. */
static void *(*const volatile wipe_memset)(void *, int, size_t) = memset;

static void wipe(void *p, size_t n)
{
    wipe_memset(p, 0, n);
}

/* 0 when a and b are equal, 1 otherwise, in time independent of both. */
static unsigned differ(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint32_t acc = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        acc |= (uint32_t)(a[i] ^ b[i]);
    }
    return (unsigned)((acc + 0xFFu) >> 8); /* acc <= 0xFF */
}

/* r = choose ? x : r, without a branch on choose (0 or 1). */
static void select_bytes(uint8_t *r, const uint8_t *x, size_t n, unsigned choose)
{
    uint8_t mask = (uint8_t)(0u - choose);
    size_t i;

    for (i = 0; i < n; i++) {
        r[i] ^= (uint8_t)(mask & (r[i] ^ x[i]));
    }
}

void mlkem_keygen_internal(unsigned char *pk, unsigned char *sk,
                           const unsigned char *d, const unsigned char *z)
{
    mlkem_kpke_keygen(pk, sk, d);
    memcpy(sk + DK_EK_OFFSET, pk, MLKEM_EK_BYTES);
    fips202_sha3_256(sk + DK_H_OFFSET, pk, MLKEM_EK_BYTES);
    memcpy(sk + DK_Z_OFFSET, z, MLKEM_SYM_BYTES);
}

/* (K, r) = G(m || h) with h = H(ek), as both encapsulation and the
 * re-encryption in decapsulation derive them. */
static void derive_key_and_coins(uint8_t k_r[64], const uint8_t m[MLKEM_SYM_BYTES],
                                 const uint8_t h[MLKEM_SYM_BYTES])
{
    uint8_t in[2 * MLKEM_SYM_BYTES];

    memcpy(in, m, MLKEM_SYM_BYTES);
    memcpy(in + MLKEM_SYM_BYTES, h, MLKEM_SYM_BYTES);
    fips202_sha3_512(k_r, in, sizeof in);
    wipe(in, sizeof in);
}

void mlkem_encaps_internal(unsigned char *ct, unsigned char *ss,
                           const unsigned char *pk, const unsigned char *m)
{
    uint8_t h[MLKEM_SYM_BYTES], k_r[64];

    fips202_sha3_256(h, pk, MLKEM_EK_BYTES);
    derive_key_and_coins(k_r, m, h);
    mlkem_kpke_encrypt(ct, pk, m, k_r + MLKEM_SYM_BYTES);
    memcpy(ss, k_r, MLKEM_SS_BYTES);
    wipe(k_r, sizeof k_r);
}

void mlkem_decaps_internal(unsigned char *ss, const unsigned char *ct,
                           const unsigned char *sk)
{
    const uint8_t *ek = sk + DK_EK_OFFSET, *h = sk + DK_H_OFFSET, *z = sk + DK_Z_OFFSET;
    uint8_t m[MLKEM_SYM_BYTES], k_r[64], k_bar[MLKEM_SS_BYTES];
    uint8_t ct2[MLKEM_CT_BYTES];
    fips202_sponge j;

    mlkem_kpke_decrypt(m, sk, ct);
    derive_key_and_coins(k_r, m, h);

    /* K-bar = J(z || c) = SHAKE256(z || c, 32): the rejection secret. */
    fips202_shake256_init(&j);
    fips202_absorb(&j, z, MLKEM_SYM_BYTES);
    fips202_absorb(&j, ct, MLKEM_CT_BYTES);
    fips202_finalize(&j);
    fips202_squeeze(&j, k_bar, sizeof k_bar);
    fips202_wipe(&j);

    mlkem_kpke_encrypt(ct2, ek, m, k_r + MLKEM_SYM_BYTES);
    memcpy(ss, k_r, MLKEM_SS_BYTES);
    select_bytes(ss, k_bar, MLKEM_SS_BYTES, differ(ct, ct2, MLKEM_CT_BYTES));

    wipe(m, sizeof m);
    wipe(k_r, sizeof k_r);
    wipe(k_bar, sizeof k_bar);
    wipe(ct2, sizeof ct2);
}

/* Section 7.2, modulus check: every 12-bit coefficient of ek is below q,
 * i.e. ByteEncode_12(ByteDecode_12(ek)) = ek.  ek is public. */
static int ek_is_canonical(const uint8_t *ek)
{
    unsigned i;

    for (i = 0; i < MLKEM_K; i++) {
        if (!mlkem_byte_decode12_is_canonical(ek + i * MLKEM_POLY_BYTES)) {
            return 0;
        }
    }
    return 1;
}

int crypto_kem_keypair(unsigned char *pk, unsigned char *sk)
{
    uint8_t d_z[2 * MLKEM_SYM_BYTES];

    /* One call for d || z, the draw published known answers are made with. */
    randombytes(d_z, sizeof d_z);
    mlkem_keygen_internal(pk, sk, d_z, d_z + MLKEM_SYM_BYTES);
    wipe(d_z, sizeof d_z);
    return 0;
}

int crypto_kem_enc(unsigned char *ct, unsigned char *ss, const unsigned char *pk)
{
    uint8_t m[MLKEM_SYM_BYTES];

    if (!ek_is_canonical(pk)) {
        return -1;
    }
    randombytes(m, sizeof m);
    mlkem_encaps_internal(ct, ss, pk, m);
    wipe(m, sizeof m);
    return 0;
}

int crypto_kem_dec(unsigned char *ss, const unsigned char *ct, const unsigned char *sk)
{
    uint8_t h[MLKEM_SYM_BYTES];

    /* Section 7.3, hash check: dk holds H(ek) of the ek it holds. */
    fips202_sha3_256(h, sk + DK_EK_OFFSET, MLKEM_EK_BYTES);
    if (differ(h, sk + DK_H_OFFSET, MLKEM_SYM_BYTES)) {
        return -1;
    }
    mlkem_decaps_internal(ss, ct, sk);
    return 0;
}
