/* The block drivers of the x86 vector Quant leaves (quant_avx2.c and
 * quant_avx512.c), written once; quant_avx2.c's comment gives the scheme.
 * A leaf file includes this after its target pragma and after defining,
 * for its instruction set (`step` is 1 for a packed input, 2 for every
 * other element, whose block reads end at the gap after its last element):
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
 *   int   q_above_min(src, i, input, low, step)    the low test (FTZ/DAZ)
 *   void  q_products(src, i, input, m, mode, &a, &b, step)  block i's
 *                                                  products saturated to int16
 *   int   q_no_indefinite(q_vec a, q_vec b)        the high test
 *   void  q_store(out, a, b, zp, input, step, stream)  the block's INT8 bytes
 * each always inline. */
#ifndef SK_QUANT_BLOCKS_H
#define SK_QUANT_BLOCKS_H
#include "quant.h"
#include "../common/stream.h"

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
 * (a test per block costs a fifth of the time).  A chunk that holds an
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
