/* The range rule at one word width, SK_RANGE_W bits: range.h includes this
 * once per width (32 and 16), which names each function with its width
 * (sk_range_kept32, sk_range_kept16, ...).  A magnitude (the bits without
 * the sign) at or above `inf` is not finite; its element is kept as 0. */
#define SK_RANGE_PASTE_(a, w, b) a##w##b
#define SK_RANGE_PASTE(a, w, b) SK_RANGE_PASTE_(a, w, b)
#define SK_RANGE_WORD SK_RANGE_PASTE(uint, SK_RANGE_W, _t)
#define SK_RANGE_SWORD SK_RANGE_PASTE(int, SK_RANGE_W, _t)
#define SK_RANGE_NAME(f) SK_RANGE_PASTE(f, SK_RANGE_W, )

/* (as an and-mask, which the vectoriser takes where it refuses a select) */
static inline SK_RANGE_WORD SK_RANGE_NAME(sk_range_kept)(SK_RANGE_WORD b, SK_RANGE_WORD inf) {
    const SK_RANGE_WORD magnitude = (SK_RANGE_WORD)((SK_RANGE_WORD)-1 >> 1);
    return (SK_RANGE_WORD)(b & -(SK_RANGE_WORD)((SK_RANGE_WORD)(b & magnitude) < inf));
}

static inline void SK_RANGE_NAME(sk_range_step)(SK_RANGE_SWORD *s, SK_RANGE_WORD *u, SK_RANGE_WORD b,
                                                SK_RANGE_WORD inf) {
    const SK_RANGE_WORD k = SK_RANGE_NAME(sk_range_kept)(b, inf);
    if ((SK_RANGE_SWORD)k > *s) *s = (SK_RANGE_SWORD)k;
    if (k > *u) *u = k;
}

/* n packed words into channel `at`'s accumulators, one at a time. */
static inline void SK_RANGE_NAME(sk_range_fold)(const sk_range_acc *acc, size_t at, const SK_RANGE_WORD *in, size_t n) {
    const SK_RANGE_WORD inf = (SK_RANGE_WORD)sk_range_inf(acc, SK_RANGE_W);
    SK_RANGE_SWORD s = ((SK_RANGE_SWORD *)acc->smax)[at];
    SK_RANGE_WORD u = ((SK_RANGE_WORD *)acc->umax)[at];
    for (size_t i = 0; i < n; ++i) SK_RANGE_NAME(sk_range_step)(&s, &u, in[i], inf);
    ((SK_RANGE_SWORD *)acc->smax)[at] = s;
    ((SK_RANGE_WORD *)acc->umax)[at] = u;
}

/* Word j into channel at + j: with lanes > 1, fixed blocks of `lanes` words
 * over restrict-qualified pointers, the shape GCC's -O2 cost model
 * vectorises for the route that inlines it; then one at a time. */
static inline __attribute__((always_inline)) void
SK_RANGE_NAME(sk_range_columns)(SK_RANGE_SWORD *restrict s, SK_RANGE_WORD *restrict u, const SK_RANGE_WORD *restrict in,
                                size_t n, SK_RANGE_WORD inf, size_t lanes) {
    size_t i = 0;
    if (lanes > 1)
        for (; i + lanes <= n; i += lanes)
            for (size_t j = 0; j < lanes; ++j) {
                const SK_RANGE_WORD k = SK_RANGE_NAME(sk_range_kept)(in[i + j], inf);
                s[i + j] = s[i + j] > (SK_RANGE_SWORD)k ? s[i + j] : (SK_RANGE_SWORD)k;
                u[i + j] = u[i + j] > k ? u[i + j] : k;
            }
    for (; i < n; ++i) SK_RANGE_NAME(sk_range_step)(s + i, u + i, in[i], inf);
}
static inline __attribute__((always_inline)) void SK_RANGE_NAME(sk_range_periodic)(const sk_range_acc *acc, size_t at,
                                                                                   const SK_RANGE_WORD *in, size_t n,
                                                                                   SK_RANGE_WORD inf, size_t lanes) {
    SK_RANGE_NAME(sk_range_columns)
    ((SK_RANGE_SWORD *)acc->smax + at, (SK_RANGE_WORD *)acc->umax + at, in, n, inf, lanes);
}

#undef SK_RANGE_NAME
#undef SK_RANGE_SWORD
#undef SK_RANGE_WORD
#undef SK_RANGE_PASTE
#undef SK_RANGE_PASTE_
