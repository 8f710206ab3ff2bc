/* AVX2 variant of the staging gather's every-second-element blocks
 * (stage.c picks it at run time where the CPU has AVX2; the wheel keeps the
 * x86-64 baseline).  Elements move as bit patterns, exactly as the SSE2 and
 * element-by-element paths move them. */
#include "stage.h"
#include "kernel.h"
#if SK_HAVE_AVX2
#pragma GCC target("avx2")
#include <immintrin.h>

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
static inline __attribute__((always_inline)) size_t every_other(const char *src, char *dst, size_t n,
                                                                size_t size) {
    const size_t per_block = 32 / size;
    size_t k = 0;
    for (; k + per_block < n; k += per_block, src += 64, dst += 32) {
        const __m256i a = load_halves(src, src + 32);
        const __m256i b = load_halves(src + 16, src + 48);
        __m256i even;
        if (size == 1) {  /* the low byte of each 16-bit pair; packus keeps 0..255 */
            const __m256i low = _mm256_set1_epi16(0xff);
            even = _mm256_packus_epi16(_mm256_and_si256(a, low), _mm256_and_si256(b, low));
        } else if (size == 2) {  /* the low word of each 32-bit pair; packus keeps 0..65535 */
            const __m256i zero = _mm256_setzero_si256();
            even = _mm256_packus_epi32(_mm256_blend_epi16(a, zero, 0xaa), _mm256_blend_epi16(b, zero, 0xaa));
        } else {
            even = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b),
                                                         _MM_SHUFFLE(2, 0, 2, 0)));
        }
        _mm256_storeu_si256((__m256i *)(void *)dst, even);
    }
    return k;
}

size_t sk_stage_every_other_avx2(const char *src, char *dst, size_t n, size_t size) {
    switch (size) {  /* constant sizes: one straight loop each */
    case 1: return every_other(src, dst, n, 1);
    case 2: return every_other(src, dst, n, 2);
    default: return every_other(src, dst, n, 4);
    }
}
#endif
