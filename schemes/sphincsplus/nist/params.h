/* Parameter selection for SPHINCS+ (SHAKE, simple): picks the set named by
 * -DPARAMS=sphincs-shake-128f (etc.; default 128f) and derives the sizes
 * every other file uses. */
#ifndef SPX_PARAMS_H
#define SPX_PARAMS_H

#define SPX_STR_(s) #s
#define SPX_XSTR_(s) SPX_STR_(s)

#ifdef PARAMS
#include SPX_XSTR_(params/params-PARAMS.h)
#else
#include "params/params-sphincs-shake-128f.h"
#endif

/* Subtree height. */
#define SPX_TREE_HEIGHT (SPX_FULL_HEIGHT / SPX_D)
#if SPX_TREE_HEIGHT * SPX_D != SPX_FULL_HEIGHT
#error SPX_D must divide SPX_FULL_HEIGHT
#endif

/* WOTS+ derived lengths (all round 3.1 sets use w = 16). */
#if SPX_WOTS_W == 16
#define SPX_WOTS_LOGW 4
#define SPX_WOTS_LEN1 (8 * SPX_N / SPX_WOTS_LOGW)
/* floor(log2(len1 * (w - 1)) / log2(w)) + 1 = 3 for 9 <= n <= 136. */
#if SPX_N >= 9 && SPX_N <= 136
#define SPX_WOTS_LEN2 3
#else
#error unsupported SPX_N for w = 16
#endif
#else
#error only SPX_WOTS_W = 16 is supported
#endif
#define SPX_WOTS_LEN (SPX_WOTS_LEN1 + SPX_WOTS_LEN2)
#define SPX_WOTS_BYTES (SPX_WOTS_LEN * SPX_N)
#define SPX_WOTS_PK_BYTES SPX_WOTS_BYTES

/* FORS sizes. */
#define SPX_FORS_MSG_BYTES ((SPX_FORS_HEIGHT * SPX_FORS_TREES + 7) / 8)
#define SPX_FORS_BYTES ((SPX_FORS_HEIGHT + 1) * SPX_FORS_TREES * SPX_N)
#define SPX_FORS_PK_BYTES SPX_N

/* Whole-scheme sizes. */
#define SPX_BYTES (SPX_N + SPX_FORS_BYTES + SPX_D * SPX_WOTS_BYTES + \
                   SPX_FULL_HEIGHT * SPX_N)
#define SPX_PK_BYTES (2 * SPX_N)
#define SPX_SK_BYTES (2 * SPX_N + SPX_PK_BYTES)
#define SPX_SEED_BYTES (3 * SPX_N)

/* Address (ADRS) size in bytes; SHAKE uses the full 32-byte form. */
#define SPX_ADDR_BYTES 32

#endif
