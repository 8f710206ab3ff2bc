/* x86-64 Dequant, AVX2: 32 INT8 values per iteration, each group of 8
 * sign-extended straight from memory to INT32 lanes and converted by the
 * form's exact arithmetic (dequant.h says why each is exact); BF16 outputs
 * narrow by the integer rule.  The output is aligned by a scalar head,
 * outputs beyond the cache stream (stream.h), then 8-element groups and the
 * staged scalar expression finish the run.  No FMA: the target adds only
 * AVX2 and -ffp-contract=off holds, so every multiply and subtract rounds
 * on its own as the staged expression does. */
#include "dequant.h"
#if SK_HAVE_AVX2
SK_TARGET_BEGIN(AVX2)
#include "../common/avx2.h"

/* The scalar forms, lane-wise.  A power-of-two scale with an INT8-range
 * zero point computes as SK_DEQUANT_NARROW ((q - zp) * 2^e is exact either way); its
 * BF16 results need no rounding: |q - zp| <= 255 has at most 8 significant
 * bits, which BF16 holds, so the low half of the FP32 result is zero. */

typedef struct params {
    __m256i zero_point, zero_point16;
    __m256 zp, scale, zp_scaled;
} params;

static inline params params_of(const sk_dequant_ctx *c) {
    params p = {_mm256_set1_epi32(c->zero_point), _mm256_set1_epi16((int16_t)c->zero_point), _mm256_set1_ps(c->zp),
                _mm256_set1_ps(c->scale), _mm256_set1_ps(c->zp_scaled)};
    return p;
}

/* The form's arithmetic on eight INT32 lanes: q, or for SK_DEQUANT_NARROW the exact
 * difference q - zp. */
static inline __attribute__((always_inline)) __m256i arith8(const params *p, __m256i q, enum sk_dequant_form f) {
    const __m256 x = _mm256_cvtepi32_ps(q);
    switch (f) {
    case SK_DEQUANT_NARROW:
    case SK_DEQUANT_NARROW_POW2:
        return _mm256_castps_si256(_mm256_mul_ps(x, p->scale));
    case SK_DEQUANT_WIDE_POW2:
        return _mm256_castps_si256(_mm256_sub_ps(_mm256_mul_ps(x, p->scale), p->zp_scaled));
    case SK_DEQUANT_WIDE_UNIT:
        return _mm256_castps_si256(_mm256_sub_ps(x, p->zp));
    default:
        return _mm256_castps_si256(_mm256_mul_ps(_mm256_sub_ps(x, p->zp), p->scale));
    }
}

/* FP32 bits of eight elements, sign-extended straight from memory; every
 * other element (step 2) is the low byte of each 16-bit word, sign-extended
 * by shifts (the reads end at the gap after the eighth element). */
static inline __attribute__((always_inline)) __m256i bits8(const params *p, const int8_t *in, enum sk_dequant_form f,
                                                           size_t step) {
    __m256i q;
    if (step == 2) {
        const __m128i w = _mm_loadu_si128((const __m128i *)in);
        q = _mm256_cvtepi16_epi32(_mm_srai_epi16(_mm_slli_epi16(w, 8), 8));
    } else {
        q = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)in));
    }
    if (f == SK_DEQUANT_NARROW || f == SK_DEQUANT_NARROW_POW2) q = _mm256_sub_epi32(q, p->zero_point);
    return arith8(p, q, f);
}

/* BF16 words of sixteen elements.  Widened to INT16 (the SK_DEQUANT_NARROW forms subtract
 * the zero point there: q - zp lies in [-255, 255]), the even and odd elements
 * become INT32 lanes by multiply-adds with 1 and 0; each 32-bit lane then
 * holds one even and one odd result, whose low and high words interleave
 * back into element order by blends, with no permute. */
static inline __attribute__((always_inline)) __m256i bf16_16(const params *p, const int8_t *in, enum sk_dequant_form f,
                                                             size_t step) {
    __m256i w = step == 2 ? _mm256_srai_epi16(_mm256_slli_epi16(_mm256_loadu_si256((const __m256i *)in), 8), 8)
                          : _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)in));
    if (f == SK_DEQUANT_NARROW || f == SK_DEQUANT_NARROW_POW2) w = _mm256_sub_epi16(w, p->zero_point16);
    const __m256i even = arith8(p, _mm256_madd_epi16(w, _mm256_set1_epi32(1)), f);
    const __m256i odd = arith8(p, _mm256_madd_epi16(w, _mm256_set1_epi32(0x10000)), f);
    const __m256i high = _mm256_blend_epi16(_mm256_srli_epi32(even, 16), odd, 0xAA);
    if (f == SK_DEQUANT_NARROW_POW2) return high; /* exact in BF16 */
    const __m256i low = _mm256_blend_epi16(even, _mm256_slli_epi32(odd, 16), 0xAA);
    return sk_avx2_bf16_round_words(low, high);
}

/* Blocks over the first n elements (for step 2, n is one short of the run,
 * so that every block is followed by another element). */
static inline __attribute__((always_inline)) size_t f32_blocks(const params *p, const int8_t *in, float *out, size_t n,
                                                               enum sk_dequant_form f, size_t step, int stream) {
    size_t i = 0;
    for (; i + SK_AVX2_BLOCK <= n; i += SK_AVX2_BLOCK) {
        sk_avx2_store(out + i, bits8(p, in + i * step, f, step), stream);
        sk_avx2_store(out + i + 8, bits8(p, in + (i + 8) * step, f, step), stream);
        sk_avx2_store(out + i + 16, bits8(p, in + (i + 16) * step, f, step), stream);
        sk_avx2_store(out + i + 24, bits8(p, in + (i + 24) * step, f, step), stream);
    }
    for (; i + 8 <= n; i += 8) sk_avx2_store(out + i, bits8(p, in + i * step, f, step), 0);
    return i;
}

static inline __attribute__((always_inline)) size_t bf16_blocks(const params *p, const int8_t *in, uint16_t *out,
                                                                size_t n, enum sk_dequant_form f, size_t step,
                                                                int stream) {
    size_t i = 0;
    for (; i + SK_AVX2_BLOCK <= n; i += SK_AVX2_BLOCK) {
        const __m256i a = bf16_16(p, in + i * step, f, step), b = bf16_16(p, in + (i + 16) * step, f, step);
        sk_avx2_store(out + i, a, stream);
        sk_avx2_store(out + i + 16, b, stream);
    }
    if (i + 16 <= n) {
        sk_avx2_store(out + i, bf16_16(p, in + i * step, f, step), 0);
        i += 16;
    }
    return i;
}

/* Blocks of either output (`bf16`) over the first n elements. */
static inline __attribute__((always_inline)) size_t blocks(const params *p, const int8_t *in, void *out, size_t n,
                                                           enum sk_dequant_form f, size_t step, int stream, int bf16) {
    return bf16 ? bf16_blocks(p, in, out, n, f, step, stream) : f32_blocks(p, in, out, n, f, step, stream);
}

/* A run of elements `step` apart (1: packed; 2: every other element, of
 * which the blocks are converted and their count returned: the walk stages
 * the rest, kernel.h). */
static inline __attribute__((always_inline)) size_t run(const sk_dequant_ctx *c, const int8_t *in, void *out, size_t n,
                                                        enum sk_dequant_form f, size_t step, int bf16) {
    const params p = params_of(c);
    const size_t item = bf16 ? sizeof(uint16_t) : sizeof(float);
    const size_t reach = step == 1 ? n : n - 1; /* n >= 1 */
    size_t i = sk_avx2_head(out, item, reach);
    sk_dequant_each(c, in, step, out, 0, i, sk_dq_wide, bf16);
    char *to = (char *)out + i * item;
    if (sk_avx2_streams(n, sk_stream_count(c->stream_elements, n), step * sizeof *in, item)) {
        i += blocks(&p, in + i * step, to, reach - i, f, step, 1, bf16);
        _mm_sfence(); /* streamed lines are visible before the call returns */
    } else {
        i += blocks(&p, in + i * step, to, reach - i, f, step, 0, bf16);
    }
    if (step == 2) return i;
    sk_dequant_each(c, in, 1, out, i, n, sk_dq_wide, bf16);
    return n;
}

void sk_dequant_i8_f32_narrow__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_DEQUANT_NARROW, 1, 0);
}
void sk_dequant_i8_f32_wide_pow2__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_DEQUANT_WIDE_POW2, 1, 0);
}
void sk_dequant_i8_f32_wide_unit__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_DEQUANT_WIDE_UNIT, 1, 0);
}
void sk_dequant_i8_f32_wide__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_DEQUANT_WIDE, 1, 0);
}
void sk_dequant_i8_bf16_narrow__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_DEQUANT_NARROW, 1, 1);
}
void sk_dequant_i8_bf16_narrow_pow2__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_DEQUANT_NARROW_POW2, 1, 1);
}
void sk_dequant_i8_bf16_wide_pow2__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_DEQUANT_WIDE_POW2, 1, 1);
}
void sk_dequant_i8_bf16_wide_unit__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_DEQUANT_WIDE_UNIT, 1, 1);
}
void sk_dequant_i8_bf16_wide__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_DEQUANT_WIDE, 1, 1);
}

size_t sk_dequant_i8_f32_narrow_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return run(ctx, src, dst, n, SK_DEQUANT_NARROW, 2, 0);
}
size_t sk_dequant_i8_f32_wide_pow2_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return run(ctx, src, dst, n, SK_DEQUANT_WIDE_POW2, 2, 0);
}
size_t sk_dequant_i8_f32_wide_unit_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return run(ctx, src, dst, n, SK_DEQUANT_WIDE_UNIT, 2, 0);
}
size_t sk_dequant_i8_f32_wide_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return run(ctx, src, dst, n, SK_DEQUANT_WIDE, 2, 0);
}
size_t sk_dequant_i8_bf16_narrow_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return run(ctx, src, dst, n, SK_DEQUANT_NARROW, 2, 1);
}
size_t sk_dequant_i8_bf16_narrow_pow2_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return run(ctx, src, dst, n, SK_DEQUANT_NARROW_POW2, 2, 1);
}
size_t sk_dequant_i8_bf16_wide_pow2_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return run(ctx, src, dst, n, SK_DEQUANT_WIDE_POW2, 2, 1);
}
size_t sk_dequant_i8_bf16_wide_unit_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return run(ctx, src, dst, n, SK_DEQUANT_WIDE_UNIT, 2, 1);
}
size_t sk_dequant_i8_bf16_wide_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return run(ctx, src, dst, n, SK_DEQUANT_WIDE, 2, 1);
}

#define AXIS_ISA avx2
#define AXIS_ISA_AVX2 1
#include "dequant_axis_body.h"
SK_TARGET_END
#endif
