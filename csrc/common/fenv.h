/* The calling thread's FP control register (MXCSR on x86-64, FPCR on
 * AArch64), read once per execute and decoded from that one reading. */
#ifndef SK_COMMON_FENV_H
#define SK_COMMON_FENV_H
#include <stdint.h>
#include "../include/simakernels.h"

/* What each operation needs from the FP state (sk_operation_fenv_needs
 * exports it); inline so that an execute's check folds to a constant. */
static inline int sk_fenv_needs(int operation) {
    switch (operation) {
    case SK_OP_DEQUANT:
    case SK_OP_HURRAY:
    case SK_OP_AFFINE_DEQUANT:
        return SK_NEED_NEAREST | SK_NEED_GRADUAL_UNDERFLOW | SK_NEED_NO_TRAPS;
    case SK_OP_QUANT:
    case SK_OP_AFFINE_QUANT:
        return SK_NEED_NEAREST | SK_NEED_NO_TRAPS;
    default:
        return 0;
    }
}

uint64_t sk_fenv_control(void);
/* sk_fenv_unmet of that reading: 0 when it meets every bit of `needs`. */
int sk_fenv_control_unmet(uint64_t control, int needs);
/* Whether it flushes subnormal inputs or results of any format (x86 FTZ or
 * DAZ; AArch64 FZ, FZ16, or FEAT_AFP's FIZ/AH). */
int sk_fenv_control_flushes(uint64_t control);

#endif
