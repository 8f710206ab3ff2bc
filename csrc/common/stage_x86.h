/* The transpose block the x86 stagings share: stage_sse2.c includes this
 * with STAGE_BITS 128 (one block per register), stage_avx2.c with 256 (two
 * blocks side by side, one per 128-bit lane: half the shuffles and loads of
 * two SSE2 blocks). */
#if STAGE_BITS == 256
#define STAGE_VEC __m256i
#define STAGE_X(op) _mm256_##op
#define STAGE_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define STAGE_LANE(v, l) ((l) ? _mm256_extracti128_si256(v, 1) : _mm256_castsi256_si128(v))
#else
#define STAGE_VEC __m128i
#define STAGE_X(op) _mm_##op
#define STAGE_LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define STAGE_LANE(v, l) (v)
#endif

/* Interleaves pairs of registers at a lane width (bits): the low halves of
 * each 128-bit lane (hi 0) or the high ones. */
static inline __attribute__((always_inline)) STAGE_VEC stage_unpack(STAGE_VEC a, STAGE_VEC b, int width, int hi) {
    switch (width) {
    case 8:
        return hi ? STAGE_X(unpackhi_epi8)(a, b) : STAGE_X(unpacklo_epi8)(a, b);
    case 16:
        return hi ? STAGE_X(unpackhi_epi16)(a, b) : STAGE_X(unpacklo_epi16)(a, b);
    case 32:
        return hi ? STAGE_X(unpackhi_epi32)(a, b) : STAGE_X(unpacklo_epi32)(a, b);
    default:
        return hi ? STAGE_X(unpackhi_epi64)(a, b) : STAGE_X(unpacklo_epi64)(a, b);
    }
}

/* (16/size)-square blocks of `size`-byte elements, a row of each per
 * register, the block of 128-bit lane l at source column l * 16/size.  Each
 * stage pairs rows 2i and 2i+1 and doubles the lane width; after the last
 * one register m holds source column bitreverse(m) of each block, written
 * as destination row bitreverse(m) of that block.  The loops unroll
 * completely, so the blocks live in registers and every index is a
 * constant. */
static inline __attribute__((always_inline)) void stage_transpose_block(const char *src, ptrdiff_t src_pitch, char *dst,
                                                                        ptrdiff_t dst_pitch, size_t size) {
    enum { MAX = 16, LANES = sizeof(STAGE_VEC) / 16 };
    const int n = (int)(16 / size);
    STAGE_VEC v[MAX], t[MAX];
#pragma GCC unroll 16
    for (int r = 0; r < n; ++r) v[r] = STAGE_LOAD(src + r * src_pitch);
#pragma GCC unroll 4
    for (int width = (int)size * 8; width < 128; width *= 2) {
#pragma GCC unroll 8
        for (int i = 0; i < n / 2; ++i) {
            t[i] = stage_unpack(v[2 * i], v[2 * i + 1], width, 0);
            t[i + n / 2] = stage_unpack(v[2 * i], v[2 * i + 1], width, 1);
        }
#pragma GCC unroll 16
        for (int i = 0; i < n; ++i) v[i] = t[i];
    }
#pragma GCC unroll 16
    for (int m = 0; m < n; ++m) {
        const int c = n == 4   ? (m & 1) << 1 | m >> 1
                      : n == 8 ? (m & 1) << 2 | (m & 2) | m >> 2
                               : (m & 1) << 3 | (m & 2) << 1 | (m & 4) >> 1 | m >> 3;
#pragma GCC unroll 2
        for (int l = 0; l < LANES; ++l)
            _mm_storeu_si128((__m128i *)(void *)(dst + (c + l * n) * dst_pitch), STAGE_LANE(v[m], l));
    }
}

#undef STAGE_LANE
#undef STAGE_LOAD
#undef STAGE_X
#undef STAGE_VEC
