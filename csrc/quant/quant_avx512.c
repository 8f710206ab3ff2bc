/* x86-64 Quant with AVX-512 (F, BW, VBMI; F16C for FP16 inputs), 64
 * elements per block.  The exactness scheme, and the block drivers that
 * carry it out (quant_blocks.h), are those of quant_avx2.c, whose comment
 * gives the reasoning: a fast path of one binary32 multiply, a conversion
 * to int32 by the mode, saturating packs to int16, the zero point, a
 * saturating pack to int8; a block with an int16 lane of -32768 (NaN or
 * huge products convert to the indefinite integer) takes the exact path;
 * under FTZ/DAZ each block is first tested against the context's fast_min
 * (quant.h).  What AVX-512 changes: the conversion carries its rounding
 * (embedded rounding, exceptions suppressed), so the directed modes need no
 * separate round, and the tests are mask compares.  Tails, repaired blocks
 * and subnormal multipliers take the exact path; streamed outputs start at
 * a 64-byte aligned head. */
#include "quant.h"
#if SK_HAVE_AVX512
SK_TARGET_BEGIN(AVX512)
#include <immintrin.h>

enum { QBLOCK = SK_QUANT_AVX512_BLOCK, QCHUNK = 16 * QBLOCK, QALIGN = 64, Q_GAP_AFTER = 1 };
typedef __m512i q_vec;
typedef __m512 q_mul;

/* Sixteen elements from element j of every other element, as 32-bit
 * lanes: FP32 picked from two loads, BF16/FP16 in the low half of each
 * lane (the high half is the gap's word).  The loads read the gap after
 * element j + 15, so blocks are taken only while another element follows
 * (Q_GAP_AFTER 1): loads masked to leave that gap out are slower from
 * memory (docs/PERF.md). */
static inline __attribute__((always_inline)) __m512i q_every_other_lanes(const void *src, size_t j, int input) {
    if (input == SK_QUANT_F32) {
        const uint32_t *in = (const uint32_t *)src + 2 * j;
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        return _mm512_permutex2var_epi32(_mm512_loadu_si512(in), even, _mm512_loadu_si512(in + 16));
    }
    return _mm512_loadu_si512((const uint16_t *)src + 2 * j);
}

/* The low test's moves (quant_blocks.h): unsigned minima, and whether no
 * lane is below `low`. */
static inline __attribute__((always_inline)) __m512i q_min_u32(__m512i a, __m512i b) { return _mm512_min_epu32(a, b); }
static inline __attribute__((always_inline)) __m512i q_min_u16(__m512i a, __m512i b) { return _mm512_min_epu16(a, b); }
static inline __attribute__((always_inline)) int q_none_below_u32(__m512i lo, uint32_t low) {
    return _mm512_cmplt_epu32_mask(lo, _mm512_set1_epi32((int)low)) == 0;
}
static inline __attribute__((always_inline)) int q_none_below_u16(__m512i lo, uint32_t low) {
    return _mm512_cmplt_epu16_mask(lo, _mm512_set1_epi16((short)low)) == 0;
}

/* A product to int32 by the mode, with the rounding in the instruction
 * (MXCSR's rounding plays no part; integral values convert exactly). */
static inline __attribute__((always_inline)) __m512i product(__m512 x, __m512 m, int mode) {
    const __m512 p = _mm512_mul_ps(x, m);
    switch (mode) {
    case SK_QUANT_NEAREST_EVEN:
        return _mm512_cvt_roundps_epi32(p, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    case SK_QUANT_TOWARD_ZERO:
        return _mm512_cvtt_roundps_epi32(p, _MM_FROUND_NO_EXC);
    case SK_QUANT_TOWARD_POSITIVE:
        return _mm512_cvt_roundps_epi32(p, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
    default:
        return _mm512_cvt_roundps_epi32(p, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    }
}

/* How a block's inputs become FP32 lanes: FP32 loaded as they are; FP16
 * widened exactly by a 512-bit vcvtph2ps (docs/PERF.md); BF16 split, each 32-bit pair of words into its even
 * element (shifted up) and its odd one (masked), with no shuffle, the BF16
 * word being the upper FP32 half.  Every other element comes as sixteen
 * 32-bit lanes in element order, as FP32 does. */
enum widen { WIDE_F32, WIDE_CVT, WIDE_PAIRS };

static inline enum widen widen_of(int input, size_t step) {
    return input == SK_QUANT_F32 || step == 2 ? WIDE_F32 : input == SK_QUANT_BF16 ? WIDE_PAIRS : WIDE_CVT;
}

/* Sixteen elements of every other element as FP32 lanes: BF16 shifted up,
 * FP16 narrowed to its words (vpmovdw) and widened exactly. */
static inline __attribute__((always_inline)) __m512 every_other_f32(const void *src, size_t j, int input) {
    const __m512i x = q_every_other_lanes(src, j, input);
    if (input == SK_QUANT_F32) return _mm512_castsi512_ps(x);
    if (input == SK_QUANT_BF16) return _mm512_castsi512_ps(_mm512_slli_epi32(x, 16));
    return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(x));
}

static inline __attribute__((always_inline)) __m512 f16_widen16(const __m128i *in) {
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)in));
}

/* The block's rounded products saturated to int16, 32 lanes in each of *a
 * and *b, in the order the packs leave them (to_bytes restores element
 * order). */
static inline __attribute__((always_inline)) void q_products(const void *src, size_t i, int input, __m512 m, int mode,
                                                             __m512i *a, __m512i *b, size_t step) {
    const enum widen w = widen_of(input, step);
    __m512 v0, v1, v2, v3;
    if (step == 2) {
        v0 = every_other_f32(src, i, input);
        v1 = every_other_f32(src, i + 16, input);
        v2 = every_other_f32(src, i + 32, input);
        v3 = every_other_f32(src, i + 48, input);
    } else if (w == WIDE_F32) {
        const float *in = (const float *)src + i;
        v0 = _mm512_loadu_ps(in);
        v1 = _mm512_loadu_ps(in + 16);
        v2 = _mm512_loadu_ps(in + 32);
        v3 = _mm512_loadu_ps(in + 48);
    } else if (w == WIDE_CVT) {
        const __m128i *in = (const __m128i *)((const uint16_t *)src + i);
        v0 = f16_widen16(in);
        v1 = f16_widen16(in + 2);
        v2 = f16_widen16(in + 4);
        v3 = f16_widen16(in + 6);
    } else {
        const uint16_t *in = (const uint16_t *)src + i;
        const __m512i x0 = _mm512_loadu_si512(in), x1 = _mm512_loadu_si512(in + 32);
        const __m512i high = _mm512_set1_epi32((int)0xffff0000u);
        v0 = _mm512_castsi512_ps(_mm512_slli_epi32(x0, 16));
        v1 = _mm512_castsi512_ps(_mm512_and_si512(x0, high));
        v2 = _mm512_castsi512_ps(_mm512_slli_epi32(x1, 16));
        v3 = _mm512_castsi512_ps(_mm512_and_si512(x1, high));
    }
    *a = _mm512_packs_epi32(product(v0, m, mode), product(v1, m, mode));
    *b = _mm512_packs_epi32(product(v2, m, mode), product(v3, m, mode));
}

/* The high test: no int16 lane at -32768. */
static inline __attribute__((always_inline)) int q_no_indefinite(__m512i a, __m512i b) {
    return _mm512_cmpeq_epi16_mask(_mm512_min_epi16(a, b), _mm512_set1_epi16(INT16_MIN)) == 0;
}

/* Byte k of the packed block holds element PAIRS_ORDER[k] (the inverse is
 * applied): after the packs, 128-bit lane j holds elements 8j + {0, 2, 4,
 * 6, 1, 3, 5, 7} of the first 32, then the same of the last 32. */
static const uint8_t pairs_order[64] = {0,  4,  1,  5,  2,  6,  3,  7,  16, 20, 17, 21, 18, 22, 19, 23,
                                        32, 36, 33, 37, 34, 38, 35, 39, 48, 52, 49, 53, 50, 54, 51, 55,
                                        8,  12, 9,  13, 10, 14, 11, 15, 24, 28, 25, 29, 26, 30, 27, 31,
                                        40, 44, 41, 45, 42, 46, 43, 47, 56, 60, 57, 61, 58, 62, 59, 63};

/* The 64 INT8 results in element order (the zero point added at int16, as
 * in quant_avx2.c).  Loaded whole inputs leave 128-bit lane k holding
 * elements 4k, 16+4k, 32+4k, 48+4k (4-byte groups); split pairs are
 * reordered byte by byte (vpermb, one shuffle like the dword permute). */
static inline __attribute__((always_inline)) __m512i to_bytes(__m512i a, __m512i b, __m512i zp, enum widen w) {
    const __m512i bytes = _mm512_packs_epi16(_mm512_adds_epi16(a, zp), _mm512_adds_epi16(b, zp));
    if (w == WIDE_PAIRS) return _mm512_permutexvar_epi8(_mm512_loadu_si512(pairs_order), bytes);
    return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), bytes);
}

static inline __attribute__((always_inline)) void q_store(int8_t *out, __m512i a, __m512i b, __m512i zp, int input,
                                                          size_t step, int stream) {
    const __m512i v = to_bytes(a, b, zp, widen_of(input, step));
    if (stream)
        _mm512_stream_si512((void *)out, v);
    else
        _mm512_storeu_si512(out, v);
}

static inline __attribute__((always_inline)) __m512 q_multiplier(const sk_quant_ctx *c) {
    return _mm512_set1_ps(c->multiplier);
}
static inline __attribute__((always_inline)) __m512i q_zero_point(const sk_quant_ctx *c) {
    return _mm512_set1_epi16((short)c->zero_point);
}
static inline __attribute__((always_inline)) __m512i q_all_max(void) { return _mm512_set1_epi16(INT16_MAX); }
static inline __attribute__((always_inline)) __m512i q_min(__m512i a, __m512i b) { return _mm512_min_epi16(a, b); }

#include "quant_blocks.h"

/* The leaves (quant_kernels.inc). */
void sk_quant_f32_i8_ne__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    q_run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_quant_f32_i8_ne_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
size_t sk_quant_f32_i8_tz_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
size_t sk_quant_f32_i8_tp_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_quant_f32_i8_tn_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_quant_bf16_i8_ne_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
size_t sk_quant_bf16_i8_tz_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
size_t sk_quant_bf16_i8_tp_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_quant_bf16_i8_tn_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_quant_f16_i8_ne_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
size_t sk_quant_f16_i8_tz_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
size_t sk_quant_f16_i8_tp_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_quant_f16_i8_tn_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return q_every_other(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
SK_TARGET_END
#endif
