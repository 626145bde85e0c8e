/* Reduction mod q = 8380417 for the in-tree ML-DSA, without division or
 * the % operator, and without branches: Montgomery reduction with
 * R = 2^32 for products, a shift reduction by 2^23 for sums, and the
 * conditional addition of q that brings a value into [0, q).
 *
 * Coefficients are int32_t and are allowed to grow between reductions
 * ("lazy reduction"); each function states the range it accepts and the
 * range it returns.  Two implementation-defined behaviours of C99 are
 * relied on, as by every constant-time lattice implementation in C:
 * converting a uint32_t above INT32_MAX to int32_t wraps modulo 2^32, and
 * >> of a negative signed value shifts in copies of the sign bit. */
#ifndef MLD_REDUCE_H
#define MLD_REDUCE_H

#include <stdint.h>

#include "params.h"

/* q^-1 mod 2^32, so that q * MLD_QINV = 1 (mod 2^32). */
#define MLD_QINV 58728449u
/* (q - 1) / 2, the largest centered representative. */
#define MLD_HALF_Q ((MLD_Q - 1) / 2)

/* Montgomery reduction: for |x| < 2^31 q returns r = x 2^-32 mod q with
 * |r| <= |x| / 2^32 + q / 2, so |r| < q.  m = x q^-1 mod 2^32, taken as a
 * signed value, makes x - m q divisible by 2^32. */
static inline int32_t mld_montgomery_reduce(int64_t x)
{
    int32_t m = (int32_t)((uint32_t)x * MLD_QINV);

    return (int32_t)((x - (int64_t)m * MLD_Q) >> 32);
}

/* a b 2^-32 mod q; one factor is usually a constant times 2^32 mod q
 * ("Montgomery form"), which makes this an ordinary modular product. */
static inline int32_t mld_montgomery_mul(int32_t a, int32_t b)
{
    return mld_montgomery_reduce((int64_t)a * b);
}

/* a - round(a / 2^23) q, congruent to a: since 2^23 = q + 2^13 - 1, the
 * quotient is close to a / q.  For a <= 2^31 - 2^22 - 1 the result lies in
 * [-6283009, 6283008], well inside (-q, q). */
static inline int32_t mld_reduce23(int32_t a)
{
    int32_t t = (a + (1 << 22)) >> 23;

    return a - t * MLD_Q;
}

/* a + q if a is negative: (-q, q) -> [0, q). */
static inline int32_t mld_caddq(int32_t a)
{
    return a + ((a >> 31) & MLD_Q);
}

/* The representative in [0, q) of any a <= 2^31 - 2^22 - 1. */
static inline int32_t mld_freeze(int32_t a)
{
    return mld_caddq(mld_reduce23(a));
}

/* The centered representative (a mod+- q, in [-(q-1)/2, (q-1)/2]) of any
 * a with |a| < 3q/2: subtract q above (q-1)/2, add q below -(q-1)/2. */
static inline int32_t mld_center(int32_t a)
{
    a -= ((MLD_HALF_Q - a) >> 31) & MLD_Q;
    a += ((a + MLD_HALF_Q) >> 31) & MLD_Q;
    return a;
}

#endif
