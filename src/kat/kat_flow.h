/*
 * kat_flow: the record loop of the four known-answer flows.
 *  - NGCC KAT_SIG / KAT_KEM: SM3 seed DRNG ("seed" x16) and, for
 *    signatures, message DRNG ("msg" x21 + "m"); per record the scheme's
 *    drng_algorithm is re-seeded through inst->seed().
 *  - NIST PQCgenKAT_sign / _kem: master AES-256 CTR_DRBG (entropy
 *    0x00..0x2F); per record the scheme's randombytes() DRBG
 *    (kat/nist_rng.h) is re-instantiated with the record's seed.
 * Seeds and messages are drawn before any scheme code runs, so a scheme
 * cannot disturb the sequence; each good round becomes one record.
 */
#ifndef PQ_KAT_FLOW_H
#define PQ_KAT_FLOW_H

#include "kat/kat_round.h"

/* nrec records into f; stops at the first failure (recorded); <0 on harness errors. */
int kat_flow_run_records(struct engine *e, size_t nrec, struct kat_file *f);

/*
 * The seed of record 0 of the NIST (nist = 1, 48 bytes) or NGCC (64 bytes)
 * flow, into out (room for 64); *len gets its length.  Every file either
 * generator writes starts with it, whatever the scheme.  0, or negative
 * when libcrypto fails.
 */
int kat_flow_first_seed(int nist, uint8_t *out, size_t *len);

#endif
