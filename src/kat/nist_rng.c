/* nist_rng: the process's NIST randombytes() DRBG; see nist_rng.h. */
#include "config.h"
#include "kat/nist_rng.h"

static ctr_drbg drbg;

int nist_rng_seed(const uint8_t seed[CTR_DRBG_SEEDLEN])
{
	return ctr_drbg_init(&drbg, seed, NULL);
}

int nist_rng_randombytes(unsigned char *out, pq_u64 len)
{
	if (len > SIZE_MAX)
		return -1;
	return ctr_drbg_generate(&drbg, out, (size_t)len) == 0 ? 0 : -1;
}

void nist_rng_wipe(void)
{
	ctr_drbg_wipe(&drbg);
}
