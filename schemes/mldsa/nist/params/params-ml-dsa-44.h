/* ML-DSA-44: the parameter set of FIPS 204, Table 1. */
#define MLD_PARAM_NAME "ML-DSA-44"
#define MLD_TAU 39                      /* number of +-1 coefficients in c */
#define MLD_LAMBDA 128                  /* collision strength of c~, in bits */
#define MLD_GAMMA1_BITS 17              /* gamma1 = 2^17, the range of y */
#define MLD_GAMMA2 ((MLD_Q - 1) / 88)   /* the low-order rounding range */
#define MLD_K 4                         /* rows of A */
#define MLD_L 4                         /* columns of A */
#define MLD_ETA 2                       /* range of the secret coefficients */
#define MLD_BETA 78                     /* tau * eta */
#define MLD_OMEGA 80                    /* most 1s the hint may hold */
