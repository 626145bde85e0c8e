/* Parameter selection for the in-tree ML-DSA: picks the set named by
 * -DPARAMS=ml-dsa-44 (or ml-dsa-65, ml-dsa-87; default ml-dsa-44) and
 * derives every size the other files use (FIPS 204, sections 4 and 7). */
#ifndef MLD_PARAMS_H
#define MLD_PARAMS_H

#define MLD_STR_(s) #s
#define MLD_XSTR_(s) MLD_STR_(s)

/* Common to all sets (FIPS 204, Table 1). */
#define MLD_N 256
#define MLD_Q 8380417
#define MLD_D 13            /* dropped bits of t */

#ifdef PARAMS
#include MLD_XSTR_(params/params-PARAMS.h)
#else
#include "params/params-ml-dsa-44.h"
#endif

#define MLD_GAMMA1 (1 << MLD_GAMMA1_BITS)

/* Byte strings of KeyGen and Sign. */
#define MLD_SEED_BYTES 32    /* xi, rho, K, rnd */
#define MLD_RHOPRIME_BYTES 64
#define MLD_TR_BYTES 64
#define MLD_MU_BYTES 64
#define MLD_CTILDE_BYTES (2 * MLD_LAMBDA / 8)

/* Bits per packed coefficient (bitlen of the value ranges). */
#define MLD_T1_BITS 10       /* bitlen(q - 1) - d */
#define MLD_T0_BITS MLD_D    /* t0 in [-2^(d-1) + 1, 2^(d-1)] */
#if MLD_ETA == 2
#define MLD_ETA_BITS 3
#elif MLD_ETA == 4
#define MLD_ETA_BITS 4
#else
#error MLD_ETA must be 2 or 4
#endif
#define MLD_Z_BITS (MLD_GAMMA1_BITS + 1)
#if MLD_GAMMA2 == (MLD_Q - 1) / 88
#define MLD_W1_BITS 6        /* w1 in [0, 43] */
#elif MLD_GAMMA2 == (MLD_Q - 1) / 32
#define MLD_W1_BITS 4        /* w1 in [0, 15] */
#else
#error unsupported MLD_GAMMA2
#endif

#define MLD_POLY_BYTES(bits) (MLD_N * (bits) / 8)

/* Encoded sizes (FIPS 204, Table 2). */
#define MLD_PK_BYTES (MLD_SEED_BYTES + MLD_K * MLD_POLY_BYTES(MLD_T1_BITS))
#define MLD_SK_BYTES (2 * MLD_SEED_BYTES + MLD_TR_BYTES + \
                      (MLD_L + MLD_K) * MLD_POLY_BYTES(MLD_ETA_BITS) + \
                      MLD_K * MLD_POLY_BYTES(MLD_T0_BITS))
#define MLD_SIG_BYTES (MLD_CTILDE_BYTES + MLD_L * MLD_POLY_BYTES(MLD_Z_BITS) + \
                       MLD_OMEGA + MLD_K)
#define MLD_W1_PACKED_BYTES (MLD_K * MLD_POLY_BYTES(MLD_W1_BITS))

#endif
