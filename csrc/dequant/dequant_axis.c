/* Dequant's parameter-vector leaves (per-axis plans whose channel axis is
 * the walk's inner run): each element takes its position's scale and zero
 * point from the plan's repeating table.  The staged expression lane-wise,
 * 16 lanes per block in generic vectors, compiled once per route's
 * instruction set; the scalar route and every tail take it element by
 * element.  Every form of the per-tensor leaves is this expression's bits,
 * so one leaf serves every channel. */
#include "dequant.h"
#include "../common/axis.h"

static inline __attribute__((always_inline)) void axis_run(const void *table, size_t at, const void *src,
                                                           void *dst, size_t n, int bf16, int lanes) {
    const sk_dequant_table *t = table;
    const float *scale = t->scale + at, *zp = t->zp + at;
    const int8_t *in = src;
    size_t i = 0;
    if (lanes) {
        for (; i + SK_AXIS_LANES <= n; i += SK_AXIS_LANES) {
            sk_i8x16 q8;
            sk_f32x16 s, z;
            memcpy(&q8, in + i, sizeof q8);
            memcpy(&s, scale + i, sizeof s);
            memcpy(&z, zp + i, sizeof z);
            const sk_f32x16 r = (__builtin_convertvector(q8, sk_f32x16) - z) * s;
            if (bf16) {
                const sk_u32x16 b = (sk_u32x16)r;
                const sk_u16x16 w = __builtin_convertvector((b + 0x7fffu + ((b >> 16) & 1u)) >> 16, sk_u16x16);
                memcpy((uint16_t *)dst + i, &w, sizeof w);
            } else {
                memcpy((float *)dst + i, &r, sizeof r);
            }
        }
    }
    for (; i < n; ++i) {
        const float r = ((float)in[i] - zp[i]) * scale[i];
        if (bf16) ((uint16_t *)dst)[i] = sk_bf16_from_f32_bits(sk_f32_bits(r));
        else ((float *)dst)[i] = r;
    }
}

#define LEAVES(isa, lanes)                                                                               \
    void sk_dequant_i8_f32_axis__##isa(const void *table, size_t at, const void *src, void *dst, size_t n) { \
        axis_run(table, at, src, dst, n, 0, lanes);                                                      \
    }                                                                                                    \
    void sk_dequant_i8_bf16_axis__##isa(const void *table, size_t at, const void *src, void *dst, size_t n) { \
        axis_run(table, at, src, dst, n, 1, lanes);                                                      \
    }

/* The reference: one element at a time (no vectorizing). */
#pragma GCC push_options
#pragma GCC optimize("no-tree-vectorize")
LEAVES(scalar, 0)
#pragma GCC pop_options
#if SK_HAVE_SSE2
LEAVES(sse2, 1)
#pragma GCC push_options
#pragma GCC target("avx2")
LEAVES(avx2, 1)
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,avx512f,avx512bw,avx512vl,avx512dq")
LEAVES(avx512, 1)
#pragma GCC pop_options
#endif
#if SK_HAVE_NEON
LEAVES(neon, 1)
#endif
