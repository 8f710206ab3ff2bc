/* NEON affine dequant, per-tensor dense leaves for 8-bit and 16-bit stored
 * elements (the span leaves of the NEON route's table,
 * affine_dequant_kernels.inc): dequant_neon.c's blocks of 16 elements.
 *
 * The difference d = q - zp is formed exactly in a widening subtraction:
 *   INT8: SSUBL of the bytes and zp (both int8): int16, exact.
 *   UINT8: USUBL (both in [0, 255]): the int16 difference modulo 2^16,
 *     which is exact since |d| <= 255.
 *   INT4, UINT4, INT2, UINT2 (one element per byte, only the low bits
 *     count): the byte's low bits (AND mask) with the sign bit flipped (EOR
 *     sign) is q + sign in [0, 2^bits), and USUBL of c = sign + zp (in
 *     [0, 2^bits) for zp in the type's range) gives q - zp exactly.
 *   INT16: SSUBL (int16 - int16 in int32, exact); UINT16: USUBL, the
 *     difference modulo 2^32 read as int32 (exact, |d| <= 65535).
 * Then d widened to int32 (SXTL), converted (SCVTF, exact below 2^24) and
 * multiplied by the scale (FMUL, nearest-even: the FP state execute
 * admitted): the formula's binary32(d) * scale.  BF16 by Cast's rule
 * (sk_neon_bf16_round).  A zero point outside the type's range (the byte
 * form needs c in [0, 255], the 16-bit one zp in the type's range) runs
 * the generic leaf; so does the tail of fewer than a block. */
#include "affine.h"
#if SK_HAVE_NEON
#include "../common/neon.h"

/* The generic leaves (affine_dequant_leaves.c), for what these do not take. */
sk_span_leaf sk_affine_dequant_w8_f32__neon, sk_affine_dequant_w8_bf16__neon, sk_affine_dequant_w16_f32__neon,
    sk_affine_dequant_w16_bf16__neon;

enum { IN_I8, IN_U8, IN_SUB, IN_I16, IN_U16 };

static size_t table_bytes_f32(const sk_affine_dequant_ctx *c, const uint8_t *src, uint8_t *dst, size_t n);
static size_t table_bytes_bf16(const sk_affine_dequant_ctx *c, const uint8_t *src, uint8_t *dst, size_t n);

typedef struct quad {
    float32x4_t v[4];
} quad;

typedef struct params {
    float32x4_t scale;
    uint8x16_t mask, sign, c8;
    uint16x8_t c16;
} params;

static inline __attribute__((always_inline)) float32x4_t cvt(int32x4_t d, float32x4_t s) {
    return vmulq_f32(vcvtq_f32_s32(d), s);
}

/* 16 elements from element i to four FP32 vectors. */
static inline __attribute__((always_inline)) quad convert(const params *p, const void *src, size_t i, int kind) {
    const float32x4_t s = p->scale;
    quad r;
    if (kind == IN_I16 || kind == IN_U16) {
        const uint16_t *in = (const uint16_t *)src + i;
        const uint16x8_t a = vld1q_u16(in), b = vld1q_u16(in + 8);
        int32x4_t d[4];
        if (kind == IN_I16) {
            const int16x8_t z = vreinterpretq_s16_u16(p->c16);
            d[0] = vsubl_s16(vget_low_s16(vreinterpretq_s16_u16(a)), vget_low_s16(z));
            d[1] = vsubl_high_s16(vreinterpretq_s16_u16(a), z);
            d[2] = vsubl_s16(vget_low_s16(vreinterpretq_s16_u16(b)), vget_low_s16(z));
            d[3] = vsubl_high_s16(vreinterpretq_s16_u16(b), z);
        } else {
            const uint16x8_t z = p->c16;
            d[0] = vreinterpretq_s32_u32(vsubl_u16(vget_low_u16(a), vget_low_u16(z)));
            d[1] = vreinterpretq_s32_u32(vsubl_high_u16(a, z));
            d[2] = vreinterpretq_s32_u32(vsubl_u16(vget_low_u16(b), vget_low_u16(z)));
            d[3] = vreinterpretq_s32_u32(vsubl_high_u16(b, z));
        }
        r.v[0] = cvt(d[0], s);
        r.v[1] = cvt(d[1], s);
        r.v[2] = cvt(d[2], s);
        r.v[3] = cvt(d[3], s);
        return r;
    }
    uint8x16_t x = vld1q_u8((const uint8_t *)src + i);
    int16x8_t lo, hi;
    if (kind == IN_I8) {
        const int8x16_t q = vreinterpretq_s8_u8(x), z = vreinterpretq_s8_u8(p->c8);
        lo = vsubl_s8(vget_low_s8(q), vget_low_s8(z));
        hi = vsubl_high_s8(q, z);
    } else {
        if (kind == IN_SUB) x = veorq_u8(vandq_u8(x, p->mask), p->sign);
        lo = vreinterpretq_s16_u16(vsubl_u8(vget_low_u8(x), vget_low_u8(p->c8)));
        hi = vreinterpretq_s16_u16(vsubl_high_u8(x, p->c8));
    }
    r.v[0] = cvt(vmovl_s16(vget_low_s16(lo)), s);
    r.v[1] = cvt(vmovl_high_s16(lo), s);
    r.v[2] = cvt(vmovl_s16(vget_low_s16(hi)), s);
    r.v[3] = cvt(vmovl_high_s16(hi), s);
    return r;
}

static inline __attribute__((always_inline)) void store(void *dst, size_t i, quad r, int bf16) {
    if (bf16) {
        const uint32x4_t bit16 = vdupq_n_u32(0x10000u), bias = vdupq_n_u32(0x7fffu);
        uint16_t *o = (uint16_t *)dst + i;
        vst1q_u16(o, sk_neon_bf16_round(vreinterpretq_u32_f32(r.v[0]), vreinterpretq_u32_f32(r.v[1]), bit16, bias));
        vst1q_u16(o + 8, sk_neon_bf16_round(vreinterpretq_u32_f32(r.v[2]), vreinterpretq_u32_f32(r.v[3]), bit16, bias));
    } else { /* one ST1 of four registers */
        vst1q_f32_x4((float *)dst + i, (float32x4x4_t){{r.v[0], r.v[1], r.v[2], r.v[3]}});
    }
}

/* Whole blocks, four per iteration (all converted before any is stored, so
 * that their chains interleave; few loop instructions per block) then one;
 * returns how many elements. */
static inline __attribute__((always_inline)) size_t blocks(const params *p, const void *src, void *dst, size_t n,
                                                           int kind, int bf16) {
    size_t i = 0;
    for (; i + 4 * SK_BLOCK <= n; i += 4 * SK_BLOCK) {
        const quad a = convert(p, src, i, kind), b = convert(p, src, i + SK_BLOCK, kind);
        const quad x = convert(p, src, i + 2 * SK_BLOCK, kind), y = convert(p, src, i + 3 * SK_BLOCK, kind);
        store(dst, i, a, bf16);
        store(dst, i + SK_BLOCK, b, bf16);
        store(dst, i + 2 * SK_BLOCK, x, bf16);
        store(dst, i + 3 * SK_BLOCK, y, bf16);
    }
    for (; i + SK_BLOCK <= n; i += SK_BLOCK) store(dst, i, convert(p, src, i, kind), bf16);
    return i;
}

static inline __attribute__((always_inline)) void span(const void *ctx, const void *src, void *dst, size_t n, int width,
                                                       int bf16) {
    const sk_affine_dequant_ctx *c = ctx;
    const uint32_t cz = c->sign + (uint32_t)c->zero_point;
    params p = {vdupq_n_f32(c->scale), vdupq_n_u8((uint8_t)c->mask), vdupq_n_u8((uint8_t)c->sign),
                vdupq_n_u8((uint8_t)c->zero_point), vdupq_n_u16((uint16_t)c->zero_point)};
    size_t i = 0;
    if (width == 1) {
        if (c->mask == 0xffu && c->sign && c->zero_point >= -128 && c->zero_point <= 127) {
            i = blocks(&p, src, dst, n, IN_I8, bf16);
        } else if (c->mask == 0xffu && !c->sign && cz <= 255u) {
            i = blocks(&p, src, dst, n, IN_U8, bf16);
        } else if (c->mask < 0xffu && c->table_ready) {
            i = bf16 ? table_bytes_bf16(c, src, dst, n) : table_bytes_f32(c, src, dst, n);
        } else if (c->mask < 0xffu && cz <= c->mask) {
            p.c8 = vdupq_n_u8((uint8_t)cz);
            i = blocks(&p, src, dst, n, IN_SUB, bf16);
        }
    } else if (c->mask == 0xffffu) {
        if (c->sign && c->zero_point >= -32768 && c->zero_point <= 32767)
            i = blocks(&p, src, dst, n, IN_I16, bf16);
        else if (!c->sign && cz <= 0xffffu)
            i = blocks(&p, src, dst, n, IN_U16, bf16);
    }
    if (i == n) return;
    const size_t size = bf16 ? 2 : 4;
    const sk_span_fn generic = width == 1 ? (bf16 ? sk_affine_dequant_w8_bf16__neon : sk_affine_dequant_w8_f32__neon)
                                          : (bf16 ? sk_affine_dequant_w16_bf16__neon : sk_affine_dequant_w16_f32__neon);
    generic(c, (const char *)src + i * (size_t)width, (char *)dst + i * size, n - i);
}

/* ---- Sub-byte storage by table -----------------------------------------
 * Per tensor, a sub-byte type has only 16 (or 4) results: prepare puts them
 * in the context as byte planes (sk_affine_dequant_table_init: each entry
 * by the element path itself, so the same bits).  Stored values become
 * indices (the packed nibbles or crumbs put in element order by ZIP1/ZIP2,
 * or an unpacked byte's low bits), TBL looks each plane up, and ST4 (FP32)
 * or ST2 (BF16) interleaves the planes into the results' bytes. */
typedef struct planes {
    uint8x16_t p[4];
} planes;

static inline __attribute__((always_inline)) planes load_planes(const sk_affine_dequant_ctx *c, int bf16) {
    planes t;
    t.p[0] = vld1q_u8(c->table);
    t.p[1] = vld1q_u8(c->table + 16);
    t.p[2] = bf16 ? t.p[0] : vld1q_u8(c->table + 32);
    t.p[3] = bf16 ? t.p[0] : vld1q_u8(c->table + 48);
    return t;
}

/* 16 results of the indices i (each < 16) stored at dst. */
static inline __attribute__((always_inline)) void lookup(const planes *t, uint8x16_t i, uint8_t *dst, int bf16) {
    if (bf16) {
        vst2q_u8(dst, (uint8x16x2_t){{vqtbl1q_u8(t->p[0], i), vqtbl1q_u8(t->p[1], i)}});
    } else {
        vst4q_u8(dst, (uint8x16x4_t){{vqtbl1q_u8(t->p[0], i), vqtbl1q_u8(t->p[1], i), vqtbl1q_u8(t->p[2], i),
                                      vqtbl1q_u8(t->p[3], i)}});
    }
}

/* Unpacked sub-byte elements (one per byte, low bits): whole blocks of 16. */
static inline __attribute__((always_inline)) size_t table_bytes(const sk_affine_dequant_ctx *c, const uint8_t *src,
                                                                uint8_t *dst, size_t n, int bf16) {
    const planes t = load_planes(c, bf16);
    const uint8x16_t mask = vdupq_n_u8((uint8_t)c->mask);
    const size_t size = bf16 ? 2 : 4;
    size_t i = 0;
    for (; i + SK_BLOCK <= n; i += SK_BLOCK) lookup(&t, vandq_u8(vld1q_u8(src + i), mask), dst + i * size, bf16);
    return i;
}

/* A packed image: 16 bytes per step (32 INT4/UINT4 or 64 INT2/UINT2 elements). */
static inline __attribute__((always_inline)) size_t table_packed(const sk_affine_dequant_ctx *c, const uint8_t *src,
                                                                 uint8_t *dst, size_t n, int bf16) {
    if (!c->table_ready) return 0;
    const planes t = load_planes(c, bf16);
    const size_t size = bf16 ? 2 : 4;
    size_t i = 0;
    if (c->mask == 0xfu) {
        const uint8x16_t low = vdupq_n_u8(0xf);
        for (; i + 32 <= n; i += 32) {
            const uint8x16_t x = vld1q_u8(src + i / 2), a = vandq_u8(x, low), b = vshrq_n_u8(x, 4);
            lookup(&t, vzip1q_u8(a, b), dst + i * size, bf16);
            lookup(&t, vzip2q_u8(a, b), dst + (i + 16) * size, bf16);
        }
    } else if (c->mask == 0x3u) {
        const uint8x16_t low = vdupq_n_u8(0x3);
        for (; i + 64 <= n; i += 64) {
            const uint8x16_t x = vld1q_u8(src + i / 4);
            const uint8x16_t c0 = vandq_u8(x, low), c1 = vandq_u8(vshrq_n_u8(x, 2), low),
                             c2 = vandq_u8(vshrq_n_u8(x, 4), low), c3 = vshrq_n_u8(x, 6);
            const uint8x16_t el = vzip1q_u8(c0, c2), eh = vzip2q_u8(c0, c2), ol = vzip1q_u8(c1, c3),
                             oh = vzip2q_u8(c1, c3);
            lookup(&t, vzip1q_u8(el, ol), dst + i * size, bf16);
            lookup(&t, vzip2q_u8(el, ol), dst + (i + 16) * size, bf16);
            lookup(&t, vzip1q_u8(eh, oh), dst + (i + 32) * size, bf16);
            lookup(&t, vzip2q_u8(eh, oh), dst + (i + 48) * size, bf16);
        }
    }
    return i;
}

static size_t table_bytes_f32(const sk_affine_dequant_ctx *c, const uint8_t *src, uint8_t *dst, size_t n) {
    return table_bytes(c, src, dst, n, 0);
}
static size_t table_bytes_bf16(const sk_affine_dequant_ctx *c, const uint8_t *src, uint8_t *dst, size_t n) {
    return table_bytes(c, src, dst, n, 1);
}

/* The leaves (affine_dequant_kernels.inc). */
size_t sk_affine_dequant_packed_f32__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return table_packed(ctx, src, dst, n, 0);
}
size_t sk_affine_dequant_packed_bf16__neon(const void *ctx, const void *src, void *dst, size_t n) {
    return table_packed(ctx, src, dst, n, 1);
}
void sk_affine_dequant_w8_f32_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 1, 0);
}
void sk_affine_dequant_w8_bf16_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 1, 1);
}
void sk_affine_dequant_w16_f32_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 2, 0);
}
void sk_affine_dequant_w16_bf16_dense__neon(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 2, 1);
}
#endif
