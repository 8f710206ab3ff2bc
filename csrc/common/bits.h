/* Representation-level helpers shared by the scalar routes and the tails of
 * the vector routes. */
#ifndef SK_COMMON_BITS_H
#define SK_COMMON_BITS_H
#include <stdint.h>

/* FP32 -> BF16 by the specification's unsigned rule: the addition wraps
 * modulo 2^32 before the high half is taken.  For finite inputs this is
 * round-to-nearest-even on the value (the encoding is monotonic); NaN
 * payloads follow the same rule by contract (0x7f800001 -> 0x7f80,
 * 0xffffffff -> 0x0000). */
static inline uint16_t sk_bf16_from_f32_bits(uint32_t bits) {
    return (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

/* BF16 -> FP32 is exact: the BF16 word is the upper half of the FP32 word. */
static inline uint32_t sk_f32_bits_from_bf16(uint16_t bits) { return (uint32_t)bits << 16; }

#endif
