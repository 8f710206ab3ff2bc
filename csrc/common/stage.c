/* The element-by-element staging pieces every route ends with, and the
 * scalar route's staging, made of them alone (stage.h). */
#include <string.h>
#include "stage.h"
#include "kernel.h"

#if SK_TEST_HOOKS
/* [the route that owns the staging][move] */
static _Atomic uint64_t moves[SK_ROUTE_COUNT][SK_MOVE_COUNT];

void sk_stage_count(const sk_stage *stage, int move) {
    for (int r = 0; r < SK_ROUTE_COUNT; ++r)
        if (sk_routes[r].staging == stage && sk_routes[r].borrows == r) {
            atomic_fetch_add_explicit(&moves[r][move], 1, memory_order_relaxed);
            return;
        }
}

int64_t sk_stage_moves(int staging, int move) {
    if (staging < 0 || staging >= SK_ROUTE_COUNT || move < 0 || move >= SK_MOVE_COUNT) return 0;
    return (int64_t)atomic_load_explicit(&moves[staging][move], memory_order_relaxed);
}
#else
int64_t sk_stage_moves(int staging, int move) {
    (void)staging;
    (void)move;
    return -1;
}
#endif

/* Fixed-size memcpy compiles to one load or store and carries no aliasing
 * assumption about the scratch buffers. */
#define MOVE_LOOP(bytes, src, src_step, dst, dst_step, n) \
    for (size_t k_ = 0; k_ < (n); ++k_) memcpy((dst) + k_ * (dst_step), (src) + k_ * (src_step), bytes)

void sk_stage_gather_elements(const char *src, ptrdiff_t step, char *dst, size_t n, size_t size) {
    switch (size) { /* constant sizes let each loop become plain moves */
    case 1:
        MOVE_LOOP(1, src, step, dst, (size_t)1, n);
        break;
    case 2:
        MOVE_LOOP(2, src, step, dst, (size_t)2, n);
        break;
    default:
        MOVE_LOOP(4, src, step, dst, (size_t)4, n);
        break;
    }
}

void sk_stage_scatter_elements(const char *src, char *dst, ptrdiff_t step, size_t n, size_t size) {
    switch (size) {
    case 1:
        MOVE_LOOP(1, src, (size_t)1, dst, step, n);
        break;
    case 2:
        MOVE_LOOP(2, src, (size_t)2, dst, step, n);
        break;
    default:
        MOVE_LOOP(4, src, (size_t)4, dst, step, n);
        break;
    }
}

/* The rows and columns the vector blocks left; the first part is skipped
 * whole where the blocks took every column (an empty pass shows in small
 * transposes). */
#define TRANSPOSE_REST(bytes)                                         \
    for (size_t r = c0 < cols ? 0 : r0; r < rows; ++r)                \
        for (size_t c = r < r0 ? c0 : 0; c < cols; ++c)               \
    memcpy(dst + (ptrdiff_t)c * dst_pitch + (ptrdiff_t)(r * (bytes)), \
           src + (ptrdiff_t)r * src_pitch + (ptrdiff_t)(c * (bytes)), bytes)

void sk_stage_transpose_rest(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t rows,
                             size_t cols, size_t size, size_t r0, size_t c0) {
    if (r0 == 0 || c0 == 0) r0 = c0 = 0; /* no block was taken */
    switch (size) {
    case 1:
        TRANSPOSE_REST(1);
        break;
    case 2:
        TRANSPOSE_REST(2);
        break;
    default:
        TRANSPOSE_REST(4);
        break;
    }
}

static void transpose_scalar(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t rows,
                             size_t cols, size_t size) {
    sk_stage_transpose_rest(src, src_pitch, dst, dst_pitch, rows, cols, size, 0, 0);
}

static void copy_lines_scalar(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t lines,
                              size_t bytes, int stream) {
    (void)stream;
    for (size_t i = 0; i < lines; ++i, src += src_pitch, dst += dst_pitch) memcpy(dst, src, bytes);
}

static void no_fence(void) {}

const sk_stage sk_stage_scalar = {
    sk_stage_gather_elements, sk_stage_scatter_elements, transpose_scalar, copy_lines_scalar, no_fence, 0};
