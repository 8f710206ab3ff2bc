/* Portable Quant.  Each 16-element block multiplies in binary32 (one
 * nearest-even rounding, as the contract's product step) and finishes with
 * exact integer work; a block whose product may be inexact or flushed
 * (subnormal input or multiplier, zero-exponent product from a nonzero
 * input) is recomputed by the exact integer path from the source bits.  The
 * loops are written so that GCC vectorises them at -O2 (SSE2 on x86-64). */
#include "quant.h"

static inline float f32_of(uint32_t b) {
    float v;
    memcpy(&v, &b, sizeof v);
    return v;
}
static inline uint32_t bits_of(float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* Input words as FP32 bits, by integer operations only. */
static inline uint32_t widen_bf16(uint16_t h) { return (uint32_t)h << 16; }

/* IEEE half -> FP32 bits.  Half subnormals f * 2^-24 are normal in FP32:
 * the exact conversion of the 10-bit integer f normalises it, and moving its
 * exponent down by 24 (an integer subtraction on the bits) scales it.
 * Selections are masks, so the loop stays branch-free and vectorises. */
static inline uint32_t widen_f16(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu, f = h & 0x3ffu;
    const uint32_t normal = ((e + 112u) << 23) | (f << 13);
    const uint32_t special = 0x7f800000u | (f << 13);
    const uint32_t sub = (bits_of((float)(int32_t)f) - (24u << 23)) & -(uint32_t)(f != 0);
    const uint32_t is_special = -(uint32_t)(e == 31), is_sub = -(uint32_t)(e == 0);
    return sign | (special & is_special) | (sub & is_sub) | (normal & ~(is_special | is_sub));
}

static inline sk_q_decoded decode(int input, uint32_t word) {
    return input == SK_QUANT_F32 ? sk_q_decode_f32(word)
         : input == SK_QUANT_BF16 ? sk_q_decode_bf16((uint16_t)word)
                                  : sk_q_decode_f16((uint16_t)word);
}

/* Finishes one normal-path lane from the binary32 product bits: NaN -> zero
 * point; |p| >= 512 (infinity included) saturates by sign; otherwise the
 * truncation t and the fraction p - t (exact by Sterbenz for |p| < 512)
 * decide the mode's rounding.  Masks instead of branches, so it vectorises. */
static inline int8_t finish(uint32_t pb, int mode, int32_t zp) {
    const uint32_t a = pb & 0x7fffffffu;
    const int32_t sgn = (int32_t)pb >> 31;                  /* 0 or -1 */
    const int32_t big = -(int32_t)(a >= 0x44000000u);       /* NaN included */
    const int32_t nan = -(int32_t)(a > 0x7f800000u);
    const float p = f32_of(pb & ~(uint32_t)big);            /* large lanes never reach the conversion */
    const int32_t t = (int32_t)p;                           /* C conversion truncates, whatever the FP mode */
    const float fr = p - (float)t;
    int32_t up;
    switch (mode) {
    case SK_QUANT_NEAREST_EVEN: {
        const float h = __builtin_fabsf(fr);                /* |fraction| */
        const int32_t above = h > 0.5f, tie = h == 0.5f;    /* separate: GCC then vectorises */
        const int32_t away = above | (tie & t & 1);
        up = (away ^ sgn) - sgn;                            /* away from zero, by sign */
        break;
    }
    case SK_QUANT_TOWARD_ZERO: up = 0; break;
    case SK_QUANT_TOWARD_POSITIVE: up = fr > 0.0f; break;
    default: up = -(int32_t)(fr < 0.0f); break;
    }
    const int32_t saturated = (512 ^ sgn) - sgn;            /* +-512 */
    int32_t r = ((t + up) & ~big) | (saturated & big);
    r = (r & ~nan) + zp;
    r = r < -128 ? -128 : r;
    r = r > 127 ? 127 : r;
    return (int8_t)r;
}

static inline __attribute__((always_inline)) void run(const sk_quant_ctx *ctx, const void *src,
                                                       int8_t *restrict out, size_t n,
                                                       int input, int mode) {
    const sk_quant_ctx local = *ctx, *c = &local;
    const uint32_t *in32 = src;
    const uint16_t *in16 = src;
    size_t i = 0;
    if (!c->exact_only) {
        for (; i + SK_BLOCK <= n; i += SK_BLOCK) {
            uint32_t pb[SK_BLOCK];
            uint32_t repair = 0;
            for (size_t j = 0; j < SK_BLOCK; ++j) {
                const uint32_t w = input == SK_QUANT_F32 ? in32[i + j]
                                 : input == SK_QUANT_BF16 ? widen_bf16(in16[i + j])
                                                          : widen_f16(in16[i + j]);
                pb[j] = bits_of(f32_of(w) * c->multiplier);
                const uint32_t xa = w & 0x7fffffffu;
                const uint32_t nonzero_finite = (xa != 0) & (xa < 0x7f800000u);
                /* FP16 decodes to normal FP32 values only; FP32/BF16 subnormal
                 * inputs could be flushed by DAZ.  A zero-exponent product
                 * from a nonzero input is subnormal or was flushed by FTZ. */
                repair |= (nonzero_finite & (xa < 0x00800000u)) |
                          (nonzero_finite & ((pb[j] & 0x7f800000u) == 0));
            }
            if (repair) {
                for (size_t j = 0; j < SK_BLOCK; ++j)
                    out[i + j] = sk_quant_exact(
                        c, decode(input, input == SK_QUANT_F32 ? in32[i + j] : in16[i + j]), mode);
            } else {
                for (size_t j = 0; j < SK_BLOCK; ++j) out[i + j] = finish(pb[j], mode, c->zero_point);
            }
        }
    }
    for (; i < n; ++i)
        out[i] = sk_quant_exact(c, decode(input, input == SK_QUANT_F32 ? in32[i] : in16[i]), mode);
}

#define LEAF(in_name, input, mode_name, mode)                                           \
    SK_QUANT_LEAF(sk_quant_##in_name##_i8_##mode_name##__scalar) { run(ctx, src, dst, n, input, mode); }
#define LEAVES(in_name, input)                                   \
    LEAF(in_name, input, ne, SK_QUANT_NEAREST_EVEN)              \
    LEAF(in_name, input, tz, SK_QUANT_TOWARD_ZERO)               \
    LEAF(in_name, input, tp, SK_QUANT_TOWARD_POSITIVE)           \
    LEAF(in_name, input, tn, SK_QUANT_TOWARD_NEGATIVE)
LEAVES(f32, SK_QUANT_F32)
LEAVES(bf16, SK_QUANT_BF16)
LEAVES(f16, SK_QUANT_F16)
#undef LEAVES
#undef LEAF

/* Strided runs: the exact path, element by element. */
static inline __attribute__((always_inline)) void strided(const void *ctx, const char *src,
                                                           ptrdiff_t src_step, char *dst,
                                                           ptrdiff_t dst_step, size_t n, int input,
                                                           int mode) {
    for (size_t i = 0; i < n; ++i, src += src_step, dst += dst_step) {
        const uint32_t word = input == SK_QUANT_F32 ? *(const uint32_t *)(const void *)src
                                                    : *(const uint16_t *)(const void *)src;
        *(int8_t *)dst = sk_quant_exact(ctx, decode(input, word), mode);
    }
}

#define STRIDED(in_name, input, mode_name, mode)                                                   \
    static void strided_##in_name##_##mode_name(const void *ctx, const char *src, ptrdiff_t ss,     \
                                               char *dst, ptrdiff_t ds, size_t n) {              \
        strided(ctx, src, ss, dst, ds, n, input, mode);                                          \
    }
#define STRIDED4(in_name, input)                              \
    STRIDED(in_name, input, ne, SK_QUANT_NEAREST_EVEN)        \
    STRIDED(in_name, input, tz, SK_QUANT_TOWARD_ZERO)         \
    STRIDED(in_name, input, tp, SK_QUANT_TOWARD_POSITIVE)     \
    STRIDED(in_name, input, tn, SK_QUANT_TOWARD_NEGATIVE)
STRIDED4(f32, SK_QUANT_F32)
STRIDED4(bf16, SK_QUANT_BF16)
STRIDED4(f16, SK_QUANT_F16)

const sk_quant_strided_fn sk_quant_strided[3][4] = {
    [SK_QUANT_F32] = {strided_f32_ne, strided_f32_tz, strided_f32_tp, strided_f32_tn},
    [SK_QUANT_BF16] = {strided_bf16_ne, strided_bf16_tz, strided_bf16_tp, strided_bf16_tn},
    [SK_QUANT_F16] = {strided_f16_ne, strided_f16_tz, strided_f16_tp, strided_f16_tn},
};
