/* NEON Cast.  Both directions are integer operations on the representation,
 * so every lane computes exactly the scalar rule; tails use the scalar rule
 * and never touch memory past the last element. */
#include "cast.h"
#if SK_HAVE_NEON
#include <arm_neon.h>
#include "../common/bits.h"

/* (bits + 0x7fff + ((bits >> 16) & 1)) >> 16 on four lanes: the same wrapping
 * unsigned addition as the scalar rule, then a narrowing shift. */
static inline uint16x4_t narrow4(uint32x4_t bits) {
    const uint32x4_t bias = vdupq_n_u32(0x7fffu);
    const uint32x4_t one = vdupq_n_u32(1u);
    uint32x4_t lsb = vandq_u32(vshrq_n_u32(bits, 16), one);
    return vshrn_n_u32(vaddq_u32(vaddq_u32(bits, bias), lsb), 16);
}

static inline uint16x8_t narrow8(const uint32_t *in) {
    return vcombine_u16(narrow4(vld1q_u32(in)), narrow4(vld1q_u32(in + 4)));
}

void sk_cast_f32_bf16__neon(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint32_t *in = src;
    uint16_t *out = dst;
    size_t i = 0;
    /* Two independent eight-element groups per iteration overlap the loads,
     * integer rounding and stores. */
    for (; i + 16 <= n; i += 16) {
        uint16x8_t lo = narrow8(in + i);
        uint16x8_t hi = narrow8(in + i + 8);
        vst1q_u16(out + i, lo);
        vst1q_u16(out + i + 8, hi);
    }
    if (i + 8 <= n) {
        vst1q_u16(out + i, narrow8(in + i));
        i += 8;
    }
    for (; i < n; ++i) out[i] = sk_bf16_from_f32_bits(in[i]);
}

void sk_cast_bf16_f32__neon(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint16_t *in = src;
    uint32_t *out = dst;
    size_t i = 0;
    /* A widening shift by 16 places each BF16 word in its FP32 position. */
    for (; i + 16 <= n; i += 16) {
        uint16x8_t a = vld1q_u16(in + i);
        uint16x8_t b = vld1q_u16(in + i + 8);
        vst1q_u32(out + i, vshll_n_u16(vget_low_u16(a), 16));
        vst1q_u32(out + i + 4, vshll_high_n_u16(a, 16));
        vst1q_u32(out + i + 8, vshll_n_u16(vget_low_u16(b), 16));
        vst1q_u32(out + i + 12, vshll_high_n_u16(b, 16));
    }
    if (i + 8 <= n) {
        uint16x8_t a = vld1q_u16(in + i);
        vst1q_u32(out + i, vshll_n_u16(vget_low_u16(a), 16));
        vst1q_u32(out + i + 4, vshll_high_n_u16(a, 16));
        i += 8;
    }
    for (; i < n; ++i) out[i] = sk_f32_bits_from_bf16(in[i]);
}
#endif
