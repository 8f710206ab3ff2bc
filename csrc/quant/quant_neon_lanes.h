/* The blocks of the NEON Quant leaves (quant_neon.c) and the NEON affine
 * quant leaves (../affine/affine_quant_neon.c), written once: 16 elements
 * loaded as FP32 lanes (BF16 shifted up, FP16 widened by FCVTL), the
 * products, the conversion by the mode, and the flushing test (quant_neon.c
 * gives the reasoning).  A file includes this inside its SK_HAVE_NEON
 * region. */
#ifndef SK_QUANT_NEON_LANES_H
#define SK_QUANT_NEON_LANES_H
#include "quant.h"
#include "../common/neon.h"

/* Written out vector by vector: GCC 12 -O2 keeps 4-trip loops over arrays
 * of vectors rolled, through the stack. */
typedef struct block {
    float32x4_t x0, x1, x2, x3;
} block;

/* Four FP32 / eight 16-bit inputs at *p, packed (step 1) or every other
 * element (step 2, LD2), and *p moved past them: for LD2 an opaque moving
 * pointer keeps every load post-incrementing (LD2 has no immediate offset). */
static inline __attribute__((always_inline)) float32x4_t load_f32(const char **p, int step) {
    const float *in = (const float *)(const void *)*p;
    const float32x4_t v = step == 1 ? vld1q_f32(in) : vld2q_f32(in).val[0];
    *p += 16 * step;
    if (step == 2) SK_NEON_OPAQUE(*p);
    return v;
}
static inline __attribute__((always_inline)) uint16x8_t load_u16(const char **p, int step) {
    const uint16_t *in = (const uint16_t *)(const void *)*p;
    const uint16x8_t v = step == 1 ? vld1q_u16(in) : vld2q_u16(in).val[0];
    *p += 16 * step;
    if (step == 2) SK_NEON_OPAQUE(*p);
    return v;
}

/* Block i (16 elements): packed (step 1, addressed from src, which lets
 * GCC pair the loads) or every other element (step 2, through the moving
 * pointer *p, at block i's first element). */
static inline __attribute__((always_inline)) block load_block(const void *src, size_t i, const char **p, int input,
                                                              int step) {
    const size_t size = input == SK_QUANT_F32 ? 4 : 2;
    const char *q = (const char *)src + i * size;
    if (step == 1) p = &q;
    block b;
    if (input == SK_QUANT_F32) {
        b.x0 = load_f32(p, step);
        b.x1 = load_f32(p, step);
        b.x2 = load_f32(p, step);
        b.x3 = load_f32(p, step);
    } else {
        const uint16x8_t a = load_u16(p, step), c = load_u16(p, step);
        if (input == SK_QUANT_BF16) { /* the BF16 word is the upper FP32 half */
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
    case SK_QUANT_NEAREST_EVEN:
        return vcvtnq_s32_f32(p);
    case SK_QUANT_TOWARD_ZERO:
        return vcvtq_s32_f32(p);
    case SK_QUANT_TOWARD_POSITIVE:
        return vcvtpq_s32_f32(p);
    default:
        return vcvtmq_s32_f32(p);
    }
}

/* Each lane's product with its own multiplier (the rows leaves), and with one multiplier. */
static inline __attribute__((always_inline)) block products_each(block x, block m) {
    block p = {vmulq_f32(x.x0, m.x0), vmulq_f32(x.x1, m.x1), vmulq_f32(x.x2, m.x2), vmulq_f32(x.x3, m.x3)};
    return p;
}
static inline __attribute__((always_inline)) block products(block x, float32x4_t m) {
    return products_each(x, (block){m, m, m, m});
}

/* Lanes (all ones) whose input is nonzero and whose product has a zero
 * exponent field: the only ones flushing can make wrong. */
static inline __attribute__((always_inline)) uint32x4_t flushed(float32x4_t x, float32x4_t p) {
    const uint32x4_t xa = vandq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(0x7fffffffu));
    const uint32x4_t pe = vandq_u32(vreinterpretq_u32_f32(p), vdupq_n_u32(0x7f800000u));
    return vbicq_u32(vtstq_u32(xa, xa), vtstq_u32(pe, pe));
}

/* Lanes that need the exact path under flushing, folded to one 64-bit
 * word (SHRN keeps a half of each all-ones or zero lane; FMOV moves it):
 * nonzero when any lane of the two blocks does. */
static inline __attribute__((always_inline)) uint64_t repairs(block x, block p, block y, block q) {
    const uint32x4_t a = vorrq_u32(vorrq_u32(flushed(x.x0, p.x0), flushed(x.x1, p.x1)),
                                   vorrq_u32(flushed(x.x2, p.x2), flushed(x.x3, p.x3)));
    const uint32x4_t b = vorrq_u32(vorrq_u32(flushed(y.x0, q.x0), flushed(y.x1, q.x1)),
                                   vorrq_u32(flushed(y.x2, q.x2), flushed(y.x3, q.x3)));
    return vget_lane_u64(vreinterpret_u64_u16(vshrn_n_u32(vorrq_u32(a, b), 16)), 0);
}

#endif
