/* x86-64 range leaves: the vector fold (range_fold.h) on SSE2, AVX2 and
 * AVX-512 registers, four per iteration (16, 32 or 64 FP32 elements), then
 * the per-channel leaves, range.h's columns vectorised for SSE2 and for
 * AVX2 (the avx512 route runs AVX2's: its registry lines name them).  The
 * AVX2 and AVX-512 code runs only where the CPU has those features. */
#include "range.h"
#if SK_HAVE_SSE2
#include <immintrin.h>

#define RANGE_BITS 128
#include "range_x86.h"
SK_TARGET_BEGIN(AVX2)
#define RANGE_BITS 256
#include "range_x86.h"
SK_TARGET_END
SK_TARGET_BEGIN(AVX512)
#define RANGE_BITS 512
#include "range_x86.h"
SK_TARGET_END

void sk_range_w32__sse2(void *acc, size_t at, const void *src, size_t n) { fold_sse2(acc, at, src, n, 32); }
void sk_range_w16__sse2(void *acc, size_t at, const void *src, size_t n) { fold_sse2(acc, at, src, n, 16); }
void sk_range_f32_axis__sse2(void *acc, size_t at, const void *src, size_t n) { sk_range_axis_f32(acc, at, src, n); }
void sk_range_bf16_axis__sse2(void *acc, size_t at, const void *src, size_t n) { sk_range_axis_bf16(acc, at, src, n); }
void sk_range_f16_axis__sse2(void *acc, size_t at, const void *src, size_t n) { sk_range_axis_f16(acc, at, src, n); }
SK_TARGET_BEGIN(AVX2)
void sk_range_w32__avx2(void *acc, size_t at, const void *src, size_t n) { fold_avx2(acc, at, src, n, 32); }
void sk_range_w16__avx2(void *acc, size_t at, const void *src, size_t n) { fold_avx2(acc, at, src, n, 16); }
void sk_range_f32_axis__avx2(void *acc, size_t at, const void *src, size_t n) { sk_range_axis_f32(acc, at, src, n); }
void sk_range_bf16_axis__avx2(void *acc, size_t at, const void *src, size_t n) { sk_range_axis_bf16(acc, at, src, n); }
void sk_range_f16_axis__avx2(void *acc, size_t at, const void *src, size_t n) { sk_range_axis_f16(acc, at, src, n); }
SK_TARGET_END
SK_TARGET_BEGIN(AVX512)
void sk_range_w32__avx512(void *acc, size_t at, const void *src, size_t n) { fold_avx512(acc, at, src, n, 32); }
void sk_range_w16__avx512(void *acc, size_t at, const void *src, size_t n) { fold_avx512(acc, at, src, n, 16); }
SK_TARGET_END
#endif
