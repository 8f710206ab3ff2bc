/* Affine dequant: the kernel table (2 outputs x 3 stored element widths,
 * from affine_dequant_kernels.inc) and the entry points.  Preparation is
 * integers and bits only (no FP arithmetic: nothing depends on the state
 * it runs in).  The walk runs as Dequant's (per tensor, per axis, blocked);
 * a packed sub-byte input is read in chunks through a stack buffer (one
 * dense run) or unpacked into the caller's scratch (any other walk). */
#include <stdlib.h>
#include "affine.h"
#include "affine_params.h"
#include "../common/fenv.h"

/* [route][SK_AFFINE_DEQUANT_VARIANT(output, width)], from the registry. */
const sk_kernel sk_affine_dequant_kernels[SK_ROUTE_COUNT][SK_AFFINE_DEQUANT_VARIANTS] = {
#define SK_LEAF SK_LEAF_ENTRY
#include "affine_dequant_kernels.inc"
#undef SK_LEAF
};

int sk_affine_dequant_variant(int output, int storage) {
    if (output < SK_DEQUANT_F32 || output > SK_DEQUANT_BF16 || sk_storage_bits(storage) == 0) return -1;
    return SK_AFFINE_DEQUANT_VARIANT(output, sk_storage_width(storage));
}

void sk_affine_dequant_ctx_init(sk_affine_dequant_ctx *c, int storage, uint32_t scale_bits, int32_t zero_point) {
    const int bits = sk_storage_bits(storage);
    memset(c, 0, sizeof *c);
    memcpy(&c->scale, &scale_bits, sizeof c->scale);
    c->zero_point = zero_point;
    c->mask = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
    c->sign = bits < 32 && sk_storage_signed(storage) ? 1u << (bits - 1) : 0;
}

/* A per-tensor sub-byte context's table of the 16 possible results
 * (sk_affine_dequant_ctx.table): each entry by the element path itself
 * (sk_ad_element, sk_ad_store), so the same bits as every other path, made
 * only when the control register is in the state execute admits (else
 * table_ready stays 0 and execute takes the other paths). */
void sk_affine_dequant_table_init(sk_affine_dequant_ctx *c, int storage, int bf16) {
    c->table_ready = 0;
    memset(c->table, 0, sizeof c->table);
    if (!sk_storage_sub_byte(storage) || sk_fenv_control_unmet(sk_fenv_control(), sk_fenv_needs(SK_OP_AFFINE_DEQUANT)))
        return;
    const int size = bf16 ? 2 : 4;
    for (uint32_t v = 0; v < 16; ++v) {
        uint8_t r[4];
        sk_ad_store(r, 0, sk_ad_element(sk_ad_value(v, c->mask, c->sign), c->zero_point, c->scale), bf16);
        for (int p = 0; p < size; ++p) c->table[16 * p + v] = r[p];
    }
    c->table_ready = 1;
}

void sk_affine_dequant_dense(int route, int variant, int packed, int bits, const sk_affine_dequant_ctx *c,
                             const void *src, void *dst, size_t n) {
    const sk_kernel *kernel = &sk_affine_dequant_kernels[route][variant];
    const sk_span_fn span = kernel->span;
    if (!packed) {
        span(c, src, dst, n);
        return;
    }
    _Alignas(64) uint8_t buf[SK_AFFINE_CHUNK];
    const size_t out_size = variant >= SK_AFFINE_DEQUANT_VARIANT(SK_DEQUANT_BF16, 1) ? 2 : 4;
    /* the route's table leaf, where it has one, for whole bytes; the rest in chunks */
    const size_t done = kernel->packed && c->table_ready ? kernel->packed(c, src, dst, n) : 0;
    src = (const uint8_t *)src + done * (size_t)bits / 8;
    dst = (char *)dst + done * out_size;
    n -= done;
    for (size_t start = 0; start < n; start += SK_AFFINE_CHUNK) {
        const size_t k = n - start < SK_AFFINE_CHUNK ? n - start : SK_AFFINE_CHUNK;
        sk_unpack_bytes(bits, (const uint8_t *)src + start * (size_t)bits / 8, buf, k);
        span(c, buf, (char *)dst + start * out_size, k);
    }
}

static int codes_ok(const sk_affine_dequant_plan *plan) {
    return sk_storage_bits(plan->storage) != 0 && plan->output >= SK_DEQUANT_F32 && plan->output <= SK_DEQUANT_BF16 &&
           plan->route >= 0 && plan->route < SK_ROUTE_COUNT && (plan->packed == 0 || plan->packed == 1) &&
           (!plan->packed || sk_storage_sub_byte(plan->storage));
}

static int fused(const sk_walk *w, const sk_axis *axis) { return axis->count == 0 && w->dense && w->outer_rank == 0; }

/* ---- Per-axis plans -----------------------------------------------------
 * The workspace: each channel's context (channel axis outside the inner
 * run: the span leaves run each channel as a tensor of its own), the table
 * (sk_affine_dequant_table), then the repeating scales and zero points of
 * the inner run's periodic leaf.  Blocked plans (axis.block): one position
 * per entry in the walk's table order (the period is the entry count). */
static const sk_axis_layout AXIS_LAYOUT = {1, sizeof(sk_affine_dequant_ctx), sizeof(sk_affine_dequant_table)};

uint64_t sk_affine_dequant_axis_space(const sk_affine_dequant_plan *plan) {
    return sk_axis_space(&AXIS_LAYOUT, plan->axis.count, plan->axis.block);
}

static int params_ok(int storage, uint32_t bits, int32_t zero_point, sk_fault *fault) {
    return sk_finite_nonzero_rule(bits, fault) == SK_OK &&
           sk_affine_zero_point_rule(storage, sk_affine_plan_zero_point(storage, zero_point), fault) == SK_OK;
}

static int prepare_axis(sk_affine_dequant_plan *plan) {
    const sk_axis *axis = &plan->axis;
    sk_axis_pieces a;
    if (!sk_axis_fits_walk(axis, &plan->walk) ||
        !sk_axis_space_ok(axis->space, axis->space_bytes,
                          sk_axis_carve(&AXIS_LAYOUT, axis->count, axis->block, NULL, &a)))
        return SK_INVALID_OPERATION;
    sk_fault fault;
    for (int64_t c = 0; c < axis->count; ++c)
        if (!params_ok(plan->storage, axis->bits[c], axis->zero_points[c], &fault)) return fault.status;
    sk_axis_carve(&AXIS_LAYOUT, axis->count, axis->block, axis->space, &a);
    sk_affine_dequant_ctx *ctx = a.ctx[0];
    if (axis->block) { /* the entries in the walk's table order */
        sk_walk_params_gather(&plan->walk, axis->bits, a.values, sizeof(uint32_t));
        sk_walk_params_gather(&plan->walk, axis->zero_points, a.zero_point, sizeof(int32_t));
        for (int64_t c = 0; c < axis->count; ++c) {
            uint32_t bits;
            memcpy(&bits, &a.values[c], sizeof bits);
            sk_affine_dequant_ctx_init(&ctx[c], plan->storage, bits, a.zero_point[c]);
        }
    } else {
        for (int64_t c = 0; c < axis->count; ++c)
            sk_affine_dequant_ctx_init(&ctx[c], plan->storage, axis->bits[c], axis->zero_points[c]);
        for (int64_t i = 0, c = 0; i < a.period; ++i, c = c + 1 == axis->count ? 0 : c + 1) {
            a.values[i] = ctx[c].scale; /* bits copied, no arithmetic */
            a.zero_point[i] = ctx[c].zero_point;
        }
    }
    *(sk_affine_dequant_table *)a.table =
        (sk_affine_dequant_table){a.values, a.zero_point, ctx, axis->count, a.period, ctx[0].mask, ctx[0].sign};
    return SK_OK;
}

int sk_affine_dequant_prepare(sk_affine_dequant_plan *plan) {
    plan->prepared = 0;
    plan->scratch_bytes = 0;
    if (!codes_ok(plan) || !sk_route_compiled(plan->route)) return SK_INVALID_OPERATION;
    const sk_walk *w = &plan->walk;
    const int width = sk_storage_width(plan->storage);
    if (w->runs > 0 && (w->in_size != width || w->out_size != (plan->output == SK_DEQUANT_BF16 ? 2 : 4)))
        return SK_INVALID_OPERATION;
    plan->variant = SK_AFFINE_DEQUANT_VARIANT(plan->output, width);
    sk_walk_decide(&plan->walk, &sk_affine_dequant_kernels[plan->route][plan->variant], plan->route);
    int status = SK_OK;
    if (plan->axis.count > 0) {
        status = prepare_axis(plan);
    } else {
        sk_fault fault;
        if (!params_ok(plan->storage, plan->scale_bits, plan->zero_point, &fault))
            status = fault.status;
        else {
            sk_affine_dequant_ctx_init(&plan->ctx, plan->storage, plan->scale_bits, plan->zero_point);
            sk_affine_dequant_table_init(&plan->ctx, plan->storage, plan->output == SK_DEQUANT_BF16);
        }
    }
    if (status != SK_OK) return status;
    if (plan->packed && w->runs > 0 && !fused(w, &plan->axis))
        plan->scratch_bytes = (uint64_t)(w->runs * w->run_length);
    plan->prepared = 1;
    return SK_OK;
}

/* The walk from `in` (src, or the scratch that holds the unpacked image of
 * a packed input) into dst. */
static void run_walk(const sk_affine_dequant_plan *plan, const void *in, void *dst) {
    const sk_kernel *kernel = &sk_affine_dequant_kernels[plan->route][plan->variant];
    if (plan->axis.count == 0) {
        sk_walk_go(&plan->walk, in, dst, kernel, &plan->ctx);
        return;
    }
    sk_axis_pieces a;
    sk_axis_carve_tables(&AXIS_LAYOUT, plan->axis.count, plan->axis.space, &a);
    const sk_affine_dequant_table *table = a.table;
    const sk_channels ch = {
        .kernel = kernel,
        .ctx = (const char *)a.ctx[0],
        .ctx_size = sizeof(sk_affine_dequant_ctx),
        .periodic = kernel->periodic,
        .runs = kernel->runs,
        .table = table,
        .period = table->period,
    };
    sk_walk_channels(&plan->walk, in, dst, &ch);
}

int sk_affine_dequant_execute(const sk_affine_dequant_plan *plan, const void *src, uint64_t src_len, void *dst,
                              uint64_t dst_len, void *scratch, uint64_t scratch_len) {
    if (!plan->prepared || !codes_ok(plan) || plan->variant < 0 || plan->variant >= SK_AFFINE_DEQUANT_VARIANTS ||
        !sk_route_usable(plan->route))
        return SK_INVALID_OPERATION;
    int empty; /* no arithmetic, no FP-state requirement */
    const int status = sk_affine_bind(&plan->binding, &plan->walk, src, src_len, dst, dst_len, plan->scratch_bytes,
                                      scratch, scratch_len, &empty);
    if (status != SK_OK || empty) return status;
    /* Before any conversion or write: the roundings need nearest rounding
     * and gradual underflow, and no trap may fire mid-tensor. */
    if (sk_fenv_control_unmet(sk_fenv_control(), sk_fenv_needs(SK_OP_AFFINE_DEQUANT)))
        return SK_UNSUPPORTED_ENVIRONMENT;
    const int bits = sk_storage_bits(plan->storage);
    if (!plan->packed) {
        run_walk(plan, src, dst);
    } else if (plan->scratch_bytes == 0) {
        sk_affine_dequant_dense(plan->route, plan->variant, 1, bits, &plan->ctx, src, dst,
                                (size_t)plan->walk.run_length);
    } else { /* staged: the unpacked image in the scratch, then the walk */
        sk_unpack_bytes(bits, src, scratch, (size_t)plan->scratch_bytes);
        run_walk(plan, scratch, dst);
    }
    return SK_OK;
}

int sk_affine_dequant_run(const sk_affine_dequant_plan *plan, const void *src, uint64_t src_len, void *dst,
                          uint64_t dst_len) {
    int status = SK_OK;
    void *scratch = sk_affine_scratch_new(plan->scratch_bytes, &status);
    if (status == SK_OK)
        status = sk_affine_dequant_execute(plan, src, src_len, dst, dst_len, scratch, plan->scratch_bytes);
    free(scratch);
    return status;
}
