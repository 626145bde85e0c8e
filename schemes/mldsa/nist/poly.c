/* Arithmetic in R_q and T_q for the in-tree ML-DSA (FIPS 204, sections
 * 7.5 and 7.6).  Reductions use 64-bit products and the % operator: slower
 * than Montgomery arithmetic, but each line reads as the standard writes
 * it.  The timing of % may depend on its operands on some CPUs; this is a
 * baseline for measurement, not a hardened implementation. */
#include "poly.h"

/* zetas[k] = zeta^BitRev8(k) mod q with zeta = 1753, the 512th root of
 * unity mod q (FIPS 204, Appendix B; computed, not typed in). */
static const int32_t zetas[MLD_N] = {
    1, 4808194, 3765607, 3761513, 5178923, 5496691, 5234739, 5178987,
    7778734, 3542485, 2682288, 2129892, 3764867, 7375178, 557458, 7159240,
    5010068, 4317364, 2663378, 6705802, 4855975, 7946292, 676590, 7044481,
    5152541, 1714295, 2453983, 1460718, 7737789, 4795319, 2815639, 2283733,
    3602218, 3182878, 2740543, 4793971, 5269599, 2101410, 3704823, 1159875,
    394148, 928749, 1095468, 4874037, 2071829, 4361428, 3241972, 2156050,
    3415069, 1759347, 7562881, 4805951, 3756790, 6444618, 6663429, 4430364,
    5483103, 3192354, 556856, 3870317, 2917338, 1853806, 3345963, 1858416,
    3073009, 1277625, 5744944, 3852015, 4183372, 5157610, 5258977, 8106357,
    2508980, 2028118, 1937570, 4564692, 2811291, 5396636, 7270901, 4158088,
    1528066, 482649, 1148858, 5418153, 7814814, 169688, 2462444, 5046034,
    4213992, 4892034, 1987814, 5183169, 1736313, 235407, 5130263, 3258457,
    5801164, 1787943, 5989328, 6125690, 3482206, 4197502, 7080401, 6018354,
    7062739, 2461387, 3035980, 621164, 3901472, 7153756, 2925816, 3374250,
    1356448, 5604662, 2683270, 5601629, 4912752, 2312838, 7727142, 7921254,
    348812, 8052569, 1011223, 6026202, 4561790, 6458164, 6143691, 1744507,
    1753, 6444997, 5720892, 6924527, 2660408, 6600190, 8321269, 2772600,
    1182243, 87208, 636927, 4415111, 4423672, 6084020, 5095502, 4663471,
    8352605, 822541, 1009365, 5926272, 6400920, 1596822, 4423473, 4620952,
    6695264, 4969849, 2678278, 4611469, 4829411, 635956, 8129971, 5925040,
    4234153, 6607829, 2192938, 6653329, 2387513, 4768667, 8111961, 5199961,
    3747250, 2296099, 1239911, 4541938, 3195676, 2642980, 1254190, 8368000,
    2998219, 141835, 8291116, 2513018, 7025525, 613238, 7070156, 6161950,
    7921677, 6458423, 4040196, 4908348, 2039144, 6500539, 7561656, 6201452,
    6757063, 2105286, 6006015, 6346610, 586241, 7200804, 527981, 5637006,
    6903432, 1994046, 2491325, 6987258, 507927, 7192532, 7655613, 6545891,
    5346675, 8041997, 2647994, 3009748, 5767564, 4148469, 749577, 4357667,
    3980599, 2569011, 6764887, 1723229, 1665318, 2028038, 1163598, 5011144,
    3994671, 8368538, 7009900, 3020393, 3363542, 214880, 545376, 7609976,
    3105558, 7277073, 508145, 7826699, 860144, 3430436, 140244, 6866265,
    6195333, 3123762, 2358373, 6187330, 5365997, 6663603, 2926054, 7987710,
    8077412, 3531229, 4405932, 4606686, 1900052, 7598542, 1054478, 7648983,
};

/* 256^-1 mod q, the scaling of the inverse NTT. */
#define MLD_INV256 8347681

int32_t mld_mod_q(int64_t r)
{
    r %= MLD_Q;
    return (int32_t)(r < 0 ? r + MLD_Q : r);
}

int32_t mld_centered(int32_t a)
{
    a = mld_mod_q(a);
    return a > (MLD_Q - 1) / 2 ? a - MLD_Q : a;
}

void mld_poly_reduce(mld_poly *a)
{
    int i;

    for (i = 0; i < MLD_N; i++) {
        a->coeffs[i] = mld_mod_q(a->coeffs[i]);
    }
}

/* Algorithm 41, NTT: Cooley-Tukey butterflies, natural order in,
 * bit-reversed order out. */
void mld_poly_ntt(mld_poly *a)
{
    int32_t *w = a->coeffs;
    int m = 0, len, start, j;

    mld_poly_reduce(a);
    for (len = 128; len >= 1; len /= 2) {
        for (start = 0; start < MLD_N; start += 2 * len) {
            int64_t z = zetas[++m];
            for (j = start; j < start + len; j++) {
                int32_t t = mld_mod_q(z * w[j + len]);
                w[j + len] = mld_mod_q((int64_t)w[j] - t);
                w[j] = mld_mod_q((int64_t)w[j] + t);
            }
        }
    }
}

/* Algorithm 42, NTT^-1: Gentleman-Sande butterflies with -zeta, then the
 * factor 256^-1. */
void mld_poly_invntt(mld_poly *a)
{
    int32_t *w = a->coeffs;
    int m = MLD_N, len, start, j;

    mld_poly_reduce(a);
    for (len = 1; len < MLD_N; len *= 2) {
        for (start = 0; start < MLD_N; start += 2 * len) {
            int64_t z = MLD_Q - zetas[--m];
            for (j = start; j < start + len; j++) {
                int32_t t = w[j];
                w[j] = mld_mod_q((int64_t)t + w[j + len]);
                w[j + len] = mld_mod_q(z * ((int64_t)t - w[j + len]));
            }
        }
    }
    for (j = 0; j < MLD_N; j++) {
        w[j] = mld_mod_q((int64_t)MLD_INV256 * w[j]);
    }
}

void mld_poly_pointwise(mld_poly *c, const mld_poly *a, const mld_poly *b)
{
    int i;

    for (i = 0; i < MLD_N; i++) {
        c->coeffs[i] = mld_mod_q((int64_t)a->coeffs[i] * b->coeffs[i]);
    }
}

void mld_poly_add(mld_poly *c, const mld_poly *a, const mld_poly *b)
{
    int i;

    for (i = 0; i < MLD_N; i++) {
        c->coeffs[i] = mld_mod_q((int64_t)a->coeffs[i] + b->coeffs[i]);
    }
}

void mld_poly_sub(mld_poly *c, const mld_poly *a, const mld_poly *b)
{
    int i;

    for (i = 0; i < MLD_N; i++) {
        c->coeffs[i] = mld_mod_q((int64_t)a->coeffs[i] - b->coeffs[i]);
    }
}

void mld_poly_shift_d(mld_poly *a)
{
    int i;

    for (i = 0; i < MLD_N; i++) {
        a->coeffs[i] = mld_mod_q((int64_t)a->coeffs[i] << MLD_D);
    }
}

int mld_poly_norm_below(const mld_poly *a, int32_t bound)
{
    int i;

    for (i = 0; i < MLD_N; i++) {
        int32_t v = mld_centered(a->coeffs[i]);
        if (v >= bound || -v >= bound) {
            return 0;
        }
    }
    return 1;
}
