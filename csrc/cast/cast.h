/* Cast leaves, one per route and direction. */
#ifndef SK_CAST_H
#define SK_CAST_H
#include "../common/kernel.h"

void sk_cast_f32_bf16__scalar(const void *ctx, const void *src, void *dst, size_t n);
void sk_cast_bf16_f32__scalar(const void *ctx, const void *src, void *dst, size_t n);
void sk_cast_f32_bf16_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                      ptrdiff_t dst_step, size_t n);
void sk_cast_bf16_f32_strided__scalar(const void *ctx, const char *src, ptrdiff_t src_step, char *dst,
                                      ptrdiff_t dst_step, size_t n);
#if SK_HAVE_SSE2
void sk_cast_f32_bf16__sse2(const void *ctx, const void *src, void *dst, size_t n);
void sk_cast_bf16_f32__sse2(const void *ctx, const void *src, void *dst, size_t n);
#endif
#if SK_HAVE_AVX2
void sk_cast_f32_bf16__avx2(const void *ctx, const void *src, void *dst, size_t n);
void sk_cast_bf16_f32__avx2(const void *ctx, const void *src, void *dst, size_t n);
size_t sk_cast_f32_bf16_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n);
size_t sk_cast_bf16_f32_every_other__avx2(const void *ctx, const void *src, void *dst, size_t n);
#endif
#if SK_HAVE_AVX512
void sk_cast_f32_bf16__avx512(const void *ctx, const void *src, void *dst, size_t n);
void sk_cast_bf16_f32__avx512(const void *ctx, const void *src, void *dst, size_t n);
size_t sk_cast_bf16_f32_every_other__avx512(const void *ctx, const void *src, void *dst, size_t n);
#endif
#if SK_HAVE_NEON
void sk_cast_f32_bf16__neon(const void *ctx, const void *src, void *dst, size_t n);
void sk_cast_bf16_f32__neon(const void *ctx, const void *src, void *dst, size_t n);
size_t sk_cast_f32_bf16_every_other__neon(const void *ctx, const void *src, void *dst, size_t n);
size_t sk_cast_bf16_f32_every_other__neon(const void *ctx, const void *src, void *dst, size_t n);
void sk_cast_f32_bf16_tile__neon(const void *ctx, const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                                 size_t rows, size_t cols);
void sk_cast_bf16_f32_tile__neon(const void *ctx, const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch,
                                 size_t rows, size_t cols);
#endif

#endif
