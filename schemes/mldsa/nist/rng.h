/* Randomness interface of the NIST submission tree: the scheme only calls
 * randombytes(); rng.c (NIST AES-256 CTR_DRBG) or the host supplies it. */
#ifndef MLD_RNG_H
#define MLD_RNG_H

#define RNG_SUCCESS 0
#define RNG_BAD_MAXLEN -1
#define RNG_BAD_OUTBUF -2
#define RNG_BAD_REQ_LEN -3

#ifdef __cplusplus
extern "C" {
#endif

/* Seeds the NIST KAT DRBG (only provided by rng.c). */
void randombytes_init(unsigned char *entropy_input,
                      unsigned char *personalization_string,
                      int security_strength);

int randombytes(unsigned char *x, unsigned long long xlen);

#ifdef __cplusplus
}
#endif

#endif
