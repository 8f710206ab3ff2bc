/* Scalar Cast: the contract written as code, one element at a time.  The
 * dense leaves are the reference route; the strided leaves serve every
 * route's non-packed inner runs. */
#include "cast.h"
#include "../common/bits.h"

void sk_cast_f32_bf16__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint32_t *in = src;
    uint16_t *out = dst;
    for (size_t i = 0; i < n; ++i) out[i] = sk_bf16_from_f32_bits(in[i]);
}

void sk_cast_bf16_f32__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint16_t *in = src;
    uint32_t *out = dst;
    for (size_t i = 0; i < n; ++i) out[i] = sk_f32_bits_from_bf16(in[i]);
}

void sk_cast_f32_bf16_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                      ptrdiff_t dst_step, size_t n) {
    (void)ctx;
    for (size_t i = 0; i < n; ++i, src += src_step, dst += dst_step)
        *(uint16_t *)(void *)dst = sk_bf16_from_f32_bits(*(const uint32_t *)(const void *)src);
}

void sk_cast_bf16_f32_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                      ptrdiff_t dst_step, size_t n) {
    (void)ctx;
    for (size_t i = 0; i < n; ++i, src += src_step, dst += dst_step)
        *(uint32_t *)(void *)dst = sk_f32_bits_from_bf16(*(const uint16_t *)(const void *)src);
}
