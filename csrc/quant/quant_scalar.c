/* Scalar Quant: the reference route.  Every element takes the exact integer
 * path (the ordered contract with integers only), so this route is
 * independent of the FP environment; the strided leaves serve every route's
 * non-packed inner runs. */
#include "quant.h"

static inline __attribute__((always_inline)) void run(const sk_quant_ctx *c, const void *src, int8_t *out, size_t n,
                                                      int input, int mode) {
    sk_quant_exact_span(c, src, out, 0, n, input, mode);
}
SK_QUANT_ENTRIES(scalar, run)

/* Strided runs: the exact path, element by element. */
static inline __attribute__((always_inline)) void strided(const void *ctx, const char *src, ptrdiff_t src_step,
                                                          char *dst, ptrdiff_t dst_step, size_t n, int input,
                                                          int mode) {
    for (size_t i = 0; i < n; ++i, src += src_step, dst += dst_step) {
        const uint32_t word =
            input == SK_QUANT_F32 ? *(const uint32_t *)(const void *)src : *(const uint16_t *)(const void *)src;
        const sk_q_decoded d = input == SK_QUANT_F32    ? sk_q_decode_f32(word)
                               : input == SK_QUANT_BF16 ? sk_q_decode_bf16((uint16_t)word)
                                                        : sk_q_decode_f16((uint16_t)word);
        *(int8_t *)dst = sk_quant_exact(ctx, d, mode);
    }
}

#define STRIDED(in_name, input, mode_name, mode)                                                               \
    void sk_quant_##in_name##_i8_##mode_name##_strided__scalar(const void *ctx, const char *src, ptrdiff_t ss, \
                                                               char *dst, ptrdiff_t ds, size_t n) {            \
        strided(ctx, src, ss, dst, ds, n, input, mode);                                                        \
    }
#define STRIDED4(in_name, input)                          \
    STRIDED(in_name, input, ne, SK_QUANT_NEAREST_EVEN)    \
    STRIDED(in_name, input, tz, SK_QUANT_TOWARD_ZERO)     \
    STRIDED(in_name, input, tp, SK_QUANT_TOWARD_POSITIVE) \
    STRIDED(in_name, input, tn, SK_QUANT_TOWARD_NEGATIVE)
STRIDED4(f32, SK_QUANT_F32)
STRIDED4(bf16, SK_QUANT_BF16)
STRIDED4(f16, SK_QUANT_F16)
