/* NEON Quant.  Per 16-element block: decode to FP32 bits with integer
 * operations, one binary32 multiply for the product, then integer operations
 * for the rounding mode, zero point and saturation.  A block that may hold an
 * inexact or flushed product (subnormal input, zero-exponent product from a
 * nonzero input) is recomputed by the exact integer path; so is every tail,
 * and every block when the multiplier is subnormal. */
#include "quant.h"
#if SK_HAVE_NEON
#include <arm_neon.h>

typedef struct quad { uint32x4_t v[4]; } quad;

/* IEEE half -> FP32 bits with integer operations; half subnormals f * 2^-24
 * are normalised exactly with a leading-zero count (they are normal FP32). */
static inline uint32x4_t widen_f16(uint32x4_t h) {
    const uint32x4_t sign = vshlq_n_u32(vandq_u32(h, vdupq_n_u32(0x8000u)), 16);
    const uint32x4_t e = vandq_u32(vshrq_n_u32(h, 10), vdupq_n_u32(0x1fu));
    const uint32x4_t f = vandq_u32(h, vdupq_n_u32(0x3ffu));
    const uint32x4_t f13 = vshlq_n_u32(f, 13);
    const uint32x4_t normal = vorrq_u32(vshlq_n_u32(vaddq_u32(e, vdupq_n_u32(112u)), 23), f13);
    const uint32x4_t special = vorrq_u32(vdupq_n_u32(0x7f800000u), f13);
    /* Leading one of f at bit 31-lz: value 2^(31-lz-24), so the FP32 exponent
     * field is 134-lz and the fraction is f shifted up by lz-8. */
    const int32x4_t lz = vreinterpretq_s32_u32(vclzq_u32(f));
    const uint32x4_t sub_exp = vshlq_n_u32(vreinterpretq_u32_s32(vsubq_s32(vdupq_n_s32(134), lz)), 23);
    const uint32x4_t sub_frac = vandq_u32(vshlq_u32(f, vsubq_s32(lz, vdupq_n_s32(8))), vdupq_n_u32(0x7fffffu));
    const uint32x4_t sub = vandq_u32(vorrq_u32(sub_exp, sub_frac), vtstq_u32(f, f));
    const uint32x4_t is_special = vceqq_u32(e, vdupq_n_u32(31u));
    const uint32x4_t is_sub = vceqq_u32(e, vdupq_n_u32(0u));
    uint32x4_t r = vbslq_u32(is_special, special, vbslq_u32(is_sub, sub, normal));
    return vorrq_u32(sign, r);
}

static inline __attribute__((always_inline)) quad load_block(const void *src, size_t i, int input) {
    quad x;
    if (input == SK_QUANT_F32) {
        const uint32_t *in = (const uint32_t *)src + i;
        for (int k = 0; k < 4; ++k) x.v[k] = vld1q_u32(in + 4 * k);
    } else {
        const uint16_t *in = (const uint16_t *)src + i;
        const uint16x8_t a = vld1q_u16(in), b = vld1q_u16(in + 8);
        if (input == SK_QUANT_BF16) {  /* the BF16 word is the upper FP32 half */
            x.v[0] = vshll_n_u16(vget_low_u16(a), 16);
            x.v[1] = vshll_high_n_u16(a, 16);
            x.v[2] = vshll_n_u16(vget_low_u16(b), 16);
            x.v[3] = vshll_high_n_u16(b, 16);
        } else {
            x.v[0] = widen_f16(vmovl_u16(vget_low_u16(a)));
            x.v[1] = widen_f16(vmovl_high_u16(a));
            x.v[2] = widen_f16(vmovl_u16(vget_low_u16(b)));
            x.v[3] = widen_f16(vmovl_high_u16(b));
        }
    }
    return x;
}

/* Rounds the product bits to an integer by the mode, adds the zero point and
 * narrows with saturation: all integer operations on the representation. */
static inline __attribute__((always_inline)) int32x4_t finish(uint32x4_t pb, int mode, int32x4_t zp) {
    const uint32x4_t a = vandq_u32(pb, vdupq_n_u32(0x7fffffffu));
    const int32x4_t sgn = vshrq_n_s32(vreinterpretq_s32_u32(pb), 31);        /* 0 or -1 */
    const uint32x4_t big = vcgeq_u32(a, vdupq_n_u32(0x44000000u));           /* |p| >= 512, inf, NaN */
    const uint32x4_t nan = vcgtq_u32(a, vdupq_n_u32(0x7f800000u));
    const uint32x4_t e = vshrq_n_u32(a, 23);
    const uint32x4_t sig = vandq_u32(vorrq_u32(vandq_u32(a, vdupq_n_u32(0x7fffffu)), vdupq_n_u32(0x800000u)),
                                     vtstq_u32(e, e));                      /* zero product: 0 */
    /* value = sig * 2^(e-150); shifting right by k = min(150-e, 31) leaves the
     * integer part (0 when k >= 25) and the discarded bits below. */
    const int32x4_t k = vminq_s32(vsubq_s32(vdupq_n_s32(150), vreinterpretq_s32_u32(e)), vdupq_n_s32(31));
    const uint32x4_t ip = vshlq_u32(sig, vnegq_s32(k));
    const uint32x4_t rem = vsubq_u32(sig, vshlq_u32(ip, k));
    uint32x4_t up;
    switch (mode) {
    case SK_QUANT_NEAREST_EVEN: {
        const uint32x4_t half = vshlq_u32(vdupq_n_u32(1u), vsubq_s32(k, vdupq_n_s32(1)));
        const uint32x4_t odd = vtstq_u32(ip, vdupq_n_u32(1u));
        up = vorrq_u32(vcgtq_u32(rem, half), vandq_u32(vceqq_u32(rem, half), odd));
        break;
    }
    case SK_QUANT_TOWARD_ZERO: up = vdupq_n_u32(0); break;
    case SK_QUANT_TOWARD_POSITIVE: up = vbicq_u32(vtstq_u32(rem, rem), vreinterpretq_u32_s32(sgn)); break;
    default: up = vandq_u32(vtstq_u32(rem, rem), vreinterpretq_u32_s32(sgn)); break;
    }
    const int32x4_t mag = vreinterpretq_s32_u32(vsubq_u32(ip, up));         /* up is 0 or all ones */
    int32x4_t r = vsubq_s32(veorq_s32(mag, sgn), sgn);                       /* apply the sign */
    const int32x4_t saturated = vsubq_s32(veorq_s32(vdupq_n_s32(512), sgn), sgn);
    r = vbslq_s32(big, saturated, r);
    r = vbslq_s32(nan, vdupq_n_s32(0), r);
    return vaddq_s32(r, zp);
}

static inline int8x16_t narrow_saturating(int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d) {
    const int16x8_t lo = vcombine_s16(vqmovn_s32(a), vqmovn_s32(b));
    const int16x8_t hi = vcombine_s16(vqmovn_s32(c), vqmovn_s32(d));
    return vcombine_s8(vqmovn_s16(lo), vqmovn_s16(hi));
}

static inline __attribute__((always_inline)) void run(const sk_quant_ctx *c, const void *src,
                                                       int8_t *out, size_t n, int input, int mode) {
    size_t i = 0;
    if (!c->exact_only) {
        const float32x4_t m = vdupq_n_f32(c->multiplier);
        const int32x4_t zp = vdupq_n_s32(c->zero_point);
        const uint32x4_t abs_mask = vdupq_n_u32(0x7fffffffu), exp_mask = vdupq_n_u32(0x7f800000u);
        const uint32x4_t min_normal = vdupq_n_u32(0x00800000u);
        for (; i + SK_BLOCK <= n; i += SK_BLOCK) {
            const quad x = load_block(src, i, input);
            quad p;
            uint32x4_t repair = vdupq_n_u32(0);
            for (int k = 0; k < 4; ++k) {
                p.v[k] = vreinterpretq_u32_f32(vmulq_f32(vreinterpretq_f32_u32(x.v[k]), m));
                const uint32x4_t xa = vandq_u32(x.v[k], abs_mask);
                const uint32x4_t nonzero_finite = vandq_u32(vtstq_u32(xa, xa), vcltq_u32(xa, exp_mask));
                const uint32x4_t subnormal_in = vcltq_u32(xa, min_normal);
                const uint32x4_t zero_exp_product = vceqq_u32(vandq_u32(p.v[k], exp_mask), vdupq_n_u32(0));
                repair = vorrq_u32(repair, vandq_u32(nonzero_finite, vorrq_u32(subnormal_in, zero_exp_product)));
            }
            if (vmaxvq_u32(repair)) {
                sk_quant_exact_span(c, src, out, i, i + SK_BLOCK, input, mode);
            } else {
                vst1q_s8(out + i, narrow_saturating(finish(p.v[0], mode, zp), finish(p.v[1], mode, zp),
                                                    finish(p.v[2], mode, zp), finish(p.v[3], mode, zp)));
            }
        }
    }
    sk_quant_exact_span(c, src, out, i, n, input, mode);
}

SK_QUANT_ENTRIES(neon, run)
#endif
