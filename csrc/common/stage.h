/* Data movement for the shared traversal: non-packed runs are staged
 * through small packed scratch buffers so that every route's dense leaf
 * serves them.  Elements are 1, 2 or 4 bytes; nothing here interprets them,
 * and nothing reads or writes a byte outside the elements it names. */
#ifndef SK_COMMON_STAGE_H
#define SK_COMMON_STAGE_H
#include <stddef.h>

/* dst[k] = the element at src + k*step, k < n (step may be 0: broadcast). */
void sk_stage_gather(const char *src, ptrdiff_t step, char *dst, size_t n, size_t size);

/* The element at dst + k*step = src[k], k < n (step is never 0: outputs
 * never overlap). */
void sk_stage_scatter(const char *src, char *dst, ptrdiff_t step, size_t n, size_t size);

/* A rows x cols matrix whose rows start src_pitch bytes apart (elements
 * packed within a row) into its transpose, whose rows (one per source
 * column) start dst_pitch bytes apart. */
void sk_stage_transpose(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                        size_t rows, size_t cols, size_t size);

/* `lines` runs of `bytes` bytes each, from src (src_pitch apart) to dst
 * (dst_pitch apart); `stream`: whole destination cache lines bypass the
 * cache (stream.h), for outputs far beyond it, and are only ordered with
 * later stores (visible to other threads) after sk_stage_stream_fence(). */
void sk_stage_copy_lines(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                         size_t lines, size_t bytes, int stream);

/* Orders the streamed stores of sk_stage_copy_lines before every later
 * store: the walk calls it before it returns. */
void sk_stage_stream_fence(void);

/* Whether sk_stage_copy_lines streams here (x86-64 with AVX2); elsewhere
 * `stream` is ignored. */
int sk_stage_streams(void);

/* x86-64 with AVX2 only (stage_avx2.c; stage.c calls it where the CPU has
 * AVX2): the first elements of sk_stage_gather(src, 2*size, dst, n, size)
 * in 32-byte blocks; returns how many it wrote. */
size_t sk_stage_every_other_avx2(const char *src, char *dst, size_t n, size_t size);

/* x86-64 with AVX2 only: the blocks of sk_stage_transpose in column groups
 * of 32 bytes of source row (rows in groups of 16/size); returns the
 * columns done, [0, that) for every row in a whole group. */
size_t sk_stage_transpose_avx2(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                               size_t rows, size_t cols, size_t size);

/* x86-64 with AVX2 only: sk_stage_copy_lines for lines of 32 bytes or more. */
void sk_stage_copy_lines_avx2(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                              size_t lines, size_t bytes, int stream);

#endif
