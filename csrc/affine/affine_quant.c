/* Affine quant: parameter decoding, the kernel table (3 inputs x 4 rounding
 * modes, from affine_quant_kernels.inc) and the entry points.  The walk
 * runs as Quant's (per tensor, per axis, blocked: the same sk_walk and
 * sk_channels); a packed sub-byte output is written in chunks through a
 * stack buffer (one dense run) or from the caller's scratch (any other
 * walk). */
#include <stdlib.h>
#include "affine.h"
#include "affine_params.h"
#include "../common/fenv.h"

/* [route][sk_quant_variant(input, rounding)], from the registry. */
const sk_kernel sk_affine_quant_kernels[SK_ROUTE_COUNT][SK_AFFINE_QUANT_VARIANTS] = {
#define SK_LEAF SK_LEAF_ENTRY
#include "affine_quant_kernels.inc"
#undef SK_LEAF
};

/* One multiplier's and zero point's context for the storage (flushing or
 * not: the vector leaves test each block's products when it flushes). */
static void ctx_init(sk_affine_quant_ctx *c, uint32_t bits, int32_t zero_point, int storage, int flushes) {
    int64_t least, greatest;
    sk_affine_range(storage, &least, &greatest);
    memset(c, 0, sizeof *c);
    memcpy(&c->multiplier, &bits, sizeof c->multiplier);
    c->zero_point = zero_point;
    sk_q_multiplier(bits, &c->msig, &c->mexp);
    c->flushes = flushes;
    c->least = (int32_t)least;
    c->greatest = (int32_t)greatest;
    c->mask = (uint32_t)(((uint64_t)1 << sk_storage_bits(storage)) - 1);
    c->width = sk_storage_width(storage);
}

static const sk_kernel *entry_of(const sk_affine_quant_plan *plan) {
    return &sk_affine_quant_kernels[plan->route][sk_quant_variant(plan->input, plan->rounding)];
}

static int codes_ok(const sk_affine_quant_plan *plan) {
    return plan->input >= 0 && plan->input <= SK_QUANT_F16 && plan->rounding >= 0 &&
           plan->rounding <= SK_QUANT_TOWARD_NEGATIVE && plan->route >= 0 && plan->route < SK_ROUTE_COUNT &&
           sk_affine_quant_storage(plan->storage) && (plan->packed == 0 || plan->packed == 1) &&
           (!plan->packed || sk_storage_sub_byte(plan->storage));
}

/* Whether a packed output is written straight from chunks of the one dense
 * run (per tensor), not through the scratch. */
static int fused(const sk_walk *w, const sk_axis *axis) { return axis->count == 0 && w->dense && w->outer_rank == 0; }

/* ---- Per-axis plans -----------------------------------------------------
 * The workspace: each channel's context for a control register that
 * flushes and one that does not (channel axis outside the inner run: the
 * span leaves run each channel as a tensor of its own), the two tables
 * that execute picks from, then the repeating parameters of the inner
 * run's periodic leaf.  Blocked plans (axis.block): the same pieces with
 * one position per entry in the walk's table order (the period is the
 * entry count), read by the periodic and runs leaves. */
static const sk_axis_layout AXIS_LAYOUT = {2, sizeof(sk_affine_quant_ctx), sizeof(sk_affine_quant_table)};

uint64_t sk_affine_quant_axis_space(const sk_affine_quant_plan *plan) {
    return sk_axis_space(&AXIS_LAYOUT, plan->axis.count, plan->axis.block);
}

static int prepare_axis(sk_affine_quant_plan *plan) {
    const sk_axis *axis = &plan->axis;
    sk_axis_pieces a;
    if (!sk_axis_fits_walk(axis, &plan->walk) ||
        !sk_axis_space_ok(axis->space, axis->space_bytes,
                          sk_axis_carve(&AXIS_LAYOUT, axis->count, axis->block, NULL, &a)))
        return SK_INVALID_OPERATION;
    sk_fault fault;
    for (int64_t c = 0; c < axis->count; ++c)
        if (sk_finite_positive_rule(axis->bits[c], &fault) != SK_OK ||
            sk_affine_zero_point_rule(plan->storage, axis->zero_points[c], &fault) != SK_OK)
            return fault.status;
    sk_axis_carve(&AXIS_LAYOUT, axis->count, axis->block, axis->space, &a);
    sk_affine_quant_ctx *plain = a.ctx[0], *flushing = a.ctx[1];
    sk_affine_quant_table *table = a.table;
    if (axis->block) { /* the entries in the walk's table order */
        sk_walk_params_gather(&plan->walk, axis->bits, a.values, sizeof(uint32_t));
        sk_walk_params_gather(&plan->walk, axis->zero_points, a.zero_point, sizeof(int32_t));
        for (int64_t c = 0; c < axis->count; ++c) {
            uint32_t bits;
            memcpy(&bits, &a.values[c], sizeof bits);
            ctx_init(&plain[c], bits, a.zero_point[c], plan->storage, 0);
        }
    } else {
        for (int64_t c = 0; c < axis->count; ++c)
            ctx_init(&plain[c], axis->bits[c], axis->zero_points[c], plan->storage, 0);
        for (int64_t i = 0, c = 0; i < a.period; ++i, c = c + 1 == axis->count ? 0 : c + 1) {
            a.values[i] = plain[c].multiplier; /* bits copied, no arithmetic */
            a.zero_point[i] = axis->zero_points[c];
        }
    }
    for (int64_t c = 0; c < axis->count; ++c) {
        flushing[c] = plain[c];
        flushing[c].flushes = 1;
    }
    for (int f = 0; f < 2; ++f)
        table[f] = (sk_affine_quant_table){a.values, a.zero_point,   a.ctx[f],          axis->count,   a.period,
                                           f,        plain[0].least, plain[0].greatest, plain[0].mask, plain[0].width};
    return SK_OK;
}

int sk_affine_quant_prepare(sk_affine_quant_plan *plan) {
    plan->prepared = 0;
    plan->scratch_bytes = 0;
    if (!codes_ok(plan) || !sk_route_compiled(plan->route)) return SK_INVALID_OPERATION;
    const sk_walk *w = &plan->walk;
    if (w->runs > 0 &&
        (w->in_size != (plan->input == SK_QUANT_F32 ? 4 : 2) || w->out_size != sk_storage_width(plan->storage)))
        return SK_INVALID_OPERATION;
    sk_walk_decide(&plan->walk, entry_of(plan), plan->route);
    int status;
    if (plan->axis.count > 0) {
        status = prepare_axis(plan);
    } else {
        sk_fault fault;
        status = SK_OK;
        if (sk_finite_positive_rule(plan->multiplier_bits, &fault) != SK_OK ||
            sk_affine_zero_point_rule(plan->storage, plan->zero_point, &fault) != SK_OK)
            status = fault.status;
        else
            for (int f = 0; f < 2; ++f)
                ctx_init(&plan->ctx[f], plan->multiplier_bits, plan->zero_point, plan->storage, f);
    }
    if (status != SK_OK) return status;
    if (plan->packed && w->runs > 0 && !fused(w, &plan->axis))
        plan->scratch_bytes = (uint64_t)(w->runs * w->run_length);
    plan->prepared = 1;
    return SK_OK;
}

/* The walk from src into `out` (dst, or the scratch that holds the
 * unpacked image of a packed output). */
static void run_walk(const sk_affine_quant_plan *plan, const void *src, void *out, int flushes) {
    const sk_kernel *kernel = entry_of(plan);
    if (plan->axis.count == 0) {
        sk_walk_go(&plan->walk, src, out, kernel, &plan->ctx[flushes]);
        return;
    }
    sk_axis_pieces a;
    sk_axis_carve_tables(&AXIS_LAYOUT, plan->axis.count, plan->axis.space, &a);
    const sk_affine_quant_table *table = (const sk_affine_quant_table *)a.table + flushes;
    const sk_channels ch = {
        .kernel = kernel,
        .ctx = (const char *)table->ctx,
        .ctx_size = sizeof(sk_affine_quant_ctx),
        .periodic = kernel->periodic,
        .runs = kernel->runs,
        .table = table,
        .period = table->period,
    };
    sk_walk_channels(&plan->walk, src, out, &ch);
}

/* A packed output from the one dense run: the span leaf into a stack
 * buffer of bytes, chunk by chunk, each packed at its byte (chunks are
 * whole bytes of the packed image). */
static void run_fused(const sk_affine_quant_plan *plan, const void *src, void *dst, int flushes) {
    _Alignas(64) uint8_t buf[SK_AFFINE_CHUNK];
    const sk_kernel *kernel = entry_of(plan);
    const sk_span_fn span = kernel->span;
    const int bits = sk_storage_bits(plan->storage);
    const size_t n = (size_t)plan->walk.run_length, in_size = (size_t)plan->walk.in_size;
    /* the route's packing leaf, where it has one, for whole bytes; the rest in chunks */
    const size_t done = kernel->packed ? kernel->packed(&plan->ctx[flushes], src, dst, n) : 0;
    for (size_t start = done; start < n; start += SK_AFFINE_CHUNK) {
        const size_t k = n - start < SK_AFFINE_CHUNK ? n - start : SK_AFFINE_CHUNK;
        span(&plan->ctx[flushes], (const char *)src + start * in_size, buf, k);
        sk_pack_bytes(bits, buf, (uint8_t *)dst + start * (size_t)bits / 8, k);
    }
}

int sk_affine_quant_execute(const sk_affine_quant_plan *plan, const void *src, uint64_t src_len, void *dst,
                            uint64_t dst_len, void *scratch, uint64_t scratch_len) {
    if (!plan->prepared || !codes_ok(plan) || !sk_route_usable(plan->route)) return SK_INVALID_OPERATION;
    int empty; /* no arithmetic, no FP-state requirement */
    const int status = sk_affine_bind(&plan->binding, &plan->walk, src, src_len, dst, dst_len, plan->scratch_bytes,
                                      scratch, scratch_len, &empty);
    if (status != SK_OK || empty) return status;
    /* The product rounding needs nearest rounding and no trap may fire;
     * flush-to-zero/denormals-are-zero are repaired exactly.  One reading
     * of the control register serves the check and picks the context. */
    const uint64_t control = sk_fenv_control();
    if (sk_fenv_control_unmet(control, sk_fenv_needs(SK_OP_AFFINE_QUANT))) return SK_UNSUPPORTED_ENVIRONMENT;
    const int flushes = sk_fenv_control_flushes(control) != 0;
    if (!plan->packed) {
        run_walk(plan, src, dst, flushes);
    } else if (plan->scratch_bytes == 0) {
        run_fused(plan, src, dst, flushes);
    } else { /* staged: the unpacked image in the scratch, then packed */
        run_walk(plan, src, scratch, flushes);
        sk_pack_bytes(sk_storage_bits(plan->storage), scratch, dst, (size_t)plan->scratch_bytes);
    }
    return SK_OK;
}

int sk_affine_quant_run(const sk_affine_quant_plan *plan, const void *src, uint64_t src_len, void *dst,
                        uint64_t dst_len) {
    int status = SK_OK;
    void *scratch = sk_affine_scratch_new(plan->scratch_bytes, &status);
    if (status == SK_OK)
        status = sk_affine_quant_execute(plan, src, src_len, dst, dst_len, scratch, plan->scratch_bytes);
    free(scratch);
    return status;
}
