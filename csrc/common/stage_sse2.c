/* The SSE2 route's staging (stage.h): 16-byte blocks for the two layouts
 * that dominate strided work, every second element (a[:, ::2]) and square
 * tiles of a transpose, and 16-byte line copies; the AVX2 staging finishes
 * with these blocks.  Elements move as bit patterns, so every path agrees
 * bit for bit; the vector blocks only load bytes between elements that are
 * read anyway. */
#include "stage.h"
#include "stage_blocks.h"
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

#define STAGE_BITS 128
#include "stage_x86.h"

size_t sk_stage_transpose_blocks_sse2(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t rows,
                                      size_t cols, size_t size, size_t c_begin) {
    sk_stage_blocks(src, src_pitch, dst, dst_pitch, rows, cols, size, c_begin, 1, stage_transpose_block);
    return 16 / size;
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
