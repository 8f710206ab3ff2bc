/* The products of the AVX2 Quant leaves (quant_avx2.c) and the affine
 * quant leaves of that route (../affine/affine_quant_avx2.c), written
 * once: a block of 32 elements loaded as FP32 lanes, multiplied
 * (nearest-even, the FP state execute admitted) and converted to int32 by
 * the mode, as int32 (q_products32) or saturated to int16 (q_products);
 * q_in_order puts a block's packed bytes in element order.  NaN and
 * products of magnitude 2^31 or more convert to INT32_MIN (the integer
 * indefinite), which saturates to the int16 lane -32768 (q_no_indefinite:
 * quant_avx2.c's high test).  A file includes this inside its AVX2 target
 * region. */
#ifndef SK_QUANT_AVX2_LANES_H
#define SK_QUANT_AVX2_LANES_H
#include <immintrin.h>
#include "quant.h"

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

/* The block's rounded products as int32, eight lanes in each r[k], in the
 * order the int32 -> int16 packs of (r[0], r[1]) and (r[2], r[3]) expect
 * (q_products).  BF16: unpacking works within 128-bit lanes (elements 0-3
 * and 8-11, then 4-7 and 12-15), and the pack undoes exactly that, so *a
 * holds elements 0-15 and *b 16-31 in order.  FP32/FP16 and every other
 * element: *a holds 0-3 8-11 4-7 12-15 and *b the same 16 later
 * (q_in_order). */
static inline __attribute__((always_inline)) void q_products32(const void *src, size_t i, int input, __m256 m, int mode,
                                                               __m256i r[4], size_t step) {
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
    r[0] = product(v0, m, mode);
    r[1] = product(v1, m, mode);
    r[2] = product(v2, m, mode);
    r[3] = product(v3, m, mode);
}

static inline __attribute__((always_inline)) void q_products(const void *src, size_t i, int input, __m256 m, int mode,
                                                             __m256i *a, __m256i *b, size_t step) {
    __m256i r[4];
    q_products32(src, i, input, m, mode, r, step);
    *a = _mm256_packs_epi32(r[0], r[1]);
    *b = _mm256_packs_epi32(r[2], r[3]);
}

/* The high test: no int16 lane at -32768. */
static inline __attribute__((always_inline)) int q_no_indefinite(__m256i a, __m256i b) {
    const __m256i hit = _mm256_cmpeq_epi16(_mm256_min_epi16(a, b), _mm256_set1_epi16(INT16_MIN));
    return _mm256_testz_si256(hit, hit);
}

/* A block's 32 bytes packed from q_products' int16 lanes (packs_epi16 or
 * packus_epi16 of (*a, *b)) in element order. */
static inline __attribute__((always_inline)) __m256i q_in_order(__m256i bytes, int input, size_t step) {
    if (input == SK_QUANT_BF16 && step == 1) /* 8-byte groups: 0-7, 16-23, 8-15, 24-31 */
        return _mm256_permute4x64_epi64(bytes, _MM_SHUFFLE(3, 1, 2, 0));
    /* 4-byte groups: 0-3, 8-11, 16-19, 24-27, then 4-7, 12-15, ... */
    return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

#endif
