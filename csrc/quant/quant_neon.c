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
 * is read once per execute into the context (`flushes`); under it FMUL
 * flushes subnormal inputs and products to zero, and a pair of blocks is
 * recomputed by the exact integer path when a nonzero input has a product
 * with a zero exponent field (flushed, subnormal or from a flushed input).
 * Under flushing tails take the exact path too, and so does every block of
 * a subnormal multiplier; otherwise a tail runs as one zero-padded block.
 * The every_other leaves (kernel.h) load every second element with LD2 and
 * run the same blocks; the runs leaves run the same pairs of blocks per
 * entry where runs are whole pairs (blocked segments of 32 or 128), else
 * the dense leaves' code per channel (the periodic leaves are
 * quant_axis.c's). */
#include <string.h>
#include "quant.h"
#if SK_HAVE_NEON
#include "quant_neon_lanes.h"
#include "../common/tuning.h"

/* The bytes of a block's products, the zero points of elements 0-7 in
 * zlo and of elements 8-15 in zhi (the rows leaves: each lane its own). */
static inline __attribute__((always_inline)) int8x16_t to_bytes_each(block p, int mode, int16x8_t zlo, int16x8_t zhi) {
    const int16x8_t lo = vqmovn_high_s32(vqmovn_s32(to_int(p.x0, mode)), to_int(p.x1, mode));
    const int16x8_t hi = vqmovn_high_s32(vqmovn_s32(to_int(p.x2, mode)), to_int(p.x3, mode));
    return vqmovn_high_s16(vqmovn_s16(vqaddq_s16(lo, zlo)), vqaddq_s16(hi, zhi));
}
static inline __attribute__((always_inline)) int8x16_t to_bytes(block p, int mode, int16x8_t zp) {
    return to_bytes_each(p, mode, zp, zp);
}

/* Blocks that flushing could make wrong, by the exact path: out of line,
 * so that the hot loops stay small (it runs only under FZ, and rarely). */
static __attribute__((noinline)) void exact_blocks(const sk_quant_ctx *c, const void *src, int8_t *out, size_t i,
                                                   size_t end, int input, int mode, int step) {
    sk_quant_exact_steps(c, src, out, i, end, input, mode, (size_t)step);
}

/* Blocks i and i + SK_BLOCK with the multiplier m and zero point zp; when
 * `flushes` (a constant in every caller), by the exact path if flushing
 * could make either wrong. */
static inline __attribute__((always_inline)) void pair(const sk_quant_ctx *c, const void *src, int8_t *out, size_t i,
                                                       const char **p, float32x4_t m, int16x8_t zp, int input, int mode,
                                                       int step, int flushes) {
    if (!flushes) { /* (block by block: GCC schedules the dense loop one instruction shorter) */
        const int8x16_t a = to_bytes(products(load_block(src, i, p, input, step), m), mode, zp);
        const int8x16_t b = to_bytes(products(load_block(src, i + SK_BLOCK, p, input, step), m), mode, zp);
        vst1q_s8(out + i, a);
        vst1q_s8(out + i + SK_BLOCK, b);
        return;
    }
    const block x = load_block(src, i, p, input, step), y = load_block(src, i + SK_BLOCK, p, input, step);
    const block a = products(x, m), b = products(y, m);
    if (repairs(x, a, y, b)) {
        exact_blocks(c, src, out, i, i + 2 * SK_BLOCK, input, mode, step);
    } else {
        vst1q_s8(out + i, to_bytes(a, mode, zp));
        vst1q_s8(out + i + SK_BLOCK, to_bytes(b, mode, zp));
    }
}

/* Whole blocks over elements [0, n), two per iteration (their latencies
 * overlap on in-order cores), then one; returns how many elements.  Blocks
 * that need the exact path (under flushing) get it here. */
static inline __attribute__((always_inline)) size_t blocks(const sk_quant_ctx *c, const void *src, int8_t *out,
                                                           size_t n, int input, int mode, int step) {
    size_t i = 0;
    if (c->exact_only) return 0;
    const char *p = src; /* block i's first element */
    const float32x4_t m = vdupq_n_f32(c->multiplier);
    const int16x8_t zp = vdupq_n_s16((int16_t)c->zero_point);
    if (!c->flushes) {
        for (; i + 2 * SK_BLOCK <= n; i += 2 * SK_BLOCK) pair(c, src, out, i, &p, m, zp, input, mode, step, 0);
    } else {
        for (; i + 2 * SK_BLOCK <= n; i += 2 * SK_BLOCK) pair(c, src, out, i, &p, m, zp, input, mode, step, 1);
    }
    if (i + SK_BLOCK <= n) {
        const block x = load_block(src, i, &p, input, step), q = products(x, m);
        if (c->flushes && repairs(x, q, x, q))
            exact_blocks(c, src, out, i, i + SK_BLOCK, input, mode, step);
        else
            vst1q_s8(out + i, to_bytes(q, mode, zp));
        i += SK_BLOCK;
    }
    return i;
}

/* The last elements [i, n), fewer than a block, as one block copied into a
 * zeroed buffer: without flushing every lane of the fast path is exact on
 * its own (above), so the padding lanes change nothing, and a short row
 * does not pay the exact path's cost per element. */
static inline __attribute__((always_inline)) void padded(const sk_quant_ctx *c, const void *src, int8_t *out, size_t i,
                                                         size_t n, int input, int mode) {
    const size_t size = input == SK_QUANT_F32 ? 4 : 2;
    _Alignas(16) char in[SK_BLOCK * 4] = {0};
    int8_t result[SK_BLOCK];
    memcpy(in, (const char *)src + i * size, (n - i) * size);
    const char *p = in;
    const block x = load_block(in, 0, &p, input, 1);
    vst1q_s8(result, to_bytes(products(x, vdupq_n_f32(c->multiplier)), mode, vdupq_n_s16((int16_t)c->zero_point)));
    memcpy(out + i, result, n - i);
}

static inline __attribute__((always_inline)) void padded_modes(const sk_quant_ctx *c, const void *src, int8_t *out,
                                                               size_t i, size_t n, int input, int mode) {
    switch (mode) {
    case SK_QUANT_NEAREST_EVEN:
        padded(c, src, out, i, n, input, SK_QUANT_NEAREST_EVEN);
        break;
    case SK_QUANT_TOWARD_ZERO:
        padded(c, src, out, i, n, input, SK_QUANT_TOWARD_ZERO);
        break;
    case SK_QUANT_TOWARD_POSITIVE:
        padded(c, src, out, i, n, input, SK_QUANT_TOWARD_POSITIVE);
        break;
    default:
        padded(c, src, out, i, n, input, SK_QUANT_TOWARD_NEGATIVE);
        break;
    }
}

/* Out of line, one per input, so that the leaves' own prologues stay lean. */
static __attribute__((noinline)) void padded_f32(const sk_quant_ctx *c, const void *src, int8_t *out, size_t i,
                                                 size_t n, int mode) {
    padded_modes(c, src, out, i, n, SK_QUANT_F32, mode);
}
static __attribute__((noinline)) void padded_bf16(const sk_quant_ctx *c, const void *src, int8_t *out, size_t i,
                                                  size_t n, int mode) {
    padded_modes(c, src, out, i, n, SK_QUANT_BF16, mode);
}
static __attribute__((noinline)) void padded_f16(const sk_quant_ctx *c, const void *src, int8_t *out, size_t i,
                                                 size_t n, int mode) {
    padded_modes(c, src, out, i, n, SK_QUANT_F16, mode);
}

/* A dense leaf's tail: one padded block, or, under flushing and for a
 * subnormal multiplier, the exact path. */
static inline __attribute__((always_inline)) void tail(const sk_quant_ctx *c, const void *src, int8_t *out, size_t i,
                                                       size_t n, int input, int mode) {
    if (i == n) return;
    if (c->flushes || c->exact_only)
        sk_quant_exact_span(c, src, out, i, n, input, mode);
    else if (input == SK_QUANT_F32)
        padded_f32(c, src, out, i, n, mode);
    else if (input == SK_QUANT_BF16)
        padded_bf16(c, src, out, i, n, mode);
    else
        padded_f16(c, src, out, i, n, mode);
}

static inline __attribute__((always_inline)) void run(const sk_quant_ctx *c, const void *src, int8_t *out, size_t n,
                                                      int input, int mode) {
    tail(c, src, out, blocks(c, src, out, n, input, mode, 1), n, input, mode);
}

/* Every other element: the blocks while another element follows (the last
 * LD2 reads the gap after its last element). */
static inline __attribute__((always_inline)) size_t run_every_other(const sk_quant_ctx *c, const void *src, int8_t *out,
                                                                    size_t n, int input, int mode) {
    return blocks(c, src, out, n - 1, input, mode, 2);
}

/* `count` runs of n elements, a multiple of two blocks, entries from
 * `first` on (none wraps), `flushes` the table's (a constant here): the
 * dense leaves' pairs, with only the entry's multiplier and zero point
 * loaded per run.  Blocked plans' segments of 32 or 128 elements come here,
 * where the dense leaf's per-call set-up and tail tests would cost as much
 * as the conversion. */
static inline __attribute__((always_inline)) void whole_runs(const sk_quant_ctx *first, const void *src, int8_t *out,
                                                             size_t n, size_t count, int input, int mode, int flushes) {
    const size_t size = input == SK_QUANT_F32 ? 4 : 2;
    const char *in = src;
    for (const sk_quant_ctx *c = first, *end = first + count; c < end; ++c) {
        const char *stop = in + n * size;
        if (c->exact_only) { /* a subnormal multiplier: as the dense leaf (out of line: few registers stay live) */
            exact_blocks(c, in, out, 0, n, input, mode, 1);
            in = stop;
            out += n;
            continue;
        }
        const float32x4_t m = vdupq_n_f32(c->multiplier);
        const int16x8_t zp = vdupq_n_s16((int16_t)c->zero_point);
        do { /* n > 0: the pointers run on into the next run */
            const char *p = in;
            pair(c, in, out, 0, &p, m, zp, input, mode, 1, flushes);
            in += 2 * SK_BLOCK * size;
            out += 2 * SK_BLOCK;
        } while (in != stop);
    }
}

/* whole_runs with the table's `flushes` as a constant. */
static inline __attribute__((always_inline)) void whole_runs_flushes(const sk_quant_table *t, const sk_quant_ctx *first,
                                                                     const void *src, int8_t *out, size_t n,
                                                                     size_t count, int input, int mode) {
    if (t->flushes)
        whole_runs(first, src, out, n, count, input, mode, 1);
    else
        whole_runs(first, src, out, n, count, input, mode, 0);
}

/* Per-axis and blocked plans: `count` packed runs of n elements, channels
 * (entries) from `channel` on (kernel.h sk_runs_fn), each with its
 * channel's context: whole pairs of blocks by whole_runs, split where the
 * channels wrap, else the dense leaf's code per run, inlined. */
static inline __attribute__((always_inline)) void runs(const void *table, size_t channel, const void *src, void *dst,
                                                       size_t n, size_t count, int input, int mode) {
    const sk_quant_table *t = table;
    const char *in = src;
    int8_t *out = dst;
    const size_t size = input == SK_QUANT_F32 ? 4 : 2, channels = (size_t)t->channels;
    if (n > 0 && n % (2 * SK_BLOCK) == 0) {
        for (size_t c = channel; count > 0; c = 0) {
            const size_t k = count < channels - c ? count : channels - c;
            if (n == 2 * SK_BLOCK) /* blocks of 32: a constant n leaves one loop, over the runs */
                whole_runs_flushes(t, &t->ctx[c], in, out, 2 * SK_BLOCK, k, input, mode);
            else
                whole_runs_flushes(t, &t->ctx[c], in, out, n, k, input, mode);
            in += k * n * size;
            out += k * n;
            count -= k;
        }
        return;
    }
    for (size_t r = 0, c = channel; r < count; ++r, in += n * size, out += n) {
        run(&t->ctx[c], in, out, n, input, mode);
        c = c + 1 == channels ? 0 : c + 1;
    }
}

/* ---- The rows leaves (kernel.h sk_rows_leaf) -----------------------------
 * Element j of every row takes table position at + j.  Strips of two
 * blocks (32 columns), then one, go down groups of up to SK_ROW_GROUP rows:
 * a strip's multipliers and zero points are loaded into registers once per
 * group, and each row's pair of blocks is then the dense leaf's arithmetic
 * with a vector of multipliers and two of zero points in place of the
 * splats (the same instructions, so the same bits: every lane's fast path
 * is exact on its own, quant_neon.c's reasoning above); tuning.h says why
 * groups of SK_ROW_GROUP.  Under flushing a
 * pair that could be wrong takes the exact path with the table's contexts,
 * as the periodic leaves do.  A rest of fewer than 16 columns is the run's
 * last whole block again (the same bytes twice: lanes independent, ports
 * never overlap); runs shorter than a block take the exact path. */
typedef struct strip_params {
    block m;
    int16x8_t zlo, zhi;
} strip_params;

/* Positions [k, k + 16): multipliers as loaded, zero points (INT8 range) narrowed to int16. */
static inline __attribute__((always_inline)) strip_params strip_at(const sk_quant_table *t, size_t k) {
    const float *m = t->multiplier + k;
    const int32_t *z = t->zero_point + k;
    strip_params s = {{vld1q_f32(m), vld1q_f32(m + 4), vld1q_f32(m + 8), vld1q_f32(m + 12)},
                      vmovn_high_s32(vmovn_s32(vld1q_s32(z)), vld1q_s32(z + 4)),
                      vmovn_high_s32(vmovn_s32(vld1q_s32(z + 8)), vld1q_s32(z + 12))};
    return s;
}

/* Whether a multiplier of the block is subnormal: flushing takes it as 0,
 * and an infinite input's product is then a NaN the repair test does not
 * see (the dense leaves send such a multiplier's runs to the exact path). */
static inline __attribute__((always_inline)) int subnormal_in(block m) {
    const uint32x4_t e = vdupq_n_u32(0x7f800000u);
    const uint32x4_t z = vorrq_u32(vorrq_u32(vceqzq_u32(vandq_u32(vreinterpretq_u32_f32(m.x0), e)),
                                             vceqzq_u32(vandq_u32(vreinterpretq_u32_f32(m.x1), e))),
                                   vorrq_u32(vceqzq_u32(vandq_u32(vreinterpretq_u32_f32(m.x2), e)),
                                             vceqzq_u32(vandq_u32(vreinterpretq_u32_f32(m.x3), e))));
    return vmaxvq_u32(z) != 0;
}

/* Columns [j, j + 32) (blocks2 1) or [j, j + 16) (0) of `rows` rows. */
static inline __attribute__((always_inline)) void strip(const sk_quant_table *t, size_t at, size_t j, const char *src,
                                                        ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                                                        size_t rows, int input, int mode, int flushes, int blocks2) {
    const strip_params a = strip_at(t, at + j), b = blocks2 ? strip_at(t, at + j + SK_BLOCK) : a;
    if (flushes && (subnormal_in(a.m) || subnormal_in(b.m))) {
        for (size_t r = 0; r < rows; ++r, src += src_pitch, dst += dst_pitch)
            sk_quant_axis_exact(t, at, src, (int8_t *)dst, j, j + (blocks2 ? 2 : 1) * SK_BLOCK, input, mode);
        return;
    }
    /* the strip's first element of each row: one base register, constant offsets */
    const size_t size = input == SK_QUANT_F32 ? 4 : 2;
    const char *in = src + j * size;
    int8_t *out = (int8_t *)dst + j;
    for (size_t r = rows; r > 0; --r, in += src_pitch, out += dst_pitch) {
        const char *p = in;
        const block x = load_block(in, 0, &p, input, 1);
        const block y = blocks2 ? load_block(in, SK_BLOCK, &p, input, 1) : x;
        const block px = products_each(x, a.m), py = blocks2 ? products_each(y, b.m) : px;
        if (flushes && repairs(x, px, y, py)) {
            sk_quant_axis_exact(t, at + j, in, out, 0, (blocks2 ? 2 : 1) * SK_BLOCK, input, mode);
            continue;
        }
        vst1q_s8(out, to_bytes_each(px, mode, a.zlo, a.zhi));
        if (blocks2) vst1q_s8(out + SK_BLOCK, to_bytes_each(py, mode, b.zlo, b.zhi));
    }
}

static inline __attribute__((always_inline)) void rows_group(const sk_quant_table *t, size_t at, const char *src,
                                                             ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                                                             size_t n, size_t rows, int input, int mode, int flushes) {
    size_t j = 0;
    for (; j + 2 * SK_BLOCK <= n; j += 2 * SK_BLOCK)
        strip(t, at, j, src, src_pitch, dst, dst_pitch, rows, input, mode, flushes, 1);
    if (j + SK_BLOCK <= n) {
        strip(t, at, j, src, src_pitch, dst, dst_pitch, rows, input, mode, flushes, 0);
        j += SK_BLOCK;
    }
    if (j < n) /* the last whole block again */
        strip(t, at, n - SK_BLOCK, src, src_pitch, dst, dst_pitch, rows, input, mode, flushes, 0);
}

static inline __attribute__((always_inline)) void rows_leaf(const void *table, size_t at, const char *src,
                                                            ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                                                            size_t n, size_t rows, int input, int mode) {
    const sk_quant_table *t = table;
    if (n < SK_BLOCK) {
        for (size_t r = 0; r < rows; ++r, src += src_pitch, dst += dst_pitch)
            sk_quant_axis_exact(t, at, src, (int8_t *)dst, 0, n, input, mode);
        return;
    }
    for (size_t g = 0; g < rows; g += SK_ROW_GROUP) {
        const size_t k = rows - g < SK_ROW_GROUP ? rows - g : SK_ROW_GROUP;
        const char *in = src + (ptrdiff_t)g * src_pitch;
        char *out = dst + (ptrdiff_t)g * dst_pitch;
        if (t->flushes)
            rows_group(t, at, in, src_pitch, out, dst_pitch, n, k, input, mode, 1);
        else
            rows_group(t, at, in, src_pitch, out, dst_pitch, n, k, input, mode, 0);
    }
}

/* The leaves (quant_kernels.inc). */
void sk_quant_f32_i8_ne__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn__neon(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_quant_f32_i8_ne_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
size_t sk_quant_f32_i8_tz_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
size_t sk_quant_f32_i8_tp_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_quant_f32_i8_tn_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_quant_bf16_i8_ne_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
size_t sk_quant_bf16_i8_tz_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
size_t sk_quant_bf16_i8_tp_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_quant_bf16_i8_tn_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_quant_f16_i8_ne_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
size_t sk_quant_f16_i8_tz_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
size_t sk_quant_f16_i8_tp_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_quant_f16_i8_tn_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return run_every_other(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f32_i8_ne_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                   size_t count) {
    runs(table, channel, src, dst, n, count, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                   size_t count) {
    runs(table, channel, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                   size_t count) {
    runs(table, channel, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                   size_t count) {
    runs(table, channel, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                    size_t count) {
    runs(table, channel, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                    size_t count) {
    runs(table, channel, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                    size_t count) {
    runs(table, channel, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                    size_t count) {
    runs(table, channel, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                   size_t count) {
    runs(table, channel, src, dst, n, count, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                   size_t count) {
    runs(table, channel, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                   size_t count) {
    runs(table, channel, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                   size_t count) {
    runs(table, channel, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f32_i8_ne_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                   ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                   ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                   ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                   ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                    ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                    ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                    ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                    ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                   ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                   ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                   ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn_rows__neon(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                                   ptrdiff_t dst_pitch, size_t n, size_t rows) {
    rows_leaf(table, at, src, src_pitch, dst, dst_pitch, n, rows, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
#endif
