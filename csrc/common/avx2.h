/* AVX2 building blocks shared by the dense x86 leaves: BF16 narrowing by the
 * specification's integer rule, 32-byte stores that may bypass the cache,
 * and the output-alignment head.  Include after #pragma GCC target("avx2"). */
#ifndef SK_COMMON_AVX2_H
#define SK_COMMON_AVX2_H
#include <immintrin.h>
#include <stdint.h>
#include "stream.h"
#include "kernel.h" /* SK_AVX2_BLOCK */

/* FP32 bits -> BF16 in the low half of each lane: (b + 0x7fff + lsb) >> 16,
 * wrapping, exactly sk_bf16_from_f32_bits lane by lane.  The kept word's
 * lsb is added as minus an all-ones compare mask, which keeps the loops off
 * the two shift pipes. */
static inline __m256i sk_avx2_bf16_round(__m256i b) {
    const __m256i lsb = _mm256_set1_epi32(0x10000);
    const __m256i odd = _mm256_cmpeq_epi32(_mm256_and_si256(b, lsb), lsb);
    return _mm256_srli_epi32(_mm256_sub_epi32(_mm256_add_epi32(b, _mm256_set1_epi32(0x7fff)), odd), 16);
}

/* The specification's BF16 rule (b + 0x7fff + lsb) >> 16, wrapping, on
 * sixteen elements whose FP32 bits are given as their low words and their
 * high words: the result is the high word plus the carry out of
 * low + 0x7fff + (high & 1).  That carry is bit 15 of the rounding average
 * (low + (0x7ffe | (high & 1)) + 1) >> 1, which has no 16-bit overflow;
 * subtracting its all-ones mask adds it, wrapping 0xffff to 0 as the 32-bit
 * rule does. */
static inline __m256i sk_avx2_bf16_round_words(__m256i low, __m256i high) {
    const __m256i bias = _mm256_or_si256(_mm256_and_si256(high, _mm256_set1_epi16(1)), _mm256_set1_epi16(0x7ffe));
    const __m256i carry = _mm256_cmpgt_epi16(_mm256_setzero_si256(), _mm256_avg_epu16(low, bias));
    return _mm256_sub_epi16(high, carry);
}

/* Sixteen BF16 words in element order from two vectors of FP32 bits.  The
 * rounded lanes are at most 0xffff, so the signed-to-unsigned saturating
 * pack is exact; it interleaves 128-bit halves, which one permute undoes. */
static inline __m256i sk_avx2_bf16_pack(__m256i lo, __m256i hi) {
    const __m256i packed = _mm256_packus_epi32(sk_avx2_bf16_round(lo), sk_avx2_bf16_round(hi));
    return _mm256_permute4x64_epi64(packed, _MM_SHUFFLE(3, 1, 2, 0));
}

/* A 32-byte store; `stream` (a constant where inlined) bypasses the cache
 * and then needs a 32-byte aligned address. */
static inline __attribute__((always_inline)) void sk_avx2_store(void *p, __m256i v, int stream) {
    if (stream)
        _mm256_stream_si256((__m256i *)p, v);
    else
        _mm256_storeu_si256((__m256i *)p, v);
}

/* Elements to convert one by one before `dst` is 32-byte aligned (at most
 * n): the main loop's stores then never split a cache line.  Outputs are
 * bound aligned to their element size, so the count is whole. */
static inline size_t sk_avx2_head(const void *dst, size_t item, size_t n) {
    const size_t head = ((size_t)0 - (uintptr_t)dst) % 32 / item;
    return head < n ? head : n;
}

/* Whether a run of n elements, `in` bytes read and `out` written per
 * element, should stream (stream.h) when `counted` elements' traffic
 * decides (n itself, or the whole walk a run is a slice of); runs too
 * short for one main-loop iteration never ask. */
static inline int sk_avx2_streams(size_t n, size_t counted, size_t in, size_t out) {
    return n >= SK_AVX2_BLOCK && sk_stream_run(counted, in, out);
}

#endif
