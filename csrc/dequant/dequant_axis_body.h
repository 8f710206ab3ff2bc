/* The body of dequant_axis.c's vector leaves, included once per route's
 * instruction set after ../common/axis_lanes.h (its types and moves). */
static inline __attribute__((always_inline)) void
AXIS_CAT(axis_run, AXIS_ISA)(const void *table, size_t at, const void *src, void *dst, size_t n, int bf16) {
    enum { LANES = AXIS_CAT(AXIS_LANES, AXIS_ISA), K = AXIS_CAT(AXIS_K, AXIS_ISA) };
    const sk_dequant_table *t = table;
    const float *scale = t->scale + at, *zp = t->zp + at;
    const int8_t *in = src;
    size_t i = 0;
    for (; i + SK_AXIS_LANES <= n; i += SK_AXIS_LANES) {
        AXIS_I32 q[K];
        AXIS_U32 s[K], z[K], r[K];
        AXIS_CAT(widen_i8, AXIS_ISA)(in + i, q);
        AXIS_CAT(load64, AXIS_ISA)(scale + i, s);
        AXIS_CAT(load64, AXIS_ISA)(zp + i, z);
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k) {
            r[k] = (AXIS_U32)((__builtin_convertvector(q[k], AXIS_F32) - (AXIS_F32)z[k]) * (AXIS_F32)s[k]);
            if (bf16) AXIS_CAT(narrow_u16, AXIS_ISA)
            ((r[k] + 0x7fffu + ((r[k] >> 16) & 1u)) >> 16, (uint16_t *)dst + i + (size_t)k * LANES);
        }
        if (!bf16) AXIS_CAT(store64, AXIS_ISA)(r, (float *)dst + i);
    }
    axis_tail(scale, zp, in, dst, i, n, bf16);
}

void AXIS_CAT(sk_dequant_i8_f32_axis, AXIS_ISA)(const void *table, size_t at, const void *src, void *dst, size_t n) {
    AXIS_CAT(axis_run, AXIS_ISA)(table, at, src, dst, n, 0);
}
void AXIS_CAT(sk_dequant_i8_bf16_axis, AXIS_ISA)(const void *table, size_t at, const void *src, void *dst, size_t n) {
    AXIS_CAT(axis_run, AXIS_ISA)(table, at, src, dst, n, 1);
}
