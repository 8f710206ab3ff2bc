/* The sk.choose_qparams rule (docs/qparams.md), exact, in integer arithmetic
 * only: no FP operation, so the caller's rounding mode, flush modes and traps
 * can neither change a result nor raise a signal.  The entry,
 * sk_qparams_rule, is declared in simakernels.h. */
#ifndef SK_QPARAMS_RULE_H
#define SK_QPARAMS_RULE_H

#include <stdint.h>

/* The least binary32 scale whose reciprocal is a finite binary32:
 * (2^21 + 1) * 2^-149; at 2^21 * 2^-149 = 2^-128 the reciprocal is 2^128,
 * which overflows (tests/arrays/test_qparams_rule.py checks it). */
#define SK_RULE_LEAST_SCALE 0x00200001u
#define SK_RULE_ONE 0x3F800000u /* 1.0: the scale of an empty range */
/* Scale steps the check can need (the bound in rule.c): at most 3 for
 * every storage type of 4 bits or more; at most 4 for the 2-bit types, whose
 * multiplier is subnormal for scales beyond 2^126. */
#define SK_RULE_MAX_STEPS 3
#define SK_RULE_MAX_STEPS_2BIT 4

/* The levels [*least, *greatest] of a storage type (enum sk_hurray_storage)
 * the rule maps a range onto: its whole range, signed [-2^(b-1), 2^(b-1) - 1]
 * or unsigned [0, 2^b - 1] (symmetric then uses -greatest..greatest).
 * SK_UNSUPPORTED_DTYPE for INT32, UINT32 (no operation quantizes to them)
 * and unknown codes, SK_INVALID_PARAMS for `symmetric` with an unsigned
 * type; the outputs are written only on SK_OK. */
int sk_qparams_levels(int storage, int symmetric, int64_t *least, int64_t *greatest);

#endif
