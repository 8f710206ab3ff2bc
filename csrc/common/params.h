/* The parameter rules of Quant and Dequant, inline: prepare and the EV74
 * descriptor's validation run them (portable C that the EV74 kernel's
 * OpenCL C program includes through csrc/ev74/validate.h); sk_params_check
 * (params.c) exports them to Python, which words the fault. */
#ifndef SK_COMMON_PARAMS_H
#define SK_COMMON_PARAMS_H
#include "rules.h"

/* A scale or multiplier: sign clear, exponent not all ones, not +0. */
static inline int sk_finite_positive_rule(uint32_t bits, sk_fault *f) {
    if ((bits >> 31) || ((bits >> 23) & 0xffu) == 0xffu || bits == 0)
        return sk_fault_set(f, SK_INVALID_PARAMS, SK_RULE_NOT_FINITE_POSITIVE, -1, -1, bits, 0);
    return SK_OK;
}

/* A zero point of `operation` (SK_OP_QUANT; any other: Dequant's range). */
static inline int sk_zero_point_rule(int operation, int64_t zero_point, sk_fault *f) {
    const int quant = operation == SK_OP_QUANT;
    const int64_t least = quant ? SK_QUANT_ZERO_POINT_LEAST : SK_DEQUANT_ZERO_POINT_LEAST;
    const int64_t greatest = quant ? SK_QUANT_ZERO_POINT_GREATEST : SK_DEQUANT_ZERO_POINT_GREATEST;
    if (zero_point < least || zero_point > greatest)
        return sk_fault_set(f, SK_INVALID_PARAMS, SK_RULE_ZERO_POINT_RANGE, -1, -1, (uint64_t)zero_point,
                            (uint64_t)(zero_point < least ? least : greatest));
    return SK_OK;
}

/* One channel's (or a tensor's) parameters, the scale or multiplier first. */
static inline int sk_params_rules(int operation, uint32_t bits, int64_t zero_point, sk_fault *f) {
    if (sk_finite_positive_rule(bits, f) != SK_OK || sk_zero_point_rule(operation, zero_point, f) != SK_OK)
        return f->status;
    return sk_fault_passed(f);
}

#endif
