/* Cast kernel table and entry point. */
#include "cast.h"

/* [route][kind], from the registry.  Only the scalar reference has a
 * strided leaf; the vector routes' non-packed runs are staged by their own
 * moves, except every other element, which the AVX2, AVX-512 and NEON
 * leaves read in place, and NEON's transposes in cache, which its fused
 * tile leaves convert and transpose in registers. */
const sk_kernel sk_cast_kernels[SK_ROUTE_COUNT][SK_CAST_VARIANTS] = {
#define SK_LEAF SK_LEAF_ENTRY
#include "cast_kernels.inc"
#undef SK_LEAF
};

int sk_cast_prepare(sk_cast_plan *plan) {
    if (plan->kind < 0 || plan->kind >= SK_CAST_VARIANTS || !sk_route_compiled(plan->route))
        return SK_INVALID_OPERATION;
    sk_walk_decide(&plan->walk, &sk_cast_kernels[plan->route][plan->kind], plan->route);
    return SK_OK;
}

/* Cast is pure bit manipulation: no FP-environment check is needed. */
int sk_cast_execute(const sk_cast_plan *plan, const void *src, uint64_t src_len, void *dst, uint64_t dst_len) {
    if (plan->kind < 0 || plan->kind >= SK_CAST_VARIANTS || !sk_route_usable(plan->route) || !plan->walk.decided)
        return SK_INVALID_OPERATION;
    const int bound = sk_binding_check(&plan->binding, src, src_len, dst, dst_len);
    if (bound != SK_OK) return bound;
    sk_walk_go(&plan->walk, src, dst, &sk_cast_kernels[plan->route][plan->kind], NULL);
    return SK_OK;
}
