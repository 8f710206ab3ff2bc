/* NEON building blocks shared by the NEON leaves and the NEON staging. */
#ifndef SK_COMMON_NEON_H
#define SK_COMMON_NEON_H
#include <arm_neon.h>

/* Hides a pointer's value from the optimiser, so that a loop's loads
 * through a moving pointer stay post-incrementing: GCC 12 otherwise turns
 * them back into base + offset, and LD2/LD3/LD4, which have no immediate
 * offset, then cost an ADD each. */
#define SK_NEON_OPAQUE(p) __asm__("" : "+r"(p))

/* FP32 bits -> BF16 by the Cast rule, (bits + 0x7fff + ((bits >> 16) & 1))
 * >> 16, on eight lanes: CMTST makes -1 where bit 16 is set, so 0x7fff - that
 * is the rule's addend, and ADDHN's modulo-2^32 sum and high half are
 * exactly the rule's wrapping addition and shift.  `bit16` and `bias` are
 * 0x10000 and 0x7fff in every lane (the caller keeps them in registers). */
static inline __attribute__((always_inline)) uint16x8_t sk_neon_bf16_round(uint32x4_t lo, uint32x4_t hi,
                                                                           uint32x4_t bit16, uint32x4_t bias) {
    return vaddhn_high_u32(vaddhn_u32(lo, vsubq_u32(bias, vtstq_u32(lo, bit16))), hi,
                           vsubq_u32(bias, vtstq_u32(hi, bit16)));
}

/* TRN1/TRN2 of two rows at a lane width (bits). */
static inline __attribute__((always_inline)) uint8x16_t sk_neon_trn(uint8x16_t a, uint8x16_t b, int width, int second) {
    switch (width) {
    case 8:
        return second ? vtrn2q_u8(a, b) : vtrn1q_u8(a, b);
    case 16:
        return vreinterpretq_u8_u16(second ? vtrn2q_u16(vreinterpretq_u16_u8(a), vreinterpretq_u16_u8(b))
                                           : vtrn1q_u16(vreinterpretq_u16_u8(a), vreinterpretq_u16_u8(b)));
    case 32:
        return vreinterpretq_u8_u32(second ? vtrn2q_u32(vreinterpretq_u32_u8(a), vreinterpretq_u32_u8(b))
                                           : vtrn1q_u32(vreinterpretq_u32_u8(a), vreinterpretq_u32_u8(b)));
    default:
        return vreinterpretq_u8_u64(second ? vtrn2q_u64(vreinterpretq_u64_u8(a), vreinterpretq_u64_u8(b))
                                           : vtrn1q_u64(vreinterpretq_u64_u8(a), vreinterpretq_u64_u8(b)));
    }
}

/* A (16/size)-square block of `size`-byte elements, one row per register,
 * transposed in place: stage s pairs rows i and i + 2^s (i's bit s clear)
 * at lane width size * 8 * 2^s, TRN1 keeping the even lanes of both and
 * TRN2 the odd ones; after the last stage register i holds source column
 * i.  The loops unroll completely, so the block stays in registers. */
static inline __attribute__((always_inline)) void sk_neon_transpose(uint8x16_t *v, int size) {
    const int n = 16 / size;
#pragma GCC unroll 4
    for (int d = 1, width = size * 8; d < n; d *= 2, width *= 2) {
#pragma GCC unroll 16
        for (int i = 0; i < n; ++i) {
            if (i & d) continue;
            const uint8x16_t a = v[i], b = v[i + d];
            v[i] = sk_neon_trn(a, b, width, 0);
            v[i + d] = sk_neon_trn(a, b, width, 1);
        }
    }
}

#endif
