/* Scalar range leaves: the rule (range.h) one element at a time. */
#include "range.h"

void sk_range_f32__scalar(void *acc, size_t at, const void *src, size_t n) { sk_range_fold32(acc, at, src, n); }
void sk_range_b16__scalar(void *acc, size_t at, const void *src, size_t n) {
    sk_range_fold16(acc, at, src, n, SK_RANGE_INF_BF16);
}
void sk_range_f16__scalar(void *acc, size_t at, const void *src, size_t n) {
    sk_range_fold16(acc, at, src, n, SK_RANGE_INF_F16);
}

void sk_range_f32_periodic__scalar(void *acc, size_t at, const void *src, size_t n) {
    const sk_range_acc *a = acc;
    const uint32_t *in = src;
    for (size_t i = 0; i < n; ++i) sk_range_step32((int32_t *)a->smax + at + i, (uint32_t *)a->umax + at + i, in[i]);
}
void sk_range_b16_periodic__scalar(void *acc, size_t at, const void *src, size_t n) {
    const sk_range_acc *a = acc;
    const uint16_t *in = src;
    for (size_t i = 0; i < n; ++i)
        sk_range_step16((int16_t *)a->smax + at + i, (uint16_t *)a->umax + at + i, in[i], SK_RANGE_INF_BF16);
}
void sk_range_f16_periodic__scalar(void *acc, size_t at, const void *src, size_t n) {
    const sk_range_acc *a = acc;
    const uint16_t *in = src;
    for (size_t i = 0; i < n; ++i)
        sk_range_step16((int16_t *)a->smax + at + i, (uint16_t *)a->umax + at + i, in[i], SK_RANGE_INF_F16);
}
