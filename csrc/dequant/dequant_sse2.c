/* x86-64 Dequant, SSE2 (the baseline): the portable forms in fixed
 * 16-element blocks, which GCC's -O2 cost model vectorises, then the form's
 * scalar tail. */
#include "dequant.h"
#if SK_HAVE_SSE2
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

#define LEAVES(form)                                                                               \
    SK_DEQUANT_LEAF(sk_dequant_i8_f32_##form##__sse2) { run_f32(ctx, src, dst, n, sk_dq_##form); } \
    SK_DEQUANT_LEAF(sk_dequant_i8_bf16_##form##__sse2) { run_bf16(ctx, src, dst, n, sk_dq_##form); }
LEAVES(narrow)
LEAVES(narrow_pow2)
LEAVES(wide_pow2)
LEAVES(wide_unit)
LEAVES(wide)
#undef LEAVES
#endif
