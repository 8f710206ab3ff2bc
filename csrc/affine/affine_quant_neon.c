/* NEON affine quant, per-tensor dense leaves (the span leaves of the NEON
 * route's table, affine_quant_kernels.inc): quant_neon.c's blocks of 16
 * elements with the storage type's own narrowing.
 *
 * One binary32 multiply (FMUL, round-to-nearest: the execute entry
 * requires it), a conversion to int32 with the mode's rounding written into
 * the instruction (FCVTNS/FCVTZS/FCVTPS/FCVTMS, independent of FPCR.RMode),
 * then saturating narrows with the zero point added in between; no clamp
 * in float and no NaN select.  The conversions give the contract's answers
 * for the exceptional lanes: a NaN converts to 0 (the zero point),
 * infinities and products beyond int32 saturate by sign.  Then, with r the
 * converted value and zp in [lo, hi] of the type:
 *   INT8, UINT8 and the sub-byte types: SQXTN to int16, SQADD of zp in
 *     int16, then SQXTN (signed) or SQXTUN (unsigned) to bytes.  int16
 *     saturation keeps any |r| >= 2^15 beyond [-128, 255] after any zero
 *     point of these types (|zp| <= 255), and an int16 sum that saturates
 *     is beyond it too, so the bytes are sat8(r + zp) (SQXTN) or
 *     satu8(r + zp) (SQXTUN).  INT4 and INT2 clamp those bytes to [lo, hi]
 *     (SMAX, SMIN; saturating twice to nested ranges is saturating once)
 *     and keep their low bits (AND: an unpacked byte's high bits are zero),
 *     UINT4 and UINT2 clamp with UMIN (already >= 0).
 *   INT16, UINT16: SQADD of zp in int32 (|zp| <= 65535: a saturated sum is
 *     beyond the type's range exactly when the true sum is), then SQXTN
 *     (int16) or SQXTUN (uint16).
 * So without flushing every lane is exact and needs no test.  FP16 inputs
 * are widened by FCVTL, which is exact and never flushes; BF16 inputs are
 * their FP32 bits' upper half (USHLL #16).
 *
 * FPCR.FZ (and FZ16, or FEAT_AFP's FIZ/AH) is read once per execute into
 * the context (`flushes`); under it FMUL flushes subnormal inputs and
 * products to zero, and a pair of blocks is recomputed by the exact integer
 * path (affine.h) when a nonzero input has a product with a zero exponent
 * field (flushed, subnormal or from a flushed input), as quant_neon.c does.
 * A subnormal multiplier under flushing (FMUL would take it as zero) makes
 * the whole span take the exact path.  Under flushing a tail takes the exact
 * path too; otherwise it runs as one zero-padded block on the stack. */
#include "affine.h"
#if SK_HAVE_NEON
#include "../quant/quant_neon_lanes.h"

/* How a block's int32 values become the storage's elements (affine.h). */
enum {
    OUT_I8 = SK_AQ_I8,
    OUT_U8 = SK_AQ_U8,
    OUT_ISUB = SK_AQ_ISUB,
    OUT_USUB = SK_AQ_USUB,
    OUT_I16 = SK_AQ_I16,
    OUT_U16 = SK_AQ_U16
};

/* The context's values as vectors, made once per call. */
typedef struct params {
    float32x4_t m;
    int16x8_t zp16;
    int32x4_t zp32;
    int8x16_t lo8, hi8; /* the sub-byte range */
    uint8x16_t mask8;
} params;

static inline __attribute__((always_inline)) params make_params(const sk_affine_quant_ctx *c) {
    params p = {vdupq_n_f32(c->multiplier),   vdupq_n_s16((int16_t)c->zero_point), vdupq_n_s32(c->zero_point),
                vdupq_n_s8((int8_t)c->least), vdupq_n_s8((int8_t)c->greatest),     vdupq_n_u8((uint8_t)c->mask)};
    return p;
}

/* Sixteen int32 results as bytes of a one-byte type, clamped to its range;
 * `masked`: an unpacked sub-byte output keeps only its low bits (packing by
 * SLI needs no mask). */
static inline __attribute__((always_inline)) uint8x16_t to_bytes(const params *q, int32x4_t r0, int32x4_t r1,
                                                                 int32x4_t r2, int32x4_t r3, int kind, int masked) {
    const int16x8_t lo = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(r0), r1), q->zp16);
    const int16x8_t hi = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(r2), r3), q->zp16);
    uint8x16_t b;
    if (kind == OUT_I8 || kind == OUT_ISUB) {
        int8x16_t s = vqmovn_high_s16(vqmovn_s16(lo), hi);
        if (kind == OUT_ISUB) s = vminq_s8(vmaxq_s8(s, q->lo8), q->hi8);
        b = vreinterpretq_u8_s8(s);
        if (kind == OUT_ISUB && masked) b = vandq_u8(b, q->mask8);
    } else {
        b = vqmovun_high_s16(vqmovun_s16(lo), hi);
        if (kind == OUT_USUB) b = vminq_u8(b, vreinterpretq_u8_s8(q->hi8));
    }
    return b;
}

static inline __attribute__((always_inline)) uint8x16_t block_bytes(const params *q, block p, int mode, int kind) {
    return to_bytes(q, to_int(p.x0, mode), to_int(p.x1, mode), to_int(p.x2, mode), to_int(p.x3, mode), kind, 0);
}

/* A block's products as the storage's elements, stored at element i. */
static inline __attribute__((always_inline)) void store_block(const params *q, block p, void *out, size_t i, int mode,
                                                              int kind) {
    const int32x4_t r0 = to_int(p.x0, mode), r1 = to_int(p.x1, mode), r2 = to_int(p.x2, mode), r3 = to_int(p.x3, mode);
    if (kind == OUT_I16 || kind == OUT_U16) {
        const int32x4_t s0 = vqaddq_s32(r0, q->zp32), s1 = vqaddq_s32(r1, q->zp32), s2 = vqaddq_s32(r2, q->zp32),
                        s3 = vqaddq_s32(r3, q->zp32);
        if (kind == OUT_I16) {
            int16_t *o = (int16_t *)out + i;
            vst1q_s16(o, vqmovn_high_s32(vqmovn_s32(s0), s1));
            vst1q_s16(o + 8, vqmovn_high_s32(vqmovn_s32(s2), s3));
        } else {
            uint16_t *o = (uint16_t *)out + i;
            vst1q_u16(o, vqmovun_high_s32(vqmovun_s32(s0), s1));
            vst1q_u16(o + 8, vqmovun_high_s32(vqmovun_s32(s2), s3));
        }
        return;
    }
    vst1q_u8((uint8_t *)out + i, to_bytes(q, r0, r1, r2, r3, kind, 1));
}

/* Elements [i, end) by the exact path: out of line (rare; only under FZ). */
static __attribute__((noinline)) void exact(const sk_affine_quant_ctx *c, const void *src, void *out, size_t i,
                                            size_t end, int input, int mode) {
    sk_aq_exact_span(c, src, out, i, end, input, mode);
}

/* The last elements [i, n), fewer than a block, as one block copied into a
 * zeroed buffer (without flushing every lane is exact on its own). */
static __attribute__((noinline)) void padded(const sk_affine_quant_ctx *c, const void *src, void *out, size_t i,
                                             size_t n, int input, int mode) {
    const size_t size = input == SK_QUANT_F32 ? 4 : 2, width = (size_t)c->width;
    _Alignas(16) char in[SK_BLOCK * 4] = {0};
    _Alignas(16) char result[SK_BLOCK * 2];
    memcpy(in, (const char *)src + i * size, (n - i) * size);
    const params q = make_params(c);
    const block p = products(load_block(in, 0, NULL, input, 1), q.m);
    SK_AQ_BY_KIND(c, store_block, &q, p, result, 0, mode);
    memcpy((char *)out + i * width, result, (n - i) * width);
}

/* Whole blocks, two per iteration then one, then the tail. */
static inline __attribute__((always_inline)) void run(const sk_affine_quant_ctx *c, const void *src, void *out,
                                                      size_t n, int input, int mode, int flushes, int kind) {
    const params q = make_params(c);
    size_t i = 0;
    for (; i + 2 * SK_BLOCK <= n; i += 2 * SK_BLOCK) {
        if (!flushes) {
            store_block(&q, products(load_block(src, i, NULL, input, 1), q.m), out, i, mode, kind);
            store_block(&q, products(load_block(src, i + SK_BLOCK, NULL, input, 1), q.m), out, i + SK_BLOCK, mode,
                        kind);
            continue;
        }
        const block x = load_block(src, i, NULL, input, 1), y = load_block(src, i + SK_BLOCK, NULL, input, 1);
        const block a = products(x, q.m), b = products(y, q.m);
        if (repairs(x, a, y, b)) {
            exact(c, src, out, i, i + 2 * SK_BLOCK, input, mode);
        } else {
            store_block(&q, a, out, i, mode, kind);
            store_block(&q, b, out, i + SK_BLOCK, mode, kind);
        }
    }
    if (i + SK_BLOCK <= n) {
        const block x = load_block(src, i, NULL, input, 1), p = products(x, q.m);
        if (flushes && repairs(x, p, x, p))
            exact(c, src, out, i, i + SK_BLOCK, input, mode);
        else
            store_block(&q, p, out, i, mode, kind);
        i += SK_BLOCK;
    }
    if (i == n) return;
    if (flushes)
        exact(c, src, out, i, n, input, mode);
    else
        padded(c, src, out, i, n, input, mode);
}

static inline __attribute__((always_inline)) void span(const void *ctx, const void *src, void *dst, size_t n, int input,
                                                       int mode) {
    const sk_affine_quant_ctx *c = ctx;
    if (!c->flushes) {
        SK_AQ_BY_KIND(c, run, c, src, dst, n, input, mode, 0);
        return;
    }
    uint32_t m;
    memcpy(&m, &c->multiplier, sizeof m);
    if ((m & 0x7f800000u) == 0) /* subnormal multiplier: FMUL would flush it */
        exact(c, src, dst, 0, n, input, mode);
    else
        SK_AQ_BY_KIND(c, run, c, src, dst, n, input, mode, 1);
}

/* ---- Packed sub-byte output, fused ---------------------------------------
 * Whole bytes of the packed image straight from registers: the blocks'
 * clamped bytes (as above), then pairs of elements joined by UZP1/UZP2 (the
 * even and the odd elements of two vectors) and SLI (the odd one's low bits
 * inserted above the even one's: SLI keeps only the destination's low
 * bits, so no mask), once for INT4/UINT4 (32 elements, 16 bytes), twice
 * for INT2/UINT2 (64 elements, 16 bytes).  Without flushing only (every
 * lane exact, no test); under flushing the engine's chunks (span leaf and
 * pack) run instead.  Returns the elements converted. */
static inline __attribute__((always_inline)) size_t packed(const sk_affine_quant_ctx *c, const void *src, uint8_t *dst,
                                                           size_t n, int input, int mode, int kind, int bits) {
    const params q = make_params(c);
    size_t i = 0;
    if (bits == 4) {
        for (; i + 2 * SK_BLOCK <= n; i += 2 * SK_BLOCK) {
            const uint8x16_t a = block_bytes(&q, products(load_block(src, i, NULL, input, 1), q.m), mode, kind);
            const uint8x16_t b =
                block_bytes(&q, products(load_block(src, i + SK_BLOCK, NULL, input, 1), q.m), mode, kind);
            vst1q_u8(dst + i / 2, vsliq_n_u8(vuzp1q_u8(a, b), vuzp2q_u8(a, b), 4));
        }
    } else {
        for (; i + 4 * SK_BLOCK <= n; i += 4 * SK_BLOCK) {
            const uint8x16_t a = block_bytes(&q, products(load_block(src, i, NULL, input, 1), q.m), mode, kind);
            const uint8x16_t b =
                block_bytes(&q, products(load_block(src, i + SK_BLOCK, NULL, input, 1), q.m), mode, kind);
            const uint8x16_t x =
                block_bytes(&q, products(load_block(src, i + 2 * SK_BLOCK, NULL, input, 1), q.m), mode, kind);
            const uint8x16_t y =
                block_bytes(&q, products(load_block(src, i + 3 * SK_BLOCK, NULL, input, 1), q.m), mode, kind);
            const uint8x16_t ab = vsliq_n_u8(vuzp1q_u8(a, b), vuzp2q_u8(a, b), 2);
            const uint8x16_t xy = vsliq_n_u8(vuzp1q_u8(x, y), vuzp2q_u8(x, y), 2);
            vst1q_u8(dst + i / 4, vsliq_n_u8(vuzp1q_u8(ab, xy), vuzp2q_u8(ab, xy), 4));
        }
    }
    return i;
}

static inline __attribute__((always_inline)) size_t packed_span(const void *ctx, const void *src, void *dst, size_t n,
                                                                int input, int mode) {
    const sk_affine_quant_ctx *c = ctx;
    const int bits = sk_aq_sub_bits(c);
    if (c->flushes || !bits) return 0;
    return c->least < 0 ? packed(c, src, dst, n, input, mode, OUT_ISUB, bits)
                        : packed(c, src, dst, n, input, mode, OUT_USUB, bits);
}

/* The leaves (affine_quant_kernels.inc). */
void sk_affine_quant_f32_ne_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_tz_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tp_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tn_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_ne_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_tz_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tp_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tn_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_ne_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_tz_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tp_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tn_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_affine_quant_f32_ne_packed__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
size_t sk_affine_quant_f32_tz_packed__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
size_t sk_affine_quant_f32_tp_packed__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_affine_quant_f32_tn_packed__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_affine_quant_bf16_ne_packed__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
size_t sk_affine_quant_bf16_tz_packed__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
size_t sk_affine_quant_bf16_tp_packed__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_affine_quant_bf16_tn_packed__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_affine_quant_f16_ne_packed__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
size_t sk_affine_quant_f16_tz_packed__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
size_t sk_affine_quant_f16_tp_packed__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_affine_quant_f16_tn_packed__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
#endif
