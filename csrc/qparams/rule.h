/* The sk.choose_qparams rule (docs/qparams.md), exact, in integer arithmetic
 * only: no FP operation, so the caller's rounding mode, flush modes and traps
 * can neither change a result nor raise a signal.  The entry,
 * sk_qparams_rule, is declared in simakernels.h. */
#ifndef SK_QPARAMS_RULE_H
#define SK_QPARAMS_RULE_H

/* The least binary32 scale whose reciprocal is a finite binary32:
 * (2^21 + 1) * 2^-149; at 2^21 * 2^-149 = 2^-128 the reciprocal is 2^128,
 * which overflows (tests/arrays/test_qparams_rule.py checks it). */
#define SK_RULE_LEAST_SCALE 0x00200001u
#define SK_RULE_ONE 0x3F800000u /* 1.0: the scale of an empty range */
/* Scale steps the check can need: at most 3 (the bound in rule.c). */
#define SK_RULE_MAX_STEPS 3

#endif
