/* ML-DSA-65: the parameter set of FIPS 204, Table 1. */
#define MLD_PARAM_NAME "ML-DSA-65"
#define MLD_TAU 49                      /* number of +-1 coefficients in c */
#define MLD_LAMBDA 192                  /* collision strength of c~, in bits */
#define MLD_GAMMA1_BITS 19              /* gamma1 = 2^19, the range of y */
#define MLD_GAMMA2 ((MLD_Q - 1) / 32)   /* the low-order rounding range */
#define MLD_K 6                         /* rows of A */
#define MLD_L 5                         /* columns of A */
#define MLD_ETA 4                       /* range of the secret coefficients */
#define MLD_BETA 196                    /* tau * eta */
#define MLD_OMEGA 55                    /* most 1s the hint may hold */
