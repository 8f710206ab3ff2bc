/* x86-64 affine dequant, AVX2, per-tensor dense leaves for 8-bit and 16-bit
 * stored elements (the span leaves of the AVX2 route's table,
 * affine_dequant_kernels.inc): 32 elements per iteration, each group of 8
 * widened straight from memory to 32-bit lanes, as Dequant's AVX2 leaves.
 *
 * The difference d = q - zp is formed in 32-bit lanes, where the formula's
 * own wrapping subtraction modulo 2^32 is VPSUBD's, so every zero point
 * the plan admits is taken:
 *   INT8, INT16: VPMOVSXBD, VPMOVSXWD: q sign-extended, exactly the
 *     stored value ((raw & mask) ^ sign) - sign.
 *   UINT8, UINT16: VPMOVZXBD, VPMOVZXWD: q zero-extended.
 *   INT4, UINT4, INT2, UINT2 one element per byte (only the low bits
 *     count): the byte zero-extended, then (x & mask) ^ sign, which is
 *     q + sign in [0, 2^bits); subtracting c = sign + zp (wrapping) gives
 *     q - zp modulo 2^32.
 * Then VCVTDQ2PS (binary32(d), nearest-even: the FP state execute admitted)
 * and VMULPS by the scale (nearest-even; no FMA, -ffp-contract=off): the
 * formula's binary32(d) * scale, the two roundings in the element path's
 * order.  BF16 by Cast's rule (sk_avx2_bf16_pack, common/avx2.h).
 *
 * The output is aligned to 32 bytes by a head, outputs beyond the cache
 * stream (stream.h); the head and the tail (fewer than 32 elements) run the
 * generic leaf (affine_dequant_body.h), which computes the same formula. */
#include "affine.h"
#if SK_HAVE_AVX2
SK_TARGET_BEGIN(AVX2)
#include "../common/avx2.h"

/* The generic leaves (affine_dequant_leaves.c): heads and tails. */
sk_span_leaf sk_affine_dequant_w8_f32__avx2, sk_affine_dequant_w8_bf16__avx2, sk_affine_dequant_w16_f32__avx2,
    sk_affine_dequant_w16_bf16__avx2;

enum { BLOCK = SK_AVX2_BLOCK };

/* How a 32-bit lane gets its q (see above). */
enum { IN_I8, IN_U8, IN_SUB, IN_I16, IN_U16 };

typedef struct params {
    __m256 scale;
    __m256i zp; /* the zero point, or sign + zp (IN_SUB), in every lane */
    __m256i mask, sign;
} params;

/* Elements [i, i + 8) widened to 32-bit lanes. */
static inline __attribute__((always_inline)) __m256i load8(const void *src, size_t i, int kind) {
    if (kind == IN_I16 || kind == IN_U16) {
        const __m128i x = _mm_loadu_si128((const __m128i *)((const uint16_t *)src + i));
        return kind == IN_I16 ? _mm256_cvtepi16_epi32(x) : _mm256_cvtepu16_epi32(x);
    }
    const __m128i x = _mm_loadl_epi64((const __m128i *)((const uint8_t *)src + i));
    return kind == IN_I8 ? _mm256_cvtepi8_epi32(x) : _mm256_cvtepu8_epi32(x);
}

/* The 8 FP32 results of elements [i, i + 8). */
static inline __attribute__((always_inline)) __m256 f32x8(const params *p, const void *src, size_t i, int kind) {
    __m256i x = load8(src, i, kind);
    if (kind == IN_SUB) x = _mm256_xor_si256(_mm256_and_si256(x, p->mask), p->sign);
    return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(x, p->zp)), p->scale);
}

/* Elements [i, i + 32): all four groups converted before any is stored. */
static inline __attribute__((always_inline)) void block(const params *p, const void *src, void *dst, size_t i, int kind,
                                                        int bf16, int stream) {
    __m256 v[4];
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) v[k] = f32x8(p, src, i + 8 * (size_t)k, kind);
    if (bf16) {
        uint16_t *o = (uint16_t *)dst + i;
        sk_avx2_store(o, sk_avx2_bf16_pack(_mm256_castps_si256(v[0]), _mm256_castps_si256(v[1])), stream);
        sk_avx2_store(o + 16, sk_avx2_bf16_pack(_mm256_castps_si256(v[2]), _mm256_castps_si256(v[3])), stream);
    } else {
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) sk_avx2_store((float *)dst + i + 8 * k, _mm256_castps_si256(v[k]), stream);
    }
}

/* The run: a head up to 32-byte output alignment and the tail by the
 * generic leaf, whole blocks between (streamed when the run is large). */
static inline __attribute__((always_inline)) void run(const params *p, const sk_affine_dequant_ctx *c, const char *src,
                                                      char *dst, size_t n, int width, int kind, int bf16,
                                                      sk_span_fn generic) {
    const size_t size = bf16 ? 2 : 4;
    size_t i = 0;
    if (n >= BLOCK) {
        i = sk_avx2_head(dst, size, n);
        if (i) generic(c, src, dst, i);
    }
    /* streamed stores need the aligned address the head reached */
    if ((uintptr_t)(dst + i * size) % 32 == 0 && sk_avx2_streams(n - i, n, (size_t)width, size)) {
        for (; i + BLOCK <= n; i += BLOCK) block(p, src, dst, i, kind, bf16, 1);
        _mm_sfence(); /* streamed lines are visible before the call returns */
    } else {
        for (; i + BLOCK <= n; i += BLOCK) block(p, src, dst, i, kind, bf16, 0);
    }
    if (i < n) generic(c, src + i * (size_t)width, dst + i * size, n - i);
}

static inline __attribute__((always_inline)) void span(const void *ctx, const void *src, void *dst, size_t n, int width,
                                                       int bf16) {
    const sk_affine_dequant_ctx *c = ctx;
    const sk_span_fn generic = width == 1 ? (bf16 ? sk_affine_dequant_w8_bf16__avx2 : sk_affine_dequant_w8_f32__avx2)
                                          : (bf16 ? sk_affine_dequant_w16_bf16__avx2 : sk_affine_dequant_w16_f32__avx2);
    params p = {_mm256_set1_ps(c->scale), _mm256_set1_epi32(c->zero_point), _mm256_set1_epi32((int32_t)c->mask),
                _mm256_set1_epi32((int32_t)c->sign)};
    if (width == 2) { /* INT16, UINT16: mask 0xffff */
        if (c->sign)
            run(&p, c, src, dst, n, 2, IN_I16, bf16, generic);
        else
            run(&p, c, src, dst, n, 2, IN_U16, bf16, generic);
    } else if (c->mask == 0xffu) {
        if (c->sign)
            run(&p, c, src, dst, n, 1, IN_I8, bf16, generic);
        else
            run(&p, c, src, dst, n, 1, IN_U8, bf16, generic);
    } else {
        p.zp = _mm256_set1_epi32((int32_t)(c->sign + (uint32_t)c->zero_point));
        run(&p, c, src, dst, n, 1, IN_SUB, bf16, generic);
    }
}

/* The leaves (affine_dequant_kernels.inc). */
void sk_affine_dequant_w8_f32_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 1, 0);
}
void sk_affine_dequant_w8_bf16_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 1, 1);
}
void sk_affine_dequant_w16_f32_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 2, 0);
}
void sk_affine_dequant_w16_bf16_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 2, 1);
}
SK_TARGET_END
#endif
