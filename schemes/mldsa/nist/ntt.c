/* NTT and NTT^-1 of the in-tree ML-DSA (FIPS 204, Algorithms 41, 42).
 *
 * Twiddle factors: mld_zetas[k] = zeta^BitRev8(k) * 2^32 mod q, with
 * zeta = 1753 the 512th root of unity of FIPS 204 (Appendix B), stored as
 * the representative in (-q/2, q/2].  The table was computed, not typed
 * in, by
 *     q, R = 8380417, 2**32
 *     brv = lambda k: int(format(k, '08b')[::-1], 2)
 *     z = [pow(1753, brv(k), q) * R % q for k in range(256)]
 *     z = [v - q if v > q // 2 else v for v in z]
 * (entry 0 is not used).  Being in Montgomery form, a twiddle enters a
 * butterfly through mld_montgomery_mul, which returns zeta^BitRev8(k) b
 * mod q in (-q, q) with no further scaling.
 *
 * Bounds (lazy reduction).  Forward: each layer adds a product below
 * q/2 + 2^17 in absolute value to a coefficient, so inputs |a| <= q come
 * out below q + 8 (q/2 + 2^17) < 6q; nothing is reduced in between.
 * Inverse: the sums double each layer and the differences are reduced
 * by the twiddle product, so inputs below 2q stay below 2^7 * 2q = 256q
 * < 2^31 through layers 1 to 7; the last layer works in 64 bits and
 * folds in the final factor (see mld_ntt_inverse). */
#include "ntt.h"
#include "reduce.h"

static const int32_t mld_zetas[MLD_N] = {
    -4186625, 25847, -2608894, -518909, 237124, -777960, -876248, 466468,
    1826347, 2353451, -359251, -2091905, 3119733, -2884855, 3111497, 2680103,
    2725464, 1024112, -1079900, 3585928, -549488, -1119584, 2619752, -2108549,
    -2118186, -3859737, -1399561, -3277672, 1757237, -19422, 4010497, 280005,
    2706023, 95776, 3077325, 3530437, -1661693, -3592148, -2537516, 3915439,
    -3861115, -3043716, 3574422, -2867647, 3539968, -300467, 2348700, -539299,
    -1699267, -1643818, 3505694, -3821735, 3507263, -2140649, -1600420, 3699596,
    811944, 531354, 954230, 3881043, 3900724, -2556880, 2071892, -2797779,
    -3930395, -1528703, -3677745, -3041255, -1452451, 3475950, 2176455, -1585221,
    -1257611, 1939314, -4083598, -1000202, -3190144, -3157330, -3632928, 126922,
    3412210, -983419, 2147896, 2715295, -2967645, -3693493, -411027, -2477047,
    -671102, -1228525, -22981, -1308169, -381987, 1349076, 1852771, -1430430,
    -3343383, 264944, 508951, 3097992, 44288, -1100098, 904516, 3958618,
    -3724342, -8578, 1653064, -3249728, 2389356, -210977, 759969, -1316856,
    189548, -3553272, 3159746, -1851402, -2409325, -177440, 1315589, 1341330,
    1285669, -1584928, -812732, -1439742, -3019102, -3881060, -3628969, 3839961,
    2091667, 3407706, 2316500, 3817976, -3342478, 2244091, -2446433, -3562462,
    266997, 2434439, -1235728, 3513181, -3520352, -3759364, -1197226, -3193378,
    900702, 1859098, 909542, 819034, 495491, -1613174, -43260, -522500,
    -655327, -3122442, 2031748, 3207046, -3556995, -525098, -768622, -3595838,
    342297, 286988, -2437823, 4108315, 3437287, -3342277, 1735879, 203044,
    2842341, 2691481, -2590150, 1265009, 4055324, 1247620, 2486353, 1595974,
    -3767016, 1250494, 2635921, -3548272, -2994039, 1869119, 1903435, -1050970,
    -1333058, 1237275, -3318210, -1430225, -451100, 1312455, 3306115, -1962642,
    -1279661, 1917081, -2546312, -1374803, 1500165, 777191, 2235880, 3406031,
    -542412, -2831860, -1671176, -1846953, -2584293, -3724270, 594136, -3776993,
    -2013608, 2432395, 2454455, -164721, 1957272, 3369112, 185531, -1207385,
    -3183426, 162844, 1616392, 3014001, 810149, 1652634, -3694233, -1799107,
    -3038916, 3523897, 3866901, 269760, 2213111, -975884, 1717735, 472078,
    -426683, 1723600, -1803090, 1910376, -1667432, -1104333, -260646, -3833893,
    -2939036, -2235985, -420899, -2286327, 183443, -976891, 1612842, -3545687,
    -554416, 3919660, -48306, -1362209, 3937738, 1400424, -846154, 1976782,
};

/* 2^64 / 256 mod q, centered: the constant that makes the last
 * Montgomery product of mld_ntt_inverse scale by 256^-1 and by the
 * Montgomery factor 2^32 (mld_montgomery_mul(F, x) = x 2^32 / 256). */
#define MLD_INVNTT_F 41978
/* -zeta^128 * 2^64 / 256 mod q, centered: the last layer's twiddle
 * -mld_zetas[1], with the same factor 2^32 / 256 folded in. */
#define MLD_INVNTT_F_ZETA 3975713

/* Algorithm 41: Cooley-Tukey butterflies (a, b) -> (a + zeta b,
 * a - zeta b), len = 128, 64, ..., 1, twiddles taken in the order
 * mld_zetas[1], mld_zetas[2], ... */
void mld_ntt(int32_t a[MLD_N])
{
    unsigned len, start, j, k = 0;

    for (len = MLD_N / 2; len >= 1; len >>= 1) {
        for (start = 0; start < MLD_N; start += 2 * len) {
            const int32_t zeta = mld_zetas[++k];

            for (j = start; j < start + len; j++) {
                int32_t t = mld_montgomery_mul(zeta, a[j + len]);

                a[j + len] = a[j] - t;
                a[j] = a[j] + t;
            }
        }
    }
}

/* One Gentleman-Sande butterfly: (a, b) -> (a + b, zeta (a - b)). */
#define GS_BUTTERFLY(x, y, zeta) do {                   \
        int32_t t_ = (x);                              \
        (x) = t_ + (y);                                \
        (y) = mld_montgomery_mul((zeta), t_ - (y));    \
    } while (0)

/* Algorithm 42: Gentleman-Sande butterflies (a, b) -> (a + b,
 * -zeta (a - b)) for len = 1, 2, ..., 128, with the twiddles of
 * Algorithm 41 taken backwards: block b of the layer with distance len
 * uses -mld_zetas[256 / len - 1 - b].  The layers are done two at a
 * time (len = h, then 2h) on groups of four coefficients a[j], a[j + h],
 * a[j + 2h], a[j + 3h], so each coefficient is loaded and stored once
 * per two layers.  Algorithm 42 ends by multiplying every coefficient by
 * 256^-1; here that factor (and 2^32) rides on the last layer, whose two
 * outputs each get one Montgomery product anyway. */
void mld_ntt_inverse(int32_t a[MLD_N])
{
    unsigned h, start, j;

    for (h = 1; h < MLD_N / 4; h <<= 2) {
        const int32_t *z1 = &mld_zetas[MLD_N / h - 1];
        const int32_t *z2 = &mld_zetas[MLD_N / (2 * h) - 1];

        for (start = 0; start < MLD_N; start += 4 * h) {
            const int32_t za = -z1[0], zb = -z1[-1], zc = -*z2--;

            z1 -= 2;
            for (j = start; j < start + h; j++) {
                int32_t a0 = a[j], a1 = a[j + h], a2 = a[j + 2 * h], a3 = a[j + 3 * h];

                GS_BUTTERFLY(a0, a1, za);
                GS_BUTTERFLY(a2, a3, zb);
                GS_BUTTERFLY(a0, a2, zc);
                GS_BUTTERFLY(a1, a3, zc);
                a[j] = a0;
                a[j + h] = a1;
                a[j + 2 * h] = a2;
                a[j + 3 * h] = a3;
            }
        }
    }
    /* len = 64, then len = 128 with the final factor.  After six layers
     * the coefficients are below 2^6 2q = 128q, after the seventh below
     * 256q, so the last layer's sum and difference (below 512q) are
     * formed in 64 bits; their products with the two constants stay far
     * below the 2^31 q that Montgomery reduction accepts, and come out
     * below q. */
    h = MLD_N / 4;
    for (j = 0; j < h; j++) {
        int32_t a0 = a[j], a1 = a[j + h], a2 = a[j + 2 * h], a3 = a[j + 3 * h];
        int64_t s0, s1;

        GS_BUTTERFLY(a0, a1, -mld_zetas[3]);
        GS_BUTTERFLY(a2, a3, -mld_zetas[2]);
        s0 = a0;
        s1 = a2;
        a[j] = mld_montgomery_reduce((s0 + s1) * MLD_INVNTT_F);
        a[j + 2 * h] = mld_montgomery_reduce((s0 - s1) * MLD_INVNTT_F_ZETA);
        s0 = a1;
        s1 = a3;
        a[j + h] = mld_montgomery_reduce((s0 + s1) * MLD_INVNTT_F);
        a[j + 3 * h] = mld_montgomery_reduce((s0 - s1) * MLD_INVNTT_F_ZETA);
    }
}
