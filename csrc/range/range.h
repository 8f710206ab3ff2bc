/* Range leaves (the range pass of choose_qparams) and the rule they share.
 * Every leaf keeps, per channel, the signed and the unsigned maximum of the
 * kept bits, both starting at 0: the signed one is the greatest value's bits
 * (negatives never beat 0), the unsigned one the least value's (sign set) or
 * a positive (no negative seen); a non-finite element is kept as 0, which is
 * neutral to both.  Integer operations only, so the FP environment plays no
 * part.  A leaf knows the width of the input's words (32: FLOAT32; 16:
 * BFLOAT16 and FLOAT16, which differ only in where infinity starts, a
 * value the accumulators carry). */
#ifndef SK_RANGE_H
#define SK_RANGE_H
#include <string.h>
#include "../common/kernel.h"

/* The accumulators: `smax` and `umax` hold one word of the input's width per
 * channel (int32/uint32 or int16/uint16); `inf` is the input format's
 * infinity, the least magnitude that is not finite. */
typedef struct sk_range_acc {
    void *smax;
    void *umax;
    uint32_t inf;
} sk_range_acc;

#define SK_RANGE_INF_F32 0x7F800000u
#define SK_RANGE_INF_BF16 0x7F80u
#define SK_RANGE_INF_F16 0x7C00u
/* The shortest tail the vector folds pad to a whole iteration (range_fold.h). */
#define SK_RANGE_PADDED 8
/* Words per iteration of the vector routes' per-channel (periodic) leaves. */
#define SK_RANGE_LANES 16

/* The infinity of w-bit words: FP32's is a constant (no load). */
static inline uint32_t sk_range_inf(const sk_range_acc *acc, int w) { return w == 32 ? SK_RANGE_INF_F32 : acc->inf; }

/* ---- the rule, per word width (sk_range_kept32, sk_range_fold16, ...) ---- */
#define SK_RANGE_W 32
#include "range_rule.h"
#undef SK_RANGE_W
#define SK_RANGE_W 16
#include "range_rule.h"
#undef SK_RANGE_W

/* n packed words of w bits into channel `at`'s accumulators, one at a time
 * (the scalar route, and the vector routes' tails and narrowed lanes: those
 * hold kept bits of elements, or 0, so folding them again is exact). */
static inline __attribute__((always_inline)) void sk_range_fold(const sk_range_acc *acc, size_t at, const void *in,
                                                                size_t n, int w) {
    if (w == 32)
        sk_range_fold32(acc, at, in, n);
    else
        sk_range_fold16(acc, at, in, n);
}
/* The per-channel leaves: word j into channel at + j, the format's infinity
 * a constant (a call folds one row of channels).  The vector routes' take
 * SK_RANGE_LANES words per iteration, which GCC vectorises for the target
 * that inlines them; the scalar route's lanes 1 (one at a time). */
static inline __attribute__((always_inline)) void sk_range_axis(const sk_range_acc *acc, size_t at, const void *in,
                                                                size_t n, int input, size_t lanes) {
    if (input == SK_QUANT_F32)
        sk_range_periodic32(acc, at, in, n, SK_RANGE_INF_F32, lanes);
    else
        sk_range_periodic16(acc, at, in, n, input == SK_QUANT_BF16 ? SK_RANGE_INF_BF16 : SK_RANGE_INF_F16, lanes);
}
static inline __attribute__((always_inline)) void sk_range_axis_f32(const sk_range_acc *acc, size_t at, const void *in,
                                                                    size_t n) {
    sk_range_axis(acc, at, in, n, SK_QUANT_F32, SK_RANGE_LANES);
}
static inline __attribute__((always_inline)) void sk_range_axis_bf16(const sk_range_acc *acc, size_t at, const void *in,
                                                                     size_t n) {
    sk_range_axis(acc, at, in, n, SK_QUANT_BF16, SK_RANGE_LANES);
}
static inline __attribute__((always_inline)) void sk_range_axis_f16(const sk_range_acc *acc, size_t at, const void *in,
                                                                    size_t n) {
    sk_range_axis(acc, at, in, n, SK_QUANT_F16, SK_RANGE_LANES);
}

/* The leaves (range_kernels.inc): sk_fold_leaf (kernel.h) with an
 * sk_range_acc as `acc`. */
#define SK_LEAF SK_LEAF_DECLARE
#include "range_kernels.inc"
#undef SK_LEAF

#endif
