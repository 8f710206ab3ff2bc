/* The body of the vector routes' affine quant leaves (affine_quant_leaves.c),
 * included once per route inside its target region, after
 * ../common/axis_lanes.h (the route's vector types and moves); AQ_OWN names
 * its helpers per route.  A native vector per block of SK_AXIS_LANES
 * elements, in generic vectors:
 *   the input as binary32 (FP16 by the ISA's conversion, or on SSE2 by
 *   integer moves), the product x * m (nearest-even, the FP state execute
 *   admitted), clamped in binary32 to [least - zp, greatest - zp] (exact
 *   integers, |.| <= 2^17; NaN to a lane that converts to 0), converted to
 *   an integer by the mode, the zero point added: clamp(round(p) + zp,
 *   least, greatest), since rounding is monotone and fixes integers.  The
 *   result's low bits are stored as one or two bytes (the context's width
 *   and mask, at run time).
 * When the control register flushes, a block with an input whose own bits
 * are nonzero and whose product is below 2^-126, or with a NaN product,
 * takes the exact integer path (affine.h) instead, as Quant's leaves do;
 * the periodic leaves' tails of fewer than a block take it too. */
#define AQ_OWN_(name, isa) name##_##isa
#define AQ_OWN(name, isa) AQ_OWN_(name, isa)

/* Blocks from 0 while a whole one remains; returns where they stopped.
 * `splat`: every element takes the parameters of `one` (a span or a runs
 * leaf's run of one entry), else those of position at + i of the table
 * (`multiplier` and `zero_point` start at position at). */
static inline __attribute__((always_inline)) size_t
AQ_OWN(aq_blocks, AXIS_ISA)(const float *multiplier, const int32_t *zero_point, const sk_affine_quant_table *t,
                            const sk_affine_quant_ctx *one, size_t at, const void *src, void *out, size_t n,
                            int32_t least, int32_t greatest, uint32_t mask, int input, int mode, int flushes, int width,
                            int splat) {
    enum { LANES = AXIS_CAT(AXIS_LANES, AXIS_ISA), K = AXIS_CAT(AXIS_K, AXIS_ISA) };
    uint32_t m_bits;
    memcpy(&m_bits, multiplier, sizeof m_bits);
    const AXIS_U32 m_splat = (AXIS_U32){0} + m_bits, z_splat = (AXIS_U32){0} + (uint32_t)*zero_point;
    const AXIS_I32 least_v = (AXIS_I32){0} + least, greatest_v = (AXIS_I32){0} + greatest;
    const AXIS_U32 mask_v = (AXIS_U32){0} + mask;
    const AXIS_F32 low_splat = __builtin_convertvector(least_v - (AXIS_I32)z_splat, AXIS_F32);
    const AXIS_F32 high_splat = __builtin_convertvector(greatest_v - (AXIS_I32)z_splat, AXIS_F32);
    size_t i = 0;
    for (; i + SK_AXIS_LANES <= n; i += SK_AXIS_LANES) {
        AXIS_F32 p[K];
        AXIS_U32 x32[K], m[K];
        AXIS_I32 repair = {0};
        if (input == SK_QUANT_F32) AXIS_CAT(load64, AXIS_ISA)((const uint32_t *)src + i, x32);
        if (splat)
            for (int k = 0; k < K; ++k) m[k] = m_splat;
        else
            AXIS_CAT(load64, AXIS_ISA)(multiplier + i, m);
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k) {
            const size_t j = i + (size_t)k * LANES;
            AXIS_U32 nonzero; /* the input's own bits' magnitude */
            const AXIS_U32 bits =
                AXIS_CAT(input_bits, AXIS_ISA)(src, j, input == SK_QUANT_F32 ? x32[k] : (AXIS_U32){0}, input, &nonzero);
            p[k] = (AXIS_F32)bits * (AXIS_F32)m[k];
            if (flushes) {
                const AXIS_U32 pmag = (AXIS_U32)p[k] & 0x7fffffffu;
                /* (a NaN product from a non-NaN input: infinity times a multiplier taken as 0) */
                repair |= ((nonzero != 0) & (pmag < 0x00800000u)) | (p[k] != p[k]);
            }
        }
        if (flushes && AXIS_CAT(any, AXIS_ISA)(repair)) {
            if (splat)
                sk_aq_exact_span(one, src, out, i, i + SK_AXIS_LANES, input, mode);
            else
                sk_aq_axis_exact(t, at, src, out, i, i + SK_AXIS_LANES, input, mode);
            continue;
        }
        AXIS_I32 r[K];
        AXIS_U32 z[K];
        if (splat)
            for (int k = 0; k < K; ++k) z[k] = z_splat;
        else
            AXIS_CAT(load64, AXIS_ISA)(zero_point + i, z);
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k) {
            const AXIS_F32 low = splat ? low_splat : __builtin_convertvector(least_v - (AXIS_I32)z[k], AXIS_F32);
            const AXIS_F32 high = splat ? high_splat : __builtin_convertvector(greatest_v - (AXIS_I32)z[k], AXIS_F32);
            r[k] = AXIS_CAT(to_int, AXIS_ISA)(AXIS_CAT(clamp, AXIS_ISA)(p[k], low, high), mode) + (AXIS_I32)z[k];
        }
        if (width == 2) {
#pragma GCC unroll 4
            for (int k = 0; k < K; ++k)
                AXIS_CAT(narrow_u16, AXIS_ISA)((AXIS_U32)r[k] & mask_v, (uint16_t *)out + i + (size_t)k * LANES);
        } else { /* the low byte, sign-extended: the saturating narrowing keeps it */
#pragma GCC unroll 4
            for (int k = 0; k < K; ++k) r[k] = (AXIS_I32)(((AXIS_U32)r[k] & mask_v) << 24) >> 24;
            AXIS_CAT(narrow_i8, AXIS_ISA)(r, (int8_t *)out + i);
        }
    }
    return i;
}

/* One context's run (a span, or a runs leaf's entry): the blocks, then,
 * for a rest, the run's last whole block again: its elements before the
 * rest get the same bytes twice (one context, lanes independent, input and
 * output never overlap), which costs less than the exact path per element;
 * a run shorter than a block goes through one block on the stack.  One
 * call site of the block loop, which every leaf inlines several times over
 * (the flushing and width specialisations): three would triple the code
 * and the compile time. */
static inline __attribute__((always_inline)) void AQ_OWN(aq_one, AXIS_ISA)(const sk_affine_quant_ctx *c, const char *in,
                                                                           char *out, size_t n, int input, int mode,
                                                                           int flushes, int width) {
    const size_t size = input == SK_QUANT_F32 ? 4 : 2;
    _Alignas(64) char in_block[SK_AXIS_LANES * 4];
    _Alignas(64) char out_block[SK_AXIS_LANES * 2];
    const char *from = in;
    char *to = out;
    size_t len = n;
    if (n < SK_AXIS_LANES) { /* one block padded with zeros (which need no repair), n results kept */
        memset(in_block, 0, sizeof in_block);
        memcpy(in_block, in, n * size);
        from = in_block;
        to = out_block;
        len = SK_AXIS_LANES;
    }
    while (AQ_OWN(aq_blocks, AXIS_ISA)(&c->multiplier, &c->zero_point, NULL, c, 0, from, to, len, c->least, c->greatest,
                                       c->mask, input, mode, flushes, width, 1) < len) {
        from = in + (n - SK_AXIS_LANES) * size; /* the rest: the last whole block again */
        to = out + (n - SK_AXIS_LANES) * (size_t)width;
        len = SK_AXIS_LANES;
    }
    if (n < SK_AXIS_LANES) memcpy(out, out_block, n * (size_t)width);
}

/* The span leaves' body (kernel.h sk_span_leaf; ctx: a sk_affine_quant_ctx). */
static inline __attribute__((always_inline)) void AQ_OWN(aq_span, AXIS_ISA)(const void *ctx, const void *src, void *dst,
                                                                            size_t n, int input, int mode) {
    const sk_affine_quant_ctx *c = ctx;
    if (c->flushes) {
        if (c->width == 2)
            AQ_OWN(aq_one, AXIS_ISA)(c, src, dst, n, input, mode, 1, 2);
        else
            AQ_OWN(aq_one, AXIS_ISA)(c, src, dst, n, input, mode, 1, 1);
    } else {
        if (c->width == 2)
            AQ_OWN(aq_one, AXIS_ISA)(c, src, dst, n, input, mode, 0, 2);
        else
            AQ_OWN(aq_one, AXIS_ISA)(c, src, dst, n, input, mode, 0, 1);
    }
}

/* The periodic leaves' body (kernel.h sk_periodic_leaf): the blocks, then
 * the rest by the exact path. */
static inline __attribute__((always_inline)) size_t
AQ_OWN(aq_periodic_blocks, AXIS_ISA)(const sk_affine_quant_table *t, size_t at, const void *src, void *dst, size_t n,
                                     int input, int mode, int flushes, int width) {
    return AQ_OWN(aq_blocks, AXIS_ISA)(t->multiplier + at, t->zero_point + at, t, NULL, at, src, dst, n, t->least,
                                       t->greatest, t->mask, input, mode, flushes, width, 0);
}
static inline __attribute__((always_inline)) void
AQ_OWN(aq_periodic, AXIS_ISA)(const void *table, size_t at, const void *src, void *dst, size_t n, int input, int mode) {
    const sk_affine_quant_table *t = table;
    size_t i;
    if (t->flushes)
        i = t->width == 2 ? AQ_OWN(aq_periodic_blocks, AXIS_ISA)(t, at, src, dst, n, input, mode, 1, 2)
                          : AQ_OWN(aq_periodic_blocks, AXIS_ISA)(t, at, src, dst, n, input, mode, 1, 1);
    else
        i = t->width == 2 ? AQ_OWN(aq_periodic_blocks, AXIS_ISA)(t, at, src, dst, n, input, mode, 0, 2)
                          : AQ_OWN(aq_periodic_blocks, AXIS_ISA)(t, at, src, dst, n, input, mode, 0, 1);
    AXIS_CAT(upper_clean, AXIS_ISA)();
    sk_aq_axis_exact(t, at, src, dst, i, n, input, mode);
}

/* The runs leaves' body (kernel.h sk_runs_leaf): `count` packed runs of n
 * elements, entries from `entry` on, each with its entry's context. */
static inline __attribute__((always_inline)) void
AQ_OWN(aq_runs_with, AXIS_ISA)(const sk_affine_quant_table *t, size_t entry, const char *in, char *out, size_t n,
                               size_t count, int input, int mode, int flushes, int width) {
    const size_t size = input == SK_QUANT_F32 ? 4 : 2;
    for (size_t r = 0, c = entry; r < count; ++r, in += n * size, out += n * (size_t)width) {
        AQ_OWN(aq_one, AXIS_ISA)(&t->ctx[c], in, out, n, input, mode, flushes, width);
        c = c + 1 == (size_t)t->channels ? 0 : c + 1;
    }
}
static inline __attribute__((always_inline)) void AQ_OWN(aq_runs, AXIS_ISA)(const void *table, size_t entry,
                                                                            const void *src, void *dst, size_t n,
                                                                            size_t count, int input, int mode) {
    const sk_affine_quant_table *t = table;
    if (t->flushes) {
        if (t->width == 2)
            AQ_OWN(aq_runs_with, AXIS_ISA)(t, entry, src, dst, n, count, input, mode, 1, 2);
        else
            AQ_OWN(aq_runs_with, AXIS_ISA)(t, entry, src, dst, n, count, input, mode, 1, 1);
    } else {
        if (t->width == 2)
            AQ_OWN(aq_runs_with, AXIS_ISA)(t, entry, src, dst, n, count, input, mode, 0, 2);
        else
            AQ_OWN(aq_runs_with, AXIS_ISA)(t, entry, src, dst, n, count, input, mode, 0, 1);
    }
}

#undef AXIS_F16_CONVERTS
