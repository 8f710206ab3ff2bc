/* Scalar Dequant: the reference route, one element at a time with each
 * form's element function; its strided leaves take the staged expression
 * itself, and its periodic leaves the table's values. */
#include "dequant.h"

void sk_dequant_i8_f32_narrow__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    sk_dequant_each(ctx, src, 1, dst, 0, n, sk_dq_narrow, 0);
}
void sk_dequant_i8_f32_narrow_pow2__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    sk_dequant_each(ctx, src, 1, dst, 0, n, sk_dq_narrow_pow2, 0);
}
void sk_dequant_i8_f32_wide_pow2__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    sk_dequant_each(ctx, src, 1, dst, 0, n, sk_dq_wide_pow2, 0);
}
void sk_dequant_i8_f32_wide_unit__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    sk_dequant_each(ctx, src, 1, dst, 0, n, sk_dq_wide_unit, 0);
}
void sk_dequant_i8_f32_wide__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    sk_dequant_each(ctx, src, 1, dst, 0, n, sk_dq_wide, 0);
}
void sk_dequant_i8_bf16_narrow__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    sk_dequant_each(ctx, src, 1, dst, 0, n, sk_dq_narrow, 1);
}
void sk_dequant_i8_bf16_narrow_pow2__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    sk_dequant_each(ctx, src, 1, dst, 0, n, sk_dq_narrow_pow2, 1);
}
void sk_dequant_i8_bf16_wide_pow2__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    sk_dequant_each(ctx, src, 1, dst, 0, n, sk_dq_wide_pow2, 1);
}
void sk_dequant_i8_bf16_wide_unit__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    sk_dequant_each(ctx, src, 1, dst, 0, n, sk_dq_wide_unit, 1);
}
void sk_dequant_i8_bf16_wide__scalar(const void *ctx, const void *src, void *dst, size_t n) {
    sk_dequant_each(ctx, src, 1, dst, 0, n, sk_dq_wide, 1);
}

void sk_dequant_i8_f32_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                       ptrdiff_t dst_step, size_t n) {
    for (size_t i = 0; i < n; ++i, src += src_step, dst += dst_step)
        *(float *)(void *)dst = sk_dequant_staged(ctx, *(const int8_t *)src);
}

void sk_dequant_i8_bf16_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                        ptrdiff_t dst_step, size_t n) {
    for (size_t i = 0; i < n; ++i, src += src_step, dst += dst_step)
        *(uint16_t *)(void *)dst = sk_bf16_from_f32_bits(sk_f32_bits(sk_dequant_staged(ctx, *(const int8_t *)src)));
}

/* The reference periodic leaves: element by element, not vectorized. */
#pragma GCC push_options
#pragma GCC optimize("no-tree-vectorize")
void sk_dequant_i8_f32_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    const sk_dequant_table *t = table;
    sk_dequant_axis_tail(t->scale + at, t->zp + at, 1, src, dst, 0, n, 0);
}
void sk_dequant_i8_bf16_axis__scalar(const void *table, size_t at, const void *src, void *dst, size_t n) {
    const sk_dequant_table *t = table;
    sk_dequant_axis_tail(t->scale + at, t->zp + at, 1, src, dst, 0, n, 1);
}
/* The reference runs leaves (blocked plans' segments): each run with its
 * entry's table values. */
static inline __attribute__((always_inline)) void runs(const void *table, size_t entry, const void *src, void *dst,
                                                       size_t n, size_t count, int bf16) {
    const sk_dequant_table *t = table;
    for (size_t r = 0, c = entry; r < count; ++r) {
        sk_dequant_axis_tail(t->scale + c, t->zp + c, 0, (const int8_t *)src + r * n,
                             (char *)dst + r * n * (bf16 ? 2 : 4), 0, n, bf16);
        c = c + 1 == (size_t)t->channels ? 0 : c + 1;
    }
}
void sk_dequant_i8_f32_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                    size_t count) {
    runs(table, entry, src, dst, n, count, 0);
}
void sk_dequant_i8_bf16_runs__scalar(const void *table, size_t entry, const void *src, void *dst, size_t n,
                                     size_t count) {
    runs(table, entry, src, dst, n, count, 1);
}
#pragma GCC pop_options
