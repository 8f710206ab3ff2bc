/* x86-64 range leaves, AVX2: the NEON leaves' scheme (range_neon.c) on
 * 8- and 16-lane vectors, 32 FP32 or 64 16-bit elements per iteration:
 * blocks of SK_RANGE_CHECK elements folded raw by signed and unsigned
 * maxima, folded again without non-finite lanes when the maxima show one.
 * Selected only where the CPU has AVX2. */
#include "range.h"
#if SK_HAVE_AVX2
#pragma GCC target("avx2")
#include <immintrin.h>

enum { ITER32 = 32, ITER16 = 64 };

static inline __attribute__((always_inline)) void run32(const uint32_t *p, size_t iters, __m256i *s, __m256i *u,
                                                        int masked) {
    const __m256i magnitude = _mm256_set1_epi32(0x7FFFFFFF), inf = _mm256_set1_epi32((int32_t)SK_RANGE_INF_F32);
    for (size_t it = 0; it < iters; ++it, p += ITER32)
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            __m256i b = _mm256_loadu_si256((const __m256i *)(p + 8 * k));
            if (masked) b = _mm256_and_si256(b, _mm256_cmpgt_epi32(inf, _mm256_and_si256(b, magnitude)));
            s[k] = _mm256_max_epi32(s[k], b);
            u[k] = _mm256_max_epu32(u[k], b);
        }
}

static inline __attribute__((always_inline)) void run16(const uint16_t *p, size_t iters, __m256i *s, __m256i *u,
                                                        int masked, uint16_t inf_bits) {
    const __m256i magnitude = _mm256_set1_epi16(0x7FFF), inf = _mm256_set1_epi16((int16_t)inf_bits);
    for (size_t it = 0; it < iters; ++it, p += ITER16)
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            __m256i b = _mm256_loadu_si256((const __m256i *)(p + 16 * k));
            if (masked) b = _mm256_and_si256(b, _mm256_cmpgt_epi16(inf, _mm256_and_si256(b, magnitude)));
            s[k] = _mm256_max_epi16(s[k], b);
            u[k] = _mm256_max_epu16(u[k], b);
        }
}

/* Whether any lane of s (signed) is above `top` or of u (unsigned) at or
 * above `bottom`: u's maximum with `bottom` is u itself there. */
static inline int nonfinite32(__m256i s, __m256i u, __m256i top, __m256i bottom) {
    const __m256i bad = _mm256_or_si256(_mm256_cmpgt_epi32(s, top), _mm256_cmpeq_epi32(_mm256_max_epu32(u, bottom), u));
    return !_mm256_testz_si256(bad, bad);
}
static inline int nonfinite16(__m256i s, __m256i u, __m256i top, __m256i bottom) {
    const __m256i bad = _mm256_or_si256(_mm256_cmpgt_epi16(s, top), _mm256_cmpeq_epi16(_mm256_max_epu16(u, bottom), u));
    return !_mm256_testz_si256(bad, bad);
}

static inline __attribute__((always_inline)) void fold32(const sk_range_acc *acc, size_t at, const uint32_t *in,
                                                         size_t n) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i top = _mm256_set1_epi32((int32_t)SK_RANGE_INF_F32 - 1);
    const __m256i bottom = _mm256_set1_epi32((int32_t)(0x80000000u | SK_RANGE_INF_F32));
    __m256i S[4] = {zero, zero, zero, zero}, U[4] = {zero, zero, zero, zero};
    size_t i = 0, len;
    const size_t whole = n / ITER32 * ITER32; /* blocks of whole iterations, the last one shorter */
    for (; i < whole; i += len) {
        len = whole - i < SK_RANGE_CHECK ? whole - i : SK_RANGE_CHECK;
        __m256i s[4] = {zero, zero, zero, zero}, u[4] = {zero, zero, zero, zero};
        run32(in + i, len / ITER32, s, u, 0);
        const __m256i sm = _mm256_max_epi32(_mm256_max_epi32(s[0], s[1]), _mm256_max_epi32(s[2], s[3]));
        const __m256i um = _mm256_max_epu32(_mm256_max_epu32(u[0], u[1]), _mm256_max_epu32(u[2], u[3]));
        if (nonfinite32(sm, um, top, bottom)) {
            run32(in + i, len / ITER32, S, U, 1); /* the block again, without its non-finite values */
        } else {
            S[0] = _mm256_max_epi32(S[0], sm);
            U[0] = _mm256_max_epu32(U[0], um);
        }
    }
    /* The lanes narrowed to 4 signed and 4 unsigned maxima (each lane holds
     * an element's kept bits or 0, so folding the narrowed ones is exact). */
    const __m256i s = _mm256_max_epi32(_mm256_max_epi32(S[0], S[1]), _mm256_max_epi32(S[2], S[3]));
    const __m256i u = _mm256_max_epu32(_mm256_max_epu32(U[0], U[1]), _mm256_max_epu32(U[2], U[3]));
    uint32_t lanes[8];
    _mm_storeu_si128((__m128i *)lanes, _mm_max_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1)));
    _mm_storeu_si128((__m128i *)(lanes + 4), _mm_max_epu32(_mm256_castsi256_si128(u), _mm256_extracti128_si256(u, 1)));
    sk_range_fold32(acc, at, lanes, 8);
    sk_range_fold32(acc, at, in + i, n - i);
}

static inline __attribute__((always_inline)) void fold16(const sk_range_acc *acc, size_t at, const uint16_t *in,
                                                         size_t n, uint16_t inf) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i top = _mm256_set1_epi16((int16_t)(inf - 1));
    const __m256i bottom = _mm256_set1_epi16((int16_t)(0x8000u | inf));
    __m256i S[4] = {zero, zero, zero, zero}, U[4] = {zero, zero, zero, zero};
    size_t i = 0, len;
    const size_t whole = n / ITER16 * ITER16; /* blocks of whole iterations, the last one shorter */
    for (; i < whole; i += len) {
        len = whole - i < SK_RANGE_CHECK ? whole - i : SK_RANGE_CHECK;
        __m256i s[4] = {zero, zero, zero, zero}, u[4] = {zero, zero, zero, zero};
        run16(in + i, len / ITER16, s, u, 0, inf);
        const __m256i sm = _mm256_max_epi16(_mm256_max_epi16(s[0], s[1]), _mm256_max_epi16(s[2], s[3]));
        const __m256i um = _mm256_max_epu16(_mm256_max_epu16(u[0], u[1]), _mm256_max_epu16(u[2], u[3]));
        if (nonfinite16(sm, um, top, bottom)) {
            run16(in + i, len / ITER16, S, U, 1, inf);
        } else {
            S[0] = _mm256_max_epi16(S[0], sm);
            U[0] = _mm256_max_epu16(U[0], um);
        }
    }
    const __m256i s = _mm256_max_epi16(_mm256_max_epi16(S[0], S[1]), _mm256_max_epi16(S[2], S[3]));
    const __m256i u = _mm256_max_epu16(_mm256_max_epu16(U[0], U[1]), _mm256_max_epu16(U[2], U[3]));
    uint16_t lanes[16];
    _mm_storeu_si128((__m128i *)lanes, _mm_max_epi16(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1)));
    _mm_storeu_si128((__m128i *)(lanes + 8), _mm_max_epu16(_mm256_castsi256_si128(u), _mm256_extracti128_si256(u, 1)));
    sk_range_fold16(acc, at, lanes, 16, inf);
    sk_range_fold16(acc, at, in + i, n - i, inf);
}

void sk_range_f32__avx2(void *acc, size_t at, const void *src, size_t n) { fold32(acc, at, src, n); }
void sk_range_b16__avx2(void *acc, size_t at, const void *src, size_t n) { fold16(acc, at, src, n, SK_RANGE_INF_BF16); }
void sk_range_f16__avx2(void *acc, size_t at, const void *src, size_t n) { fold16(acc, at, src, n, SK_RANGE_INF_F16); }
void sk_range_f32_periodic__avx2(void *acc, size_t at, const void *src, size_t n) {
    sk_range_periodic32(acc, at, src, n);
}
void sk_range_b16_periodic__avx2(void *acc, size_t at, const void *src, size_t n) {
    sk_range_periodic16(acc, at, src, n, SK_RANGE_INF_BF16);
}
void sk_range_f16_periodic__avx2(void *acc, size_t at, const void *src, size_t n) {
    sk_range_periodic16(acc, at, src, n, SK_RANGE_INF_F16);
}
#endif
