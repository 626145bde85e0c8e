/* randombytes() for the NGCC tree: all scheme randomness comes from the
 * global ICCS DRNG drng_algorithm (defined by KAT_SIG.c or the host). */
#include "drng.h"
#include "rng.h"

extern DRNG_ctx drng_algorithm;

int randombytes(unsigned char *x, unsigned long long xlen)
{
    return get_random_number(&drng_algorithm, x, xlen * 8);
}
