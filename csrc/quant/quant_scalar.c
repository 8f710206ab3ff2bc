/* Scalar Quant: the reference route.  Every element takes the exact integer
 * path (the ordered contract with integers only), so this route is
 * independent of the FP environment; its strided leaves serve its own
 * non-packed runs (its periodic leaves are quant_axis.c's). */
#include "quant.h"

static inline __attribute__((always_inline)) void run(const sk_quant_ctx *c, const void *src, int8_t *out, size_t n,
                                                      int input, int mode) {
    sk_quant_exact_span(c, src, out, 0, n, input, mode);
}

/* The leaves (quant_kernels.inc). */
void sk_quant_f32_i8_ne__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}

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

void sk_quant_f32_i8_ne_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                        ptrdiff_t dst_step, size_t n) {
    strided(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                        ptrdiff_t dst_step, size_t n) {
    strided(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                        ptrdiff_t dst_step, size_t n) {
    strided(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                        ptrdiff_t dst_step, size_t n) {
    strided(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                         ptrdiff_t dst_step, size_t n) {
    strided(ctx, src, src_step, dst, dst_step, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                         ptrdiff_t dst_step, size_t n) {
    strided(ctx, src, src_step, dst, dst_step, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                         ptrdiff_t dst_step, size_t n) {
    strided(ctx, src, src_step, dst, dst_step, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                         ptrdiff_t dst_step, size_t n) {
    strided(ctx, src, src_step, dst, dst_step, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                        ptrdiff_t dst_step, size_t n) {
    strided(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                        ptrdiff_t dst_step, size_t n) {
    strided(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                        ptrdiff_t dst_step, size_t n) {
    strided(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                        ptrdiff_t dst_step, size_t n) {
    strided(ctx, src, src_step, dst, dst_step, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
