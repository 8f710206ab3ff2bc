/* Dequant internals: prepared parameters, the arithmetic forms' element
 * functions, and the leaves of every route (declared from the registry,
 * dequant_kernels.inc). */
#ifndef SK_DEQUANT_H
#define SK_DEQUANT_H
#include <string.h>
#include "../common/kernel.h"
#include "../common/axis.h"
#include "../common/bits.h"

/* Parameters of one execution, copied from the plan (sk_dequant_prepare
 * computes the FP values in the default FP state). */
typedef struct sk_dequant_ctx {
    float scale;
    float zp;        /* (float)zero_point, rounded nearest-even */
    float zp_scaled; /* zp * scale, exact for the WIDE_POW2 form */
    int32_t zero_point;
    int32_t exponent;
    const uint8_t (*bf16_table)[256]; /* the plan's (avx512 route) */
    /* Elements whose traffic decides whether a run streams its output
     * (stream.h, sk_stream_count): the whole walk's for a per-axis plan's
     * runs, else 0. */
    size_t stream_elements;
} sk_dequant_ctx;

static inline uint32_t sk_f32_bits(float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* The staged expression of the specification, the contract written as code:
 * zp = (float)zero_point; d = (float)q - zp; r = d * scale. */
static inline float sk_dequant_staged(const sk_dequant_ctx *c, int8_t q) { return ((float)q - c->zp) * c->scale; }

/* Element functions of the portable forms; each returns the bits of the
 * staged expression. */
typedef float (*sk_dq_element_fn)(const sk_dequant_ctx *c, int8_t q);

/* INT8-range zero point: q - zp is an exact integer in [-255, 255], so its
 * conversion equals (float)q - (float)zp; one rounding remains, the product. */
static inline float sk_dq_narrow(const sk_dequant_ctx *c, int8_t q) {
    return (float)((int32_t)q - c->zero_point) * c->scale;
}

/* INT8-range zero point, scale 2^e with 0 <= e <= 4: (q - zp) * 2^e is an
 * integer below 2^13, exact in FP32, so the multiply disappears. */
static inline float sk_dq_narrow_pow2(const sk_dequant_ctx *c, int8_t q) {
    return (float)(((int32_t)q - c->zero_point) * (1 << c->exponent));
}

/* |zp| <= 2^24 - 128 and scale 2^e, |e| <= 4: zp, q - zp and their scaled
 * values are exact and normal, so q*s - zp*s is the staged result. */
static inline float sk_dq_wide_pow2(const sk_dequant_ctx *c, int8_t q) { return (float)q * c->scale - c->zp_scaled; }

/* Other zero points keep the separately rounded conversion and subtraction;
 * the multiply by 1.0f is exact and omitted. */
static inline float sk_dq_wide_unit(const sk_dequant_ctx *c, int8_t q) { return (float)q - c->zp; }

static inline float sk_dq_wide(const sk_dequant_ctx *c, int8_t q) { return sk_dequant_staged(c, q); }

/* Outputs [i, n) one at a time by an element function, input element k at
 * in[k * step]: the scalar route, and the vector leaves' heads and tails. */
static inline __attribute__((always_inline)) void sk_dequant_each(const sk_dequant_ctx *c, const int8_t *in,
                                                                  size_t step, void *dst, size_t i, size_t n,
                                                                  sk_dq_element_fn f, int bf16) {
    if (bf16)
        for (; i < n; ++i) ((uint16_t *)dst)[i] = sk_bf16_from_f32_bits(sk_f32_bits(f(c, in[i * step])));
    else
        for (; i < n; ++i) ((float *)dst)[i] = f(c, in[i * step]);
}

/* Per-axis plans, channel axis inner: the parameters of table positions
 * [0, period), each the staged expression's binary32 scale and converted
 * zero point; the periodic leaves take position `at` onward. */
typedef struct sk_dequant_table {
    const float *scale;
    const float *zp;
    const sk_dequant_ctx *ctx; /* each channel's (the runs leaves) */
    int64_t channels;
    /* Every zero point is in the INT8 range: NEON's runs leaves take the
     * narrow form without a test per run. */
    int32_t narrow;
} sk_dequant_table;

/* Elements [i, n) of a periodic leaf one at a time: the staged expression
 * with the table's values (the scalar route and the vector leaves' tails);
 * `per` 1: element i takes position i, 0: every element position 0 (the
 * runs leaves' one entry per run). */
static inline void sk_dequant_axis_tail(const float *scale, const float *zp, size_t per, const int8_t *in, void *dst,
                                        size_t i, size_t n, int bf16) {
    for (; i < n; ++i) {
        const float r = ((float)in[i] - zp[i * per]) * scale[i * per];
        if (bf16)
            ((uint16_t *)dst)[i] = sk_bf16_from_f32_bits(sk_f32_bits(r));
        else
            ((float *)dst)[i] = r;
    }
}

/* The kernel table's index of an output and a form: its one formula
 * (sk_dequant_variant; the registry's lines need it as a constant). */
#define SK_DEQUANT_VARIANT(output, form) ((output)*SK_DEQUANT_FORM_COUNT + (form))

#define SK_LEAF SK_LEAF_DECLARE
#include "dequant_kernels.inc"
#undef SK_LEAF

/* The kernel table, [route][variant] (dequant.c). */
extern const sk_kernel sk_dequant_kernels[SK_ROUTE_COUNT][SK_DEQUANT_VARIANTS];

#endif
