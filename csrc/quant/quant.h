/* Quant internals: prepared parameters, input decoding and the exact integer
 * path that defines every result (tails and repaired blocks use it; the fast
 * vector paths must agree with it bit for bit). */
#ifndef SK_QUANT_H
#define SK_QUANT_H
#include <string.h>
#include "../common/kernel.h"
#include "exact.h"

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

/* Element i of a packed source of the given input dtype, decoded. */
static inline sk_q_decoded sk_q_decode_at(int input, const void *src, size_t i) {
    return input == SK_QUANT_F32    ? sk_q_decode_f32(((const uint32_t *)src)[i])
           : input == SK_QUANT_BF16 ? sk_q_decode_bf16(((const uint16_t *)src)[i])
                                    : sk_q_decode_f16(((const uint16_t *)src)[i]);
}

/* The ordered contract with integers only, with the context's parameters. */
static inline int8_t sk_quant_exact(const sk_quant_ctx *c, sk_q_decoded d, int mode) {
    return sk_q_exact(c->msig, c->mexp, c->zero_point, d, mode);
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
