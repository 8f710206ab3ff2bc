/* AVX2 affine quant, per-tensor dense leaves (the span and packed leaves of
 * the route's table, affine_quant_kernels.inc): the products of the INT8
 * Quant leaves (../quant/quant_avx2_lanes.h, 32 elements a block) with the
 * storage type's own narrowing.
 *
 * One binary32 multiply and a conversion to int32 by the mode; NaN and
 * products of magnitude 2^31 or more convert to INT32_MIN (the integer
 * indefinite).  Then, with r the converted value and zp in the type's
 * range [lo, hi]:
 *   INT8, UINT8 and the sub-byte types: r saturated to int16 (packs), zp
 *     added with int16 saturation, the sum saturated to bytes (packs for a
 *     signed type, packus for an unsigned one), as Quant's INT8 leaf does:
 *     an int16 lane at 32767 or -32767 is beyond [-128, 255] after any
 *     zero point of these types (|zp| <= 255), and so is a saturated sum.
 *     INT4 and INT2 clamp the bytes to [lo, hi] (signed byte max and min;
 *     saturating twice to nested ranges is saturating once) and keep their
 *     low bits; UINT4 and UINT2 take the unsigned minimum with hi.  A lane
 *     at -32768 (INT32_MIN, or a product at or below -32767.5) may be wrong
 *     and its block is redone.
 *   INT16, UINT16: zp added in int32, the sum saturated to 16 bits (packs
 *     for INT16, packus for UINT16).  Exact while |r| < 2^30 (the sum
 *     cannot wrap, |zp| <= 65535); a block with a lane of magnitude 2^30
 *     or more (INT32_MIN included) is redone.
 * Redone blocks take the exact integer path (affine.h).  The test runs per
 * chunk of 32 blocks, as Quant's INT8 leaves do (quant_blocks.h): the
 * chunk keeps its least int16 lane (or greatest magnitude) and only a
 * chunk that shows such a lane is gone over again.
 *
 * Packed outputs (INT4, UINT4, INT2, UINT2), fused: the blocks' bytes (low
 * bits, element order) joined by multiply-adds, whose products are the
 * bit positions: INT4 pairs as x[2k] + 16 x[2k + 1] (pmaddubsw), INT2
 * pairs as x[2k] + 4 x[2k + 1] and pairs of those as p[2k] + 16 p[2k + 1]
 * (pmaddwd), every sum below 256; then narrowed by unsigned saturating
 * packs (exact) and put in element order.  A group holding a lane at
 * -32768 is made by the exact path and packed (sk_pack_bytes).
 *
 * Under flushing (FTZ/DAZ) the generic leaves (affine_quant_leaves.c) run
 * instead, with their repair test, and the packed leaf does nothing (the
 * engine packs the span leaf's chunks); so does the tail of fewer than a
 * block. */
#include "affine.h"
#if SK_HAVE_AVX2
SK_TARGET_BEGIN(AVX2)
#include "../quant/quant_avx2_lanes.h"
#include "../common/stream.h"

/* The generic leaves (affine_quant_leaves.c), for what these do not take. */
sk_span_leaf sk_affine_quant_f32_ne__avx2, sk_affine_quant_f32_tz__avx2, sk_affine_quant_f32_tp__avx2,
    sk_affine_quant_f32_tn__avx2, sk_affine_quant_bf16_ne__avx2, sk_affine_quant_bf16_tz__avx2,
    sk_affine_quant_bf16_tp__avx2, sk_affine_quant_bf16_tn__avx2, sk_affine_quant_f16_ne__avx2,
    sk_affine_quant_f16_tz__avx2, sk_affine_quant_f16_tp__avx2, sk_affine_quant_f16_tn__avx2;

enum { BLOCK = 32, CHUNK = 32 * BLOCK, HUGE_BITS = 30 };

/* The context's values as vectors, made once per call. */
typedef struct params {
    __m256 m;
    __m256i zp16, zp32, lo8, hi8, mask8;
} params;

static inline __attribute__((always_inline)) params make_params(const sk_affine_quant_ctx *c) {
    const params p = {_mm256_set1_ps(c->multiplier),       _mm256_set1_epi16((short)c->zero_point),
                      _mm256_set1_epi32(c->zero_point),    _mm256_set1_epi8((char)c->least),
                      _mm256_set1_epi8((char)c->greatest), _mm256_set1_epi8((char)c->mask)};
    return p;
}

/* A block of a one-byte type: its 32 bytes from the int16 lanes of
 * q_products (the sub-byte types' low bits only), in the packs' order
 * (q_in_order puts them in element order). */
static inline __attribute__((always_inline)) __m256i block_bytes(const params *q, __m256i a, __m256i b,
                                                                 enum sk_aq_kind kind) {
    a = _mm256_adds_epi16(a, q->zp16);
    b = _mm256_adds_epi16(b, q->zp16);
    __m256i x;
    if (kind == SK_AQ_I8 || kind == SK_AQ_ISUB) {
        x = _mm256_packs_epi16(a, b);
        if (kind == SK_AQ_ISUB) x = _mm256_and_si256(_mm256_min_epi8(_mm256_max_epi8(x, q->lo8), q->hi8), q->mask8);
    } else {
        x = _mm256_packus_epi16(a, b);
        if (kind == SK_AQ_USUB) x = _mm256_min_epu8(x, q->hi8);
    }
    return x;
}

/* The greatest magnitude of a block's int32 lanes, unsigned (INT32_MIN's
 * is 2^31), and whether every lane of such a maximum is below 2^30. */
static inline __attribute__((always_inline)) __m256i magnitude(const __m256i r[4]) {
    return _mm256_max_epu32(_mm256_max_epu32(_mm256_abs_epi32(r[0]), _mm256_abs_epi32(r[1])),
                            _mm256_max_epu32(_mm256_abs_epi32(r[2]), _mm256_abs_epi32(r[3])));
}
static inline __attribute__((always_inline)) int below_huge(__m256i mag) {
    const __m256i high = _mm256_srli_epi32(mag, HUGE_BITS);
    return _mm256_testz_si256(high, high);
}

static inline __attribute__((always_inline)) void store(void *out, __m256i v, int stream) {
    if (stream)
        _mm256_stream_si256((__m256i *)out, v);
    else
        _mm256_storeu_si256((__m256i *)out, v);
}

/* The 16-bit types' sums of a block saturated and stored at out: the
 * int32 -> int16 packs leave BF16's lanes in order, the others' 8-byte
 * groups as 0 2 1 3. */
static inline __attribute__((always_inline)) void store_words(const params *q, const __m256i r[4], uint16_t *out,
                                                              int input, enum sk_aq_kind kind, int stream) {
#pragma GCC unroll 2
    for (int k = 0; k < 4; k += 2) {
        const __m256i s0 = _mm256_add_epi32(r[k], q->zp32), s1 = _mm256_add_epi32(r[k + 1], q->zp32);
        __m256i w = kind == SK_AQ_I16 ? _mm256_packs_epi32(s0, s1) : _mm256_packus_epi32(s0, s1);
        if (input != SK_QUANT_BF16) w = _mm256_permute4x64_epi64(w, _MM_SHUFFLE(3, 1, 2, 0));
        store(out + 8 * k, w, stream);
    }
}

/* Blocks [i, end), chunk by chunk. */
static inline __attribute__((always_inline)) void blocks(const sk_affine_quant_ctx *c, const void *src, void *out,
                                                         size_t i, size_t end, int input, int mode,
                                                         enum sk_aq_kind kind, int stream) {
    const params q = make_params(c);
    const int words = kind == SK_AQ_I16 || kind == SK_AQ_U16;
    while (i < end) {
        const size_t chunk_end = end - i > CHUNK ? i + CHUNK : end;
        __m256i seen = words ? _mm256_setzero_si256() : _mm256_set1_epi16(INT16_MAX);
        for (size_t j = i; j < chunk_end; j += BLOCK) {
            if (words) {
                __m256i r[4];
                q_products32(src, j, input, q.m, mode, r, 1);
                seen = _mm256_max_epu32(seen, magnitude(r));
                store_words(&q, r, (uint16_t *)out + j, input, kind, stream);
            } else {
                __m256i a, b;
                q_products(src, j, input, q.m, mode, &a, &b, 1);
                seen = _mm256_min_epi16(seen, _mm256_min_epi16(a, b));
                store((uint8_t *)out + j, q_in_order(block_bytes(&q, a, b, kind), input, 1), stream);
            }
        }
        if (__builtin_expect(words ? !below_huge(seen) : !q_no_indefinite(seen, seen), 0)) {
            if (stream) _mm_sfence(); /* the exact elements land after the streamed ones they replace */
            for (size_t j = i; j < chunk_end; j += BLOCK) {
                int redo;
                if (words) {
                    __m256i r[4];
                    q_products32(src, j, input, q.m, mode, r, 1);
                    redo = !below_huge(magnitude(r));
                } else {
                    __m256i a, b;
                    q_products(src, j, input, q.m, mode, &a, &b, 1);
                    redo = !q_no_indefinite(a, b);
                }
                if (redo) sk_aq_exact_span(c, src, out, j, j + BLOCK, input, mode);
            }
        }
        i = chunk_end;
    }
}

/* A run of n elements: the blocks (streamed from a head that aligns the
 * output to 32 bytes when the run's traffic reaches the cache size,
 * stream.h), the head and the rest by the generic leaf. */
static inline __attribute__((always_inline)) void run(const sk_affine_quant_ctx *c, const void *src, void *out,
                                                      size_t n, int input, int mode, sk_span_leaf *generic,
                                                      enum sk_aq_kind kind) {
    const size_t size = input == SK_QUANT_F32 ? 4 : 2, width = (size_t)c->width;
    size_t i = 0;
    const int stream = n >= 2 * BLOCK && (uintptr_t)out % width == 0 && sk_stream_run(n, size, width);
    if (stream) {
        i = (size_t)(-(uintptr_t)out & 31) / width;
        generic(c, src, out, i);
    }
    const size_t end = i + (n - i) / BLOCK * BLOCK;
    if (stream) {
        blocks(c, src, out, i, end, input, mode, kind, 1);
        _mm_sfence(); /* order the streamed stores before whatever follows */
    } else {
        blocks(c, src, out, i, end, input, mode, kind, 0);
    }
    if (end < n) generic(c, (const char *)src + end * size, (char *)out + end * width, n - end);
}

/* The span leaves. */
static inline __attribute__((always_inline)) void span(const void *ctx, const void *src, void *dst, size_t n, int input,
                                                       int mode, sk_span_leaf *generic) {
    const sk_affine_quant_ctx *c = ctx;
    if (c->flushes) {
        generic(ctx, src, dst, n);
        return;
    }
    SK_AQ_BY_KIND(c, run, c, src, dst, n, input, mode, generic);
}

/* ---- Packed sub-byte output, fused --------------------------------------- */
/* The group of `count` elements from element i by the exact path, packed. */
static __attribute__((noinline)) void exact_group(const sk_affine_quant_ctx *c, const void *src, uint8_t *dst, size_t i,
                                                  size_t count, int input, int mode, int bits) {
    _Alignas(32) uint8_t one[4 * BLOCK];
    const size_t size = input == SK_QUANT_F32 ? 4 : 2;
    sk_aq_exact_span(c, (const char *)src + i * size, one, 0, count, input, mode);
    sk_pack_bytes(bits, one, dst + i * (size_t)bits / 8, count);
}

/* A group's packed bytes: 64 elements (INT4, UINT4) or 128 (INT2, UINT2)
 * from the blocks' bytes in the packs' order (block_bytes), whose 4-byte
 * groups of consecutive elements (8-byte groups for BF16) the joins keep
 * together; the last shuffles put the joined bytes in element order. */
static inline __attribute__((always_inline)) __m256i group_bytes(const __m256i x[4], int input, int bits) {
    if (bits == 4) { /* x[2k] + 16 x[2k + 1] in 16 bits */
        const __m256i join = _mm256_set1_epi16(0x1001);
        const __m256i w = _mm256_packus_epi16(_mm256_maddubs_epi16(x[0], join), _mm256_maddubs_epi16(x[1], join));
        if (input == SK_QUANT_BF16) /* 4-byte groups of 8 elements: 0 2 4 6 1 3 5 7 */
            return _mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        /* 2-byte groups of 4 elements, per lane: 0 2 4 6 8 10 12 14, then odd */
        const __m256i halves = _mm256_permute4x64_epi64(w, _MM_SHUFFLE(3, 1, 2, 0));
        const __m256i interleave = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15, 0, 1, 8, 9, 2,
                                                    3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
        return _mm256_shuffle_epi8(halves, interleave);
    }
    /* x[4k] + 4 x[4k + 1] + 16 x[4k + 2] + 64 x[4k + 3] in 32 bits */
    const __m256i pair = _mm256_set1_epi16(0x0401), quad = _mm256_set1_epi32(0x00100001);
    __m256i u[4];
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) u[k] = _mm256_madd_epi16(_mm256_maddubs_epi16(x[k], pair), quad);
    const __m256i w = _mm256_packus_epi16(_mm256_packus_epi32(u[0], u[1]), _mm256_packus_epi32(u[2], u[3]));
    /* each 8-byte half of a lane: block k's bytes from its first lane (a) then its second (b) */
    const __m256i halves = _mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    const __m256i interleave = input == SK_QUANT_BF16 /* a holds groups 0 1 4 5, b 2 3 6 7 */
                                   ? _mm256_setr_epi8(0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15, 0, 1, 4, 5,
                                                      2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15)
                                   /* a holds groups 0 2 4 6, b 1 3 5 7 */
                                   : _mm256_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 0, 4, 1, 5,
                                                      2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
    return _mm256_shuffle_epi8(halves, interleave);
}

/* Whole groups from 0, chunk by chunk (the test as the span leaves'; a
 * group with a lane at -32768 is made again exactly); returns where they
 * stopped. */
static inline __attribute__((always_inline)) size_t packed(const sk_affine_quant_ctx *c, const void *src, uint8_t *dst,
                                                           size_t n, int input, int mode, enum sk_aq_kind kind,
                                                           int bits) {
    const params q = make_params(c);
    const size_t group = bits == 4 ? 2 * BLOCK : 4 * BLOCK, end = n / group * group;
    for (size_t i = 0; i < end;) {
        const size_t chunk_end = end - i > CHUNK ? i + CHUNK : end;
        __m256i seen = _mm256_set1_epi16(INT16_MAX);
        for (size_t j = i; j < chunk_end; j += group) {
            __m256i x[4] = {0}; /* (INT4 uses two) */
#pragma GCC unroll 4
            for (size_t k = 0; k < group / BLOCK; ++k) {
                __m256i a, b;
                q_products(src, j + k * BLOCK, input, q.m, mode, &a, &b, 1);
                seen = _mm256_min_epi16(seen, _mm256_min_epi16(a, b));
                x[k] = block_bytes(&q, a, b, kind);
            }
            _mm256_storeu_si256((__m256i *)(dst + j * (size_t)bits / 8), group_bytes(x, input, bits));
        }
        if (__builtin_expect(!q_no_indefinite(seen, seen), 0)) {
            for (size_t j = i; j < chunk_end; j += group) {
                int redo = 0;
                for (size_t k = 0; k < group / BLOCK; ++k) {
                    __m256i a, b;
                    q_products(src, j + k * BLOCK, input, q.m, mode, &a, &b, 1);
                    redo |= !q_no_indefinite(a, b);
                }
                if (redo) exact_group(c, src, dst, j, group, input, mode, bits);
            }
        }
        i = chunk_end;
    }
    return end;
}

static inline __attribute__((always_inline)) size_t packed_span(const void *ctx, const void *src, void *dst, size_t n,
                                                                int input, int mode) {
    const sk_affine_quant_ctx *c = ctx;
    const int bits = sk_aq_sub_bits(c);
    if (c->flushes || !bits) return 0;
    return c->least < 0 ? packed(c, src, dst, n, input, mode, SK_AQ_ISUB, bits)
                        : packed(c, src, dst, n, input, mode, SK_AQ_USUB, bits);
}

/* The leaves (affine_quant_kernels.inc). */
void sk_affine_quant_f32_ne_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN, sk_affine_quant_f32_ne__avx2);
}
void sk_affine_quant_f32_tz_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO, sk_affine_quant_f32_tz__avx2);
}
void sk_affine_quant_f32_tp_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE, sk_affine_quant_f32_tp__avx2);
}
void sk_affine_quant_f32_tn_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE, sk_affine_quant_f32_tn__avx2);
}
void sk_affine_quant_bf16_ne_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN, sk_affine_quant_bf16_ne__avx2);
}
void sk_affine_quant_bf16_tz_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO, sk_affine_quant_bf16_tz__avx2);
}
void sk_affine_quant_bf16_tp_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE, sk_affine_quant_bf16_tp__avx2);
}
void sk_affine_quant_bf16_tn_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE, sk_affine_quant_bf16_tn__avx2);
}
void sk_affine_quant_f16_ne_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN, sk_affine_quant_f16_ne__avx2);
}
void sk_affine_quant_f16_tz_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO, sk_affine_quant_f16_tz__avx2);
}
void sk_affine_quant_f16_tp_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE, sk_affine_quant_f16_tp__avx2);
}
void sk_affine_quant_f16_tn_dense__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE, sk_affine_quant_f16_tn__avx2);
}
size_t sk_affine_quant_f32_ne_packed__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN);
}
size_t sk_affine_quant_f32_tz_packed__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO);
}
size_t sk_affine_quant_f32_tp_packed__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_affine_quant_f32_tn_packed__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_affine_quant_bf16_ne_packed__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN);
}
size_t sk_affine_quant_bf16_tz_packed__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO);
}
size_t sk_affine_quant_bf16_tp_packed__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_affine_quant_bf16_tn_packed__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE);
}
size_t sk_affine_quant_f16_ne_packed__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN);
}
size_t sk_affine_quant_f16_tz_packed__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO);
}
size_t sk_affine_quant_f16_tp_packed__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE);
}
size_t sk_affine_quant_f16_tn_packed__avx2(const void *ctx, const void *src, void *dst, size_t n) {
    return packed_span(ctx, src, dst, n, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE);
}
SK_TARGET_END
#endif
