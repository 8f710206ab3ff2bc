/* The tiler: a transpose (the inner run packed on one port, the fastest
 * outer axis on the other) walked in tiles that the route's staging
 * transposes in registers, so that every cache line of both ports is used
 * whole while it is in cache (tile.h). */
#include "tile.h"
#include "tuning.h"

_Static_assert(SK_ORDERED_SIDE *SK_ORDERED_SIDE *SK_MAX_ELEMENT <= SK_ORDERED_BYTES, "an ordered tile fits");
_Static_assert(SK_ORDERED_SIDE_BYTE_OUT *SK_ORDERED_SIDE_BYTE_OUT <= SK_ORDERED_BYTES, "a 1-byte one too");
_Static_assert(SK_TILE_IN_BYTES <= SK_ORDERED_BYTES && SK_TILE_OUT_BYTES <= SK_ORDERED_BYTES, "and tiles in cache");

int sk_tile_axes_of(const sk_walk *w, sk_tile_axes *t) {
    if (w->outer_rank < 1 || w->extent[0] < 2 || w->run_length < 2) return 0;
    if (w->out_step == w->out_size && w->in_stride[0] == w->in_size && w->in_step != w->in_size) {
        *t = (sk_tile_axes){w->run_length, w->in_step, w->extent[0], w->out_stride[0]};
        return 1;
    }
    if (w->in_step == w->in_size && w->out_stride[0] == w->out_size && w->out_step != w->out_size) {
        *t = (sk_tile_axes){w->extent[0], w->in_stride[0], w->run_length, w->out_step};
        return 1;
    }
    return 0;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* An ordered tile converted but not yet copied out, and the buffer the
 * next one fills: a tile's output lines are copied out while the next tile
 * is converted, a share after each group of its lines, so that the stores
 * to memory overlap the conversion instead of following it (and streamed
 * lines are fenced once per plane, not per tile). */
typedef struct pending {
    char *buf[2];    /* ordered tiles, filled and copied out in turn */
    int fill;        /* the one the running tile fills */
    const char *src; /* the previous tile's lines, `bytes` apart */
    char *dst;
    size_t lines, bytes, done;
} pending;

/* One tile of a transpose: lines [l0, l0+nl) x [x0, x0+nx).  The port with
 * the smaller elements is the one transposed in registers (fewer shuffles
 * per element); the leaf reads or writes the other port in place, one
 * line per call.  A big or streamed output is written only by whole-line
 * copies (the staging's copy_lines), so the converted tile is first gathered in
 * output order: one leaf call for the whole tile where the input is
 * transposed, one more transpose where the output is. */
typedef struct tile_job {
    const sk_tile_axes *t;
    const sk_stage *stage; /* the walk's moves */
    const char *src;
    char *dst;
    sk_span_fn span;
    sk_tile_fn fused; /* the kernel's fused tile leaf, or NULL */
    const void *ctx;
    size_t in_size, out_size;
    char *scratch; /* the transposed port's tile */
    pending *out;  /* big or streamed: the ordered tiles (NULL in cache) */
    int stream;    /* whole output lines bypass the cache */
} tile_job;

/* Copies the pending tile's lines out up to `upto` of them. */
static void copy_out(const tile_job *j, size_t upto) {
    pending *o = j->out;
    if (upto > o->lines) upto = o->lines;
    if (upto <= o->done) return;
    sk_stage_count(j->stage, SK_MOVE_COPY_LINES);
    j->stage->copy_lines(o->src + o->done * o->bytes, (ptrdiff_t)o->bytes, o->dst + (int64_t)o->done * j->t->x_out,
                         (ptrdiff_t)j->t->x_out, upto - o->done, o->bytes, j->stream);
    o->done = upto;
}

/* The pending tile's share of lines once `done` of the running tile's
 * `total` lines are converted. */
static void copy_out_share(const tile_job *j, size_t done, size_t total) { copy_out(j, done * j->out->lines / total); }

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

/* Tile `c`, and the input of tile `a` (a later one, or none) prefetched
 * line by line as c's lines are read: issued all at once, the prefetches
 * queue behind each other and measured no faster. */
static void tile_run(const tile_job *j, const tile *c, const tile *a) {
    const size_t in_size = j->in_size, out_size = j->out_size, nl = c->nl, nx = c->nx;
    const sk_tile_axes *t = j->t;
    const char *src = j->src + c->l0 * t->l_in + c->x0 * (int64_t)in_size;
    char *dst = j->dst + c->x0 * t->x_out + c->l0 * (int64_t)out_size;
    const ptrdiff_t out_line = (ptrdiff_t)(nl * out_size); /* a tile line of output, in bytes */
    if (j->fused && !j->out) {                             /* in cache: converted and transposed in one pass */
        sk_stage_count(j->stage, SK_MOVE_FUSED_TILE);
        j->fused(j->ctx, src, (ptrdiff_t)t->l_in, dst, (ptrdiff_t)t->x_out, nl, nx);
        return;
    }
    if (in_size <= out_size) {
        /* Input transposed into output-line order: nx lines of nl. */
        const size_t rows = a->nl ? SK_PREFETCH_ROWS : nl;
        for (size_t r = 0; r < nl; r += rows) {
            const size_t k = nl - r < rows ? nl - r : rows;
            for (size_t q = r; q < r + k && q < a->nl; ++q) prefetch_line(j, a, q);
            sk_stage_count(j->stage, SK_MOVE_TRANSPOSE);
            j->stage->transpose(src + (int64_t)r * t->l_in, (ptrdiff_t)t->l_in, j->scratch + r * in_size,
                                (ptrdiff_t)(nl * in_size), k, nx, in_size);
            if (j->out) copy_out_share(j, r + k, nl);
        }
        if (j->out) {
            j->span(j->ctx, j->scratch, j->out->buf[j->out->fill], nl * nx);
            post(j, dst, nx, nl * out_size);
        } else if (t->x_out == out_line) { /* whole output lines, back to back: one call */
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
        sk_stage_count(j->stage, SK_MOVE_TRANSPOSE);
        if (j->out) {
            j->stage->transpose(j->scratch, (ptrdiff_t)(nx * out_size), j->out->buf[j->out->fill], out_line, nl, nx,
                                out_size);
            post(j, dst, nx, nl * out_size);
        } else {
            j->stage->transpose(j->scratch, (ptrdiff_t)(nx * out_size), dst, (ptrdiff_t)t->x_out, nl, nx, out_size);
        }
    }
    for (size_t q = nl; q < a->nl; ++q) prefetch_line(j, a, q); /* a has more lines than c */
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
static void cached_plane(const sk_walk *w, const sk_tile_axes *t, const char *src, char *dst, const sk_kernel *kernel,
                         const void *ctx, const sk_stage *stage) {
    _Alignas(64) char scratch[SK_TILE_IN_BYTES > SK_TILE_OUT_BYTES ? SK_TILE_IN_BYTES : SK_TILE_OUT_BYTES];
    const tile_job j = {
        t, stage, src, dst, kernel->span, kernel->tile, ctx, (size_t)w->in_size, (size_t)w->out_size, scratch, NULL, 0};
    const int in_side = w->in_size <= w->out_size;
    const int64_t lines =
        in_side ? SK_TILE_IN_BYTES / (SK_TILE_CROSS * w->in_size) : SK_TILE_OUT_BYTES / (SK_TILE_CROSS * w->out_size);
    const int64_t tl = in_side ? lines : SK_TILE_CROSS; /* the transposed port is packed along x */
    const int64_t tx = in_side ? SK_TILE_CROSS : lines; /* (input) or along l (output) */
    /* (An axis that one tile spans is not split for alignment: in cache, the
     * split's narrow blocks cost more.) */
    /* (A fused tile leaf takes whole tiles, never split for alignment: the
     * split's edges would go element by element.) */
    const int fused = kernel->tile != NULL;
    const int64_t first_x = in_side && !fused && t->x_extent > tx ? first_tile(src, w->in_size, tx) : tx;
    const int64_t first_l = !in_side && !fused && t->l_extent > tl ? first_tile(dst, w->out_size, tl) : tl;
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

/* The plane of a big or streamed transpose: square ordered tiles, in
 * strips of input lines, so that each tile continues the input lines of
 * the one before.  Tile edges fall on the cache lines of the first output
 * line, and of the first input line where the input is transposed; where
 * the leaf reads the input in place its lines stay whole multiples of its
 * blocks (aligned instead measured slower: docs/PERF.md). */
static void ordered_plane(const sk_walk *w, const sk_tile_axes *t, const char *src, char *dst, const sk_kernel *kernel,
                          const void *ctx, const sk_stage *stage, int stream, char *space) {
    pending out = {{space + SK_ORDERED_BYTES, space + 2 * SK_ORDERED_BYTES}, 0, NULL, NULL, 0, 0, 0};
    const tile_job j = {t,     stage, src,   dst, kernel->span, NULL, ctx, (size_t)w->in_size, (size_t)w->out_size,
                        space, &out,  stream};
    const int64_t side = w->out_size == 1 ? SK_ORDERED_SIDE_BYTE_OUT : SK_ORDERED_SIDE;
    tile_grid g = {t->l_extent,
                   t->x_extent,
                   first_tile(dst, w->out_size, side),
                   w->in_size <= w->out_size ? first_tile(src, w->in_size, side) : side,
                   side,
                   0,
                   0};
    g.per_strip = tiles_along(g.x_extent, g.first_x, side);
    g.count = g.per_strip * tiles_along(g.l_extent, g.first_l, side);
    for (int64_t k = 0; k < g.count; ++k) {
        const tile c = tile_at(&g, k), a = tile_at(&g, k + SK_PREFETCH_TILES);
        tile_run(&j, &c, &a);
    }
    copy_out(&j, out.lines);
    if (stream) stage->fence(); /* the streamed lines, before the call returns */
}

void sk_tile_plane(const sk_walk *w, const sk_tile_axes *t, const char *src, char *dst, const sk_kernel *kernel,
                   const void *ctx, const sk_stage *stage, int stream, char *space) {
    if (space)
        ordered_plane(w, t, src, dst, kernel, ctx, stage, stream, space);
    else
        cached_plane(w, t, src, dst, kernel, ctx, stage);
}
