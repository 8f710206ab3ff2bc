/* x86-64 Cast, AVX2: 32 elements per iteration, BF16 narrowing by the
 * integer rule (bits.h) on 8-lane vectors; the output is aligned by a scalar
 * head, outputs beyond the cache stream (stream.h), and a 16-element block
 * and the scalar rule finish the run.  Selected only where the CPU has AVX2. */
#include "cast.h"
#if SK_HAVE_AVX2
#pragma GCC target("avx2")
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

/* Blocks over the first n elements (every other word: one short of the
 * run, so that every block is followed by another element). */
static inline __attribute__((always_inline)) size_t f32_bf16_blocks(const uint32_t *in, uint16_t *out, size_t n,
                                                                    int stream, int aligned) {
    size_t i = 0;
    for (; i + SK_AVX2_BLOCK <= n; i += SK_AVX2_BLOCK) {
        sk_avx2_store(out + i, narrow16_at(in, i, aligned), stream);
        sk_avx2_store(out + i + 16, narrow16_at(in, i + 16, aligned), stream);
    }
    if (i + 16 <= n) {
        sk_avx2_store(out + i, narrow16_at(in, i, aligned), 0);
        i += 16;
    }
    return i;
}

void sk_cast_f32_bf16__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint32_t *in = src;
    uint16_t *out = dst;
    size_t i = sk_avx2_head(out, sizeof *out, n);
    for (size_t j = 0; j < i; ++j) out[j] = sk_bf16_from_f32_bits(in[j]);
    const int aligned = (uintptr_t)(in + i) % 32 == 0;
    if (sk_avx2_streams(n, n, sizeof *in, sizeof *out)) {
        i += aligned ? f32_bf16_blocks(in + i, out + i, n - i, 1, 1) : f32_bf16_blocks(in + i, out + i, n - i, 1, 0);
        _mm_sfence(); /* streamed lines are visible before the call returns */
    } else {
        i += aligned ? f32_bf16_blocks(in + i, out + i, n - i, 0, 1) : f32_bf16_blocks(in + i, out + i, n - i, 0, 0);
    }
    for (; i < n; ++i) out[i] = sk_bf16_from_f32_bits(in[i]);
}

/* Every other element (kernel.h): the blocks; the walk stages the rest. */
size_t sk_cast_f32_bf16_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint32_t *in = src;
    uint16_t *out = dst;
    const size_t reach = n - 1; /* n >= 1 */
    size_t i = sk_avx2_head(out, sizeof *out, reach);
    for (size_t j = 0; j < i; ++j) out[j] = sk_bf16_from_f32_bits(in[2 * j]);
    if (sk_avx2_streams(n, n, 2 * sizeof *in, sizeof *out)) {
        i += f32_bf16_blocks(in + 2 * i, out + i, reach - i, 1, 2);
        _mm_sfence();
    } else {
        i += f32_bf16_blocks(in + 2 * i, out + i, reach - i, 0, 2);
    }
    return i;
}

/* BF16 -> FP32: zero-extend each word and shift it into the upper half.
 * Every other word (step 2) is already the low half of a 32-bit lane: the
 * shift alone (the reads end at the gap after the eighth element). */
static inline __attribute__((always_inline)) __m256i widen8(const uint16_t *in, size_t i, size_t step) {
    if (step == 2) return _mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)(in + 2 * i)), 16);
    return _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(in + i))), 16);
}

static inline __attribute__((always_inline)) size_t bf16_f32_blocks(const uint16_t *in, uint32_t *out, size_t n,
                                                                    int stream, size_t step) {
    size_t i = 0;
    for (; i + SK_AVX2_BLOCK <= n; i += SK_AVX2_BLOCK) {
        sk_avx2_store(out + i, widen8(in, i, step), stream);
        sk_avx2_store(out + i + 8, widen8(in, i + 8, step), stream);
        sk_avx2_store(out + i + 16, widen8(in, i + 16, step), stream);
        sk_avx2_store(out + i + 24, widen8(in, i + 24, step), stream);
    }
    for (; i + 8 <= n; i += 8) sk_avx2_store(out + i, widen8(in, i, step), 0);
    return i;
}

void sk_cast_bf16_f32__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint16_t *in = src;
    uint32_t *out = dst;
    size_t i = sk_avx2_head(out, sizeof *out, n);
    for (size_t j = 0; j < i; ++j) out[j] = sk_f32_bits_from_bf16(in[j]);
    if (sk_avx2_streams(n, n, sizeof *in, sizeof *out)) {
        i += bf16_f32_blocks(in + i, out + i, n - i, 1, 1);
        _mm_sfence();
    } else {
        i += bf16_f32_blocks(in + i, out + i, n - i, 0, 1);
    }
    for (; i < n; ++i) out[i] = sk_f32_bits_from_bf16(in[i]);
}

/* Every other element (kernel.h): the blocks; the walk stages the rest. */
size_t sk_cast_bf16_f32_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    const uint16_t *in = src;
    uint32_t *out = dst;
    const size_t reach = n - 1; /* n >= 1 */
    size_t i = sk_avx2_head(out, sizeof *out, reach);
    for (size_t j = 0; j < i; ++j) out[j] = sk_f32_bits_from_bf16(in[2 * j]);
    if (sk_avx2_streams(n, n, 2 * sizeof *in, sizeof *out)) {
        i += bf16_f32_blocks(in + 2 * i, out + i, reach - i, 1, 2);
        _mm_sfence();
    } else {
        i += bf16_f32_blocks(in + 2 * i, out + i, reach - i, 0, 2);
    }
    return i;
}
#endif
