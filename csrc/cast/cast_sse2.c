/* x86-64 Cast, SSE2 (the baseline): fixed 16-element blocks over
 * restrict-qualified words, the shape GCC's -O2 cost model vectorises; the
 * tail is the scalar rule. */
#include "cast.h"
#if SK_HAVE_SSE2
#include "../common/bits.h"

/* Element i by the scalar rule (`widen`: BF16 -> FP32, else FP32 -> BF16). */
static inline __attribute__((always_inline)) void rule(const void *restrict src, void *restrict dst, size_t i,
                                                       int widen) {
    if (widen)
        ((uint32_t *)dst)[i] = sk_f32_bits_from_bf16(((const uint16_t *)src)[i]);
    else
        ((uint16_t *)dst)[i] = sk_bf16_from_f32_bits(((const uint32_t *)src)[i]);
}

static inline __attribute__((always_inline)) void run(const void *restrict src, void *restrict dst, size_t n,
                                                      int widen) {
    size_t i = 0;
    for (; i + SK_BLOCK <= n; i += SK_BLOCK)
        for (size_t j = 0; j < SK_BLOCK; ++j) rule(src, dst, i + j, widen);
    for (; i < n; ++i) rule(src, dst, i, widen);
}

void sk_cast_f32_bf16__sse2(const void *ctx, const void *src, void *dst, size_t n) { run(src, dst, n, 0); }

void sk_cast_bf16_f32__sse2(const void *ctx, const void *src, void *dst, size_t n) { run(src, dst, n, 1); }
#endif
