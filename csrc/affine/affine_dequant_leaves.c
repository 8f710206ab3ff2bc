/* Affine dequant's leaves, every route's (affine_dequant_kernels.inc).  The
 * scalar route computes element by element (affine.h); each vector route
 * compiles the shared body (affine_dequant_body.h) on its own lanes
 * (../common/axis_lanes.h) inside its target region.  Each variant (output
 * x stored element width) has a span leaf (ctx: a sk_affine_dequant_ctx),
 * a periodic leaf and a runs leaf (table: a sk_affine_dequant_table), and
 * on the scalar route a strided leaf; the storage's mask and sign come
 * from the context at run time. */
#include "affine.h"

/* The scalar route's bodies. */
static inline __attribute__((always_inline)) void ad_span_scalar(const void *ctx, const void *src, void *dst, size_t n,
                                                                 int width, int bf16) {
    sk_ad_span(ctx, src, dst, 0, n, width, bf16);
}
static inline __attribute__((always_inline)) void ad_strided_scalar(const void *ctx, const char *src,
                                                                    ptrdiff_t src_step, char *dst, ptrdiff_t dst_step,
                                                                    size_t n, int width, int bf16) {
    for (size_t i = 0; i < n; ++i, src += src_step, dst += dst_step) sk_ad_span(ctx, src, dst, 0, 1, width, bf16);
}
static inline __attribute__((always_inline)) void ad_periodic_scalar(const void *table, size_t at, const void *src,
                                                                     void *dst, size_t n, int width, int bf16) {
    sk_ad_axis_tail(table, at, src, dst, 0, n, width, bf16);
}
static inline __attribute__((always_inline)) void ad_runs_scalar(const void *table, size_t entry, const void *src,
                                                                 void *dst, size_t n, size_t count, int width,
                                                                 int bf16) {
    const sk_affine_dequant_table *t = table;
    const size_t size = bf16 ? 2 : 4;
    for (size_t r = 0, c = entry; r < count; ++r) {
        sk_ad_span(&t->ctx[c], (const char *)src + r * n * (size_t)width, (char *)dst + r * n * size, 0, n, width,
                   bf16);
        c = c + 1 == (size_t)t->channels ? 0 : c + 1;
    }
}

void sk_affine_dequant_w8_f32__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_scalar(ctx, src, dst, n, 1, 0);
}
void sk_affine_dequant_w8_f32_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                              ptrdiff_t dst_step, size_t n) {
    ad_strided_scalar(ctx, src, src_step, dst, dst_step, n, 1, 0);
}
void sk_affine_dequant_w8_f32_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_scalar(table, at, src, dst, n, 1, 0);
}
void sk_affine_dequant_w8_f32_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                           size_t count) {
    ad_runs_scalar(table, entry, src, dst, n, count, 1, 0);
}
void sk_affine_dequant_w16_f32__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_scalar(ctx, src, dst, n, 2, 0);
}
void sk_affine_dequant_w16_f32_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                               ptrdiff_t dst_step, size_t n) {
    ad_strided_scalar(ctx, src, src_step, dst, dst_step, n, 2, 0);
}
void sk_affine_dequant_w16_f32_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_scalar(table, at, src, dst, n, 2, 0);
}
void sk_affine_dequant_w16_f32_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                            size_t count) {
    ad_runs_scalar(table, entry, src, dst, n, count, 2, 0);
}
void sk_affine_dequant_w32_f32__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_scalar(ctx, src, dst, n, 4, 0);
}
void sk_affine_dequant_w32_f32_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                               ptrdiff_t dst_step, size_t n) {
    ad_strided_scalar(ctx, src, src_step, dst, dst_step, n, 4, 0);
}
void sk_affine_dequant_w32_f32_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_scalar(table, at, src, dst, n, 4, 0);
}
void sk_affine_dequant_w32_f32_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                            size_t count) {
    ad_runs_scalar(table, entry, src, dst, n, count, 4, 0);
}
void sk_affine_dequant_w8_bf16__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_scalar(ctx, src, dst, n, 1, 1);
}
void sk_affine_dequant_w8_bf16_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                               ptrdiff_t dst_step, size_t n) {
    ad_strided_scalar(ctx, src, src_step, dst, dst_step, n, 1, 1);
}
void sk_affine_dequant_w8_bf16_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_scalar(table, at, src, dst, n, 1, 1);
}
void sk_affine_dequant_w8_bf16_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                            size_t count) {
    ad_runs_scalar(table, entry, src, dst, n, count, 1, 1);
}
void sk_affine_dequant_w16_bf16__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_scalar(ctx, src, dst, n, 2, 1);
}
void sk_affine_dequant_w16_bf16_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                                ptrdiff_t dst_step, size_t n) {
    ad_strided_scalar(ctx, src, src_step, dst, dst_step, n, 2, 1);
}
void sk_affine_dequant_w16_bf16_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_scalar(table, at, src, dst, n, 2, 1);
}
void sk_affine_dequant_w16_bf16_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                             size_t count) {
    ad_runs_scalar(table, entry, src, dst, n, count, 2, 1);
}
void sk_affine_dequant_w32_bf16__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_scalar(ctx, src, dst, n, 4, 1);
}
void sk_affine_dequant_w32_bf16_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                                ptrdiff_t dst_step, size_t n) {
    ad_strided_scalar(ctx, src, src_step, dst, dst_step, n, 4, 1);
}
void sk_affine_dequant_w32_bf16_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_scalar(table, at, src, dst, n, 4, 1);
}
void sk_affine_dequant_w32_bf16_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                             size_t count) {
    ad_runs_scalar(table, entry, src, dst, n, count, 4, 1);
}

#if SK_HAVE_SSE2
#include <immintrin.h>
#define AXIS_ISA sse2
#define AXIS_ISA_SSE2 1
#include "../common/axis_lanes.h"
#include "affine_dequant_body.h"
#undef AXIS_ISA_SSE2
#undef AXIS_ISA
void sk_affine_dequant_w8_f32__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_sse2(ctx, src, dst, n, 1, 0);
}
void sk_affine_dequant_w8_f32_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_sse2(table, at, src, dst, n, 1, 0);
}
void sk_affine_dequant_w8_f32_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    ad_runs_sse2(table, entry, src, dst, n, count, 1, 0);
}
void sk_affine_dequant_w16_f32__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_sse2(ctx, src, dst, n, 2, 0);
}
void sk_affine_dequant_w16_f32_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_sse2(table, at, src, dst, n, 2, 0);
}
void sk_affine_dequant_w16_f32_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    ad_runs_sse2(table, entry, src, dst, n, count, 2, 0);
}
void sk_affine_dequant_w32_f32__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_sse2(ctx, src, dst, n, 4, 0);
}
void sk_affine_dequant_w32_f32_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_sse2(table, at, src, dst, n, 4, 0);
}
void sk_affine_dequant_w32_f32_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    ad_runs_sse2(table, entry, src, dst, n, count, 4, 0);
}
void sk_affine_dequant_w8_bf16__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_sse2(ctx, src, dst, n, 1, 1);
}
void sk_affine_dequant_w8_bf16_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_sse2(table, at, src, dst, n, 1, 1);
}
void sk_affine_dequant_w8_bf16_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    ad_runs_sse2(table, entry, src, dst, n, count, 1, 1);
}
void sk_affine_dequant_w16_bf16__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_sse2(ctx, src, dst, n, 2, 1);
}
void sk_affine_dequant_w16_bf16_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_sse2(table, at, src, dst, n, 2, 1);
}
void sk_affine_dequant_w16_bf16_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                           size_t count) {
    ad_runs_sse2(table, entry, src, dst, n, count, 2, 1);
}
void sk_affine_dequant_w32_bf16__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_sse2(ctx, src, dst, n, 4, 1);
}
void sk_affine_dequant_w32_bf16_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_sse2(table, at, src, dst, n, 4, 1);
}
void sk_affine_dequant_w32_bf16_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                           size_t count) {
    ad_runs_sse2(table, entry, src, dst, n, count, 4, 1);
}
#endif

#if SK_HAVE_AVX2
SK_TARGET_BEGIN(AVX2)
#define AXIS_ISA avx2
#define AXIS_ISA_AVX2 1
#include "../common/axis_lanes.h"
#include "affine_dequant_body.h"
#undef AXIS_ISA_AVX2
#undef AXIS_ISA
void sk_affine_dequant_w8_f32__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_avx2(ctx, src, dst, n, 1, 0);
}
void sk_affine_dequant_w8_f32_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_avx2(table, at, src, dst, n, 1, 0);
}
void sk_affine_dequant_w8_f32_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    ad_runs_avx2(table, entry, src, dst, n, count, 1, 0);
}
void sk_affine_dequant_w16_f32__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_avx2(ctx, src, dst, n, 2, 0);
}
void sk_affine_dequant_w16_f32_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_avx2(table, at, src, dst, n, 2, 0);
}
void sk_affine_dequant_w16_f32_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    ad_runs_avx2(table, entry, src, dst, n, count, 2, 0);
}
void sk_affine_dequant_w32_f32__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_avx2(ctx, src, dst, n, 4, 0);
}
void sk_affine_dequant_w32_f32_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_avx2(table, at, src, dst, n, 4, 0);
}
void sk_affine_dequant_w32_f32_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    ad_runs_avx2(table, entry, src, dst, n, count, 4, 0);
}
void sk_affine_dequant_w8_bf16__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_avx2(ctx, src, dst, n, 1, 1);
}
void sk_affine_dequant_w8_bf16_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_avx2(table, at, src, dst, n, 1, 1);
}
void sk_affine_dequant_w8_bf16_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    ad_runs_avx2(table, entry, src, dst, n, count, 1, 1);
}
void sk_affine_dequant_w16_bf16__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_avx2(ctx, src, dst, n, 2, 1);
}
void sk_affine_dequant_w16_bf16_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_avx2(table, at, src, dst, n, 2, 1);
}
void sk_affine_dequant_w16_bf16_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                           size_t count) {
    ad_runs_avx2(table, entry, src, dst, n, count, 2, 1);
}
void sk_affine_dequant_w32_bf16__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_avx2(ctx, src, dst, n, 4, 1);
}
void sk_affine_dequant_w32_bf16_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_avx2(table, at, src, dst, n, 4, 1);
}
void sk_affine_dequant_w32_bf16_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                           size_t count) {
    ad_runs_avx2(table, entry, src, dst, n, count, 4, 1);
}
SK_TARGET_END
#endif

#if SK_HAVE_AVX512
SK_TARGET_BEGIN(AVX512)
#define AXIS_ISA avx512
#define AXIS_ISA_AVX512 1
#include "../common/axis_lanes.h"
#include "affine_dequant_body.h"
#undef AXIS_ISA_AVX512
#undef AXIS_ISA
void sk_affine_dequant_w8_f32_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_avx512(table, at, src, dst, n, 1, 0);
}
void sk_affine_dequant_w8_f32_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                           size_t count) {
    ad_runs_avx512(table, entry, src, dst, n, count, 1, 0);
}
void sk_affine_dequant_w16_f32_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_avx512(table, at, src, dst, n, 2, 0);
}
void sk_affine_dequant_w16_f32_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                            size_t count) {
    ad_runs_avx512(table, entry, src, dst, n, count, 2, 0);
}
void sk_affine_dequant_w32_f32_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_avx512(table, at, src, dst, n, 4, 0);
}
void sk_affine_dequant_w32_f32_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                            size_t count) {
    ad_runs_avx512(table, entry, src, dst, n, count, 4, 0);
}
void sk_affine_dequant_w8_bf16_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_avx512(table, at, src, dst, n, 1, 1);
}
void sk_affine_dequant_w8_bf16_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                            size_t count) {
    ad_runs_avx512(table, entry, src, dst, n, count, 1, 1);
}
void sk_affine_dequant_w16_bf16_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_avx512(table, at, src, dst, n, 2, 1);
}
void sk_affine_dequant_w16_bf16_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                             size_t count) {
    ad_runs_avx512(table, entry, src, dst, n, count, 2, 1);
}
void sk_affine_dequant_w32_bf16_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_avx512(table, at, src, dst, n, 4, 1);
}
void sk_affine_dequant_w32_bf16_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                             size_t count) {
    ad_runs_avx512(table, entry, src, dst, n, count, 4, 1);
}
SK_TARGET_END
#endif

#if SK_HAVE_NEON
#include <arm_neon.h>
#define AXIS_ISA neon
#define AXIS_ISA_NEON 1
#include "../common/axis_lanes.h"
#include "affine_dequant_body.h"
#undef AXIS_ISA_NEON
#undef AXIS_ISA
void sk_affine_dequant_w8_f32__neon(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_neon(ctx, src, dst, n, 1, 0);
}
void sk_affine_dequant_w8_f32_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_neon(table, at, src, dst, n, 1, 0);
}
void sk_affine_dequant_w8_f32_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    ad_runs_neon(table, entry, src, dst, n, count, 1, 0);
}
void sk_affine_dequant_w16_f32__neon(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_neon(ctx, src, dst, n, 2, 0);
}
void sk_affine_dequant_w16_f32_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_neon(table, at, src, dst, n, 2, 0);
}
void sk_affine_dequant_w16_f32_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    ad_runs_neon(table, entry, src, dst, n, count, 2, 0);
}
void sk_affine_dequant_w32_f32__neon(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_neon(ctx, src, dst, n, 4, 0);
}
void sk_affine_dequant_w32_f32_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_neon(table, at, src, dst, n, 4, 0);
}
void sk_affine_dequant_w32_f32_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    ad_runs_neon(table, entry, src, dst, n, count, 4, 0);
}
void sk_affine_dequant_w8_bf16__neon(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_neon(ctx, src, dst, n, 1, 1);
}
void sk_affine_dequant_w8_bf16_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_neon(table, at, src, dst, n, 1, 1);
}
void sk_affine_dequant_w8_bf16_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    ad_runs_neon(table, entry, src, dst, n, count, 1, 1);
}
void sk_affine_dequant_w16_bf16__neon(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_neon(ctx, src, dst, n, 2, 1);
}
void sk_affine_dequant_w16_bf16_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_neon(table, at, src, dst, n, 2, 1);
}
void sk_affine_dequant_w16_bf16_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                           size_t count) {
    ad_runs_neon(table, entry, src, dst, n, count, 2, 1);
}
void sk_affine_dequant_w32_bf16__neon(const void *ctx, const void *src, void *dst, size_t n) {
    ad_span_neon(ctx, src, dst, n, 4, 1);
}
void sk_affine_dequant_w32_bf16_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    ad_periodic_neon(table, at, src, dst, n, 4, 1);
}
void sk_affine_dequant_w32_bf16_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                           size_t count) {
    ad_runs_neon(table, entry, src, dst, n, count, 4, 1);
}
#endif
