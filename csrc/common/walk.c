/* Shared strided traversal: prepare once (drop singleton axes, pick the axis
 * order that gives the longest joint inner run, coalesce axes whose strides
 * chain on both ports), then walk the outer axes by carry so that no element
 * costs a division. */
#include <string.h>
#include "kernel.h"

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
    if (rank < 0 || rank > SK_MAX_RANK || in_size <= 0 || out_size <= 0) return SK_INVALID_SHAPE;
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

void sk_walk_run(const sk_walk *walk, const void *src_base, void *dst_base, sk_kernel kernel,
                 const void *ctx) {
    const char *src = src_base;
    char *dst = dst_base;
    const size_t n = (size_t)walk->run_length;
    int64_t index[SK_MAX_RANK] = {0};
    for (int64_t r = 0; r < walk->runs; ++r) {
        if (walk->dense)
            kernel.span(ctx, src, dst, n);
        else
            kernel.strided(ctx, src, (ptrdiff_t)walk->in_step, dst, (ptrdiff_t)walk->out_step, n);
        /* Carry: step the fastest outer axis; on wrap, rewind it (by
         * (extent-1)*stride, which lies inside the admitted span) and carry. */
        for (int a = 0; a < walk->outer_rank; ++a) {
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
}
