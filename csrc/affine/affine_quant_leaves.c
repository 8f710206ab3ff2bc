/* Affine quant's leaves, every route's (affine_quant_kernels.inc).  The
 * scalar route runs the exact integer path (affine.h), element by element;
 * each vector route compiles the shared body (affine_quant_body.h: a native
 * vector per block in generic vectors) on its own lanes
 * (../common/axis_lanes.h) inside its target region.  Each variant (input x
 * rounding mode) has a span leaf (ctx: a sk_affine_quant_ctx), a periodic
 * leaf and a runs leaf (table: a sk_affine_quant_table), and on the scalar
 * route a strided leaf; the storage's range, mask and width come from the
 * context at run time.  The AVX2 route's span leaves here serve its dense
 * leaves (affine_quant_avx2.c) for their tails and under flushing; the
 * AVX-512 route runs those dense leaves and has no span leaf here. */
#include "affine.h"

/* The scalar route's bodies: the exact path. */
static inline __attribute__((always_inline)) void aq_span_scalar(const void *ctx, const void *src, void *dst, size_t n,
                                                                 int input, int mode) {
    sk_aq_exact_span(ctx, src, dst, 0, n, input, mode);
}
static inline __attribute__((always_inline)) void aq_strided_scalar(const void *ctx, const char *src,
                                                                    ptrdiff_t src_step, char *dst, ptrdiff_t dst_step,
                                                                    size_t n, int input, int mode) {
    const sk_affine_quant_ctx *c = ctx;
    for (size_t i = 0; i < n; ++i, src += src_step, dst += dst_step)
        sk_aq_store(dst, 0, sk_aq_exact(c, sk_aq_decode_at(input, src, 0), mode), c->mask, c->width);
}
static inline __attribute__((always_inline)) void aq_periodic_scalar(const void *table, size_t at, const void *src,
                                                                     void *dst, size_t n, int input, int mode) {
    sk_aq_axis_exact(table, at, src, dst, 0, n, input, mode);
}
static inline __attribute__((always_inline)) void aq_runs_scalar(const void *table, size_t entry, const void *src,
                                                                 void *dst, size_t n, size_t count, int input,
                                                                 int mode) {
    const sk_affine_quant_table *t = table;
    const size_t size = input == SK_QUANT_F32 ? 4 : 2;
    for (size_t r = 0, c = entry; r < count; ++r) {
        sk_aq_exact_span(&t->ctx[c], (const char *)src + r * n * size, (char *)dst + r * n * (size_t)t->width, 0, n,
                         input, mode);
        c = c + 1 == (size_t)t->channels ? 0 : c + 1;
    }
}

void sk_affine_quant_f32_ne__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_scalar(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_ne_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                            ptrdiff_t dst_step, size_t n) {
    aq_strided_scalar(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_ne_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_scalar(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_ne_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_tz__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_scalar(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tz_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                            ptrdiff_t dst_step, size_t n) {
    aq_strided_scalar(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tz_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_scalar(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tz_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tp__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_scalar(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tp_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                            ptrdiff_t dst_step, size_t n) {
    aq_strided_scalar(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tp_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_scalar(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tp_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tn__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_scalar(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f32_tn_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                            ptrdiff_t dst_step, size_t n) {
    aq_strided_scalar(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f32_tn_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_scalar(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f32_tn_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_ne__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_scalar(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_ne_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                             ptrdiff_t dst_step, size_t n) {
    aq_strided_scalar(ctx, src, src_step, dst, dst_step, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_ne_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_scalar(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_ne_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    aq_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_tz__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_scalar(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tz_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                             ptrdiff_t dst_step, size_t n) {
    aq_strided_scalar(ctx, src, src_step, dst, dst_step, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tz_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_scalar(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tz_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    aq_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tp__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_scalar(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tp_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                             ptrdiff_t dst_step, size_t n) {
    aq_strided_scalar(ctx, src, src_step, dst, dst_step, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tp_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_scalar(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tp_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    aq_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tn__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_scalar(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_tn_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                             ptrdiff_t dst_step, size_t n) {
    aq_strided_scalar(ctx, src, src_step, dst, dst_step, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_tn_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_scalar(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_tn_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    aq_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_ne__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_scalar(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_ne_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                            ptrdiff_t dst_step, size_t n) {
    aq_strided_scalar(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_ne_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_scalar(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_ne_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_tz__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_scalar(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tz_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                            ptrdiff_t dst_step, size_t n) {
    aq_strided_scalar(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tz_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_scalar(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tz_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tp__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_scalar(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tp_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                            ptrdiff_t dst_step, size_t n) {
    aq_strided_scalar(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tp_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_scalar(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tp_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tn__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_scalar(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_tn_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                            ptrdiff_t dst_step, size_t n) {
    aq_strided_scalar(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_tn_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_scalar(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_tn_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}

#if SK_HAVE_SSE2
#include <immintrin.h>
#define AXIS_ISA sse2
#define AXIS_ISA_SSE2 1
#include "../common/axis_lanes.h"
#include "affine_quant_body.h"
#undef AXIS_ISA_SSE2
#undef AXIS_ISA
void sk_affine_quant_f32_ne__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_sse2(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_ne_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_sse2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_ne_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_tz__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_sse2(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tz_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_sse2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tz_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tp__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_sse2(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tp_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_sse2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tp_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tn__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_sse2(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f32_tn_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_sse2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f32_tn_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_ne__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_sse2(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_ne_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_sse2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_ne_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                        size_t count) {
    aq_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_tz__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_sse2(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tz_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_sse2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tz_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                        size_t count) {
    aq_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tp__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_sse2(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tp_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_sse2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tp_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                        size_t count) {
    aq_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tn__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_sse2(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_tn_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_sse2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_tn_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                        size_t count) {
    aq_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_ne__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_sse2(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_ne_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_sse2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_ne_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_tz__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_sse2(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tz_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_sse2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tz_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tp__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_sse2(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tp_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_sse2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tp_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tn__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_sse2(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_tn_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_sse2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_tn_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
#endif

#if SK_HAVE_AVX2
SK_TARGET_BEGIN(AVX2)
#define AXIS_ISA avx2
#define AXIS_ISA_AVX2 1
#include "../common/axis_lanes.h"
#include "affine_quant_body.h"
#undef AXIS_ISA_AVX2
#undef AXIS_ISA
void sk_affine_quant_f32_ne__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_avx2(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_ne_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_ne_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_tz__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_avx2(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tz_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tz_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tp__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_avx2(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tp_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tp_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tn__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_avx2(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f32_tn_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f32_tn_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_ne__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_avx2(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_ne_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_ne_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                        size_t count) {
    aq_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_tz__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_avx2(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tz_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tz_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                        size_t count) {
    aq_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tp__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_avx2(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tp_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tp_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                        size_t count) {
    aq_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tn__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_avx2(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_tn_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_tn_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                        size_t count) {
    aq_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_ne__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_avx2(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_ne_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_ne_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_tz__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_avx2(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tz_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tz_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tp__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_avx2(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tp_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tp_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tn__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_avx2(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_tn_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_tn_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
SK_TARGET_END
#endif

#if SK_HAVE_AVX512
SK_TARGET_BEGIN(AVX512)
#define AXIS_ISA avx512
#define AXIS_ISA_AVX512 1
#include "../common/axis_lanes.h"
#include "affine_quant_body.h"
#undef AXIS_ISA_AVX512
#undef AXIS_ISA
void sk_affine_quant_f32_ne_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx512(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_ne_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_tz_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx512(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tz_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tp_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx512(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tp_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tn_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx512(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f32_tn_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_ne_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx512(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_ne_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    aq_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_tz_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx512(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tz_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    aq_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tp_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx512(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tp_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    aq_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tn_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx512(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_tn_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                          size_t count) {
    aq_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_ne_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx512(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_ne_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_tz_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx512(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tz_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tp_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx512(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tp_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tn_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_avx512(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_tn_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                         size_t count) {
    aq_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
SK_TARGET_END
#endif

#if SK_HAVE_NEON
#include <arm_neon.h>
#define AXIS_ISA neon
#define AXIS_ISA_NEON 1
#include "../common/axis_lanes.h"
#include "affine_quant_body.h"
#undef AXIS_ISA_NEON
#undef AXIS_ISA
void sk_affine_quant_f32_ne__neon(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_neon(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_ne_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_neon(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_ne_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_neon(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f32_tz__neon(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_neon(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tz_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_neon(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tz_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_neon(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f32_tp__neon(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_neon(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tp_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_neon(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tp_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_neon(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f32_tn__neon(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_neon(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f32_tn_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_neon(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f32_tn_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_neon(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_ne__neon(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_neon(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_ne_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_neon(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_ne_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                        size_t count) {
    aq_runs_neon(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_bf16_tz__neon(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_neon(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tz_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_neon(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tz_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                        size_t count) {
    aq_runs_neon(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_bf16_tp__neon(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_neon(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tp_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_neon(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tp_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                        size_t count) {
    aq_runs_neon(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_bf16_tn__neon(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_neon(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_tn_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_neon(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_bf16_tn_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                        size_t count) {
    aq_runs_neon(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_ne__neon(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_neon(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_ne_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_neon(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_ne_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_neon(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_affine_quant_f16_tz__neon(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_neon(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tz_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_neon(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tz_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_neon(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_affine_quant_f16_tp__neon(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_neon(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tp_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_neon(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tp_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_neon(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_affine_quant_f16_tn__neon(const void *ctx, const void *src, void *dst, size_t n) {
    aq_span_neon(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_tn_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    aq_periodic_neon(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_affine_quant_f16_tn_runs__neon(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                       size_t count) {
    aq_runs_neon(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
#endif
