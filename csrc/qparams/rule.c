/* The sk.choose_qparams rule (docs/qparams.md) for many channels at once.
 * Integer arithmetic only: every rounding is the exact nearest-even of a
 * rational, decided on integers with a sticky bit, so the result is the
 * same in every FP state and no trap can fire. */
#include "rule.h"
#include "../include/simakernels.h"

/* Every helper is inlined into the per-format loop, where the format's
 * field widths are constants (the rule costs a few hundred instructions
 * per channel otherwise), and so are INT8's levels: its divisors (254, 127)
 * stay compile-time constants (multiplications); the other storage types
 * share one loop per format and mode with the levels as variables. */
#define INLINE static inline __attribute__((always_inline))

/* The INT8 levels a range maps onto, which bound Quant's zero point too. */
#define LEVEL_MIN SK_QUANT_ZERO_POINT_LEAST
#define LEVEL_MAX SK_QUANT_ZERO_POINT_GREATEST

/* The levels [L, H] of a storage type: the rule's divisor of the first
 * scale, asymmetric H - L - 1 (the range spans one step fewer than the
 * levels have) or symmetric H (= 2^(b-1) - 1, levels -H..H).  Every type's
 * divisor is at least 1 and below 2^16. */
#define DIVISOR(least, greatest, symmetric) ((uint64_t)((symmetric) ? (greatest) : (greatest) - (least)-1))

int sk_qparams_levels(int storage, int symmetric, int64_t *least, int64_t *greatest) {
    int is_signed;
    switch (storage) {
    case SK_HURRAY_INT8:
    case SK_HURRAY_INT16:
    case SK_HURRAY_INT4:
    case SK_HURRAY_INT2:
        is_signed = 1;
        break;
    case SK_HURRAY_UINT8:
    case SK_HURRAY_UINT16:
    case SK_HURRAY_UINT4:
    case SK_HURRAY_UINT2:
        is_signed = 0;
        break;
    default: /* INT32, UINT32: no quantization writes them; unknown codes */
        return SK_UNSUPPORTED_DTYPE;
    }
    if (symmetric && !is_signed) return SK_INVALID_PARAMS;
    const int bits = sk_hurray_storage_bits(storage); /* the one bits table */
    *least = is_signed ? -(INT64_C(1) << (bits - 1)) : 0;
    *greatest = is_signed ? (INT64_C(1) << (bits - 1)) - 1 : (INT64_C(1) << bits) - 1;
    return SK_OK;
}

/* A nonnegative value sig * 2^exp. */
typedef struct dyadic {
    uint64_t sig;
    int32_t exp;
} dyadic;

INLINE int bit_length(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }

/* The exact value of a finite magnitude (the bits below the sign) of an
 * IEEE-style format. */
INLINE dyadic decode(uint64_t magnitude, int fraction_bits, int bias) {
    const uint64_t biased = magnitude >> fraction_bits;
    const uint64_t fraction = magnitude & ((UINT64_C(1) << fraction_bits) - 1);
    dyadic d;
    d.sig = biased ? fraction | UINT64_C(1) << fraction_bits : fraction;
    d.exp = (int32_t)(biased ? biased : 1) - bias - fraction_bits;
    return d;
}

INLINE dyadic decode_binary32(uint32_t bits) { return decode(bits & 0x7FFFFFFFu, 23, 127); }

/* Nearest-even binary32 rounding of (sig + s) * 2^exp, where 0 <= s < 1
 * and s > 0 exactly when `sticky`, with gradual underflow: the result as
 * sig' * 2^exp' with sig' < 2^24 and exp' >= -149 (beyond the largest
 * finite when it overflows: encode_binary32 makes that infinity).  With
 * `sticky` the caller gives sig at least 25 significant bits, so the
 * rounding bit is among sig's dropped bits and s only breaks a tie. */
INLINE dyadic round_binary32(uint64_t sig, int32_t exp, int sticky) {
    dyadic r = {0, -149};
    if (sig == 0) return r;
    r.exp = exp + bit_length(sig) - 24; /* exponent of the last kept bit */
    if (r.exp < -149) r.exp = -149;     /* the subnormals' quantum */
    const int32_t shift = r.exp - exp;
    if (shift <= 0) {
        r.sig = sig << -shift; /* exact: fewer than 24 bits and no sticky */
    } else if (shift >= 64) {
        /* All of sig is dropped: it rounds to one quantum only when above half of it. */
        r.sig = shift == 64 && (sig > UINT64_C(1) << 63 || (sig == UINT64_C(1) << 63 && sticky));
    } else {
        const uint64_t half = UINT64_C(1) << (shift - 1);
        const uint64_t dropped = sig & ((half << 1) - 1);
        r.sig = sig >> shift;
        r.sig += dropped > half || (dropped == half && (sticky || (r.sig & 1)));
    }
    if (r.sig >> 24) { /* rounded up into the next binade */
        r.sig >>= 1;
        ++r.exp;
    }
    return r;
}

/* The binary32 bits of a round_binary32 result (infinity past the largest finite). */
INLINE uint32_t encode_binary32(dyadic v) {
    if (v.sig < UINT64_C(1) << 23) return (uint32_t)v.sig; /* subnormal or 0 (exp is -149) */
    const int32_t biased = v.exp + 150;
    if (biased >= 0xFF) return 0x7F800000u;
    return (uint32_t)biased << 23 | (uint32_t)(v.sig - (UINT64_C(1) << 23));
}

/* big + small (big >= small >= 0, big > 0) as (n + s) * 2^*exp with
 * 0 <= s < 1, s > 0 exactly when *sticky: big's leading bit goes to bit 62
 * (the sum cannot carry out of 64 bits); small is shifted to the same unit
 * and the bits it loses (the exponents may be ~280 apart) become the sticky.
 * (With two binary32 terms no sticky can decide a first scale: a tie needs
 * hi - lo = D x an odd 25-bit number x 2^j, D the divisor (below 2^16), at
 * most 41 bits from its leading to its last 1 bit, all inside the 64-bit
 * window; the helper stays exact regardless.) */
INLINE uint64_t aligned_sum(dyadic big, dyadic small, int32_t *exp, int *sticky) {
    const int lead = 63 - bit_length(big.sig);
    const uint64_t n = big.sig << lead;
    *exp = big.exp - lead;
    *sticky = 0;
    if (small.sig == 0) return n;
    const int32_t gap = *exp - small.exp;         /* small's bits below the unit */
    if (gap <= 0) return n + (small.sig << -gap); /* exact: small <= big < 2^63 units */
    if (gap >= 64) {
        *sticky = 1;
        return n;
    }
    *sticky = (small.sig & ((UINT64_C(1) << gap) - 1)) != 0;
    return n + (small.sig >> gap);
}

/* The first scale's bits: fl32((hi - lo) / divisor) (asymmetric) or
 * fl32(max(-lo, hi) / divisor) (symmetric), e.g. 254 and 127 for INT8, by
 * long division of the aligned numerator (the remainder joins the sticky),
 * 1.0 for an empty range, never below the least scale with a finite
 * reciprocal. */
INLINE uint32_t first_scale(dyadic big, dyadic small, int symmetric, uint64_t divisor) {
    if (big.sig == 0) return SK_RULE_ONE;
    const dyadic none = {0, 0};
    int32_t exp;
    int sticky;
    const uint64_t n = aligned_sum(big, symmetric ? none : small, &exp, &sticky);
    /* n >= 2^62 and divisor < 2^16: at least 47 bits of quotient (round_binary32
     * wants 25 with a sticky); a constant divisor (INT8's) becomes a multiplication */
    const uint64_t quotient = n / divisor;
    const uint64_t remainder = n - quotient * divisor;
    const uint32_t scale = encode_binary32(round_binary32(quotient, exp, sticky || remainder != 0));
    return scale < SK_RULE_LEAST_SCALE ? SK_RULE_LEAST_SCALE : scale;
}

/* first_scale in the common case, from the ends' magnitude bits: a normal
 * big end (its significand has fraction_bits + 1 bits, so aligned_sum's
 * shift is a constant and needs no bit_length) and, asymmetric, a small
 * end at most `lead` binades below it (the sum exact: no sticky), with a
 * normal result (so no clamp, no subnormal, no overflow).  0 (no scale)
 * otherwise: first_scale decides those. */
INLINE uint32_t first_scale_common(uint64_t big, uint64_t small, int fraction_bits, int bias, int symmetric,
                                   uint64_t divisor) {
    const int lead = 62 - fraction_bits; /* big's leading bit to bit 62, as aligned_sum */
    const uint64_t implicit = UINT64_C(1) << fraction_bits;
    const int32_t big_biased = (int32_t)(big >> fraction_bits);
    if (big_biased == 0) return 0;
    uint64_t n = ((big & (implicit - 1)) | implicit) << lead;
    if (!symmetric) {
        const int32_t small_biased = (int32_t)(small >> fraction_bits);
        const int32_t apart = big_biased - (small_biased ? small_biased : 1);
        if (apart > lead) return 0;
        n += (small_biased ? (small & (implicit - 1)) | implicit : small) << (lead - apart);
    }
    const uint64_t quotient = n / divisor, remainder = n - quotient * divisor;
    const int shift = 40 - __builtin_clzll(quotient); /* bit_length - 24: at least 23 (quotient > 2^46) */
    const int32_t unit = big_biased - bias - fraction_bits - lead + shift; /* the last kept bit */
    if ((uint32_t)(unit + 149) >= 253) return 0;
    const uint64_t half = UINT64_C(1) << (shift - 1), dropped = quotient & ((half << 1) - 1);
    uint64_t r = quotient >> shift;
    r += dropped > half || (dropped == half && (remainder != 0 || (r & 1)));
    /* (unit + 150) << 23 | (r - 2^23), where a carry to r = 2^24 steps the exponent */
    return ((uint32_t)(unit + 149) << 23) + (uint32_t)r;
}

/* fl32(1 / scale).  A normal scale with a biased exponent up to 252 (every
 * scale of a normal-sized range) has a normal reciprocal: 2^47 / sig, sig
 * in [2^23, 2^24), is a 24-bit quotient (2^24 only at sig = 2^23, exact)
 * and rounds up when the remainder is above half the divisor (never
 * equal: sig * (2q + 1) = 2^48 has no solution but sig = 2^23, where the
 * remainder is 0), a few instructions instead of round_binary32.  Other
 * scales: 2^63 / sig by long division (at least 39 bits), the remainder as
 * sticky. */
INLINE dyadic reciprocal(uint32_t scale) {
    const dyadic s = decode_binary32(scale);
    if (scale - 0x00800000u < UINT32_C(252) << 23) {
        const uint64_t one = UINT64_C(1) << 47, q = one / s.sig;
        dyadic m = {q + (2 * (one - q * s.sig) > s.sig), -47 - s.exp};
        if (m.sig >> 24) { /* sig = 2^23: 2^24 exactly */
            m.sig >>= 1;
            ++m.exp;
        }
        return m;
    }
    const uint64_t one = UINT64_C(1) << 63;
    return round_binary32(one / s.sig, -63 - s.exp, one % s.sig != 0);
}

/* ceil(fl32(a * b)) of two magnitudes: the exact product of the
 * significands (below 2^48) rounded once, then its ceiling; 2^56 for
 * anything at or beyond it, an overflow to infinity included (an end that
 * large fails the check either way). */
INLINE int64_t ceil_product(dyadic a, dyadic b) {
    /* The common case first, without rounding: a product p of more than 24
     * bits (fl32 keeps its bits from shift = bit_length(p) - 24 up) and a
     * value p * 2^-k with shift < k < 64 (so at least 2^-39: normal, and
     * the unit 2^k above the rounding's).  A multiple M of 2^k is then
     * even in the kept bits, so rounding crosses one only downwards, from
     * at most half a kept unit above it (a tie goes to M too):
     * ceil(fl32(p * 2^-k)) = floor(p / 2^k) + (p mod 2^k > half). */
    const uint64_t p = a.sig * b.sig;
    const int32_t k = -(a.exp + b.exp);
    if (p >> 24 && (uint32_t)k < 64) {
        const uint64_t half = (UINT64_C(1) << 63 >> __builtin_clzll(p)) >> 24; /* 2^(shift - 1) */
        if (half << 1 < UINT64_C(1) << k) return (int64_t)((p >> k) + ((p & ((UINT64_C(1) << k) - 1)) > half));
    }
    const dyadic v = round_binary32(p, a.exp + b.exp, 0);
    if (v.sig == 0) return 0;
    if (v.exp >= 0) return v.exp >= 32 ? INT64_C(1) << 56 : (int64_t)(v.sig << v.exp);
    if (v.exp <= -25) return 1; /* 0 < v < 1 */
    return (int64_t)((v.sig + (UINT64_C(1) << -v.exp) - 1) >> -v.exp);
}

/* Why the check needs at most 3 scale steps.  Levels [L, H] (INT8:
 * [-128, 127]), divisor D (asymmetric D = H - L - 1 and hi - lo = D S,
 * symmetric D = H and max(-lo, hi) = D S: INT8 254 and 127), u = 2^-24, S
 * the exact first scale, s_k the scale after k steps, m_k = fl32(1 / s_k).
 * s_0 >= S - ulp(s_0) / 2 (or the clamp, above S) and each step adds at
 * least ulp(s_0) > u * s_0, so s_k >= S * (1 + (k - 1/2) u / (1 + u/2)).
 * While s_k <= 2^126, m_k is normal (s_k >= the least scale keeps it
 * finite) and m_k <= (1 / s_k)(1 + u); fl32(z) <= z (1 + u) + 2^-150.  So
 * with x = fl32(-lo m_k), y = fl32(hi m_k): x + y <= D (1 + u)^2 S / s_k +
 * 2^-149, and (1 + u)^2 S / s_3 <= (1 + u)^2 (1 + u/2) / (1 + 3u) < 1 - u/4,
 * so from k = 3 on x + y < D - D u / 4 + 2^-149 < D (as D >= 1); then
 * ceil(x) + ceil(y) < x + y + 2 < D + 2, i.e. b - a <= D + 1 = H - L.
 * Symmetric: each of x, y <= D (1 + u)^2 S / s_k + 2^-150 < D from k = 3
 * on, so -H <= a and b <= H.
 * s_k <= 2^126 holds for every type of 4 bits or more: D >= 7 (14
 * asymmetric), so S < 2^128 / 7, and 3 steps add 2^-21 of it.  The 2-bit
 * types (D = 1 symmetric, D = 2 asymmetric) reach scales up to 2^128, whose
 * m_k is subnormal with an absolute error: m_k <= 1 / s_k + 2^-150 for
 * those k.
 * There a failing check needs T m_k > 1 + u, T = max(-lo, hi) symmetric
 * (exactly s_0: D = 1, no rounding), T = (hi - lo) / 2 asymmetric: fl32(z)
 * > 1 needs z > 1 + u (a tie goes to 1) and fl32(z) > 2 needs z > 2 + 2u,
 * and the check fails only with an end's product above 1 (symmetric), or
 * both above 1, or one above 2 (asymmetric: ceil(x) + ceil(y) >= 4 while
 * -lo, hi <= 2T).  With s_0 = M 2^e (M < 2^24, ulp(s_0) = 2^e): T <= (M +
 * 1/2) 2^e, s_k >= (M + k) 2^e and T 2^-150 < 2^-22 = 4u, so T m_k <= (M +
 * 1/2) / (M + k) + (M + 1/2) 2^(e - 150) <= 1 + u at k = 4 (increasing in
 * M; at M = 2^24 - 1, e = 104: 1 + 0.50000051 u).  So at most 4 steps
 * (SK_RULE_MAX_STEPS_2BIT; 3 seen, over every symmetric scale from 2^126
 * up).  Nor does a 2-bit scale step past the largest finite: from s =
 * 2^128 / (1 + 2^-22) (4 ulps below 2^128) up, m is 2^-128 exactly and
 * every finite end times it is below 1: that passes. */
/* Two passes over the channels: the first scales, then the multiplier and
 * the check.  Each pass's chain of dependent steps is short, so the CPU
 * overlaps several channels (one pass of both is one long chain).  `level_min`
 * and `level_max` are the storage type's levels L and H (constants for
 * INT8: its divisors and bounds fold into the code). */
INLINE int rule_channels(int fraction_bits, int exponent_bits, int symmetric, int64_t level_min, int64_t level_max,
                         const int64_t *least, const int64_t *greatest, uint64_t count, uint32_t *scales,
                         int32_t *zero_points, uint32_t *multipliers) {
    const int bias = (1 << (exponent_bits - 1)) - 1;
    const int64_t finite = ((INT64_C(1) << exponent_bits) - 1) << fraction_bits; /* the least non-finite */
    const uint64_t divisor = DIVISOR(level_min, level_max, symmetric);
    const int max_steps = divisor > 2 ? SK_RULE_MAX_STEPS : SK_RULE_MAX_STEPS_2BIT;
    for (uint64_t c = 0; c < count; ++c) {
        const int64_t lo = least[c], hi = greatest[c];
        if (lo > 0 || lo <= -finite || hi < 0 || hi >= finite) return SK_INVALID_PARAMS;
        const int high_is_big = hi >= -lo; /* magnitudes order as values */
        const uint64_t big = (uint64_t)(high_is_big ? hi : -lo), small = (uint64_t)(high_is_big ? -lo : hi);
        const uint32_t common = first_scale_common(big, small, fraction_bits, bias, symmetric, divisor);
        scales[c] = common ? common
                           : first_scale(decode(big, fraction_bits, bias), decode(small, fraction_bits, bias),
                                         symmetric, divisor);
    }
    for (uint64_t c = 0; c < count; ++c) {
        const dyadic low = decode((uint64_t)-least[c], fraction_bits, bias);
        const dyadic high = decode((uint64_t)greatest[c], fraction_bits, bias);
        for (int steps = 0;; ++steps, ++scales[c]) {
            if (steps > max_steps) return SK_OVERFLOW; /* unreachable by the bound above */
            const dyadic m = reciprocal(scales[c]);
            /* lo <= 0: floor(fl32(lo * m)) = -ceil(fl32(-lo * m)), nearest-even being symmetric */
            const int64_t a = -ceil_product(low, m), b = ceil_product(high, m);
            if (symmetric ? a >= -level_max && b <= level_max : b - a <= level_max - level_min) {
                zero_points[c] = symmetric ? 0 : (int32_t)(level_min - a);
                multipliers[c] = encode_binary32(m);
                break;
            }
        }
    }
    return SK_OK;
}

/* One loop per format and mode, each with its widths as constants (and the
 * levels as given: constants in the INT8 call). */
INLINE int rule_formats(int input, int symmetric, int64_t level_min, int64_t level_max, const int64_t *least,
                        const int64_t *greatest, uint64_t count, uint32_t *scale, int32_t *zero_point,
                        uint32_t *multiplier) {
    switch (input * 2 + symmetric) {
    case SK_QUANT_F32 * 2:
        return rule_channels(23, 8, 0, level_min, level_max, least, greatest, count, scale, zero_point, multiplier);
    case SK_QUANT_F32 * 2 + 1:
        return rule_channels(23, 8, 1, level_min, level_max, least, greatest, count, scale, zero_point, multiplier);
    case SK_QUANT_BF16 * 2:
        return rule_channels(7, 8, 0, level_min, level_max, least, greatest, count, scale, zero_point, multiplier);
    case SK_QUANT_BF16 * 2 + 1:
        return rule_channels(7, 8, 1, level_min, level_max, least, greatest, count, scale, zero_point, multiplier);
    case SK_QUANT_F16 * 2:
        return rule_channels(10, 5, 0, level_min, level_max, least, greatest, count, scale, zero_point, multiplier);
    default:
        return rule_channels(10, 5, 1, level_min, level_max, least, greatest, count, scale, zero_point, multiplier);
    }
}

int sk_qparams_rule(int input, int storage, int symmetric, const int64_t *least, const int64_t *greatest,
                    uint64_t count, uint32_t *scale, int32_t *zero_point, uint32_t *multiplier) {
    if (input != SK_QUANT_F32 && input != SK_QUANT_BF16 && input != SK_QUANT_F16) return SK_UNSUPPORTED_DTYPE;
    int64_t level_min, level_max;
    const int levels = sk_qparams_levels(storage, symmetric != 0, &level_min, &level_max);
    if (levels != SK_OK) return levels;
    if (count && !(least && greatest && scale && zero_point && multiplier)) return SK_INVALID_BINDING;
    const int sym = symmetric != 0;
    if (storage == SK_HURRAY_INT8) /* the hot path (sk.quantize_dynamic): INT8's levels as constants */
        return rule_formats(input, sym, LEVEL_MIN, LEVEL_MAX, least, greatest, count, scale, zero_point, multiplier);
    return rule_formats(input, sym, level_min, level_max, least, greatest, count, scale, zero_point, multiplier);
}
