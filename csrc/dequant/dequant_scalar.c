/* Portable Dequant.  Each leaf instantiates one loop shape (16-element blocks
 * that GCC vectorises at -O2, then a scalar tail) with the element function
 * of its form; every form returns the bits of the staged expression. */
#include "dequant.h"

typedef float (*element_fn)(const sk_dequant_ctx *c, int8_t q);

/* INT8-range zero point: q - zp is an exact integer in [-255, 255], so its
 * conversion equals (float)q - (float)zp; one rounding remains, the product. */
static inline float narrow(const sk_dequant_ctx *c, int8_t q) {
    return (float)((int32_t)q - c->zero_point) * c->scale;
}

/* INT8-range zero point, scale 2^e with 0 <= e <= 4: (q - zp) * 2^e is an
 * integer below 2^13, exact in FP32, so the multiply disappears. */
static inline float shift(const sk_dequant_ctx *c, int8_t q) {
    return (float)(((int32_t)q - c->zero_point) * (1 << c->exponent));
}

/* |zp| <= 2^24 - 128 and scale 2^e, |e| <= 4: zp, q - zp and their scaled
 * values are exact and normal, so q*s - zp*s is the staged result. */
static inline float wide_pow2(const sk_dequant_ctx *c, int8_t q) {
    return (float)q * c->scale - c->zp_scaled;
}

/* Other zero points keep the separately rounded conversion and subtraction;
 * the multiply by 1.0f is exact and omitted. */
static inline float wide_unit(const sk_dequant_ctx *c, int8_t q) {
    return (float)q - c->zp;
}

static inline float wide(const sk_dequant_ctx *c, int8_t q) {
    return sk_dequant_staged(c, q);
}

/* The context is copied to a local so that the compiler can prove that the
 * output stores never modify the parameters (and keeps them in registers). */
static inline __attribute__((always_inline)) void run_f32(const sk_dequant_ctx *ctx,
                                                           const int8_t *restrict in,
                                                           float *restrict out, size_t n,
                                                           element_fn f) {
    const sk_dequant_ctx local = *ctx, *c = &local;
    size_t i = 0;
    for (; i + SK_BLOCK <= n; i += SK_BLOCK)
        for (size_t j = 0; j < SK_BLOCK; ++j) out[i + j] = f(c, in[i + j]);
    for (; i < n; ++i) out[i] = f(c, in[i]);
}

static inline __attribute__((always_inline)) void run_bf16(const sk_dequant_ctx *ctx,
                                                            const int8_t *restrict in,
                                                            uint16_t *restrict out, size_t n,
                                                            element_fn f) {
    const sk_dequant_ctx local = *ctx, *c = &local;
    size_t i = 0;
    for (; i + SK_BLOCK <= n; i += SK_BLOCK)
        for (size_t j = 0; j < SK_BLOCK; ++j)
            out[i + j] = sk_bf16_from_f32_bits(sk_f32_bits(f(c, in[i + j])));
    for (; i < n; ++i) out[i] = sk_bf16_from_f32_bits(sk_f32_bits(f(c, in[i])));
}

#define LEAVES(form)                                                              \
    SK_DEQUANT_LEAF(sk_dequant_i8_f32_##form##__scalar) { run_f32(ctx, src, dst, n, form); } \
    SK_DEQUANT_LEAF(sk_dequant_i8_bf16_##form##__scalar) { run_bf16(ctx, src, dst, n, form); }
LEAVES(narrow)
LEAVES(shift)
LEAVES(wide_pow2)
LEAVES(wide_unit)
LEAVES(wide)
#undef LEAVES

/* Non-packed runs: the staged expression itself, element by element. */
void sk_dequant_i8_f32_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step,
                                       char *dst, ptrdiff_t dst_step, size_t n) {
    for (size_t i = 0; i < n; ++i, src += src_step, dst += dst_step)
        *(float *)(void *)dst = sk_dequant_staged(ctx, *(const int8_t *)src);
}

void sk_dequant_i8_bf16_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step,
                                        char *dst, ptrdiff_t dst_step, size_t n) {
    for (size_t i = 0; i < n; ++i, src += src_step, dst += dst_step)
        *(uint16_t *)(void *)dst =
            sk_bf16_from_f32_bits(sk_f32_bits(sk_dequant_staged(ctx, *(const int8_t *)src)));
}
