/* Shared strided traversal: prepare once (drop singleton axes, pick the axis
 * order that gives the longest joint inner run, coalesce axes whose strides
 * chain on both ports), then walk the outer axes by carry so that no element
 * costs a division. */
#include <stdlib.h>
#include <string.h>
#include "kernel.h"
#include "stage.h"
#include "stream.h"

#define SK_MAX_RANK 6

typedef struct axes {
    int n;
    int64_t extent[SK_MAX_RANK];
    int64_t in_stride[SK_MAX_RANK];
    int64_t out_stride[SK_MAX_RANK];
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
                          (key_primary[order[j]] == key_primary[v] &&
                           key_secondary[order[j]] < key_secondary[v]))) {
            order[j + 1] = order[j];
            --j;
        }
        order[j + 1] = v;
    }
    axes sorted = {.n = a->n};
    for (int i = 0; i < a->n; ++i) {
        sorted.extent[i] = a->extent[order[i]];
        sorted.in_stride[i] = a->in_stride[order[i]];
        sorted.out_stride[i] = a->out_stride[order[i]];
    }
    *a = sorted;
}

/* Merges axis i-1 into axis i when both ports step over axis i exactly once
 * per step of axis i-1.  Extents and strides stay within the admitted spans,
 * so the products cannot overflow. */
static void coalesce(axes *a) {
    if (a->n == 0) return;
    axes merged = {.n = 1};
    int last = SK_MAX_RANK - 1;  /* build from the fastest axis backwards */
    merged.extent[last] = a->extent[a->n - 1];
    merged.in_stride[last] = a->in_stride[a->n - 1];
    merged.out_stride[last] = a->out_stride[a->n - 1];
    for (int i = a->n - 2; i >= 0; --i) {
        int64_t e = merged.extent[last];
        if (a->in_stride[i] == merged.in_stride[last] * e &&
            a->out_stride[i] == merged.out_stride[last] * e) {
            merged.extent[last] = e * a->extent[i];
        } else {
            --last;
            ++merged.n;
            merged.extent[last] = a->extent[i];
            merged.in_stride[last] = a->in_stride[i];
            merged.out_stride[last] = a->out_stride[i];
        }
    }
    axes out = {.n = merged.n};
    memcpy(out.extent, merged.extent + last, sizeof(int64_t) * (size_t)merged.n);
    memcpy(out.in_stride, merged.in_stride + last, sizeof(int64_t) * (size_t)merged.n);
    memcpy(out.out_stride, merged.out_stride + last, sizeof(int64_t) * (size_t)merged.n);
    *a = out;
}

int sk_walk_prepare(int rank, const int64_t *extent, const int64_t *in_stride,
                    const int64_t *out_stride, int64_t in_size, int64_t out_size,
                    sk_walk *walk) {
    if (rank < 0 || rank > SK_MAX_RANK || in_size <= 0 || in_size > SK_MAX_ELEMENT ||
        out_size <= 0 || out_size > SK_MAX_ELEMENT)
        return SK_INVALID_SHAPE;
    axes logical = {.n = 0};
    for (int i = 0; i < rank; ++i) {
        if (extent[i] <= 0) return SK_INVALID_SHAPE;  /* empty tensors never walk */
        if (extent[i] == 1) continue;                 /* singleton axes are inert */
        logical.extent[logical.n] = extent[i];
        logical.in_stride[logical.n] = in_stride[i];
        logical.out_stride[logical.n] = out_stride[i];
        ++logical.n;
    }

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
        int packed_c = candidate.n == 0 ||
                       (candidate.in_stride[candidate.n - 1] == in_size &&
                        candidate.out_stride[candidate.n - 1] == out_size);
        int packed_b = best.n == 0 || (best.in_stride[best.n - 1] == in_size &&
                                       best.out_stride[best.n - 1] == out_size);
        if (run_c > run_b || (run_c == run_b && packed_c && !packed_b)) best = candidate;
    }

    memset(walk, 0, sizeof *walk);
    if (best.n == 0) {  /* a single element */
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
    for (int a = 0; a < walk->outer_rank; ++a) {
        int src = best.n - 2 - a;  /* fastest outer axis first */
        walk->extent[a] = best.extent[src];
        walk->in_stride[a] = best.in_stride[src];
        walk->out_stride[a] = best.out_stride[src];
        walk->runs *= best.extent[src];
    }
    return SK_OK;
}

/* ---- Running a walk ----------------------------------------------------
 * Packed runs go straight to the dense leaf.  A route with a strided leaf
 * of its own (the scalar reference) gets every other run element by
 * element.  Otherwise non-packed runs are staged: gathered into a packed
 * scratch chunk, converted by the dense leaf, scattered back; and when the
 * inner run is packed on one port only while the fastest outer axis is
 * packed on the other (a transpose), the two axes are walked in tiles
 * transposed in registers, so that every cache line of both ports is used
 * whole while it is in cache.  The scratch is small and fixed: at most
 * 32 KiB on the stack, and for walks beyond the cache 192 KiB (a tile and
 * two ordered tiles of 64 KiB) from the heap, once per walk: on the stack,
 * that much overflowed a thread started with a 160 KiB stack
 * (threading.stack_size), and musl gives threads 128 KiB.  If that
 * allocation fails, those planes are walked in cache tiles instead (the
 * same bytes, more slowly).  No tensor-sized temporary, and no byte
 * outside the walk's elements is read or written (stage.c). */

/* Staged chunk: long enough to amortise a leaf call (each has a head and
 * a tail: at 512 elements they cost a sixth of a strided cast's time), small enough that the two scratch buffers (8 KiB
 * each at 4-byte elements) stay in a 32 KiB L1 with the leaf's own lines;
 * 4096 measured slower for 4-byte elements. */
#define SK_STAGE_CHUNK 2048
/* Tiles in cache: the transposed port's lines are SK_TILE_CROSS elements
 * per tile (64 elements: whole 64-byte lines for the 1- and 2-byte
 * elements that are transposed), the leaf's lines as long as the scratch
 * for the transposed port allows, so that each leaf call has work enough:
 * SK_TILE_IN_BYTES where the input is transposed and the leaf writes the
 * output's lines (32 KiB against 16 KiB, Zen 5, ns/elem: Dequant FP32
 * 0.096 -> 0.078 at 256K elements, 0.111 -> 0.090 at 1M; Dequant BF16
 * 0.065 -> 0.052; Cast BF16 -> FP32 0.098 -> 0.081 at 64K, 0.109 -> 0.103
 * at 256K), SK_TILE_OUT_BYTES where the leaf reads the input's lines and
 * the output is transposed (16 KiB measured faster than 8 KiB at 256K
 * elements; 32 KiB slower, Quant BF16 0.083 -> 0.124). */
#define SK_TILE_IN_BYTES 32768
#define SK_TILE_OUT_BYTES 16384
#define SK_TILE_CROSS 64
/* Walks of more than SK_TILE_BIG bytes (both ports), and streamed outputs,
 * hold each tile converted and in output order before copying it out in
 * whole lines: square tiles of SK_ORDERED_SIDE elements a side
 * (SK_ORDERED_SIDE_BYTE_OUT for 1-byte outputs), each an L2-resident
 * 64 KiB of output at most, walked along the input's lines, with the input
 * of a later tile prefetched line by line while this one is read
 * (SK_PREFETCH_TILES).  Beyond the cache the input's lines are short
 * pieces in far-apart pages, which the hardware prefetcher does not
 * follow.  With the prefetch and the larger tiles (they were 64 x 64,
 * 64 x 256 for 1-byte outputs), at 64M elements on Zen 5 (ns/elem):
 * Quant BF16 0.26 -> 0.15, FP16 0.28 -> 0.15, FP32 0.33 -> 0.22, Cast
 * FP32 -> BF16 0.37 -> 0.25, BF16 -> FP32 0.29 -> 0.26, Dequant 0.18 ->
 * 0.14 (BF16) and 0.26 -> 0.21 (FP32).  256 a side measured best for
 * 1-byte outputs (128: 0.25 ns/elem at 16M, 512 no faster), 128 for the
 * others (Cast FP32 -> BF16 256 x 128 no faster); transposing the 2-byte
 * input instead of the 1-byte output, slower. */
#define SK_TILE_BIG ((size_t)8 << 20)
#define SK_ORDERED_SIDE 128
#define SK_ORDERED_SIDE_BYTE_OUT 256
#define SK_ORDERED_BYTES 65536
#define SK_ORDERED_SPACE (3 * SK_ORDERED_BYTES)  /* the tile and two ordered tiles */
_Static_assert(SK_ORDERED_SIDE * SK_ORDERED_SIDE * SK_MAX_ELEMENT <= SK_ORDERED_BYTES, "an ordered tile fits");
_Static_assert(SK_ORDERED_SIDE_BYTE_OUT * SK_ORDERED_SIDE_BYTE_OUT <= SK_ORDERED_BYTES, "a 1-byte one too");
_Static_assert(SK_TILE_IN_BYTES <= SK_ORDERED_BYTES && SK_TILE_OUT_BYTES <= SK_ORDERED_BYTES, "and tiles in cache");

/* A transpose: two axes, the input packed along `x`, the output along `l`
 * (bytes: the input's step along l, the output's along x). */
typedef struct tile_axes {
    int64_t l_extent, l_in;
    int64_t x_extent, x_out;
} tile_axes;

/* Whether the inner run and the fastest outer axis form a transpose. */
static int tile_axes_of(const sk_walk *w, tile_axes *t) {
    if (w->outer_rank < 1 || w->extent[0] < 2 || w->run_length < 2) return 0;
    if (w->out_step == w->out_size && w->in_stride[0] == w->in_size && w->in_step != w->in_size) {
        *t = (tile_axes){w->run_length, w->in_step, w->extent[0], w->out_stride[0]};
        return 1;
    }
    if (w->in_step == w->in_size && w->out_stride[0] == w->out_size && w->out_step != w->out_size) {
        *t = (tile_axes){w->extent[0], w->in_stride[0], w->run_length, w->out_step};
        return 1;
    }
    return 0;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* An inner run (or its last `left` elements), staged in chunks. */
static void staged_run(const sk_walk *w, const char *src, char *dst, size_t left, sk_span_fn span,
                       const void *ctx) {
    _Alignas(64) char in_buf[SK_STAGE_CHUNK * SK_MAX_ELEMENT];
    _Alignas(64) char out_buf[SK_STAGE_CHUNK * SK_MAX_ELEMENT];
    const size_t in_size = (size_t)w->in_size, out_size = (size_t)w->out_size;
    const int in_packed = w->in_step == w->in_size, out_packed = w->out_step == w->out_size;
    for (;;) {
        const size_t k = left < SK_STAGE_CHUNK ? left : SK_STAGE_CHUNK;
        const char *in = src;
        if (!in_packed) {
            sk_stage_gather(src, (ptrdiff_t)w->in_step, in_buf, k, in_size);
            in = in_buf;
        }
        span(ctx, in, out_packed ? dst : out_buf, k);
        if (!out_packed) sk_stage_scatter(out_buf, dst, (ptrdiff_t)w->out_step, k, out_size);
        left -= k;
        if (left == 0) break;
        src += w->in_step * (int64_t)k;
        dst += w->out_step * (int64_t)k;
    }
}

/* An ordered tile converted but not yet copied out, and the buffer the
 * next one fills: a tile's output lines are copied out while the next tile
 * is converted, a share after each group of its lines, so that the stores
 * to memory overlap the conversion instead of following it (and streamed
 * lines are fenced once per plane, not per tile).  At 16M elements:
 * Dequant FP32 0.19 -> 0.14 ns/elem, BF16 0.124 -> 0.100, Cast 0.23 ->
 * 0.21 and 0.25 -> 0.235, Quant FP16 0.133 -> 0.119. */
typedef struct pending {
    char *buf[2];      /* ordered tiles, filled and copied out in turn */
    int fill;          /* the one the running tile fills */
    const char *src;   /* the previous tile's lines, `bytes` apart */
    char *dst;
    size_t lines, bytes, done;
} pending;

/* One tile of a transpose: lines [l0, l0+nl) x [x0, x0+nx).  The port with
 * the smaller elements is the one transposed in registers (fewer shuffles
 * per element); the leaf reads or writes the other port in place, one
 * line per call.  A big or streamed output is written only by whole-line
 * copies (sk_stage_copy_lines), so the converted tile is first gathered in
 * output order: one leaf call for the whole tile where the input is
 * transposed, one more transpose where the output is. */
typedef struct tile_job {
    const tile_axes *t;
    const char *src;
    char *dst;
    sk_span_fn span;
    const void *ctx;
    size_t in_size, out_size;
    char *scratch;  /* the transposed port's tile */
    pending *out;   /* big or streamed: the ordered tiles (NULL in cache) */
    int stream;     /* whole output lines bypass the cache */
} tile_job;

/* Copies the pending tile's lines out up to `upto` of them. */
static void copy_out(const tile_job *j, size_t upto) {
    pending *o = j->out;
    if (upto > o->lines) upto = o->lines;
    if (upto <= o->done) return;
    sk_stage_copy_lines(o->src + o->done * o->bytes, (ptrdiff_t)o->bytes, o->dst + (int64_t)o->done * j->t->x_out,
                        (ptrdiff_t)j->t->x_out, upto - o->done, o->bytes, j->stream);
    o->done = upto;
}

/* The pending tile's share of lines once `done` of the running tile's
 * `total` lines are converted. */
static void copy_out_share(const tile_job *j, size_t done, size_t total) {
    copy_out(j, done * j->out->lines / total);
}

/* The running tile, converted into buf[fill] (`lines` output lines of
 * `bytes` for dst), becomes the pending one, once the last is out. */
static void post(const tile_job *j, char *dst, size_t lines, size_t bytes) {
    pending *o = j->out;
    copy_out(j, o->lines);
    *o = (pending){{o->buf[0], o->buf[1]}, !o->fill, o->buf[o->fill], dst, lines, bytes, 0};
}

/* A tile: lines [l0, l0+nl) x [x0, x0+nx) (nl == 0: none). */
typedef struct tile {
    int64_t l0, x0;
    size_t nl, nx;
} tile;

/* Asks for the input of tile `a`'s line `q` to be brought into the cache
 * (a hint: it never faults, and is only given for bytes of the walk).
 * Always inlined: out of line, GCC 12 deems a function of prefetches alone
 * free of effects and drops every call to it. */
static inline __attribute__((always_inline)) void prefetch_line(const tile_job *j, const tile *a, size_t q) {
    const char *p = j->src + (a->l0 + (int64_t)q) * j->t->l_in + a->x0 * (int64_t)j->in_size;
    const size_t bytes = a->nx * j->in_size;
    for (size_t k = 0; k < bytes; k += 64) __builtin_prefetch(p + k, 0, 3);
}

/* Rows of the input transposed per prefetch (and per share of the pending
 * tile copied out): a whole number of every transpose block's rows (16 /
 * element size).  Leaf lines per share of the pending tile copied out. */
#define SK_PREFETCH_ROWS 16
#define SK_COPY_OUT_LINES 8

/* Tile `c`, and the input of tile `a` (a later one, or none) prefetched
 * line by line as c's lines are read: issued all at once, the prefetches
 * queue behind each other and measured no faster. */
static void tile_run(const tile_job *j, const tile *c, const tile *a) {
    const size_t in_size = j->in_size, out_size = j->out_size, nl = c->nl, nx = c->nx;
    const tile_axes *t = j->t;
    const char *src = j->src + c->l0 * t->l_in + c->x0 * (int64_t)in_size;
    char *dst = j->dst + c->x0 * t->x_out + c->l0 * (int64_t)out_size;
    const ptrdiff_t out_line = (ptrdiff_t)(nl * out_size);  /* a tile line of output, in bytes */
    if (in_size <= out_size) {
        /* Input transposed into output-line order: nx lines of nl. */
        const size_t rows = a->nl ? SK_PREFETCH_ROWS : nl;
        for (size_t r = 0; r < nl; r += rows) {
            const size_t k = nl - r < rows ? nl - r : rows;
            for (size_t q = r; q < r + k && q < a->nl; ++q) prefetch_line(j, a, q);
            sk_stage_transpose(src + (int64_t)r * t->l_in, (ptrdiff_t)t->l_in, j->scratch + r * in_size,
                               (ptrdiff_t)(nl * in_size), k, nx, in_size);
            if (j->out) copy_out_share(j, r + k, nl);
        }
        if (j->out) {
            j->span(j->ctx, j->scratch, j->out->buf[j->out->fill], nl * nx);
            post(j, dst, nx, nl * out_size);
        } else if (t->x_out == out_line) {  /* whole output lines, back to back: one call */
            j->span(j->ctx, j->scratch, dst, nl * nx);
        } else {
            for (size_t x = 0; x < nx; ++x)
                j->span(j->ctx, j->scratch + x * nl * in_size, dst + (int64_t)x * t->x_out, nl);
        }
    } else {
        /* Input lines converted in place into nl lines of nx (whole input
         * lines back to back: one call), transposed. */
        if (t->l_in == (int64_t)(nx * in_size) && !a->nl)
            j->span(j->ctx, src, j->scratch, nl * nx);
        else
            for (size_t l = 0; l < nl; ++l) {
                if (l < a->nl) prefetch_line(j, a, l);
                j->span(j->ctx, src + (int64_t)l * t->l_in, j->scratch + l * nx * out_size, nx);
                if (j->out && (l % SK_COPY_OUT_LINES == SK_COPY_OUT_LINES - 1 || l + 1 == nl))
                    copy_out_share(j, l + 1, nl);
            }
        if (j->out) {
            sk_stage_transpose(j->scratch, (ptrdiff_t)(nx * out_size), j->out->buf[j->out->fill], out_line, nl, nx,
                               out_size);
            post(j, dst, nx, nl * out_size);
        } else {
            sk_stage_transpose(j->scratch, (ptrdiff_t)(nx * out_size), dst, (ptrdiff_t)t->x_out, nl, nx, out_size);
        }
    }
    for (size_t q = nl; q < a->nl; ++q) prefetch_line(j, a, q);  /* a has more lines than c */
}

/* Elements before the first tile boundary of an axis, so that the other
 * boundaries fall on 64-byte lines of the port packed along it (each line
 * then belongs to one tile: read once, or written whole); `tile` elements
 * where that cannot be (elements not aligned to their size, or tiles not
 * a whole number of lines). */
static int64_t first_tile(const char *base, int64_t size, int64_t tile) {
    const int64_t misaligned = (int64_t)((uintptr_t)base % 64);
    return misaligned % size == 0 && tile * size % 64 == 0 ? tile - misaligned / size : tile;
}

/* The plane of a transpose in cache, tile by tile.  Tiles advance along l
 * within a strip of x, so that every output line continues where the
 * previous tile stopped; tile edges fall on the cache lines of the first
 * line of the transposed port.  The leaf's lines stay whole multiples of
 * its blocks (a Quant leaf's tail takes the exact path). */
static void cached_plane(const sk_walk *w, const tile_axes *t, const char *src, char *dst,
                         sk_span_fn span, const void *ctx) {
    _Alignas(64) char scratch[SK_TILE_IN_BYTES > SK_TILE_OUT_BYTES ? SK_TILE_IN_BYTES : SK_TILE_OUT_BYTES];
    const tile_job j = {t, src, dst, span, ctx, (size_t)w->in_size, (size_t)w->out_size, scratch, NULL, 0};
    const int in_side = w->in_size <= w->out_size;
    const int64_t lines = in_side ? SK_TILE_IN_BYTES / (SK_TILE_CROSS * w->in_size)
                                  : SK_TILE_OUT_BYTES / (SK_TILE_CROSS * w->out_size);
    const int64_t tl = in_side ? lines : SK_TILE_CROSS;  /* the transposed port is packed along x */
    const int64_t tx = in_side ? SK_TILE_CROSS : lines;  /* (input) or along l (output) */
    /* (An axis that one tile spans is not split for alignment: in cache, the
     * split's narrow blocks cost more, 4K-element Dequant 0.135 -> 0.12.) */
    const int64_t first_x = in_side && t->x_extent > tx ? first_tile(src, w->in_size, tx) : tx;
    const int64_t first_l = !in_side && t->l_extent > tl ? first_tile(dst, w->out_size, tl) : tl;
    const tile none = {0, 0, 0, 0};
    for (int64_t x0 = 0, nx = first_x; x0 < t->x_extent; x0 += nx, nx = tx) {
        nx = min64(nx, t->x_extent - x0);
        for (int64_t l0 = 0, nl = first_l; l0 < t->l_extent; l0 += nl, nl = tl) {
            const tile c = {l0, x0, (size_t)min64(nl, t->l_extent - l0), (size_t)nx};
            tile_run(&j, &c, &none);
        }
    }
}

/* The tiles of an ordered plane, in strips of input lines: a first tile
 * of `first` elements along each axis, then `side`. */
typedef struct tile_grid {
    int64_t l_extent, x_extent, first_l, first_x, side;
    int64_t per_strip, count;
} tile_grid;

static int64_t tiles_along(int64_t extent, int64_t first, int64_t side) {
    return extent <= first ? 1 : 1 + (extent - first + side - 1) / side;
}

/* Tile k of the grid (none past the last). */
static tile tile_at(const tile_grid *g, int64_t k) {
    if (k >= g->count) return (tile){0, 0, 0, 0};
    const int64_t s = k / g->per_strip, i = k % g->per_strip;
    const int64_t l0 = s ? g->first_l + (s - 1) * g->side : 0, x0 = i ? g->first_x + (i - 1) * g->side : 0;
    return (tile){l0, x0, (size_t)min64(s ? g->side : g->first_l, g->l_extent - l0),
                  (size_t)min64(i ? g->side : g->first_x, g->x_extent - x0)};
}

/* Tiles ahead of the one running whose input is prefetched: the next
 * one's arrives too late (at 16M elements, Quant BF16 0.18 -> 0.13 ns/elem
 * two ahead, Cast FP32 -> BF16 0.29 -> 0.26; three or four no faster). */
#define SK_PREFETCH_TILES 2

/* The plane of a big or streamed transpose: square ordered tiles, in
 * strips of input lines, so that each tile continues the input lines of
 * the one before.  Tile edges fall on the cache lines of the first output
 * line, and of the first input line where the input is transposed; where
 * the leaf reads the input in place its lines stay whole multiples of its
 * blocks (aligned instead, Quant BF16 at 16M measured 0.24 -> 0.34
 * ns/elem). */
static void ordered_plane(const sk_walk *w, const tile_axes *t, const char *src, char *dst,
                          sk_span_fn span, const void *ctx, int stream, char *space) {
    char *scratch = space;
    pending out = {{space + SK_ORDERED_BYTES, space + 2 * SK_ORDERED_BYTES}, 0, NULL, NULL, 0, 0, 0};
    const tile_job j = {t, src, dst, span, ctx, (size_t)w->in_size, (size_t)w->out_size, scratch, &out, stream};
    const int64_t side = w->out_size == 1 ? SK_ORDERED_SIDE_BYTE_OUT : SK_ORDERED_SIDE;
    tile_grid g = {t->l_extent, t->x_extent, first_tile(dst, w->out_size, side),
                   w->in_size <= w->out_size ? first_tile(src, w->in_size, side) : side, side, 0, 0};
    g.per_strip = tiles_along(g.x_extent, g.first_x, side);
    g.count = g.per_strip * tiles_along(g.l_extent, g.first_l, side);
    for (int64_t k = 0; k < g.count; ++k) {
        const tile c = tile_at(&g, k), a = tile_at(&g, k + SK_PREFETCH_TILES);
        tile_run(&j, &c, &a);
    }
    copy_out(&j, out.lines);
    if (stream) sk_stage_stream_fence();  /* the streamed lines, before the call returns */
}

/* An inner run of every second input element into a packed output: the
 * route's every_other leaf reads it in place (no staging pass), and the
 * few elements it leaves are staged. */
static void every_other_run(const sk_walk *w, const char *src, char *dst, const sk_kernel *kernel,
                            const void *ctx) {
    const size_t n = (size_t)w->run_length;
    const size_t done = kernel->every_other(ctx, src, dst, n);
    if (done < n)
        staged_run(w, src + w->in_step * (int64_t)done, dst + w->out_step * (int64_t)done, n - done,
                   kernel->span, ctx);
}

static int every_other_of(const sk_walk *w) {
    return w->in_step == 2 * (int64_t)w->in_size && w->out_step == w->out_size;
}

enum run_kind { RUN_DENSE, RUN_STRIDED, RUN_EVERY_OTHER, RUN_STAGED, RUN_TILED };

void sk_walk_run(const sk_walk *walk, const void *src_base, void *dst_base, sk_kernel kernel,
                 const void *ctx) {
    const char *src = src_base;
    char *dst = dst_base;
    tile_axes tiles = {0, 0, 0, 0};
    enum run_kind kind = walk->dense ? RUN_DENSE : kernel.strided ? RUN_STRIDED
                       : tile_axes_of(walk, &tiles) ? RUN_TILED
                       : kernel.every_other && every_other_of(walk) ? RUN_EVERY_OTHER : RUN_STAGED;
    /* A tiled step covers the fastest outer axis too: carry from the next. */
    const int first = kind == RUN_TILED ? 1 : 0;
    const int64_t steps = kind == RUN_TILED ? walk->runs / walk->extent[0] : walk->runs;
    const size_t n = (size_t)walk->run_length;
    const size_t elements = (size_t)walk->runs * n;
    const int stream = kind == RUN_TILED && sk_stage_streams() &&
                       sk_stream_run(elements, (size_t)walk->in_size, (size_t)walk->out_size);
    const int big = elements * (size_t)(walk->in_size + walk->out_size) > SK_TILE_BIG;
    /* The ordered planes' tile and ordered tiles (NULL: none needed, or
     * none to be had). */
    char *space = kind == RUN_TILED && (big || stream) ? aligned_alloc(64, SK_ORDERED_SPACE) : NULL;
    int64_t index[SK_MAX_RANK] = {0};
    for (int64_t r = 0; r < steps; ++r) {
        switch (kind) {
        case RUN_DENSE: kernel.span(ctx, src, dst, n); break;
        case RUN_STRIDED:
            kernel.strided(ctx, src, (ptrdiff_t)walk->in_step, dst, (ptrdiff_t)walk->out_step, n);
            break;
        case RUN_EVERY_OTHER: every_other_run(walk, src, dst, &kernel, ctx); break;
        case RUN_STAGED: staged_run(walk, src, dst, n, kernel.span, ctx); break;
        case RUN_TILED:  /* tests stream small walks too */
            if (space) ordered_plane(walk, &tiles, src, dst, kernel.span, ctx, stream, space);
            else cached_plane(walk, &tiles, src, dst, kernel.span, ctx);
            break;
        }
        /* Carry: step the fastest outer axis; on wrap, rewind it (by
         * (extent-1)*stride, which lies inside the admitted span) and carry. */
        for (int a = first; a < walk->outer_rank; ++a) {
            if (++index[a] < walk->extent[a]) {
                src += walk->in_stride[a];
                dst += walk->out_stride[a];
                break;
            }
            index[a] = 0;
            src -= walk->in_stride[a] * (walk->extent[a] - 1);
            dst -= walk->out_stride[a] * (walk->extent[a] - 1);
        }
    }
    free(space);
}
