/* The x86 moves of the vector fold (range_fold.h), and the fold itself, on
 * RANGE_BITS-bit registers (512: AVX-512 F and BW, 256: AVX2, 128: SSE2),
 * included by range_x86.c once per route inside that route's target region.
 * The static functions end in _avx512, _avx2 or _sse2, and the operations
 * that only differ in register width are spelled once, by intrinsic prefix
 * (RX). */
#if RANGE_BITS == 512
#define RANGE_VEC __m512i
#define RANGE_V(name) name##_avx512
#define RX_MM _mm512
#elif RANGE_BITS == 256
#define RANGE_VEC __m256i
#define RANGE_V(name) name##_avx2
#define RX_MM _mm256
#else
#define RANGE_VEC __m128i
#define RANGE_V(name) name##_sse2
#define RX_MM _mm
#endif
#define RX_PASTE_(a, b) a##b
#define RX_PASTE(a, b) RX_PASTE_(a, b)
/* The intrinsic `op` (RX) or `op`_si<bits> (RX_SI) at the register width. */
#define RX(op) RX_PASTE(RX_MM, _##op)
#define RX_SI(op) RX_PASTE(RX(op), RX_PASTE(_si, RANGE_BITS))
/* Lane maxima, signed or not, at an intrinsic prefix's register width
 * (SSE4.1's and AVX2's: the SSE2 route emulates its own). */
#define RX_MAX(mm, a, b, w, sign)                                                           \
    ((sign) ? ((w) == 32 ? RX_PASTE(mm, _max_epi32)(a, b) : RX_PASTE(mm, _max_epi16)(a, b)) \
            : ((w) == 32 ? RX_PASTE(mm, _max_epu32)(a, b) : RX_PASTE(mm, _max_epu16)(a, b)))

static inline __attribute__((always_inline)) RANGE_VEC RANGE_V(vdup)(uint32_t x, int w) {
    return w == 32 ? RX(set1_epi32)((int)x) : RX(set1_epi16)((short)x);
}
static inline __attribute__((always_inline)) void RANGE_V(vload4)(const char *p, RANGE_VEC b[4]) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) b[k] = RX_SI(loadu)((const RANGE_VEC *)(const void *)(p + k * sizeof(RANGE_VEC)));
}

#if RANGE_BITS >= 256
static inline __attribute__((always_inline)) RANGE_VEC RANGE_V(vmax_s)(RANGE_VEC a, RANGE_VEC b, int w) {
    return RX_MAX(RX_MM, a, b, w, 1);
}
static inline __attribute__((always_inline)) RANGE_VEC RANGE_V(vmax_u)(RANGE_VEC a, RANGE_VEC b, int w) {
    return RX_MAX(RX_MM, a, b, w, 0);
}
/* A register's lanes folded into its low 128 bits. */
static inline __attribute__((always_inline)) __m128i RANGE_V(halves)(RANGE_VEC v, int w, int sign) {
#if RANGE_BITS == 512
    const __m256i h = RX_MAX(_mm256, _mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1), w, sign);
#else
    const __m256i h = v;
#endif
    return RX_MAX(_mm, _mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1), w, sign);
}
#define RX_MAX128(a, b, w, sign) RX_MAX(_mm, a, b, w, sign)
#else /* SSE2 has only the signed 16-bit maximum: the others select by a compare */
static inline __attribute__((always_inline)) __m128i select_sse2(__m128i m, __m128i a, __m128i b) {
    return _mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b));
}
static inline __attribute__((always_inline)) __m128i vmax_s_sse2(__m128i a, __m128i b, int w) {
    return w == 32 ? select_sse2(_mm_cmpgt_epi32(a, b), a, b) : _mm_max_epi16(a, b);
}
static inline __attribute__((always_inline)) __m128i vmax_u_sse2(__m128i a, __m128i b, int w) {
    if (w == 16) return _mm_adds_epu16(_mm_subs_epu16(a, b), b); /* a - b, saturated, + b */
    const __m128i flip = _mm_set1_epi32(INT32_MIN);              /* unsigned order as signed */
    return select_sse2(_mm_cmpgt_epi32(_mm_xor_si128(a, flip), _mm_xor_si128(b, flip)), a, b);
}
#define RX_MAX128(a, b, w, sign) ((sign) ? vmax_s_sse2(a, b, w) : vmax_u_sse2(a, b, w))
#endif

/* 128 bits' lanes folded into the lowest (three or four shuffles and
 * maxima: cheaper than folding the lanes one at a time). */
static inline __attribute__((always_inline)) __m128i RANGE_V(lane0)(__m128i v, int w, int sign) {
    v = RX_MAX128(v, _mm_shuffle_epi32(v, 0x4E), w, sign);
    v = RX_MAX128(v, _mm_shuffle_epi32(v, 0xB1), w, sign);
    if (w == 16) v = RX_MAX128(v, _mm_srli_epi32(v, 16), w, sign); /* (the low word: its high neighbour's) */
    return v;
}
static inline __attribute__((always_inline)) void RANGE_V(vnarrow)(RANGE_VEC s, RANGE_VEC u, unsigned char *lanes,
                                                                   int w) {
#if RANGE_BITS >= 256
    _mm_storeu_si128((__m128i *)(void *)lanes, RANGE_V(lane0)(RANGE_V(halves)(s, w, 1), w, 1));
    _mm_storeu_si128((__m128i *)(void *)(lanes + 16), RANGE_V(lane0)(RANGE_V(halves)(u, w, 0), w, 0));
#else
    _mm_storeu_si128((__m128i *)(void *)lanes, RANGE_V(lane0)(s, w, 1));
    _mm_storeu_si128((__m128i *)(void *)(lanes + 16), RANGE_V(lane0)(u, w, 0));
#endif
}
/* Words of each half of `lanes` vnarrow leaves to fold: one. */
#define RANGE_NARROWED(w) 1

#if RANGE_BITS == 512 /* compares into mask registers; masked loads */
#define RANGE_LOAD4N 1
static inline __attribute__((always_inline)) void vload4n_avx512(const char *p, __m512i b[4], size_t bytes) {
#pragma GCC unroll 4
    for (size_t k = 0; k < 4; ++k) {
        const size_t rest = bytes > 64 * k ? bytes - 64 * k : 0;
        const __mmask64 m = rest >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << rest) - 1;
        b[k] = _mm512_maskz_loadu_epi8(m, p + 64 * k);
    }
}
static inline __attribute__((always_inline)) __m512i vkeep_avx512(__m512i b, __m512i magnitude, __m512i inf, int w) {
    const __m512i m = _mm512_and_si512(b, magnitude);
    return w == 32 ? _mm512_maskz_mov_epi32(_mm512_cmplt_epi32_mask(m, inf), b)
                   : _mm512_maskz_mov_epi16(_mm512_cmplt_epi16_mask(m, inf), b);
}
static inline __attribute__((always_inline)) int vabove_avx512(__m512i s, __m512i u, __m512i top, __m512i bottom,
                                                               int w) {
    if (w == 32) return (_mm512_cmpgt_epi32_mask(s, top) | _mm512_cmpgt_epu32_mask(u, bottom)) != 0;
    return (_mm512_cmpgt_epi16_mask(s, top) | _mm512_cmpgt_epu16_mask(u, bottom)) != 0;
}
#else /* compares into lanes; magnitudes compare as signed, unsigned lanes with the sign flipped */
static inline __attribute__((always_inline)) RANGE_VEC RANGE_V(vcmpgt)(RANGE_VEC a, RANGE_VEC b, int w) {
    return w == 32 ? RX(cmpgt_epi32)(a, b) : RX(cmpgt_epi16)(a, b);
}
static inline __attribute__((always_inline)) RANGE_VEC RANGE_V(vkeep)(RANGE_VEC b, RANGE_VEC magnitude, RANGE_VEC inf,
                                                                      int w) {
    return RX_SI(and)(b, RANGE_V(vcmpgt)(inf, RX_SI(and)(b, magnitude), w));
}
static inline __attribute__((always_inline)) int RANGE_V(vabove)(RANGE_VEC s, RANGE_VEC u, RANGE_VEC top,
                                                                 RANGE_VEC bottom, int w) {
    const RANGE_VEC flip = RANGE_V(vdup)(1u << (w - 1), w);
    const RANGE_VEC above =
        RX_SI(or)(RANGE_V(vcmpgt)(s, top, w), RANGE_V(vcmpgt)(RX_SI(xor)(u, flip), RX_SI(xor)(bottom, flip), w));
    return RX(movemask_epi8)(above) != 0;
}
#endif

#include "range_fold.h"

#undef RANGE_NARROWED
#undef RANGE_LOAD4N
#undef RX_MAX128
#undef RX_MAX
#undef RX_SI
#undef RX
#undef RX_PASTE
#undef RX_PASTE_
#undef RX_MM
#undef RANGE_V
#undef RANGE_VEC
#undef RANGE_BITS
