/* Quant: parameter decoding, the route table (3 inputs x 4 rounding modes)
 * and the entry point. */
#include "quant.h"
#if SK_HAVE_SSE2
#include <xmmintrin.h>
enum { MXCSR_DAZ = 1 << 6, MXCSR_FTZ = 1 << 15 };
#endif

/* floor(log2 |x * m|) of the exact product, x finite and nonzero. */
static int32_t product_log2(const sk_quant_ctx *c, sk_q_decoded d) {
    return sk_q_bitlen64((uint64_t)d.sig * c->msig) - 1 + d.exp + c->mexp;
}

/* The smallest magnitude a in [lo, hi) of the input dtype whose exact
 * product reaches 2^k, else hi.  The product is monotone in a (the encoding
 * orders finite magnitudes), so a binary search over the bits finds it. */
static uint32_t first_reaching(const sk_quant_ctx *c, int input, uint32_t lo, uint32_t hi, int32_t k) {
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        const sk_q_decoded d = input == SK_QUANT_F32 ? sk_q_decode_f32(mid)
                             : input == SK_QUANT_BF16 ? sk_q_decode_bf16((uint16_t)mid)
                                                      : sk_q_decode_f16((uint16_t)mid);
        if (product_log2(c, d) >= k) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

void sk_quant_ctx_init(sk_quant_ctx *c, uint32_t bits, int32_t zero_point, int input) {
    memcpy(&c->multiplier, &bits, sizeof c->multiplier);
    c->multiplier_bits = bits;
    c->zero_point = zero_point;
    const uint32_t e = (bits >> 23) & 0xffu, f = bits & 0x7fffffu;
    c->exact_only = e == 0;  /* subnormal multiplier */
    uint64_t sig = e ? (f | 0x800000u) : f;
    int32_t exp = e ? (int32_t)e - 150 : -149;
    /* Powers of two leave the significand once, here, not per element. */
    while (sig && !(sig & 1)) {
        sig >>= 1;
        ++exp;
    }
    c->msig = sig;
    c->mexp = exp;
    /* From the smallest normal input (denormals-are-zero would flush a
     * subnormal one; for FP16 this keeps F16C away from half subnormals). */
    const uint32_t min_normal = input == SK_QUANT_F32 ? 0x00800000u : input == SK_QUANT_BF16 ? 0x0080u : 0x0400u;
    const uint32_t infinity = input == SK_QUANT_F32 ? 0x7f800000u : input == SK_QUANT_BF16 ? 0x7f80u : 0x7c00u;
#if SK_HAVE_SSE2
    c->flushes = (_mm_getcsr() & (MXCSR_FTZ | MXCSR_DAZ)) != 0;
#else
    c->flushes = 0;
#endif
    c->fast_min = c->exact_only || !c->flushes ? infinity : first_reaching(c, input, min_normal, infinity, -126);
}

int sk_quant_prepare(const sk_quant_plan *plan) {
    const uint32_t bits = plan->multiplier_bits;
    if (plan->input < 0 || plan->input > SK_QUANT_F16 || plan->rounding < 0 ||
        plan->rounding > SK_QUANT_TOWARD_NEGATIVE || plan->route < 0 ||
        plan->route >= SK_ROUTE_COUNT || !sk_route_compiled(plan->route))
        return SK_INVALID_OPERATION;
    if ((bits >> 31) || ((bits >> 23) & 0xffu) == 0xffu || bits == 0 || plan->zero_point < -128 ||
        plan->zero_point > 127)
        return SK_INVALID_PARAMS;
    return SK_OK;
}

#define ROW(isa, in)                                                                   \
    {sk_quant_##in##_i8_ne__##isa, sk_quant_##in##_i8_tz__##isa, sk_quant_##in##_i8_tp__##isa, \
     sk_quant_##in##_i8_tn__##isa}
static const sk_span_fn quant_leaves[SK_ROUTE_COUNT][3][4] = {
#if SK_HAVE_NEON
    [SK_ROUTE_NEON] = {ROW(neon, f32), ROW(neon, bf16), ROW(neon, f16)},
#endif
#if SK_HAVE_SSE2
    [SK_ROUTE_SSE2] = {ROW(sse2, f32), ROW(sse2, bf16), ROW(sse2, f16)},
#endif
#if SK_HAVE_AVX512
    /* Every input on 512 bits: FP16 at 256K elements 0.044 -> 0.030 ns/elem
     * on Zen 5 against the AVX2 leaves (on Zen 4 those were faster). */
    [SK_ROUTE_AVX512] = {ROW(avx512, f32), ROW(avx512, bf16),
                         ROW(avx512, f16)},
#endif
#if SK_HAVE_AVX2
    [SK_ROUTE_AVX2] = {ROW(avx2, f32), ROW(avx2, bf16), ROW(avx2, f16)},
#endif
    [SK_ROUTE_SCALAR] = {ROW(scalar, f32), ROW(scalar, bf16), ROW(scalar, f16)},
};
#undef ROW

sk_span_fn sk_quant_leaf(int route, int input, int rounding) {
    return quant_leaves[route][input][rounding];
}

/* Every other element read in place (kernel.h): the x86 vector routes
 * (SSE2 and the portable routes stage such runs). */
#define ROW(isa, in)                                                                                \
    {sk_quant_##in##_i8_ne_every_other__##isa, sk_quant_##in##_i8_tz_every_other__##isa,           \
     sk_quant_##in##_i8_tp_every_other__##isa, sk_quant_##in##_i8_tn_every_other__##isa}
static const sk_every_other_fn quant_every_other[SK_ROUTE_COUNT][3][4] = {
#if SK_HAVE_AVX512
    [SK_ROUTE_AVX512] = {ROW(avx512, f32), ROW(avx512, bf16), ROW(avx512, f16)},
#endif
#if SK_HAVE_AVX2
    [SK_ROUTE_AVX2] = {ROW(avx2, f32), ROW(avx2, bf16), ROW(avx2, f16)},
#endif
    [SK_ROUTE_SCALAR] = {{NULL}},  /* (never empty braces, which C11 forbids) */
};
#undef ROW

sk_every_other_fn sk_quant_every_other_leaf(int route, int input, int rounding) {
    return quant_every_other[route][input][rounding];
}

int sk_quant_execute(const sk_quant_plan *plan, const void *src, uint64_t src_len, void *dst,
                     uint64_t dst_len) {
    int status = sk_quant_prepare(plan);
    if (status != SK_OK) return status;
    status = sk_binding_check(&plan->binding, src, src_len, dst, dst_len);
    if (status != SK_OK) return status;
    if (plan->walk.runs == 0) return SK_OK;  /* empty: nothing to compute */
    /* The product rounding needs nearest rounding and no trap may fire;
     * flush-to-zero/denormals-are-zero are repaired exactly. */
    if (sk_fenv_unmet(SK_NEED_NEAREST | SK_NEED_NO_TRAPS)) return SK_UNSUPPORTED_ENVIRONMENT;
    sk_quant_ctx c;
    sk_quant_ctx_init(&c, plan->multiplier_bits, plan->zero_point, plan->input);
    /* Only the scalar reference walks non-packed runs element by element;
     * the walk stages them through the other routes' dense leaves, or
     * reads every other element in place where the route can. */
    const sk_kernel k = {sk_quant_leaf(plan->route, plan->input, plan->rounding),
                         plan->route == SK_ROUTE_SCALAR ? sk_quant_strided[plan->input][plan->rounding]
                                                        : NULL,
                         sk_quant_every_other_leaf(plan->route, plan->input, plan->rounding)};
    sk_walk_run(&plan->walk, src, dst, k, &c);
    return SK_OK;
}
