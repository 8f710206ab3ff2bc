/* When outputs bypass the cache: a run whose input and output together
 * reach the last-level cache gains nothing from a cached output (the
 * input streams through the same cache and evicts it before anyone reads
 * it) and costs a read-for-ownership per output line; non-temporal stores
 * skip both.  Smaller runs keep their output cached for whatever consumes
 * it next (both ports count: docs/PERF.md).  sk_stream_min_bytes()
 * (public header) gives the threshold: the size of the last-level cache
 * this CPU reports (at least 16 MiB), unless a test overrode it. */
#ifndef SK_COMMON_STREAM_H
#define SK_COMMON_STREAM_H
#include <stdatomic.h>
#include "../include/simakernels.h"

/* The threshold in effect (the override, else the computed size), 0 until
 * first computed: leaves read it inline, since a call per leaf shows in
 * small tiles. */
extern _Atomic size_t sk_stream_bytes_in_effect;

static inline size_t sk_stream_threshold(void) {
    const size_t v = atomic_load_explicit(&sk_stream_bytes_in_effect, memory_order_relaxed);
    return v ? v : sk_stream_min_bytes();
}

/* The elements whose traffic decides for a run of n: a per-axis plan's
 * runs are slices of one output, so its contexts carry the whole walk's
 * count (`walk_elements`; 0 elsewhere: the run's own). */
static inline size_t sk_stream_count(size_t walk_elements, size_t n) { return walk_elements > n ? walk_elements : n; }

/* Whether a run of n elements streams its output: `in` bytes read and
 * `out` bytes written per element (an every-other-element input reads
 * twice its elements' bytes). */
static inline int sk_stream_run(size_t n, size_t in, size_t out) { return n * (in + out) >= sk_stream_threshold(); }
#endif
