/* x86-64 range leaves, AVX-512 (F, BW): the NEON leaves' scheme
 * (range_neon.c) on 16- and 32-lane vectors, 64 FP32 or 128 16-bit
 * elements per iteration, the non-finite test and the masked fold under
 * compare masks.  Selected only where the CPU has AVX-512. */
#include "range.h"
#if SK_HAVE_AVX512
#pragma GCC target("avx2,avx512f,avx512bw,avx512vl,avx512dq")
#include <immintrin.h>

enum { ITER32 = 64, ITER16 = 128 };

static inline __attribute__((always_inline)) void run32(const uint32_t *p, size_t iters, __m512i *s, __m512i *u,
                                                        int masked) {
    const __m512i magnitude = _mm512_set1_epi32(0x7FFFFFFF), inf = _mm512_set1_epi32((int32_t)SK_RANGE_INF_F32);
    for (size_t it = 0; it < iters; ++it, p += ITER32)
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            __m512i b = _mm512_loadu_si512((const void *)(p + 16 * k));
            if (masked) b = _mm512_maskz_mov_epi32(_mm512_cmplt_epi32_mask(_mm512_and_si512(b, magnitude), inf), b);
            s[k] = _mm512_max_epi32(s[k], b);
            u[k] = _mm512_max_epu32(u[k], b);
        }
}

static inline __attribute__((always_inline)) void run16(const uint16_t *p, size_t iters, __m512i *s, __m512i *u,
                                                        int masked, uint16_t inf_bits) {
    const __m512i magnitude = _mm512_set1_epi16(0x7FFF), inf = _mm512_set1_epi16((int16_t)inf_bits);
    for (size_t it = 0; it < iters; ++it, p += ITER16)
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            __m512i b = _mm512_loadu_si512((const void *)(p + 32 * k));
            if (masked) b = _mm512_maskz_mov_epi16(_mm512_cmplt_epi16_mask(_mm512_and_si512(b, magnitude), inf), b);
            s[k] = _mm512_max_epi16(s[k], b);
            u[k] = _mm512_max_epu16(u[k], b);
        }
}

static inline __attribute__((always_inline)) void fold32(const sk_range_acc *acc, size_t at, const uint32_t *in,
                                                         size_t n) {
    const __m512i zero = _mm512_setzero_si512();
    const __m512i top = _mm512_set1_epi32((int32_t)SK_RANGE_INF_F32 - 1);
    const __m512i bottom = _mm512_set1_epi32((int32_t)(0x80000000u | (SK_RANGE_INF_F32 - 1)));
    __m512i S[4] = {zero, zero, zero, zero}, U[4] = {zero, zero, zero, zero};
    size_t i = 0, len;
    const size_t whole = n / ITER32 * ITER32; /* blocks of whole iterations, the last one shorter */
    for (; i < whole; i += len) {
        len = whole - i < SK_RANGE_CHECK ? whole - i : SK_RANGE_CHECK;
        __m512i s[4] = {zero, zero, zero, zero}, u[4] = {zero, zero, zero, zero};
        run32(in + i, len / ITER32, s, u, 0);
        const __m512i sm = _mm512_max_epi32(_mm512_max_epi32(s[0], s[1]), _mm512_max_epi32(s[2], s[3]));
        const __m512i um = _mm512_max_epu32(_mm512_max_epu32(u[0], u[1]), _mm512_max_epu32(u[2], u[3]));
        if (_mm512_cmpgt_epi32_mask(sm, top) | _mm512_cmpgt_epu32_mask(um, bottom)) {
            run32(in + i, len / ITER32, S, U, 1); /* the block again, without its non-finite values */
        } else {
            S[0] = _mm512_max_epi32(S[0], sm);
            U[0] = _mm512_max_epu32(U[0], um);
        }
    }
    /* The lanes narrowed to 4 signed and 4 unsigned maxima (each lane holds
     * an element's kept bits or 0, so folding the narrowed ones is exact). */
    const __m512i s = _mm512_max_epi32(_mm512_max_epi32(S[0], S[1]), _mm512_max_epi32(S[2], S[3]));
    const __m512i u = _mm512_max_epu32(_mm512_max_epu32(U[0], U[1]), _mm512_max_epu32(U[2], U[3]));
    const __m256i s8 = _mm256_max_epi32(_mm512_castsi512_si256(s), _mm512_extracti64x4_epi64(s, 1));
    const __m256i u8 = _mm256_max_epu32(_mm512_castsi512_si256(u), _mm512_extracti64x4_epi64(u, 1));
    uint32_t lanes[8];
    _mm_storeu_si128((__m128i *)lanes, _mm_max_epi32(_mm256_castsi256_si128(s8), _mm256_extracti128_si256(s8, 1)));
    _mm_storeu_si128((__m128i *)(lanes + 4),
                     _mm_max_epu32(_mm256_castsi256_si128(u8), _mm256_extracti128_si256(u8, 1)));
    sk_range_fold32(acc, at, lanes, 8);
    sk_range_fold32(acc, at, in + i, n - i);
}

static inline __attribute__((always_inline)) void fold16(const sk_range_acc *acc, size_t at, const uint16_t *in,
                                                         size_t n, uint16_t inf) {
    const __m512i zero = _mm512_setzero_si512();
    const __m512i top = _mm512_set1_epi16((int16_t)(inf - 1));
    const __m512i bottom = _mm512_set1_epi16((int16_t)(0x8000u | (inf - 1u)));
    __m512i S[4] = {zero, zero, zero, zero}, U[4] = {zero, zero, zero, zero};
    size_t i = 0, len;
    const size_t whole = n / ITER16 * ITER16; /* blocks of whole iterations, the last one shorter */
    for (; i < whole; i += len) {
        len = whole - i < SK_RANGE_CHECK ? whole - i : SK_RANGE_CHECK;
        __m512i s[4] = {zero, zero, zero, zero}, u[4] = {zero, zero, zero, zero};
        run16(in + i, len / ITER16, s, u, 0, inf);
        const __m512i sm = _mm512_max_epi16(_mm512_max_epi16(s[0], s[1]), _mm512_max_epi16(s[2], s[3]));
        const __m512i um = _mm512_max_epu16(_mm512_max_epu16(u[0], u[1]), _mm512_max_epu16(u[2], u[3]));
        if (_mm512_cmpgt_epi16_mask(sm, top) | _mm512_cmpgt_epu16_mask(um, bottom)) {
            run16(in + i, len / ITER16, S, U, 1, inf);
        } else {
            S[0] = _mm512_max_epi16(S[0], sm);
            U[0] = _mm512_max_epu16(U[0], um);
        }
    }
    const __m512i s = _mm512_max_epi16(_mm512_max_epi16(S[0], S[1]), _mm512_max_epi16(S[2], S[3]));
    const __m512i u = _mm512_max_epu16(_mm512_max_epu16(U[0], U[1]), _mm512_max_epu16(U[2], U[3]));
    const __m256i s16 = _mm256_max_epi16(_mm512_castsi512_si256(s), _mm512_extracti64x4_epi64(s, 1));
    const __m256i u16 = _mm256_max_epu16(_mm512_castsi512_si256(u), _mm512_extracti64x4_epi64(u, 1));
    uint16_t lanes[16];
    _mm_storeu_si128((__m128i *)lanes, _mm_max_epi16(_mm256_castsi256_si128(s16), _mm256_extracti128_si256(s16, 1)));
    _mm_storeu_si128((__m128i *)(lanes + 8),
                     _mm_max_epu16(_mm256_castsi256_si128(u16), _mm256_extracti128_si256(u16, 1)));
    sk_range_fold16(acc, at, lanes, 16, inf);
    sk_range_fold16(acc, at, in + i, n - i, inf);
}

void sk_range_f32__avx512(void *acc, size_t at, const void *src, size_t n) { fold32(acc, at, src, n); }
void sk_range_b16__avx512(void *acc, size_t at, const void *src, size_t n) {
    fold16(acc, at, src, n, SK_RANGE_INF_BF16);
}
void sk_range_f16__avx512(void *acc, size_t at, const void *src, size_t n) {
    fold16(acc, at, src, n, SK_RANGE_INF_F16);
}
void sk_range_f32_periodic__avx512(void *acc, size_t at, const void *src, size_t n) {
    sk_range_periodic32(acc, at, src, n);
}
void sk_range_b16_periodic__avx512(void *acc, size_t at, const void *src, size_t n) {
    sk_range_periodic16(acc, at, src, n, SK_RANGE_INF_BF16);
}
void sk_range_f16_periodic__avx512(void *acc, size_t at, const void *src, size_t n) {
    sk_range_periodic16(acc, at, src, n, SK_RANGE_INF_F16);
}
#endif
