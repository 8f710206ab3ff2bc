/* The EV74 kernel's 16-lane arithmetic: one vector block of Quant, as the
 * specification orders it.  The normal-product path multiplies the FP32
 * operands once (binary32, round to nearest even) and finishes in
 * integers; a block takes the exact integer path instead when the
 * multiplier is subnormal, a decoded input is a nonzero FP32 subnormal, or
 * a nonzero input gave a product with a zero exponent field (a subnormal
 * or one flushed to zero).  The exact path recomputes the whole block from
 * the source bits: the significand product in one 32-bit lane for BF16, in
 * low and high 32-bit halves (mul_hi) for FP16 and FP32, rounded to
 * binary32 with explicit retained and sticky bits.
 *
 * The expressions compile as OpenCL C (the kernel) and as host C through
 * clang's ext_vector_type (the host check in tests/ev74 runs them against
 * the independent oracle, also with FTZ/DAZ set around them).  Only these
 * few operations differ between the two, and they are spelled once below. */
#ifndef SK_EV74_LANES_H
#define SK_EV74_LANES_H
#include "../include/simakernels.h"

#ifdef __OPENCL_C_VERSION__
typedef uint16 sk_u32x16;
typedef int16 sk_i32x16;
typedef float16 sk_f32x16;
#define SK_AS_F32X16(x) as_float16(x)
#define SK_AS_U32X16(x) as_uint16(x)
#define SK_AS_I32X16(x) as_int16(x)
#define SK_ANY(mask) any(mask)
#define SK_MUL_HI(a, b) mul_hi(a, b)
#define SK_SPLAT_U32(v) ((sk_u32x16)(v))
#define SK_SPLAT_I32(v) ((sk_i32x16)(v))
static inline float sk_ev74_float_of(uint32_t bits) { return as_float(bits); }
#else
typedef uint32_t sk_u32x16 __attribute__((ext_vector_type(16)));
typedef int32_t sk_i32x16 __attribute__((ext_vector_type(16)));
typedef float sk_f32x16 __attribute__((ext_vector_type(16)));
typedef uint64_t sk_u64x16 __attribute__((ext_vector_type(16)));
#define SK_AS_F32X16(x) ((sk_f32x16)(x)) /* a cast between vectors of one size keeps the bits */
#define SK_AS_U32X16(x) ((sk_u32x16)(x))
#define SK_AS_I32X16(x) ((sk_i32x16)(x))
#define SK_ANY(mask) (__builtin_reduce_or((sk_i32x16)(mask)) < 0)
#define SK_MUL_HI(a, b)                                                                                            \
    __builtin_convertvector((__builtin_convertvector(a, sk_u64x16) * __builtin_convertvector(b, sk_u64x16)) >> 32, \
                            sk_u32x16)
#define SK_SPLAT_U32(v) ((sk_u32x16)(v))
#define SK_SPLAT_I32(v) ((sk_i32x16)(v))
static inline float sk_ev74_float_of(uint32_t bits) {
    union {
        uint32_t u;
        float f;
    } v = {bits};
    return v.f;
}
#endif

/* Lane masks are comparisons: all ones (true) or zero. */
#define SK_PICK(mask, yes, no) ((SK_AS_U32X16(mask) & (yes)) | (~SK_AS_U32X16(mask) & (no)))
#define SK_PICK_I(mask, yes, no) SK_AS_I32X16(SK_PICK(mask, SK_AS_U32X16(yes), SK_AS_U32X16(no)))

/* The invocation's parameters: the multiplier's bits (for the FP32
 * multiply) and as an odd significand times a power of two. */
typedef struct sk_ev74_params {
    float multiplier;
    uint32_t significand;
    int32_t exponent;
    int32_t zero_point;
    int32_t exact_only;
} sk_ev74_params;

/* Leading zeros of each 32-bit lane (32 for zero), by halving. */
static inline sk_u32x16 sk_ev74_clz(sk_u32x16 x) {
    sk_u32x16 n = SK_SPLAT_U32(0);
    for (uint32_t k = 16; k >= 1; k >>= 1) { /* the top k bits clear: count them, shift them out */
        const sk_i32x16 m = x < (1u << (32u - k));
        n = SK_PICK(m, n + k, n);
        x = SK_PICK(m, x << k, x);
    }
    return SK_PICK(x == 0u, SK_SPLAT_U32(32), n);
}

/* FP32 bits of each lane's input (16-bit patterns zero-extended): BF16 by
 * a shift, FP16 by integer exponent and significand operations, half
 * subnormals normalised exactly (each is a normal FP32 value). */
static inline sk_u32x16 sk_ev74_fp32_bits(sk_u32x16 x, int input) {
    if (input == SK_QUANT_F32) return x;
    if (input == SK_QUANT_BF16) return x << 16;
    const sk_u32x16 sign = (x >> 15) << 31, e = (x >> 10) & 0x1fu, f = x & 0x3ffu;
    const sk_u32x16 normal = sign | ((e + 112u) << 23) | (f << 13);
    const sk_u32x16 special = sign | 0x7f800000u | (f << 13);
    /* f * 2^-24 with its top bit at p = 31 - clz(f): exponent field p + 103 */
    const sk_u32x16 p = 31u - sk_ev74_clz(f);
    const sk_u32x16 tiny = sign | ((p + 103u) << 23) | ((f << ((23u - p) & 31u)) & 0x7fffffu);
    const sk_u32x16 small = SK_PICK(f == 0u, sign, tiny);
    return SK_PICK(e == 0x1fu, special, SK_PICK(e == 0u, small, normal));
}

/* The ordered finish of a binary32 magnitude q * 2^E (q <= 2^24): the
 * integer rounding `mode`, the sign, the zero point, saturation; NaN lanes
 * give the zero point.  From 512 up every zero point saturates, so larger
 * magnitudes are bounded there. */
static inline sk_i32x16 sk_ev74_finish(sk_u32x16 q, sk_i32x16 E, sk_i32x16 neg, sk_i32x16 nan, int32_t zero_point,
                                       int mode) {
    const sk_i32x16 big = (E >= 10) | ((E >= 0) & (q >= 1024u)); /* at least 1024 */
    const sk_u32x16 up = q << SK_AS_U32X16(SK_PICK_I(E > 0, E, SK_SPLAT_I32(0)) & 31);
    /* E < 0: n = min(-E, 26) fractional bits; q < 2^25 stays below halfway past that */
    const sk_i32x16 n = SK_PICK_I(E < -26, SK_SPLAT_I32(26), SK_PICK_I(E < 0, -E, SK_SPLAT_I32(0)));
    const sk_u32x16 un = SK_AS_U32X16(n);
    const sk_u32x16 ip = q >> un;
    const sk_u32x16 rem = q & ((SK_SPLAT_U32(1) << un) - 1u);
    const sk_u32x16 halfway = SK_PICK(n > 0, SK_SPLAT_U32(1) << ((un - 1u) & 31u), SK_SPLAT_U32(0));
    sk_u32x16 inc;
    if (mode == SK_QUANT_NEAREST_EVEN)
        inc = SK_AS_U32X16((rem > halfway) | ((rem == halfway) & (rem != 0u) & ((ip & 1u) == 1u))) & 1u;
    else if (mode == SK_QUANT_TOWARD_ZERO)
        inc = SK_SPLAT_U32(0);
    else if (mode == SK_QUANT_TOWARD_POSITIVE)
        inc = SK_AS_U32X16((rem != 0u) & ~neg) & 1u;
    else
        inc = SK_AS_U32X16((rem != 0u) & neg) & 1u;
    sk_u32x16 magnitude = SK_PICK(E >= 0, up, ip + inc);
    magnitude = SK_PICK(big | (magnitude > 512u), SK_SPLAT_U32(512), magnitude);
    const sk_i32x16 m = SK_AS_I32X16(magnitude);
    sk_i32x16 r = SK_PICK_I(neg, -m, m) + zero_point;
    r = SK_PICK_I(r < -128, SK_SPLAT_I32(-128), SK_PICK_I(r > 127, SK_SPLAT_I32(127), r));
    return SK_PICK_I(nan, SK_SPLAT_I32(zero_point), r);
}

/* The exact integer path of a block, from the source bits x. */
static inline sk_i32x16 sk_ev74_exact(sk_u32x16 x, const sk_ev74_params *p, int input, int mode) {
    const int frac = input == SK_QUANT_F32 ? 23 : input == SK_QUANT_BF16 ? 7 : 10;
    const int ebits = input == SK_QUANT_F16 ? 5 : 8;
    const uint32_t emax = (1u << ebits) - 1u;
    const int32_t bias = (1 << (ebits - 1)) - 1;
    const sk_u32x16 e = (x >> frac) & emax, f = x & ((1u << frac) - 1u);
    const sk_i32x16 neg = SK_AS_I32X16(x >> (ebits + frac)) == 1;
    const sk_i32x16 nan = (e == emax) & (f != 0u), inf = (e == emax) & (f == 0u);
    const sk_u32x16 sig = SK_PICK(e != 0u, f | (1u << frac), f);
    const sk_i32x16 exp = SK_AS_I32X16(SK_PICK(e != 0u, e, SK_SPLAT_U32(1))) - bias - frac + p->exponent;
    /* The exact product sig * significand: BF16's 8 x 24 bits fit one lane. */
    const sk_u32x16 lo = sig * p->significand;
    const sk_u32x16 hi = input == SK_QUANT_BF16 ? SK_SPLAT_U32(0) : SK_MUL_HI(sig, SK_SPLAT_U32(p->significand));
    const sk_i32x16 length = SK_AS_I32X16(SK_PICK(hi != 0u, 64u - sk_ev74_clz(hi), 32u - sk_ev74_clz(lo)));
    /* Right shift: binary32 precision (24 bits) and its quantum 2^-149;
     * past 50 every product bit (fewer than 49) is sticky. */
    sk_i32x16 s = length - 24;
    s = SK_PICK_I(s < -149 - exp, -149 - exp, s);
    s = SK_PICK_I(s < 0, SK_SPLAT_I32(0), SK_PICK_I(s > 50, SK_SPLAT_I32(50), s));
    const sk_u32x16 us = SK_AS_U32X16(s), sl = us & 31u;
    const sk_i32x16 low = s < 32;
    const sk_u32x16 carry = SK_PICK(sl != 0u, hi << ((32u - sl) & 31u), SK_SPLAT_U32(0));
    const sk_u32x16 ip = SK_PICK(low, (lo >> sl) | carry, hi >> sl);
    /* retained bit k = s - 1 and the sticky bits below it */
    const sk_u32x16 k = us - 1u, kl = k & 31u;
    const sk_u32x16 below = (SK_SPLAT_U32(1) << kl) - 1u;
    const sk_i32x16 k_low = SK_AS_I32X16(k) < 32;
    const sk_u32x16 retained = SK_PICK(s == 0, SK_SPLAT_U32(0), SK_PICK(k_low, lo >> kl, hi >> kl) & 1u);
    const sk_i32x16 sticky = (s > 1) & SK_PICK_I(k_low, (lo & below) != 0u, ((lo | (hi & below)) != 0u));
    const sk_u32x16 round = retained & SK_AS_U32X16(sticky | ((ip & 1u) == 1u)) & 1u;
    sk_u32x16 q = ip + round;
    sk_i32x16 E = exp + s;
    /* infinities saturate (as 2^10: at least 512), zeros come from q = 0 */
    q = SK_PICK(inf, SK_SPLAT_U32(1), q);
    E = SK_PICK_I(inf, SK_SPLAT_I32(10), E);
    return sk_ev74_finish(q, E, neg, nan, p->zero_point, mode);
}

/* One block of 16 source patterns (16-bit ones zero-extended): the
 * normal-product path, or the exact path when the block needs it.
 * *exact tells which (for the host check's coverage). */
static inline sk_i32x16 sk_ev74_block(sk_u32x16 x, const sk_ev74_params *p, int input, int mode, int *exact) {
    const sk_u32x16 b = sk_ev74_fp32_bits(x, input);
    const sk_u32x16 magnitude = b & 0x7fffffffu;
    const sk_u32x16 product = SK_AS_U32X16(SK_AS_F32X16(b) * p->multiplier);
    const sk_u32x16 pe = (product >> 23) & 0xffu;
    /* Every nonzero FP16 value is a normal FP32 value: no input test. */
    const sk_i32x16 subnormal_input =
        input == SK_QUANT_F16 ? SK_SPLAT_I32(0) : (magnitude != 0u) & (magnitude < 0x00800000u);
    const sk_i32x16 underflow = (magnitude != 0u) & (pe == 0u);
    *exact = p->exact_only || SK_ANY(subnormal_input | underflow);
    if (*exact) return sk_ev74_exact(x, p, input, mode);
    const sk_i32x16 neg = SK_AS_I32X16(product >> 31) == 1;
    const sk_i32x16 nan = magnitude > 0x7f800000u;
    const sk_u32x16 q = (product & 0x7fffffu) | SK_PICK(pe != 0u, SK_SPLAT_U32(0x800000u), SK_SPLAT_U32(0));
    const sk_i32x16 E = SK_AS_I32X16(SK_PICK(pe != 0u, pe, SK_SPLAT_U32(1))) - 150;
    return sk_ev74_finish(q, E, neg, nan, p->zero_point, mode);
}

#endif
