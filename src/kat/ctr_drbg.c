/*
 * ctr_drbg: AES-256 CTR_DRBG without derivation function, as in the NIST
 * PQC rng.c; see ctr_drbg.h.  AES comes from libcrypto (EVP AES-256-ECB),
 * one cipher context per request so the DRBG state stays a plain struct.
 */
#include "config.h"
#include "kat/ctr_drbg.h"

#include <string.h>
#include <openssl/evp.h>

#include "core/pq_error.h"

static void increment_v(uint8_t v[16])
{
	for (int j = 15; j >= 0; j--) {
		if (++v[j] != 0)
			break;
	}
}

/*
 * One cipher context per process, created on first use and re-keyed after
 * that: the harness's randombytes() then allocates nothing while a scheme
 * operation runs, so heap figures belong to the scheme alone.  (The runner
 * seeds before any operation, which creates it.)  Not thread-safe, like the
 * randombytes() interface it serves.
 */
static EVP_CIPHER_CTX *shared_ctx;

static EVP_CIPHER_CTX *aes_open(const uint8_t key[32])
{
	if (!shared_ctx) {
		shared_ctx = EVP_CIPHER_CTX_new();
		if (!shared_ctx)
			return NULL;
		if (EVP_EncryptInit_ex(shared_ctx, EVP_aes_256_ecb(), NULL, NULL, NULL) != 1 ||
		    EVP_CIPHER_CTX_set_padding(shared_ctx, 0) != 1) {
			EVP_CIPHER_CTX_free(shared_ctx);
			shared_ctx = NULL;
			return NULL;
		}
	}
	if (EVP_EncryptInit_ex(shared_ctx, NULL, NULL, key, NULL) != 1)
		return NULL;
	return shared_ctx;
}

static int aes_block(EVP_CIPHER_CTX *ctx, const uint8_t in[16], uint8_t out[16])
{
	int len = 0;
	if (EVP_EncryptUpdate(ctx, out, &len, in, 16) != 1 || len != 16)
		return -1;
	return 0;
}

/* CTR_DRBG_Update: three blocks of keystream, XOR provided data, split into key || V. */
static int drbg_update(ctr_drbg *d, const uint8_t *provided)
{
	uint8_t temp[48];
	EVP_CIPHER_CTX *ctx = aes_open(d->key);
	if (!ctx)
		return -PQ_EINTERNAL;
	int bad = 0;
	for (int i = 0; i < 3 && !bad; i++) {
		increment_v(d->v);
		bad = aes_block(ctx, d->v, temp + 16 * i) != 0;
	}
	if (bad)
		return -PQ_EINTERNAL;
	if (provided) {
		for (int i = 0; i < 48; i++)
			temp[i] ^= provided[i];
	}
	memcpy(d->key, temp, 32);
	memcpy(d->v, temp + 32, 16);
	return 0;
}

int ctr_drbg_init(ctr_drbg *d, const uint8_t entropy[CTR_DRBG_SEEDLEN],
                  const uint8_t *pers)
{
	uint8_t seed[CTR_DRBG_SEEDLEN];
	memcpy(seed, entropy, sizeof seed);
	if (pers) {
		for (int i = 0; i < CTR_DRBG_SEEDLEN; i++)
			seed[i] ^= pers[i];
	}
	memset(d, 0, sizeof *d);
	int r = drbg_update(d, seed);
	if (r < 0)
		return r;
	d->reseed_counter = 1;
	d->ready = 1;
	return 0;
}

int ctr_drbg_generate(ctr_drbg *d, uint8_t *out, size_t n)
{
	if (!d->ready)
		return -PQ_EINTERNAL;
	EVP_CIPHER_CTX *ctx = aes_open(d->key);
	if (!ctx)
		return -PQ_EINTERNAL;
	uint8_t block[16];
	size_t done = 0;
	int bad = 0;
	while (done < n && !bad) {
		increment_v(d->v);
		bad = aes_block(ctx, d->v, block) != 0;
		size_t take = n - done < 16 ? n - done : 16;
		memcpy(out + done, block, take);
		done += take;
	}
	if (bad)
		return -PQ_EINTERNAL;
	int r = drbg_update(d, NULL);
	if (r < 0)
		return r;
	d->reseed_counter++;
	return 0;
}

void ctr_drbg_wipe(ctr_drbg *d)
{
	memset(d, 0, sizeof *d);
}
