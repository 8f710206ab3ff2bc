/* Cast kernel table and entry point. */
#include "cast.h"

/* [route][kind] (kernel.h).  Only the scalar reference has a strided leaf;
 * the vector routes' non-packed runs are staged by their own moves, except
 * every other element, which the AVX2, AVX-512 and NEON leaves read in
 * place, and NEON's transposes in cache, which its fused tile leaves
 * convert and transpose in registers. */
static const sk_kernel cast_kernels[SK_ROUTE_COUNT][2] = {
#if SK_HAVE_NEON
    [SK_ROUTE_NEON] =
        {
            [SK_CAST_F32_BF16] = {sk_cast_f32_bf16__neon, NULL, sk_cast_f32_bf16_every_other__neon, SK_CAST_NEON_BLOCK,
                                  sk_cast_f32_bf16_tile__neon},
            [SK_CAST_BF16_F32] = {sk_cast_bf16_f32__neon, NULL, sk_cast_bf16_f32_every_other__neon, SK_CAST_NEON_BLOCK,
                                  sk_cast_bf16_f32_tile__neon},
        },
#endif
#if SK_HAVE_AVX512
    [SK_ROUTE_AVX512] =
        {
            [SK_CAST_F32_BF16] = {sk_cast_f32_bf16__avx512, NULL, sk_cast_f32_bf16_every_other__avx2, 64},
            [SK_CAST_BF16_F32] = {sk_cast_bf16_f32__avx512, NULL, sk_cast_bf16_f32_every_other__avx512, 64},
        },
#endif
#if SK_HAVE_AVX2
    [SK_ROUTE_AVX2] =
        {
            [SK_CAST_F32_BF16] = {sk_cast_f32_bf16__avx2, NULL, sk_cast_f32_bf16_every_other__avx2, SK_AVX2_BLOCK},
            [SK_CAST_BF16_F32] = {sk_cast_bf16_f32__avx2, NULL, sk_cast_bf16_f32_every_other__avx2, SK_AVX2_BLOCK},
        },
#endif
#if SK_HAVE_SSE2
    [SK_ROUTE_SSE2] =
        {
            [SK_CAST_F32_BF16] = {sk_cast_f32_bf16__sse2, NULL, NULL, SK_BLOCK},
            [SK_CAST_BF16_F32] = {sk_cast_bf16_f32__sse2, NULL, NULL, SK_BLOCK},
        },
#endif
    [SK_ROUTE_SCALAR] =
        {
            [SK_CAST_F32_BF16] = {sk_cast_f32_bf16__scalar, sk_cast_f32_bf16_strided__scalar, NULL, 1},
            [SK_CAST_BF16_F32] = {sk_cast_bf16_f32__scalar, sk_cast_bf16_f32_strided__scalar, NULL, 1},
        },
};

const sk_kernel *sk_cast_kernel(int route, int kind) {
    return kind >= 0 && kind <= SK_CAST_BF16_F32 ? &cast_kernels[route][kind] : NULL;
}

/* Cast is pure bit manipulation: no FP-environment check is needed. */
int sk_cast_execute(const sk_cast_plan *plan, const void *src, uint64_t src_len, void *dst, uint64_t dst_len) {
    if (plan->kind < 0 || plan->kind > SK_CAST_BF16_F32 || !sk_route_usable(plan->route)) return SK_INVALID_OPERATION;
    const int bound = sk_binding_check(&plan->binding, src, src_len, dst, dst_len);
    if (bound != SK_OK) return bound;
    sk_walk_go(&plan->walk, src, dst, &cast_kernels[plan->route][plan->kind], plan->route, NULL);
    return SK_OK;
}
