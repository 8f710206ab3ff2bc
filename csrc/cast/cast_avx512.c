/* x86-64 Cast, AVX-512 (F and BW): 64 elements per iteration.  FP32 -> BF16
 * rounds each 32-bit lane by the integer rule (bits.h) - the kept word's
 * lsb added under a test mask - and one two-source word permute picks the
 * 32 upper words of two vectors in element order (every other FP32 element
 * stays on the AVX2 leaf).  BF16 -> FP32 is one zero-masked word permute
 * per 16 elements, each word moved into the upper half of its lane.  The
 * head that aligns the output to 64 bytes (no store splits a line, and
 * streamed ones may bypass the cache) and the tail run the same blocks
 * under masks, which neither read nor write outside the run; the main
 * loops load without masks (masked loads are slow from memory on Zen 5).
 * Faster than the AVX2 leaves where used (docs/PERF.md). */
#include "cast.h"
#if SK_HAVE_AVX512
SK_TARGET_BEGIN(AVX512)
#include <immintrin.h>
#include "../common/stream.h"

enum { BLOCK = 64 };

/* (b + 0x7fff + lsb) with wrap-around, lane by lane: the BF16 word of
 * sk_bf16_from_f32_bits in the upper half. */
static inline __attribute__((always_inline)) __m512i rounded(__m512i b) {
    const __mmask16 odd = _mm512_test_epi32_mask(b, _mm512_set1_epi32(0x10000));
    const __m512i r = _mm512_add_epi32(b, _mm512_set1_epi32(0x7fff));
    return _mm512_mask_add_epi32(r, odd, r, _mm512_set1_epi32(1));
}

/* Upper words of a (elements 0-15) then of b (16-31). */
static inline __attribute__((always_inline)) __m512i upper_words(__m512i a, __m512i b) {
    const __m512i odd_words = _mm512_setr_epi32(0x00030001, 0x00070005, 0x000b0009, 0x000f000d, 0x00130011, 0x00170015,
                                                0x001b0019, 0x001f001d, 0x00230021, 0x00270025, 0x002b0029, 0x002f002d,
                                                0x00330031, 0x00370035, 0x003b0039, 0x003f003d);
    return _mm512_permutex2var_epi16(a, odd_words, b);
}

static inline __attribute__((always_inline)) void store(void *p, __m512i v, int stream) {
    if (stream)
        _mm512_stream_si512(p, v);
    else
        _mm512_storeu_si512(p, v);
}

/* Elements before `out` is 64-byte aligned (at most n). */
static inline size_t head_of(const void *out, size_t item, size_t n) {
    const size_t head = ((size_t)0 - (uintptr_t)out) % 64 / item;
    return head < n ? head : n;
}

static inline int streams(size_t n, size_t in, size_t out) { return n >= BLOCK && sk_stream_run(n, in, out); }

/* ---- FP32 -> BF16 ---------------------------------------------------- */

static inline __mmask32 first_lanes(size_t r) { return r >= 32 ? 0xffffffffu : (__mmask32)((1u << r) - 1); }

/* 32 BF16 words from the input words [0, 32), of which the first r exist
 * (`full`: all 32, loaded without masks). */
static inline __attribute__((always_inline)) __m512i narrow32(const uint32_t *in, size_t r, int full) {
    if (full) return upper_words(rounded(_mm512_loadu_si512(in)), rounded(_mm512_loadu_si512(in + 16)));
    const __mmask32 lanes = first_lanes(r);
    return upper_words(rounded(_mm512_maskz_loadu_epi32((__mmask16)lanes, in)),
                       rounded(_mm512_maskz_loadu_epi32((__mmask16)(lanes >> 16), in + 16)));
}

/* The run: a masked head up to 64-byte output alignment, whole blocks,
 * masked tails. */
static inline __attribute__((always_inline)) void f32_bf16_run(const uint32_t *in, uint16_t *out, size_t n,
                                                               int stream) {
    size_t i = head_of(out, sizeof *out, n);
    if (i) _mm512_mask_storeu_epi16(out, first_lanes(i), narrow32(in, i, 0));
    for (; i + BLOCK <= n; i += BLOCK) {
        store(out + i, narrow32(in + i, 32, 1), stream);
        store(out + i + 32, narrow32(in + i + 32, 32, 1), stream);
    }
    for (; i < n; i += 32) {
        const size_t r = n - i < 32 ? n - i : 32;
        _mm512_mask_storeu_epi16(out + i, first_lanes(r), narrow32(in + i, r, 0));
    }
    if (stream) _mm_sfence(); /* streamed lines are visible before the call returns */
}

void sk_cast_f32_bf16__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    if (streams(n, sizeof(uint32_t), sizeof(uint16_t)))
        f32_bf16_run(src, dst, n, 1);
    else
        f32_bf16_run(src, dst, n, 0);
}

/* ---- BF16 -> FP32 ---------------------------------------------------- */

/* 16 FP32 words from the 16 BF16 words of x starting at word `first` (0 or
 * 16): each word into the upper half of its lane, the lower half zero. */
static inline __attribute__((always_inline)) __m512i widen16(__m512i x, int first) {
    const __m512i upper =
        first ? _mm512_setr_epi32(0x00100000, 0x00110000, 0x00120000, 0x00130000, 0x00140000, 0x00150000, 0x00160000,
                                  0x00170000, 0x00180000, 0x00190000, 0x001a0000, 0x001b0000, 0x001c0000, 0x001d0000,
                                  0x001e0000, 0x001f0000)
              : _mm512_setr_epi32(0x00000000, 0x00010000, 0x00020000, 0x00030000, 0x00040000, 0x00050000, 0x00060000,
                                  0x00070000, 0x00080000, 0x00090000, 0x000a0000, 0x000b0000, 0x000c0000, 0x000d0000,
                                  0x000e0000, 0x000f0000);
    return _mm512_maskz_permutexvar_epi16(0xaaaaaaaau, upper, x);
}

/* The 64-bit mask of the words that r <= 32 elements at step 2 occupy up
 * to the last one: element k is word 2k, and the gap after the last element
 * is not read (kernel.h). */
static inline uint64_t pair_words(size_t r) { return r ? ((uint64_t)1 << (2 * r - 1)) - 1 : 0; }

/* Output elements [0, r), r <= 32, from input words at step 1 or 2 (every
 * other word is the low half of a 32-bit lane: one shift); `full`: all 32,
 * loaded without masks (at step 2 another element follows, so the last gap
 * may be read). */
static inline __attribute__((always_inline)) void widen32(const uint16_t *in, uint32_t *out, size_t step, size_t r,
                                                          int full, int stream) {
    __m512i a, b;
    if (step == 1) {
        const __m512i x = full ? _mm512_loadu_si512(in) : _mm512_maskz_loadu_epi16(first_lanes(r), in);
        a = widen16(x, 0);
        b = widen16(x, 1);
    } else {
        const uint64_t words = full ? ~(uint64_t)0 : pair_words(r);
        a = _mm512_slli_epi32(_mm512_maskz_loadu_epi16((__mmask32)words, in), 16);
        b = _mm512_slli_epi32(_mm512_maskz_loadu_epi16((__mmask32)(words >> 32), in + 32), 16);
    }
    if (full) {
        store(out, a, stream);
        store(out + 16, b, stream);
    } else {
        const __mmask32 lanes = first_lanes(r);
        _mm512_mask_storeu_epi32(out, (__mmask16)lanes, a);
        _mm512_mask_storeu_epi32(out + 16, (__mmask16)(lanes >> 16), b);
    }
}

static inline __attribute__((always_inline)) void bf16_f32_run(const uint16_t *in, uint32_t *out, size_t n, size_t step,
                                                               int stream) {
    size_t i = head_of(out, sizeof *out, n);
    if (i) widen32(in, out, step, i, 0, 0);
    for (; i + BLOCK + (step - 1) <= n; i += BLOCK) {
        widen32(in + step * i, out + i, step, 32, 1, stream);
        widen32(in + step * (i + 32), out + i + 32, step, 32, 1, stream);
    }
    for (; i < n; i += 32) widen32(in + step * i, out + i, step, n - i < 32 ? n - i : 32, 0, 0);
    if (stream) _mm_sfence();
}

void sk_cast_bf16_f32__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    if (streams(n, sizeof(uint16_t), sizeof(uint32_t)))
        bf16_f32_run(src, dst, n, 1, 1);
    else
        bf16_f32_run(src, dst, n, 1, 0);
}

size_t sk_cast_bf16_f32_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    (void)ctx;
    if (streams(n, 2 * sizeof(uint16_t), sizeof(uint32_t)))
        bf16_f32_run(src, dst, n, 2, 1);
    else
        bf16_f32_run(src, dst, n, 2, 0);
    return n;
}
SK_TARGET_END
#endif
