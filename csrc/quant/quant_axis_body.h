/* The body of the vector routes' periodic leaves (quant_axis.c), included
 * once per route inside its target region, after ../common/axis_lanes.h
 * (the route's vector types and moves); AXIS_OWN names its helpers per
 * route. */
#define AXIS_OWN_(name, isa) name##_##isa
#define AXIS_OWN(name, isa) AXIS_OWN_(name, isa)

/* Blocks from 0 while a whole one remains; returns where they stopped.
 * `flushes`: the control register flushes (the repair test runs).
 * `splat`: every element takes position `at` (the runs leaves: one
 * entry's run), else position at + i (the periodic leaves). */
static inline __attribute__((always_inline)) size_t AXIS_OWN(axis_blocks, AXIS_ISA)(const sk_quant_table *t, size_t at,
                                                                                    const void *src, int8_t *out,
                                                                                    size_t n, int input, int mode,
                                                                                    int flushes, int splat) {
    enum { LANES = AXIS_CAT(AXIS_LANES, AXIS_ISA), K = AXIS_CAT(AXIS_K, AXIS_ISA) };
    const float *multiplier = t->multiplier + at;
    const int32_t *zero_point = t->zero_point + at;
    uint32_t m_bits;
    memcpy(&m_bits, multiplier, sizeof m_bits);
    const AXIS_U32 m_splat = (AXIS_U32){0} + m_bits, z_splat = (AXIS_U32){0} + (uint32_t)*zero_point;
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
            const AXIS_U32 pmag = (AXIS_U32)p[k] & 0x7fffffffu;
            /* (a NaN product from a non-NaN input: infinity times a multiplier taken as 0) */
            repair |= ((nonzero != 0) & (pmag < 0x00800000u)) | (p[k] != p[k]);
        }
        if (flushes && AXIS_CAT(any, AXIS_ISA)(repair)) {
            if (splat)
                sk_quant_exact_span(&t->ctx[at], src, out, i, i + SK_AXIS_LANES, input, mode);
            else
                sk_quant_axis_exact(t, at, src, out, i, i + SK_AXIS_LANES, input, mode);
            continue;
        }
        AXIS_I32 r[K];
        AXIS_U32 z[K];
        if (splat)
            for (int k = 0; k < K; ++k) z[k] = z_splat;
        else
            AXIS_CAT(load64, AXIS_ISA)(zero_point + i, z);
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k) /* from 512 every zero point saturates: clamping keeps the conversion in range */
            r[k] = AXIS_CAT(to_int, AXIS_ISA)(AXIS_CAT(clamp512, AXIS_ISA)(p[k]), mode) + (AXIS_I32)z[k];
        AXIS_CAT(narrow_i8, AXIS_ISA)(r, out + i); /* saturates */
    }
    return i;
}

/* The leaves' body: the blocks, then the rest by the exact path. */
static inline __attribute__((always_inline)) void
AXIS_OWN(axis_run, AXIS_ISA)(const void *table, size_t at, const void *src, void *dst, size_t n, int input, int mode) {
    const sk_quant_table *t = table;
    int8_t *out = dst;
    const size_t i = t->flushes ? AXIS_OWN(axis_blocks, AXIS_ISA)(t, at, src, out, n, input, mode, 1, 0)
                                : AXIS_OWN(axis_blocks, AXIS_ISA)(t, at, src, out, n, input, mode, 0, 0);
    AXIS_CAT(upper_clean, AXIS_ISA)();
    sk_quant_axis_exact(t, at, src, out, i, n, input, mode);
}

/* One entry's run of at least a block: the blocks, then, for a rest, the
 * run's last whole block again: its elements before the rest get the same
 * bytes twice (one entry, lanes independent, input and output never
 * overlap), which costs less than the exact path per element (blocks of 17
 * or 33 leave one element per run). */
static inline __attribute__((always_inline)) void AXIS_OWN(axis_entry_run, AXIS_ISA)(const sk_quant_table *t, size_t c,
                                                                                     const char *in, int8_t *out,
                                                                                     size_t n, int input, int mode,
                                                                                     int flushes) {
    const size_t size = input == SK_QUANT_F32 ? 4 : 2, last = n - SK_AXIS_LANES;
    if (AXIS_OWN(axis_blocks, AXIS_ISA)(t, c, in, out, n, input, mode, flushes, 1) < n)
        AXIS_OWN(axis_blocks, AXIS_ISA)(t, c, in + last * size, out + last, SK_AXIS_LANES, input, mode, flushes, 1);
}

/* The runs leaves' body (kernel.h sk_runs_leaf): `count` packed runs of n
 * elements, entries from `entry` on, each with its entry's multiplier and
 * zero point in every lane; runs shorter than a block take the exact path
 * with the entry's context. */
static inline __attribute__((always_inline)) void AXIS_OWN(axis_runs, AXIS_ISA)(const void *table, size_t entry,
                                                                                const void *src, void *dst, size_t n,
                                                                                size_t count, int input, int mode) {
    const sk_quant_table *t = table;
    const char *in = src;
    int8_t *out = dst;
    const size_t size = input == SK_QUANT_F32 ? 4 : 2;
    for (size_t r = 0, c = entry; r < count; ++r, in += n * size, out += n) {
        if (n < SK_AXIS_LANES)
            sk_quant_exact_span(&t->ctx[c], in, out, 0, n, input, mode);
        else if (t->flushes)
            AXIS_OWN(axis_entry_run, AXIS_ISA)(t, c, in, out, n, input, mode, 1);
        else
            AXIS_OWN(axis_entry_run, AXIS_ISA)(t, c, in, out, n, input, mode, 0);
        c = c + 1 == (size_t)t->channels ? 0 : c + 1;
    }
}

#undef AXIS_F16_CONVERTS
