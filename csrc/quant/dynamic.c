/* sk.quantize_dynamic in one native call: the range pass and the rule
 * (sk_qparams_choose) into the caller's parameter arrays, then a copy of
 * the caller's prepared Quant plan takes those parameters (sk_quant_prepare,
 * into the workspace) and runs (sk_quant_execute).  Nothing here computes:
 * every step is the entry the two-call path runs, so the bits are the same
 * by construction, and the only cost added to Quant is the range pass, the
 * rule and one prepare. */
#include "quant.h"
#include "../common/fenv.h"

/* The workspace: the Quant plan's (16-byte aligned, per channel or block
 * entry) first, then the range pass's (aligned by sk_qparams_choose). */
static uint64_t quant_bytes(const sk_quant_plan *plan) {
    return plan->axis.count > 0 ? (sk_quant_axis_space(plan) + 15) / 16 * 16 : 0;
}

uint64_t sk_quant_dynamic_space(const sk_quant_plan *plan, const sk_layout *layout, int channel_axis, int64_t block) {
    if (!plan) return 0;
    const uint64_t quant = quant_bytes(plan);
    return (quant ? quant + 15 : 0) + sk_qparams_space(plan->input, layout, channel_axis, block);
}

int sk_quant_dynamic(const sk_quant_plan *plan, int symmetric, const sk_layout *layout, int channel_axis, int64_t block,
                     const void *src, uint64_t src_len, void *dst, uint64_t dst_len, void *space, uint64_t space_bytes,
                     void *scale, void *zero_point, void *multiplier) {
    if (!plan || !plan->prepared) return SK_INVALID_OPERATION;
    /* The plan's parameters must be the ones chosen here: per tensor, or
     * this axis and block (an empty tensor's plan is per tensor: nothing
     * to quantize). */
    const sk_axis *axis = &plan->axis;
    if (axis->count > 0 ? axis->axis != channel_axis || axis->block != block : plan->walk.runs > 0 && channel_axis >= 0)
        return SK_INVALID_OPERATION;
    const uint64_t quant = quant_bytes(plan), need = sk_quant_dynamic_space(plan, layout, channel_axis, block);
    if (need && (!space || space_bytes < need)) return SK_INVALID_OPERATION;
    char *base = need ? (char *)(((uintptr_t)space + 15) / 16 * 16) : NULL;
    char *range_space = quant ? base + quant : space;
    const uint64_t range_bytes = need - (uint64_t)(range_space - (char *)space);
    const int chosen = sk_qparams_choose(plan->input, plan->route, SK_HURRAY_INT8, symmetric, layout, channel_axis,
                                         block, src, src_len, range_space, range_bytes, scale, zero_point, multiplier);
    if (chosen != SK_OK) return chosen;
    sk_quant_plan run = *plan;
    if (axis->count > 0) {
        run.axis.bits = multiplier;
        run.axis.zero_points = zero_point;
        run.axis.space = base;
        run.axis.space_bytes = quant;
    } else if (plan->walk.runs > 0) {
        run.multiplier_bits = *(const uint32_t *)multiplier;
        run.zero_point = *(const int32_t *)zero_point;
    }
    /* The copy runs once, here, on this thread: its flushing contexts are
     * used only if the control register flushes now (sk_quant_execute reads
     * the same register), so only then is their threshold search worth it. */
    const int prepared = sk_quant_prepare_searching(&run, sk_fenv_control_flushes(sk_fenv_control()) != 0);
    if (prepared != SK_OK) return prepared; /* unreachable: the rule's parameters pass Quant's rules */
    return sk_quant_execute(&run, src, src_len, dst, dst_len);
}
