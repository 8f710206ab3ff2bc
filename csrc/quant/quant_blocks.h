/* The block drivers of the x86 vector Quant leaves (quant_avx2.c and
 * quant_avx512.c), written once; quant_avx2.c's comment gives the scheme.
 * A leaf file includes this inside its target region (SK_TARGET_BEGIN),
 * after defining for its instruction set (`step` is 1 for a packed input,
 * 2 for every other element, whose block reads end at the gap after its
 * last element):
 *   QBLOCK, QCHUNK   elements per block and per tested chunk
 *   QALIGN           output bytes streamed stores align to
 *   Q_GAP_AFTER      1 if a step-2 block reads the gap after its last
 *                    element (then it is only taken while another follows)
 *   q_vec            a vector of int16 lanes, half a block
 *   q_mul            the multiplier in every FP32 lane
 *   q_mul q_multiplier(const sk_quant_ctx *c)
 *   q_vec q_zero_point(const sk_quant_ctx *c)      in every int16 lane
 *   q_vec q_all_max(void)                          INT16_MAX in every lane
 *   q_vec q_min(q_vec a, q_vec b)                  signed int16 minimum
 *   q_vec q_every_other_lanes(src, j, input)       every other element from
 *                                                  element j, as 32-bit lanes
 *                                                  (16-bit inputs in their low
 *                                                  halves)
 *   q_vec q_min_u32(a, b), q_min_u16(a, b)         unsigned minima
 *   int   q_none_below_u32(lo, low), q_none_below_u16(lo, low)
 *                                                  no lane of lo below low
 *   void  q_products(src, i, input, m, mode, &a, &b, step)  block i's
 *                                                  products saturated to int16
 *   int   q_no_indefinite(q_vec a, q_vec b)        the high test
 *   void  q_store(out, a, b, zp, input, step, stream)  the block's INT8 bytes
 * each always inline. */
#ifndef SK_QUANT_BLOCKS_H
#define SK_QUANT_BLOCKS_H
#include "quant.h"
#include "../common/stream.h"

typedef uint32_t q_u32 __attribute__((vector_size(sizeof(q_vec))));
typedef uint16_t q_u16 __attribute__((vector_size(sizeof(q_vec))));

/* 2|x| - 1 of each lane's magnitude bits, unsigned: x + x shifts the sign
 * out, and zero wraps to the top (the low test's key). */
static inline __attribute__((always_inline)) q_vec q_twice_less1_32(q_vec x) {
    return (q_vec)((q_u32)x + (q_u32)x + 0xffffffffu);
}
static inline __attribute__((always_inline)) q_vec q_twice_less1_16(q_vec x) {
    return (q_vec)((q_u16)x + (q_u16)x + (uint16_t)0xffffu);
}

static inline __attribute__((always_inline)) q_vec q_load(const void *p) {
    q_vec v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Every other element's key from element j (16-bit inputs: the magnitude
 * bits of their low words; the doubling in 32-bit lanes keeps no sign to
 * shift out). */
static inline __attribute__((always_inline)) q_vec q_every_other_key(const void *src, size_t j, int input) {
    q_vec x = q_every_other_lanes(src, j, input);
    if (input != SK_QUANT_F32) x = (q_vec)((q_u32)x & 0x7fffu);
    return q_twice_less1_32(x);
}

/* The low test of a block (only under FTZ/DAZ): every lane zero or of
 * magnitude bits at least fast_min; `low` is 2 fast_min - 1. */
static inline __attribute__((always_inline)) int q_above_min(const void *src, size_t i, int input, uint32_t low,
                                                             size_t step) {
    enum { L = sizeof(q_vec) / 4 }; /* 32-bit lanes */
    if (step == 2) {
        const q_vec lo =
            q_min_u32(q_min_u32(q_every_other_key(src, i, input), q_every_other_key(src, i + L, input)),
                      q_min_u32(q_every_other_key(src, i + 2 * L, input), q_every_other_key(src, i + 3 * L, input)));
        return q_none_below_u32(lo, low);
    }
    if (input == SK_QUANT_F32) {
        const uint32_t *in = (const uint32_t *)src + i;
        const q_vec lo =
            q_min_u32(q_min_u32(q_twice_less1_32(q_load(in)), q_twice_less1_32(q_load(in + L))),
                      q_min_u32(q_twice_less1_32(q_load(in + 2 * L)), q_twice_less1_32(q_load(in + 3 * L))));
        return q_none_below_u32(lo, low);
    }
    const uint16_t *in = (const uint16_t *)src + i;
    return q_none_below_u16(q_min_u16(q_twice_less1_16(q_load(in)), q_twice_less1_16(q_load(in + 2 * L))), low);
}

/* Under FTZ/DAZ: blocks [i, end), each tested before its store. */
static inline __attribute__((always_inline)) void q_blocks_tested(const sk_quant_ctx *c, const void *src, int8_t *out,
                                                                  size_t i, size_t end, int input, int mode,
                                                                  size_t step, int stream) {
    const q_mul m = q_multiplier(c);
    const q_vec zp = q_zero_point(c);
    const uint32_t low_bound = 2 * c->fast_min - 1;
    for (; i < end; i += QBLOCK) {
        q_vec a, b;
        if (q_above_min(src, i, input, low_bound, step)) {
            q_products(src, i, input, m, mode, &a, &b, step);
            if (q_no_indefinite(a, b)) {
                q_store(out + i, a, b, zp, input, step, stream);
                continue;
            }
        }
        sk_quant_exact_steps(c, src, out, i, i + QBLOCK, input, mode, step);
    }
}

/* Without FTZ/DAZ: blocks [i, end), tested per chunk of QCHUNK elements
 * (a test per block would cost a large share of the blocks' work).  A chunk that holds an
 * indefinite lane is gone over again: the blocks that hold one are
 * recomputed by the exact path, over the fast path's bytes; the others
 * were right. */
static inline __attribute__((always_inline)) void q_blocks_chunked(const sk_quant_ctx *c, const void *src, int8_t *out,
                                                                   size_t i, size_t end, int input, int mode,
                                                                   size_t step, int stream) {
    const q_mul m = q_multiplier(c);
    const q_vec zp = q_zero_point(c);
    while (i < end) {
        const size_t chunk_end = end - i > QCHUNK ? i + QCHUNK : end;
        q_vec seen = q_all_max();
        for (size_t j = i; j < chunk_end; j += QBLOCK) {
            q_vec a, b;
            q_products(src, j, input, m, mode, &a, &b, step);
            seen = q_min(seen, q_min(a, b));
            q_store(out + j, a, b, zp, input, step, stream);
        }
        if (__builtin_expect(!q_no_indefinite(seen, seen), 0)) {
            /* The exact bytes must land after the streamed ones they replace. */
            if (stream) _mm_sfence();
            for (size_t j = i; j < chunk_end; j += QBLOCK) {
                q_vec a, b;
                q_products(src, j, input, m, mode, &a, &b, step);
                if (!q_no_indefinite(a, b)) sk_quant_exact_steps(c, src, out, j, j + QBLOCK, input, mode, step);
            }
        }
        i = chunk_end;
    }
}

static inline __attribute__((always_inline)) void q_blocks(const sk_quant_ctx *c, const void *src, int8_t *out,
                                                           size_t i, size_t end, int input, int mode, size_t step,
                                                           int stream) {
    if (c->flushes) {
        if (stream)
            q_blocks_tested(c, src, out, i, end, input, mode, step, 1);
        else
            q_blocks_tested(c, src, out, i, end, input, mode, step, 0);
    } else {
        if (stream)
            q_blocks_chunked(c, src, out, i, end, input, mode, step, 1);
        else
            q_blocks_chunked(c, src, out, i, end, input, mode, step, 0);
    }
}

/* The blocks of a run: whole blocks on the fast path (streamed from an
 * exact head up to QALIGN-byte alignment when the run streams, stream.h);
 * returns where they stopped.  Every other element
 * (step 2) with Q_GAP_AFTER: only blocks that another element follows,
 * whose last gap then lies inside the run. */
static inline __attribute__((always_inline)) size_t q_steps(const sk_quant_ctx *c, const void *src, int8_t *out,
                                                            size_t n, int input, int mode, size_t step) {
    size_t i = 0;
    const size_t reach = step == 2 && Q_GAP_AFTER ? n - 1 : n; /* n >= 1 */
    if (!c->exact_only && reach >= QBLOCK) {
        const int stream =
            sk_stream_run(sk_stream_count(c->stream_elements, n), step * (input == SK_QUANT_F32 ? 4 : 2), 1);
        if (stream) {
            i = (size_t)(-(uintptr_t)out & (QALIGN - 1));
            sk_quant_exact_steps(c, src, out, 0, i, input, mode, step);
        }
        const size_t end = i + (reach - i) / QBLOCK * QBLOCK;
        q_blocks(c, src, out, i, end, input, mode, step, stream);
        if (stream) _mm_sfence(); /* order the streamed stores before whatever follows */
        i = end;
    }
    return i;
}

/* A dense run: the blocks, then the rest (and subnormal multipliers) exact. */
static inline __attribute__((always_inline)) void q_run(const sk_quant_ctx *c, const void *src, int8_t *out, size_t n,
                                                        int input, int mode) {
    sk_quant_exact_span(c, src, out, q_steps(c, src, out, n, input, mode, 1), n, input, mode);
}

/* Every other element: the blocks; the walk stages the rest through the
 * dense leaf (kernel.h), which gives a last whole block the fast path. */
static inline __attribute__((always_inline)) size_t q_every_other(const sk_quant_ctx *c, const void *src, int8_t *out,
                                                                  size_t n, int input, int mode) {
    return q_steps(c, src, out, n, input, mode, 2);
}

#endif
