/* x86-64 Cast, SSE2 (the baseline): fixed 16-element blocks over
 * restrict-qualified words, the shape GCC's -O2 cost model vectorises; the
 * tail is the scalar rule. */
#include "cast.h"
#if SK_HAVE_SSE2
#include "../common/bits.h"

void sk_cast_f32_bf16__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint32_t *restrict in = src;
    uint16_t *restrict out = dst;
    size_t i = 0;
    for (; i + SK_BLOCK <= n; i += SK_BLOCK)
        for (size_t j = 0; j < SK_BLOCK; ++j) out[i + j] = sk_bf16_from_f32_bits(in[i + j]);
    for (; i < n; ++i) out[i] = sk_bf16_from_f32_bits(in[i]);
}

void sk_cast_bf16_f32__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint16_t *restrict in = src;
    uint32_t *restrict out = dst;
    size_t i = 0;
    for (; i + SK_BLOCK <= n; i += SK_BLOCK)
        for (size_t j = 0; j < SK_BLOCK; ++j) out[i + j] = sk_f32_bits_from_bf16(in[i + j]);
    for (; i < n; ++i) out[i] = sk_f32_bits_from_bf16(in[i]);
}
#endif
