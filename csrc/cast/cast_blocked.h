/* Cast leaves in fixed 16-element blocks over restrict-qualified words, the
 * shape GCC's -O2 cost model vectorises; the tail is the scalar rule.
 * Included once per x86 route, with SK_ISA naming the leaves. */
#include "../common/bits.h"

void SK_ISA(sk_cast_f32_bf16)(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint32_t *restrict in = src;
    uint16_t *restrict out = dst;
    size_t i = 0;
    for (; i + SK_BLOCK <= n; i += SK_BLOCK)
        for (size_t j = 0; j < SK_BLOCK; ++j) out[i + j] = sk_bf16_from_f32_bits(in[i + j]);
    for (; i < n; ++i) out[i] = sk_bf16_from_f32_bits(in[i]);
}

void SK_ISA(sk_cast_bf16_f32)(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint16_t *restrict in = src;
    uint32_t *restrict out = dst;
    size_t i = 0;
    for (; i + SK_BLOCK <= n; i += SK_BLOCK)
        for (size_t j = 0; j < SK_BLOCK; ++j) out[i + j] = sk_f32_bits_from_bf16(in[i + j]);
    for (; i < n; ++i) out[i] = sk_f32_bits_from_bf16(in[i]);
}
