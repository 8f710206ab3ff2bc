/* The periodic leaves' body (per-axis plans whose channel axis is the
 * walk's inner run): each element takes its position's scale and zero
 * point from the plan's repeating table, the staged expression lane-wise
 * in generic vectors, a native vector per block, then the elements one at
 * a time.  Every form of the per-tensor leaves gives this expression's
 * bits, so one leaf serves every channel.  Each vector route's file
 * includes it inside its target region, with AXIS_ISA and AXIS_ISA_<NAME>
 * defined (../common/axis_lanes.h: the route's types and moves). */
#include "../common/axis_lanes.h"

/* `splat`: every element takes position `at` (a runs leaf's run of one
 * entry), else position at + i. */
static inline __attribute__((always_inline)) void axis_run(const void *table, size_t at, const void *src, void *dst,
                                                           size_t n, int bf16, int splat) {
    enum { LANES = AXIS_CAT(AXIS_LANES, AXIS_ISA), K = AXIS_CAT(AXIS_K, AXIS_ISA) };
    const sk_dequant_table *t = table;
    const float *scale = t->scale + at, *zp = t->zp + at;
    const int8_t *in = src;
    uint32_t s_bits, z_bits;
    memcpy(&s_bits, scale, sizeof s_bits);
    memcpy(&z_bits, zp, sizeof z_bits);
    const AXIS_U32 s_splat = (AXIS_U32){0} + s_bits, z_splat = (AXIS_U32){0} + z_bits;
    size_t i = 0;
    for (; i + SK_AXIS_LANES <= n; i += SK_AXIS_LANES) {
        AXIS_I32 q[K];
        AXIS_U32 s[K], z[K], r[K];
        AXIS_CAT(widen_i8, AXIS_ISA)(in + i, q);
        if (splat) {
            for (int k = 0; k < K; ++k) s[k] = s_splat, z[k] = z_splat;
        } else {
            AXIS_CAT(load64, AXIS_ISA)(scale + i, s);
            AXIS_CAT(load64, AXIS_ISA)(zp + i, z);
        }
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k) {
            r[k] = (AXIS_U32)((__builtin_convertvector(q[k], AXIS_F32) - (AXIS_F32)z[k]) * (AXIS_F32)s[k]);
            if (bf16) AXIS_CAT(narrow_u16, AXIS_ISA)
            ((r[k] + 0x7fffu + ((r[k] >> 16) & 1u)) >> 16, (uint16_t *)dst + i + (size_t)k * LANES);
        }
        if (!bf16) AXIS_CAT(store64, AXIS_ISA)(r, (float *)dst + i);
    }
    sk_dequant_axis_tail(scale, zp, splat ? 0 : 1, in, dst, i, n, bf16);
}

/* The runs leaves' body (x86; NEON's are dequant_neon.c's): `count` packed
 * runs of n elements, entries from `entry` on, each with its entry's
 * values in every lane.  A run's rest after its whole blocks is its last
 * whole block again (one entry, lanes independent, input and output never
 * overlap: the elements before the rest get the same bytes twice), cheaper
 * than element by element. */
static inline __attribute__((always_inline)) void axis_runs(const void *table, size_t entry, const void *src, void *dst,
                                                            size_t n, size_t count, int bf16) {
    const sk_dequant_table *t = table;
    const size_t size = bf16 ? 2 : 4, whole = n / SK_AXIS_LANES * SK_AXIS_LANES;
    for (size_t r = 0, c = entry; r < count; ++r) {
        const int8_t *in = (const int8_t *)src + r * n;
        char *out = (char *)dst + r * n * size;
        if (whole == 0 || whole == n) {
            axis_run(table, c, in, out, n, bf16, 1);
        } else {
            axis_run(table, c, in, out, whole, bf16, 1);
            axis_run(table, c, in + n - SK_AXIS_LANES, out + (n - SK_AXIS_LANES) * size, SK_AXIS_LANES, bf16, 1);
        }
        c = c + 1 == (size_t)t->channels ? 0 : c + 1;
    }
}

#if defined(AXIS_ISA_SSE2)
void sk_dequant_i8_f32_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n, size_t count) {
    axis_runs(table, entry, src, dst, n, count, 0);
}
void sk_dequant_i8_bf16_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs(table, entry, src, dst, n, count, 1);
}
void sk_dequant_i8_f32_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run(table, at, src, dst, n, 0, 0);
}
void sk_dequant_i8_bf16_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run(table, at, src, dst, n, 1, 0);
}
#elif defined(AXIS_ISA_AVX2)
void sk_dequant_i8_f32_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n, size_t count) {
    axis_runs(table, entry, src, dst, n, count, 0);
}
void sk_dequant_i8_bf16_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs(table, entry, src, dst, n, count, 1);
}
void sk_dequant_i8_f32_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run(table, at, src, dst, n, 0, 0);
}
void sk_dequant_i8_bf16_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run(table, at, src, dst, n, 1, 0);
}
#elif defined(AXIS_ISA_AVX512)
void sk_dequant_i8_f32_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                    size_t count) {
    axis_runs(table, entry, src, dst, n, count, 0);
}
void sk_dequant_i8_bf16_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs(table, entry, src, dst, n, count, 1);
}
void sk_dequant_i8_f32_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run(table, at, src, dst, n, 0, 0);
}
void sk_dequant_i8_bf16_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run(table, at, src, dst, n, 1, 0);
}
#elif defined(AXIS_ISA_NEON)
/* 16-byte aligned, as x86-64 functions are: where the loop falls then does
 * not depend on where the linker places the function. */
__attribute__((aligned(16))) void sk_dequant_i8_f32_axis__neon(const void *table, size_t at, const void *src, void *dst,
                                                               size_t n) {
    axis_run(table, at, src, dst, n, 0, 0);
}
__attribute__((aligned(16))) void sk_dequant_i8_bf16_axis__neon(const void *table, size_t at, const void *src,
                                                                void *dst, size_t n) {
    axis_run(table, at, src, dst, n, 1, 0);
}
#endif
