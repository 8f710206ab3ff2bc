/* The AVX2 route's staging (stage.h; the avx512 route's too): the gather's
 * every-second-element blocks, transpose blocks two at a time, and line
 * copies that may stream, finished by the SSE2 blocks (stage_sse2.c) and
 * element moves.  Compiled for the AVX2 route's features; only the avx2 and
 * avx512 routes, available where the CPU has them, use it.  Elements move as bit
 * patterns, exactly as the SSE2 and element-by-element paths move them. */
#include "stage.h"
#include "stage_blocks.h"
#include "kernel.h"
#if SK_HAVE_AVX2
SK_TARGET_BEGIN(AVX2)
#include <immintrin.h>
#define STAGE_BITS 256
#include "stage_x86.h"

/* Two 128-bit loads into the halves of one register.  Large NumPy arrays
 * sit 16 bytes past a page, so whole 32-byte loads would split every other
 * cache line; 16-byte loads never do at that offset.  Loading input bytes
 * [0,16) and [32,48) into one register and [16,32), [48,64) into the other
 * also leaves each 128-bit lane with the elements of one 32-byte half of
 * the block, so the in-lane packs below need no cross-lane permute. */
static inline __attribute__((always_inline)) __m256i load_halves(const char *lo, const char *hi) {
    const __m128i l = _mm_loadu_si128((const __m128i *)(const void *)lo);
    const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)hi);
    return _mm256_inserti128_si256(_mm256_castsi128_si256(l), h, 1);
}

/* Blocks of 32 bytes of output from 64 bytes of input; as in stage.c, a
 * block is only taken while another element of the run follows it, so that
 * its last gap lies inside the run. */
static inline __attribute__((always_inline)) size_t every_other(const char *src, char *dst, size_t n, size_t size) {
    const size_t per_block = 32 / size;
    size_t k = 0;
    for (; k + per_block < n; k += per_block, src += 64, dst += 32) {
        const __m256i a = load_halves(src, src + 32);
        const __m256i b = load_halves(src + 16, src + 48);
        __m256i even;
        if (size == 1) { /* the low byte of each 16-bit pair; packus keeps 0..255 */
            const __m256i low = _mm256_set1_epi16(0xff);
            even = _mm256_packus_epi16(_mm256_and_si256(a, low), _mm256_and_si256(b, low));
        } else if (size == 2) { /* the low word of each 32-bit pair; packus keeps 0..65535 */
            const __m256i zero = _mm256_setzero_si256();
            even = _mm256_packus_epi32(_mm256_blend_epi16(a, zero, 0xaa), _mm256_blend_epi16(b, zero, 0xaa));
        } else {
            even = _mm256_castps_si256(
                _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _MM_SHUFFLE(2, 0, 2, 0)));
        }
        _mm256_storeu_si256((__m256i *)(void *)dst, even);
    }
    return k;
}

static void gather(const char *src, ptrdiff_t step, char *dst, size_t n, size_t size) {
    size_t k = 0;
    if (step == 2 * (ptrdiff_t)size) { /* wider blocks first; the SSE2 ones finish */
        k = size == 1   ? every_other(src, dst, n, 1)
            : size == 2 ? every_other(src, dst, n, 2)
                        : every_other(src, dst, n, 4);
        k += sk_stage_every_other_sse2(src + 2 * k * size, dst + k * size, n - k, size);
    }
    sk_stage_gather_elements(src + (ptrdiff_t)k * step, step, dst + k * size, n - k, size);
}

/* Blocks two at a time, side by side (stage_x86.h), then the SSE2 blocks
 * for a last odd column group, then element moves for the rest. */
static void transpose(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t rows, size_t cols,
                      size_t size) {
    size_t c_begin = 0;
    if (rows >= 16 / size) {
        sk_stage_blocks(src, src_pitch, dst, dst_pitch, rows, cols, size, 0, 2, stage_transpose_block);
        c_begin = cols / (32 / size) * (32 / size);
    }
    const size_t b = sk_stage_transpose_blocks_sse2(src, src_pitch, dst, dst_pitch, rows, cols, size, c_begin);
    sk_stage_transpose_rest(src, src_pitch, dst, dst_pitch, rows, cols, size, rows / b * b, cols / b * b);
}

/* Whole 32-byte moves, the last one ending at the line's end (it may
 * overlap the one before: the same bytes, written twice); lines shorter
 * than 32 bytes take the SSE2 copy.  Streamed lines store each whole
 * 64-byte destination line non-temporally and the partial ones at either
 * end through the cache. */
static void copy_lines(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t lines, size_t bytes,
                       int stream) {
    if (bytes < 32) {
        sk_stage_copy_lines_sse2(src, src_pitch, dst, dst_pitch, lines, bytes, stream);
        return;
    }
    for (size_t i = 0; i < lines; ++i, src += src_pitch, dst += dst_pitch) {
        size_t k = 0;
        if (stream) {
            const size_t head = (64 - (uintptr_t)dst % 64) % 64;
            if (head + 64 <= bytes) {
                for (; k + 32 <= head; k += 32)
                    _mm256_storeu_si256((__m256i *)(void *)(dst + k),
                                        _mm256_loadu_si256((const __m256i *)(const void *)(src + k)));
                if (k < head) { /* the rest of the head: 16-byte and smaller pieces */
                    for (; k + 16 <= head; k += 16)
                        _mm_storeu_si128((__m128i *)(void *)(dst + k),
                                         _mm_loadu_si128((const __m128i *)(const void *)(src + k)));
                    for (; k < head; ++k) dst[k] = src[k];
                }
                for (; k + 64 <= bytes; k += 64) {
                    _mm256_stream_si256((__m256i *)(void *)(dst + k),
                                        _mm256_loadu_si256((const __m256i *)(const void *)(src + k)));
                    _mm256_stream_si256((__m256i *)(void *)(dst + k + 32),
                                        _mm256_loadu_si256((const __m256i *)(const void *)(src + k + 32)));
                }
            }
        }
        for (; k + 32 <= bytes; k += 32)
            _mm256_storeu_si256((__m256i *)(void *)(dst + k),
                                _mm256_loadu_si256((const __m256i *)(const void *)(src + k)));
        if (k < bytes && bytes >= 32)
            _mm256_storeu_si256((__m256i *)(void *)(dst + bytes - 32),
                                _mm256_loadu_si256((const __m256i *)(const void *)(src + bytes - 32)));
        else
            for (; k < bytes; ++k) dst[k] = src[k];
    }
}

static void fence(void) { _mm_sfence(); }

const sk_stage sk_stage_avx2 = {gather, sk_stage_scatter_elements, transpose, copy_lines, fence, 1};
SK_TARGET_END
#endif
