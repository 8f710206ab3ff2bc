/* x86-64 Quant with AVX2 (and F16C for FP16 inputs), 32 elements per block.
 *
 * The fast path is one binary32 multiply, a conversion with the mode's
 * rounding, the zero point and saturating packs: no clamp, no NaN select.
 * It is exact to the contract for every lane inside the fast range the
 * context computed once per call (quant.h: fast_min <= |x| bits < fast_end,
 * or x = 0): such inputs are normal and their products are normal and below
 * 2^30, so FTZ/DAZ cannot touch them and the conversions cannot overflow.
 * One range test per block decides; a block with any other lane, every tail
 * and every block of a subnormal multiplier take the exact integer path.
 *
 * The range test works on the magnitude bits doubled (x + x shifts the sign
 * out) with unsigned minima and maxima: min(2|x| - 1) >= 2 fast_min - 1
 * (zero wraps to the top, out of the way) and max(2|x|) <= 2 fast_end - 2.
 * BF16 and FP16 inputs are tested on their 16-bit words, 16 lanes at once.
 *
 * Dense outputs of at least sk_stream_min_bytes() bytes go out with
 * non-temporal stores (csrc/common/stream.h) from a 32-byte aligned head. */
#include "quant.h"
#include "../common/stream.h"
#if SK_HAVE_AVX2
#pragma GCC target("avx2,f16c")
#include <immintrin.h>

enum { QBLOCK = 32 };
enum { MXCSR_DAZ = 1 << 6, MXCSR_FTZ = 1 << 15 };

/* The block's 32 lanes as FP32 vectors (in element order), and whether
 * every lane lies in the fast range. */
typedef struct block {
    __m256 v[4];
    int fast;
} block;

typedef struct bounds {    /* the doubled fast range, see the top comment */
    __m256i low32, high32;  /* 2 fast_min - 1, 2 fast_end - 2 in 32-bit lanes */
    __m256i low16, high16;  /* the same in 16-bit lanes (BF16, FP16) */
} bounds;

static inline __attribute__((always_inline)) bounds make_bounds(const sk_quant_ctx *c) {
    const uint32_t low = 2 * c->fast_min - 1, high = 2 * c->fast_end - 2;
    return (bounds){_mm256_set1_epi32((int)low), _mm256_set1_epi32((int)high),
                    _mm256_set1_epi16((short)low), _mm256_set1_epi16((short)high)};
}

/* Written out lane group by lane group: GCC -O2 keeps small loops over
 * vector arrays as loops through memory.  `low`: also test the low bound. */
static inline __attribute__((always_inline)) __m256i twice32(__m256i x) { return _mm256_add_epi32(x, x); }
static inline __attribute__((always_inline)) __m256i less1_32(__m256i x) {
    return _mm256_add_epi32(x, _mm256_set1_epi32(-1));
}

static inline __attribute__((always_inline)) int fast32(__m256i x0, __m256i x1, __m256i x2, __m256i x3,
                                                        const bounds *b, int low) {
    const __m256i xx0 = twice32(x0), xx1 = twice32(x1), xx2 = twice32(x2), xx3 = twice32(x3);
    const __m256i hi = _mm256_max_epu32(_mm256_max_epu32(xx0, xx1), _mm256_max_epu32(xx2, xx3));
    __m256i ok = _mm256_cmpeq_epi32(_mm256_min_epu32(hi, b->high32), hi);  /* hi <= high */
    if (low) {
        const __m256i lo = _mm256_min_epu32(_mm256_min_epu32(less1_32(xx0), less1_32(xx1)),
                                            _mm256_min_epu32(less1_32(xx2), less1_32(xx3)));
        ok = _mm256_and_si256(ok, _mm256_cmpeq_epi32(_mm256_max_epu32(lo, b->low32), lo));  /* lo >= low */
    }
    return _mm256_movemask_epi8(ok) == -1;
}

static inline __attribute__((always_inline)) int fast16(__m256i x0, __m256i x1, const bounds *b, int low) {
    const __m256i xx0 = _mm256_add_epi16(x0, x0), xx1 = _mm256_add_epi16(x1, x1);
    /* Saturating differences are zero exactly when hi <= high and lo >= low. */
    __m256i bad = _mm256_subs_epu16(_mm256_max_epu16(xx0, xx1), b->high16);
    if (low) {
        const __m256i one = _mm256_set1_epi16(1);
        const __m256i lo = _mm256_min_epu16(_mm256_sub_epi16(xx0, one), _mm256_sub_epi16(xx1, one));
        bad = _mm256_or_si256(bad, _mm256_subs_epu16(b->low16, lo));
    }
    return _mm256_testz_si256(bad, bad);
}

static inline __attribute__((always_inline)) block load_block(const void *src, size_t i, int input,
                                                              const bounds *b, int low) {
    block k;
    if (input == SK_QUANT_F32) {
        const __m256i *in = (const __m256i *)((const uint32_t *)src + i);
        const __m256i x0 = _mm256_loadu_si256(in), x1 = _mm256_loadu_si256(in + 1);
        const __m256i x2 = _mm256_loadu_si256(in + 2), x3 = _mm256_loadu_si256(in + 3);
        k.v[0] = _mm256_castsi256_ps(x0);
        k.v[1] = _mm256_castsi256_ps(x1);
        k.v[2] = _mm256_castsi256_ps(x2);
        k.v[3] = _mm256_castsi256_ps(x3);
        k.fast = fast32(x0, x1, x2, x3, b, low);
    } else if (input == SK_QUANT_BF16) {
        /* The BF16 word is the upper FP32 half.  Unpacking works within
         * 128-bit lanes: v[0] holds elements 0-3 and 8-11, v[1] 4-7 and
         * 12-15; the int32 -> int16 pack undoes exactly this order. */
        const __m256i *in = (const __m256i *)((const uint16_t *)src + i);
        const __m256i x0 = _mm256_loadu_si256(in), x1 = _mm256_loadu_si256(in + 1);
        const __m256i zero = _mm256_setzero_si256();
        k.v[0] = _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, x0));
        k.v[1] = _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, x0));
        k.v[2] = _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, x1));
        k.v[3] = _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, x1));
        k.fast = fast16(x0, x1, b, low);
    } else {
        /* F16C widens FP16 exactly (half subnormals never reach it: they
         * lie below the fast range). */
        const __m128i *in = (const __m128i *)((const uint16_t *)src + i);
        k.v[0] = _mm256_cvtph_ps(_mm_loadu_si128(in));
        k.v[1] = _mm256_cvtph_ps(_mm_loadu_si128(in + 1));
        k.v[2] = _mm256_cvtph_ps(_mm_loadu_si128(in + 2));
        k.v[3] = _mm256_cvtph_ps(_mm_loadu_si128(in + 3));
        k.fast = fast16(_mm256_loadu_si256((const __m256i *)in), _mm256_loadu_si256((const __m256i *)in + 1), b, low);
    }
    return k;
}

/* A normal product below 2^30 in magnitude to int32 by the mode: the
 * rounding is explicit for the directed modes (MXCSR plays no part) and the
 * MXCSR's for nearest-even (the execute entry requires round-to-nearest);
 * every conversion of such a value is exact or in range. */
static inline __attribute__((always_inline)) __m256i to_int(__m256 p, int mode) {
    switch (mode) {
    case SK_QUANT_NEAREST_EVEN: return _mm256_cvtps_epi32(p);
    case SK_QUANT_TOWARD_ZERO: return _mm256_cvttps_epi32(p);
    case SK_QUANT_TOWARD_POSITIVE:
        return _mm256_cvtps_epi32(_mm256_round_ps(p, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
    default: return _mm256_cvtps_epi32(_mm256_round_ps(p, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
    }
}

/* The 32 INT8 results of a fast block, in element order.  The zero point is
 * added after the first saturating pack: int16 saturation of |r| >= 2^15
 * keeps it beyond the INT8 range after any zero point in [-128, 127], so
 * saturate8(sat16(sat16(r) + zp)) = saturate8(r + zp). */
static inline __attribute__((always_inline)) __m256i finish(const block *k, __m256 m, __m256i zp, int input,
                                                             int mode) {
    const __m256i r0 = to_int(_mm256_mul_ps(k->v[0], m), mode), r1 = to_int(_mm256_mul_ps(k->v[1], m), mode);
    const __m256i r2 = to_int(_mm256_mul_ps(k->v[2], m), mode), r3 = to_int(_mm256_mul_ps(k->v[3], m), mode);
    const __m256i a = _mm256_adds_epi16(_mm256_packs_epi32(r0, r1), zp);
    const __m256i b = _mm256_adds_epi16(_mm256_packs_epi32(r2, r3), zp);
    const __m256i bytes = _mm256_packs_epi16(a, b);
    if (input == SK_QUANT_BF16)  /* 64-bit groups: 0-7, 16-23, 8-15, 24-31 */
        return _mm256_permute4x64_epi64(bytes, _MM_SHUFFLE(3, 1, 2, 0));
    /* 32-bit groups of four: r0 r1 r2 r3 (first halves), then second halves. */
    return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

static inline __attribute__((always_inline)) void blocks(const sk_quant_ctx *c, const void *src, int8_t *out,
                                                         size_t i, size_t end, int input, int mode, int low,
                                                         int stream) {
    const bounds b = make_bounds(c);
    const __m256 m = _mm256_set1_ps(c->multiplier);
    const __m256i zp = _mm256_set1_epi16((short)c->zero_point);
    for (; i < end; i += QBLOCK) {
        const block k = load_block(src, i, input, &b, low);
        if (__builtin_expect(!k.fast, 0)) {
            sk_quant_exact_span(c, src, out, i, i + QBLOCK, input, mode);
            continue;
        }
        const __m256i v = finish(&k, m, zp, input, mode);
        if (stream)
            _mm256_stream_si256((__m256i *)(out + i), v);
        else
            _mm256_storeu_si256((__m256i *)(out + i), v);
    }
}

/* The blocks [i, end), specialised on the low test and streaming. */
static inline __attribute__((always_inline)) void blocks_for(const sk_quant_ctx *c, const void *src, int8_t *out,
                                                             size_t i, size_t end, int input, int mode,
                                                             int stream) {
    /* Without flush-to-zero and denormals-are-zero, the multiply (gradual
     * underflow), the conversions and F16C handle subnormal inputs and
     * products exactly as the contract says: only the high bound matters. */
    const int low = (_mm_getcsr() & (MXCSR_FTZ | MXCSR_DAZ)) != 0;
    if (low) {
        if (stream) blocks(c, src, out, i, end, input, mode, 1, 1);
        else blocks(c, src, out, i, end, input, mode, 1, 0);
    } else {
        if (stream) blocks(c, src, out, i, end, input, mode, 0, 1);
        else blocks(c, src, out, i, end, input, mode, 0, 0);
    }
}

static inline __attribute__((always_inline)) void run(const sk_quant_ctx *c, const void *src, int8_t *out,
                                                       size_t n, int input, int mode) {
    size_t i = 0;
    if (!c->exact_only && n >= QBLOCK) {
        const int stream = n >= sk_stream_min_bytes();
        if (stream) {  /* an exact head up to 32-byte alignment of the output */
            i = (size_t)(-(uintptr_t)out & 31);
            sk_quant_exact_span(c, src, out, 0, i, input, mode);
        }
        const size_t end = i + (n - i) / QBLOCK * QBLOCK;
        blocks_for(c, src, out, i, end, input, mode, stream);
        if (stream) _mm_sfence();  /* order the streamed stores before whatever follows */
        i = end;
    }
    sk_quant_exact_span(c, src, out, i, n, input, mode);
}

SK_QUANT_ENTRIES(avx2, run)
#endif
