/* x86-64 affine dequant, AVX2, per-tensor dense leaves for 8-, 16- and
 * 32-bit stored elements (the span leaves of the AVX2 route's table,
 * affine_dequant_kernels.inc) and the packed sub-byte leaves (below): 32
 * elements per iteration, each group of 8 widened straight from memory to
 * 32-bit lanes, as Dequant's AVX2 leaves.
 *
 * The difference d = q - zp is formed in 32-bit lanes, where the formula's
 * own wrapping subtraction modulo 2^32 is VPSUBD's, so every zero point
 * the plan admits is taken:
 *   INT8, INT16: VPMOVSXBD, VPMOVSXWD: q sign-extended, exactly the
 *     stored value ((raw & mask) ^ sign) - sign.
 *   UINT8, UINT16: VPMOVZXBD, VPMOVZXWD: q zero-extended.
 *   INT32, UINT32: the stored word itself (q modulo 2^32 either way).
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
    sk_affine_dequant_w16_bf16__avx2, sk_affine_dequant_w32_f32__avx2, sk_affine_dequant_w32_bf16__avx2;

enum { BLOCK = SK_AVX2_BLOCK };

/* How a 32-bit lane gets its q (see above). */
enum { IN_I8, IN_U8, IN_SUB, IN_I16, IN_U16, IN_32 };

typedef struct params {
    __m256 scale;
    __m256i zp; /* the zero point, or sign + zp (IN_SUB), in every lane */
    __m256i mask, sign;
} params;

/* Elements [i, i + 8) widened to 32-bit lanes. */
static inline __attribute__((always_inline)) __m256i load8(const void *src, size_t i, int kind) {
    if (kind == IN_32) return _mm256_loadu_si256((const __m256i *)((const uint32_t *)src + i));
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
                               : width == 2
                                   ? (bf16 ? sk_affine_dequant_w16_bf16__avx2 : sk_affine_dequant_w16_f32__avx2)
                                   : (bf16 ? sk_affine_dequant_w32_bf16__avx2 : sk_affine_dequant_w32_f32__avx2);
    params p = {_mm256_set1_ps(c->scale), _mm256_set1_epi32(c->zero_point), _mm256_set1_epi32((int32_t)c->mask),
                _mm256_set1_epi32((int32_t)c->sign)};
    if (width == 4) { /* INT32, UINT32 */
        run(&p, c, src, dst, n, 4, IN_32, bf16, generic);
    } else if (width == 2) { /* INT16, UINT16: mask 0xffff */
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

/* ---- Packed INT4, UINT4, INT2, UINT2 by table --------------------------
 * A per-tensor sub-byte context made at preparation holds the type's 16
 * results (sk_affine_dequant_table_init, by the element path itself: the
 * same bits); entry v is the result of v & mask, so an index needs only
 * its low 4 bits right.  BF16, 32 elements per step: the nibbles or crumbs
 * masked apart and interleaved into element order (an index byte per
 * element, each below 16), VPSHUFB of the low and of the high byte plane,
 * the two interleaved into words.  FP32 computes instead (fewer shuffles
 * than a 16-entry lookup in 8-lane permutes), 8 elements per step: their 4
 * (INT4) or 2 (INT2) bytes in every lane, VPSLLVD putting element k's top
 * bit at bit 31, then an arithmetic (signed types) or logical shift right
 * by 32 - bits: q exactly, sign-extended as ((raw & mask) ^ sign) - sign
 * is; then d = q - zp wrapping, VCVTDQ2PS and VMULPS, the formula as in the
 * span leaves.  Whole steps only; the leaves return how
 * many elements they did and sk_affine_dequant_dense runs the rest. */

/* 32 BF16 words (two vectors, elements 0-15 and 16-31) of the index bytes
 * of elements 0-15 (e0) and 16-31 (e1). */
static inline __attribute__((always_inline)) void words32(__m256i lo_plane, __m256i hi_plane, __m128i e0, __m128i e1,
                                                          __m256i *a, __m256i *b) {
    const __m256i idx = _mm256_inserti128_si256(_mm256_castsi128_si256(e0), e1, 1);
    const __m256i l = _mm256_shuffle_epi8(lo_plane, idx), h = _mm256_shuffle_epi8(hi_plane, idx);
    const __m256i w0 = _mm256_unpacklo_epi8(l, h), w1 = _mm256_unpackhi_epi8(l, h); /* 0-7 | 16-23, 8-15 | 24-31 */
    *a = _mm256_permute2x128_si256(w0, w1, 0x20);
    *b = _mm256_permute2x128_si256(w0, w1, 0x31);
}

static inline __attribute__((always_inline)) void packed_step(const sk_affine_dequant_ctx *c, const __m256i *t,
                                                              const uint8_t *src, void *dst, size_t i, int bits,
                                                              int bf16, int sgn, int stream) {
    const uint8_t *s = src + i * (size_t)bits / 8;
    if (bf16) {
        __m128i e0, e1;
        if (bits == 4) { /* 16 bytes: low nibbles are the even elements */
            const __m128i x = _mm_loadu_si128((const __m128i *)s), low = _mm_set1_epi8(0x0f);
            const __m128i even = _mm_and_si128(x, low), odd = _mm_and_si128(_mm_srli_epi16(x, 4), low);
            e0 = _mm_unpacklo_epi8(even, odd);
            e1 = _mm_unpackhi_epi8(even, odd);
        } else { /* 8 bytes: crumb k of byte j is element 4j + k */
            const __m128i x = _mm_loadl_epi64((const __m128i *)s), low = _mm_set1_epi8(0x03);
            const __m128i c0 = _mm_and_si128(x, low), c1 = _mm_and_si128(_mm_srli_epi16(x, 2), low);
            const __m128i c2 = _mm_and_si128(_mm_srli_epi16(x, 4), low), c3 = _mm_and_si128(_mm_srli_epi16(x, 6), low);
            const __m128i a = _mm_unpacklo_epi8(c0, c1), b = _mm_unpacklo_epi8(c2, c3);
            e0 = _mm_unpacklo_epi16(a, b);
            e1 = _mm_unpackhi_epi16(a, b);
        }
        __m256i w0, w1;
        words32(t[0], t[1], e0, e1, &w0, &w1);
        sk_avx2_store((uint16_t *)dst + i, w0, stream);
        sk_avx2_store((uint16_t *)dst + i + 16, w1, stream);
    } else {
        uint32_t d = 0;
        memcpy(&d, s, (size_t)bits); /* 8 elements: 4 bytes (INT4) or 2 (INT2) */
        const __m256i top = bits == 4 ? _mm256_setr_epi32(28, 24, 20, 16, 12, 8, 4, 0)
                                      : _mm256_setr_epi32(30, 28, 26, 24, 22, 20, 18, 16);
        const __m256i x = _mm256_sllv_epi32(_mm256_set1_epi32((int)d), top);
        const __m256i q = sgn ? _mm256_srai_epi32(x, 32 - bits) : _mm256_srli_epi32(x, 32 - bits);
        const __m256 r = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(q, t[0])), _mm256_castsi256_ps(t[1]));
        sk_avx2_store((float *)dst + i, _mm256_castps_si256(r), stream);
    }
    (void)c;
}

static inline __attribute__((always_inline)) size_t packed_steps(const sk_affine_dequant_ctx *c, const uint8_t *src,
                                                                 void *dst, size_t n, int bits, int bf16, int sgn) {
    __m256i t[2];
    if (bf16) { /* the low and the high byte plane, in both halves */
        t[0] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)c->table));
        t[1] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(c->table + 16)));
    } else { /* the zero point and the scale's bits */
        t[0] = _mm256_set1_epi32(c->zero_point);
        t[1] = _mm256_castps_si256(_mm256_set1_ps(c->scale));
    }
    const size_t size = bf16 ? 2 : 4, step = bf16 ? 32 : 8;
    size_t i = 0, head = ((size_t)0 - (uintptr_t)dst) % 32 / size;
    /* Streamed when large, the output whole elements and the head ending on a byte of the image. */
    if (n >= BLOCK && (uintptr_t)dst % size == 0 && head * (size_t)bits % 8 == 0 &&
        n * size + n * (size_t)bits / 8 >= sk_stream_threshold()) {
        for (; i < head; ++i) sk_ad_table_element(c, src, dst, i, bits, size);
        for (; i + BLOCK <= n; i += BLOCK)
#pragma GCC unroll 4
            for (size_t k = 0; k < BLOCK; k += step) packed_step(c, t, src, dst, i + k, bits, bf16, sgn, 1);
        for (; i + step <= n; i += step) packed_step(c, t, src, dst, i, bits, bf16, sgn, 1);
        _mm_sfence(); /* streamed lines are visible before the call returns */
        return i;
    }
    for (; i + BLOCK <= n; i += BLOCK)
#pragma GCC unroll 4
        for (size_t k = 0; k < BLOCK; k += step) packed_step(c, t, src, dst, i + k, bits, bf16, sgn, 0);
    for (; i + step <= n; i += step) packed_step(c, t, src, dst, i, bits, bf16, sgn, 0);
    return i;
}

static inline __attribute__((always_inline)) size_t packed(const void *ctx, const void *src, void *dst, size_t n,
                                                           int bf16) {
    const sk_affine_dequant_ctx *c = ctx;
    if (!c->table_ready || (c->mask != 0xfu && c->mask != 0x3u)) return 0;
    if (c->mask == 0xfu)
        return c->sign ? packed_steps(c, src, dst, n, 4, bf16, 1) : packed_steps(c, src, dst, n, 4, bf16, 0);
    return c->sign ? packed_steps(c, src, dst, n, 2, bf16, 1) : packed_steps(c, src, dst, n, 2, bf16, 0);
}

/* The leaves (affine_dequant_kernels.inc). */
size_t sk_affine_dequant_packed_f32__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed(ctx, src, dst, n, 0);
}
size_t sk_affine_dequant_packed_bf16__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed(ctx, src, dst, n, 1);
}
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
void sk_affine_dequant_w32_f32_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 4, 0);
}
void sk_affine_dequant_w32_bf16_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 4, 1);
}
SK_TARGET_END
#endif
