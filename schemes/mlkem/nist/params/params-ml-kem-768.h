/* ML-KEM-768 (FIPS 203, Table 2): the five numbers that define the
 * parameter set; params.h derives every size from them. */
#ifndef MLKEM_PARAMS_SET_H
#define MLKEM_PARAMS_SET_H

#define MLKEM_PARAM_NAME "ML-KEM-768"

/* Module rank: vectors have k polynomials, the matrix is k x k. */
#define MLKEM_K 3
/* Centred binomial widths: eta1 for s, e and y; eta2 for e1 and e2. */
#define MLKEM_ETA1 2
#define MLKEM_ETA2 2
/* Compression of the ciphertext parts u (d_u bits) and v (d_v bits). */
#define MLKEM_DU 10
#define MLKEM_DV 4

#endif
