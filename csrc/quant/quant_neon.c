/* NEON Quant, 16 elements per block.
 *
 * The fast path is one binary32 multiply (FMUL, round-to-nearest: the
 * execute entry requires it), a conversion to int32 with the mode's rounding
 * written into the instruction (FCVTNS/FCVTZS/FCVTPS/FCVTMS, independent of
 * FPCR.RMode), two saturating narrows with the zero point added in int16
 * between them: no clamp and no NaN select.  The conversions already give
 * the contract's answers for the exceptional lanes: a NaN converts to 0 (the
 * zero point), infinities and products beyond int32 saturate by sign, and
 * int16 saturation keeps any |r| >= 2^15 beyond the INT8 range after any
 * zero point in [-128, 127], so sat8(sat16(sat16(r) + zp)) = sat8(r + zp).
 * FP16 inputs are widened by FCVTL, which is exact and never flushes (the
 * architecture's FPUnpackCV ignores FZ16 and FZ for half inputs).
 *
 * So without flushing the fast path is exact for every lane and needs no
 * test.  FPCR.FZ (and FZ16, or FEAT_AFP's FIZ/AH, RES0 on cores without it)
 * is read once per call; under it FMUL flushes subnormal inputs and
 * products to zero, and a block is recomputed by the exact integer path when
 * a nonzero input has a product with a zero exponent field (flushed,
 * subnormal or from a flushed input).  Every tail and every block of a
 * subnormal multiplier take the exact path too. */
#include "quant.h"
#if SK_HAVE_NEON
#include <arm_neon.h>

enum { FPCR_FIZ = 1u << 0, FPCR_AH = 1u << 1, FPCR_FZ16 = 1u << 19, FPCR_FZ = 1u << 24 };

static inline int fpcr_flushes(void) {
    uint64_t fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    return (fpcr & (FPCR_FZ | FPCR_FZ16 | FPCR_FIZ | FPCR_AH)) != 0;
}

/* Written out vector by vector: GCC 12 -O2 keeps 4-trip loops over arrays
 * of vectors rolled, through the stack. */
typedef struct block { float32x4_t x0, x1, x2, x3; } block;

static inline __attribute__((always_inline)) block load_block(const void *src, size_t i, int input) {
    block b;
    if (input == SK_QUANT_F32) {
        const float *in = (const float *)src + i;
        b.x0 = vld1q_f32(in);
        b.x1 = vld1q_f32(in + 4);
        b.x2 = vld1q_f32(in + 8);
        b.x3 = vld1q_f32(in + 12);
    } else {
        const uint16_t *in = (const uint16_t *)src + i;
        const uint16x8_t a = vld1q_u16(in), c = vld1q_u16(in + 8);
        if (input == SK_QUANT_BF16) {  /* the BF16 word is the upper FP32 half */
            b.x0 = vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(a), 16));
            b.x1 = vreinterpretq_f32_u32(vshll_high_n_u16(a, 16));
            b.x2 = vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(c), 16));
            b.x3 = vreinterpretq_f32_u32(vshll_high_n_u16(c, 16));
        } else {
            const float16x8_t ha = vreinterpretq_f16_u16(a), hc = vreinterpretq_f16_u16(c);
            b.x0 = vcvt_f32_f16(vget_low_f16(ha));
            b.x1 = vcvt_high_f32_f16(ha);
            b.x2 = vcvt_f32_f16(vget_low_f16(hc));
            b.x3 = vcvt_high_f32_f16(hc);
        }
    }
    return b;
}

/* A product to int32 by the mode's rounding, saturating; NaN gives 0. */
static inline __attribute__((always_inline)) int32x4_t to_int(float32x4_t p, int mode) {
    switch (mode) {
    case SK_QUANT_NEAREST_EVEN: return vcvtnq_s32_f32(p);
    case SK_QUANT_TOWARD_ZERO: return vcvtq_s32_f32(p);
    case SK_QUANT_TOWARD_POSITIVE: return vcvtpq_s32_f32(p);
    default: return vcvtmq_s32_f32(p);
    }
}

static inline __attribute__((always_inline)) int8x16_t to_bytes(block p, int mode, int16x8_t zp) {
    const int16x8_t lo = vqmovn_high_s32(vqmovn_s32(to_int(p.x0, mode)), to_int(p.x1, mode));
    const int16x8_t hi = vqmovn_high_s32(vqmovn_s32(to_int(p.x2, mode)), to_int(p.x3, mode));
    return vqmovn_high_s16(vqmovn_s16(vqaddq_s16(lo, zp)), vqaddq_s16(hi, zp));
}

static inline __attribute__((always_inline)) block products(block x, float32x4_t m) {
    block p = {vmulq_f32(x.x0, m), vmulq_f32(x.x1, m), vmulq_f32(x.x2, m), vmulq_f32(x.x3, m)};
    return p;
}

/* Lanes (all ones) whose input is nonzero and whose product has a zero
 * exponent field: the only ones flushing can make wrong. */
static inline __attribute__((always_inline)) uint32x4_t flushed(float32x4_t x, float32x4_t p) {
    const uint32x4_t xa = vandq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(0x7fffffffu));
    const uint32x4_t pe = vandq_u32(vreinterpretq_u32_f32(p), vdupq_n_u32(0x7f800000u));
    return vbicq_u32(vtstq_u32(xa, xa), vtstq_u32(pe, pe));
}

static inline __attribute__((always_inline)) void run(const sk_quant_ctx *c, const void *src,
                                                       int8_t *out, size_t n, int input, int mode) {
    size_t i = 0;
    const size_t end = n / SK_BLOCK * SK_BLOCK;
    if (!c->exact_only && end) {
        const float32x4_t m = vdupq_n_f32(c->multiplier);
        const int16x8_t zp = vdupq_n_s16((int16_t)c->zero_point);
        if (!fpcr_flushes()) {
            for (; i < end; i += SK_BLOCK)
                vst1q_s8(out + i, to_bytes(products(load_block(src, i, input), m), mode, zp));
        } else {
            for (; i < end; i += SK_BLOCK) {
                const block x = load_block(src, i, input);
                const block p = products(x, m);
                const uint32x4_t repair = vorrq_u32(vorrq_u32(flushed(x.x0, p.x0), flushed(x.x1, p.x1)),
                                                    vorrq_u32(flushed(x.x2, p.x2), flushed(x.x3, p.x3)));
                if (vmaxvq_u32(repair))
                    sk_quant_exact_span(c, src, out, i, i + SK_BLOCK, input, mode);
                else
                    vst1q_s8(out + i, to_bytes(p, mode, zp));
            }
        }
    }
    sk_quant_exact_span(c, src, out, i, n, input, mode);
}

SK_QUANT_ENTRIES(neon, run)
#endif
