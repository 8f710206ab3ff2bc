/* Dequant internals: prepared parameters and the leaves of every route. */
#ifndef SK_DEQUANT_H
#define SK_DEQUANT_H
#include <string.h>
#include "../common/kernel.h"
#include "../common/bits.h"

/* Parameters of one execution.  The FP values are made from the plan's
 * integers inside sk_dequant_execute, after the FP-environment check. */
typedef struct sk_dequant_ctx {
    float scale;
    float zp;            /* (float)zero_point, rounded nearest-even */
    float zp_scaled;     /* zp * scale, exact for the WIDE_POW2 form */
    int32_t zero_point;
    int32_t exponent;
} sk_dequant_ctx;

static inline uint32_t sk_f32_bits(float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* The staged expression of the specification, the contract written as code:
 * zp = (float)zero_point; d = (float)q - zp; r = d * scale. */
static inline float sk_dequant_staged(const sk_dequant_ctx *c, int8_t q) {
    return ((float)q - c->zp) * c->scale;
}

#define SK_DEQUANT_LEAF(name) void name(const void *ctx, const void *src, void *dst, size_t n)
SK_DEQUANT_LEAF(sk_dequant_i8_f32_narrow__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_shift__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide_pow2__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide_unit__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_narrow__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_shift__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide_pow2__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide_unit__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide__scalar);
#if SK_HAVE_NEON
SK_DEQUANT_LEAF(sk_dequant_i8_f32_narrow__neon);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_narrow_pow2__neon);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide_pow2__neon);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide_unit__neon);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide__neon);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_narrow__neon);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_narrow_pow2__neon);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide_pow2__neon);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide_unit__neon);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide__neon);
#endif
void sk_dequant_i8_f32_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step,
                                       char *dst, ptrdiff_t dst_step, size_t n);
void sk_dequant_i8_bf16_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step,
                                        char *dst, ptrdiff_t dst_step, size_t n);

#endif
