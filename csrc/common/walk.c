/* Shared strided traversal, the carry walk: prepare once (drop singleton
 * axes, pick the axis order that gives the longest joint inner run,
 * coalesce axes whose strides chain on both ports), then walk the outer
 * axes by carry so that no element costs a division.  Transposes go to the
 * tiler (tile.c). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"
#include "stage.h"
#include "stream.h"
#include "tile.h"
#include "tuning.h"
#include "axis.h"

typedef struct axes {
    int n;
    int channel; /* the position of the channel axis (-1: none) */
    int block;   /* blocked walks: the position of the block axis (-1: none) */
    int blocked; /* param must chain for a merge */
    int64_t extent[SK_MAX_RANK];
    int64_t in_stride[SK_MAX_RANK];
    int64_t out_stride[SK_MAX_RANK];
    int64_t param[SK_MAX_RANK]; /* blocked walks: the step in the caller's parameter array */
} axes;

/* Orders considered for the inner run. */
enum { ORDER_LOGICAL, ORDER_BY_INPUT, ORDER_BY_OUTPUT, ORDER_COUNT };

/* Stable insertion sort of axis positions, slowest (largest stride) first,
 * so that the last axis is the fastest on the chosen port. */
static void sort_by_stride(axes *a, const int64_t *key_primary, const int64_t *key_secondary) {
    int order[SK_MAX_RANK];
    for (int i = 0; i < a->n; ++i) order[i] = i;
    for (int i = 1; i < a->n; ++i) {
        int v = order[i];
        int j = i - 1;
        while (j >= 0 && (key_primary[order[j]] < key_primary[v] ||
                          (key_primary[order[j]] == key_primary[v] && key_secondary[order[j]] < key_secondary[v]))) {
            order[j + 1] = order[j];
            --j;
        }
        order[j + 1] = v;
    }
    axes sorted = {.n = a->n, .channel = -1, .block = -1, .blocked = a->blocked};
    for (int i = 0; i < a->n; ++i) {
        if (order[i] == a->channel) sorted.channel = i;
        if (order[i] == a->block) sorted.block = i;
        sorted.extent[i] = a->extent[order[i]];
        sorted.in_stride[i] = a->in_stride[order[i]];
        sorted.out_stride[i] = a->out_stride[order[i]];
        sorted.param[i] = a->param[order[i]];
    }
    *a = sorted;
}

/* Merges axis i-1 into axis i when both ports step over axis i exactly once
 * per step of axis i-1.  Extents and strides stay within the admitted spans,
 * so the products cannot overflow.  The channel axis is never merged into a
 * faster one (its channel would then change inside a step of the merged
 * axis); slower axes merge into it, and its channel is the merged index
 * modulo the channel count.  In a blocked walk the block axis merges with
 * nothing (an index's block is then one division per run), and other axes
 * merge only if their parameter steps chain as well (a run's entries then
 * advance by one step per index). */
static void coalesce(axes *a) {
    if (a->n == 0) return;
    axes merged = {.n = 1, .channel = -1, .block = -1, .blocked = a->blocked};
    int last = SK_MAX_RANK - 1; /* build from the fastest axis backwards */
    merged.extent[last] = a->extent[a->n - 1];
    merged.in_stride[last] = a->in_stride[a->n - 1];
    merged.out_stride[last] = a->out_stride[a->n - 1];
    merged.param[last] = a->param[a->n - 1];
    if (a->channel == a->n - 1) merged.channel = last;
    if (a->block == a->n - 1) merged.block = last;
    for (int i = a->n - 2; i >= 0; --i) {
        int64_t e = merged.extent[last];
        const int params_chain =
            !a->blocked || (i != a->block && merged.block != last && a->param[i] == merged.param[last] * e);
        if (i != a->channel && params_chain && a->in_stride[i] == merged.in_stride[last] * e &&
            a->out_stride[i] == merged.out_stride[last] * e) {
            merged.extent[last] = e * a->extent[i];
        } else {
            --last;
            ++merged.n;
            merged.extent[last] = a->extent[i];
            merged.in_stride[last] = a->in_stride[i];
            merged.out_stride[last] = a->out_stride[i];
            merged.param[last] = a->param[i];
            if (i == a->channel) merged.channel = last;
            if (i == a->block) merged.block = last;
        }
    }
    axes out = {.n = merged.n,
                .channel = merged.channel < 0 ? -1 : merged.channel - last,
                .block = merged.block < 0 ? -1 : merged.block - last,
                .blocked = a->blocked};
    memcpy(out.extent, merged.extent + last, sizeof(int64_t) * (size_t)merged.n);
    memcpy(out.in_stride, merged.in_stride + last, sizeof(int64_t) * (size_t)merged.n);
    memcpy(out.out_stride, merged.out_stride + last, sizeof(int64_t) * (size_t)merged.n);
    memcpy(out.param, merged.param + last, sizeof(int64_t) * (size_t)merged.n);
    *a = out;
}

/* The walk from the logical axes (singletons dropped): the axis order,
 * the coalescing, and the fields every walk has. */
static void build(axes logical, int64_t in_size, int64_t out_size, sk_walk *walk, axes *chosen) {
    /* Reorder only when another order gives a strictly longer inner run;
     * between equal runs, prefer one that is packed on both ports. */
    axes best = logical;
    coalesce(&best);
    for (int order = ORDER_BY_INPUT; order < ORDER_COUNT; ++order) {
        axes candidate = logical;
        if (order == ORDER_BY_INPUT)
            sort_by_stride(&candidate, candidate.in_stride, candidate.out_stride);
        else
            sort_by_stride(&candidate, candidate.out_stride, candidate.in_stride);
        coalesce(&candidate);
        int64_t run_c = candidate.n ? candidate.extent[candidate.n - 1] : 1;
        int64_t run_b = best.n ? best.extent[best.n - 1] : 1;
        int packed_c = candidate.n == 0 || (candidate.in_stride[candidate.n - 1] == in_size &&
                                            candidate.out_stride[candidate.n - 1] == out_size);
        int packed_b =
            best.n == 0 || (best.in_stride[best.n - 1] == in_size && best.out_stride[best.n - 1] == out_size);
        if (run_c > run_b || (run_c == run_b && packed_c && !packed_b)) best = candidate;
    }

    memset(walk, 0, sizeof *walk);
    if (best.n == 0) { /* a single element */
        walk->run_length = 1;
        walk->in_step = in_size;
        walk->out_step = out_size;
    } else {
        int inner = best.n - 1;
        walk->run_length = best.extent[inner];
        walk->in_step = best.in_stride[inner];
        walk->out_step = best.out_stride[inner];
    }
    walk->dense = walk->in_step == in_size && walk->out_step == out_size;
    walk->in_size = (int32_t)in_size;
    walk->out_size = (int32_t)out_size;
    walk->runs = 1;
    walk->outer_rank = best.n > 0 ? best.n - 1 : 0;
    walk->channel = walk->block_at = -1;
    for (int a = 0; a < walk->outer_rank; ++a) {
        int src = best.n - 2 - a; /* fastest outer axis first */
        walk->extent[a] = best.extent[src];
        walk->in_stride[a] = best.in_stride[src];
        walk->out_stride[a] = best.out_stride[src];
        walk->runs *= best.extent[src];
    }
    *chosen = best;
}

/* A position of the chosen axes as the walk numbers its axes: the inner
 * run is outer_rank, outer axes fastest first. */
static int32_t walk_axis_of(const axes *best, int position) {
    if (position < 0) return -1;
    return position == best->n - 1 ? best->n - 1 : best->n - 2 - position;
}

static int check_arguments(int rank, int64_t in_size, int64_t out_size) {
    return rank >= 0 && rank <= SK_MAX_RANK && in_size > 0 && in_size <= SK_MAX_ELEMENT && out_size > 0 &&
           out_size <= SK_MAX_ELEMENT;
}

int sk_walk_prepare(int rank, const int64_t *extent, const int64_t *in_stride, const int64_t *out_stride,
                    int64_t in_size, int64_t out_size, int channel_axis, sk_walk *walk) {
    if (!check_arguments(rank, in_size, out_size) || channel_axis < -1 || channel_axis >= rank) return SK_INVALID_SHAPE;
    axes logical = {.n = 0, .channel = -1, .block = -1};
    for (int i = 0; i < rank; ++i) {
        if (extent[i] <= 0) return SK_INVALID_SHAPE; /* empty tensors never walk */
        if (extent[i] == 1) continue;                /* singleton axes are inert (one channel too) */
        if (i == channel_axis) logical.channel = logical.n;
        logical.extent[logical.n] = extent[i];
        logical.in_stride[logical.n] = in_stride[i];
        logical.out_stride[logical.n] = out_stride[i];
        ++logical.n;
    }
    axes best;
    build(logical, in_size, out_size, walk, &best);
    walk->channel = walk_axis_of(&best, best.channel);
    walk->channels = best.channel < 0 ? 1 : extent[channel_axis];
    return SK_OK;
}

/* Entries along a blocked walk's axis (outer_rank: the inner run). */
static int64_t param_extent(const sk_walk *w, int a) {
    const int64_t e = a == w->outer_rank ? w->run_length : w->extent[a];
    return a == w->block_at ? (e + w->block - 1) / w->block : e;
}

int sk_walk_prepare_blocked(int rank, const int64_t *extent, const int64_t *in_stride, const int64_t *out_stride,
                            int64_t in_size, int64_t out_size, int axis, int64_t block, sk_walk *walk) {
    if (!check_arguments(rank, in_size, out_size) || axis < 0 || axis >= rank || block < 1) return SK_INVALID_SHAPE;
    /* The caller's parameter steps: C order of the parameter shape. */
    int64_t param[SK_MAX_RANK], count = 1;
    for (int i = rank - 1; i >= 0; --i) {
        if (extent[i] <= 0) return SK_INVALID_SHAPE;
        param[i] = count;
        count *= i == axis ? (extent[i] + block - 1) / block : extent[i];
    }
    axes logical = {.n = 0, .channel = -1, .block = -1, .blocked = 1};
    for (int i = 0; i < rank; ++i) {
        if (extent[i] == 1) continue; /* singleton axes are inert (one entry along them) */
        if (i == axis) logical.block = logical.n;
        logical.extent[logical.n] = extent[i];
        logical.in_stride[logical.n] = in_stride[i];
        logical.out_stride[logical.n] = out_stride[i];
        logical.param[logical.n] = param[i];
        ++logical.n;
    }
    axes best;
    build(logical, in_size, out_size, walk, &best);
    walk->block = block;
    walk->block_at = walk_axis_of(&best, best.block);
    walk->channels = count;
    const int inner = walk->outer_rank;
    walk->param_source[inner] = best.n > 0 ? best.param[best.n - 1] : 1;
    for (int a = 0; a < inner; ++a) walk->param_source[a] = best.param[best.n - 2 - a];
    int64_t step = 1; /* the table: the inner run fastest, then the outer axes fastest first */
    walk->param_step[inner] = 1;
    step = param_extent(walk, inner);
    for (int a = 0; a < inner; ++a) {
        walk->param_step[a] = step;
        step *= param_extent(walk, a);
    }
    return SK_OK;
}

/* Copies records between the caller's order and the walk's table order:
 * the table's entries in order, the caller's offset carried along; one
 * copy where the orders agree (an (N, K) tensor blocked along K, packed). */
static inline __attribute__((always_inline)) void params_copy(const sk_walk *w, const char *from, char *to, size_t size,
                                                              int gather) {
    const int inner = w->outer_rank;
    const int64_t run = param_extent(w, inner);
    int64_t index[SK_MAX_RANK] = {0}, caller = 0;
    const int64_t total = w->channels;
    int same = 1;
    for (int a = 0; a <= inner; ++a) same &= w->param_source[a] == w->param_step[a];
    if (same) {
        memcpy(to, from, (size_t)total * size);
        return;
    }
    for (int64_t at = 0; at < total; at += run) {
        for (int64_t j = 0; j < run; ++j) {
            const int64_t c = caller + j * w->param_source[inner];
            if (gather)
                memcpy(to + (size_t)(at + j) * size, from + (size_t)c * size, size);
            else
                memcpy(to + (size_t)c * size, from + (size_t)(at + j) * size, size);
        }
        for (int a = 0; a < inner; ++a) {
            if (++index[a] < param_extent(w, a)) {
                caller += w->param_source[a];
                break;
            }
            caller -= w->param_source[a] * (index[a] - 1);
            index[a] = 0;
        }
    }
}

/* (The records the operations copy, 4 bytes, with a constant size: a
 * copy per record is then a move, not a call.) */
void sk_walk_params_gather(const sk_walk *walk, const void *caller, void *ordered, size_t size) {
    if (size == 4)
        params_copy(walk, caller, ordered, 4, 1);
    else
        params_copy(walk, caller, ordered, size, 1);
}

void sk_walk_params_scatter(const sk_walk *walk, const void *ordered, void *caller, size_t size) {
    if (size == 4)
        params_copy(walk, ordered, caller, 4, 0);
    else
        params_copy(walk, ordered, caller, size, 0);
}

/* ---- Running a walk ----------------------------------------------------
 * Packed runs go straight to the dense leaf.  A route with a strided leaf
 * of its own (the scalar reference) gets every other run element by
 * element.  Otherwise non-packed runs are staged by the route's own moves
 * (stage.h): gathered into a packed scratch chunk, converted by the dense
 * leaf, scattered back; runs of every second input element go to the
 * route's every_other leaf, which reads them in place; and when the inner
 * run is packed on one port only while the fastest outer axis is packed on
 * the other (a transpose), the tiler (tile.c) walks the two axes in tiles.
 * The scratch is small and fixed: at most 32 KiB on the stack, and for
 * walks beyond the cache the thread's ordered space (below).  No
 * tensor-sized temporary, and no byte outside the walk's elements is read
 * or written.  How each run goes is decided when the plan is prepared
 * (sk_walk_decide). */

/* An inner run (or its last `left` elements), staged in chunks. */
static void staged_run(const sk_walk *w, const char *src, char *dst, size_t left, sk_span_fn span, const void *ctx,
                       const sk_stage *stage) {
    _Alignas(64) char in_buf[SK_STAGE_CHUNK * SK_MAX_ELEMENT];
    _Alignas(64) char out_buf[SK_STAGE_CHUNK * SK_MAX_ELEMENT];
    const size_t in_size = (size_t)w->in_size, out_size = (size_t)w->out_size;
    const int in_packed = w->in_step == w->in_size, out_packed = w->out_step == w->out_size;
    for (;;) {
        const size_t k = left < SK_STAGE_CHUNK ? left : SK_STAGE_CHUNK;
        const char *in = src;
        if (!in_packed) {
            sk_stage_count(stage, SK_MOVE_GATHER);
            stage->gather(src, (ptrdiff_t)w->in_step, in_buf, k, in_size);
            in = in_buf;
        }
        span(ctx, in, out_packed ? dst : out_buf, k);
        if (!out_packed) {
            sk_stage_count(stage, SK_MOVE_SCATTER);
            stage->scatter(out_buf, dst, (ptrdiff_t)w->out_step, k, out_size);
        }
        left -= k;
        if (left == 0) break;
        src += w->in_step * (int64_t)k;
        dst += w->out_step * (int64_t)k;
    }
}

/* An inner run of every second input element into a packed output: the
 * route's every_other leaf reads it in place (no staging pass), and the
 * few elements it leaves are staged. */
static void every_other_run(const sk_walk *w, const char *src, char *dst, const sk_kernel *kernel, const void *ctx,
                            const sk_stage *stage) {
    const size_t n = (size_t)w->run_length;
    sk_stage_count(stage, SK_MOVE_EVERY_OTHER);
    const size_t done = kernel->every_other(ctx, src, dst, n);
    if (done < n)
        staged_run(w, src + w->in_step * (int64_t)done, dst + w->out_step * (int64_t)done, n - done, kernel->span, ctx,
                   stage);
}

static int every_other_of(const sk_walk *w) {
    return w->in_step == 2 * (int64_t)w->in_size && w->out_step == w->out_size;
}

/* Steps the outer axes from `first` by one run: the fastest steps; on
 * wrap it rewinds (by (extent-1)*stride, which lies inside the admitted
 * span) and carries into the next. */
static inline __attribute__((always_inline)) void carry(const sk_walk *walk, int64_t *index, int first,
                                                        const char **src, char **dst) {
    for (int a = first; a < walk->outer_rank; ++a) {
        if (++index[a] < walk->extent[a]) {
            *src += walk->in_stride[a];
            *dst += walk->out_stride[a];
            return;
        }
        index[a] = 0;
        *src -= walk->in_stride[a] * (walk->extent[a] - 1);
        *dst -= walk->out_stride[a] * (walk->extent[a] - 1);
    }
}

/* Channel axis inner: the parameter-vector leaf as a span whose context is
 * the run's position in the parameter table (reset at each run), split
 * where the table repeats. */
typedef struct periodic_position {
    const sk_channels *ch;
    size_t at;
    size_t in_size, out_size; /* the walk's */
} periodic_position;

static void periodic_span(const void *position, const void *src, void *dst, size_t n) {
    periodic_position *p = (periodic_position *)position; /* the walk's own local */
    const sk_channels *ch = p->ch;
    const size_t period = (size_t)ch->period;
    const size_t in_size = p->in_size, out_size = p->out_size;
    const char *in = src;
    char *out = dst;
    while (n > 0) {
        const size_t k = n < period - p->at ? n : period - p->at;
        ch->periodic(ch->table, p->at, in, out, k);
        in += k * in_size;
        out += k * out_size;
        n -= k;
        p->at = p->at + k == period ? 0 : p->at + k;
    }
}

/* Per-axis walks: a channel axis outside the inner run keeps one channel
 * per run, whose kernel entry and context each run takes; the inner run's
 * channels go through the periodic leaf. */
static int channel_per_run(const sk_walk *w) { return w->channel >= 0 && w->channel < w->outer_rank; }
static int channel_inner(const sk_walk *w) { return w->channel >= 0 && w->channel == w->outer_rank; }
/* Whether slower axes merged into the channel axis (its index then wraps). */
static int channel_wraps(const sk_walk *w) { return channel_per_run(w) && w->extent[w->channel] != w->channels; }

void sk_walk_decide(sk_walk *walk, const sk_kernel *kernel, int route) {
    const int per_run = channel_per_run(walk), inner = channel_inner(walk);
    const int wraps = channel_wraps(walk);
    walk->staging = route;
    walk->ordered = walk->stream = 0;
    walk->tiles = (sk_tile_axes){0, 0, 0, 0};
    const size_t n = (size_t)walk->run_length;
    if (walk->block) { /* parameters change along every axis: no tiles; staged where not packed */
        walk->run_kind = walk->dense ? SK_RUN_DENSE : SK_RUN_STAGED;
        walk->decided = 1;
        return;
    }
    /* Short runs of consecutive channels, packed: one runs-leaf call for
     * every channel, per step of the next axis.  (On x86 the dense leaves
     * per channel serve them: the runs leaves there exist for blocked
     * plans, and per-axis short runs were measured on the dense leaves.) */
    if (per_run && walk->dense && !wraps && kernel->runs && route == SK_ROUTE_NEON && walk->channel == 0 &&
        n < SK_AXIS_SHORT_RUN && walk->in_stride[0] == (int64_t)n * walk->in_size &&
        walk->out_stride[0] == (int64_t)n * walk->out_size) {
        walk->run_kind = SK_RUN_CHANNEL_RUNS;
    } else if (per_run && walk->dense && !wraps) {
        walk->run_kind = SK_RUN_CHANNEL_DENSE; /* packed runs, one channel each */
    } else if (walk->dense) {
        walk->run_kind = SK_RUN_DENSE;
    } else if (inner) { /* the periodic leaf as a span: staged where not packed */
        walk->run_kind = SK_RUN_STAGED;
    } else if (kernel->strided) {
        walk->run_kind = SK_RUN_STRIDED;
    } else if ((walk->channel < 0 || walk->channel >= 1) && sk_tile_axes_of(walk, &walk->tiles)) {
        /* (a tile spans the inner run and the fastest outer axis: one
         * channel only when neither holds the channel axis) */
        walk->run_kind = SK_RUN_TILED;
    } else if (kernel->every_other && every_other_of(walk)) {
        walk->run_kind = SK_RUN_EVERY_OTHER;
    } else {
        walk->run_kind = SK_RUN_STAGED;
    }
    if (walk->run_kind == SK_RUN_TILED) {
        /* Walks beyond the cache (and any the streaming override calls so:
         * the tests' way to reach the ordered planes) take ordered tiles;
         * their lines stream where the staging can. */
        const size_t elements = (size_t)walk->runs * n;
        const int beyond = sk_stream_run(elements, (size_t)walk->in_size, (size_t)walk->out_size);
        walk->stream = sk_routes[walk->staging].staging->streams && beyond;
        walk->ordered = beyond || elements * (size_t)(walk->in_size + walk->out_size) > SK_TILE_BIG;
    }
    walk->decided = 1;
}

/* The ordered planes' space, SK_ORDERED_SPACE bytes (on the stack, that
 * much overflowed small thread stacks): taken from a few kept buffers and
 * given back after the walk, so that only the first large transposes of
 * the process (as many as run at once) allocate.  NULL if the allocation
 * fails: those planes are then walked in cache tiles (the same bytes, more
 * slowly). */
enum { ORDERED_KEPT = 8 };
static _Atomic(char *) ordered_kept[ORDERED_KEPT];

static char *ordered_take(void) {
    for (int i = 0; i < ORDERED_KEPT; ++i) {
        char *space = atomic_exchange_explicit(&ordered_kept[i], NULL, memory_order_acquire);
        if (space) return space;
    }
    return aligned_alloc(64, SK_ORDERED_SPACE);
}

static void ordered_give_back(char *space) {
    if (!space) return;
    for (int i = 0; i < ORDERED_KEPT; ++i) {
        char *empty = NULL;
        if (atomic_compare_exchange_strong_explicit(&ordered_kept[i], &empty, space, memory_order_release,
                                                    memory_order_relaxed))
            return;
    }
    free(space);
}

/* Inlined into both entries, so that the per-tensor walk (ch NULL) carries
 * none of the per-axis work. */
static inline __attribute__((always_inline)) void walk_runs(const sk_walk *walk, const char *src, char *dst,
                                                            const sk_kernel *kernel, const void *ctx,
                                                            const sk_channels *ch) {
    const sk_stage *stage = sk_routes[walk->staging].staging;
    const int per_run = ch && channel_per_run(walk), inner = ch && channel_inner(walk);
    const int wraps = ch && channel_wraps(walk);
    const int kind = walk->run_kind;
    periodic_position position = {ch, 0, (size_t)walk->in_size, (size_t)walk->out_size};
    const sk_kernel periodic = {.span = periodic_span, .block = 1};
    if (inner) {
        kernel = &periodic;
        ctx = &position;
    } else if (per_run) {
        kernel = ch->kernels ? ch->kernels[0] : ch->kernel;
    }
    /* A tiled step covers the fastest outer axis too: carry from the next. */
    const int first = kind == SK_RUN_TILED ? 1 : 0;
    const int64_t steps = kind == SK_RUN_TILED ? walk->runs / walk->extent[0] : walk->runs;
    const size_t n = (size_t)walk->run_length;
    char *space = kind == SK_RUN_TILED && walk->ordered ? ordered_take() : NULL;
    int64_t index[SK_MAX_RANK] = {0};
    if (kind == SK_RUN_CHANNEL_RUNS) {
        const size_t channels = (size_t)walk->extent[0];
        for (int64_t r = 0; r < walk->runs / walk->extent[0]; ++r) {
            ch->runs(ch->table, 0, src, dst, n, channels);
            carry(walk, index, 1, &src, &dst);
        }
        return;
    }
    if (inner && kind == SK_RUN_DENSE && ch->rows) {
        /* The rows leaf, the parameters loaded once for many rows.  Runs
         * within a period all take positions [0, n): the rows are the
         * steps of the fastest outer axis.  A longer (merged) run is rows
         * of a period each (its positions repeat), then the rest. */
        const size_t period = (size_t)ch->period;
        if (n <= period && walk->outer_rank > 0) {
            for (int64_t r = 0; r < steps; r += walk->extent[0]) {
                ch->rows(ch->table, 0, src, (ptrdiff_t)walk->in_stride[0], dst, (ptrdiff_t)walk->out_stride[0], n,
                         (size_t)walk->extent[0]);
                carry(walk, index, 1, &src, &dst);
            }
            return;
        }
        if (n > period) {
            const size_t whole = n / period, rest = n % period, in_size = (size_t)walk->in_size;
            const size_t out_size = (size_t)walk->out_size;
            for (int64_t r = 0; r < steps; ++r) {
                ch->rows(ch->table, 0, src, (ptrdiff_t)(period * in_size), dst, (ptrdiff_t)(period * out_size), period,
                         whole);
                if (rest)
                    ch->rows(ch->table, 0, src + whole * period * in_size, 0, dst + whole * period * out_size, 0, rest,
                             1);
                carry(walk, index, 0, &src, &dst);
            }
            return;
        }
    }
    if (kind == SK_RUN_CHANNEL_DENSE) {
        /* Without the general loop's dispatch: each run entered costs a leaf call. */
        const int a = walk->channel;
        const sk_span_fn shared = ch->kernels ? NULL : ch->kernel->span;
        for (int64_t r = 0; r < steps; ++r) {
            const int64_t c = index[a];
            const sk_span_fn span = shared ? shared : ch->kernels[c]->span;
            span(ch->ctx + (size_t)c * ch->ctx_size, src, dst, n);
            carry(walk, index, 0, &src, &dst);
        }
        return;
    }
    for (int64_t r = 0; r < steps; ++r) {
        if (per_run) {
            const int64_t c = wraps ? index[walk->channel] % walk->channels : index[walk->channel];
            if (ch->kernels) kernel = ch->kernels[c];
            ctx = ch->ctx + (size_t)c * ch->ctx_size;
        } else if (inner) {
            position.at = 0; /* each run starts at channel 0 */
        }
        switch (kind) {
        case SK_RUN_DENSE:
            kernel->span(ctx, src, dst, n);
            break;
        case SK_RUN_STRIDED:
            kernel->strided(ctx, src, (ptrdiff_t)walk->in_step, dst, (ptrdiff_t)walk->out_step, n);
            break;
        case SK_RUN_EVERY_OTHER:
            every_other_run(walk, src, dst, kernel, ctx, stage);
            break;
        case SK_RUN_STAGED:
            staged_run(walk, src, dst, n, kernel->span, ctx, stage);
            break;
        default: /* SK_RUN_TILED */
            sk_tile_plane(walk, &walk->tiles, src, dst, kernel, ctx, stage, walk->stream, space);
            break;
        }
        carry(walk, index, first, &src, &dst);
    }
    ordered_give_back(space);
}

void sk_walk_run(const sk_walk *walk, const void *src, void *dst, const sk_kernel *kernel, const void *ctx) {
    walk_runs(walk, src, dst, kernel, ctx, NULL);
}

/* ---- Blocked walks --------------------------------------------------------
 * Each run starts at its entry (param_step).  The block axis in the inner
 * run: segments of `block` elements take consecutive entries (the runs
 * leaf, whole segments in one call, a partial one with count 1); else the
 * run's entries advance by one per element (the periodic leaf from the
 * run's entry; the table's period is the entry count, so it never wraps
 * inside a run).  Non-packed runs are staged through the same adapters,
 * whose position carries across the chunks. */
typedef struct block_position {
    size_t entry; /* the current segment's */
    size_t left;  /* its elements not yet converted */
    size_t block;
} block_position;

/* Splits n elements at the position into segments: `each(arg, entry, offset,
 * length, count)` for `count` consecutive segments of `length` elements
 * from element `offset`, entries from `entry` on. */
static inline __attribute__((always_inline)) void
block_segments(block_position *p, size_t n, void (*each)(void *, size_t, size_t, size_t, size_t), void *arg) {
    size_t offset = 0;
    while (offset < n) {
        const size_t rest = n - offset;
        if (p->left == p->block && rest >= p->block) {
            const size_t m = rest / p->block;
            each(arg, p->entry, offset, p->block, m);
            p->entry += m;
            offset += m * p->block;
        } else {
            const size_t k = rest < p->left ? rest : p->left;
            each(arg, p->entry, offset, k, 1);
            offset += k;
            p->left -= k;
            if (p->left == 0) {
                ++p->entry;
                p->left = p->block;
            }
        }
    }
}

/* A run's first entry. */
static inline size_t block_entry(const sk_walk *w, const int64_t *index) {
    int64_t entry = 0;
    for (int a = 0; a < w->outer_rank; ++a)
        entry += (a == w->block_at ? index[a] / w->block : index[a]) * w->param_step[a];
    return (size_t)entry;
}

typedef struct segment_call {
    const sk_channels *ch;
    const char *src;
    char *dst;
    size_t in_size, out_size;
} segment_call;

static inline __attribute__((always_inline)) void segment_runs(void *arg, size_t entry, size_t offset, size_t length,
                                                               size_t count) {
    const segment_call *c = arg;
    c->ch->runs(c->ch->table, entry, c->src + offset * c->in_size, c->dst + offset * c->out_size, length, count);
}

/* The block axis inner, as a span: ctx is the walk's block_span_state. */
typedef struct block_span_state {
    const sk_channels *ch;
    block_position position;
    size_t in_size, out_size;
} block_span_state;

static void block_span(const void *state, const void *src, void *dst, size_t n) {
    block_span_state *s = (block_span_state *)state; /* the walk's own local */
    segment_call call = {s->ch, src, dst, s->in_size, s->out_size};
    block_segments(&s->position, n, segment_runs, &call);
}

static void walk_blocked(const sk_walk *walk, const char *src, char *dst, const sk_channels *ch) {
    const sk_stage *stage = sk_routes[walk->staging].staging;
    const size_t n = (size_t)walk->run_length, block = (size_t)walk->block;
    const int inner = walk->block_at == walk->outer_rank;
    block_span_state segments = {ch, {0, block, block}, (size_t)walk->in_size, (size_t)walk->out_size};
    periodic_position along = {ch, 0, (size_t)walk->in_size, (size_t)walk->out_size};
    const sk_span_fn span = inner ? block_span : periodic_span;
    void *ctx = inner ? (void *)&segments : (void *)&along;
    int64_t index[SK_MAX_RANK] = {0};
    /* The block axis the fastest outer one, runs packed: the rows of a
     * block take the same entries, one rows-leaf call for them all. */
    const int shared_rows = !inner && ch->rows && walk->run_kind == SK_RUN_DENSE && walk->block_at == 0;
    for (int64_t r = 0; r < walk->runs;) {
        const size_t entry = block_entry(walk, index);
        if (shared_rows) {
            const int64_t to_block = walk->block - index[0] % walk->block, to_end = walk->extent[0] - index[0];
            const int64_t rows = to_block < to_end ? to_block : to_end;
            ch->rows(ch->table, entry, src, (ptrdiff_t)walk->in_stride[0], dst, (ptrdiff_t)walk->out_stride[0], n,
                     (size_t)rows);
            /* to the block's last row (inside the axis), then one carry */
            index[0] += rows - 1;
            src += walk->in_stride[0] * (rows - 1);
            dst += walk->out_stride[0] * (rows - 1);
            carry(walk, index, 0, &src, &dst);
            r += rows;
            continue;
        }
        segments.position = (block_position){entry, block, block};
        along.at = entry;
        if (walk->run_kind == SK_RUN_DENSE)
            span(ctx, src, dst, n);
        else
            staged_run(walk, src, dst, n, span, ctx, stage);
        carry(walk, index, 0, &src, &dst);
        ++r;
    }
}

void sk_walk_channels(const sk_walk *walk, const void *src, void *dst, const sk_channels *ch) {
    if (walk->block)
        walk_blocked(walk, src, dst, ch);
    else if (walk->channel < 0) /* one channel: the per-tensor walk with its parameters */
        sk_walk_go(walk, src, dst, ch->kernels ? ch->kernels[0] : ch->kernel, ch->ctx);
    else
        walk_runs(walk, src, dst, NULL, NULL, ch);
}

/* ---- Read-only reductions (kernel.h sk_walk_reduce) --------------------
 * The walk was prepared with the input alone, so its prepare, sort,
 * coalescing and carry are the ones above; runs are folded instead of
 * converted, and non-packed runs are gathered into a chunk first. */

/* k packed elements from channel position `at`; returns the position after them. */
static size_t fold_packed(const sk_reducer *r, void *acc, int inner, size_t channels, size_t at, const char *in,
                          size_t k, size_t size) {
    if (!inner) {
        r->fold(acc, at, in, k);
        return at;
    }
    while (k > 0) { /* the inner run walks the channels in order, wrapping where slower axes merged into it */
        const size_t m = k < channels - at ? k : channels - at;
        r->periodic(acc, at, in, m);
        in += m * size;
        k -= m;
        at = at + m == channels ? 0 : at + m;
    }
    return at;
}

/* Blocked walks: k packed elements at the position, folded per segment
 * (block axis inner) or from the position's entry on (else). */
typedef struct segment_fold {
    const sk_reducer *r;
    void *acc;
    const char *in;
    size_t size;
} segment_fold;

static inline __attribute__((always_inline)) void segment_folds(void *arg, size_t entry, size_t offset, size_t length,
                                                                size_t count) {
    const segment_fold *f = arg;
    for (size_t i = 0; i < count; ++i) f->r->fold(f->acc, entry + i, f->in + (offset + i * length) * f->size, length);
}

static void fold_blocked(const sk_reducer *r, void *acc, int inner, block_position *p, const char *in, size_t k,
                         size_t size) {
    if (inner) {
        segment_fold f = {r, acc, in, size};
        block_segments(p, k, segment_folds, &f);
    } else {
        r->periodic(acc, p->entry, in, k);
        p->entry += k;
    }
}

/* The blocked reduction: each run from its entry, gathered in chunks where
 * not packed (the position carries across them). */
static void reduce_blocked(const sk_walk *walk, const void *src, const sk_reducer *reducer, int route, void *acc) {
    const sk_stage *stage = sk_routes[route].staging;
    const size_t size = (size_t)walk->in_size, n = (size_t)walk->run_length, block = (size_t)walk->block;
    const int inner = walk->block_at == walk->outer_rank, packed = walk->in_step == walk->in_size;
    _Alignas(64) char chunk[SK_STAGE_CHUNK * SK_MAX_ELEMENT];
    int64_t index[SK_MAX_RANK] = {0};
    const char *in = src;
    char *shadow = (char *)(uintptr_t)src; /* the output port: the input again, never written */
    for (int64_t r = 0; r < walk->runs; ++r) {
        block_position p = {block_entry(walk, index), block, block};
        if (packed) {
            fold_blocked(reducer, acc, inner, &p, in, n, size);
        } else {
            for (size_t done = 0; done < n;) {
                const size_t k = n - done < SK_STAGE_CHUNK ? n - done : SK_STAGE_CHUNK;
                sk_stage_count(stage, SK_MOVE_GATHER);
                stage->gather(in + walk->in_step * (int64_t)done, (ptrdiff_t)walk->in_step, chunk, k, size);
                fold_blocked(reducer, acc, inner, &p, chunk, k, size);
                done += k;
            }
        }
        carry(walk, index, 0, &in, &shadow);
    }
}

void sk_walk_reduce(const sk_walk *walk, const void *src, const sk_reducer *reducer, int route, void *acc) {
    if (walk->block) {
        reduce_blocked(walk, src, reducer, route, acc);
        return;
    }
    const sk_stage *stage = sk_routes[route].staging;
    const size_t size = (size_t)walk->in_size, n = (size_t)walk->run_length, channels = (size_t)walk->channels;
    const int per_run = walk->channel >= 0 && walk->channel < walk->outer_rank;
    const int inner = walk->channel >= 0 && walk->channel == walk->outer_rank;
    const int wraps = per_run && walk->extent[walk->channel] != walk->channels;
    const int packed = walk->in_step == walk->in_size;
    _Alignas(64) char chunk[SK_STAGE_CHUNK * SK_MAX_ELEMENT];
    int64_t index[SK_MAX_RANK] = {0};
    const char *in = src;
    char *shadow = (char *)(uintptr_t)src; /* the output port: the input again, never written */
    for (int64_t r = 0; r < walk->runs; ++r) {
        size_t at = 0;
        if (per_run) at = (size_t)(wraps ? index[walk->channel] % walk->channels : index[walk->channel]);
        if (packed) {
            fold_packed(reducer, acc, inner, channels, at, in, n, size);
        } else {
            for (size_t done = 0; done < n;) {
                const size_t k = n - done < SK_STAGE_CHUNK ? n - done : SK_STAGE_CHUNK;
                sk_stage_count(stage, SK_MOVE_GATHER);
                stage->gather(in + walk->in_step * (int64_t)done, (ptrdiff_t)walk->in_step, chunk, k, size);
                at = fold_packed(reducer, acc, inner, channels, at, chunk, k, size);
                done += k;
            }
        }
        carry(walk, index, 0, &in, &shadow);
    }
}
