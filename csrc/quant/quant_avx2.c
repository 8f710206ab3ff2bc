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
#include "quant_avx2_lanes.h"

enum { QBLOCK = SK_AVX2_BLOCK, QCHUNK = 32 * QBLOCK, QALIGN = 32, Q_GAP_AFTER = 1 };
typedef __m256i q_vec;
typedef __m256 q_mul;

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

/* The 32 INT8 results in element order.  The zero point is added to the
 * int16 values: int16 saturation of |r| >= 2^15 keeps r beyond the INT8
 * range after any zero point in [-128, 127], so saturate8(sat16(sat16(r) +
 * zp)) = saturate8(r + zp). */
static inline __attribute__((always_inline)) __m256i to_bytes(__m256i a, __m256i b, __m256i zp, int input,
                                                              size_t step) {
    return q_in_order(_mm256_packs_epi16(_mm256_adds_epi16(a, zp), _mm256_adds_epi16(b, zp)), input, step);
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
