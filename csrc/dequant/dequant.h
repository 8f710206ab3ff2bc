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

/* The context is copied to a local so that the compiler can prove that the
 * output stores never modify the parameters (and keeps them in registers). */
#define SK_DEQUANT_LEAF(name) void name(const void *ctx, const void *src, void *dst, size_t n)
SK_DEQUANT_LEAF(sk_dequant_i8_f32_narrow__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_narrow_pow2__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide_pow2__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide_unit__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_narrow__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_narrow_pow2__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide_pow2__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide_unit__scalar);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide__scalar);
/* Every other element read in place (kernel.h). */
#define SK_DEQUANT_EVERY_OTHER(name) size_t name(const void *ctx, const void *src, void *dst, size_t n)
#if SK_HAVE_AVX2
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_f32_narrow_every_other__avx2);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_f32_wide_pow2_every_other__avx2);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_f32_wide_unit_every_other__avx2);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_f32_wide_every_other__avx2);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_bf16_narrow_every_other__avx2);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_bf16_narrow_pow2_every_other__avx2);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_bf16_wide_pow2_every_other__avx2);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_bf16_wide_unit_every_other__avx2);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_bf16_wide_every_other__avx2);
#endif
#if SK_HAVE_AVX512
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_bf16_table_every_other__avx512);
#endif
#if SK_HAVE_AVX2
SK_DEQUANT_LEAF(sk_dequant_i8_f32_narrow__avx2);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide_pow2__avx2);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide_unit__avx2);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide__avx2);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_narrow__avx2);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_narrow_pow2__avx2);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide_pow2__avx2);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide_unit__avx2);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide__avx2);
#endif
#if SK_HAVE_AVX512
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_table__avx512);
#endif
#if SK_HAVE_SSE2
SK_DEQUANT_LEAF(sk_dequant_i8_f32_narrow__sse2);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_narrow_pow2__sse2);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide_pow2__sse2);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide_unit__sse2);
SK_DEQUANT_LEAF(sk_dequant_i8_f32_wide__sse2);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_narrow__sse2);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_narrow_pow2__sse2);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide_pow2__sse2);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide_unit__sse2);
SK_DEQUANT_LEAF(sk_dequant_i8_bf16_wide__sse2);
#endif
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
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_f32_narrow_every_other__neon);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_f32_narrow_pow2_every_other__neon);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_f32_wide_pow2_every_other__neon);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_f32_wide_unit_every_other__neon);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_f32_wide_every_other__neon);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_bf16_narrow_every_other__neon);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_bf16_narrow_pow2_every_other__neon);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_bf16_wide_pow2_every_other__neon);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_bf16_wide_unit_every_other__neon);
SK_DEQUANT_EVERY_OTHER(sk_dequant_i8_bf16_wide_every_other__neon);
#endif
/* Per-axis plans, channel axis inner (dequant_axis.c): the parameters of
 * table positions [0, period), each the staged expression's binary32 scale
 * and converted zero point; the leaves take position `at` onward. */
typedef struct sk_dequant_table {
    const float *scale;
    const float *zp;
    const sk_dequant_ctx *ctx; /* each channel's (the runs leaves) */
    int64_t channels;
} sk_dequant_table;
#define SK_DEQUANT_AXIS_LEAVES(isa)                                                                         \
    void sk_dequant_i8_f32_axis__##isa(const void *table, size_t at, const void *src, void *dst, size_t n); \
    void sk_dequant_i8_bf16_axis__##isa(const void *table, size_t at, const void *src, void *dst, size_t n);
SK_DEQUANT_AXIS_LEAVES(scalar)
#if SK_HAVE_SSE2
SK_DEQUANT_AXIS_LEAVES(sse2)
SK_DEQUANT_AXIS_LEAVES(avx2)
SK_DEQUANT_AXIS_LEAVES(avx512)
#endif
#if SK_HAVE_NEON
SK_DEQUANT_AXIS_LEAVES(neon)
/* Short packed runs of consecutive channels (kernel.h sk_runs_fn). */
void sk_dequant_i8_f32_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                  size_t count);
void sk_dequant_i8_bf16_runs__neon(const void *table, size_t channel, const void *src, void *dst, size_t n,
                                   size_t count);
#endif

void sk_dequant_i8_f32_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                       ptrdiff_t dst_step, size_t n);
void sk_dequant_i8_bf16_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                        ptrdiff_t dst_step, size_t n);

#endif
