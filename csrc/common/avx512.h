/* AVX-512 building blocks shared by the dense x86 leaves (Cast, affine
 * dequant): BF16 narrowing by the specification's integer rule on 512-bit
 * vectors.  Include inside SK_TARGET_BEGIN(AVX512), after <immintrin.h>. */
#ifndef SK_COMMON_AVX512_H
#define SK_COMMON_AVX512_H
#include <immintrin.h>

/* (b + 0x7fff + lsb) with wrap-around, lane by lane: the BF16 word of
 * sk_bf16_from_f32_bits (bits.h) in the upper half.  The kept word's lsb is
 * added under a test mask. */
static inline __attribute__((always_inline)) __m512i sk_avx512_bf16_round(__m512i b) {
    const __mmask16 odd = _mm512_test_epi32_mask(b, _mm512_set1_epi32(0x10000));
    const __m512i r = _mm512_add_epi32(b, _mm512_set1_epi32(0x7fff));
    return _mm512_mask_add_epi32(r, odd, r, _mm512_set1_epi32(1));
}

/* Upper words of a (elements 0-15) then of b (16-31): one two-source word
 * permute (BW). */
static inline __attribute__((always_inline)) __m512i sk_avx512_upper_words(__m512i a, __m512i b) {
    const __m512i odd_words = _mm512_setr_epi32(0x00030001, 0x00070005, 0x000b0009, 0x000f000d, 0x00130011, 0x00170015,
                                                0x001b0019, 0x001f001d, 0x00230021, 0x00270025, 0x002b0029, 0x002f002d,
                                                0x00330031, 0x00370035, 0x003b0039, 0x003f003d);
    return _mm512_permutex2var_epi16(a, odd_words, b);
}

/* 32 BF16 words in element order from two vectors of FP32 results. */
static inline __attribute__((always_inline)) __m512i sk_avx512_bf16_pack(__m512 lo, __m512 hi) {
    return sk_avx512_upper_words(sk_avx512_bf16_round(_mm512_castps_si512(lo)),
                                 sk_avx512_bf16_round(_mm512_castps_si512(hi)));
}
#endif
