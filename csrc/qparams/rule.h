/* The sk.choose_qparams rule (docs/qparams.md), exact, in integer arithmetic
 * only: no FP operation, so the caller's rounding mode, flush modes and traps
 * can neither change a result nor raise a signal. */
#ifndef SK_QPARAMS_RULE_H
#define SK_QPARAMS_RULE_H
#include <stdint.h>

/* The least binary32 scale whose reciprocal is a finite binary32:
 * (2^21 + 1) * 2^-149; at 2^21 * 2^-149 = 2^-128 the reciprocal is 2^128,
 * which overflows (tests/arrays/test_qparams_rule.py checks it). */
#define SK_RULE_LEAST_SCALE 0x00200001u
#define SK_RULE_ONE 0x3F800000u /* 1.0: the scale of an empty range */
/* Scale steps the check can need: at most 3 (the bound in rule.c). */
#define SK_RULE_MAX_STEPS 3

/* One channel from its range keys (magnitudes decoded with `fraction_bits`
 * and `bias`): its scale bits, zero point and multiplier bits.  The
 * magnitudes must be finite (sk_qparams_rule checks them). */
typedef struct sk_rule_result {
    uint32_t scale;
    int32_t zero_point;
    uint32_t multiplier;
} sk_rule_result;
int sk_rule_channel(uint64_t low_magnitude, uint64_t high_magnitude, int fraction_bits, int bias, int symmetric,
                    sk_rule_result *out);

#endif
