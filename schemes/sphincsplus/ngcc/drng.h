/* SM3-based deterministic random number generator of the NGCC (ICCS)
 * submission API: a Hash_DRBG-style construction, seedlen 440 bits, no
 * reseeding, no personalisation string. */
#ifndef DRNG_H
#define DRNG_H

#define SEEDLEN (55)

typedef struct {
    unsigned char V[SEEDLEN];
    unsigned char C[SEEDLEN];
    unsigned char reseed_counter[SEEDLEN];
} DRNG_ctx;

#ifdef __cplusplus
extern "C" {
#endif

/* Instantiates drng from seed (length in BYTES). Returns 0. */
int init_random_number(DRNG_ctx *drng, const unsigned char *seed,
                       unsigned long long seed_len_bytes);

/* Writes random_number_len_bits bits (length in BITS; unused low bits of a
 * partial last byte are zero). Returns 0. */
int get_random_number(DRNG_ctx *drng, unsigned char *random_number,
                      unsigned long long random_number_len_bits);

#ifdef __cplusplus
}
#endif

#endif
