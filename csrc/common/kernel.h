/* Internal kernel interface shared by every operation: the span and strided
 * leaf signatures, the per-route kernel pair, and the traversal driver. */
#ifndef SK_COMMON_KERNEL_H
#define SK_COMMON_KERNEL_H
#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include "../include/simakernels.h"
#include "rules.h"

#if defined(__aarch64__)
#define SK_HAVE_NEON 1
#else
#define SK_HAVE_NEON 0
#endif
#if defined(__x86_64__) /* SSE2 is part of the x86-64 baseline */
#define SK_HAVE_SSE2 1
#else
#define SK_HAVE_SSE2 0
#endif
/* AVX2 code is compiled per function (target pragma) and only run where
 * the CPU reports AVX2, so the wheel keeps the x86-64 baseline. */
#if SK_HAVE_SSE2 && (defined(__GNUC__) || defined(__clang__))
#define SK_HAVE_AVX2 1
#else
#define SK_HAVE_AVX2 0
#endif
/* AVX-512 code likewise (F, BW, VL, DQ and VBMI, checked at run time). */
#define SK_HAVE_AVX512 SK_HAVE_AVX2

/* The largest element of any port, in bytes (scratch buffers are sized by it). */
#define SK_MAX_ELEMENT 4

/* Elements per vector block in the portable and NEON dense leaves. */
#define SK_BLOCK 16
/* Elements per iteration of the AVX2 main loops: four 8-lane vectors, so
 * each iteration writes whole 64-byte lines (one for BF16, two for FP32). */
#define SK_AVX2_BLOCK 32
/* Elements per iteration of the NEON Cast leaves. */
#define SK_CAST_NEON_BLOCK 32

/* `n` packed elements from src to dst; ctx carries prepared parameters. */
typedef void (*sk_span_fn)(const void *ctx, const void *src, void *dst, size_t n);
/* `n` elements whose consecutive addresses are the given byte steps apart. */
typedef void (*sk_strided_fn)(const void *ctx, const char *src, ptrdiff_t src_step, char *dst, ptrdiff_t dst_step,
                              size_t n);

/* Every second element of an input (a[::2], a[:, ::2]) into a packed
 * output: converts a prefix of the `n` elements and returns its length.
 * It reads no byte outside elements [0, n) and their gaps before element
 * n-1 (never the gap after the last one), so it converts vector blocks
 * while another element follows; the walk stages the rest through `span`. */
typedef size_t (*sk_every_other_fn)(const void *ctx, const void *src, void *dst, size_t n);

/* A rows x cols block converted and transposed in one pass: the element
 * at src + r*src_pitch + c*in_size becomes the one at dst + c*dst_pitch +
 * r*out_size (a fused tile leaf: the tiler hands it whole tiles in cache
 * instead of staging them through a transpose and the dense leaf). */
typedef void (*sk_tile_fn)(const void *ctx, const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                           size_t rows, size_t cols);

/* One entry of an operation's kernel table (route x variant): the dense
 * leaf, the element-by-element leaf (the scalar reference only), the
 * every_other leaf (NULL where the route has none), the elements per
 * vector block of the dense and every_other leaves (1: element at a time),
 * which sk_kernel_block reports so that tests can aim at block edges, and
 * the fused tile leaf (NULL where the route has none).  Vector routes
 * leave `strided` NULL: the walk stages their non-packed runs through the
 * route's own moves (stage.h). */
typedef struct sk_kernel {
    sk_span_fn span;
    sk_strided_fn strided;
    sk_every_other_fn every_other;
    int32_t block;
    sk_tile_fn tile;
} sk_kernel;

/* Runs `kernel` over every run of the walk, staging with `route`'s moves. */
void sk_walk_run(const sk_walk *walk, const void *src, void *dst, const sk_kernel *kernel, int route, const void *ctx);

/* The same, with a single packed run handed straight to the leaf (the
 * common case of small calls: no walk set up at all). */
static inline void sk_walk_go(const sk_walk *walk, const void *src, void *dst, const sk_kernel *kernel, int route,
                              const void *ctx) {
    if (walk->dense && walk->outer_rank == 0)
        kernel->span(ctx, src, dst, (size_t)walk->run_length);
    else
        sk_walk_run(walk, src, dst, kernel, route, ctx);
}

/* Per-axis parameters of a walk (sk_walk_channels).  A channel axis
 * outside the inner run: each run takes its channel's kernel entry and
 * context (ctx_size bytes apart), so every leaf and specialisation of the
 * route serves it.  The channel axis in the inner run: the
 * parameter-vector leaf `periodic` converts n packed elements whose
 * parameters are the table's positions [at, at + n), within `period`, a
 * multiple of the channel count at which the table repeats. */
typedef void (*sk_periodic_fn)(const void *table, size_t at, const void *src, void *dst, size_t n);
/* Runs shorter than SK_AXIS_SHORT_RUN (axis.h) packed one after another
 * along the channel axis: the `runs` leaf converts `count` runs of n
 * elements of channels from `channel` on with the same table, each through
 * the route's per-tensor arithmetic inlined (a leaf call per run costs
 * more than a short run).  NULL where the route has none. */
typedef void (*sk_runs_fn)(const void *table, size_t channel, const void *src, void *dst, size_t n, size_t count);
typedef struct sk_channels {
    const sk_kernel *const *kernels; /* per channel; NULL: `kernel` serves every channel */
    const sk_kernel *kernel;
    const char *ctx;
    size_t ctx_size;
    sk_periodic_fn periodic;
    sk_runs_fn runs;
    const void *table;
    int64_t period;
} sk_channels;

/* Runs a per-axis walk (walk->channel, sk_walk_prepare) with `route`'s
 * moves. */
void sk_walk_channels(const sk_walk *walk, const void *src, void *dst, const sk_channels *ch, int route);

/* Read-only reductions (the range pass of choose_qparams) over a walk
 * prepared with the input alone (sk_walk_prepare given the input's strides
 * and size for both ports).  `fold` folds n packed elements into the
 * accumulator at position `at` (the run's channel; 0 per tensor);
 * `periodic` folds element j into position at + j (the channel axis is the
 * inner run).  `acc` is the reducer's own; the walk only passes it on. */
typedef void (*sk_fold_fn)(void *acc, size_t at, const void *src, size_t n);
typedef struct sk_reducer {
    sk_fold_fn fold;
    sk_fold_fn periodic;
} sk_reducer;

/* Runs `reducer` over every element of the walk, per channel when
 * walk->channel >= 0; non-packed runs are gathered in chunks by `route`'s
 * staging.  Reads no byte outside the walk's elements. */
void sk_walk_reduce(const sk_walk *walk, const void *src, const sk_reducer *reducer, int route, void *acc);

/* The binding rules (rules.h) for an entry's host pointers: SK_OK or the
 * first fault's status, before anything is read or written. */
static inline int sk_binding_check(const sk_binding *need, const void *src, uint64_t src_len, const void *dst,
                                   uint64_t dst_len) {
    sk_fault fault;
    return sk_binding_rules(need, SK_DOMAIN_HOST, (uintptr_t)src, src_len, (uintptr_t)dst, dst_len, &fault);
}

/* Whether a route is compiled and this CPU runs it: asked once per route
 * (sk_route_ask), then read from sk_route_state (1 yes, 2 no). */
extern _Atomic int sk_route_state[SK_ROUTE_COUNT];
int sk_route_ask(int route);
static inline int sk_route_usable(int route) {
    if ((unsigned)route >= SK_ROUTE_COUNT) return 0;
    const int v = atomic_load_explicit(&sk_route_state[route], memory_order_relaxed);
    return v ? v == 1 : sk_route_ask(route);
}

#endif
