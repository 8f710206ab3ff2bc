/* Quant's parameter-vector leaves (per-axis plans whose channel axis is
 * the walk's inner run): each element takes its position's multiplier and
 * zero point from the plan's repeating table.  A native vector per block
 * in generic vectors, compiled once per route's instruction set
 * (quant_axis_body.h, with the route's moves from axis_lanes.h):
 *   the input as binary32 (FP16 by the ISA's conversion, or on SSE2 by
 *   integer moves, subnormals through an exact integer conversion and a
 *   multiply whose result is normal), the product x * m (nearest-even, the
 *   FP state execute admitted), clamped to [-512, 512] (from 512 every zero
 *   point saturates), converted to an integer by the mode, the zero point
 *   added, saturated.
 * NaN products become 0 in the conversion (the zero point).  When the
 * control register flushes, a block with an input whose own bits are
 * nonzero and whose product is below 2^-126 (zero or subnormal: all that
 * flush-to-zero and denormals-are-zero, on the input, the multiplier or
 * the product, can change), or with a NaN product (an infinity times a
 * multiplier taken as zero), takes the exact integer path (quant.h)
 * instead, as do tails and the whole scalar route; without flushing a
 * product rounded to zero or a subnormal is the contract's own. */
#include "quant.h"
#include "../common/axis.h"

/* The exact path for elements [i, end) at table positions from at + i. */
static inline void axis_exact(const sk_quant_table *t, size_t at, const void *src, int8_t *out, size_t i, size_t end,
                              int input, int mode) {
    int64_t c = (int64_t)((at + i) % (size_t)t->channels);
    for (; i < end; ++i) {
        out[i] = sk_quant_exact(&t->ctx[c], sk_q_decode_at(input, src, i), mode);
        if (++c == t->channels) c = 0;
    }
}

/* The scalar route: the exact path element by element. */
static inline __attribute__((always_inline)) void axis_exact_run(const void *table, size_t at, const void *src,
                                                                 void *dst, size_t n, int input, int mode) {
    axis_exact(table, at, src, dst, 0, n, input, mode);
}

#define LEAF(isa, run, in_name, input, mode_name, mode) \
    SK_QUANT_AXIS_LEAF(sk_quant_##in_name##_i8_##mode_name##_axis__##isa) { run(table, at, src, dst, n, input, mode); }
#define LEAVES_FOR(isa, run, in_name, input)                     \
    LEAF(isa, run, in_name, input, ne, SK_QUANT_NEAREST_EVEN)    \
    LEAF(isa, run, in_name, input, tz, SK_QUANT_TOWARD_ZERO)     \
    LEAF(isa, run, in_name, input, tp, SK_QUANT_TOWARD_POSITIVE) \
    LEAF(isa, run, in_name, input, tn, SK_QUANT_TOWARD_NEGATIVE)
#define LEAVES(isa, run)                      \
    LEAVES_FOR(isa, run, f32, SK_QUANT_F32)   \
    LEAVES_FOR(isa, run, bf16, SK_QUANT_BF16) \
    LEAVES_FOR(isa, run, f16, SK_QUANT_F16)
#define LEAVES_OF(isa, run) LEAVES(isa, run) /* expands a macro naming the isa first */

LEAVES(scalar, axis_exact_run)

/* One instantiation per vector route. */
#define AXIS_BODY "../quant/quant_axis_body.h" /* (from common/) */
#include "../common/axis_instances.h"
