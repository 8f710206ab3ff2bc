/* Cast route table and entry point. */
#include "cast.h"

/* [route][kind]; only the scalar reference has a strided leaf: the walk
 * stages the vector routes' non-packed runs through their dense leaves,
 * except every other element, which the AVX2 leaves read in place. */
static const sk_kernel cast_routes[SK_ROUTE_COUNT][2] = {
#if SK_HAVE_NEON
    [SK_ROUTE_NEON] = {
        [SK_CAST_F32_BF16] = {sk_cast_f32_bf16__neon, NULL, NULL},
        [SK_CAST_BF16_F32] = {sk_cast_bf16_f32__neon, NULL, NULL},
    },
#endif
#if SK_HAVE_AVX512
    [SK_ROUTE_AVX512] = {
        [SK_CAST_F32_BF16] = {sk_cast_f32_bf16__avx512, NULL, sk_cast_f32_bf16_every_other__avx2},
        [SK_CAST_BF16_F32] = {sk_cast_bf16_f32__avx512, NULL, sk_cast_bf16_f32_every_other__avx512},
    },
#endif
#if SK_HAVE_AVX2
    [SK_ROUTE_AVX2] = {
        [SK_CAST_F32_BF16] = {sk_cast_f32_bf16__avx2, NULL, sk_cast_f32_bf16_every_other__avx2},
        [SK_CAST_BF16_F32] = {sk_cast_bf16_f32__avx2, NULL, sk_cast_bf16_f32_every_other__avx2},
    },
#endif
#if SK_HAVE_SSE2
    [SK_ROUTE_SSE2] = {
        [SK_CAST_F32_BF16] = {sk_cast_f32_bf16__sse2, NULL, NULL},
        [SK_CAST_BF16_F32] = {sk_cast_bf16_f32__sse2, NULL, NULL},
    },
#endif
    [SK_ROUTE_SCALAR] = {
        [SK_CAST_F32_BF16] = {sk_cast_f32_bf16__scalar, sk_cast_f32_bf16_strided__scalar, NULL},
        [SK_CAST_BF16_F32] = {sk_cast_bf16_f32__scalar, sk_cast_bf16_f32_strided__scalar, NULL},
    },
};

/* Cast is pure bit manipulation: no FP-environment check is needed. */
int sk_cast_execute(const sk_cast_plan *plan, const void *src, uint64_t src_len, void *dst,
                    uint64_t dst_len) {
    if (plan->route < 0 || plan->route >= SK_ROUTE_COUNT || plan->kind < 0 || plan->kind > 1 ||
        !sk_route_compiled(plan->route))
        return SK_INVALID_OPERATION;
    const int bound = sk_binding_check(&plan->binding, src, src_len, dst, dst_len);
    if (bound != SK_OK) return bound;
    sk_walk_run(&plan->walk, src, dst, cast_routes[plan->route][plan->kind], NULL);
    return SK_OK;
}
