/* NEON Dequant: 16 INT8 values per block become four FP32 vectors by the
 * form's exact arithmetic; four independent blocks per iteration, then two,
 * then one, then the staged scalar expression for the tail (never a partial
 * vector).  The every_other leaves (kernel.h) load every second INT8 value
 * with LD2 and run the same blocks.  BF16 results are narrowed by the Cast
 * rule (ADDHN) or, where they are exact, truncated (UZP2).  The runs leaves
 * run the same groups of blocks per entry where runs are whole pairs of
 * blocks (blocked segments of 32 or 128), else the dense leaves' code per
 * channel.  The periodic leaves take generic vectors (dequant_axis_body.h). */
#include "dequant.h"
#if SK_HAVE_NEON
#include "../common/neon.h"
#include "../common/tuning.h"

typedef struct quad {
    float32x4_t v[4];
} quad;

/* The context's values as vectors, made once per call before the loop: a
 * NEON store may alias anything, so values read from the context inside the
 * loop would be reloaded and re-broadcast every iteration.  Each form uses
 * only its own fields (the others are dead and compiled away). */
typedef struct params {
    int8x16_t zp8;  /* narrow forms: the INT8-range zero point */
    float32x4_t zp; /* (float)zero_point */
    float32x4_t zs; /* zp * scale, exact for the wide power-of-two form */
    float32x4_t scale;
} params;

static inline __attribute__((always_inline)) params make_params(const sk_dequant_ctx *c) {
    params p = {vdupq_n_s8((int8_t)c->zero_point), vdupq_n_f32(c->zp), vdupq_n_f32(c->zp_scaled),
                vdupq_n_f32(c->scale)};
    return p;
}

/* GCC 12 at -O2 keeps 4-trip loops rolled, and a rolled loop over a quad
 * forces it through the stack: every `k < 4` loop here is unrolled
 * explicitly. */
#define EACH_VECTOR _Pragma("GCC unroll 4") for (int k = 0; k < 4; ++k)

/* Converts the INT16 values d (exact integers) times 2^e, -4 <= e <= 4: a
 * fixed-point conversion with -e fraction bits, or a widening left shift.
 * Both are exact: the scaled integers stay far below 2^24. */
static inline __attribute__((always_inline)) void scaled_convert(int16x8_t d, int e, float32x4_t *lo, float32x4_t *hi) {
    switch (e) {
#define FIXED(k)                                              \
    case -k:                                                  \
        *lo = vcvtq_n_f32_s32(vmovl_s16(vget_low_s16(d)), k); \
        *hi = vcvtq_n_f32_s32(vmovl_high_s16(d), k);          \
        return;
#define SHIFTED(k)                                            \
    case k:                                                   \
        *lo = vcvtq_f32_s32(vshll_n_s16(vget_low_s16(d), k)); \
        *hi = vcvtq_f32_s32(vshll_high_n_s16(d, k));          \
        return;
        FIXED(4)
        FIXED(3)
        FIXED(2)
        FIXED(1)
        SHIFTED(1)
        SHIFTED(2)
        SHIFTED(3)
        SHIFTED(4)
#undef FIXED
#undef SHIFTED
    default: /* e == 0 */
        *lo = vcvtq_f32_s32(vmovl_s16(vget_low_s16(d)));
        *hi = vcvtq_f32_s32(vmovl_high_s16(d));
    }
}

static inline float32x4_t widen_convert(int16x4_t v) { return vcvtq_f32_s32(vmovl_s16(v)); }

/* INT8-range zero point: widening subtraction gives exact differences.
 * Each lane with its own zero point and scale (the rows leaves), or one. */
static inline __attribute__((always_inline)) quad narrow_each(int8x16_t q, int8x16_t zp, quad s) {
    int16x8_t lo = vsubl_s8(vget_low_s8(q), vget_low_s8(zp));
    int16x8_t hi = vsubl_high_s8(q, zp);
    quad r = {{vmulq_f32(widen_convert(vget_low_s16(lo)), s.v[0]), vmulq_f32(vcvtq_f32_s32(vmovl_high_s16(lo)), s.v[1]),
               vmulq_f32(widen_convert(vget_low_s16(hi)), s.v[2]),
               vmulq_f32(vcvtq_f32_s32(vmovl_high_s16(hi)), s.v[3])}};
    return r;
}
static inline __attribute__((always_inline)) quad narrow(const params *p, int8x16_t q, int e) {
    (void)e;
    return narrow_each(q, p->zp8, (quad){{p->scale, p->scale, p->scale, p->scale}});
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
    quad r = {{widen_convert(vget_low_s16(lo)), vcvtq_f32_s32(vmovl_high_s16(lo)), widen_convert(vget_low_s16(hi)),
               vcvtq_f32_s32(vmovl_high_s16(hi))}};
    return r;
}

static inline __attribute__((always_inline)) quad wide_unit(const params *p, int8x16_t q, int e) {
    (void)e;
    const float32x4_t zp = p->zp;
    quad r = convert_q(q);
    EACH_VECTOR r.v[k] = vsubq_f32(r.v[k], zp);
    return r;
}

static inline __attribute__((always_inline)) quad wide_each(int8x16_t q, quad zp, quad s) {
    quad r = convert_q(q);
    EACH_VECTOR r.v[k] = vmulq_f32(vsubq_f32(r.v[k], zp.v[k]), s.v[k]);
    return r;
}
static inline __attribute__((always_inline)) quad wide(const params *p, int8x16_t q, int e) {
    (void)e;
    return wide_each(q, (quad){{p->zp, p->zp, p->zp, p->zp}}, (quad){{p->scale, p->scale, p->scale, p->scale}});
}

typedef quad (*block_fn)(const params *p, int8x16_t q, int e);

/* How a leaf stores its blocks: FP32 as four vectors (GCC pairs them into
 * STP), FP32 as one ST1 of four registers (fewer instructions, but more
 * A55-model cycles except in the narrow form, where both are fewer: PERF.md),
 * BF16 rounded by the Cast rule, or BF16 exact (see store_bf16). */
enum { OUT_F32, OUT_F32_ST4, OUT_BF16, OUT_BF16_EXACT };

static inline __attribute__((always_inline)) void store_f32(float *out, quad r, int st4) {
    if (st4)
        vst1q_f32_x4(out, (float32x4x4_t){{r.v[0], r.v[1], r.v[2], r.v[3]}});
    else
        EACH_VECTOR vst1q_f32(out + 4 * k, r.v[k]);
}

/* FP32 -> BF16 by the Cast rule (sk_neon_bf16_round). */
static inline __attribute__((always_inline)) uint16x8_t narrow_bits(float32x4_t lo, float32x4_t hi) {
    return sk_neon_bf16_round(vreinterpretq_u32_f32(lo), vreinterpretq_u32_f32(hi), vdupq_n_u32(0x10000u),
                              vdupq_n_u32(0x7fffu));
}

/* `exact`: every result has at most 8 significant bits (the narrow
 * power-of-two form: |q - zp| <= 255 times 2^e), so BF16 holds it exactly
 * and its high half is the rounded result (UZP2 takes the high halves). */
static inline __attribute__((always_inline)) void store_bf16(uint16_t *out, quad r, int exact) {
    if (exact) {
        vst1q_u16(out, vuzp2q_u16(vreinterpretq_u16_f32(r.v[0]), vreinterpretq_u16_f32(r.v[1])));
        vst1q_u16(out + 8, vuzp2q_u16(vreinterpretq_u16_f32(r.v[2]), vreinterpretq_u16_f32(r.v[3])));
    } else {
        vst1q_u16(out, narrow_bits(r.v[0], r.v[1]));
        vst1q_u16(out + 8, narrow_bits(r.v[2], r.v[3]));
    }
}

/* Sixteen INT8 inputs: packed (step 1) or every other byte (step 2, LD2). */
static inline __attribute__((always_inline)) int8x16_t load16(const int8_t *in, size_t i, int step) {
    return step == 1 ? vld1q_s8(in + i) : vld2q_s8(in + 2 * i).val[0];
}

/* A converted block stored at element i. */
static inline __attribute__((always_inline)) void store_at(void *dst, size_t i, quad r, int out) {
    if (out == OUT_BF16 || out == OUT_BF16_EXACT)
        store_bf16((uint16_t *)dst + i, r, out == OUT_BF16_EXACT);
    else
        store_f32((float *)dst + i, r, out == OUT_F32_ST4);
}

/* `k` (2 or 4) blocks from element i, all converted before any is stored. */
static inline __attribute__((always_inline)) void group(const params *p, const int8_t *in, void *dst, size_t i,
                                                        block_fn f, int e, int out, int step, int k) {
    const quad a = f(p, load16(in, i, step), e), b = f(p, load16(in, i + SK_BLOCK, step), e);
    if (k == 2) {
        store_at(dst, i, a, out);
        store_at(dst, i + SK_BLOCK, b, out);
        return;
    }
    const quad x = f(p, load16(in, i + 2 * SK_BLOCK, step), e), y = f(p, load16(in, i + 3 * SK_BLOCK, step), e);
    store_at(dst, i, a, out);
    store_at(dst, i + SK_BLOCK, b, out);
    store_at(dst, i + 2 * SK_BLOCK, x, out);
    store_at(dst, i + 3 * SK_BLOCK, y, out);
}

/* Whole blocks over elements [0, n), four per iteration (so that the
 * loop's own instructions are few per block), then two, then one; returns
 * how many elements.  Each group is converted before any of
 * it is stored, so that the blocks' chains interleave (stored one by one,
 * GCC serialises them on the same registers).  `out`: how blocks are
 * stored. */
static inline __attribute__((always_inline)) size_t blocks(const sk_dequant_ctx *c, const int8_t *in, void *dst,
                                                           size_t n, block_fn f, int e, int out, int step) {
    const params p = make_params(c);
    size_t i = 0;
    for (; i + 4 * SK_BLOCK <= n; i += 4 * SK_BLOCK) group(&p, in, dst, i, f, e, out, step, 4);
    if (i + 2 * SK_BLOCK <= n) {
        group(&p, in, dst, i, f, e, out, step, 2);
        i += 2 * SK_BLOCK;
    }
    if (i + SK_BLOCK <= n) {
        store_at(dst, i, f(&p, load16(in, i, step), e), out);
        i += SK_BLOCK;
    }
    return i;
}

/* A dense leaf: the blocks, then the staged scalar expression for the tail
 * (never a partial vector). */
static inline __attribute__((always_inline)) void run(const sk_dequant_ctx *c, const int8_t *in, void *dst, size_t n,
                                                      block_fn f, int e, int out) {
    const size_t i = blocks(c, in, dst, n, f, e, out, 1);
    sk_dequant_each(c, in, 1, dst, i, n, sk_dq_wide, out == OUT_BF16 || out == OUT_BF16_EXACT);
}

/* An every_other leaf (kernel.h): the blocks while another element follows
 * (the last LD2 reads the gap after its last element). */
static inline __attribute__((always_inline)) size_t run_every_other(const sk_dequant_ctx *c, const int8_t *in,
                                                                    void *dst, size_t n, block_fn f, int e, int out) {
    return blocks(c, in, dst, n - 1, f, e, out, 2);
}

/* Leaves whose arithmetic does not depend on the exponent. */
void sk_dequant_i8_f32_narrow__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, narrow, 0, OUT_F32_ST4);
}
void sk_dequant_i8_f32_wide_unit__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, wide_unit, 0, OUT_F32);
}
void sk_dequant_i8_f32_wide__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, wide, 0, OUT_F32);
}
void sk_dequant_i8_bf16_narrow__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, narrow, 0, OUT_BF16);
}
void sk_dequant_i8_bf16_wide_unit__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, wide_unit, 0, OUT_BF16);
}
void sk_dequant_i8_bf16_wide__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, wide, 0, OUT_BF16);
}
size_t sk_dequant_i8_f32_narrow_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, narrow, 0, OUT_F32_ST4);
}
size_t sk_dequant_i8_f32_wide_unit_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, wide_unit, 0, OUT_F32);
}
size_t sk_dequant_i8_f32_wide_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, wide, 0, OUT_F32);
}
size_t sk_dequant_i8_bf16_narrow_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, narrow, 0, OUT_BF16);
}
size_t sk_dequant_i8_bf16_wide_unit_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, wide_unit, 0, OUT_BF16);
}
size_t sk_dequant_i8_bf16_wide_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, wide, 0, OUT_BF16);
}

/* A leaf of either kind (step 1: dense, returning n; step 2: every_other). */
static inline __attribute__((always_inline)) size_t leaf(const sk_dequant_ctx *c, const int8_t *in, void *dst, size_t n,
                                                         block_fn f, int e, int out, int step) {
    if (step == 2) return run_every_other(c, in, dst, n, f, e, out);
    run(c, in, dst, n, f, e, out);
    return n;
}

/* Power-of-two leaves: the conversion immediates must be constants, so each
 * exponent gets its own instance of the loop. */
static inline __attribute__((always_inline)) size_t pow2(const sk_dequant_ctx *c, const int8_t *in, void *dst, size_t n,
                                                         block_fn f, int out, int step) {
    switch (c->exponent) {
    case -4:
        return leaf(c, in, dst, n, f, -4, out, step);
    case -3:
        return leaf(c, in, dst, n, f, -3, out, step);
    case -2:
        return leaf(c, in, dst, n, f, -2, out, step);
    case -1:
        return leaf(c, in, dst, n, f, -1, out, step);
    case 0:
        return leaf(c, in, dst, n, f, 0, out, step);
    case 1:
        return leaf(c, in, dst, n, f, 1, out, step);
    case 2:
        return leaf(c, in, dst, n, f, 2, out, step);
    case 3:
        return leaf(c, in, dst, n, f, 3, out, step);
    default:
        return leaf(c, in, dst, n, f, 4, out, step);
    }
}
void sk_dequant_i8_f32_narrow_pow2__neon(const void *ctx, const void *src, void *dst, size_t n) {
    pow2(ctx, src, dst, n, narrow_pow2, OUT_F32, 1);
}
void sk_dequant_i8_f32_wide_pow2__neon(const void *ctx, const void *src, void *dst, size_t n) {
    pow2(ctx, src, dst, n, wide_pow2, OUT_F32, 1);
}
void sk_dequant_i8_bf16_narrow_pow2__neon(const void *ctx, const void *src, void *dst, size_t n) {
    pow2(ctx, src, dst, n, narrow_pow2, OUT_BF16_EXACT, 1);
}
void sk_dequant_i8_bf16_wide_pow2__neon(const void *ctx, const void *src, void *dst, size_t n) {
    pow2(ctx, src, dst, n, wide_pow2, OUT_BF16, 1);
}
size_t sk_dequant_i8_f32_narrow_pow2_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return pow2(ctx, src, dst, n, narrow_pow2, OUT_F32, 2);
}
size_t sk_dequant_i8_f32_wide_pow2_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return pow2(ctx, src, dst, n, wide_pow2, OUT_F32, 2);
}
size_t sk_dequant_i8_bf16_narrow_pow2_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return pow2(ctx, src, dst, n, narrow_pow2, OUT_BF16_EXACT, 2);
}
size_t sk_dequant_i8_bf16_wide_pow2_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return pow2(ctx, src, dst, n, wide_pow2, OUT_BF16, 2);
}

/* `count` runs of n elements, a multiple of two blocks, channels (entries)
 * from `first` on (none wraps): groups of blocks (four where n allows),
 * with only the entry's values loaded per run, by the narrow form for an
 * INT8-range zero point (`all_narrow`: every entry's, no test per run),
 * else by the staged expression's own form (right for every entry).
 * Narrow FP32 is stored by ST1 of four registers in groups of two only: in
 * groups of four GCC 12 builds those registers through the stack.  Blocked
 * plans' segments of 32 or 128 elements come here, where the dense leaf's
 * per-call set-up and tail tests would cost as much as the conversion. */
static inline __attribute__((always_inline)) void entry_groups(const sk_dequant_ctx *c, const int8_t **in, char **to,
                                                               const int8_t *stop, block_fn f, int out, int k) {
    const params p = make_params(c); /* here, so that each form loads only its own fields */
    const size_t size = out == OUT_BF16 ? 2 : 4;
    do { /* n > 0: the pointers run on into the next run */
        group(&p, *in, *to, 0, f, 0, out, 1, k);
        *in += k * SK_BLOCK;
        *to += k * SK_BLOCK * size;
    } while (*in != stop);
}

static inline __attribute__((always_inline)) void whole_runs(const sk_dequant_ctx *first, const int8_t *in, char *to,
                                                             size_t n, size_t count, int out, int all_narrow) {
    const int k = n % (4 * SK_BLOCK) == 0 ? 4 : 2;
    for (const sk_dequant_ctx *c = first, *end = first + count; c < end; ++c) {
        if (all_narrow || (c->zero_point >= -128 && c->zero_point <= 127))
            entry_groups(c, &in, &to, in + n, narrow, out == OUT_F32 && k == 2 ? OUT_F32_ST4 : out, k);
        else
            entry_groups(c, &in, &to, in + n, wide, out, k);
    }
}

/* Per-axis and blocked plans: `count` packed runs of n elements, channels
 * (entries) from `channel` on (kernel.h, runs), each with the channel's
 * values: whole groups of blocks by whole_runs (blocks of 32 with n a
 * constant: one loop, over the runs), split where the channels wrap, else
 * the dense leaf's code per run, inlined, by the narrow or the staged
 * expression's form. */
static inline __attribute__((always_inline)) void runs(const void *table, size_t channel, const void *src, void *dst,
                                                       size_t n, size_t count, int out) {
    const sk_dequant_table *t = table;
    const int8_t *in = src;
    char *to = dst;
    const size_t size = out == OUT_BF16 ? 2 : 4, channels = (size_t)t->channels;
    if (n > 0 && n % (2 * SK_BLOCK) == 0) {
        for (size_t c = channel; count > 0; c = 0) {
            const size_t k = count < channels - c ? count : channels - c;
            if (n == 2 * SK_BLOCK && t->narrow)
                whole_runs(&t->ctx[c], in, to, 2 * SK_BLOCK, k, out, 1);
            else if (n == 2 * SK_BLOCK)
                whole_runs(&t->ctx[c], in, to, 2 * SK_BLOCK, k, out, 0);
            else if (t->narrow)
                whole_runs(&t->ctx[c], in, to, n, k, out, 1);
            else
                whole_runs(&t->ctx[c], in, to, n, k, out, 0);
            in += k * n;
            to += k * n * size;
            count -= k;
        }
        return;
    }
    for (size_t r = 0, c = channel; r < count; ++r, in += n, to += n * size) {
        const sk_dequant_ctx *x = &t->ctx[c];
        if (x->zero_point >= -128 && x->zero_point <= 127)
            run(x, in, to, n, narrow, 0, out == OUT_F32 ? OUT_F32_ST4 : out);
        else
            run(x, in, to, n, wide, 0, out);
        c = c + 1 == channels ? 0 : c + 1;
    }
}
void sk_dequant_i8_f32_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                  size_t count) {
    runs(table, channel, src, dst, n, count, OUT_F32);
}
void sk_dequant_i8_bf16_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                   size_t count) {
    runs(table, channel, src, dst, n, count, OUT_BF16);
}

/* ---- The rows leaves (kernel.h sk_rows_leaf) -----------------------------
 * Element j of every row takes table position at + j.  Strips of two
 * blocks (32 columns), then one, go down groups of up to SK_ROW_GROUP rows: a
 * strip's scales and zero points (as INT8 when the table is narrow) are
 * loaded into registers once per group, and each row's blocks are then the
 * narrow form (every zero point in the INT8 range) or the staged
 * expression's own, lane by lane, stored as the dense leaves store
 * (tuning.h says why groups of SK_ROW_GROUP).  A rest of fewer than 16 columns is the run's last whole block
 * again (the same bytes twice: lanes independent, ports never overlap);
 * runs shorter than a block take the staged expression per element. */
typedef struct strip_params {
    quad s, zp;
    int8x16_t zp8;
} strip_params;

static inline __attribute__((always_inline)) quad load_quad(const float *p) {
    return (quad){{vld1q_f32(p), vld1q_f32(p + 4), vld1q_f32(p + 8), vld1q_f32(p + 12)}};
}

/* Positions [k, k + 16); the zero points narrowed to INT8 when `narrow_form`
 * (integral binary32 values in the INT8 range: the conversions are exact). */
static inline __attribute__((always_inline)) strip_params strip_at(const sk_dequant_table *t, size_t k,
                                                                   int narrow_form) {
    strip_params p;
    p.s = load_quad(t->scale + k);
    p.zp = load_quad(t->zp + k);
    p.zp8 = vdupq_n_s8(0);
    if (narrow_form) {
        const int16x8_t lo = vmovn_high_s32(vmovn_s32(vcvtq_s32_f32(p.zp.v[0])), vcvtq_s32_f32(p.zp.v[1]));
        const int16x8_t hi = vmovn_high_s32(vmovn_s32(vcvtq_s32_f32(p.zp.v[2])), vcvtq_s32_f32(p.zp.v[3]));
        p.zp8 = vmovn_high_s16(vmovn_s16(lo), hi);
    }
    return p;
}

static inline __attribute__((always_inline)) quad each(const strip_params *p, int8x16_t q, int narrow_form) {
    return narrow_form ? narrow_each(q, p->zp8, p->s) : wide_each(q, p->zp, p->s);
}

/* One row's block (blocks2 0) or two from `in` to `to`. */
static inline __attribute__((always_inline)) void strip_row(const strip_params *a, const strip_params *b,
                                                            const int8_t *in, char *to, int how, int narrow_form,
                                                            int blocks2) {
    const quad x = each(a, vld1q_s8(in), narrow_form);
    if (!blocks2) {
        store_at(to, 0, x, how);
        return;
    }
    const quad y = each(b, vld1q_s8(in + SK_BLOCK), narrow_form);
    store_at(to, 0, x, how);
    store_at(to, SK_BLOCK, y, how);
}

/* Columns [j, j + 16) (blocks2 0) or [j, j + 32) (1) of `rows` rows. */
static inline __attribute__((always_inline)) void strip(const sk_dequant_table *t, size_t at, size_t j,
                                                        const int8_t *src, ptrdiff_t src_pitch, char *dst,
                                                        ptrdiff_t dst_pitch, size_t rows, int out, int narrow_form,
                                                        int blocks2) {
    const strip_params a = strip_at(t, at + j, narrow_form);
    const strip_params b = blocks2 ? strip_at(t, at + j + SK_BLOCK, narrow_form) : a;
    const int how = out == OUT_F32 && narrow_form ? OUT_F32_ST4 : out;
    /* the strip's first element of each row: one base register, constant offsets */
    const int8_t *in = src + j;
    char *to = dst + j * (out == OUT_BF16 ? 2 : 4);
    for (size_t r = rows; r > 0; --r, in += src_pitch, to += dst_pitch)
        strip_row(&a, &b, in, to, how, narrow_form, blocks2);
}

static inline __attribute__((always_inline)) void rows_group(const sk_dequant_table *t, size_t at, const int8_t *src,
                                                             ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                                                             size_t n, size_t rows, int out, int narrow_form) {
    size_t j = 0;
    for (; j + 2 * SK_BLOCK <= n; j += 2 * SK_BLOCK)
        strip(t, at, j, src, src_pitch, dst, dst_pitch, rows, out, narrow_form, 1);
    if (j + SK_BLOCK <= n) {
        strip(t, at, j, src, src_pitch, dst, dst_pitch, rows, out, narrow_form, 0);
        j += SK_BLOCK;
    }
    if (j < n) /* the last whole block again */
        strip(t, at, n - SK_BLOCK, src, src_pitch, dst, dst_pitch, rows, out, narrow_form, 0);
}

static inline __attribute__((always_inline)) void rows_leaf(const void *table, size_t at, const char *src,
                                                            ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                                                            size_t n, size_t rows, int out) {
    const sk_dequant_table *t = table;
    const int bf16 = out == OUT_BF16;
    if (n < SK_BLOCK) {
        for (size_t r = 0; r < rows; ++r, src += src_pitch, dst += dst_pitch)
            sk_dequant_axis_tail(t->scale + at, t->zp + at, 1, (const int8_t *)src, dst, 0, n, bf16);
        return;
    }
    for (size_t g = 0; g < rows; g += SK_ROW_GROUP) {
        const size_t k = rows - g < SK_ROW_GROUP ? rows - g : SK_ROW_GROUP;
        const int8_t *in = (const int8_t *)src + (ptrdiff_t)g * src_pitch;
        char *to = dst + (ptrdiff_t)g * dst_pitch;
        if (t->narrow)
            rows_group(t, at, in, src_pitch, to, dst_pitch, n, k, out, 1);
        else
            rows_group(t, at, in, src_pitch, to, dst_pitch, n, k, out, 0);
    }
}
void sk_dequant_i8_f32_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                  ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, OUT_F32);
}
void sk_dequant_i8_bf16_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                   ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, OUT_BF16);
}

#define AXIS_ISA neon
#define AXIS_ISA_NEON 1
#include "dequant_axis_body.h"
#endif
