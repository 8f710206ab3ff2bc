/* Internal kernel interface shared by every operation: the span and strided
 * leaf signatures, the per-route kernel pair, and the traversal driver. */
#ifndef SK_COMMON_KERNEL_H
#define SK_COMMON_KERNEL_H
#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include "../include/simakernels.h"
#include "rules.h"
#include "isa.h"
#include "route.h"

/* The largest element of any port, in bytes (scratch buffers are sized by it). */
#define SK_MAX_ELEMENT 4

/* Elements per vector block in the portable and NEON dense leaves. */
#define SK_BLOCK 16
/* Elements per iteration of the AVX2 main loops: four 8-lane vectors, so
 * each iteration writes whole 64-byte lines (one for BF16, two for FP32). */
#define SK_AVX2_BLOCK 32
/* Elements per iteration of the NEON Cast leaves. */
#define SK_CAST_NEON_BLOCK 32

/* The leaf kinds, as function types (a registry line declares its leaf by
 * its kind, SK_LEAF_DECLARE), and their pointers.
 * span: `n` packed elements from src to dst; ctx carries prepared parameters. */
typedef void sk_span_leaf(const void *ctx, const void *src, void *dst, size_t n);
/* strided: `n` elements whose consecutive addresses are the given byte steps apart. */
typedef void sk_strided_leaf(const void *ctx, const char *src, ptrdiff_t src_step, char *dst, ptrdiff_t dst_step,
                             size_t n);
/* every_other: every second element of an input (a[::2], a[:, ::2]) into
 * a packed output: converts a prefix of the `n` elements and returns its
 * length.  It reads no byte outside elements [0, n) and their gaps before
 * element n-1 (never the gap after the last one), so it converts vector
 * blocks while another element follows; the walk stages the rest through
 * `span`. */
typedef size_t sk_every_other_leaf(const void *ctx, const void *src, void *dst, size_t n);
/* tile: a rows x cols block converted and transposed in one pass: the
 * element at src + r*src_pitch + c*in_size becomes the one at dst +
 * c*dst_pitch + r*out_size (the tiler hands it whole tiles in cache
 * instead of staging them through a transpose and the dense leaf). */
typedef void sk_tile_leaf(const void *ctx, const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                          size_t rows, size_t cols);
/* periodic (per-axis plans, channel axis in the inner run): n packed
 * elements whose parameters are the table's positions [at, at + n). */
typedef void sk_periodic_leaf(const void *table, size_t at, const void *src, void *dst, size_t n);
/* runs (per-axis plans): `count` packed runs of n elements, one channel
 * each from `channel` on, with the route's per-tensor arithmetic inlined
 * (a leaf call per short run costs more than the run). */
typedef void sk_runs_leaf(const void *table, size_t channel, const void *src, void *dst, size_t n, size_t count);
/* rows (per-axis plans with the channel axis the inner run, blocked plans
 * with the block axis outside it): `rows` packed runs of n elements,
 * src_pitch and dst_pitch bytes apart, element j of every run taking the
 * table's position at + j, so that a strip's parameters are loaded once
 * for all the rows that share them instead of once per element. */
typedef void sk_rows_leaf(const void *table, size_t at, const char *src, ptrdiff_t src_pitch, char *dst,
                          ptrdiff_t dst_pitch, size_t n, size_t rows);
/* packed (affine quant and dequant, fused): a prefix of n elements to or
 * from a packed sub-byte image (element 0 in the low bits of byte 0), in
 * whole bytes; returns its length (a multiple of 8 elements), 0 when the
 * context does not suit it (dequant: no prepared table; quant: flushing).
 * The engine runs the rest in chunks through its span leaf. */
typedef size_t sk_packed_leaf(const void *ctx, const void *src, void *dst, size_t n);
typedef sk_span_leaf *sk_span_fn;
typedef sk_strided_leaf *sk_strided_fn;
typedef sk_every_other_leaf *sk_every_other_fn;
typedef sk_tile_leaf *sk_tile_fn;
typedef sk_periodic_leaf *sk_periodic_fn;
typedef sk_runs_leaf *sk_runs_fn;
typedef sk_rows_leaf *sk_rows_fn;
typedef sk_packed_leaf *sk_packed_fn;

/* One entry of an operation's kernel table (route x variant), filled from
 * the operation's registry (<op>_kernels.inc): the dense leaf, the
 * element-by-element leaf (the scalar reference only: vector routes stage
 * their non-packed runs through their own moves, stage.h), the
 * every_other, fused tile, periodic, runs and rows leaves (NULL where the route
 * has none), and the elements per vector block of the dense and
 * every_other leaves (1: element at a time). */
typedef struct sk_kernel {
    sk_span_fn span;
    sk_strided_fn strided;
    sk_every_other_fn every_other;
    int32_t block;
    sk_tile_fn tile;
    sk_periodic_fn periodic;
    sk_runs_fn runs;
    sk_packed_fn packed;
    sk_rows_fn rows;
} sk_kernel;

/* ---- Kernel registries ---------------------------------------------------
 * Each operation lists its leaves in one file, <op>_kernels.inc, a line per
 * leaf function:
 *     SK_LEAF(ROUTE, variant, kind, symbol, block)
 * ROUTE names the route whose table holds the leaf (NEON, AVX512, AVX2,
 * SSE2, SCALAR), `variant` is the operation's table index, `kind` one of
 * span, strided, every_other, tile, periodic, runs, rows, packed (or, for a reduction,
 * fold and fold_periodic: sk_reducer's), `symbol` the leaf's
 * full name (a route that runs another's leaf names that leaf here), and
 * `block` its elements per vector block (1: element at a time).  A file
 * includes the registry with SK_LEAF defined as one of these: */
/* the leaf's prototype; */
#define SK_LEAF_DECLARE(route, variant, kind, symbol, block) sk_##kind##_leaf symbol;
/* its place in a `sk_kernel [SK_ROUTE_COUNT][variants]` initialiser; */
#define SK_LEAF_ENTRY(route, variant, kind, symbol, block) \
    [SK_ROUTE_##route][variant].kind = symbol, SK_LEAF_BLOCK_##kind([SK_ROUTE_##route][variant], block)
#define SK_LEAF_BLOCK_span(at, b) at.block = (b),
#define SK_LEAF_BLOCK_strided(at, b)
#define SK_LEAF_BLOCK_every_other(at, b)
#define SK_LEAF_BLOCK_tile(at, b)
#define SK_LEAF_BLOCK_periodic(at, b)
#define SK_LEAF_BLOCK_runs(at, b)
#define SK_LEAF_BLOCK_packed(at, b)
#define SK_LEAF_BLOCK_rows(at, b)
/* and its row of the module's registry (sk_leaf_at), with SK_LEAF_OPERATION
 * defined as the operation's enum sk_operation. */
#define SK_LEAF_INFO(route_, variant_, kind_, symbol_, block_) \
    {.symbol = #symbol_,                                       \
     .operation = SK_LEAF_OPERATION,                           \
     .route = SK_ROUTE_##route_,                               \
     .variant = (variant_),                                    \
     .kind = SK_LEAF_KIND_##kind_,                             \
     .block = (block_)},
#define SK_LEAF_KIND_span SK_LEAF_SPAN
#define SK_LEAF_KIND_strided SK_LEAF_STRIDED
#define SK_LEAF_KIND_every_other SK_LEAF_EVERY_OTHER
#define SK_LEAF_KIND_tile SK_LEAF_TILE
#define SK_LEAF_KIND_periodic SK_LEAF_PERIODIC
#define SK_LEAF_KIND_runs SK_LEAF_RUNS
#define SK_LEAF_KIND_packed SK_LEAF_PACKED
#define SK_LEAF_KIND_rows SK_LEAF_ROWS
#define SK_LEAF_KIND_fold SK_LEAF_FOLD
#define SK_LEAF_KIND_fold_periodic SK_LEAF_FOLD_PERIODIC

/* How a walk's runs go (sk_walk.run_kind). */
enum sk_run_kind {
    SK_RUN_DENSE,         /* packed on both ports: the dense leaf */
    SK_RUN_STRIDED,       /* the route's strided leaf (the scalar reference) */
    SK_RUN_EVERY_OTHER,   /* every second input element: the every_other leaf in place */
    SK_RUN_STAGED,        /* gathered and scattered in chunks by the staging */
    SK_RUN_TILED,         /* a transpose, in tiles (tile.h) */
    SK_RUN_CHANNEL_RUNS,  /* per-axis: short packed runs of consecutive channels, the runs leaf */
    SK_RUN_CHANNEL_DENSE, /* per-axis: packed runs of one channel each */
};

/* Decides how every run of a prepared walk goes on `route` with the table
 * entry `kernel` (a per-axis plan's first channel's): from the
 * operation's prepare, so that execute only runs.  Per-axis plans give the
 * walk its channel axis (sk_walk_prepare). */
void sk_walk_decide(sk_walk *walk, const sk_kernel *kernel, int route);

/* Runs `kernel` over every run of a decided walk. */
void sk_walk_run(const sk_walk *walk, const void *src, void *dst, const sk_kernel *kernel, const void *ctx);

/* The same, with a single packed run handed straight to the leaf (the
 * common case of small calls: no walk set up at all). */
static inline void sk_walk_go(const sk_walk *walk, const void *src, void *dst, const sk_kernel *kernel,
                              const void *ctx) {
    if (walk->dense && walk->outer_rank == 0)
        kernel->span(ctx, src, dst, (size_t)walk->run_length);
    else
        sk_walk_run(walk, src, dst, kernel, ctx);
}

/* Per-axis parameters of a walk (sk_walk_channels).  A channel axis
 * outside the inner run: each run takes its channel's kernel entry and
 * context (ctx_size bytes apart), so every leaf and specialisation of the
 * route serves it.  The channel axis in the inner run: the periodic leaf
 * converts packed elements whose parameters repeat every `period`
 * positions (a multiple of the channel count).  Runs shorter than
 * SK_AXIS_SHORT_RUN (axis.h) packed one after another along the channel
 * axis go to the runs leaf on NEON (the other routes run such channels
 * through their dense leaves, as measured).  Packed runs that share
 * their positions (the channel axis inner, within a period or as a merged
 * run's repeats) go to the rows leaf where the route has one (NEON).
 * Blocked walks (walk->block, sk_walk_prepare_blocked) read the periodic,
 * runs and rows leaves and the table only (every route has the first
 * two): a leaf's channel or position is an entry of the walk-ordered table
 * (walk->param_step), and `period` is the entry count; the rows of a block
 * (the block axis the fastest outer one) share their entries. */
typedef struct sk_channels {
    const sk_kernel *const *kernels; /* per channel; NULL: `kernel` serves every channel */
    const sk_kernel *kernel;
    const char *ctx;
    size_t ctx_size;
    sk_periodic_fn periodic; /* the plan's table entry's, as the runs leaf */
    sk_runs_fn runs;
    sk_rows_fn rows; /* NULL: the periodic leaf row by row */
    const void *table;
    int64_t period;
} sk_channels;

/* Runs a decided per-axis walk (walk->channel, sk_walk_prepare). */
void sk_walk_channels(const sk_walk *walk, const void *src, void *dst, const sk_channels *ch);

/* Read-only reductions (the range pass of choose_qparams) over a walk
 * prepared with the input alone (sk_walk_prepare given the input's strides
 * and size for both ports).  `fold` folds n packed elements into the
 * accumulator at position `at` (the run's channel; 0 per tensor);
 * `periodic` folds element j into position at + j (the channel axis is the
 * inner run).  `acc` is the reducer's own; the walk only passes it on. */
typedef void sk_fold_leaf(void *acc, size_t at, const void *src, size_t n);
typedef sk_fold_leaf sk_fold_periodic_leaf;
typedef sk_fold_leaf *sk_fold_fn;
typedef struct sk_reducer {
    sk_fold_fn fold;
    sk_fold_fn periodic;
} sk_reducer;

/* Runs `reducer` over every element of the walk, per channel when
 * walk->channel >= 0; non-packed runs are gathered in chunks by `route`'s
 * staging.  Reads no byte outside the walk's elements.  A blocked walk
 * (sk_walk_prepare_blocked with the input's strides for both ports) folds
 * at entries of its table order (walk->param_step): `fold` a block
 * axis's segment at its entry, `periodic` a run along which the entries
 * advance by one per element from the run's first entry;
 * sk_walk_params_scatter puts per-entry results in the caller's order. */
void sk_walk_reduce(const sk_walk *walk, const void *src, const sk_reducer *reducer, int route, void *acc);

/* The binding rules (rules.h) for an entry's host pointers: SK_OK or the
 * first fault's status, before anything is read or written. */
static inline int sk_binding_check(const sk_binding *need, const void *src, uint64_t src_len, const void *dst,
                                   uint64_t dst_len) {
    sk_fault fault;
    return sk_binding_rules(need, SK_DOMAIN_HOST, (uintptr_t)src, src_len, (uintptr_t)dst, dst_len, &fault);
}

#endif
