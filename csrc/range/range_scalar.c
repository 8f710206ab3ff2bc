/* Scalar range leaves: the rule (range.h) one element at a time. */
#include "range.h"

void sk_range_w32__scalar(void *acc, size_t at, const void *src, size_t n) { sk_range_fold(acc, at, src, n, 32); }
void sk_range_w16__scalar(void *acc, size_t at, const void *src, size_t n) { sk_range_fold(acc, at, src, n, 16); }
void sk_range_f32_axis__scalar(void *acc, size_t at, const void *src, size_t n) {
    sk_range_axis(acc, at, src, n, SK_QUANT_F32, 1);
}
void sk_range_bf16_axis__scalar(void *acc, size_t at, const void *src, size_t n) {
    sk_range_axis(acc, at, src, n, SK_QUANT_BF16, 1);
}
void sk_range_f16_axis__scalar(void *acc, size_t at, const void *src, size_t n) {
    sk_range_axis(acc, at, src, n, SK_QUANT_F16, 1);
}
