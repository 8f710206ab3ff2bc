/* NEON range leaves: the vector fold (range_fold.h) on 128-bit registers,
 * 16 FP32 or 32 16-bit elements per iteration from one four-register load,
 * then the per-channel leaves, range.h's columns vectorised by GCC. */
#include "range.h"
#if SK_HAVE_NEON
#include "../common/neon.h"

#define RANGE_NEON_W 32
#include "range_neon.h"
#undef RANGE_NEON_W
#define RANGE_NEON_W 16
#include "range_neon.h"
#undef RANGE_NEON_W

void sk_range_w32__neon(void *acc, size_t at, const void *src, size_t n) { fold_neon32(acc, at, src, n, 32); }
void sk_range_w16__neon(void *acc, size_t at, const void *src, size_t n) { fold_neon16(acc, at, src, n, 16); }
void sk_range_bf16_axis__neon(void *acc, size_t at, const void *src, size_t n) { sk_range_axis_bf16(acc, at, src, n); }
void sk_range_f32_axis__neon(void *acc, size_t at, const void *src, size_t n) { sk_range_axis_f32(acc, at, src, n); }
void sk_range_f16_axis__neon(void *acc, size_t at, const void *src, size_t n) { sk_range_axis_f16(acc, at, src, n); }
#endif
