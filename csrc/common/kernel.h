/* Internal kernel interface shared by every operation: the span and strided
 * leaf signatures, the per-route kernel pair, and the traversal driver. */
#ifndef SK_COMMON_KERNEL_H
#define SK_COMMON_KERNEL_H
#include <stddef.h>
#include <stdint.h>
#include "../include/simakernels.h"

#if defined(__aarch64__)
#define SK_HAVE_NEON 1
#else
#define SK_HAVE_NEON 0
#endif
#if defined(__x86_64__)  /* SSE2 is part of the x86-64 baseline */
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

/* Elements per vector block in the portable and NEON dense leaves (the AVX2
 * leaves have their own, SK_AVX2_BLOCK in avx2.h). */
#define SK_BLOCK 16

/* `n` packed elements from src to dst; ctx carries prepared parameters. */
typedef void (*sk_span_fn)(const void *ctx, const void *src, void *dst, size_t n);
/* `n` elements whose consecutive addresses are the given byte steps apart. */
typedef void (*sk_strided_fn)(const void *ctx, const char *src, ptrdiff_t src_step,
                              char *dst, ptrdiff_t dst_step, size_t n);

/* Every second element of an input (a[::2], a[:, ::2]) into a packed
 * output: converts a prefix of the `n` elements and returns its length.
 * It reads no byte outside elements [0, n) and their gaps before element
 * n-1 (never the gap after the last one), so it converts vector blocks
 * while another element follows; the walk stages the rest through `span`. */
typedef size_t (*sk_every_other_fn)(const void *ctx, const void *src, void *dst, size_t n);

/* A route's leaves.  `strided` is the scalar reference's element-by-element
 * leaf; vector routes leave it NULL and the walk stages their non-packed
 * runs through `span` (walk.c), or, where the route has `every_other`,
 * hands it the runs that take every second input element. */
typedef struct sk_kernel {
    sk_span_fn span;
    sk_strided_fn strided;
    sk_every_other_fn every_other;
} sk_kernel;

/* Runs `kernel` over every run of the walk. */
void sk_walk_run(const sk_walk *walk, const void *src, void *dst, sk_kernel kernel, const void *ctx);

#endif
