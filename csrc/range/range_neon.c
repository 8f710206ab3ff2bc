/* NEON range leaves.  Blocks of SK_RANGE_CHECK elements are folded raw (a
 * signed and an unsigned maximum per vector, 16 FP32 or 32 16-bit elements
 * per iteration from one four-register load); a block whose maxima show a
 * non-finite value (signed maximum at or above infinity's bits, unsigned at
 * or above negative infinity's) is folded again with non-finite lanes kept
 * as 0.  The last block is the run's last whole iterations (so short runs
 * take the raw fold too), then the rule one element at a time (range.h).  Checked blocks hold no non-finite
 * element, so their lanes are kept bits, folded once more at the end. */
#include "range.h"
#if SK_HAVE_NEON
#include "../common/neon.h"

enum { ITER32 = 16, ITER16 = 32 };

/* `iters` iterations from p into s[4], u[4]; masked: non-finite lanes as 0. */
static inline __attribute__((always_inline)) void run32(const uint32_t *p, size_t iters, int32x4_t *s, uint32x4_t *u,
                                                        int masked) {
    const uint32x4_t magnitude = vdupq_n_u32(0x7FFFFFFFu), inf = vdupq_n_u32(SK_RANGE_INF_F32);
    for (size_t it = 0; it < iters; ++it, p += ITER32) {
        const uint32x4x4_t v = vld1q_u32_x4(p);
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            uint32x4_t b = v.val[k];
            if (masked) b = vandq_u32(b, vcltq_u32(vandq_u32(b, magnitude), inf));
            s[k] = vmaxq_s32(s[k], vreinterpretq_s32_u32(b));
            u[k] = vmaxq_u32(u[k], b);
        }
    }
}

static inline __attribute__((always_inline)) void run16(const uint16_t *p, size_t iters, int16x8_t *s, uint16x8_t *u,
                                                        int masked, uint16_t inf_bits) {
    const uint16x8_t magnitude = vdupq_n_u16(0x7FFFu), inf = vdupq_n_u16(inf_bits);
    for (size_t it = 0; it < iters; ++it, p += ITER16) {
        const uint16x8x4_t v = vld1q_u16_x4(p);
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            uint16x8_t b = v.val[k];
            if (masked) b = vandq_u16(b, vcltq_u16(vandq_u16(b, magnitude), inf));
            s[k] = vmaxq_s16(s[k], vreinterpretq_s16_u16(b));
            u[k] = vmaxq_u16(u[k], b);
        }
    }
}

static inline __attribute__((always_inline)) void fold32(const sk_range_acc *acc, size_t at, const uint32_t *in,
                                                         size_t n) {
    int32x4_t S[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
    uint32x4_t U[4] = {vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0)};
    const int32x4_t top = vdupq_n_s32((int32_t)SK_RANGE_INF_F32 - 1);
    const uint32x4_t bottom = vdupq_n_u32(0x80000000u | (SK_RANGE_INF_F32 - 1));
    size_t i = 0, len;
    const size_t whole = n / ITER32 * ITER32; /* blocks of whole iterations, the last one shorter */
    for (; i < whole; i += len) {
        len = whole - i < SK_RANGE_CHECK ? whole - i : SK_RANGE_CHECK;
        int32x4_t s[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
        uint32x4_t u[4] = {vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0), vdupq_n_u32(0)};
        run32(in + i, len / ITER32, s, u, 0);
        const int32x4_t sm = vmaxq_s32(vmaxq_s32(s[0], s[1]), vmaxq_s32(s[2], s[3]));
        const uint32x4_t um = vmaxq_u32(vmaxq_u32(u[0], u[1]), vmaxq_u32(u[2], u[3]));
        if (vmaxvq_u32(vorrq_u32(vcgtq_s32(sm, top), vcgtq_u32(um, bottom)))) {
            run32(in + i, len / ITER32, S, U, 1); /* the block again, without its non-finite values */
        } else {
            S[0] = vmaxq_s32(S[0], sm);
            U[0] = vmaxq_u32(U[0], um);
        }
    }
    uint32_t lanes[32];
    for (int k = 0; k < 4; ++k) {
        vst1q_u32(lanes + 4 * k, vreinterpretq_u32_s32(S[k]));
        vst1q_u32(lanes + 16 + 4 * k, U[k]);
    }
    sk_range_fold32(acc, at, lanes, 32);
    sk_range_fold32(acc, at, in + i, n - i);
}

static inline __attribute__((always_inline)) void fold16(const sk_range_acc *acc, size_t at, const uint16_t *in,
                                                         size_t n, uint16_t inf) {
    int16x8_t S[4] = {vdupq_n_s16(0), vdupq_n_s16(0), vdupq_n_s16(0), vdupq_n_s16(0)};
    uint16x8_t U[4] = {vdupq_n_u16(0), vdupq_n_u16(0), vdupq_n_u16(0), vdupq_n_u16(0)};
    const int16x8_t top = vdupq_n_s16((int16_t)(inf - 1));
    const uint16x8_t bottom = vdupq_n_u16((uint16_t)(0x8000u | (inf - 1u)));
    size_t i = 0, len;
    const size_t whole = n / ITER16 * ITER16; /* blocks of whole iterations, the last one shorter */
    for (; i < whole; i += len) {
        len = whole - i < SK_RANGE_CHECK ? whole - i : SK_RANGE_CHECK;
        int16x8_t s[4] = {vdupq_n_s16(0), vdupq_n_s16(0), vdupq_n_s16(0), vdupq_n_s16(0)};
        uint16x8_t u[4] = {vdupq_n_u16(0), vdupq_n_u16(0), vdupq_n_u16(0), vdupq_n_u16(0)};
        run16(in + i, len / ITER16, s, u, 0, inf);
        const int16x8_t sm = vmaxq_s16(vmaxq_s16(s[0], s[1]), vmaxq_s16(s[2], s[3]));
        const uint16x8_t um = vmaxq_u16(vmaxq_u16(u[0], u[1]), vmaxq_u16(u[2], u[3]));
        if (vmaxvq_u16(vorrq_u16(vcgtq_s16(sm, top), vcgtq_u16(um, bottom)))) {
            run16(in + i, len / ITER16, S, U, 1, inf);
        } else {
            S[0] = vmaxq_s16(S[0], sm);
            U[0] = vmaxq_u16(U[0], um);
        }
    }
    uint16_t lanes[64];
    for (int k = 0; k < 4; ++k) {
        vst1q_u16(lanes + 8 * k, vreinterpretq_u16_s16(S[k]));
        vst1q_u16(lanes + 32 + 8 * k, U[k]);
    }
    sk_range_fold16(acc, at, lanes, 64, inf);
    sk_range_fold16(acc, at, in + i, n - i, inf);
}

void sk_range_f32__neon(void *acc, size_t at, const void *src, size_t n) { fold32(acc, at, src, n); }
void sk_range_b16__neon(void *acc, size_t at, const void *src, size_t n) { fold16(acc, at, src, n, SK_RANGE_INF_BF16); }
void sk_range_f16__neon(void *acc, size_t at, const void *src, size_t n) { fold16(acc, at, src, n, SK_RANGE_INF_F16); }
void sk_range_f32_periodic__neon(void *acc, size_t at, const void *src, size_t n) {
    sk_range_periodic32(acc, at, src, n);
}
void sk_range_b16_periodic__neon(void *acc, size_t at, const void *src, size_t n) {
    sk_range_periodic16(acc, at, src, n, SK_RANGE_INF_BF16);
}
void sk_range_f16_periodic__neon(void *acc, size_t at, const void *src, size_t n) {
    sk_range_periodic16(acc, at, src, n, SK_RANGE_INF_F16);
}
#endif
