/* The parameter rules of affine quant and affine dequant, inline: prepare
 * runs them, sk_affine_params_check (storage.c) exports them to Python,
 * which words the fault. */
#ifndef SK_AFFINE_PARAMS_H
#define SK_AFFINE_PARAMS_H
#include "../common/params.h"
#include "affine.h"

/* The range of a known storage type (simakernels.h sk_storage_range). */
static inline void sk_affine_range(int storage, int64_t *least, int64_t *greatest) {
    const int bits = sk_storage_bits(storage);
    if (sk_storage_signed(storage)) {
        *least = -((int64_t)1 << (bits - 1));
        *greatest = ((int64_t)1 << (bits - 1)) - 1;
    } else {
        *least = 0;
        *greatest = ((int64_t)1 << bits) - 1;
    }
}

/* An affine dequant scale: exponent not all ones, magnitude not zero (any sign). */
static inline int sk_finite_nonzero_rule(uint32_t bits, sk_fault *f) {
    if (((bits >> 23) & 0xffu) == 0xffu || (bits & 0x7fffffffu) == 0)
        return sk_fault_set(f, SK_INVALID_PARAMS, SK_RULE_NOT_FINITE_NONZERO, -1, -1, bits, 0);
    return SK_OK;
}

/* The multiplier (affine quant, as Quant's) or the scale (affine dequant). */
static inline int sk_affine_value_rule(int operation, uint32_t bits, sk_fault *f) {
    return operation == SK_OP_AFFINE_QUANT ? sk_finite_positive_rule(bits, f) : sk_finite_nonzero_rule(bits, f);
}

/* A zero point within the storage range. */
static inline int sk_affine_zero_point_rule(int storage, int64_t zero_point, sk_fault *f) {
    int64_t least, greatest;
    sk_affine_range(storage, &least, &greatest);
    if (zero_point < least || zero_point > greatest)
        return sk_fault_set(f, SK_INVALID_PARAMS, SK_RULE_ZERO_POINT_RANGE, -1, -1, (uint64_t)zero_point,
                            (uint64_t)(zero_point < least ? least : greatest));
    return SK_OK;
}

/* A plan's zero point, held in an int32 field (UINT32: its uint32 bits). */
static inline int64_t sk_affine_plan_zero_point(int storage, int32_t field) {
    return storage == SK_HURRAY_UINT32 ? (int64_t)(uint32_t)field : (int64_t)field;
}

#endif
