/* NEON Cast.  Both directions are integer operations on the representation,
 * so every lane computes exactly the scalar rule; tails use the scalar rule
 * and never touch memory past the last element.  The every_other leaves
 * (kernel.h) read every second input element in place: a de-interleaving
 * load (LD2) for FP32 -> BF16, and for BF16 -> FP32 the 32-bit word of an
 * element and the gap after it, whose shift left by 16 drops the gap. */
#include "cast.h"
#if SK_HAVE_NEON
#include "../common/neon.h"
#include <string.h>
#include "../common/bits.h"

/* Elements per iteration of the block loops (32: four or eight vectors
 * in flight amortise the loop's own three instructions). */
enum { BLOCK = SK_CAST_NEON_BLOCK };

/* Four FP32 words at *p, packed (step 1) or every other word (step 2, LD2),
 * and *p past them: one moving pointer lets every load post-increment it
 * (LD2 has no immediate offset; separate addresses cost an ADD each). */
static inline __attribute__((always_inline)) uint32x4_t load4(const uint32_t **p, int step) {
    const uint32x4_t v = step == 1 ? vld1q_u32(*p) : vld2q_u32(*p).val[0];
    *p += 4 * step;
    if (step == 2) SK_NEON_OPAQUE(*p);
    return v;
}

/* Whole blocks over elements [0, n); returns how many. */
static inline __attribute__((always_inline)) size_t f32_bf16_blocks(const uint32_t *in, uint16_t *out, size_t n,
                                                                    int step) {
    const uint32x4_t bit16 = vdupq_n_u32(0x10000u), bias = vdupq_n_u32(0x7fffu);
    size_t i = 0;
    for (; i + BLOCK <= n; i += BLOCK) {
        uint16x8_t r[4];
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            const uint32x4_t lo = load4(&in, step), hi = load4(&in, step);
            r[k] = sk_neon_bf16_round(lo, hi, bit16, bias);
        }
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) vst1q_u16(out + i + 8 * k, r[k]);
    }
    for (; i + 8 <= n; i += 8) {
        const uint32x4_t lo = load4(&in, step), hi = load4(&in, step);
        vst1q_u16(out + i, sk_neon_bf16_round(lo, hi, bit16, bias));
    }
    return i;
}

void sk_cast_f32_bf16__neon(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint32_t *in = src;
    uint16_t *out = dst;
    for (size_t i = f32_bf16_blocks(in, out, n, 1); i < n; ++i) out[i] = sk_bf16_from_f32_bits(in[i]);
}

/* Blocks while another element follows (the last LD2 reads the gap after
 * its last element, which lies inside the run only then). */
size_t sk_cast_f32_bf16_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    return f32_bf16_blocks(src, dst, n - 1, 2); /* n >= 1 */
}

/* Eight BF16 words widened into their FP32 positions. */
static inline __attribute__((always_inline)) void widen8(uint32_t *out, uint16x8_t a) {
    vst1q_u32(out, vshll_n_u16(vget_low_u16(a), 16));
    vst1q_u32(out + 4, vshll_high_n_u16(a, 16));
}

void sk_cast_bf16_f32__neon(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint16_t *in = src;
    uint32_t *out = dst;
    size_t i = 0;
    for (; i + BLOCK <= n; i += BLOCK) {
        const uint16x8x4_t a = vld1q_u16_x4(in + i);
        widen8(out + i, a.val[0]);
        widen8(out + i + 8, a.val[1]);
        widen8(out + i + 16, a.val[2]);
        widen8(out + i + 24, a.val[3]);
    }
    for (; i + 8 <= n; i += 8) widen8(out + i, vld1q_u16(in + i));
    for (; i < n; ++i) out[i] = sk_f32_bits_from_bf16(in[i]);
}

/* Each element's word and the gap after it, shifted left by 16: the gap
 * leaves through the top, the element lands in its FP32 position. */
size_t sk_cast_bf16_f32_every_other__neon(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint32_t *in = src; /* element k and its gap: word k */
    uint32_t *out = dst;
    const size_t reach = n - 1; /* n >= 1: blocks while another element follows */
    size_t i = 0;
    for (; i + BLOCK <= reach; i += BLOCK) {
        const uint32x4x4_t a = vld1q_u32_x4(in + i), b = vld1q_u32_x4(in + i + 16);
        vst1q_u32_x4(out + i, (uint32x4x4_t){{vshlq_n_u32(a.val[0], 16), vshlq_n_u32(a.val[1], 16),
                                              vshlq_n_u32(a.val[2], 16), vshlq_n_u32(a.val[3], 16)}});
        vst1q_u32_x4(out + i + 16, (uint32x4x4_t){{vshlq_n_u32(b.val[0], 16), vshlq_n_u32(b.val[1], 16),
                                                   vshlq_n_u32(b.val[2], 16), vshlq_n_u32(b.val[3], 16)}});
    }
    for (; i + 4 <= reach; i += 4) vst1q_u32(out + i, vshlq_n_u32(vld1q_u32(in + i), 16));
    return i;
}

/* ---- fused tile leaves (kernel.h): 8 x 8 blocks converted and transposed
 * in registers (the BF16 side as 16-bit lanes, neon.h), so that a
 * transposed Cast needs no scratch pass; a tile's edges go element by
 * element by the scalar rule. */

/* Rows [r0, r1) x columns [c0, c1) of a tile by the scalar rule. */
#define TILE_EDGE(rule, in_t, out_t, r0, r1, c0, c1)                                          \
    for (size_t r = (r0); r < (r1) && (c0) < (c1); ++r)                                       \
        for (size_t c = (c0); c < (c1); ++c) {                                                \
            in_t x;                                                                           \
            memcpy(&x, src + (ptrdiff_t)r * src_pitch + (ptrdiff_t)(c * sizeof x), sizeof x); \
            const out_t y = rule(x);                                                          \
            memcpy(dst + (ptrdiff_t)c * dst_pitch + (ptrdiff_t)(r * sizeof y), &y, sizeof y); \
        }

void sk_cast_f32_bf16_tile__neon(const void *ctx, const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                                 size_t rows, size_t cols) {
    (void)ctx;
    const uint32x4_t bit16 = vdupq_n_u32(0x10000u), bias = vdupq_n_u32(0x7fffu);
    const size_t full_rows = rows / 8 * 8, full_cols = cols / 8 * 8;
    for (size_t rb = 0; rb < full_rows; rb += 8)
        for (size_t cb = 0; cb < full_cols; cb += 8) {
            uint8x16_t v[8];
            const char *s = src + (ptrdiff_t)rb * src_pitch + (ptrdiff_t)(cb * 4);
#pragma GCC unroll 8
            for (int r = 0; r < 8; ++r, s += src_pitch) {
                const uint32_t *w = (const uint32_t *)(const void *)s;
                v[r] = vreinterpretq_u8_u16(sk_neon_bf16_round(vld1q_u32(w), vld1q_u32(w + 4), bit16, bias));
            }
            sk_neon_transpose(v, 2);
            char *d = dst + (ptrdiff_t)cb * dst_pitch + (ptrdiff_t)(rb * 2);
#pragma GCC unroll 8
            for (int c = 0; c < 8; ++c, d += dst_pitch) vst1q_u8((uint8_t *)(void *)d, v[c]);
        }
    TILE_EDGE(sk_bf16_from_f32_bits, uint32_t, uint16_t, 0, full_rows, full_cols, cols)
    TILE_EDGE(sk_bf16_from_f32_bits, uint32_t, uint16_t, full_rows, rows, 0, cols)
}

/* The transposed BF16 words go out through ST2 with a zero register: its
 * interleaving store writes each word into the upper half of a zeroed FP32
 * word, the widening for free. */
void sk_cast_bf16_f32_tile__neon(const void *ctx, const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                                 size_t rows, size_t cols) {
    (void)ctx;
    const size_t full_rows = rows / 8 * 8, full_cols = cols / 8 * 8;
    const uint16x8_t zero = vdupq_n_u16(0);
    for (size_t rb = 0; rb < full_rows; rb += 8)
        for (size_t cb = 0; cb < full_cols; cb += 8) {
            uint8x16_t v[8];
            const char *s = src + (ptrdiff_t)rb * src_pitch + (ptrdiff_t)(cb * 2);
#pragma GCC unroll 8
            for (int r = 0; r < 8; ++r, s += src_pitch) v[r] = vld1q_u8((const uint8_t *)(const void *)s);
            sk_neon_transpose(v, 2);
            char *d = dst + (ptrdiff_t)cb * dst_pitch + (ptrdiff_t)(rb * 4);
#pragma GCC unroll 8
            for (int c = 0; c < 8; ++c) { /* (ST2 has no offset: a moving pointer, post-incremented) */
                vst2q_u16((uint16_t *)(void *)d, (uint16x8x2_t){{zero, vreinterpretq_u16_u8(v[c])}});
                d += dst_pitch;
                SK_NEON_OPAQUE(d);
            }
        }
    TILE_EDGE(sk_f32_bits_from_bf16, uint16_t, uint32_t, 0, full_rows, full_cols, cols)
    TILE_EDGE(sk_f32_bits_from_bf16, uint16_t, uint32_t, full_rows, rows, 0, cols)
}
#undef TILE_EDGE
#endif
