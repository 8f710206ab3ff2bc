/* Dequant: form selection (integers and scale bits only), route table and
 * the entry point, which checks the FP environment before any conversion. */
#include "dequant.h"
#include "../common/axis.h"
#include "../common/fenv.h"

enum { EXP_MIN = -4, EXP_MAX = 4, WIDE_ZP_MIN = -16777089, WIDE_ZP_MAX = 16777088 };

/* Runs fn(arg) in the default FP state (nearest, gradual underflow, traps
 * masked) and restores the caller's after: what preparation computes in
 * binary32 (the avx512 BF16 tables, per-axis plans' converted zero points)
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

/* Kept out of line so that its arithmetic stays between the FP-state
 * changes of in_default_state. */
static __attribute__((noinline)) void plan_bf16_table(void *plan) {
    sk_dequant_plan *p = plan;
    staged_bf16_table(p->scale_bits, p->zero_point, p->bf16_table);
}

static int scale_admitted(uint32_t bits) { return !(bits >> 31) && ((bits >> 23) & 0xffu) != 0xffu && bits != 0; }

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

static int prepare_axis(sk_dequant_plan *plan);
static const sk_kernel *form_kernel(int route, int output, int form, int32_t exponent);

int sk_dequant_prepare(sk_dequant_plan *plan) {
    if (plan->output < 0 || plan->output > SK_DEQUANT_BF16 || plan->route < 0 || plan->route >= SK_ROUTE_COUNT ||
        !sk_route_compiled(plan->route))
        return SK_INVALID_OPERATION;
    if (plan->axis.count > 0) return prepare_axis(plan);
    if (!scale_admitted(plan->scale_bits)) return SK_INVALID_PARAMS;
    plan->form = form_of(plan->scale_bits, plan->zero_point, &plan->exponent);
    sk_walk_decide(&plan->walk, form_kernel(plan->route, plan->output, plan->form, plan->exponent), plan->route);
    if (plan->route == SK_ROUTE_AVX512 && plan->output == SK_DEQUANT_BF16)
        return in_default_state(plan_bf16_table, plan);
    return SK_OK;
}

/* The kernel table (kernel.h): [route][output * SK_DEQUANT_FORM_COUNT +
 * form].  The AVX2 routes need no FP32 leaf for an INT8-range zero point
 * with a power-of-two scale (the NARROW multiply by 2^e is exact); their
 * BF16 leaf for it skips the rounding, which cannot change an exact 8-bit
 * significand.  AVX-512 converts BF16 by the plan's table and shares the
 * AVX2 FP32 leaves (FP32 arithmetic is already at the copy bound). */
#define F32(form) (SK_DEQUANT_F32 * SK_DEQUANT_FORM_COUNT + SK_DEQUANT_##form)
#define BF16(form) (SK_DEQUANT_BF16 * SK_DEQUANT_FORM_COUNT + SK_DEQUANT_##form)
#define VARIANTS (2 * SK_DEQUANT_FORM_COUNT)
#define ROW(isa, out, form, leaf, block) \
    [out(form)] = {sk_dequant_i8_##leaf##__##isa, NULL, EVERY_OTHER(isa, leaf), block}
static const sk_kernel dequant_kernels[SK_ROUTE_COUNT][VARIANTS] =
    {
#if SK_HAVE_NEON
#define EVERY_OTHER(isa, leaf) sk_dequant_i8_##leaf##_every_other__##isa
        [SK_ROUTE_NEON] =
            {
                ROW(neon, F32, NARROW, f32_narrow, 4 * SK_BLOCK),
                ROW(neon, F32, NARROW_POW2, f32_narrow_pow2, 4 * SK_BLOCK),
                ROW(neon, F32, WIDE_POW2, f32_wide_pow2, 4 * SK_BLOCK),
                ROW(neon, F32, WIDE_UNIT, f32_wide_unit, 4 * SK_BLOCK),
                ROW(neon, F32, WIDE, f32_wide, 4 * SK_BLOCK),
                ROW(neon, BF16, NARROW, bf16_narrow, 4 * SK_BLOCK),
                ROW(neon, BF16, NARROW_POW2, bf16_narrow_pow2, 4 * SK_BLOCK),
                ROW(neon, BF16, WIDE_POW2, bf16_wide_pow2, 4 * SK_BLOCK),
                ROW(neon, BF16, WIDE_UNIT, bf16_wide_unit, 4 * SK_BLOCK),
                ROW(neon, BF16, WIDE, bf16_wide, 4 * SK_BLOCK),
            },
#undef EVERY_OTHER
#endif
#if SK_HAVE_AVX2
#define EVERY_OTHER(isa, leaf) sk_dequant_i8_##leaf##_every_other__##isa
#define AVX2_F32                                                                                               \
    ROW(avx2, F32, NARROW, f32_narrow, SK_AVX2_BLOCK), ROW(avx2, F32, NARROW_POW2, f32_narrow, SK_AVX2_BLOCK), \
        ROW(avx2, F32, WIDE_POW2, f32_wide_pow2, SK_AVX2_BLOCK),                                               \
        ROW(avx2, F32, WIDE_UNIT, f32_wide_unit, SK_AVX2_BLOCK), ROW(avx2, F32, WIDE, f32_wide, SK_AVX2_BLOCK)
        [SK_ROUTE_AVX2] =
            {
                AVX2_F32,
                ROW(avx2, BF16, NARROW, bf16_narrow, SK_AVX2_BLOCK),
                ROW(avx2, BF16, NARROW_POW2, bf16_narrow_pow2, SK_AVX2_BLOCK),
                ROW(avx2, BF16, WIDE_POW2, bf16_wide_pow2, SK_AVX2_BLOCK),
                ROW(avx2, BF16, WIDE_UNIT, bf16_wide_unit, SK_AVX2_BLOCK),
                ROW(avx2, BF16, WIDE, bf16_wide, SK_AVX2_BLOCK),
            },
#if SK_HAVE_AVX512
        [SK_ROUTE_AVX512] =
            {
                AVX2_F32,
                ROW(avx512, BF16, NARROW, bf16_table, 64),
                ROW(avx512, BF16, NARROW_POW2, bf16_table, 64),
                ROW(avx512, BF16, WIDE_POW2, bf16_table, 64),
                ROW(avx512, BF16, WIDE_UNIT, bf16_table, 64),
                ROW(avx512, BF16, WIDE, bf16_table, 64),
            },
#endif
#undef AVX2_F32
#undef EVERY_OTHER
#endif
#define EVERY_OTHER(isa, leaf) NULL
#if SK_HAVE_SSE2
        [SK_ROUTE_SSE2] =
            {
                ROW(sse2, F32, NARROW, f32_narrow, SK_BLOCK),
                ROW(sse2, F32, NARROW_POW2, f32_narrow_pow2, SK_BLOCK),
                ROW(sse2, F32, WIDE_POW2, f32_wide_pow2, SK_BLOCK),
                ROW(sse2, F32, WIDE_UNIT, f32_wide_unit, SK_BLOCK),
                ROW(sse2, F32, WIDE, f32_wide, SK_BLOCK),
                ROW(sse2, BF16, NARROW, bf16_narrow, SK_BLOCK),
                ROW(sse2, BF16, NARROW_POW2, bf16_narrow_pow2, SK_BLOCK),
                ROW(sse2, BF16, WIDE_POW2, bf16_wide_pow2, SK_BLOCK),
                ROW(sse2, BF16, WIDE_UNIT, bf16_wide_unit, SK_BLOCK),
                ROW(sse2, BF16, WIDE, bf16_wide, SK_BLOCK),
            },
#endif
#define SCALAR_ROW(out, form, leaf, strided) \
    [out(form)] = {sk_dequant_i8_##leaf##__scalar, sk_dequant_i8_##strided##_strided__scalar, NULL, 1}
        [SK_ROUTE_SCALAR] =
            {
                SCALAR_ROW(F32, NARROW, f32_narrow, f32),
                SCALAR_ROW(F32, NARROW_POW2, f32_narrow_pow2, f32),
                SCALAR_ROW(F32, WIDE_POW2, f32_wide_pow2, f32),
                SCALAR_ROW(F32, WIDE_UNIT, f32_wide_unit, f32),
                SCALAR_ROW(F32, WIDE, f32_wide, f32),
                SCALAR_ROW(BF16, NARROW, bf16_narrow, bf16),
                SCALAR_ROW(BF16, NARROW_POW2, bf16_narrow_pow2, bf16),
                SCALAR_ROW(BF16, WIDE_POW2, bf16_wide_pow2, bf16),
                SCALAR_ROW(BF16, WIDE_UNIT, bf16_wide_unit, bf16),
                SCALAR_ROW(BF16, WIDE, bf16_wide, bf16),
            },
#undef SCALAR_ROW
#undef EVERY_OTHER
};
#undef ROW

const sk_kernel *sk_dequant_kernel(int route, int variant) {
    return variant < VARIANTS ? &dequant_kernels[route][variant] : NULL;
}

/* The entry of a form: the portable routes' narrow_pow2 leaves take
 * exponents from 0 up; below, the NARROW multiply is already exact. */
static const sk_kernel *form_kernel(int route, int output, int form, int32_t exponent) {
    if (form == SK_DEQUANT_NARROW_POW2 && exponent < 0 && (route == SK_ROUTE_SCALAR || route == SK_ROUTE_SSE2))
        form = SK_DEQUANT_NARROW;
    return &dequant_kernels[route][output * SK_DEQUANT_FORM_COUNT + form];
}
#undef F32
#undef BF16
#undef VARIANTS

/* ---- Per-axis plans -----------------------------------------------------
 * The workspace: each channel's context and kernel entry (channel axis
 * outside the inner run: every form and leaf of the route serves it, the
 * form chosen per channel; on avx512 with BF16 output, up to
 * AXIS_TABLE_CHANNELS channels get the table leaf and their own 512-byte
 * tables, more take the AVX2 leaves), then the repeating table of the inner
 * run's parameter-vector leaf.  Its binary32 values (converted zero points,
 * scaled ones, BF16 tables) are computed in the default FP state. */
enum { AXIS_TABLE_CHANNELS = 4096 };

static const sk_periodic_fn axis_leaves[SK_ROUTE_COUNT][2] = {
    [SK_ROUTE_SCALAR] = {sk_dequant_i8_f32_axis__scalar, sk_dequant_i8_bf16_axis__scalar},
#if SK_HAVE_SSE2
    [SK_ROUTE_SSE2] = {sk_dequant_i8_f32_axis__sse2, sk_dequant_i8_bf16_axis__sse2},
    [SK_ROUTE_AVX2] = {sk_dequant_i8_f32_axis__avx2, sk_dequant_i8_bf16_axis__avx2},
    [SK_ROUTE_AVX512] = {sk_dequant_i8_f32_axis__avx512, sk_dequant_i8_bf16_axis__avx512},
#endif
#if SK_HAVE_NEON
    [SK_ROUTE_NEON] = {sk_dequant_i8_f32_axis__neon, sk_dequant_i8_bf16_axis__neon},
#endif
};

typedef struct axis_space {
    const sk_axis *axis;
    sk_dequant_ctx *ctx;
    const sk_kernel **kernel;
    uint8_t (*bf16_tables)[2][256]; /* NULL: no per-channel tables */
    sk_dequant_table *table;
    float *scale, *zp;
    int64_t period;
} axis_space;

static int channel_tables(const sk_dequant_plan *plan) {
    return plan->route == SK_ROUTE_AVX512 && plan->output == SK_DEQUANT_BF16 && plan->axis.count <= AXIS_TABLE_CHANNELS;
}

static uint64_t carve_axis(const sk_dequant_plan *plan, void *base, axis_space *a) {
    const int64_t count = plan->axis.count;
    sk_carve c = {base, 0};
    a->axis = &plan->axis;
    a->period = sk_axis_period(count);
    a->ctx = sk_carve_take(&c, sizeof(sk_dequant_ctx) * (uint64_t)count);
    a->kernel = sk_carve_take(&c, sizeof(const sk_kernel *) * (uint64_t)count);
    a->bf16_tables = channel_tables(plan) ? sk_carve_take(&c, sizeof(uint8_t[2][256]) * (uint64_t)count) : NULL;
    a->table = sk_carve_take(&c, sizeof(sk_dequant_table));
    a->scale = sk_carve_take(&c, sizeof(float) * (uint64_t)a->period);
    a->zp = sk_carve_take(&c, sizeof(float) * (uint64_t)a->period);
    return c.bytes;
}

uint64_t sk_dequant_axis_space(const sk_dequant_plan *plan) {
    axis_space a;
    return plan->axis.count < 1 || plan->axis.count > SK_AXIS_MAX_COUNT ? 0 : carve_axis(plan, NULL, &a);
}

/* The binary32 values of every channel and of the table (in_default_state). */
static __attribute__((noinline)) void axis_values(void *space) {
    const axis_space *a = space;
    const int64_t count = a->axis->count;
    for (int64_t c = 0; c < count; ++c) {
        sk_dequant_ctx *x = &a->ctx[c];
        memcpy(&x->scale, &a->axis->bits[c], sizeof x->scale);
        x->zp = (float)x->zero_point;
        x->zp_scaled = x->zp * x->scale; /* exact for the WIDE_POW2 form, the only one that reads it */
        if (a->bf16_tables) staged_bf16_table(a->axis->bits[c], x->zero_point, a->bf16_tables[c]);
    }
    for (int64_t i = 0, c = 0; i < a->period; ++i, c = c + 1 == count ? 0 : c + 1) {
        a->scale[i] = a->ctx[c].scale;
        a->zp[i] = a->ctx[c].zp;
    }
}

static int prepare_axis(sk_dequant_plan *plan) {
    const sk_axis *axis = &plan->axis;
    if (axis->count > SK_AXIS_MAX_COUNT || !axis->bits || !axis->zero_points) return SK_INVALID_OPERATION;
    axis_space a;
    if (!sk_axis_space_ok(axis->space, axis->space_bytes, carve_axis(plan, NULL, &a))) return SK_INVALID_OPERATION;
    for (int64_t c = 0; c < axis->count; ++c)
        if (!scale_admitted(axis->bits[c])) return SK_INVALID_PARAMS;
    carve_axis(plan, axis->space, &a);
    /* Without tables, avx512 runs the AVX2 leaves per channel (FP32 ones always). */
    const int route = plan->route == SK_ROUTE_AVX512 && !a.bf16_tables ? SK_ROUTE_AVX2 : plan->route;
    /* Each run is a slice of the walk's output: whether to stream is the whole walk's question. */
    const size_t elements = (size_t)(plan->walk.runs * plan->walk.run_length);
    for (int64_t c = 0; c < axis->count; ++c) {
        sk_dequant_ctx *x = &a.ctx[c];
        memset(x, 0, sizeof *x);
        x->zero_point = axis->zero_points[c];
        x->stream_elements = elements;
        x->bf16_table = a.bf16_tables ? (const uint8_t(*)[256])a.bf16_tables[c] : NULL;
        const int form = form_of(axis->bits[c], x->zero_point, &x->exponent);
        a.kernel[c] = form_kernel(route, plan->output, form, x->exponent);
    }
    *a.table = (sk_dequant_table){a.scale, a.zp, a.ctx, axis->count};
    plan->form = SK_DEQUANT_WIDE; /* per channel; the plan's own is unused */
    plan->exponent = 0;
    sk_walk_decide(&plan->walk, a.kernel[0], plan->route);
    return in_default_state(axis_values, &a);
}

static void execute_axis(const sk_dequant_plan *plan, const void *src, void *dst) {
    axis_space a;
    carve_axis(plan, plan->axis.space, &a);
    const sk_channels ch = {
        .kernels = (const sk_kernel *const *)a.kernel,
        .ctx = (const char *)a.ctx,
        .ctx_size = sizeof *a.ctx,
        .periodic = axis_leaves[plan->route][plan->output],
        .table = a.table,
        .period = a.period,
    };
    sk_walk_channels(&plan->walk, src, dst, &ch);
}

int sk_dequant_execute(const sk_dequant_plan *plan, const void *src, uint64_t src_len, void *dst, uint64_t dst_len) {
    if (plan->output < 0 || plan->output > SK_DEQUANT_BF16 || plan->form < 0 || plan->form >= SK_DEQUANT_FORM_COUNT ||
        !sk_route_usable(plan->route))
        return SK_INVALID_OPERATION;
    const int bound = sk_binding_check(&plan->binding, src, src_len, dst, dst_len);
    if (bound != SK_OK) return bound;
    if (plan->walk.runs == 0) return SK_OK; /* empty: no arithmetic, no FP-state requirement */
    if (!plan->walk.decided) return SK_INVALID_OPERATION;
    /* Before any conversion or write: the staged roundings need nearest
     * rounding and gradual underflow, and no trap may fire mid-tensor. */
    if (sk_fenv_control_unmet(sk_fenv_control(), sk_fenv_needs(SK_OP_DEQUANT))) return SK_UNSUPPORTED_ENVIRONMENT;

    if (plan->axis.count > 0) {
        execute_axis(plan, src, dst);
        return SK_OK;
    }
    sk_dequant_ctx c;
    memcpy(&c.scale, &plan->scale_bits, sizeof c.scale);
    c.zero_point = plan->zero_point;
    c.exponent = plan->exponent;
    c.zp = (float)plan->zero_point;
    c.zp_scaled = plan->form == SK_DEQUANT_WIDE_POW2 ? c.zp * c.scale : 0.0f;
    c.bf16_table = plan->bf16_table;
    c.stream_elements = 0;
    sk_walk_go(&plan->walk, src, dst, form_kernel(plan->route, plan->output, plan->form, plan->exponent), &c);
    return SK_OK;
}
