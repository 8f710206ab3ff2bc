/* Quant: parameter decoding, the kernel table (3 inputs x 4 rounding modes,
 * from quant_kernels.inc) and the entry points. */
#include "quant.h"
#include "../common/axis.h"
#include "../common/fenv.h"
#include "../common/params.h"

#if SK_HAVE_SSE2 /* the x86 leaves' FTZ/DAZ threshold (sk_quant_ctx.fast_min) */
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
        const sk_q_decoded d = input == SK_QUANT_F32    ? sk_q_decode_f32(mid)
                               : input == SK_QUANT_BF16 ? sk_q_decode_bf16((uint16_t)mid)
                                                        : sk_q_decode_f16((uint16_t)mid);
        if (product_log2(c, d) >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}
#endif

/* The multiplier's odd significand and power of two (exact.h); a subnormal
 * one sends every block to the exact path. */
static void decode_multiplier(uint32_t bits, uint64_t *msig, int32_t *mexp, int32_t *exact_only) {
    sk_q_multiplier(bits, msig, mexp);
    *exact_only = ((bits >> 23) & 0xffu) == 0;
}

/* A context without the FTZ/DAZ threshold: fast_min is the infinity's
 * bits, which sends every block of an x86 dense leaf under flushing to the
 * exact path (conservative).  Blocked plans take these: their leaves (the
 * periodic and runs leaves) test each product instead, and a binary search
 * per entry would cost more than a dynamic quantization's whole prepare
 * may. */
static void ctx_fields(sk_quant_ctx *c, uint32_t bits, int32_t zero_point, int input, int flushes) {
    memcpy(&c->multiplier, &bits, sizeof c->multiplier);
    c->multiplier_bits = bits;
    c->zero_point = zero_point;
    c->stream_elements = 0;
    decode_multiplier(bits, &c->msig, &c->mexp, &c->exact_only);
    c->flushes = flushes;
    c->fast_min = input == SK_QUANT_F32 ? 0x7f800000u : input == SK_QUANT_BF16 ? 0x7f80u : 0x7c00u;
}

void sk_quant_ctx_init(sk_quant_ctx *c, uint32_t bits, int32_t zero_point, int input, int flushes) {
    /* From the smallest normal input (denormals-are-zero would flush a
     * subnormal one; for FP16 this keeps F16C away from half subnormals). */
    const uint32_t min_normal = input == SK_QUANT_F32 ? 0x00800000u : input == SK_QUANT_BF16 ? 0x0080u : 0x0400u;
    ctx_fields(c, bits, zero_point, input, flushes);
#if SK_HAVE_SSE2 /* (the NEON leaves test each product's exponent instead) */
    if (!c->exact_only && flushes) c->fast_min = first_reaching(c, input, min_normal, c->fast_min, -126);
#else
    (void)min_normal;
#endif
}

/* A flushing context without the threshold search (exact, only slower
 * under flushing): the plain one's fields (which have none either) and the
 * flag, a copy rather than a second decode. */
static void flushing_copy(sk_quant_ctx *flushing, const sk_quant_ctx *plain) {
    *flushing = *plain;
    flushing->flushes = 1;
}

/* Both contexts of one multiplier and zero point: for a control register
 * that does not flush and for one that does (its threshold searched only
 * with `search`). */
static void prepare_pair(sk_quant_ctx *plain, sk_quant_ctx *flushing, uint32_t bits, int32_t zero_point, int input,
                         uint64_t stream_elements, int search) {
    sk_quant_ctx_init(plain, bits, zero_point, input, 0);
    plain->stream_elements = stream_elements;
    if (search) {
        sk_quant_ctx_init(flushing, bits, zero_point, input, 1);
        flushing->stream_elements = stream_elements;
    } else {
        flushing_copy(flushing, plain);
    }
}

static int prepare_axis(sk_quant_plan *plan, int search);

int sk_quant_prepare(sk_quant_plan *plan) { return sk_quant_prepare_searching(plan, 1); }

int sk_quant_prepare_searching(sk_quant_plan *plan, int search) {
    plan->prepared = 0;
    if (plan->input < 0 || plan->input > SK_QUANT_F16 || plan->rounding < 0 ||
        plan->rounding > SK_QUANT_TOWARD_NEGATIVE || plan->route < 0 || plan->route >= SK_ROUTE_COUNT ||
        !sk_route_compiled(plan->route))
        return SK_INVALID_OPERATION;
    sk_walk_decide(&plan->walk, &sk_quant_kernels[plan->route][sk_quant_variant(plan->input, plan->rounding)],
                   plan->route);
    if (plan->axis.count > 0) {
        const int status = prepare_axis(plan, search);
        plan->prepared = status == SK_OK;
        return status;
    }
    sk_fault fault;
    if (sk_params_rules(SK_OP_QUANT, plan->multiplier_bits, plan->zero_point, &fault) != SK_OK) return fault.status;
    prepare_pair(&plan->ctx[0], &plan->ctx[1], plan->multiplier_bits, plan->zero_point, plan->input, 0, search);
    plan->prepared = 1;
    return SK_OK;
}

/* [route][sk_quant_variant(input, rounding)], from the registry. */
const sk_kernel sk_quant_kernels[SK_ROUTE_COUNT][SK_QUANT_VARIANTS] = {
#define SK_LEAF SK_LEAF_ENTRY
#include "quant_kernels.inc"
#undef SK_LEAF
};

/* ---- Per-axis plans -----------------------------------------------------
 * The workspace: each channel's context for a control register that
 * flushes and one that does not (channel axis outside the inner run: the
 * route's leaves run each channel as a tensor of its own), the two tables
 * that execute picks from (sk_quant_table: those contexts, the period),
 * then the repeating parameters of the inner run's periodic leaf.
 * Blocked plans (axis.block): the same pieces with one position per entry
 * in the walk's table order (the period is the entry count), read by the
 * periodic and runs leaves only. */
static const sk_axis_layout AXIS_LAYOUT = {2, sizeof(sk_quant_ctx), sizeof(sk_quant_table)};

uint64_t sk_quant_axis_space(const sk_quant_plan *plan) {
    return sk_axis_space(&AXIS_LAYOUT, plan->axis.count, plan->axis.block);
}

/* A blocked plan's entries in the walk's table order: the multipliers'
 * bits and zero points copied, each entry's pair of contexts. */
static void prepare_blocked(const sk_quant_plan *plan, const sk_axis_pieces *a, size_t elements) {
    const int64_t count = plan->axis.count;
    sk_quant_ctx *plain = a->ctx[0], *flushing = a->ctx[1];
    sk_walk_params_gather(&plan->walk, plan->axis.bits, a->values, sizeof(uint32_t));
    sk_walk_params_gather(&plan->walk, plan->axis.zero_points, a->zero_point, sizeof(int32_t));
    for (int64_t c = 0; c < count; ++c) {
        uint32_t bits;
        memcpy(&bits, &a->values[c], sizeof bits);
        ctx_fields(&plain[c], bits, a->zero_point[c], plan->input, 0);
        plain[c].stream_elements = elements;
        flushing_copy(&flushing[c], &plain[c]);
    }
}

static int prepare_axis(sk_quant_plan *plan, int search) {
    const sk_axis *axis = &plan->axis;
    sk_axis_pieces a;
    if (!sk_axis_fits_walk(axis, &plan->walk) ||
        !sk_axis_space_ok(axis->space, axis->space_bytes,
                          sk_axis_carve(&AXIS_LAYOUT, axis->count, axis->block, NULL, &a)))
        return SK_INVALID_OPERATION;
    sk_fault fault;
    for (int64_t c = 0; c < axis->count; ++c)
        if (sk_params_rules(SK_OP_QUANT, axis->bits[c], axis->zero_points[c], &fault) != SK_OK) return fault.status;
    sk_axis_carve(&AXIS_LAYOUT, axis->count, axis->block, axis->space, &a);
    sk_quant_ctx *plain = a.ctx[0], *flushing = a.ctx[1];
    sk_quant_table *table = a.table;
    /* Each run is a slice of the walk's output: whether to stream is the whole walk's question. */
    const size_t elements = (size_t)(plan->walk.runs * plan->walk.run_length);
    if (axis->block) {
        prepare_blocked(plan, &a, elements);
    } else {
        for (int64_t c = 0; c < axis->count; ++c)
            prepare_pair(&plain[c], &flushing[c], axis->bits[c], axis->zero_points[c], plan->input, elements, search);
        for (int64_t i = 0, c = 0; i < a.period; ++i, c = c + 1 == axis->count ? 0 : c + 1) {
            a.values[i] = plain[c].multiplier; /* bits copied, no arithmetic */
            a.zero_point[i] = axis->zero_points[c];
        }
    }
    table[0] = (sk_quant_table){a.values, a.zero_point, plain, axis->count, a.period, 0};
    table[1] = (sk_quant_table){a.values, a.zero_point, flushing, axis->count, a.period, 1};
    return SK_OK;
}

static void execute_axis(const sk_quant_plan *plan, const void *src, void *dst, int flushes) {
    sk_axis_pieces a;
    sk_axis_carve_tables(&AXIS_LAYOUT, plan->axis.count, plan->axis.space, &a);
    const sk_quant_table *table = (const sk_quant_table *)a.table + flushes;
    const sk_kernel *kernel = &sk_quant_kernels[plan->route][sk_quant_variant(plan->input, plan->rounding)];
    const sk_channels ch = {
        .kernel = kernel,
        .ctx = (const char *)table->ctx,
        .ctx_size = sizeof(sk_quant_ctx),
        .periodic = kernel->periodic,
        .runs = kernel->runs,
        .rows = kernel->rows,
        .table = table,
        .period = table->period,
    };
    sk_walk_channels(&plan->walk, src, dst, &ch);
}

int sk_quant_execute(const sk_quant_plan *plan, const void *src, uint64_t src_len, void *dst, uint64_t dst_len) {
    if (!plan->prepared || plan->input < 0 || plan->input > SK_QUANT_F16 || plan->rounding < 0 ||
        plan->rounding > SK_QUANT_TOWARD_NEGATIVE || !sk_route_usable(plan->route))
        return SK_INVALID_OPERATION;
    const int status = sk_binding_check(&plan->binding, src, src_len, dst, dst_len);
    if (status != SK_OK) return status;
    if (plan->walk.runs == 0) return SK_OK; /* empty: nothing to compute */
    /* The product rounding needs nearest rounding and no trap may fire;
     * flush-to-zero/denormals-are-zero are repaired exactly.  One reading
     * of the control register serves the check and picks the context. */
    const uint64_t control = sk_fenv_control();
    if (sk_fenv_control_unmet(control, sk_fenv_needs(SK_OP_QUANT))) return SK_UNSUPPORTED_ENVIRONMENT;
    const int flushes = sk_fenv_control_flushes(control) != 0;
    if (plan->axis.count > 0) {
        execute_axis(plan, src, dst, flushes);
        return SK_OK;
    }
    sk_walk_go(&plan->walk, src, dst, &sk_quant_kernels[plan->route][sk_quant_variant(plan->input, plan->rounding)],
               &plan->ctx[flushes]);
    return SK_OK;
}
