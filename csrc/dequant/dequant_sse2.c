/* x86-64 Dequant, SSE2 (the baseline): the portable forms in fixed
 * 16-element blocks, which GCC's -O2 cost model vectorises, then the form's
 * scalar tail; the periodic leaves in generic vectors (dequant_axis_body.h). */
#include "dequant.h"
#if SK_HAVE_SSE2
#include <immintrin.h>

/* The context is copied to a local so that the compiler can prove that the
 * output stores never modify the parameters (and keeps them in registers). */
static inline __attribute__((always_inline)) void run_f32(const sk_dequant_ctx *ctx, const int8_t *restrict in,
                                                          float *restrict out, size_t n, sk_dq_element_fn f) {
    const sk_dequant_ctx local = *ctx, *c = &local;
    size_t i = 0;
    for (; i + SK_BLOCK <= n; i += SK_BLOCK)
        for (size_t j = 0; j < SK_BLOCK; ++j) out[i + j] = f(c, in[i + j]);
    for (; i < n; ++i) out[i] = f(c, in[i]);
}

static inline __attribute__((always_inline)) void run_bf16(const sk_dequant_ctx *ctx, const int8_t *restrict in,
                                                           uint16_t *restrict out, size_t n, sk_dq_element_fn f) {
    const sk_dequant_ctx local = *ctx, *c = &local;
    size_t i = 0;
    for (; i + SK_BLOCK <= n; i += SK_BLOCK)
        for (size_t j = 0; j < SK_BLOCK; ++j) out[i + j] = sk_bf16_from_f32_bits(sk_f32_bits(f(c, in[i + j])));
    for (; i < n; ++i) out[i] = sk_bf16_from_f32_bits(sk_f32_bits(f(c, in[i])));
}

void sk_dequant_i8_f32_narrow__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run_f32(ctx, src, dst, n, sk_dq_narrow);
}
void sk_dequant_i8_f32_narrow_pow2__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run_f32(ctx, src, dst, n, sk_dq_narrow_pow2);
}
void sk_dequant_i8_f32_wide_pow2__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run_f32(ctx, src, dst, n, sk_dq_wide_pow2);
}
void sk_dequant_i8_f32_wide_unit__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run_f32(ctx, src, dst, n, sk_dq_wide_unit);
}
void sk_dequant_i8_f32_wide__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run_f32(ctx, src, dst, n, sk_dq_wide);
}
void sk_dequant_i8_bf16_narrow__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run_bf16(ctx, src, dst, n, sk_dq_narrow);
}
void sk_dequant_i8_bf16_narrow_pow2__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run_bf16(ctx, src, dst, n, sk_dq_narrow_pow2);
}
void sk_dequant_i8_bf16_wide_pow2__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run_bf16(ctx, src, dst, n, sk_dq_wide_pow2);
}
void sk_dequant_i8_bf16_wide_unit__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run_bf16(ctx, src, dst, n, sk_dq_wide_unit);
}
void sk_dequant_i8_bf16_wide__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run_bf16(ctx, src, dst, n, sk_dq_wide);
}

#define AXIS_ISA sse2
#define AXIS_ISA_SSE2 1
#include "dequant_axis_body.h"
#endif
