/* Quant's periodic leaves (per-axis plans whose channel axis is the walk's
 * inner run; blocked plans), every route's, and the runs leaves of every
 * route but NEON (blocked plans' segments; NEON's are quant_neon.c's): each element takes its position's multiplier
 * and zero point from the plan's repeating table (sk_quant_table).  The
 * scalar route runs the exact path; each vector route compiles the shared
 * body (quant_axis_body.h: a native vector per block in generic vectors)
 * on its own lanes (../common/axis_lanes.h) inside its target region:
 *   the input as binary32 (FP16 by the ISA's conversion, or on SSE2 by
 *   integer moves, subnormals through an exact integer conversion and a
 *   multiply whose result is normal), the product x * m (nearest-even, the
 *   FP state execute admitted), clamped to [-512, 512] (from 512 every zero
 *   point saturates), converted to an integer by the mode, the zero point
 *   added, saturated.
 * NaN products become 0 in the conversion (the zero point).  When the
 * control register flushes, a block with an input whose own bits are
 * nonzero and whose product is below 2^-126 (zero or subnormal: all that
 * flush-to-zero and denormals-are-zero, on the input, the multiplier or
 * the product, can change), or with a NaN product (an infinity times a
 * multiplier taken as zero), takes the exact integer path (quant.h)
 * instead, as do tails; without flushing a product rounded to zero or a
 * subnormal is the contract's own. */
#include "quant.h"

static inline __attribute__((always_inline)) void axis_run_scalar(const void *table, size_t at, const void *src,
                                                                  void *dst, size_t n, int input, int mode) {
    sk_quant_axis_exact(table, at, src, dst, 0, n, input, mode);
}
void sk_quant_f32_i8_ne_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_scalar(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_scalar(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_scalar(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_scalar(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_scalar(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_scalar(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_scalar(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_scalar(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_scalar(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_scalar(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_scalar(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_scalar(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}

/* The scalar runs leaves: each run by the exact path with its entry's context. */
static inline __attribute__((always_inline)) void axis_runs_scalar(const void *table, size_t entry, const void *src,
                                                                   void *dst, size_t n, size_t count, int input,
                                                                   int mode) {
    const sk_quant_table *t = table;
    const size_t size = input == SK_QUANT_F32 ? 4 : 2;
    for (size_t r = 0, c = entry; r < count; ++r) {
        sk_quant_exact_span(&t->ctx[c], (const char *)src + r * n * size, (int8_t *)dst + r * n, 0, n, input, mode);
        c = c + 1 == (size_t)t->channels ? 0 : c + 1;
    }
}
void sk_quant_f32_i8_ne_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                      size_t count) {
    axis_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                      size_t count) {
    axis_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                      size_t count) {
    axis_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                      size_t count) {
    axis_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_scalar(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}

#if SK_HAVE_SSE2
#include <immintrin.h>
#define AXIS_ISA sse2
#define AXIS_ISA_SSE2 1
#include "../common/axis_lanes.h"
#include "quant_axis_body.h"
#undef AXIS_ISA_SSE2
#undef AXIS_ISA
void sk_quant_f32_i8_ne_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_sse2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_sse2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_sse2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_sse2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_sse2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_sse2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_sse2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_sse2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_sse2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_sse2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_sse2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn_axis__sse2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_sse2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f32_i8_ne_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                    size_t count) {
    axis_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                    size_t count) {
    axis_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                    size_t count) {
    axis_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                    size_t count) {
    axis_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn_runs__sse2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_sse2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
#endif

#if SK_HAVE_AVX2
SK_TARGET_BEGIN(AVX2)
#define AXIS_ISA avx2
#define AXIS_ISA_AVX2 1
#include "../common/axis_lanes.h"
#include "quant_axis_body.h"
#undef AXIS_ISA_AVX2
#undef AXIS_ISA
void sk_quant_f32_i8_ne_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx2(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx2(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn_axis__avx2(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx2(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f32_i8_ne_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                    size_t count) {
    axis_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                    size_t count) {
    axis_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                    size_t count) {
    axis_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                    size_t count) {
    axis_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn_runs__avx2(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                   size_t count) {
    axis_runs_avx2(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
SK_TARGET_END
#endif

#if SK_HAVE_AVX512
SK_TARGET_BEGIN(AVX512)
#define AXIS_ISA avx512
#define AXIS_ISA_AVX512 1
#include "../common/axis_lanes.h"
#include "quant_axis_body.h"
#undef AXIS_ISA_AVX512
#undef AXIS_ISA
void sk_quant_f32_i8_ne_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx512(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx512(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx512(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx512(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx512(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx512(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx512(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx512(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx512(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx512(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx512(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn_axis__avx512(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_avx512(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f32_i8_ne_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                      size_t count) {
    axis_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                      size_t count) {
    axis_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                      size_t count) {
    axis_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                      size_t count) {
    axis_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn_runs__avx512(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    axis_runs_avx512(table, entry, src, dst, n, count, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
SK_TARGET_END
#endif

#if SK_HAVE_NEON
#include <arm_neon.h>
#define AXIS_ISA neon
#define AXIS_ISA_NEON 1
#include "../common/axis_lanes.h"
#include "quant_axis_body.h"
#undef AXIS_ISA_NEON
#undef AXIS_ISA
void sk_quant_f32_i8_ne_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_neon(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_neon(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_neon(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_neon(table, at, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_neon(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_neon(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_neon(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_neon(table, at, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_neon(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_neon(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_neon(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn_axis__neon(const void *table, size_t at, const void *src, void *dst, size_t n) {
    axis_run_neon(table, at, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
#endif
