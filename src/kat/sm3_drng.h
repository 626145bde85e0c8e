/*
 * sm3_drng: the ICCS SM3 Hash_DRBG-style deterministic generator that NGCC
 * submissions draw all randomness from (drng.c: init_random_number /
 * get_random_number), reproduced so pqprof can replay the official
 * KAT_SIG / KAT_KEM flows: SEEDLEN 55 bytes (440 bits), instantiate through
 * the SM3 derivation function, no reseed, no personalization, output
 * length in BITS with the unused low bits of the last byte zeroed.
 * It is for reproducing known answers, not for keys that must be secret.
 * The state is a plain struct: no global state here.
 */
#ifndef PQ_KAT_SM3_DRNG_H
#define PQ_KAT_SM3_DRNG_H

#include <stddef.h>
#include <stdint.h>

#define SM3_DRNG_SEEDLEN 55

typedef struct sm3_drng {
	uint8_t v[SM3_DRNG_SEEDLEN];
	uint8_t c[SM3_DRNG_SEEDLEN];
	uint8_t reseed_counter[SM3_DRNG_SEEDLEN]; /* big-endian integer */
	int ready;
} sm3_drng;

/*
 * V = SM3_df(seed), C = SM3_df(0x00 || V), reseed_counter = 1.
 * seed may be any length (seed_len 0 allowed).  Returns 0, or
 * -PQ_EINTERNAL if libcrypto's SM3 is unavailable.
 */
int sm3_drng_init(sm3_drng *d, const uint8_t *seed, size_t seed_len);

/*
 * Write ceil(nbits/8) bytes to out: SM3(V), SM3(V+1), ... truncated to
 * nbits (low unused bits of the last byte zeroed); then
 * V += SM3(0x03 || V) + C + reseed_counter, reseed_counter += 1.
 * The state is updated even when nbits is 0.  Returns 0, or
 * -PQ_EINTERNAL (SM3 failure, context not instantiated).
 */
int sm3_drng_generate_bits(sm3_drng *d, uint8_t *out, uint64_t nbits);

void sm3_drng_wipe(sm3_drng *d);

#endif
