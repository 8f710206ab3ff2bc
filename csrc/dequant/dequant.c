/* Dequant: form selection (integers and scale bits only), the kernel table
 * from the registry, and the entry point, which checks the FP environment
 * before any conversion. */
#include "dequant.h"
#include "../common/fenv.h"
#include "../common/params.h"

enum { EXP_MIN = -4, EXP_MAX = 4, WIDE_ZP_MIN = -16777089, WIDE_ZP_MAX = 16777088 };

/* [route][variant], from the registry.  Only the scalar reference has a
 * strided leaf; the vector routes stage their non-packed runs by their own
 * moves, except every other element, which the AVX2, AVX-512 and NEON
 * leaves read in place. */
const sk_kernel sk_dequant_kernels[SK_ROUTE_COUNT][SK_DEQUANT_VARIANTS] = {
#define SK_LEAF SK_LEAF_ENTRY
#include "dequant_kernels.inc"
#undef SK_LEAF
};

int sk_dequant_variant(int output, int form) { return SK_DEQUANT_VARIANT(output, form); }

/* Runs fn(arg) in the default FP state (nearest, gradual underflow, traps
 * masked) and restores the caller's after: what preparation computes in
 * binary32 (converted and scaled zero points, the avx512 BF16 tables)
 * never depends on the state it ran in.  Executions still refuse a state
 * the contract does not admit, as on every route, before any write. */
static int in_default_state(void (*fn)(void *), void *arg) {
    static const sk_fenv_state standard = {SK_ROUND_NEAREST, 0, 0, 0};
    sk_fenv_saved saved;
    if (sk_fenv_save(&saved) != 0) return SK_UNSUPPORTED_ENVIRONMENT;
    if (sk_fenv_set(&standard) != 0) return SK_UNSUPPORTED_ENVIRONMENT; /* x86-64 can always */
    fn(arg);
    sk_fenv_restore(&saved);
    return SK_OK;
}

/* The staged expression on every INT8 input, BF16-narrowed by the integer
 * rule (index: the input byte; [0] low bytes, [1] high bytes). */
static void staged_bf16_table(uint32_t scale_bits, int32_t zero_point, uint8_t table[2][256]) {
    sk_dequant_ctx c;
    memcpy(&c.scale, &scale_bits, sizeof c.scale);
    c.zp = (float)zero_point;
    for (int b = 0; b < 256; ++b) {
        const uint16_t w = sk_bf16_from_f32_bits(sk_f32_bits(sk_dequant_staged(&c, (int8_t)b)));
        table[0][b] = (uint8_t)w;
        table[1][b] = (uint8_t)(w >> 8);
    }
}

/* A per-tensor plan's binary32 values (in_default_state); kept out of line
 * so that its arithmetic stays between the FP-state changes. */
static __attribute__((noinline)) void plan_values(void *plan) {
    sk_dequant_plan *p = plan;
    float scale;
    memcpy(&scale, &p->scale_bits, sizeof scale);
    p->zp = (float)p->zero_point;
    p->zp_scaled = p->form == SK_DEQUANT_WIDE_POW2 ? p->zp * scale : 0.0f; /* exact for that form */
    if (p->route == SK_ROUTE_AVX512 && p->output == SK_DEQUANT_BF16)
        staged_bf16_table(p->scale_bits, p->zero_point, p->bf16_table);
}

/* The form of a scale and zero point, and e of a power-of-two form. */
static int form_of(uint32_t bits, int32_t zp, int32_t *exponent) {
    const uint32_t biased = (bits >> 23) & 0xffu;
    /* A normal scale with an empty significand is exactly 2^(biased-127). */
    const int pow2 = biased != 0 && (bits & 0x7fffffu) == 0;
    const int e = (int)biased - 127;
    const int bounded_pow2 = pow2 && e >= EXP_MIN && e <= EXP_MAX;
    *exponent = bounded_pow2 ? e : 0;
    if (zp >= -128 && zp <= 127) return bounded_pow2 ? SK_DEQUANT_NARROW_POW2 : SK_DEQUANT_NARROW;
    if (bounded_pow2 && zp >= WIDE_ZP_MIN && zp <= WIDE_ZP_MAX) return SK_DEQUANT_WIDE_POW2;
    return bits == 0x3f800000u ? SK_DEQUANT_WIDE_UNIT : SK_DEQUANT_WIDE;
}

/* The table entry of a form on a route: the portable routes' narrow_pow2
 * leaves take exponents from 0 up; below, the NARROW multiply is already
 * exact. */
static int form_variant(int route, int output, int form, int32_t exponent) {
    if (form == SK_DEQUANT_NARROW_POW2 && exponent < 0 && (route == SK_ROUTE_SCALAR || route == SK_ROUTE_SSE2))
        form = SK_DEQUANT_NARROW;
    return sk_dequant_variant(output, form);
}

static int prepare_axis(sk_dequant_plan *plan);

int sk_dequant_prepare(sk_dequant_plan *plan) {
    if (plan->output < 0 || plan->output > SK_DEQUANT_BF16 || plan->route < 0 || plan->route >= SK_ROUTE_COUNT ||
        !sk_route_compiled(plan->route))
        return SK_INVALID_OPERATION;
    if (plan->axis.count > 0) return prepare_axis(plan);
    sk_fault fault;
    if (sk_finite_positive_rule(plan->scale_bits, &fault) != SK_OK) return fault.status;
    plan->form = form_of(plan->scale_bits, plan->zero_point, &plan->exponent);
    plan->variant = form_variant(plan->route, plan->output, plan->form, plan->exponent);
    sk_walk_decide(&plan->walk, &sk_dequant_kernels[plan->route][plan->variant], plan->route);
    return in_default_state(plan_values, plan);
}

/* ---- Per-axis plans -----------------------------------------------------
 * The workspace: the walk's view of it (sk_channels, what executes pass),
 * each channel's context and kernel entry (channel axis outside the inner
 * run: every form and leaf of the route serves it, the form chosen per
 * channel; on avx512 with BF16 output, up to AXIS_TABLE_CHANNELS channels
 * get the table leaf and their own 512-byte tables, more take the AVX2
 * leaves), then the repeating table of the inner run's periodic leaf.  Its
 * binary32 values (converted zero points, scaled ones, BF16 tables) are
 * computed in the default FP state.  Blocked plans (axis.block): contexts
 * and table with one position per entry in the walk's table order (the
 * period is the entry count), read by the periodic and runs leaves only:
 * no kernel entries or BF16 tables per entry. */
enum { AXIS_TABLE_CHANNELS = 4096 };

typedef struct axis_space {
    const sk_axis *axis;
    sk_channels *channels;
    sk_dequant_ctx *ctx;
    const sk_kernel **kernel;
    uint8_t (*bf16_tables)[2][256]; /* NULL: no per-channel tables */
    sk_dequant_table *table;
    float *scale, *zp;
    int64_t period;
} axis_space;

static int channel_tables(const sk_dequant_plan *plan) {
    return plan->route == SK_ROUTE_AVX512 && plan->output == SK_DEQUANT_BF16 &&
           plan->axis.count <= AXIS_TABLE_CHANNELS && !plan->axis.block;
}

static uint64_t carve_axis(const sk_dequant_plan *plan, void *base, axis_space *a) {
    const int64_t count = plan->axis.count;
    sk_carve c = {base, 0};
    a->axis = &plan->axis;
    a->period = plan->axis.block ? count : sk_axis_period(count);
    a->channels = sk_carve_take(&c, sizeof(sk_channels)); /* first: executes find it at the workspace's start */
    a->ctx = sk_carve_take(&c, sizeof(sk_dequant_ctx) * (uint64_t)count);
    a->kernel = plan->axis.block ? NULL : sk_carve_take(&c, sizeof(const sk_kernel *) * (uint64_t)count);
    a->bf16_tables = channel_tables(plan) ? sk_carve_take(&c, sizeof(uint8_t[2][256]) * (uint64_t)count) : NULL;
    a->table = sk_carve_take(&c, sizeof(sk_dequant_table));
    a->scale = sk_carve_take(&c, sizeof(float) * (uint64_t)a->period);
    a->zp = sk_carve_take(&c, sizeof(float) * (uint64_t)a->period);
    return c.bytes;
}

uint64_t sk_dequant_axis_space(const sk_dequant_plan *plan) {
    axis_space a;
    return plan->axis.count < 1 || plan->axis.count > SK_AXIS_MAX_COUNT || plan->axis.block < 0
               ? 0
               : carve_axis(plan, NULL, &a);
}

/* The binary32 values of every channel and of the table (in_default_state). */
static __attribute__((noinline)) void axis_values(void *space) {
    const axis_space *a = space;
    const int64_t count = a->axis->count;
    int32_t narrow = 1;
    if (a->axis->block) { /* the table holds the scales and (as integers) the zero points in walk order */
        for (int64_t c = 0; c < count; ++c) {
            sk_dequant_ctx *x = &a->ctx[c];
            memcpy(&x->zero_point, &a->zp[c], sizeof x->zero_point);
            x->scale = a->scale[c];
            x->zp = (float)x->zero_point;
            a->zp[c] = x->zp;
            narrow &= x->zero_point >= -128 && x->zero_point <= 127;
        }
        a->table->narrow = narrow;
        return;
    }
    for (int64_t c = 0; c < count; ++c) {
        sk_dequant_ctx *x = &a->ctx[c];
        narrow &= x->zero_point >= -128 && x->zero_point <= 127;
        memcpy(&x->scale, &a->axis->bits[c], sizeof x->scale);
        x->zp = (float)x->zero_point;
        x->zp_scaled = x->zp * x->scale; /* exact for the WIDE_POW2 form, the only one that reads it */
        if (a->bf16_tables) staged_bf16_table(a->axis->bits[c], x->zero_point, a->bf16_tables[c]);
    }
    a->table->narrow = narrow;
    for (int64_t i = 0, c = 0; i < a->period; ++i, c = c + 1 == count ? 0 : c + 1) {
        a->scale[i] = a->ctx[c].scale;
        a->zp[i] = a->ctx[c].zp;
    }
}

static int prepare_axis(sk_dequant_plan *plan) {
    const sk_axis *axis = &plan->axis;
    if (axis->count > SK_AXIS_MAX_COUNT || !axis->bits || !axis->zero_points || axis->block < 0 ||
        axis->block != plan->walk.block || (axis->block && axis->count != plan->walk.channels))
        return SK_INVALID_OPERATION;
    axis_space a;
    if (!sk_axis_space_ok(axis->space, axis->space_bytes, carve_axis(plan, NULL, &a))) return SK_INVALID_OPERATION;
    sk_fault fault;
    for (int64_t c = 0; c < axis->count; ++c)
        if (sk_finite_positive_rule(axis->bits[c], &fault) != SK_OK) return fault.status;
    carve_axis(plan, axis->space, &a);
    /* Without tables, avx512's BF16 channels take the AVX2 route's entries
     * (its FP32 entries name the AVX2 leaves already). */
    const int route = plan->route == SK_ROUTE_AVX512 && !a.bf16_tables ? SK_ROUTE_AVX2 : plan->route;
    /* Each run is a slice of the walk's output: whether to stream is the whole walk's question. */
    const size_t elements = (size_t)(plan->walk.runs * plan->walk.run_length);
    if (axis->block) { /* (zero points as integers in the zp table until axis_values) */
        sk_walk_params_gather(&plan->walk, axis->bits, a.scale, sizeof(uint32_t));
        sk_walk_params_gather(&plan->walk, axis->zero_points, a.zp, sizeof(int32_t));
    }
    for (int64_t c = 0; c < axis->count; ++c) {
        sk_dequant_ctx *x = &a.ctx[c];
        memset(x, 0, sizeof *x);
        x->stream_elements = elements;
        if (axis->block) continue; /* the rest from the table (axis_values) */
        x->zero_point = axis->zero_points[c];
        x->bf16_table = a.bf16_tables ? (const uint8_t(*)[256])a.bf16_tables[c] : NULL;
        const int form = form_of(axis->bits[c], x->zero_point, &x->exponent);
        a.kernel[c] = &sk_dequant_kernels[route][form_variant(route, plan->output, form, x->exponent)];
    }
    *a.table = (sk_dequant_table){a.scale, a.zp, a.ctx, axis->count, 0}; /* (narrow: axis_values) */
    /* Per channel; the plan's own entry gives the periodic and runs leaves. */
    plan->form = SK_DEQUANT_WIDE;
    plan->exponent = 0;
    plan->variant = sk_dequant_variant(plan->output, SK_DEQUANT_WIDE);
    const sk_kernel *entry = &sk_dequant_kernels[plan->route][plan->variant];
    *a.channels = (sk_channels){
        .kernel = entry,
        .kernels = (const sk_kernel *const *)a.kernel,
        .ctx = (const char *)a.ctx,
        .ctx_size = sizeof *a.ctx,
        .periodic = entry->periodic,
        .runs = entry->runs,
        .rows = entry->rows,
        .table = a.table,
        .period = a.period,
    };
    /* (every entry of the route has the same leaf kinds: the plan's decides for all) */
    sk_walk_decide(&plan->walk, entry, plan->route);
    return in_default_state(axis_values, &a);
}

int sk_dequant_execute(const sk_dequant_plan *plan, const void *src, uint64_t src_len, void *dst, uint64_t dst_len) {
    if (plan->output < 0 || plan->output > SK_DEQUANT_BF16 || plan->variant < 0 ||
        plan->variant >= SK_DEQUANT_VARIANTS || !sk_route_usable(plan->route))
        return SK_INVALID_OPERATION;
    const int bound = sk_binding_check(&plan->binding, src, src_len, dst, dst_len);
    if (bound != SK_OK) return bound;
    if (plan->walk.runs == 0) return SK_OK; /* empty: no arithmetic, no FP-state requirement */
    if (!plan->walk.decided) return SK_INVALID_OPERATION;
    /* Before any conversion or write: the staged roundings need nearest
     * rounding and gradual underflow, and no trap may fire mid-tensor. */
    if (sk_fenv_control_unmet(sk_fenv_control(), sk_fenv_needs(SK_OP_DEQUANT))) return SK_UNSUPPORTED_ENVIRONMENT;

    if (plan->axis.count > 0) {
        sk_walk_channels(&plan->walk, src, dst, plan->axis.space);
        return SK_OK;
    }
    sk_dequant_ctx c = {.zp = plan->zp,
                        .zp_scaled = plan->zp_scaled,
                        .zero_point = plan->zero_point,
                        .exponent = plan->exponent,
                        .bf16_table = plan->bf16_table,
                        .stream_elements = 0};
    memcpy(&c.scale, &plan->scale_bits, sizeof c.scale);
    sk_walk_go(&plan->walk, src, dst, &sk_dequant_kernels[plan->route][plan->variant], &c);
    return SK_OK;
}
