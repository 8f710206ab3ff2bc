/* x86-64 Quant with AVX2 (and F16C for FP16 inputs), 32 elements per block.
 *
 * The fast path is one binary32 multiply, a conversion to int32 with the
 * mode's rounding, a saturating pack to int16, the zero point and a
 * saturating pack to int8: no clamp and no NaN select.  It is exact to the
 * contract for every lane except two kinds, which one test per block finds:
 *
 * * High: a NaN product or one of magnitude 2^31 or more (infinity
 *   included) converts to the "integer indefinite" 0x80000000, which the
 *   pack saturates to -32768.  A block with an int16 lane of -32768 takes
 *   the exact integer path (this also catches genuine products of -32767.5
 *   or below, which saturate anyway: correct, only slower).
 * * Low, only under flush-to-zero or denormals-are-zero (MXCSR, read once
 *   per execute into the context's `flushes`): a nonzero input below the context's fast_min (quant.h) is
 *   subnormal or has a product below 2^-126 that FTZ/DAZ could flush.  The
 *   test works on the magnitude bits doubled (x + x shifts the sign out)
 *   less one, so that zero wraps to the top: min(2|x| - 1) >= 2 fast_min - 1,
 *   unsigned; BF16 and FP16 are tested on their 16-bit words.  Without
 *   FTZ/DAZ, the multiply (gradual underflow), the conversions and F16C
 *   handle subnormal inputs and products exactly.
 *
 * Every tail and every block of a subnormal multiplier take the exact path
 * too.  Runs that stream (input and output bytes together reach
 * sk_stream_min_bytes(), csrc/common/stream.h) store non-temporally from a
 * 32-byte aligned head. */
#include "quant.h"
#if SK_HAVE_AVX2
SK_TARGET_BEGIN(AVX2)
#include <immintrin.h>

enum { QBLOCK = SK_AVX2_BLOCK, QCHUNK = 32 * QBLOCK, QALIGN = 32, Q_GAP_AFTER = 1 };
typedef __m256i q_vec;
typedef __m256 q_mul;

/* (Written out vector by vector: GCC -O2 keeps small loops over arrays of
 * vectors as loops through memory.) */

/* Eight elements from element j of every other element, as 32-bit lanes:
 * FP32 picked from 128-bit loads whose halves land in the lanes that keep
 * them (as stage_avx2.c does), BF16/FP16 in the low half of each lane (the
 * high half is the gap's word).  Reads end at the gap after element j + 7:
 * Q_GAP_AFTER 1. */
static inline __attribute__((always_inline)) __m256i q_every_other_lanes(const void *src, size_t j, int input) {
    if (input == SK_QUANT_F32) {
        const __m128i *in = (const __m128i *)((const uint32_t *)src + 2 * j);
        const __m256i a =
            _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(in)), _mm_loadu_si128(in + 2), 1);
        const __m256i b =
            _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(in + 1)), _mm_loadu_si128(in + 3), 1);
        return _mm256_castps_si256(
            _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _MM_SHUFFLE(2, 0, 2, 0)));
    }
    return _mm256_loadu_si256((const __m256i *)((const uint16_t *)src + 2 * j));
}

/* The low test's moves (quant_blocks.h): unsigned minima, and whether no
 * lane is below `low` (32-bit lanes: max(lo, low) == lo everywhere;
 * 16-bit: low - lo saturates to 0 everywhere). */
static inline __attribute__((always_inline)) __m256i q_min_u32(__m256i a, __m256i b) { return _mm256_min_epu32(a, b); }
static inline __attribute__((always_inline)) __m256i q_min_u16(__m256i a, __m256i b) { return _mm256_min_epu16(a, b); }
static inline __attribute__((always_inline)) int q_none_below_u32(__m256i lo, uint32_t low) {
    const __m256i bound = _mm256_set1_epi32((int)low);
    return _mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_max_epu32(lo, bound), lo)) == -1;
}
static inline __attribute__((always_inline)) int q_none_below_u16(__m256i lo, uint32_t low) {
    const __m256i short_of = _mm256_subs_epu16(_mm256_set1_epi16((short)low), lo);
    return _mm256_testz_si256(short_of, short_of);
}

/* A product to int32 by the mode: the rounding is explicit for the
 * directed modes (MXCSR plays no part) and the MXCSR's for nearest-even
 * (the execute entry requires round-to-nearest); integral values convert
 * exactly. */
static inline __attribute__((always_inline)) __m256i to_int(__m256 p, int mode) {
    switch (mode) {
    case SK_QUANT_NEAREST_EVEN:
        return _mm256_cvtps_epi32(p);
    case SK_QUANT_TOWARD_ZERO:
        return _mm256_cvttps_epi32(p);
    case SK_QUANT_TOWARD_POSITIVE:
        return _mm256_cvtps_epi32(_mm256_round_ps(p, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
    default:
        return _mm256_cvtps_epi32(_mm256_round_ps(p, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
    }
}

static inline __attribute__((always_inline)) __m256i product(__m256 x, __m256 m, int mode) {
    return to_int(_mm256_mul_ps(x, m), mode);
}

/* Every other element as FP32 lanes in element order: eight FP32 or BF16
 * (shifted up), or sixteen FP16, whose words are packed (the low word of
 * each lane, unsigned, so the saturating pack keeps it) and widened by F16C. */
static inline __attribute__((always_inline)) __m256 every_other_f32(const void *src, size_t j, int input) {
    const __m256i x = q_every_other_lanes(src, j, input);
    return _mm256_castsi256_ps(input == SK_QUANT_BF16 ? _mm256_slli_epi32(x, 16) : x);
}

static inline __attribute__((always_inline)) void every_other_f16(const void *src, size_t j, __m256 *lo, __m256 *hi) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i words =
        _mm256_packus_epi32(_mm256_blend_epi16(q_every_other_lanes(src, j, SK_QUANT_F16), zero, 0xaa),
                            _mm256_blend_epi16(q_every_other_lanes(src, j + 8, SK_QUANT_F16), zero, 0xaa));
    const __m256i ordered = _mm256_permute4x64_epi64(words, _MM_SHUFFLE(3, 1, 2, 0));
    *lo = _mm256_cvtph_ps(_mm256_castsi256_si128(ordered));
    *hi = _mm256_cvtph_ps(_mm256_extracti128_si256(ordered, 1));
}

/* The block's rounded products saturated to int16, 16 lanes in each of
 * *a and *b.  BF16: unpacking works within 128-bit lanes (elements 0-3 and
 * 8-11, then 4-7 and 12-15), and the int32 -> int16 pack undoes exactly
 * that, so *a holds elements 0-15 and *b 16-31 in order.  FP32/FP16 and
 * every other element: *a holds 0-3 8-11 4-7 12-15 and *b the same 16
 * later (see to_bytes). */
static inline __attribute__((always_inline)) void q_products(const void *src, size_t i, int input, __m256 m, int mode,
                                                             __m256i *a, __m256i *b, size_t step) {
    __m256 v0, v1, v2, v3;
    if (step == 2 && input == SK_QUANT_F16) {
        every_other_f16(src, i, &v0, &v1);
        every_other_f16(src, i + 16, &v2, &v3);
    } else if (step == 2) {
        v0 = every_other_f32(src, i, input);
        v1 = every_other_f32(src, i + 8, input);
        v2 = every_other_f32(src, i + 16, input);
        v3 = every_other_f32(src, i + 24, input);
    } else if (input == SK_QUANT_F32) {
        const float *in = (const float *)src + i;
        v0 = _mm256_loadu_ps(in);
        v1 = _mm256_loadu_ps(in + 8);
        v2 = _mm256_loadu_ps(in + 16);
        v3 = _mm256_loadu_ps(in + 24);
    } else if (input == SK_QUANT_BF16) { /* the BF16 word is the upper FP32 half */
        const __m256i *in = (const __m256i *)((const uint16_t *)src + i);
        const __m256i x0 = _mm256_loadu_si256(in), x1 = _mm256_loadu_si256(in + 1);
        const __m256i zero = _mm256_setzero_si256();
        v0 = _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, x0));
        v1 = _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, x0));
        v2 = _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, x1));
        v3 = _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, x1));
    } else { /* F16C widens FP16 exactly */
        const __m128i *in = (const __m128i *)((const uint16_t *)src + i);
        v0 = _mm256_cvtph_ps(_mm_loadu_si128(in));
        v1 = _mm256_cvtph_ps(_mm_loadu_si128(in + 1));
        v2 = _mm256_cvtph_ps(_mm_loadu_si128(in + 2));
        v3 = _mm256_cvtph_ps(_mm_loadu_si128(in + 3));
    }
    *a = _mm256_packs_epi32(product(v0, m, mode), product(v1, m, mode));
    *b = _mm256_packs_epi32(product(v2, m, mode), product(v3, m, mode));
}

/* The high test: no int16 lane at -32768. */
static inline __attribute__((always_inline)) int q_no_indefinite(__m256i a, __m256i b) {
    const __m256i hit = _mm256_cmpeq_epi16(_mm256_min_epi16(a, b), _mm256_set1_epi16(INT16_MIN));
    return _mm256_testz_si256(hit, hit);
}

/* The 32 INT8 results in element order.  The zero point is added to the
 * int16 values: int16 saturation of |r| >= 2^15 keeps r beyond the INT8
 * range after any zero point in [-128, 127], so saturate8(sat16(sat16(r) +
 * zp)) = saturate8(r + zp). */
static inline __attribute__((always_inline)) __m256i to_bytes(__m256i a, __m256i b, __m256i zp, int input,
                                                              size_t step) {
    const __m256i bytes = _mm256_packs_epi16(_mm256_adds_epi16(a, zp), _mm256_adds_epi16(b, zp));
    if (input == SK_QUANT_BF16 && step == 1) /* 8-byte groups: 0-7, 16-23, 8-15, 24-31 */
        return _mm256_permute4x64_epi64(bytes, _MM_SHUFFLE(3, 1, 2, 0));
    /* 4-byte groups: 0-3, 8-11, 16-19, 24-27, then 4-7, 12-15, ... */
    return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

static inline __attribute__((always_inline)) void q_store(int8_t *out, __m256i a, __m256i b, __m256i zp, int input,
                                                          size_t step, int stream) {
    const __m256i v = to_bytes(a, b, zp, input, step);
    if (stream)
        _mm256_stream_si256((__m256i *)out, v);
    else
        _mm256_storeu_si256((__m256i *)out, v);
}

static inline __attribute__((always_inline)) __m256 q_multiplier(const sk_quant_ctx *c) {
    return _mm256_set1_ps(c->multiplier);
}
static inline __attribute__((always_inline)) __m256i q_zero_point(const sk_quant_ctx *c) {
    return _mm256_set1_epi16((short)c->zero_point);
}
static inline __attribute__((always_inline)) __m256i q_all_max(void) { return _mm256_set1_epi16(INT16_MAX); }
static inline __attribute__((always_inline)) __m256i q_min(__m256i a, __m256i b) { return _mm256_min_epi16(a, b); }

#include "quant_blocks.h"

/* The leaves (quant_kernels.inc). */
void sk_quant_f32_i8_ne__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_quant_f32_i8_ne_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
size_t sk_quant_f32_i8_tz_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
size_t sk_quant_f32_i8_tp_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_quant_f32_i8_tn_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_quant_bf16_i8_ne_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
size_t sk_quant_bf16_i8_tz_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
size_t sk_quant_bf16_i8_tp_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_quant_bf16_i8_tn_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_quant_f16_i8_ne_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
size_t sk_quant_f16_i8_tz_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
size_t sk_quant_f16_i8_tp_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_quant_f16_i8_tn_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
SK_TARGET_END
#endif
