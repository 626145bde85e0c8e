/*
 * ctr_drbg: the NIST SP 800-90A AES-256 CTR_DRBG exactly as the NIST PQC
 * KAT generators (PQCgenKAT_sign / PQCgenKAT_kem, rng.c) use it: no
 * derivation function, 48-byte entropy input, optional 48-byte
 * personalization string, no reseeding, output in 16-byte blocks with an
 * update after every request.  It exists to reproduce published NIST
 * vectors and to drive NIST-API schemes' randombytes(); it is not a
 * general-purpose or secure random source (no prediction resistance, no
 * request limits).  The state is a plain struct: no global state here.
 */
#ifndef PQ_KAT_CTR_DRBG_H
#define PQ_KAT_CTR_DRBG_H

#include <stddef.h>
#include <stdint.h>

#define CTR_DRBG_SEEDLEN 48

typedef struct ctr_drbg {
	uint8_t key[32];
	uint8_t v[16];
	uint64_t reseed_counter;
	int ready;
} ctr_drbg;

/*
 * Instantiate from 48 bytes of entropy; pers is NULL or 48 bytes that are
 * XORed into the seed material (rng.c's personalization_string).
 * Returns 0, or -PQ_EINTERNAL if libcrypto's AES fails.
 */
int ctr_drbg_init(ctr_drbg *d, const uint8_t entropy[CTR_DRBG_SEEDLEN],
                  const uint8_t *pers);

/*
 * Write n bytes (any n, 0 included) and update the state, as one
 * randombytes(out, n) call does.  Returns 0, -PQ_EINTERNAL on AES failure
 * or if the context was never instantiated.
 */
int ctr_drbg_generate(ctr_drbg *d, uint8_t *out, size_t n);

/* Forget the state. */
void ctr_drbg_wipe(ctr_drbg *d);

#endif
