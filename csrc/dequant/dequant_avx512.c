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
SK_TARGET_BEGIN(AVX512)
#include <immintrin.h>
#include "../common/stream.h"

enum { BLOCK = 64 };

typedef struct plane {
    __m512i t0, t1, t2, t3;
} plane; /* entries 0-63, 64-127, 128-191, 192-255 */

static inline plane plane_of(const uint8_t *table) {
    const plane p = {_mm512_loadu_si512(table), _mm512_loadu_si512(table + 64), _mm512_loadu_si512(table + 128),
                     _mm512_loadu_si512(table + 192)};
    return p;
}

static inline __attribute__((always_inline)) __m512i lookup(const plane *p, __m512i x, __mmask64 upper) {
    return _mm512_mask_blend_epi8(upper, _mm512_permutex2var_epi8(p->t0, x, p->t1),
                                  _mm512_permutex2var_epi8(p->t2, x, p->t3));
}

/* The 64 BF16 words of the 64 input bytes in x, whose 8-byte groups are
 * in the order 0 4 1 5 2 6 3 7: elements 0-31 in *a, 32-63 in *b. */
static inline __attribute__((always_inline)) void words64_ordered(const plane *lo, const plane *hi, __m512i x,
                                                                  __m512i *a, __m512i *b) {
    const __mmask64 upper = _mm512_movepi8_mask(x); /* inputs 128-255 as bytes: the sign bit */
    const __m512i l = lookup(lo, x, upper), h = lookup(hi, x, upper);
    *a = _mm512_unpacklo_epi8(l, h);
    *b = _mm512_unpackhi_epi8(l, h);
}

/* The same of 64 packed input bytes. */
static inline __attribute__((always_inline)) void words64(const plane *lo, const plane *hi, __m512i x, __m512i *a,
                                                          __m512i *b) {
    words64_ordered(lo, hi, _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7), x), a, b);
}

/* Elements [0, r) of a block, r < 64, under masks. */
static inline __attribute__((always_inline)) void partial(const plane *lo, const plane *hi, const int8_t *in,
                                                          uint16_t *out, size_t r) {
    const __mmask64 bytes = ((__mmask64)1 << r) - 1; /* r < 64 */
    __m512i a, b;
    words64(lo, hi, _mm512_maskz_loadu_epi8(bytes, in), &a, &b);
    _mm512_mask_storeu_epi16(out, (__mmask32)bytes, a);
    _mm512_mask_storeu_epi16(out + 32, (__mmask32)(bytes >> 32), b);
}

/* Every other element: the 64 elements of 128 input bytes are their even
 * bytes, which one vpermi2b picks in words64_ordered's order (group g of
 * the result holds elements 8 ORDER[g] + r, at byte 2 (8 ORDER[g] + r)).
 * Loads are masked to the bytes up to the last element wanted, so that no
 * byte after it is read (masked-off bytes do not fault). */
static const uint8_t every_other_order[64] = {0,  2,  4,  6,  8,  10, 12, 14, 64,  66,  68,  70,  72,  74,  76,  78,
                                              16, 18, 20, 22, 24, 26, 28, 30, 80,  82,  84,  86,  88,  90,  92,  94,
                                              32, 34, 36, 38, 40, 42, 44, 46, 96,  98,  100, 102, 104, 106, 108, 110,
                                              48, 50, 52, 54, 56, 58, 60, 62, 112, 114, 116, 118, 120, 122, 124, 126};

/* Elements [0, r) of every other element, 1 <= r <= 64 (r = 64 leaves out
 * only the last gap), under masks. */
static inline __attribute__((always_inline)) void every_other_partial(const plane *lo, const plane *hi,
                                                                      const int8_t *in, uint16_t *out, size_t r) {
    const size_t bytes = 2 * r - 1; /* through element r-1 */
    const __mmask64 first = bytes >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << bytes) - 1;
    const __mmask64 second = bytes > 64 ? ((__mmask64)1 << (bytes - 64)) - 1 : 0;
    const __m512i x =
        _mm512_permutex2var_epi8(_mm512_maskz_loadu_epi8(first, in), _mm512_loadu_si512(every_other_order),
                                 _mm512_maskz_loadu_epi8(second, in + 64));
    __m512i a, b;
    words64_ordered(lo, hi, x, &a, &b);
    const __mmask32 mask_a = r >= 32 ? ~(__mmask32)0 : (__mmask32)(((uint64_t)1 << r) - 1);
    const __mmask32 mask_b = r > 32 ? (__mmask32)(((uint64_t)1 << (r - 32)) - 1) : 0;
    _mm512_mask_storeu_epi16(out, mask_a, a);
    _mm512_mask_storeu_epi16(out + 32, mask_b, b);
}

/* Whole blocks: packed (step 1), or every other element while another
 * element follows (step 2: each reads through the gap after its last
 * element). */
static inline __attribute__((always_inline)) size_t blocks(const plane *lo, const plane *hi, const int8_t *in,
                                                           uint16_t *out, size_t n, int stream, size_t step) {
    const __m512i order = _mm512_loadu_si512(every_other_order);
    size_t i = 0;
    for (; i + BLOCK + step - 1 <= n; i += BLOCK) {
        __m512i a, b;
        const int8_t *p = in + step * i;
        if (step == 1)
            words64(lo, hi, _mm512_loadu_si512(p), &a, &b);
        else
            words64_ordered(lo, hi, _mm512_permutex2var_epi8(_mm512_loadu_si512(p), order, _mm512_loadu_si512(p + 64)),
                            &a, &b);
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

/* Elements [0, r) under masks, packed (r < 64) or every other element
 * (1 <= r <= 64). */
static inline __attribute__((always_inline)) void masked(const plane *lo, const plane *hi, const int8_t *in,
                                                         uint16_t *out, size_t r, size_t step) {
    if (step == 1)
        partial(lo, hi, in, out, r);
    else
        every_other_partial(lo, hi, in, out, r);
}

/* The whole run, packed or every other element (step 2: the masked blocks
 * read nothing past it). */
static inline __attribute__((always_inline)) void run(const sk_dequant_ctx *c, const int8_t *in, uint16_t *out,
                                                      size_t n, size_t step) {
    const plane lo = plane_of(c->bf16_table[0]), hi = plane_of(c->bf16_table[1]);
    size_t i = 0;
    if (n >= BLOCK + step - 1 &&
        sk_stream_run(sk_stream_count(c->stream_elements, n), step * sizeof *in, sizeof *out)) {
        /* Streamed stores need 64-byte alignment: a masked head reaches it
         * (outputs are bound aligned to their element size). */
        i = ((size_t)0 - (uintptr_t)out) % 64 / sizeof *out;
        if (i) masked(&lo, &hi, in, out, i, step);
        i += blocks(&lo, &hi, in + step * i, out + i, n - i, 1, step);
        _mm_sfence(); /* streamed lines are visible before the call returns */
    } else {
        i = blocks(&lo, &hi, in, out, n, 0, step);
    }
    if (step == 2 || i < n) masked(&lo, &hi, in + step * i, out + i, n - i, step); /* step 2: 1 to 64 elements */
}

void sk_dequant_i8_bf16_table__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, 1);
}

size_t sk_dequant_i8_bf16_table_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n) {
    run(ctx, src, dst, n, 2);
    return n;
}

#define AXIS_ISA avx512
#define AXIS_ISA_AVX512 1
#include "dequant_axis_body.h"
SK_TARGET_END
#endif
