/*
 * nist_rng: the randombytes() that NIST-API instances draw from, as the
 * NIST PQC reference rng.c provides it: one AES-256 CTR_DRBG (ctr_drbg.h)
 * per process, instantiated from a 48-byte seed.  The KAT engine re-seeds
 * it for every record; the runner's benchmark, memory and profile jobs
 * seed it once with the benchmark seed.  Both hand nist_rng_randombytes
 * to the instance through its set_rng hook.
 *
 * Process-wide state, on purpose: the instance's rng callback takes no
 * user pointer, so the DRBG it reads from cannot be passed to it.
 */
#ifndef PQ_KAT_NIST_RNG_H
#define PQ_KAT_NIST_RNG_H

#include <stdint.h>

#include "instance/pqprof_abi.h"
#include "kat/ctr_drbg.h"

/* (Re-)instantiate the DRBG from 48 bytes; 0, or -PQ_EINTERNAL if libcrypto's AES fails. */
int nist_rng_seed(const uint8_t seed[CTR_DRBG_SEEDLEN]);

/* The rng callback: len bytes from the DRBG; 0, or -1 when unseeded or AES fails. */
int nist_rng_randombytes(unsigned char *out, pq_u64 len);

/* Forget the state; until the next seed, nist_rng_randombytes fails. */
void nist_rng_wipe(void);

#endif
