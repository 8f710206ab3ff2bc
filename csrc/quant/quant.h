/* Quant internals: prepared parameters, input decoding and the exact integer
 * path that defines every result (tails and repaired blocks use it; the fast
 * vector paths must agree with it bit for bit). */
#ifndef SK_QUANT_H
#define SK_QUANT_H
#include <string.h>
#include "../common/kernel.h"

typedef struct sk_quant_ctx {
    float multiplier;
    uint32_t multiplier_bits;
    uint64_t msig; /* multiplier = msig * 2^mexp, msig odd */
    int32_t mexp;
    int32_t zero_point;
    int32_t exact_only; /* subnormal multiplier: every block takes the exact path */
    /* Whether the control register flushes (fenv.h), read once per execute:
     * the state the leaves then run in (same call, same thread).  The
     * vector leaves test blocks for the exact path only under it. */
    int32_t flushes;
    /* x86, where `flushes` (nothing else reads it), for the input dtype:
     * the smallest magnitude bits (the input's bits without the sign) of a
     * normal input whose exact product is at least 2^-126.  Nonzero inputs
     * from there up are normal with normal products, untouched by
     * flush-to-zero and denormals-are-zero (a vector leaf's repair test
     * under those modes); every finite input is below, and all of them
     * when no product reaches 2^-126 or the multiplier is subnormal, the
     * infinity's bits.  Otherwise the infinity's bits, without the search. */
    uint32_t fast_min;
    /* Elements whose traffic decides whether a run streams its output
     * (stream.h, sk_stream_count): the whole walk's for a per-axis plan's
     * runs, else 0. */
    size_t stream_elements;
} sk_quant_ctx;

/* A context from the multiplier's bits (the EV74 device model; execute
 * copies the plan's decoded multiplier instead), and its flush fields for
 * a control register that flushes or not. */
void sk_quant_ctx_init(sk_quant_ctx *c, uint32_t multiplier_bits, int32_t zero_point, int input, int flushes);
void sk_quant_ctx_flushing(sk_quant_ctx *c, int input, int flushes);

/* A decoded input: value = (-1)^neg * sig * 2^exp for finite values. */
enum { SK_Q_FINITE = 0, SK_Q_ZERO = 1, SK_Q_INF = 2, SK_Q_NAN = 3 };
typedef struct sk_q_decoded {
    int kind;
    int neg;
    uint32_t sig;
    int32_t exp;
} sk_q_decoded;

static inline sk_q_decoded sk_q_decode(uint32_t bits, int exp_bits, int frac_bits) {
    const uint32_t frac_mask = (1u << frac_bits) - 1, exp_max = (1u << exp_bits) - 1;
    const int bias = (1 << (exp_bits - 1)) - 1;
    const uint32_t e = (bits >> frac_bits) & exp_max, f = bits & frac_mask;
    sk_q_decoded d = {SK_Q_FINITE, (int)(bits >> (exp_bits + frac_bits)), f, 1 - bias - frac_bits};
    if (e == exp_max)
        d.kind = f ? SK_Q_NAN : SK_Q_INF;
    else if (e == 0 && f == 0)
        d.kind = SK_Q_ZERO;
    else if (e != 0) {
        d.sig = f | (1u << frac_bits);
        d.exp = (int32_t)e - bias - frac_bits;
    }
    return d;
}
static inline sk_q_decoded sk_q_decode_f32(uint32_t b) { return sk_q_decode(b, 8, 23); }
static inline sk_q_decoded sk_q_decode_bf16(uint16_t b) { return sk_q_decode(b, 8, 7); }
static inline sk_q_decoded sk_q_decode_f16(uint16_t b) { return sk_q_decode(b, 5, 10); }

/* Element i of a packed source of the given input dtype, decoded. */
static inline sk_q_decoded sk_q_decode_at(int input, const void *src, size_t i) {
    return input == SK_QUANT_F32    ? sk_q_decode_f32(((const uint32_t *)src)[i])
           : input == SK_QUANT_BF16 ? sk_q_decode_bf16(((const uint16_t *)src)[i])
                                    : sk_q_decode_f16(((const uint16_t *)src)[i]);
}

static inline int8_t sk_q_saturate(int64_t v) { return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); }

static inline int sk_q_bitlen64(uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }

/* Integer rounding of (ip + rem / 2^n) by the mode, for a magnitude with the
 * given sign; rem < 2^n.  `n` may exceed 63 (then rem is all sticky). */
static inline uint64_t sk_q_round_magnitude(uint64_t ip, uint64_t rem, int n, int neg, int mode) {
    if (rem == 0) return ip;
    switch (mode) {
    case SK_QUANT_NEAREST_EVEN: {
        if (n > 63) return ip; /* rem < 2^64 <= half: below half */
        const uint64_t half = (uint64_t)1 << (n - 1);
        return ip + (rem > half || (rem == half && (ip & 1)));
    }
    case SK_QUANT_TOWARD_ZERO:
        return ip;
    case SK_QUANT_TOWARD_POSITIVE:
        return ip + !neg;
    default:
        return ip + neg; /* toward negative */
    }
}

/* The ordered contract with integers only (independent of FP modes):
 * product rounded to binary32 nearest-even (24 bits, quantum 2^-149), then
 * the integer rounding mode, then the zero point, then saturation. */
static inline int8_t sk_quant_exact(const sk_quant_ctx *c, sk_q_decoded d, int mode) {
    if (d.kind == SK_Q_NAN || d.kind == SK_Q_ZERO) return (int8_t)c->zero_point;
    if (d.kind == SK_Q_INF) return d.neg ? -128 : 127;
    /* At most 24 x 24 bits: the exact product fits 64 bits. */
    uint64_t p = (uint64_t)d.sig * c->msig;
    int32_t q = d.exp + c->mexp;
    int shift = sk_q_bitlen64(p) - 24;
    if (-149 - q > shift) shift = -149 - q;
    if (shift > 0) {
        uint64_t ip = shift > 63 ? 0 : p >> shift;
        uint64_t rem = shift > 63 ? p : p & (((uint64_t)1 << shift) - 1);
        p = sk_q_round_magnitude(ip, rem, shift, 0, SK_QUANT_NEAREST_EVEN);
        q += shift;
    }
    /* The binary32 value is p * 2^q with p <= 2^24.  From 512 up (infinity
     * included) every zero point saturates by sign. */
    uint64_t magnitude;
    if (p == 0) {
        magnitude = 0;
    } else if (q >= 0) {
        magnitude = q >= 10 ? 512 : p << q;
    } else {
        const int n = -q;
        uint64_t ip = n > 63 ? 0 : p >> n;
        uint64_t rem = n > 63 ? p : p & (((uint64_t)1 << n) - 1);
        magnitude = sk_q_round_magnitude(ip, rem, n, d.neg, mode);
    }
    if (magnitude > 512) magnitude = 512;
    const int64_t r = d.neg ? -(int64_t)magnitude : (int64_t)magnitude;
    return sk_q_saturate(r + c->zero_point);
}

/* The exact path over elements [i, n) of a source whose elements are
 * `step` elements apart (1: packed; 2: every other): tails, repaired blocks
 * and the whole scalar route. */
static inline void sk_quant_exact_steps(const sk_quant_ctx *c, const void *src, int8_t *out, size_t i, size_t n,
                                        int input, int mode, size_t step) {
    for (; i < n; ++i) out[i] = sk_quant_exact(c, sk_q_decode_at(input, src, i * step), mode);
}

static inline void sk_quant_exact_span(const sk_quant_ctx *c, const void *src, int8_t *out, size_t i, size_t n,
                                       int input, int mode) {
    sk_quant_exact_steps(c, src, out, i, n, input, mode, 1);
}

#define SK_QUANT_LEAF(name) void name(const void *ctx, const void *src, void *dst, size_t n)
#define SK_QUANT_EVERY_OTHER(name) size_t name(const void *ctx, const void *src, void *dst, size_t n)
/* Defines the 12 entries of a route from its always-inline runner
 * run(ctx, src, out, n, input, mode); the x86 vector routes also define
 * 12 every_other leaves (kernel.h) from theirs, which returns the count. */
#define SK_QUANT_ENTRY(isa, run, in_name, input, mode_name, mode) \
    SK_QUANT_LEAF(sk_quant_##in_name##_i8_##mode_name##__##isa) { run(ctx, src, dst, n, input, mode); }
#define SK_QUANT_EVERY_OTHER_ENTRY(isa, run, in_name, input, mode_name, mode)        \
    SK_QUANT_EVERY_OTHER(sk_quant_##in_name##_i8_##mode_name##_every_other__##isa) { \
        return run(ctx, src, dst, n, input, mode);                                   \
    }
#define SK_QUANT_ENTRIES_FOR(entry, isa, run, in_name, input)             \
    entry(isa, run, in_name, input, ne, SK_QUANT_NEAREST_EVEN)            \
        entry(isa, run, in_name, input, tz, SK_QUANT_TOWARD_ZERO)         \
            entry(isa, run, in_name, input, tp, SK_QUANT_TOWARD_POSITIVE) \
                entry(isa, run, in_name, input, tn, SK_QUANT_TOWARD_NEGATIVE)
#define SK_QUANT_ENTRIES_OF(entry, isa, run)                   \
    SK_QUANT_ENTRIES_FOR(entry, isa, run, f32, SK_QUANT_F32)   \
    SK_QUANT_ENTRIES_FOR(entry, isa, run, bf16, SK_QUANT_BF16) \
    SK_QUANT_ENTRIES_FOR(entry, isa, run, f16, SK_QUANT_F16)
#define SK_QUANT_ENTRIES(isa, run) SK_QUANT_ENTRIES_OF(SK_QUANT_ENTRY, isa, run)
#define SK_QUANT_EVERY_OTHER_ENTRIES(isa, run) SK_QUANT_ENTRIES_OF(SK_QUANT_EVERY_OTHER_ENTRY, isa, run)
#define SK_QUANT_LEAVES(isa)                   \
    SK_QUANT_LEAF(sk_quant_f32_i8_ne__##isa);  \
    SK_QUANT_LEAF(sk_quant_f32_i8_tz__##isa);  \
    SK_QUANT_LEAF(sk_quant_f32_i8_tp__##isa);  \
    SK_QUANT_LEAF(sk_quant_f32_i8_tn__##isa);  \
    SK_QUANT_LEAF(sk_quant_bf16_i8_ne__##isa); \
    SK_QUANT_LEAF(sk_quant_bf16_i8_tz__##isa); \
    SK_QUANT_LEAF(sk_quant_bf16_i8_tp__##isa); \
    SK_QUANT_LEAF(sk_quant_bf16_i8_tn__##isa); \
    SK_QUANT_LEAF(sk_quant_f16_i8_ne__##isa);  \
    SK_QUANT_LEAF(sk_quant_f16_i8_tz__##isa);  \
    SK_QUANT_LEAF(sk_quant_f16_i8_tp__##isa);  \
    SK_QUANT_LEAF(sk_quant_f16_i8_tn__##isa);
SK_QUANT_LEAVES(scalar)
#if SK_HAVE_SSE2
SK_QUANT_LEAVES(sse2)
#endif
#define SK_QUANT_EVERY_OTHER_LEAVES(isa)                          \
    SK_QUANT_EVERY_OTHER(sk_quant_f32_i8_ne_every_other__##isa);  \
    SK_QUANT_EVERY_OTHER(sk_quant_f32_i8_tz_every_other__##isa);  \
    SK_QUANT_EVERY_OTHER(sk_quant_f32_i8_tp_every_other__##isa);  \
    SK_QUANT_EVERY_OTHER(sk_quant_f32_i8_tn_every_other__##isa);  \
    SK_QUANT_EVERY_OTHER(sk_quant_bf16_i8_ne_every_other__##isa); \
    SK_QUANT_EVERY_OTHER(sk_quant_bf16_i8_tz_every_other__##isa); \
    SK_QUANT_EVERY_OTHER(sk_quant_bf16_i8_tp_every_other__##isa); \
    SK_QUANT_EVERY_OTHER(sk_quant_bf16_i8_tn_every_other__##isa); \
    SK_QUANT_EVERY_OTHER(sk_quant_f16_i8_ne_every_other__##isa);  \
    SK_QUANT_EVERY_OTHER(sk_quant_f16_i8_tz_every_other__##isa);  \
    SK_QUANT_EVERY_OTHER(sk_quant_f16_i8_tp_every_other__##isa);  \
    SK_QUANT_EVERY_OTHER(sk_quant_f16_i8_tn_every_other__##isa);
#if SK_HAVE_AVX2
SK_QUANT_LEAVES(avx2)
SK_QUANT_EVERY_OTHER_LEAVES(avx2)
#endif
#if SK_HAVE_AVX512
SK_QUANT_LEAVES(avx512)
SK_QUANT_EVERY_OTHER_LEAVES(avx512)
#endif
#if SK_HAVE_NEON
SK_QUANT_LEAVES(neon)
SK_QUANT_EVERY_OTHER_LEAVES(neon)
#endif

/* Per-axis plans, channel axis inner (quant_axis.c): the multiplier and
 * zero point of table positions [0, period), and each channel's context
 * for the exact path (position i is channel i mod channels). */
typedef struct sk_quant_table {
    const float *multiplier;
    const int32_t *zero_point;
    const sk_quant_ctx *ctx; /* each channel's, for this control register */
    int64_t channels;
    /* Whether the control register flushes: then a block whose nonzero
     * inputs give a product below 2^-126 takes the exact path (without
     * flushing every product and step of the vector path is exact). */
    int32_t flushes;
} sk_quant_table;
#define SK_QUANT_AXIS_LEAF(name) void name(const void *table, size_t at, const void *src, void *dst, size_t n)
#define SK_QUANT_AXIS_LEAVES(isa)                        \
    SK_QUANT_AXIS_LEAF(sk_quant_f32_i8_ne_axis__##isa);  \
    SK_QUANT_AXIS_LEAF(sk_quant_f32_i8_tz_axis__##isa);  \
    SK_QUANT_AXIS_LEAF(sk_quant_f32_i8_tp_axis__##isa);  \
    SK_QUANT_AXIS_LEAF(sk_quant_f32_i8_tn_axis__##isa);  \
    SK_QUANT_AXIS_LEAF(sk_quant_bf16_i8_ne_axis__##isa); \
    SK_QUANT_AXIS_LEAF(sk_quant_bf16_i8_tz_axis__##isa); \
    SK_QUANT_AXIS_LEAF(sk_quant_bf16_i8_tp_axis__##isa); \
    SK_QUANT_AXIS_LEAF(sk_quant_bf16_i8_tn_axis__##isa); \
    SK_QUANT_AXIS_LEAF(sk_quant_f16_i8_ne_axis__##isa);  \
    SK_QUANT_AXIS_LEAF(sk_quant_f16_i8_tz_axis__##isa);  \
    SK_QUANT_AXIS_LEAF(sk_quant_f16_i8_tp_axis__##isa);  \
    SK_QUANT_AXIS_LEAF(sk_quant_f16_i8_tn_axis__##isa);
SK_QUANT_AXIS_LEAVES(scalar)
#if SK_HAVE_SSE2
SK_QUANT_AXIS_LEAVES(sse2)
SK_QUANT_AXIS_LEAVES(avx2)
SK_QUANT_AXIS_LEAVES(avx512)
#endif
#if SK_HAVE_NEON
SK_QUANT_AXIS_LEAVES(neon)
/* Short packed runs of consecutive channels (kernel.h sk_runs_fn). */
#define SK_QUANT_RUNS_LEAF(name) \
    void name(const void *table, size_t channel, const void *src, void *dst, size_t n, size_t count)
SK_QUANT_RUNS_LEAF(sk_quant_f32_i8_ne_runs__neon);
SK_QUANT_RUNS_LEAF(sk_quant_f32_i8_tz_runs__neon);
SK_QUANT_RUNS_LEAF(sk_quant_f32_i8_tp_runs__neon);
SK_QUANT_RUNS_LEAF(sk_quant_f32_i8_tn_runs__neon);
SK_QUANT_RUNS_LEAF(sk_quant_bf16_i8_ne_runs__neon);
SK_QUANT_RUNS_LEAF(sk_quant_bf16_i8_tz_runs__neon);
SK_QUANT_RUNS_LEAF(sk_quant_bf16_i8_tp_runs__neon);
SK_QUANT_RUNS_LEAF(sk_quant_bf16_i8_tn_runs__neon);
SK_QUANT_RUNS_LEAF(sk_quant_f16_i8_ne_runs__neon);
SK_QUANT_RUNS_LEAF(sk_quant_f16_i8_tz_runs__neon);
SK_QUANT_RUNS_LEAF(sk_quant_f16_i8_tp_runs__neon);
SK_QUANT_RUNS_LEAF(sk_quant_f16_i8_tn_runs__neon);
#endif

/* Kernel table entry [route][input * 4 + rounding] (kernel.h). */
const sk_kernel *sk_quant_kernel(int route, int variant);

/* The scalar reference's non-packed runs: the exact path element by
 * element, one leaf per input and mode (its kernel table's `strided`). */
#define SK_QUANT_STRIDED(name) \
    void name(const void *ctx, const char *src, ptrdiff_t src_step, char *dst, ptrdiff_t dst_step, size_t n)
SK_QUANT_STRIDED(sk_quant_f32_i8_ne_strided__scalar);
SK_QUANT_STRIDED(sk_quant_f32_i8_tz_strided__scalar);
SK_QUANT_STRIDED(sk_quant_f32_i8_tp_strided__scalar);
SK_QUANT_STRIDED(sk_quant_f32_i8_tn_strided__scalar);
SK_QUANT_STRIDED(sk_quant_bf16_i8_ne_strided__scalar);
SK_QUANT_STRIDED(sk_quant_bf16_i8_tz_strided__scalar);
SK_QUANT_STRIDED(sk_quant_bf16_i8_tp_strided__scalar);
SK_QUANT_STRIDED(sk_quant_bf16_i8_tn_strided__scalar);
SK_QUANT_STRIDED(sk_quant_f16_i8_ne_strided__scalar);
SK_QUANT_STRIDED(sk_quant_f16_i8_tz_strided__scalar);
SK_QUANT_STRIDED(sk_quant_f16_i8_tp_strided__scalar);
SK_QUANT_STRIDED(sk_quant_f16_i8_tn_strided__scalar);

#endif
