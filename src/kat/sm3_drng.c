/*
 * sm3_drng: the ICCS SM3 DRNG (drng.c) rebuilt on libcrypto's SM3; see
 * sm3_drng.h.  Arithmetic on V, C and the counter is on 55-byte
 * big-endian integers modulo 2^440.
 */
#include "config.h"
#include "kat/sm3_drng.h"

#include <string.h>
#include <openssl/evp.h>

#include "core/pq_error.h"

#define SM3_OUTLEN 32
#define SEEDLEN_BITS (SM3_DRNG_SEEDLEN * 8)

/* SM3 over up to three concatenated parts (NULL parts are skipped). */
static int sm3_parts(const void *a, size_t alen, const void *b, size_t blen,
                     const void *c, size_t clen, uint8_t out[SM3_OUTLEN])
{
	const EVP_MD *md = EVP_sm3();
	if (!md)
		return -PQ_EINTERNAL;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx)
		return -PQ_EINTERNAL;
	unsigned olen = 0;
	int ok = EVP_DigestInit_ex(ctx, md, NULL) == 1 &&
	         (!a || EVP_DigestUpdate(ctx, a, alen) == 1) &&
	         (!b || EVP_DigestUpdate(ctx, b, blen) == 1) &&
	         (!c || EVP_DigestUpdate(ctx, c, clen) == 1) &&
	         EVP_DigestFinal_ex(ctx, out, &olen) == 1 && olen == SM3_OUTLEN;
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : -PQ_EINTERNAL;
}

/*
 * Hash_df: SM3(counter || be32(440) || pre || input) for counter = 1, 2,
 * concatenated and cut to 55 bytes.  pre is an optional single byte.
 */
static int sm3_df(const uint8_t *pre, size_t prelen, const uint8_t *in, size_t inlen,
                  uint8_t out[SM3_DRNG_SEEDLEN])
{
	uint8_t buf[2 * SM3_OUTLEN];
	for (int i = 0; i < 2; i++) {
		uint8_t head[5] = {
			(uint8_t)(i + 1),
			(uint8_t)(SEEDLEN_BITS >> 24), (uint8_t)(SEEDLEN_BITS >> 16),
			(uint8_t)(SEEDLEN_BITS >> 8), (uint8_t)SEEDLEN_BITS,
		};
		int r = sm3_parts(head, sizeof head, pre, prelen, in ? in : (const uint8_t *)"",
		                  inlen, buf + SM3_OUTLEN * i);
		if (r < 0)
			return r;
	}
	memcpy(out, buf, SM3_DRNG_SEEDLEN);
	return 0;
}

/* acc += add (add is addlen bytes, right-aligned), modulo 2^440. */
static void add_be(uint8_t acc[SM3_DRNG_SEEDLEN], const uint8_t *add, size_t addlen)
{
	unsigned carry = 0;
	for (size_t k = 0; k < SM3_DRNG_SEEDLEN; k++) {
		size_t i = SM3_DRNG_SEEDLEN - 1 - k;
		unsigned s = acc[i] + carry;
		if (k < addlen)
			s += add[addlen - 1 - k];
		acc[i] = (uint8_t)s;
		carry = s >> 8;
	}
}

static void increment_be(uint8_t x[SM3_DRNG_SEEDLEN])
{
	static const uint8_t one = 1;
	add_be(x, &one, 1);
}

int sm3_drng_init(sm3_drng *d, const uint8_t *seed, size_t seed_len)
{
	memset(d, 0, sizeof *d);
	int r = sm3_df(NULL, 0, seed, seed_len, d->v);
	if (r < 0)
		return r;
	static const uint8_t zero = 0x00;
	r = sm3_df(&zero, 1, d->v, SM3_DRNG_SEEDLEN, d->c);
	if (r < 0)
		return r;
	d->reseed_counter[SM3_DRNG_SEEDLEN - 1] = 1;
	d->ready = 1;
	return 0;
}

int sm3_drng_generate_bits(sm3_drng *d, uint8_t *out, uint64_t nbits)
{
	if (!d->ready)
		return -PQ_EINTERNAL;
	uint64_t nbytes = nbits / 8 + (nbits % 8 != 0);
	uint8_t data[SM3_DRNG_SEEDLEN], block[SM3_OUTLEN];
	memcpy(data, d->v, sizeof data);
	for (uint64_t done = 0; done < nbytes; ) {
		int r = sm3_parts(data, sizeof data, NULL, 0, NULL, 0, block);
		if (r < 0)
			return r;
		uint64_t take = nbytes - done < SM3_OUTLEN ? nbytes - done : SM3_OUTLEN;
		memcpy(out + done, block, (size_t)take);
		done += take;
		increment_be(data);
	}
	if (nbits % 8)
		out[nbytes - 1] &= (uint8_t)(0xFFu << (8 - nbits % 8));

	static const uint8_t three = 0x03;
	uint8_t h[SM3_OUTLEN];
	int r = sm3_parts(&three, 1, d->v, SM3_DRNG_SEEDLEN, NULL, 0, h);
	if (r < 0)
		return r;
	add_be(d->v, h, sizeof h);
	add_be(d->v, d->c, SM3_DRNG_SEEDLEN);
	add_be(d->v, d->reseed_counter, SM3_DRNG_SEEDLEN);
	increment_be(d->reseed_counter);
	return 0;
}

void sm3_drng_wipe(sm3_drng *d)
{
	memset(d, 0, sizeof *d);
}
