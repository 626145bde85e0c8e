/* SPHINCS+ round 3.1 parameter set shake-192f (simple): the six numbers
 * that define the instance; params.h derives everything else. */
#ifndef SPX_PARAMS_SET_H
#define SPX_PARAMS_SET_H

#define SPX_PARAM_NAME "shake-192f"

/* Hash output length in bytes (security parameter n). */
#define SPX_N 24
/* Height of the hypertree. */
#define SPX_FULL_HEIGHT 66
/* Number of subtree layers. */
#define SPX_D 22
/* FORS tree height and number of FORS trees. */
#define SPX_FORS_HEIGHT 8
#define SPX_FORS_TREES 33
/* Winternitz parameter. */
#define SPX_WOTS_W 16

#endif
