/* x86-64 Dequant, AVX-512 (BW and VBMI), BF16 output: a table lookup.  An
 * INT8 input has 256 values, so the plan holds the 256 BF16 results, made
 * at preparation by the scalar staged expression (dequant.c), as a plane of
 * low bytes and a plane of high bytes.  Each plane is four 64-byte vectors:
 * vpermi2b picks from 128 entries by the low 7 index bits, so two lookups
 * (entries 0-127 and 128-255) and a blend on the input's sign bit give the
 * byte of every input.  No arithmetic is left, so the leaf is the same for
 * every form, and FP state plays no part in it (execute still checks it
 * first, as the other routes need).
 *
 * 64 elements per iteration: the input's eight 8-byte groups are reordered
 * to 0 4 1 5 2 6 3 7 so that the in-lane byte interleaves of the two planes
 * give elements 0-31 and 32-63 in order.  Remainders (and the head that
 * aligns streamed stores to 64 bytes) run the same block under masks, which
 * neither read nor write beyond the run. */
#include "dequant.h"
#if SK_HAVE_AVX512
#pragma GCC target("avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")
#include <immintrin.h>
#include "../common/stream.h"

enum { BLOCK = 64 };

typedef struct plane { __m512i t0, t1, t2, t3; } plane;  /* entries 0-63, 64-127, 128-191, 192-255 */

static inline plane plane_of(const uint8_t *table) {
    const plane p = {_mm512_loadu_si512(table), _mm512_loadu_si512(table + 64),
                     _mm512_loadu_si512(table + 128), _mm512_loadu_si512(table + 192)};
    return p;
}

static inline __attribute__((always_inline)) __m512i lookup(const plane *p, __m512i x, __mmask64 upper) {
    return _mm512_mask_blend_epi8(upper, _mm512_permutex2var_epi8(p->t0, x, p->t1),
                                  _mm512_permutex2var_epi8(p->t2, x, p->t3));
}

/* The 64 BF16 words of the 64 input bytes in x: elements 0-31 in *a, 32-63 in *b. */
static inline __attribute__((always_inline)) void words64(const plane *lo, const plane *hi, __m512i x,
                                                          __m512i *a, __m512i *b) {
    x = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7), x);
    const __mmask64 upper = _mm512_movepi8_mask(x);  /* inputs 128-255 as bytes: the sign bit */
    const __m512i l = lookup(lo, x, upper), h = lookup(hi, x, upper);
    *a = _mm512_unpacklo_epi8(l, h);
    *b = _mm512_unpackhi_epi8(l, h);
}

/* Elements [0, r) of a block, r < 64, under masks. */
static inline __attribute__((always_inline)) void partial(const plane *lo, const plane *hi, const int8_t *in,
                                                          uint16_t *out, size_t r) {
    const __mmask64 bytes = ((__mmask64)1 << r) - 1;  /* r < 64 */
    __m512i a, b;
    words64(lo, hi, _mm512_maskz_loadu_epi8(bytes, in), &a, &b);
    _mm512_mask_storeu_epi16(out, (__mmask32)bytes, a);
    _mm512_mask_storeu_epi16(out + 32, (__mmask32)(bytes >> 32), b);
}

static inline __attribute__((always_inline)) size_t blocks(const plane *lo, const plane *hi, const int8_t *in,
                                                           uint16_t *out, size_t n, int stream) {
    size_t i = 0;
    for (; i + BLOCK <= n; i += BLOCK) {
        __m512i a, b;
        words64(lo, hi, _mm512_loadu_si512(in + i), &a, &b);
        if (stream) {
            _mm512_stream_si512((void *)(out + i), a);
            _mm512_stream_si512((void *)(out + i + 32), b);
        } else {
            _mm512_storeu_si512(out + i, a);
            _mm512_storeu_si512(out + i + 32, b);
        }
    }
    return i;
}

SK_DEQUANT_LEAF(sk_dequant_i8_bf16_table__avx512) {
    const sk_dequant_ctx *c = ctx;
    const int8_t *in = src;
    uint16_t *out = dst;
    const plane lo = plane_of(c->bf16_table[0]), hi = plane_of(c->bf16_table[1]);
    size_t i = 0;
    if (n >= BLOCK && n * sizeof *out >= sk_stream_min_bytes()) {
        /* Streamed stores need 64-byte alignment: a masked head reaches it
         * (outputs are bound aligned to their element size). */
        i = ((size_t)0 - (uintptr_t)out) % 64 / sizeof *out;
        if (i) partial(&lo, &hi, in, out, i);
        i += blocks(&lo, &hi, in + i, out + i, n - i, 1);
        _mm_sfence();  /* streamed lines are visible before the call returns */
    } else {
        i = blocks(&lo, &hi, in, out, n, 0);
    }
    if (i < n) partial(&lo, &hi, in + i, out + i, n - i);
}
#endif
