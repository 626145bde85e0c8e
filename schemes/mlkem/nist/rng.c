/* NIST PQC KAT randomness: AES-256 CTR_DRBG (SP 800-90A, no derivation
 * function, no reseeding) providing randombytes_init/randombytes, with AES
 * from OpenSSL libcrypto (EVP AES-256-ECB). Only for the KAT generator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "rng.h"

typedef struct {
    unsigned char key[32];
    unsigned char v[16];
    int reseed_counter;
} ctr_drbg_state;

static ctr_drbg_state drbg;

/* One AES-256 block encryption: out = AES_key(in). */
static void aes256_ecb(const unsigned char *key, const unsigned char *in,
                       unsigned char *out)
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int len;

    if (c == NULL ||
        EVP_EncryptInit_ex(c, EVP_aes_256_ecb(), NULL, key, NULL) != 1 ||
        EVP_CIPHER_CTX_set_padding(c, 0) != 1 ||
        EVP_EncryptUpdate(c, out, &len, in, 16) != 1 || len != 16) {
        fprintf(stderr, "rng.c: AES-256-ECB failed\n");
        abort();
    }
    EVP_CIPHER_CTX_free(c);
}

/* V = V + 1 as a 128-bit big-endian counter. */
static void increment_v(unsigned char *v)
{
    int j;

    for (j = 15; j >= 0; j--) {
        if (v[j] == 0xff) {
            v[j] = 0x00;
        } else {
            v[j]++;
            break;
        }
    }
}

/* CTR_DRBG_Update with 48 bytes of provided data (or none). */
static void drbg_update(const unsigned char *provided, unsigned char *key,
                        unsigned char *v)
{
    unsigned char temp[48];
    int i;

    for (i = 0; i < 3; i++) {
        increment_v(v);
        aes256_ecb(key, v, temp + 16 * i);
    }
    if (provided != NULL) {
        for (i = 0; i < 48; i++) {
            temp[i] ^= provided[i];
        }
    }
    memcpy(key, temp, 32);
    memcpy(v, temp + 32, 16);
}

void randombytes_init(unsigned char *entropy_input,
                      unsigned char *personalization_string,
                      int security_strength)
{
    unsigned char seed_material[48];
    int i;

    (void)security_strength;
    memcpy(seed_material, entropy_input, 48);
    if (personalization_string != NULL) {
        for (i = 0; i < 48; i++) {
            seed_material[i] ^= personalization_string[i];
        }
    }
    memset(drbg.key, 0, sizeof drbg.key);
    memset(drbg.v, 0, sizeof drbg.v);
    drbg_update(seed_material, drbg.key, drbg.v);
    drbg.reseed_counter = 1;
}

int randombytes(unsigned char *x, unsigned long long xlen)
{
    unsigned char block[16];

    while (xlen > 0) {
        increment_v(drbg.v);
        aes256_ecb(drbg.key, drbg.v, block);
        if (xlen > 15) {
            memcpy(x, block, 16);
            x += 16;
            xlen -= 16;
        } else {
            memcpy(x, block, (size_t)xlen);
            xlen = 0;
        }
    }
    drbg_update(NULL, drbg.key, drbg.v);
    drbg.reseed_counter++;
    return RNG_SUCCESS;
}
