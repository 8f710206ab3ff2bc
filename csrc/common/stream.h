/* When dense leaves bypass the cache: outputs far beyond the last-level
 * cache gain nothing from being cached (they are evicted before anyone reads
 * them) and cost a read-for-ownership per line; non-temporal stores skip
 * both.  Smaller outputs stay cached for whatever consumes them next.
 * sk_stream_min_bytes() (public header) gives the threshold: the size of
 * the last-level cache this CPU reports (at least 16 MiB), unless a test
 * overrode it. */
#ifndef SK_COMMON_STREAM_H
#define SK_COMMON_STREAM_H
#include <stdatomic.h>
#include "../include/simakernels.h"

/* The threshold in effect (the override, else the computed size), 0 until
 * first computed: leaves read it inline, without a call through the
 * exported function (at 64-element leaf calls inside transposed tiles that
 * call measured 6% of the time). */
extern _Atomic size_t sk_stream_bytes_in_effect;

static inline size_t sk_stream_threshold(void) {
    const size_t v = atomic_load_explicit(&sk_stream_bytes_in_effect, memory_order_relaxed);
    return v ? v : sk_stream_min_bytes();
}
#endif
