/* Dequant: form selection (integers and scale bits only), route table and
 * the entry point, which checks the FP environment before any conversion. */
#include "dequant.h"

enum { EXP_MIN = -4, EXP_MAX = 4, WIDE_ZP_MIN = -16777089, WIDE_ZP_MAX = 16777088 };

#if SK_HAVE_AVX512
/* The staged expression on every INT8 input, BF16-narrowed by the integer
 * rule.  Kept out of line so that its arithmetic stays between the FP-state
 * changes of its caller. */
static __attribute__((noinline)) void staged_bf16_table(sk_dequant_plan *plan) {
    sk_dequant_ctx c;
    memcpy(&c.scale, &plan->scale_bits, sizeof c.scale);
    c.zp = (float)plan->zero_point;
    for (int b = 0; b < 256; ++b) {
        const uint16_t w = sk_bf16_from_f32_bits(sk_f32_bits(sk_dequant_staged(&c, (int8_t)b)));
        plan->bf16_table[0][b] = (uint8_t)w;
        plan->bf16_table[1][b] = (uint8_t)(w >> 8);
    }
}

/* The avx512 BF16 table (the plan's bf16_table), computed in the default FP
 * state (nearest, gradual underflow, traps masked) and the caller's state
 * restored after: its bits never depend on the state preparation ran in.
 * Executions still refuse a state the contract does not admit, as on every
 * route, before any write. */
static int fill_bf16_table(sk_dequant_plan *plan) {
    static const sk_fenv_state standard = {SK_ROUND_NEAREST, 0, 0, 0};
    sk_fenv_saved saved;
    if (sk_fenv_save(&saved) != 0) return SK_UNSUPPORTED_ENVIRONMENT;
    if (sk_fenv_set(&standard) != 0) return SK_UNSUPPORTED_ENVIRONMENT;  /* x86-64 can always */
    staged_bf16_table(plan);
    sk_fenv_restore(&saved);
    return SK_OK;
}
#endif

int sk_dequant_prepare(sk_dequant_plan *plan) {
    const uint32_t bits = plan->scale_bits;
    const uint32_t biased = (bits >> 23) & 0xffu;
    if (plan->output < 0 || plan->output > SK_DEQUANT_BF16 || plan->route < 0 ||
        plan->route >= SK_ROUTE_COUNT || !sk_route_compiled(plan->route))
        return SK_INVALID_OPERATION;
    if ((bits >> 31) || biased == 0xffu || bits == 0) return SK_INVALID_PARAMS;

    /* A normal scale with an empty significand is exactly 2^(biased-127). */
    const int pow2 = biased != 0 && (bits & 0x7fffffu) == 0;
    const int e = (int)biased - 127;
    const int bounded_pow2 = pow2 && e >= EXP_MIN && e <= EXP_MAX;
    const int32_t zp = plan->zero_point;
    plan->exponent = bounded_pow2 ? e : 0;
    if (zp >= -128 && zp <= 127)
        plan->form = bounded_pow2 ? SK_DEQUANT_NARROW_POW2 : SK_DEQUANT_NARROW;
    else if (bounded_pow2 && zp >= WIDE_ZP_MIN && zp <= WIDE_ZP_MAX)
        plan->form = SK_DEQUANT_WIDE_POW2;
    else
        plan->form = bits == 0x3f800000u ? SK_DEQUANT_WIDE_UNIT : SK_DEQUANT_WIDE;
#if SK_HAVE_AVX512
    if (plan->route == SK_ROUTE_AVX512 && plan->output == SK_DEQUANT_BF16)
        return fill_bf16_table(plan);
#endif
    return SK_OK;
}

/* Scalar, SSE2, AVX2 and AVX-512 leaves by form. */
static sk_span_fn form_leaf(int route, int output, int form, int exponent) {
#if SK_HAVE_AVX2
    /* An INT8-range zero point with a power-of-two scale needs no FP32 leaf
     * of its own (the NARROW multiply by 2^e is exact); its BF16 leaf skips
     * the rounding, which cannot change an exact 8-bit significand. */
    static const sk_span_fn avx2[2][SK_DEQUANT_FORM_COUNT] = {
        [SK_DEQUANT_F32] = {sk_dequant_i8_f32_narrow__avx2, sk_dequant_i8_f32_narrow__avx2,
                            sk_dequant_i8_f32_wide_pow2__avx2, sk_dequant_i8_f32_wide_unit__avx2,
                            sk_dequant_i8_f32_wide__avx2},
        [SK_DEQUANT_BF16] = {sk_dequant_i8_bf16_narrow__avx2, sk_dequant_i8_bf16_narrow_pow2__avx2,
                             sk_dequant_i8_bf16_wide_pow2__avx2, sk_dequant_i8_bf16_wide_unit__avx2,
                             sk_dequant_i8_bf16_wide__avx2},
    };
    if (route == SK_ROUTE_AVX2) return avx2[output][form];
#endif
#if SK_HAVE_AVX512
    /* BF16 by the plan's table; FP32 arithmetic is already at the copy bound. */
    if (route == SK_ROUTE_AVX512)
        return output == SK_DEQUANT_BF16 ? sk_dequant_i8_bf16_table__avx512 : avx2[output][form];
#endif
    /* The portable leaves need no form of their own for a negative
     * power-of-two exponent: the multiply is already exact. */
    if (form == SK_DEQUANT_NARROW_POW2 && exponent < 0) form = SK_DEQUANT_NARROW;
#if SK_HAVE_SSE2
    static const sk_span_fn sse2[2][SK_DEQUANT_FORM_COUNT] = {
        [SK_DEQUANT_F32] = {sk_dequant_i8_f32_narrow__sse2, sk_dequant_i8_f32_shift__sse2,
                            sk_dequant_i8_f32_wide_pow2__sse2, sk_dequant_i8_f32_wide_unit__sse2,
                            sk_dequant_i8_f32_wide__sse2},
        [SK_DEQUANT_BF16] = {sk_dequant_i8_bf16_narrow__sse2, sk_dequant_i8_bf16_shift__sse2,
                             sk_dequant_i8_bf16_wide_pow2__sse2, sk_dequant_i8_bf16_wide_unit__sse2,
                             sk_dequant_i8_bf16_wide__sse2},
    };
    if (route == SK_ROUTE_SSE2) return sse2[output][form];
#endif
    static const sk_span_fn scalar[2][SK_DEQUANT_FORM_COUNT] = {
        [SK_DEQUANT_F32] = {sk_dequant_i8_f32_narrow__scalar, sk_dequant_i8_f32_shift__scalar,
                            sk_dequant_i8_f32_wide_pow2__scalar, sk_dequant_i8_f32_wide_unit__scalar,
                            sk_dequant_i8_f32_wide__scalar},
        [SK_DEQUANT_BF16] = {sk_dequant_i8_bf16_narrow__scalar, sk_dequant_i8_bf16_shift__scalar,
                             sk_dequant_i8_bf16_wide_pow2__scalar, sk_dequant_i8_bf16_wide_unit__scalar,
                             sk_dequant_i8_bf16_wide__scalar},
    };
    (void)route;
    return scalar[output][form];
}

/* Every other element read in place (kernel.h), on the AVX2 and AVX-512
 * routes (their FP32 leaves are shared, as the dense ones are). */
static sk_every_other_fn every_other_leaf(int route, int output, int form) {
#if SK_HAVE_AVX2
    static const sk_every_other_fn avx2[2][SK_DEQUANT_FORM_COUNT] = {
        [SK_DEQUANT_F32] = {sk_dequant_i8_f32_narrow_every_other__avx2, sk_dequant_i8_f32_narrow_every_other__avx2,
                            sk_dequant_i8_f32_wide_pow2_every_other__avx2,
                            sk_dequant_i8_f32_wide_unit_every_other__avx2, sk_dequant_i8_f32_wide_every_other__avx2},
        [SK_DEQUANT_BF16] = {sk_dequant_i8_bf16_narrow_every_other__avx2,
                             sk_dequant_i8_bf16_narrow_pow2_every_other__avx2,
                             sk_dequant_i8_bf16_wide_pow2_every_other__avx2,
                             sk_dequant_i8_bf16_wide_unit_every_other__avx2,
                             sk_dequant_i8_bf16_wide_every_other__avx2},
    };
    if (route == SK_ROUTE_AVX2) return avx2[output][form];
#endif
#if SK_HAVE_AVX512
    if (route == SK_ROUTE_AVX512)
        return output == SK_DEQUANT_BF16 ? sk_dequant_i8_bf16_table_every_other__avx512 : avx2[output][form];
#endif
    (void)route, (void)output, (void)form;
    return NULL;
}

#if SK_HAVE_NEON
static sk_span_fn neon_leaf(int output, int form) {
    static const sk_span_fn leaves[2][SK_DEQUANT_FORM_COUNT] = {
        [SK_DEQUANT_F32] = {sk_dequant_i8_f32_narrow__neon, sk_dequant_i8_f32_narrow_pow2__neon,
                            sk_dequant_i8_f32_wide_pow2__neon, sk_dequant_i8_f32_wide_unit__neon,
                            sk_dequant_i8_f32_wide__neon},
        [SK_DEQUANT_BF16] = {sk_dequant_i8_bf16_narrow__neon, sk_dequant_i8_bf16_narrow_pow2__neon,
                             sk_dequant_i8_bf16_wide_pow2__neon, sk_dequant_i8_bf16_wide_unit__neon,
                             sk_dequant_i8_bf16_wide__neon},
    };
    return leaves[output][form];
}
#endif

int sk_dequant_execute(const sk_dequant_plan *plan, const void *src, uint64_t src_len, void *dst,
                       uint64_t dst_len) {
    if (plan->output < 0 || plan->output > SK_DEQUANT_BF16 || plan->form < 0 ||
        plan->form >= SK_DEQUANT_FORM_COUNT || plan->route < 0 || plan->route >= SK_ROUTE_COUNT ||
        !sk_route_compiled(plan->route))
        return SK_INVALID_OPERATION;
    const int bound = sk_binding_check(&plan->binding, src, src_len, dst, dst_len);
    if (bound != SK_OK) return bound;
    if (plan->walk.runs == 0) return SK_OK;  /* empty: no arithmetic, no FP-state requirement */
    /* Before any conversion or write: the staged roundings need nearest
     * rounding and gradual underflow, and no trap may fire mid-tensor. */
    if (sk_fenv_unmet(SK_NEED_NEAREST | SK_NEED_GRADUAL_UNDERFLOW | SK_NEED_NO_TRAPS))
        return SK_UNSUPPORTED_ENVIRONMENT;

    sk_dequant_ctx c;
    memcpy(&c.scale, &plan->scale_bits, sizeof c.scale);
    c.zero_point = plan->zero_point;
    c.exponent = plan->exponent;
    c.zp = (float)plan->zero_point;
    c.zp_scaled = plan->form == SK_DEQUANT_WIDE_POW2 ? c.zp * c.scale : 0.0f;
    c.bf16_table = plan->bf16_table;

    /* Only the scalar reference walks non-packed runs element by element;
     * the walk stages them through the other routes' dense leaves, or
     * reads every other element in place where the route can. */
    sk_kernel k = {NULL, NULL, every_other_leaf(plan->route, plan->output, plan->form)};
    if (plan->route == SK_ROUTE_SCALAR)
        k.strided = plan->output == SK_DEQUANT_F32 ? sk_dequant_i8_f32_strided__scalar
                                                   : sk_dequant_i8_bf16_strided__scalar;
#if SK_HAVE_NEON
    if (plan->route == SK_ROUTE_NEON)
        k.span = neon_leaf(plan->output, plan->form);
    else
#endif
        k.span = form_leaf(plan->route, plan->output, plan->form, plan->exponent);
    sk_walk_run(&plan->walk, src, dst, k, &c);
    return SK_OK;
}
