/* The exact integer path that defines every Quant result: input decoding,
 * the multiplier as an odd significand times a power of two, and the
 * ordered contract in integers only (independent of FP modes).  Portable C
 * that the EV74 kernel's OpenCL C program includes too: its scalar tails
 * and scatter elements run this code. */
#ifndef SK_QUANT_EXACT_H
#define SK_QUANT_EXACT_H
#include "../include/simakernels.h"

/* A decoded input: value = (-1)^neg * sig * 2^exp for finite values. */
enum { SK_Q_FINITE = 0, SK_Q_ZERO = 1, SK_Q_INF = 2, SK_Q_NAN = 3 };
typedef struct sk_q_decoded {
    int kind;
    int neg;
    uint32_t sig;
    int32_t exp;
} sk_q_decoded;

static inline sk_q_decoded sk_q_decode(uint32_t bits, int exp_bits, int frac_bits) {
    const uint32_t frac_mask = (1u << frac_bits) - 1, exp_max = (1u << exp_bits) - 1;
    const int bias = (1 << (exp_bits - 1)) - 1;
    const uint32_t e = (bits >> frac_bits) & exp_max, f = bits & frac_mask;
    sk_q_decoded d = {SK_Q_FINITE, (int)(bits >> (exp_bits + frac_bits)), f, 1 - bias - frac_bits};
    if (e == exp_max)
        d.kind = f ? SK_Q_NAN : SK_Q_INF;
    else if (e == 0 && f == 0)
        d.kind = SK_Q_ZERO;
    else if (e != 0) {
        d.sig = f | (1u << frac_bits);
        d.exp = (int32_t)e - bias - frac_bits;
    }
    return d;
}
static inline sk_q_decoded sk_q_decode_f32(uint32_t b) { return sk_q_decode(b, 8, 23); }
static inline sk_q_decoded sk_q_decode_bf16(uint16_t b) { return sk_q_decode(b, 8, 7); }
static inline sk_q_decoded sk_q_decode_f16(uint16_t b) { return sk_q_decode(b, 5, 10); }

#ifdef __OPENCL_C_VERSION__
static inline int sk_q_bitlen64(uint64_t v) { return 64 - (int)clz(v); }
static inline int sk_q_trailing_zeros64(uint64_t v) { return 63 - (int)clz(v & (0 - v)); } /* v > 0 */
#else
static inline int sk_q_bitlen64(uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }
static inline int sk_q_trailing_zeros64(uint64_t v) { return __builtin_ctzll(v); } /* v > 0 */
#endif

/* Multiplier bits = msig * 2^mexp with msig odd (0 for a zero multiplier,
 * which admission refuses).  Powers of two leave the significand once per
 * plan or invocation, not per element: all at once, as many as the lowest
 * set bit's position (a dynamic quantization prepares one multiplier per
 * block of 32 elements, where a loop per bit shows). */
static inline void sk_q_multiplier(uint32_t bits, uint64_t *msig, int32_t *mexp) {
    const uint32_t e = (bits >> 23) & 0xffu, f = bits & 0x7fffffu;
    const uint64_t sig = e ? (f | 0x800000u) : f;
    const int zeros = sig ? sk_q_trailing_zeros64(sig) : 0;
    *msig = sig >> zeros;
    *mexp = (e ? (int32_t)e - 150 : -149) + zeros;
}

/* Magnitudes of the rounded product are capped here: from 2^20 up every
 * zero point of every storage range (at most 16 bits, |zero point| < 2^16)
 * saturates by sign, so the cap changes no result and keeps the sums
 * below in 32 bits. */
#define SK_Q_MAGNITUDE_CAP ((uint64_t)1 << 20)

/* Integer rounding of (ip + rem / 2^n) by the mode, for a magnitude with the
 * given sign; rem < 2^n.  `n` may exceed 63 (then rem is all sticky). */
static inline uint64_t sk_q_round_magnitude(uint64_t ip, uint64_t rem, int n, int neg, int mode) {
    if (rem == 0) return ip;
    switch (mode) {
    case SK_QUANT_NEAREST_EVEN: {
        if (n > 63) return ip; /* rem < 2^64 <= halfway: below it */
        const uint64_t halfway = (uint64_t)1 << (n - 1);
        return ip + (rem > halfway || (rem == halfway && (ip & 1)));
    }
    case SK_QUANT_TOWARD_ZERO:
        return ip;
    case SK_QUANT_TOWARD_POSITIVE:
        return ip + !neg;
    default:
        return ip + neg; /* toward negative */
    }
}

/* The ordered contract with integers only (independent of FP modes):
 * product rounded to binary32 nearest-even (24 bits, quantum 2^-149), then
 * the integer rounding mode, then the zero point in a wide integer, then
 * saturation to [least, greatest] (a storage range; the zero point within
 * it).  NaN and zeros give the zero point, infinities saturate by sign. */
static inline int32_t sk_q_exact_range(uint64_t msig, int32_t mexp, int32_t zero_point, sk_q_decoded d, int mode,
                                       int32_t least, int32_t greatest) {
    if (d.kind == SK_Q_NAN || d.kind == SK_Q_ZERO) return zero_point;
    if (d.kind == SK_Q_INF) return d.neg ? least : greatest;
    /* At most 24 x 24 bits: the exact product fits 64 bits. */
    uint64_t p = (uint64_t)d.sig * msig;
    int32_t q = d.exp + mexp;
    int shift = sk_q_bitlen64(p) - 24;
    if (-149 - q > shift) shift = -149 - q;
    if (shift > 0) {
        uint64_t ip = shift > 63 ? 0 : p >> shift;
        uint64_t rem = shift > 63 ? p : p & (((uint64_t)1 << shift) - 1);
        p = sk_q_round_magnitude(ip, rem, shift, 0, SK_QUANT_NEAREST_EVEN);
        q += shift;
    }
    /* The binary32 value is p * 2^q with p <= 2^24: from the cap up every
     * zero point saturates by sign. */
    uint64_t magnitude;
    if (p == 0) {
        magnitude = 0;
    } else if (q >= 0) {
        magnitude = q >= 20 ? SK_Q_MAGNITUDE_CAP : p << q;
    } else {
        const int n = -q;
        uint64_t ip = n > 63 ? 0 : p >> n;
        uint64_t rem = n > 63 ? p : p & (((uint64_t)1 << n) - 1);
        magnitude = sk_q_round_magnitude(ip, rem, n, d.neg, mode);
    }
    if (magnitude > SK_Q_MAGNITUDE_CAP) magnitude = SK_Q_MAGNITUDE_CAP;
    const int64_t r = (d.neg ? -(int64_t)magnitude : (int64_t)magnitude) + zero_point;
    return (int32_t)(r < least ? least : r > greatest ? greatest : r);
}

/* Quant's: the INT8 range. */
static inline int8_t sk_q_exact(uint64_t msig, int32_t mexp, int32_t zero_point, sk_q_decoded d, int mode) {
    return (int8_t)sk_q_exact_range(msig, mexp, zero_point, d, mode, -128, 127);
}

#endif
