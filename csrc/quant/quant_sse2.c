/* x86-64 Quant with SSE2 intrinsics.  Per 16-element block: decode to FP32
 * bits with integer operations, one binary32 multiply, then conversion with
 * an explicit rounding (nearest-even by the checked MXCSR mode, or
 * truncation plus an exact correction), the zero point and saturating packs.
 * A block that may hold an inexact or flushed product (subnormal input,
 * zero-exponent product from a nonzero input) is recomputed by the exact
 * integer path; so is every tail, and every block when the multiplier is
 * subnormal.  (Intrinsics: GCC's auto-vectorised portable form of this step
 * is slower.) */
#include "quant.h"
#if SK_HAVE_SSE2
#include <emmintrin.h>

typedef struct quad {
    __m128i v[4];
} quad;

static inline __m128i widen_bf16_lo(__m128i h) { return _mm_unpacklo_epi16(_mm_setzero_si128(), h); }
static inline __m128i widen_bf16_hi(__m128i h) { return _mm_unpackhi_epi16(_mm_setzero_si128(), h); }

static inline __m128i select(__m128i mask, __m128i a, __m128i b) {
    return _mm_or_si128(_mm_and_si128(mask, a), _mm_andnot_si128(mask, b));
}

/* IEEE half (zero-extended to 32 bits) -> FP32 bits.  Half subnormals
 * f * 2^-24 are normal in FP32: the exact conversion of the integer f
 * normalises it, and an integer subtraction of 24 from its exponent scales it. */
static inline __m128i widen_f16(__m128i h) {
    const __m128i sign = _mm_slli_epi32(_mm_and_si128(h, _mm_set1_epi32(0x8000)), 16);
    const __m128i e = _mm_and_si128(_mm_srli_epi32(h, 10), _mm_set1_epi32(0x1f));
    const __m128i f = _mm_and_si128(h, _mm_set1_epi32(0x3ff));
    const __m128i f13 = _mm_slli_epi32(f, 13);
    const __m128i normal = _mm_or_si128(_mm_slli_epi32(_mm_add_epi32(e, _mm_set1_epi32(112)), 23), f13);
    const __m128i special = _mm_or_si128(_mm_set1_epi32(0x7f800000), f13);
    const __m128i sub = _mm_andnot_si128(_mm_cmpeq_epi32(f, _mm_setzero_si128()),
                                         _mm_sub_epi32(_mm_castps_si128(_mm_cvtepi32_ps(f)), _mm_set1_epi32(24 << 23)));
    const __m128i is_special = _mm_cmpeq_epi32(e, _mm_set1_epi32(31));
    const __m128i is_sub = _mm_cmpeq_epi32(e, _mm_setzero_si128());
    return _mm_or_si128(sign, select(is_special, special, select(is_sub, sub, normal)));
}

static inline __attribute__((always_inline)) quad load_block(const void *src, size_t i, int input) {
    quad x;
    if (input == SK_QUANT_F32) {
        const __m128i *in = (const __m128i *)((const uint32_t *)src + i);
        x.v[0] = _mm_loadu_si128(in);
        x.v[1] = _mm_loadu_si128(in + 1);
        x.v[2] = _mm_loadu_si128(in + 2);
        x.v[3] = _mm_loadu_si128(in + 3);
    } else {
        const __m128i *in = (const __m128i *)((const uint16_t *)src + i);
        const __m128i a = _mm_loadu_si128(in), b = _mm_loadu_si128(in + 1);
        if (input == SK_QUANT_BF16) { /* the BF16 word is the upper FP32 half */
            x.v[0] = widen_bf16_lo(a);
            x.v[1] = widen_bf16_hi(a);
            x.v[2] = widen_bf16_lo(b);
            x.v[3] = widen_bf16_hi(b);
        } else {
            const __m128i zero = _mm_setzero_si128();
            x.v[0] = widen_f16(_mm_unpacklo_epi16(a, zero));
            x.v[1] = widen_f16(_mm_unpackhi_epi16(a, zero));
            x.v[2] = widen_f16(_mm_unpacklo_epi16(b, zero));
            x.v[3] = widen_f16(_mm_unpackhi_epi16(b, zero));
        }
    }
    return x;
}

/* Integer rounding of normal or zero products, plus the zero point.  |p| is
 * clamped to 1024 first (every |p| >= 512 saturates anyway, and the clamp
 * keeps conversions exact); NaN lanes become the zero point.  Truncation
 * t = trunc(p) is exact and t != p exactly when p has a fraction. */
static inline __attribute__((always_inline)) __m128i finish(__m128 p, int mode, __m128i zp) {
    const __m128 nan = _mm_cmpunord_ps(p, p);
    const __m128 c = _mm_max_ps(_mm_min_ps(p, _mm_set1_ps(1024.0f)), _mm_set1_ps(-1024.0f));
    __m128i t;
    switch (mode) {
    case SK_QUANT_NEAREST_EVEN:
        t = _mm_cvtps_epi32(c);
        break; /* MXCSR: nearest, checked */
    case SK_QUANT_TOWARD_ZERO:
        t = _mm_cvttps_epi32(c);
        break;
    case SK_QUANT_TOWARD_POSITIVE:
        t = _mm_cvttps_epi32(c);
        t = _mm_sub_epi32(t, _mm_castps_si128(_mm_cmplt_ps(_mm_cvtepi32_ps(t), c)));
        break;
    default:
        t = _mm_cvttps_epi32(c);
        t = _mm_add_epi32(t, _mm_castps_si128(_mm_cmpgt_ps(_mm_cvtepi32_ps(t), c)));
        break;
    }
    return select(_mm_castps_si128(nan), zp, _mm_add_epi32(t, zp));
}

/* One vector of four lanes: the product, its result by the fast path, and
 * whether the block needs the exact path.  The repair test: a nonzero input
 * that is subnormal (DAZ could flush it) or whose product has a zero
 * exponent (subnormal, or flushed by FTZ).  Infinite and NaN inputs keep
 * nonzero exponents in the product, so "nonzero" is enough. */
static inline __attribute__((always_inline)) __m128i step(__m128i x, __m128 m, __m128i zp, int mode, __m128i *repair) {
    const __m128i abs_mask = _mm_set1_epi32(0x7fffffff), min_normal = _mm_set1_epi32(0x00800000);
    const __m128 p = _mm_mul_ps(_mm_castsi128_ps(x), m);
    /* Magnitudes as int32 are nonnegative, so signed compares order them. */
    const __m128i xa = _mm_and_si128(x, abs_mask);
    const __m128i pa = _mm_and_si128(_mm_castps_si128(p), abs_mask);
    const __m128i tiny = _mm_or_si128(_mm_cmplt_epi32(xa, min_normal), _mm_cmplt_epi32(pa, min_normal));
    *repair = _mm_or_si128(*repair, _mm_andnot_si128(_mm_cmpeq_epi32(xa, _mm_setzero_si128()), tiny));
    return finish(p, mode, zp);
}

static inline __attribute__((always_inline)) void run(const sk_quant_ctx *c, const void *src, int8_t *out, size_t n,
                                                      int input, int mode) {
    size_t i = 0;
    if (!c->exact_only) {
        const __m128 m = _mm_set1_ps(c->multiplier);
        const __m128i zp = _mm_set1_epi32(c->zero_point);
        for (; i + SK_BLOCK <= n; i += SK_BLOCK) {
            const quad x = load_block(src, i, input);
            __m128i repair = _mm_setzero_si128();
            const __m128i r0 = step(x.v[0], m, zp, mode, &repair);
            const __m128i r1 = step(x.v[1], m, zp, mode, &repair);
            const __m128i r2 = step(x.v[2], m, zp, mode, &repair);
            const __m128i r3 = step(x.v[3], m, zp, mode, &repair);
            if (_mm_movemask_epi8(repair)) {
                sk_quant_exact_span(c, src, out, i, i + SK_BLOCK, input, mode);
            } else {
                /* Signed saturating packs: int32 -> int16 -> int8 clamps to [-128, 127]. */
                const __m128i lo = _mm_packs_epi32(r0, r1), hi = _mm_packs_epi32(r2, r3);
                _mm_storeu_si128((__m128i *)(out + i), _mm_packs_epi16(lo, hi));
            }
        }
    }
    sk_quant_exact_span(c, src, out, i, n, input, mode);
}

/* The leaves (quant_kernels.inc). */
void sk_quant_f32_i8_ne__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f32_i8_tz__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f32_i8_tp__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f32_i8_tn__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_bf16_i8_ne__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_bf16_i8_tz__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_bf16_i8_tp__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_bf16_i8_tn__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
void sk_quant_f16_i8_ne__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
void sk_quant_f16_i8_tz__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
void sk_quant_f16_i8_tp__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
void sk_quant_f16_i8_tn__sse2(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
#endif
