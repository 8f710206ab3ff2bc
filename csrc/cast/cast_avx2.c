/* x86-64 Cast, AVX2: 32 elements per iteration, BF16 narrowing by the
 * integer rule (bits.h) on 8-lane vectors; the output is aligned by a scalar
 * head, outputs beyond the cache stream (stream.h), and a 16-element block
 * and the scalar rule finish the run.  Selected only where the CPU has AVX2. */
#include "cast.h"
#if SK_HAVE_AVX2
SK_TARGET_BEGIN(AVX2)
#include "../common/avx2.h"
#include "../common/bits.h"

static inline __m256i load8(const uint32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }

/* Sixteen BF16 words in element order from sixteen FP32 words.  Where the
 * input is 32-byte aligned, two whole-vector loads and a permute after the
 * pack (it works within 128-bit lanes); elsewhere 32-byte loads would split
 * every other cache line (large NumPy arrays sit 16 bytes past a page), so
 * the 128-bit halves are loaded into the lanes that need them instead. */
static inline __attribute__((always_inline)) __m256i narrow16(const uint32_t *p, int aligned) {
    if (aligned) return sk_avx2_bf16_pack(load8(p), load8(p + 8));
    const __m128i *q = (const __m128i *)p;
    const __m256i a = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(q)), _mm_loadu_si128(q + 2), 1);
    const __m256i b =
        _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(q + 1)), _mm_loadu_si128(q + 3), 1);
    return _mm256_packus_epi32(sk_avx2_bf16_round(a), sk_avx2_bf16_round(b));
}

/* The same from every other FP32 word (32 words, through the gap after
 * the sixteenth element): the 128-bit halves are loaded into the lanes
 * where one in-lane shuffle keeps their even words in element order. */
static inline __attribute__((always_inline)) __m256i even8(const __m128i *q) {
    const __m256i a = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(q)), _mm_loadu_si128(q + 2), 1);
    const __m256i b =
        _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(q + 1)), _mm_loadu_si128(q + 3), 1);
    return _mm256_castps_si256(
        _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _MM_SHUFFLE(2, 0, 2, 0)));
}

static inline __attribute__((always_inline)) __m256i narrow16_every_other(const uint32_t *p) {
    const __m128i *q = (const __m128i *)p;
    return sk_avx2_bf16_pack(even8(q), even8(q + 4));
}

/* `aligned` 1 or 0: a packed input (aligned or not); 2: every other word. */
static inline __attribute__((always_inline)) __m256i narrow16_at(const uint32_t *in, size_t i, int aligned) {
    return aligned == 2 ? narrow16_every_other(in + 2 * i) : narrow16(in + i, aligned);
}

/* BF16 -> FP32: zero-extend each word and shift it into the upper half.
 * Every other word (step 2) is already the low half of a 32-bit lane: the
 * shift alone (the reads end at the gap after the eighth element). */
static inline __attribute__((always_inline)) __m256i widen8(const uint16_t *in, size_t i, size_t step) {
    if (step == 2) return _mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)(in + 2 * i)), 16);
    return _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(in + i))), 16);
}

/* Element k of the input to element j of the output by the scalar rule
 * (`widen`: BF16 -> FP32, else FP32 -> BF16). */
static inline void rule(const void *src, size_t k, void *dst, size_t j, int widen) {
    if (widen)
        ((uint32_t *)dst)[j] = sk_f32_bits_from_bf16(((const uint16_t *)src)[k]);
    else
        ((uint16_t *)dst)[j] = sk_bf16_from_f32_bits(((const uint32_t *)src)[k]);
}

/* The 32 output bytes from element i on: 16 BF16 words (`mode` as
 * narrow16_at's `aligned`) or 8 FP32 words (`mode`: the input step). */
static inline __attribute__((always_inline)) __m256i vector_at(const void *in, size_t i, int widen, int mode) {
    return widen ? widen8(in, i, (size_t)mode) : narrow16_at(in, i, mode);
}

/* Whole blocks over the first n elements, then whole vectors (every other
 * word: n one short of the run, so that every block is followed by another
 * element). */
static inline __attribute__((always_inline)) size_t blocks_of(const void *in, void *out, size_t n, int stream,
                                                              int widen, int mode) {
    const size_t lanes = widen ? 8 : 16, size = 32 / lanes;
    char *to = out;
    size_t i = 0;
    for (; i + SK_AVX2_BLOCK <= n; i += SK_AVX2_BLOCK) {
#pragma GCC unroll 4
        for (size_t k = 0; k < SK_AVX2_BLOCK; k += lanes)
            sk_avx2_store(to + (i + k) * size, vector_at(in, i + k, widen, mode), stream);
    }
    for (; i + lanes <= n; i += lanes) sk_avx2_store(to + i * size, vector_at(in, i, widen, mode), 0);
    return i;
}

/* The blocks; FP32 -> BF16 packed takes the loads of its input's
 * alignment. */
static inline __attribute__((always_inline)) size_t blocks(const void *src, void *dst, size_t n, int stream,
                                                           size_t step, int widen) {
    if (widen || step == 2) return blocks_of(src, dst, n, stream, widen, (int)step);
    return (uintptr_t)src % 32 == 0 ? blocks_of(src, dst, n, stream, 0, 1) : blocks_of(src, dst, n, stream, 0, 0);
}

/* A run of input elements `step` apart: the scalar rule up to 32-byte
 * output alignment, the blocks, the scalar rule for the tail.  Every other
 * element (step 2, kernel.h) converts only the blocks while another element
 * follows and returns their count: the walk stages the rest. */
static inline __attribute__((always_inline)) size_t run(const void *src, void *dst, size_t n, size_t step, int widen) {
    const size_t in = widen ? sizeof(uint16_t) : sizeof(uint32_t), out = widen ? sizeof(uint32_t) : sizeof(uint16_t);
    const size_t reach = step == 1 ? n : n - 1; /* n >= 1 */
    size_t i = sk_avx2_head(dst, out, reach);
    for (size_t j = 0; j < i; ++j) rule(src, step * j, dst, j, widen);
    const char *from = (const char *)src + step * in * i;
    char *to = (char *)dst + out * i;
    if (sk_avx2_streams(n, n, step * in, out)) {
        i += blocks(from, to, reach - i, 1, step, widen);
        _mm_sfence(); /* streamed lines are visible before the call returns */
    } else {
        i += blocks(from, to, reach - i, 0, step, widen);
    }
    if (step == 2) return i;
    for (; i < n; ++i) rule(src, i, dst, i, widen);
    return n;
}

void sk_cast_f32_bf16__avx2(const void *ctx, const void *src, void *dst, size_t n) { run(src, dst, n, 1, 0); }

size_t sk_cast_f32_bf16_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return run(src, dst, n, 2, 0);
}

void sk_cast_bf16_f32__avx2(const void *ctx, const void *src, void *dst, size_t n) { run(src, dst, n, 1, 1); }

size_t sk_cast_bf16_f32_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return run(src, dst, n, 2, 1);
}
SK_TARGET_END
#endif
