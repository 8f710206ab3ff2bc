/* Quant internals: input decoding, the exact integer path that defines every
 * result (tails and repaired blocks use it; the fast vector paths must agree
 * with it bit for bit), the per-axis table, and the prototype of every leaf
 * of the registry (quant_kernels.inc). */
#ifndef SK_QUANT_H
#define SK_QUANT_H
#include <string.h>
#include "../common/kernel.h"
#include "../common/axis.h"
#include "exact.h"

/* Elements per iteration of the NEON and AVX-512 dense leaves (two 16-element
 * blocks; one 64-element block). */
#define SK_QUANT_NEON_BLOCK (2 * SK_BLOCK)
#define SK_QUANT_AVX512_BLOCK 64

/* A context from the multiplier's bits for a control register that flushes
 * or not.  x86, flushing: fast_min is the least magnitude bits (the input's
 * bits without the sign) of a normal input whose exact product is at least
 * 2^-126: nonzero inputs from there up are normal with normal products,
 * untouched by flush-to-zero and denormals-are-zero (the vector leaves'
 * repair test); the infinity's bits when no product reaches 2^-126, the
 * multiplier is subnormal, or nothing flushes. */
void sk_quant_ctx_init(sk_quant_ctx *c, uint32_t multiplier_bits, int32_t zero_point, int input, int flushes);

/* sk_quant_prepare, where `search` 0 skips the FTZ/DAZ threshold search of
 * the flushing contexts (ctx[1], a per-axis plan's table 1): they stay
 * exact, only slower.  For a plan that runs once, on a thread whose control
 * register does not flush (sk_quant_dynamic): the search would be wasted. */
int sk_quant_prepare_searching(sk_quant_plan *plan, int search);

/* Element i of a packed source of the given input dtype, decoded. */
static inline sk_q_decoded sk_q_decode_at(int input, const void *src, size_t i) {
    return input == SK_QUANT_F32    ? sk_q_decode_f32(((const uint32_t *)src)[i])
           : input == SK_QUANT_BF16 ? sk_q_decode_bf16(((const uint16_t *)src)[i])
                                    : sk_q_decode_f16(((const uint16_t *)src)[i]);
}

/* The ordered contract with integers only, with the context's parameters. */
static inline int8_t sk_quant_exact(const sk_quant_ctx *c, sk_q_decoded d, int mode) {
    return sk_q_exact(c->msig, c->mexp, c->zero_point, d, mode);
}

/* The exact path over elements [i, n) of a source whose elements are
 * `step` elements apart (1: packed; 2: every other): tails, repaired blocks
 * and the whole scalar route. */
static inline void sk_quant_exact_steps(const sk_quant_ctx *c, const void *src, int8_t *out, size_t i, size_t n,
                                        int input, int mode, size_t step) {
    for (; i < n; ++i) out[i] = sk_quant_exact(c, sk_q_decode_at(input, src, i * step), mode);
}

static inline void sk_quant_exact_span(const sk_quant_ctx *c, const void *src, int8_t *out, size_t i, size_t n,
                                       int input, int mode) {
    sk_quant_exact_steps(c, src, out, i, n, input, mode, 1);
}

/* Per-axis plans, channel axis inner (the periodic leaves): the multiplier
 * and zero point of table positions [0, period), and each channel's
 * context for the exact path (position i is channel i mod channels). */
typedef struct sk_quant_table {
    const float *multiplier;
    const int32_t *zero_point;
    const sk_quant_ctx *ctx; /* each channel's, for this control register */
    int64_t channels;
    int64_t period; /* table positions (sk_axis_period) */
    /* Whether the control register flushes: then a block with a nonzero
     * input whose product is below 2^-126 takes the exact path. */
    int32_t flushes;
} sk_quant_table;

/* The exact path for elements [i, end) of a periodic leaf's run, at table
 * positions from at + i. */
static inline void sk_quant_axis_exact(const sk_quant_table *t, size_t at, const void *src, int8_t *out, size_t i,
                                       size_t end, int input, int mode) {
    int64_t c = (int64_t)((at + i) % (size_t)t->channels);
    for (; i < end; ++i) {
        out[i] = sk_quant_exact(&t->ctx[c], sk_q_decode_at(input, src, i), mode);
        if (++c == t->channels) c = 0;
    }
}

#define SK_LEAF SK_LEAF_DECLARE
#include "quant_kernels.inc"
#undef SK_LEAF

/* The kernel table, [route][sk_quant_variant(input, rounding)] (quant.c). */
extern const sk_kernel sk_quant_kernels[SK_ROUTE_COUNT][SK_QUANT_VARIANTS];

#endif
