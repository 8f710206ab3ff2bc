/* Quant's parameter-vector leaves (per-axis plans whose channel axis is
 * the walk's inner run): each element takes its position's multiplier and
 * zero point from the plan's repeating table.  16 lanes per block in
 * generic vectors, compiled once per route's instruction set:
 *   the input decoded to its exact binary32 bits (integer moves; FP16
 *   subnormals through an exact integer conversion and a multiply whose
 *   result is normal), the product x * m (nearest-even, the FP state
 *   execute admitted), clamped to [-512, 512] (from 512 every zero point
 *   saturates), truncated to an integer t with the exact remainder
 *   d = p - t, the mode's step from t by d, the zero point, saturation.
 * A block with a NaN product, or a nonzero input whose product is below
 * 2^-126 (zero or subnormal: what flush-to-zero and denormals-are-zero can
 * change, and the only products whose later steps could read a flushed
 * operand), takes the exact integer path (quant.h) instead, as do tails
 * and the whole scalar route. */
#include "quant.h"
#include "../common/axis.h"

/* The exact path for elements [i, end) at table positions from at + i. */
static inline void axis_exact(const sk_quant_table *t, size_t at, const void *src, int8_t *out, size_t i,
                              size_t end, int input, int mode) {
    int64_t c = (int64_t)((at + i) % (size_t)t->channels);
    for (; i < end; ++i) {
        out[i] = sk_quant_exact(&t->ctx[c], sk_q_decode_at(input, src, i), mode);
        if (++c == t->channels) c = 0;
    }
}

static inline __attribute__((always_inline)) void axis_run(const void *table, size_t at, const void *src,
                                                           void *dst, size_t n, int input, int mode) {
    const sk_quant_table *t = table;
    const float *multiplier = t->multiplier + at;
    const int32_t *zero_point = t->zero_point + at;
    int8_t *out = dst;
    size_t i = 0;
    for (; i + SK_AXIS_LANES <= n; i += SK_AXIS_LANES) {
        sk_u32x16 bits;
        if (input == SK_QUANT_F32) {
            memcpy(&bits, (const uint32_t *)src + i, sizeof bits);
        } else {
            sk_u16x16 h;
            memcpy(&h, (const uint16_t *)src + i, sizeof h);
            const sk_u32x16 w = __builtin_convertvector(h, sk_u32x16);
            if (input == SK_QUANT_BF16) {
                bits = w << 16;
            } else {
                const sk_u32x16 mag = w & 0x7fffu, e = mag >> 10;
                const sk_u32x16 normal = (mag << 13) + (112u << 23);
                const sk_u32x16 special = normal + (112u << 23);  /* infinities and NaNs */
                const sk_u32x16 subnormal = (sk_u32x16)(__builtin_convertvector(mag, sk_f32x16) * 0x1p-24f);
                const sk_i32x16 zero_e = e == 0, max_e = e == 31;
                bits = (sk_u32x16)SK_SELECT_I32(zero_e, (sk_i32x16)subnormal,
                                                SK_SELECT_I32(max_e, (sk_i32x16)special, (sk_i32x16)normal));
                bits |= (w & 0x8000u) << 16;
            }
        }
        sk_f32x16 m;
        memcpy(&m, multiplier + i, sizeof m);
        const sk_f32x16 p = (sk_f32x16)bits * m;
        const sk_u32x16 pmag = (sk_u32x16)p & 0x7fffffffu;
        const sk_i32x16 repair = (p != p) | (((bits & 0x7fffffffu) != 0) & (pmag < 0x00800000u));
        int any;
        SK_ANY_LANE(repair, any);
        if (any) {
            axis_exact(t, at, src, out, i, i + SK_AXIS_LANES, input, mode);
            continue;
        }
        const sk_f32x16 top = {512.0f, 512.0f, 512.0f, 512.0f, 512.0f, 512.0f, 512.0f, 512.0f,
                               512.0f, 512.0f, 512.0f, 512.0f, 512.0f, 512.0f, 512.0f, 512.0f};
        sk_f32x16 pc = SK_SELECT_F32(p > top, top, p);
        pc = SK_SELECT_F32(pc < -top, -top, pc);
        sk_i32x16 r = __builtin_convertvector(pc, sk_i32x16);  /* toward zero */
        const sk_f32x16 d = pc - __builtin_convertvector(r, sk_f32x16);  /* exact, in (-1, 1) */
        const sk_i32x16 above = d > 0, below = d < 0;  /* masks: -1 where set */
        switch (mode) {
        case SK_QUANT_TOWARD_ZERO: break;
        case SK_QUANT_TOWARD_POSITIVE: r -= above; break;
        case SK_QUANT_TOWARD_NEGATIVE: r += below; break;
        default: {
            const sk_f32x16 half = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f,
                                    0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
            const sk_f32x16 ad = (sk_f32x16)((sk_u32x16)d & 0x7fffffffu);
            const sk_i32x16 away = (ad > half) | ((ad == half) & ((r & 1) != 0));
            r = r - (away & above) + (away & below);
        }
        }
        sk_i32x16 z;
        memcpy(&z, zero_point + i, sizeof z);
        r += z;
        r = SK_SELECT_I32(r > 127, (sk_i32x16){0} + 127, r);
        r = SK_SELECT_I32(r < -128, (sk_i32x16){0} - 128, r);
        const sk_i8x16 q = __builtin_convertvector(r, sk_i8x16);
        memcpy(out + i, &q, sizeof q);
    }
    axis_exact(t, at, src, out, i, n, input, mode);
}

/* The scalar route: the exact path element by element. */
static inline __attribute__((always_inline)) void axis_exact_run(const void *table, size_t at, const void *src,
                                                                 void *dst, size_t n, int input, int mode) {
    axis_exact(table, at, src, dst, 0, n, input, mode);
}

#define LEAF(isa, run, in_name, input, mode_name, mode)                                                 \
    SK_QUANT_AXIS_LEAF(sk_quant_##in_name##_i8_##mode_name##_axis__##isa) {                             \
        run(table, at, src, dst, n, input, mode);                                                       \
    }
#define LEAVES_FOR(isa, run, in_name, input)                                                            \
    LEAF(isa, run, in_name, input, ne, SK_QUANT_NEAREST_EVEN)                                           \
    LEAF(isa, run, in_name, input, tz, SK_QUANT_TOWARD_ZERO)                                            \
    LEAF(isa, run, in_name, input, tp, SK_QUANT_TOWARD_POSITIVE)                                        \
    LEAF(isa, run, in_name, input, tn, SK_QUANT_TOWARD_NEGATIVE)
#define LEAVES(isa, run)                                                                                \
    LEAVES_FOR(isa, run, f32, SK_QUANT_F32)                                                             \
    LEAVES_FOR(isa, run, bf16, SK_QUANT_BF16)                                                           \
    LEAVES_FOR(isa, run, f16, SK_QUANT_F16)

LEAVES(scalar, axis_exact_run)
#if SK_HAVE_SSE2
LEAVES(sse2, axis_run)
#pragma GCC push_options
#pragma GCC target("avx2")
LEAVES(avx2, axis_run)
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,avx512f,avx512bw,avx512vl,avx512dq")
LEAVES(avx512, axis_run)
#pragma GCC pop_options
#endif
#if SK_HAVE_NEON
LEAVES(neon, axis_run)
#endif
