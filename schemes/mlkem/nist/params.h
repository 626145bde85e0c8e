/* Parameter selection for ML-KEM (FIPS 203): picks the set named by
 * -DPARAMS=ml-kem-512 (or ml-kem-768, ml-kem-1024; default ml-kem-768,
 * the set FIPS 203 recommends as the default) and derives the sizes every
 * other file uses. */
#ifndef MLKEM_PARAMS_H
#define MLKEM_PARAMS_H

#define MLKEM_STR_(s) #s
#define MLKEM_XSTR_(s) MLKEM_STR_(s)

#ifdef PARAMS
#include MLKEM_XSTR_(params/params-PARAMS.h)
#else
#include "params/params-ml-kem-768.h"
#endif

/* The ring R_q = Z_q[X]/(X^256 + 1), q = 3329 (FIPS 203, section 2.4). */
#define MLKEM_N 256
#define MLKEM_Q 3329

/* Seeds, hashes, messages and shared secrets are all 32 bytes. */
#define MLKEM_SYM_BYTES 32

/* One polynomial with 12-bit coefficients (ByteEncode_12). */
#define MLKEM_POLY_BYTES 384

/* Sizes of section 8, Table 3. */
#define MLKEM_DK_PKE_BYTES (MLKEM_POLY_BYTES * MLKEM_K)
#define MLKEM_EK_BYTES (MLKEM_POLY_BYTES * MLKEM_K + MLKEM_SYM_BYTES)
#define MLKEM_DK_BYTES (MLKEM_DK_PKE_BYTES + MLKEM_EK_BYTES + 2 * MLKEM_SYM_BYTES)
#define MLKEM_CT_U_BYTES (32 * MLKEM_DU * MLKEM_K)
#define MLKEM_CT_V_BYTES (32 * MLKEM_DV)
#define MLKEM_CT_BYTES (MLKEM_CT_U_BYTES + MLKEM_CT_V_BYTES)
#define MLKEM_SS_BYTES MLKEM_SYM_BYTES

#endif
