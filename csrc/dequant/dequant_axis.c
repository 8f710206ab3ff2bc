/* Dequant's parameter-vector leaves (per-axis plans whose channel axis is
 * the walk's inner run): each element takes its position's scale and zero
 * point from the plan's repeating table.  The staged expression lane-wise,
 * a native vector per block in generic vectors, compiled once per
 * route's instruction set (dequant_axis_body.h) with the route's own
 * widening and narrowing moves (axis_lanes.h); the scalar route and every tail take it element by
 * element.  Every form of the per-tensor leaves gives this expression's
 * bits, so one leaf serves every channel. */
#include "dequant.h"
#include "../common/axis.h"

/* Elements [i, n) one at a time: the staged expression with the table's values. */
static inline void axis_tail(const float *scale, const float *zp, const int8_t *in, void *dst, size_t i, size_t n,
                             int bf16) {
    for (; i < n; ++i) {
        const float r = ((float)in[i] - zp[i]) * scale[i];
        if (bf16)
            ((uint16_t *)dst)[i] = sk_bf16_from_f32_bits(sk_f32_bits(r));
        else
            ((float *)dst)[i] = r;
    }
}

/* The reference: element by element, not vectorized. */
#pragma GCC push_options
#pragma GCC optimize("no-tree-vectorize")
void sk_dequant_i8_f32_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    const sk_dequant_table *t = table;
    axis_tail(t->scale + at, t->zp + at, src, dst, 0, n, 0);
}
void sk_dequant_i8_bf16_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    const sk_dequant_table *t = table;
    axis_tail(t->scale + at, t->zp + at, src, dst, 0, n, 1);
}
#pragma GCC pop_options

/* One instantiation per vector route. */
#define AXIS_BODY "../dequant/dequant_axis_body.h" /* (from common/) */
#include "../common/axis_instances.h"
