/* ML-DSA-87: the parameter set of FIPS 204, Table 1. */
#define MLD_PARAM_NAME "ML-DSA-87"
#define MLD_TAU 60                      /* number of +-1 coefficients in c */
#define MLD_LAMBDA 256                  /* collision strength of c~, in bits */
#define MLD_GAMMA1_BITS 19              /* gamma1 = 2^19, the range of y */
#define MLD_GAMMA2 ((MLD_Q - 1) / 32)   /* the low-order rounding range */
#define MLD_K 8                         /* rows of A */
#define MLD_L 7                         /* columns of A */
#define MLD_ETA 2                       /* range of the secret coefficients */
#define MLD_BETA 120                    /* tau * eta */
#define MLD_OMEGA 75                    /* most 1s the hint may hold */
