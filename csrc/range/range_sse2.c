/* x86-64 range leaves, SSE2 (the baseline): the rule in fixed 16-element
 * blocks that the compiler vectorises (lane accumulators, folded at the
 * end), the tail one at a time. */
#include "range.h"
#if SK_HAVE_SSE2

static inline __attribute__((always_inline)) void fold32(const sk_range_acc *acc, size_t at,
                                                         const uint32_t *restrict in, size_t n) {
    int32_t s[SK_RANGE_LANES] = {0};
    uint32_t u[SK_RANGE_LANES] = {0};
    size_t i = 0;
    for (; i + SK_RANGE_LANES <= n; i += SK_RANGE_LANES)
        for (size_t j = 0; j < SK_RANGE_LANES; ++j) {
            const uint32_t k = sk_range_kept32(in[i + j]);
            s[j] = s[j] > (int32_t)k ? s[j] : (int32_t)k;
            u[j] = u[j] > k ? u[j] : k;
        }
    sk_range_fold32(acc, at, (const uint32_t *)s, SK_RANGE_LANES);
    sk_range_fold32(acc, at, u, SK_RANGE_LANES);
    sk_range_fold32(acc, at, in + i, n - i);
}

static inline __attribute__((always_inline)) void fold16(const sk_range_acc *acc, size_t at,
                                                         const uint16_t *restrict in, size_t n, uint16_t inf) {
    int16_t s[SK_RANGE_LANES] = {0};
    uint16_t u[SK_RANGE_LANES] = {0};
    size_t i = 0;
    for (; i + SK_RANGE_LANES <= n; i += SK_RANGE_LANES)
        for (size_t j = 0; j < SK_RANGE_LANES; ++j) {
            const uint16_t k = sk_range_kept16(in[i + j], inf);
            s[j] = s[j] > (int16_t)k ? s[j] : (int16_t)k;
            u[j] = u[j] > k ? u[j] : k;
        }
    sk_range_fold16(acc, at, (const uint16_t *)s, SK_RANGE_LANES, inf);
    sk_range_fold16(acc, at, u, SK_RANGE_LANES, inf);
    sk_range_fold16(acc, at, in + i, n - i, inf);
}

void sk_range_f32__sse2(void *acc, size_t at, const void *src, size_t n) { fold32(acc, at, src, n); }
void sk_range_b16__sse2(void *acc, size_t at, const void *src, size_t n) { fold16(acc, at, src, n, SK_RANGE_INF_BF16); }
void sk_range_f16__sse2(void *acc, size_t at, const void *src, size_t n) { fold16(acc, at, src, n, SK_RANGE_INF_F16); }
void sk_range_f32_periodic__sse2(void *acc, size_t at, const void *src, size_t n) {
    sk_range_periodic32(acc, at, src, n);
}
void sk_range_b16_periodic__sse2(void *acc, size_t at, const void *src, size_t n) {
    sk_range_periodic16(acc, at, src, n, SK_RANGE_INF_BF16);
}
void sk_range_f16_periodic__sse2(void *acc, size_t at, const void *src, size_t n) {
    sk_range_periodic16(acc, at, src, n, SK_RANGE_INF_F16);
}
#endif
