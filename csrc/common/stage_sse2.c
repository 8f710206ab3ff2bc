/* The SSE2 route's staging (stage.h): 16-byte blocks for the two layouts
 * that dominate strided work, every second element (a[:, ::2]) and square
 * tiles of a transpose, and 16-byte line copies; the AVX2 staging finishes
 * with these blocks.  Elements move as bit patterns, so every path agrees
 * bit for bit; the vector blocks only load bytes between elements that are
 * read anyway. */
#include "stage.h"
#include "kernel.h"
#if SK_HAVE_SSE2
#include <emmintrin.h>

/* Blocks of 16 bytes of output from 32 bytes of input, which span the
 * block's elements and the gap after each: a block is only taken while
 * another element of the run follows it, so that its last gap lies inside
 * the run.  Returns the elements written. */
static inline __attribute__((always_inline)) size_t every_other(const char *src, char *dst, size_t n, size_t size) {
    const size_t per_block = 16 / size;
    size_t k = 0;
    for (; k + per_block < n; k += per_block, src += 32, dst += 16) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)src);
        const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(src + 16));
        __m128i even;
        if (size == 1) { /* the low byte of each 16-bit pair; packus keeps 0..255 */
            const __m128i low = _mm_set1_epi16(0xff);
            even = _mm_packus_epi16(_mm_and_si128(a, low), _mm_and_si128(b, low));
        } else if (size == 2) { /* sign-extended low halves; packs keeps them */
            even =
                _mm_packs_epi32(_mm_srai_epi32(_mm_slli_epi32(a, 16), 16), _mm_srai_epi32(_mm_slli_epi32(b, 16), 16));
        } else {
            even = _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b), _MM_SHUFFLE(2, 0, 2, 0)));
        }
        _mm_storeu_si128((__m128i *)(void *)dst, even);
    }
    return k;
}

size_t sk_stage_every_other_sse2(const char *src, char *dst, size_t n, size_t size) {
    switch (size) { /* constant sizes: one straight loop each */
    case 1:
        return every_other(src, dst, n, 1);
    case 2:
        return every_other(src, dst, n, 2);
    default:
        return every_other(src, dst, n, 4);
    }
}

/* Interleaves pairs of registers at a given lane width (bits). */
static inline __attribute__((always_inline)) __m128i unpack_lo(__m128i a, __m128i b, int width) {
    return width == 8    ? _mm_unpacklo_epi8(a, b)
           : width == 16 ? _mm_unpacklo_epi16(a, b)
           : width == 32 ? _mm_unpacklo_epi32(a, b)
                         : _mm_unpacklo_epi64(a, b);
}
static inline __attribute__((always_inline)) __m128i unpack_hi(__m128i a, __m128i b, int width) {
    return width == 8    ? _mm_unpackhi_epi8(a, b)
           : width == 16 ? _mm_unpackhi_epi16(a, b)
           : width == 32 ? _mm_unpackhi_epi32(a, b)
                         : _mm_unpackhi_epi64(a, b);
}

/* A (16/size)-square block, one row per register.  Each stage pairs rows
 * 2i and 2i+1 and doubles the lane width; after the last stage register m
 * holds source column bitreverse(m), written as destination row
 * bitreverse(m).  The loops unroll completely, so the block lives in
 * registers and every index is a constant. */
static inline __attribute__((always_inline)) void transpose_block(const char *src, ptrdiff_t src_pitch, char *dst,
                                                                  ptrdiff_t dst_pitch, size_t size) {
    enum { MAX = 16 };
    const int n = (int)(16 / size);
    __m128i v[MAX], t[MAX];
#pragma GCC unroll 16
    for (int r = 0; r < n; ++r) v[r] = _mm_loadu_si128((const __m128i *)(const void *)(src + r * src_pitch));
#pragma GCC unroll 4
    for (int width = (int)size * 8; width < 128; width *= 2) {
#pragma GCC unroll 8
        for (int i = 0; i < n / 2; ++i) {
            t[i] = unpack_lo(v[2 * i], v[2 * i + 1], width);
            t[i + n / 2] = unpack_hi(v[2 * i], v[2 * i + 1], width);
        }
#pragma GCC unroll 16
        for (int i = 0; i < n; ++i) v[i] = t[i];
    }
#pragma GCC unroll 16
    for (int m = 0; m < n; ++m) {
        const int c = n == 4   ? (m & 1) << 1 | m >> 1
                      : n == 8 ? (m & 1) << 2 | (m & 2) | m >> 2
                               : (m & 1) << 3 | (m & 2) << 1 | (m & 4) >> 1 | m >> 3;
        _mm_storeu_si128((__m128i *)(void *)(dst + c * dst_pitch), v[m]);
    }
}

static inline __attribute__((always_inline)) size_t transpose_blocks(const char *src, ptrdiff_t src_pitch, char *dst,
                                                                     ptrdiff_t dst_pitch, size_t rows, size_t cols,
                                                                     size_t size, size_t c_begin) {
    const size_t b = 16 / size;
    const size_t full_rows = rows / b * b, full_cols = cols / b * b;
    /* Finish the rows of whichever side is farther apart (the tensor, not
     * the scratch) one group at a time, so that each of its cache lines is
     * completed while it is in L1. */
    if (dst_pitch > src_pitch) {
        for (size_t c = c_begin; c < full_cols; c += b)
            for (size_t r = 0; r < full_rows; r += b)
                transpose_block(src + (ptrdiff_t)r * src_pitch + (ptrdiff_t)(c * size), src_pitch,
                                dst + (ptrdiff_t)c * dst_pitch + (ptrdiff_t)(r * size), dst_pitch, size);
    } else {
        for (size_t r = 0; r < full_rows; r += b)
            for (size_t c = c_begin; c < full_cols; c += b)
                transpose_block(src + (ptrdiff_t)r * src_pitch + (ptrdiff_t)(c * size), src_pitch,
                                dst + (ptrdiff_t)c * dst_pitch + (ptrdiff_t)(r * size), dst_pitch, size);
    }
    return b;
}

size_t sk_stage_transpose_blocks_sse2(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t rows,
                                      size_t cols, size_t size, size_t c_begin) {
    switch (size) {
    case 1:
        return transpose_blocks(src, src_pitch, dst, dst_pitch, rows, cols, 1, c_begin);
    case 2:
        return transpose_blocks(src, src_pitch, dst, dst_pitch, rows, cols, 2, c_begin);
    default:
        return transpose_blocks(src, src_pitch, dst, dst_pitch, rows, cols, 4, c_begin);
    }
}

static void gather(const char *src, ptrdiff_t step, char *dst, size_t n, size_t size) {
    size_t k = step == 2 * (ptrdiff_t)size ? sk_stage_every_other_sse2(src, dst, n, size) : 0;
    sk_stage_gather_elements(src + (ptrdiff_t)k * step, step, dst + k * size, n - k, size);
}

static void transpose(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t rows, size_t cols,
                      size_t size) {
    const size_t b = sk_stage_transpose_blocks_sse2(src, src_pitch, dst, dst_pitch, rows, cols, size, 0);
    sk_stage_transpose_rest(src, src_pitch, dst, dst_pitch, rows, cols, size, rows / b * b, cols / b * b);
}

void sk_stage_copy_lines_sse2(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t lines,
                              size_t bytes, int stream) {
    (void)stream;
    for (size_t i = 0; i < lines; ++i, src += src_pitch, dst += dst_pitch) {
        size_t k = 0;
        for (; k + 16 <= bytes; k += 16)
            _mm_storeu_si128((__m128i *)(void *)(dst + k), _mm_loadu_si128((const __m128i *)(const void *)(src + k)));
        for (; k < bytes; ++k) dst[k] = src[k];
    }
}

static void fence(void) { _mm_sfence(); }

const sk_stage sk_stage_sse2 = {gather, sk_stage_scatter_elements, transpose, sk_stage_copy_lines_sse2, fence, 0};
#endif
