/* Scalar Dequant: the reference route, one element at a time with each
 * form's element function; also the strided leaves every route uses. */
#include "dequant.h"

#define LEAVES(form)                                                                                          \
    SK_DEQUANT_LEAF(sk_dequant_i8_f32_##form##__scalar) {                                                     \
        const int8_t *in = src;                                                                               \
        float *out = dst;                                                                                     \
        for (size_t i = 0; i < n; ++i) out[i] = sk_dq_##form(ctx, in[i]);                                     \
    }                                                                                                         \
    SK_DEQUANT_LEAF(sk_dequant_i8_bf16_##form##__scalar) {                                                    \
        const int8_t *in = src;                                                                               \
        uint16_t *out = dst;                                                                                  \
        for (size_t i = 0; i < n; ++i) out[i] = sk_bf16_from_f32_bits(sk_f32_bits(sk_dq_##form(ctx, in[i]))); \
    }
LEAVES(narrow)
LEAVES(narrow_pow2)
LEAVES(wide_pow2)
LEAVES(wide_unit)
LEAVES(wide)
#undef LEAVES

/* Non-packed runs: the staged expression itself, element by element. */
void sk_dequant_i8_f32_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                       ptrdiff_t dst_step, size_t n) {
    for (size_t i = 0; i < n; ++i, src += src_step, dst += dst_step)
        *(float *)(void *)dst = sk_dequant_staged(ctx, *(const int8_t *)src);
}

void sk_dequant_i8_bf16_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                        ptrdiff_t dst_step, size_t n) {
    for (size_t i = 0; i < n; ++i, src += src_step, dst += dst_step)
        *(uint16_t *)(void *)dst = sk_bf16_from_f32_bits(sk_f32_bits(sk_dequant_staged(ctx, *(const int8_t *)src)));
}
