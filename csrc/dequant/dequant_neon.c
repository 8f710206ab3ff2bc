/* NEON Dequant: 16 INT8 values per block become four FP32 vectors by the
 * form's exact arithmetic; two independent blocks per iteration, then one,
 * then the staged scalar expression for the tail (never a partial vector). */
#include "dequant.h"
#if SK_HAVE_NEON
#include <arm_neon.h>

typedef struct quad { float32x4_t v[4]; } quad;

/* The context's values as vectors, made once per call before the loop: a
 * NEON store may alias anything, so values read from the context inside the
 * loop would be reloaded and re-broadcast every iteration.  Each form uses
 * only its own fields (the others are dead and compiled away). */
typedef struct params {
    int8x16_t zp8;       /* narrow forms: the INT8-range zero point */
    float32x4_t zp;      /* (float)zero_point */
    float32x4_t zs;      /* zp * scale, exact for the wide power-of-two form */
    float32x4_t scale;
} params;

static inline __attribute__((always_inline)) params make_params(const sk_dequant_ctx *c) {
    params p = {vdupq_n_s8((int8_t)c->zero_point), vdupq_n_f32(c->zp), vdupq_n_f32(c->zp_scaled),
                vdupq_n_f32(c->scale)};
    return p;
}

/* GCC 12 at -O2 keeps 4-trip loops rolled, and a rolled loop over a quad
 * forces it through the stack (24-28 extra loads/stores per 32 elements):
 * every `k < 4` loop here is unrolled explicitly. */
#define EACH_VECTOR _Pragma("GCC unroll 4") for (int k = 0; k < 4; ++k)

/* Converts the INT16 values d (exact integers) times 2^e, -4 <= e <= 4: a
 * fixed-point conversion with -e fraction bits, or a widening left shift.
 * Both are exact: the scaled integers stay far below 2^24. */
static inline __attribute__((always_inline)) void scaled_convert(int16x8_t d, int e, float32x4_t *lo,
                                                                 float32x4_t *hi) {
    switch (e) {
#define FIXED(k)                                                      \
    case -k:                                                          \
        *lo = vcvtq_n_f32_s32(vmovl_s16(vget_low_s16(d)), k);         \
        *hi = vcvtq_n_f32_s32(vmovl_high_s16(d), k);                  \
        return;
#define SHIFTED(k)                                                    \
    case k:                                                           \
        *lo = vcvtq_f32_s32(vshll_n_s16(vget_low_s16(d), k));         \
        *hi = vcvtq_f32_s32(vshll_high_n_s16(d, k));                  \
        return;
        FIXED(4) FIXED(3) FIXED(2) FIXED(1)
        SHIFTED(1) SHIFTED(2) SHIFTED(3) SHIFTED(4)
#undef FIXED
#undef SHIFTED
    default:  /* e == 0 */
        *lo = vcvtq_f32_s32(vmovl_s16(vget_low_s16(d)));
        *hi = vcvtq_f32_s32(vmovl_high_s16(d));
    }
}

static inline float32x4_t widen_convert(int16x4_t v) { return vcvtq_f32_s32(vmovl_s16(v)); }

/* INT8-range zero point: widening subtraction gives exact differences. */
static inline __attribute__((always_inline)) quad narrow(const params *p, int8x16_t q, int e) {
    (void)e;
    const int8x16_t zp = p->zp8;
    const float32x4_t s = p->scale;
    int16x8_t lo = vsubl_s8(vget_low_s8(q), vget_low_s8(zp));
    int16x8_t hi = vsubl_high_s8(q, zp);
    quad r = {{vmulq_f32(widen_convert(vget_low_s16(lo)), s), vmulq_f32(vcvtq_f32_s32(vmovl_high_s16(lo)), s),
               vmulq_f32(widen_convert(vget_low_s16(hi)), s), vmulq_f32(vcvtq_f32_s32(vmovl_high_s16(hi)), s)}};
    return r;
}

/* INT8-range zero point and scale 2^e: the exact difference, scaled while
 * converting; no multiply. */
static inline __attribute__((always_inline)) quad narrow_pow2(const params *p, int8x16_t q, int e) {
    const int8x16_t zp = p->zp8;
    quad r;
    scaled_convert(vsubl_s8(vget_low_s8(q), vget_low_s8(zp)), e, &r.v[0], &r.v[1]);
    scaled_convert(vsubl_high_s8(q, zp), e, &r.v[2], &r.v[3]);
    return r;
}

/* Bounded wide zero point and scale 2^e: q*2^e and zp*2^e are exact, so one
 * exact subtraction gives the staged result. */
static inline __attribute__((always_inline)) quad wide_pow2(const params *p, int8x16_t q, int e) {
    const float32x4_t zs = p->zs;
    quad r;
    scaled_convert(vmovl_s8(vget_low_s8(q)), e, &r.v[0], &r.v[1]);
    scaled_convert(vmovl_high_s8(q), e, &r.v[2], &r.v[3]);
    EACH_VECTOR r.v[k] = vsubq_f32(r.v[k], zs);
    return r;
}

/* Other zero points: INT8 -> INT16 -> INT32 -> FP32, then the separately
 * rounded subtraction (and multiplication unless the scale is 1). */
static inline __attribute__((always_inline)) quad convert_q(int8x16_t q) {
    int16x8_t lo = vmovl_s8(vget_low_s8(q)), hi = vmovl_high_s8(q);
    quad r = {{widen_convert(vget_low_s16(lo)), vcvtq_f32_s32(vmovl_high_s16(lo)),
               widen_convert(vget_low_s16(hi)), vcvtq_f32_s32(vmovl_high_s16(hi))}};
    return r;
}

static inline __attribute__((always_inline)) quad wide_unit(const params *p, int8x16_t q, int e) {
    (void)e;
    const float32x4_t zp = p->zp;
    quad r = convert_q(q);
    EACH_VECTOR r.v[k] = vsubq_f32(r.v[k], zp);
    return r;
}

static inline __attribute__((always_inline)) quad wide(const params *p, int8x16_t q, int e) {
    (void)e;
    const float32x4_t zp = p->zp, s = p->scale;
    quad r = convert_q(q);
    EACH_VECTOR r.v[k] = vmulq_f32(vsubq_f32(r.v[k], zp), s);
    return r;
}

typedef quad (*block_fn)(const params *p, int8x16_t q, int e);

static inline void store_f32(float *out, quad r) {
    EACH_VECTOR vst1q_f32(out + 4 * k, r.v[k]);
}

/* FP32 -> BF16 nearest-even on the result bits, as the scalar rule. */
static inline uint16x4_t narrow_bits(float32x4_t v) {
    uint32x4_t b = vreinterpretq_u32_f32(v);
    uint32x4_t lsb = vandq_u32(vshrq_n_u32(b, 16), vdupq_n_u32(1));
    return vshrn_n_u32(vaddq_u32(vaddq_u32(b, vdupq_n_u32(0x7fffu)), lsb), 16);
}

static inline void store_bf16(uint16_t *out, quad r) {
    vst1q_u16(out, vcombine_u16(narrow_bits(r.v[0]), narrow_bits(r.v[1])));
    vst1q_u16(out + 8, vcombine_u16(narrow_bits(r.v[2]), narrow_bits(r.v[3])));
}

static inline __attribute__((always_inline)) void run_f32(const sk_dequant_ctx *c, const int8_t *in,
                                                           float *out, size_t n, block_fn f, int e) {
    const params p = make_params(c);
    size_t i = 0;
    for (; i + 2 * SK_BLOCK <= n; i += 2 * SK_BLOCK) {
        quad a = f(&p, vld1q_s8(in + i), e);
        quad b = f(&p, vld1q_s8(in + i + SK_BLOCK), e);
        store_f32(out + i, a);
        store_f32(out + i + SK_BLOCK, b);
    }
    if (i + SK_BLOCK <= n) {
        store_f32(out + i, f(&p, vld1q_s8(in + i), e));
        i += SK_BLOCK;
    }
    for (; i < n; ++i) out[i] = sk_dequant_staged(c, in[i]);
}

static inline __attribute__((always_inline)) void run_bf16(const sk_dequant_ctx *c, const int8_t *in,
                                                            uint16_t *out, size_t n, block_fn f, int e) {
    const params p = make_params(c);
    size_t i = 0;
    for (; i + 2 * SK_BLOCK <= n; i += 2 * SK_BLOCK) {
        quad a = f(&p, vld1q_s8(in + i), e);
        quad b = f(&p, vld1q_s8(in + i + SK_BLOCK), e);
        store_bf16(out + i, a);
        store_bf16(out + i + SK_BLOCK, b);
    }
    if (i + SK_BLOCK <= n) {
        store_bf16(out + i, f(&p, vld1q_s8(in + i), e));
        i += SK_BLOCK;
    }
    for (; i < n; ++i) out[i] = sk_bf16_from_f32_bits(sk_f32_bits(sk_dequant_staged(c, in[i])));
}

/* Leaves whose arithmetic does not depend on the exponent. */
#define PLAIN_LEAVES(form)                                                            \
    SK_DEQUANT_LEAF(sk_dequant_i8_f32_##form##__neon) { run_f32(ctx, src, dst, n, form, 0); } \
    SK_DEQUANT_LEAF(sk_dequant_i8_bf16_##form##__neon) { run_bf16(ctx, src, dst, n, form, 0); }
PLAIN_LEAVES(narrow)
PLAIN_LEAVES(wide_unit)
PLAIN_LEAVES(wide)
#undef PLAIN_LEAVES

/* Power-of-two leaves: the conversion immediates must be constants, so each
 * exponent gets its own instance of the loop. */
#define POW2_LEAF(name, run, form, out_t)                                         \
    SK_DEQUANT_LEAF(name) {                                                       \
        const sk_dequant_ctx *c = ctx;                                            \
        const int8_t *in = src;                                                   \
        out_t *out = dst;                                                         \
        switch (c->exponent) {                                                    \
        case -4: run(c, in, out, n, form, -4); break;                             \
        case -3: run(c, in, out, n, form, -3); break;                             \
        case -2: run(c, in, out, n, form, -2); break;                             \
        case -1: run(c, in, out, n, form, -1); break;                             \
        case 0: run(c, in, out, n, form, 0); break;                               \
        case 1: run(c, in, out, n, form, 1); break;                               \
        case 2: run(c, in, out, n, form, 2); break;                               \
        case 3: run(c, in, out, n, form, 3); break;                               \
        default: run(c, in, out, n, form, 4); break;                              \
        }                                                                         \
    }
POW2_LEAF(sk_dequant_i8_f32_narrow_pow2__neon, run_f32, narrow_pow2, float)
POW2_LEAF(sk_dequant_i8_bf16_narrow_pow2__neon, run_bf16, narrow_pow2, uint16_t)
POW2_LEAF(sk_dequant_i8_f32_wide_pow2__neon, run_f32, wide_pow2, float)
POW2_LEAF(sk_dequant_i8_bf16_wide_pow2__neon, run_bf16, wide_pow2, uint16_t)
#undef POW2_LEAF
#endif
