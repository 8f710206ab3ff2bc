/* Range leaves (the range pass of choose_qparams), one per route and input
 * width, and the rule they share.  Every leaf keeps, per channel, the signed
 * and the unsigned maximum of the kept bits, both starting at 0: the signed
 * one is the greatest value's bits (negatives never beat 0), the unsigned
 * one the least value's (sign set) or a positive (no negative seen); a
 * non-finite element is kept as 0, which is neutral to both.  Integer
 * operations only, so the FP environment plays no part. */
#ifndef SK_RANGE_H
#define SK_RANGE_H
#include "../common/kernel.h"

/* The accumulators: `smax` and `umax` hold one element-width word per
 * channel (int32/uint32 for FLOAT32, int16/uint16 for the 16-bit inputs). */
typedef struct sk_range_acc {
    void *smax;
    void *umax;
} sk_range_acc;

/* A magnitude at or above infinity's bits is not finite. */
#define SK_RANGE_INF_F32 0x7F800000u
#define SK_RANGE_INF_BF16 0x7F80u
#define SK_RANGE_INF_F16 0x7C00u
/* Elements per block the vector leaves fold raw and then check: a block
 * whose maxima show a non-finite value is folded again without them. */
#define SK_RANGE_CHECK 512
/* Elements per iteration of the portable fixed-block loops (sse2, periodic). */
#define SK_RANGE_LANES 16

/* ---- the rule, one element ---- */
/* (as an and-mask, which the vectoriser takes where it refuses a select) */
static inline uint32_t sk_range_kept32(uint32_t b) { return b & -(uint32_t)((b & 0x7FFFFFFFu) < SK_RANGE_INF_F32); }
static inline uint16_t sk_range_kept16(uint16_t b, uint16_t inf) {
    return (uint16_t)(b & -(uint16_t)((b & 0x7FFFu) < inf));
}

static inline void sk_range_step32(int32_t *s, uint32_t *u, uint32_t b) {
    const uint32_t k = sk_range_kept32(b);
    if ((int32_t)k > *s) *s = (int32_t)k;
    if (k > *u) *u = k;
}
static inline void sk_range_step16(int16_t *s, uint16_t *u, uint16_t b, uint16_t inf) {
    const uint16_t k = sk_range_kept16(b, inf);
    if ((int16_t)k > *s) *s = (int16_t)k;
    if (k > *u) *u = k;
}

/* n packed elements into channel `at`'s accumulators, one at a time (the
 * scalar route, and every route's tails and vector lanes: the lanes hold
 * kept bits of elements, or 0, so folding them again is exact). */
static inline void sk_range_fold32(const sk_range_acc *acc, size_t at, const uint32_t *in, size_t n) {
    int32_t s = ((int32_t *)acc->smax)[at];
    uint32_t u = ((uint32_t *)acc->umax)[at];
    for (size_t i = 0; i < n; ++i) sk_range_step32(&s, &u, in[i]);
    ((int32_t *)acc->smax)[at] = s;
    ((uint32_t *)acc->umax)[at] = u;
}
static inline void sk_range_fold16(const sk_range_acc *acc, size_t at, const uint16_t *in, size_t n, uint16_t inf) {
    int16_t s = ((int16_t *)acc->smax)[at];
    uint16_t u = ((uint16_t *)acc->umax)[at];
    for (size_t i = 0; i < n; ++i) sk_range_step16(&s, &u, in[i], inf);
    ((int16_t *)acc->smax)[at] = s;
    ((uint16_t *)acc->umax)[at] = u;
}

/* Element j into channel at + j: fixed blocks over restrict-qualified
 * words, the shape GCC's -O2 cost model vectorises for the route that
 * inlines it, then one at a time. */
static inline __attribute__((always_inline)) void sk_range_columns32(int32_t *restrict s, uint32_t *restrict u,
                                                                     const uint32_t *restrict in, size_t n) {
    size_t i = 0;
    for (; i + SK_RANGE_LANES <= n; i += SK_RANGE_LANES)
        for (size_t j = 0; j < SK_RANGE_LANES; ++j) {
            const uint32_t k = sk_range_kept32(in[i + j]);
            s[i + j] = s[i + j] > (int32_t)k ? s[i + j] : (int32_t)k;
            u[i + j] = u[i + j] > k ? u[i + j] : k;
        }
    for (; i < n; ++i) sk_range_step32(s + i, u + i, in[i]);
}
static inline __attribute__((always_inline)) void
sk_range_columns16(int16_t *restrict s, uint16_t *restrict u, const uint16_t *restrict in, size_t n, uint16_t inf) {
    size_t i = 0;
    for (; i + SK_RANGE_LANES <= n; i += SK_RANGE_LANES)
        for (size_t j = 0; j < SK_RANGE_LANES; ++j) {
            const uint16_t k = sk_range_kept16(in[i + j], inf);
            s[i + j] = s[i + j] > (int16_t)k ? s[i + j] : (int16_t)k;
            u[i + j] = u[i + j] > k ? u[i + j] : k;
        }
    for (; i < n; ++i) sk_range_step16(s + i, u + i, in[i], inf);
}
static inline __attribute__((always_inline)) void sk_range_periodic32(const sk_range_acc *acc, size_t at,
                                                                      const uint32_t *in, size_t n) {
    sk_range_columns32((int32_t *)acc->smax + at, (uint32_t *)acc->umax + at, in, n);
}
static inline __attribute__((always_inline)) void sk_range_periodic16(const sk_range_acc *acc, size_t at,
                                                                      const uint16_t *in, size_t n, uint16_t inf) {
    sk_range_columns16((int16_t *)acc->smax + at, (uint16_t *)acc->umax + at, in, n, inf);
}

/* The leaves: sk_fold_fn (kernel.h) with an sk_range_acc as `acc`. */
void sk_range_f32__scalar(void *acc, size_t at, const void *src, size_t n);
void sk_range_b16__scalar(void *acc, size_t at, const void *src, size_t n);
void sk_range_f16__scalar(void *acc, size_t at, const void *src, size_t n);
void sk_range_f32_periodic__scalar(void *acc, size_t at, const void *src, size_t n);
void sk_range_b16_periodic__scalar(void *acc, size_t at, const void *src, size_t n);
void sk_range_f16_periodic__scalar(void *acc, size_t at, const void *src, size_t n);
#if SK_HAVE_SSE2
void sk_range_f32__sse2(void *acc, size_t at, const void *src, size_t n);
void sk_range_b16__sse2(void *acc, size_t at, const void *src, size_t n);
void sk_range_f16__sse2(void *acc, size_t at, const void *src, size_t n);
void sk_range_f32_periodic__sse2(void *acc, size_t at, const void *src, size_t n);
void sk_range_b16_periodic__sse2(void *acc, size_t at, const void *src, size_t n);
void sk_range_f16_periodic__sse2(void *acc, size_t at, const void *src, size_t n);
#endif
#if SK_HAVE_AVX2
void sk_range_f32__avx2(void *acc, size_t at, const void *src, size_t n);
void sk_range_b16__avx2(void *acc, size_t at, const void *src, size_t n);
void sk_range_f16__avx2(void *acc, size_t at, const void *src, size_t n);
void sk_range_f32_periodic__avx2(void *acc, size_t at, const void *src, size_t n);
void sk_range_b16_periodic__avx2(void *acc, size_t at, const void *src, size_t n);
void sk_range_f16_periodic__avx2(void *acc, size_t at, const void *src, size_t n);
#endif
#if SK_HAVE_AVX512
void sk_range_f32__avx512(void *acc, size_t at, const void *src, size_t n);
void sk_range_b16__avx512(void *acc, size_t at, const void *src, size_t n);
void sk_range_f16__avx512(void *acc, size_t at, const void *src, size_t n);
void sk_range_f32_periodic__avx512(void *acc, size_t at, const void *src, size_t n);
void sk_range_b16_periodic__avx512(void *acc, size_t at, const void *src, size_t n);
void sk_range_f16_periodic__avx512(void *acc, size_t at, const void *src, size_t n);
#endif
#if SK_HAVE_NEON
void sk_range_f32__neon(void *acc, size_t at, const void *src, size_t n);
void sk_range_b16__neon(void *acc, size_t at, const void *src, size_t n);
void sk_range_f16__neon(void *acc, size_t at, const void *src, size_t n);
void sk_range_f32_periodic__neon(void *acc, size_t at, const void *src, size_t n);
void sk_range_b16_periodic__neon(void *acc, size_t at, const void *src, size_t n);
void sk_range_f16_periodic__neon(void *acc, size_t at, const void *src, size_t n);
#endif

#endif
