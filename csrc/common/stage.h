/* Data movement for the shared traversal.  Every route owns its staging: a
 * table of moves (its descriptor's `staging`, route.h) that the walk uses
 * for that route's non-packed runs, so a forced route runs only its own
 * instructions.
 * Elements are 1, 2 or 4 bytes; nothing here interprets them, and nothing
 * reads or writes a byte outside the elements it names. */
#ifndef SK_COMMON_STAGE_H
#define SK_COMMON_STAGE_H
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include "../include/simakernels.h"
#include "../include/simakernels_testing.h"

typedef struct sk_stage {
    /* dst[k] = the element at src + k*step, k < n (step may be 0: broadcast). */
    void (*gather)(const char *src, ptrdiff_t step, char *dst, size_t n, size_t size);
    /* The element at dst + k*step = src[k], k < n (step is never 0: outputs
     * never overlap). */
    void (*scatter)(const char *src, char *dst, ptrdiff_t step, size_t n, size_t size);
    /* A rows x cols matrix whose rows start src_pitch bytes apart (elements
     * packed within a row) into its transpose, whose rows (one per source
     * column) start dst_pitch bytes apart. */
    void (*transpose)(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t rows, size_t cols,
                      size_t size);
    /* `lines` runs of `bytes` bytes each, src_pitch / dst_pitch apart;
     * `stream` (only where `streams`): whole destination cache lines bypass
     * the cache, ordered with later stores only after fence(). */
    void (*copy_lines)(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t lines, size_t bytes,
                       int stream);
    void (*fence)(void);
    int streams;
} sk_stage;

extern const sk_stage sk_stage_scalar;
#if defined(__x86_64__)
extern const sk_stage sk_stage_sse2, sk_stage_avx2;
#endif
#if defined(__aarch64__)
extern const sk_stage sk_stage_neon;
#endif

/* Test builds count the moves the walk makes, keyed by the staging that
 * made them (simakernels_testing.h sk_stage_moves); other builds have no
 * counters. */
#if SK_TEST_HOOKS
void sk_stage_count(const sk_stage *stage, int move);
#else
#define sk_stage_count(stage, move) ((void)0)
#endif

/* ---- pieces every route's staging ends with (stage.c) ---- */
/* Elements [0, n) of a gather / scatter, one at a time. */
void sk_stage_gather_elements(const char *src, ptrdiff_t step, char *dst, size_t n, size_t size);
void sk_stage_scatter_elements(const char *src, char *dst, ptrdiff_t step, size_t n, size_t size);
/* What square blocks of a transpose left: rows [0, r0) x columns [c0,
 * cols) and rows [r0, rows) x every column (r0 = c0 = 0: everything). */
void sk_stage_transpose_rest(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t rows,
                             size_t cols, size_t size, size_t r0, size_t c0);

#if defined(__x86_64__)
/* SSE2 blocks (stage_sse2.c), which the AVX2 staging finishes with: the
 * first elements of an every-second-element gather (returns how many),
 * and the (16/size)-square blocks of a transpose from column c_begin
 * (returns the block side). */
size_t sk_stage_every_other_sse2(const char *src, char *dst, size_t n, size_t size);
size_t sk_stage_transpose_blocks_sse2(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t rows,
                                      size_t cols, size_t size, size_t c_begin);
void sk_stage_copy_lines_sse2(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t lines,
                              size_t bytes, int stream);
#endif

#endif
