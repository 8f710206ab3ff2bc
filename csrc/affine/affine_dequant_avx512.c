/* x86-64 affine dequant, AVX-512 (F, BW, VBMI), per-tensor dense leaves for
 * 8-bit and 16-bit stored elements (the span leaves of the AVX512 route's
 * table, affine_dequant_kernels.inc) and the packed sub-byte leaves: 64
 * elements per iteration, 16 per 32-bit lane vector.
 *
 * The difference d = q - zp is formed in 32-bit lanes, where the formula's
 * own wrapping subtraction modulo 2^32 is VPSUBD's, so every zero point
 * the plan admits is taken (no range the fast form needs):
 *   INT8, INT16: VPMOVSXBD, VPMOVSXWD: q sign-extended, exactly the
 *     stored value ((raw & mask) ^ sign) - sign.
 *   UINT8, UINT16: VPMOVZXBD, VPMOVZXWD: q zero-extended.
 *   INT4, UINT4, INT2, UINT2 one element per byte (only the low bits
 *     count), when the context has no table: the byte zero-extended, then
 *     (x & mask) ^ sign in one VPTERNLOGD, which is q + sign in [0,
 *     2^bits); subtracting c = sign + zp (wrapping) gives q - zp modulo 2^32.
 * Then VCVTDQ2PS (binary32(d), nearest-even: the FP state execute admitted)
 * and VMULPS by the scale (nearest-even): the formula's binary32(d) *
 * scale, the two roundings in the same order as the element path.  BF16 by
 * Cast's rule (sk_avx512_bf16_round, common/avx512.h) on the FP32 bits.
 *
 * A per-tensor sub-byte context made at preparation holds the type's 16
 * results (sk_affine_dequant_table_init, by the element path itself: the
 * same bits).  The table's entry v is the result of v & mask for every v
 * in [0, 16), so any index whose low 4 bits are the stored bits picks the
 * right result, whatever its higher bits: VPERMPS (FP32) reads the low 4
 * bits of each 32-bit index, VPERMW (BF16) the low 5 bits of each word, over
 * the 16 words twice.  Packed images are put one element per index lane by
 * VPMULTISHIFTQB (each index's low byte taken from its element's bit
 * offset; the bits above it are its neighbours', which the lookups ignore).
 *
 * Runs whose input and output reach the last-level cache store
 * non-temporally (common/stream.h), after a head that aligns the output
 * to 64 bytes.  Heads and tails of the span leaves run the same block under
 * masks, which neither read nor write outside the run; the main loops load
 * without masks (masked loads from memory are slow on Zen 5).  The packed
 * leaves take whole steps (16 or 32 elements) and return how many elements
 * they did; sk_affine_dequant_dense runs the rest. */
#include "affine.h"
#if SK_HAVE_AVX512
SK_TARGET_BEGIN(AVX512)
#include <immintrin.h>
#include "../common/avx512.h"
#include "../common/stream.h"

enum { BLOCK = 64 };

/* How a 32-bit lane gets its index or its q (see above). */
enum { IN_I8, IN_U8, IN_SUB, IN_TAB, IN_I16, IN_U16 };

/* How a block stores: under masks (heads, tails), plainly, or streamed. */
enum { MASKED, PLAIN, STREAM };

typedef struct params {
    __m512 scale;
    __m512i zp; /* the zero point, or sign + zp (IN_SUB), in every lane */
    __m512i mask, sign;
    __m512 table;  /* IN_TAB, FP32: the 16 results */
    __m512i words; /* IN_TAB, BF16: the 16 results twice */
} params;

/* The context's table (byte planes: table[16 p + v] is byte p of entry v)
 * as 16 FP32 lanes and as 32 BF16 words (entries 0-15, then 0-15 again). */
static inline __attribute__((always_inline)) __m512 table_f32(const sk_affine_dequant_ctx *c) {
    const __m512i b0 = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)c->table));
    const __m512i b1 = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(c->table + 16)));
    const __m512i b2 = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(c->table + 32)));
    const __m512i b3 = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(c->table + 48)));
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_or_si512(b0, _mm512_slli_epi32(b1, 8)),
                                               _mm512_or_si512(_mm512_slli_epi32(b2, 16), _mm512_slli_epi32(b3, 24))));
}

static inline __attribute__((always_inline)) __m512i table_words(const sk_affine_dequant_ctx *c) {
    const __m256i lo = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)c->table));
    const __m256i hi = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(c->table + 16)));
    return _mm512_broadcast_i64x4(_mm256_or_si256(lo, _mm256_slli_epi16(hi, 8)));
}

/* Elements [i, i + 16) widened to 32-bit lanes (`full`: loaded without a
 * mask; else the lanes of m, the others zero). */
static inline __attribute__((always_inline)) __m512i load16(const void *src, size_t i, int kind, __mmask16 m,
                                                            int full) {
    if (kind == IN_I16 || kind == IN_U16) {
        const uint16_t *s = (const uint16_t *)src + i;
        const __m256i x = full ? _mm256_loadu_si256((const __m256i *)s) : _mm256_maskz_loadu_epi16(m, s);
        return kind == IN_I16 ? _mm512_cvtepi16_epi32(x) : _mm512_cvtepu16_epi32(x);
    }
    const uint8_t *s = (const uint8_t *)src + i;
    const __m128i x = full ? _mm_loadu_si128((const __m128i *)s) : _mm_maskz_loadu_epi8(m, s);
    return kind == IN_I8 ? _mm512_cvtepi8_epi32(x) : _mm512_cvtepu8_epi32(x);
}

/* The 16 FP32 results of the widened lanes x. */
static inline __attribute__((always_inline)) __m512 f32x16(const params *p, __m512i x, int kind) {
    if (kind == IN_TAB) return _mm512_permutexvar_ps(x, p->table);                /* the low 4 bits index */
    if (kind == IN_SUB) x = _mm512_ternarylogic_epi32(x, p->mask, p->sign, 0x6a); /* (x & mask) ^ sign */
    return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(x, p->zp)), p->scale);
}

static inline __attribute__((always_inline)) void store_f32(float *o, __m512 v, __mmask16 m, int mode) {
    if (mode == STREAM)
        _mm512_stream_ps(o, v);
    else if (mode == PLAIN)
        _mm512_storeu_ps(o, v);
    else
        _mm512_mask_storeu_ps(o, m, v);
}

static inline __attribute__((always_inline)) void store_words(uint16_t *o, __m512i v, __mmask32 m, int mode) {
    if (mode == STREAM)
        _mm512_stream_si512((void *)o, v);
    else if (mode == PLAIN)
        _mm512_storeu_si512(o, v);
    else
        _mm512_mask_storeu_epi16(o, m, v);
}

/* Elements [i, i + r) of the run, r <= 64 (r = 64 unless MASKED). */
static inline __attribute__((always_inline)) void block(const params *p, const void *src, void *dst, size_t i, size_t r,
                                                        int kind, int bf16, int mode) {
    const __mmask64 m = r >= BLOCK ? ~(__mmask64)0 : ((__mmask64)1 << r) - 1;
    const int full = mode != MASKED;
    if (kind == IN_TAB && bf16) { /* one word lookup per 32 elements */
#pragma GCC unroll 4
        for (int k = 0; k < 2; ++k) {
            const uint8_t *s = (const uint8_t *)src + i + 32 * k;
            const __mmask32 mk = (__mmask32)(m >> (32 * k));
            const __m256i x = full ? _mm256_loadu_si256((const __m256i *)s) : _mm256_maskz_loadu_epi8(mk, s);
            store_words((uint16_t *)dst + i + 32 * k, _mm512_permutexvar_epi16(_mm512_cvtepu8_epi16(x), p->words), mk,
                        mode);
        }
        return;
    }
    __m512 v[4];
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) v[k] = f32x16(p, load16(src, i + 16 * k, kind, (__mmask16)(m >> (16 * k)), full), kind);
    if (bf16) {
        uint16_t *o = (uint16_t *)dst + i;
        store_words(o, sk_avx512_bf16_pack(v[0], v[1]), (__mmask32)m, mode);
        store_words(o + 32, sk_avx512_bf16_pack(v[2], v[3]), (__mmask32)(m >> 32), mode);
    } else {
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) store_f32((float *)dst + i + 16 * k, v[k], (__mmask16)(m >> (16 * k)), mode);
    }
}

/* Elements before `out` is 64-byte aligned; SIZE_MAX when it is not
 * aligned to its element (no streamed store can then be aligned). */
static inline size_t head_of(const void *out, size_t size) {
    const uintptr_t a = (uintptr_t)out;
    return a % size ? SIZE_MAX : ((size_t)0 - a) % 64 / size;
}

/* The run: whole blocks (streamed after a masked head when the run is
 * large), then the masked tail. */
static inline __attribute__((always_inline)) void run(const params *p, const void *src, void *dst, size_t n, int width,
                                                      int kind, int bf16) {
    const size_t size = bf16 ? 2 : 4, head = head_of(dst, size);
    size_t i = 0;
    if (n >= BLOCK && head < BLOCK && sk_stream_run(n, (size_t)width, size)) {
        if (head) block(p, src, dst, 0, head, kind, bf16, MASKED);
        for (i = head; i + BLOCK <= n; i += BLOCK) block(p, src, dst, i, BLOCK, kind, bf16, STREAM);
        _mm_sfence(); /* streamed lines are visible before the call returns */
    } else {
        for (; i + BLOCK <= n; i += BLOCK) block(p, src, dst, i, BLOCK, kind, bf16, PLAIN);
    }
    if (i < n) block(p, src, dst, i, n - i, kind, bf16, MASKED);
}

static inline __attribute__((always_inline)) void span(const void *ctx, const void *src, void *dst, size_t n, int width,
                                                       int bf16) {
    const sk_affine_dequant_ctx *c = ctx;
    params p = {_mm512_set1_ps(c->scale),
                _mm512_set1_epi32(c->zero_point),
                _mm512_set1_epi32((int32_t)c->mask),
                _mm512_set1_epi32((int32_t)c->sign),
                _mm512_setzero_ps(),
                _mm512_setzero_si512()};
    if (width == 2) { /* INT16, UINT16: mask 0xffff */
        if (c->sign)
            run(&p, src, dst, n, 2, IN_I16, bf16);
        else
            run(&p, src, dst, n, 2, IN_U16, bf16);
    } else if (c->mask == 0xffu) {
        if (c->sign)
            run(&p, src, dst, n, 1, IN_I8, bf16);
        else
            run(&p, src, dst, n, 1, IN_U8, bf16);
    } else if (c->table_ready) { /* a per-tensor sub-byte context: its results */
        if (bf16)
            p.words = table_words(c);
        else
            p.table = table_f32(c);
        run(&p, src, dst, n, 1, IN_TAB, bf16);
    } else {
        p.zp = _mm512_set1_epi32((int32_t)(c->sign + (uint32_t)c->zero_point));
        run(&p, src, dst, n, 1, IN_SUB, bf16);
    }
}

/* ---- Packed INT4, UINT4, INT2, UINT2 by table --------------------------
 * Each step's index lanes come from one load: FP32 (16 elements, 8 bytes of
 * INT4 or 4 of INT2) broadcasts them to every 64-bit lane, so that dword k's
 * low byte can be taken from bit offset bits * k; BF16 (32 elements: 16
 * bytes of INT4, 8 of INT2) zero-extends 2 bytes (INT4) or 1 (INT2) into
 * each 64-bit lane, whose four words take bit offsets 0, bits, 2 bits, 3
 * bits.  VPMULTISHIFTQB takes 8 bits from each control byte's offset within
 * the lane; only the index byte's control matters. */

/* One step at element i: FP32 16 results, BF16 32. */
static inline __attribute__((always_inline)) void packed_step(const params *p, __m512i ctrl, const uint8_t *src,
                                                              void *dst, size_t i, int bits, int bf16, int mode) {
    const uint8_t *s = src + i * (size_t)bits / 8;
    if (bf16) {
        const __m512i x = bits == 4 ? _mm512_cvtepu16_epi64(_mm_loadu_si128((const __m128i *)s))
                                    : _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)s));
        store_words((uint16_t *)dst + i, _mm512_permutexvar_epi16(_mm512_multishift_epi64_epi8(ctrl, x), p->words), 0,
                    mode);
    } else {
        __m512i x;
        if (bits == 4) {
            uint64_t q;
            memcpy(&q, s, sizeof q);
            x = _mm512_set1_epi64((long long)q);
        } else {
            uint32_t d;
            memcpy(&d, s, sizeof d);
            x = _mm512_set1_epi32((int)d);
        }
        store_f32((float *)dst + i, _mm512_permutexvar_ps(_mm512_multishift_epi64_epi8(ctrl, x), p->table), 0, mode);
    }
}

static inline __attribute__((always_inline)) size_t packed_steps(const sk_affine_dequant_ctx *c, const params *p,
                                                                 const uint8_t *src, void *dst, size_t n, int bits,
                                                                 int bf16) {
    /* Control bytes: FP32, dword 2q and 2q + 1 of 64-bit lane q hold
     * elements 2q and 2q + 1 (offsets 2q bits, (2q + 1) bits); BF16, word j
     * of every lane holds element 4q + j (offset j bits). */
    const long long b = bits;
    const __m512i ctrl =
        bf16 ? _mm512_set1_epi64((b << 16) | (2 * b << 32) | (3 * b << 48))
             : _mm512_setr_epi64(0 | (b << 32), (2 * b) | (3 * b << 32), (4 * b) | (5 * b << 32),
                                 (6 * b) | (7 * b << 32), (8 * b) | (9 * b << 32), (10 * b) | (11 * b << 32),
                                 (12 * b) | (13 * b << 32), (14 * b) | (15 * b << 32));
    const size_t size = bf16 ? 2 : 4, step = bf16 ? 32 : 16, head = head_of(dst, size);
    size_t i = 0;
    /* Streamed when large and the head ends on a byte of the image. */
    if (n >= BLOCK && head < step && head * (size_t)bits % 8 == 0 &&
        n * size + n * (size_t)bits / 8 >= sk_stream_threshold()) {
        for (; i < head; ++i) sk_ad_table_element(c, src, dst, i, bits, size);
        for (; i + BLOCK <= n; i += BLOCK)
#pragma GCC unroll 4
            for (size_t k = 0; k < BLOCK; k += step) packed_step(p, ctrl, src, dst, i + k, bits, bf16, STREAM);
        for (; i + step <= n; i += step) packed_step(p, ctrl, src, dst, i, bits, bf16, STREAM);
        _mm_sfence(); /* streamed lines are visible before the call returns */
        return i;
    }
    for (; i + BLOCK <= n; i += BLOCK)
#pragma GCC unroll 4
        for (size_t k = 0; k < BLOCK; k += step) packed_step(p, ctrl, src, dst, i + k, bits, bf16, PLAIN);
    for (; i + step <= n; i += step) packed_step(p, ctrl, src, dst, i, bits, bf16, PLAIN);
    return i;
}

static inline __attribute__((always_inline)) size_t packed(const void *ctx, const void *src, void *dst, size_t n,
                                                           int bf16) {
    const sk_affine_dequant_ctx *c = ctx;
    if (!c->table_ready || (c->mask != 0xfu && c->mask != 0x3u)) return 0;
    params p;
    memset(&p, 0, sizeof p);
    if (bf16)
        p.words = table_words(c);
    else
        p.table = table_f32(c);
    return c->mask == 0xfu ? packed_steps(c, &p, src, dst, n, 4, bf16) : packed_steps(c, &p, src, dst, n, 2, bf16);
}

/* The leaves (affine_dequant_kernels.inc). */
size_t sk_affine_dequant_packed_f32__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return packed(ctx, src, dst, n, 0);
}
size_t sk_affine_dequant_packed_bf16__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    return packed(ctx, src, dst, n, 1);
}
void sk_affine_dequant_w8_f32_dense__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 1, 0);
}
void sk_affine_dequant_w8_bf16_dense__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 1, 1);
}
void sk_affine_dequant_w16_f32_dense__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 2, 0);
}
void sk_affine_dequant_w16_bf16_dense__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    span(ctx, src, dst, n, 2, 1);
}
SK_TARGET_END
#endif
