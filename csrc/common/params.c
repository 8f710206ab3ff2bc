/* The parameter rules for Python's admission (simakernels.h "Parameter
 * rules"); prepare and the EV74 decoder run them inline (params.h). */
#include "params.h"

int sk_params_check(int operation, const uint32_t *bits, uint64_t bits_count, const int64_t *zero_points,
                    uint64_t zero_points_count, uint64_t *at, sk_fault *f) {
    *at = 0;
    if (operation != SK_OP_QUANT && operation != SK_OP_DEQUANT)
        return sk_fault_set(f, SK_INVALID_OPERATION, SK_RULE_NONE, -1, -1, (uint64_t)operation, 0);
    for (uint64_t i = 0; i < bits_count; ++i) {
        *at = i;
        if (sk_finite_positive_rule(bits[i], f) != SK_OK) return f->status;
    }
    for (uint64_t i = 0; i < zero_points_count; ++i) {
        *at = i;
        if (sk_zero_point_rule(operation, zero_points[i], f) != SK_OK) return f->status;
    }
    *at = 0;
    return sk_fault_passed(f);
}
