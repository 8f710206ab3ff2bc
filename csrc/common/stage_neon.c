/* The NEON route's staging (stage.h): de-interleaving loads (LD2) for
 * every second element, (16/size)-square transpose blocks in registers
 * (TRN1/TRN2), and 16-byte line copies.  Elements move as bit patterns, so
 * every path agrees bit for bit; the vector blocks only load bytes between
 * elements that are read anyway.  Line copies never stream: no AArch64
 * hardware here could show non-temporal pair stores (STNP) paying for
 * themselves (docs/PERF.md). */
#include "stage.h"
#include "stage_blocks.h"
#include "kernel.h"
#if SK_HAVE_NEON
#include "neon.h"

/* Blocks of 16 bytes of output from 32 bytes of input (the block's elements
 * and the gap after each), only while another element of the run follows,
 * so that the last gap lies inside the run.  Returns the elements written. */
static inline __attribute__((always_inline)) size_t every_other(const char *src, char *dst, size_t n, size_t size) {
    const size_t per_block = 16 / size;
    size_t k = 0;
    for (; k + per_block < n; k += per_block, src += 32, dst += 16) {
        const uint8_t *s = (const uint8_t *)(const void *)src;
        uint8_t *d = (uint8_t *)(void *)dst;
        if (size == 1)
            vst1q_u8(d, vld2q_u8(s).val[0]);
        else if (size == 2)
            vst1q_u16((uint16_t *)(void *)d, vld2q_u16((const uint16_t *)(const void *)s).val[0]);
        else
            vst1q_u32((uint32_t *)(void *)d, vld2q_u32((const uint32_t *)(const void *)s).val[0]);
    }
    return k;
}

static void gather(const char *src, ptrdiff_t step, char *dst, size_t n, size_t size) {
    size_t k = 0;
    if (step == 2 * (ptrdiff_t)size)
        k = size == 1   ? every_other(src, dst, n, 1)
            : size == 2 ? every_other(src, dst, n, 2)
                        : every_other(src, dst, n, 4);
    sk_stage_gather_elements(src + (ptrdiff_t)k * step, step, dst + k * size, n - k, size);
}

/* A (16/size)-square block (neon.h), rows src_pitch apart, into rows
 * dst_pitch apart.  Moving pointers: each load and store post-increments
 * by the pitch (a register), where separate addresses cost an ADD each. */
static inline __attribute__((always_inline)) void transpose_block(const char *src, ptrdiff_t src_pitch, char *dst,
                                                                  ptrdiff_t dst_pitch, size_t size) {
    const int n = (int)(16 / size);
    uint8x16_t v[16];
#pragma GCC unroll 16
    for (int r = 0; r < n; ++r, src += src_pitch) v[r] = vld1q_u8((const uint8_t *)(const void *)src);
    sk_neon_transpose(v, (int)size);
#pragma GCC unroll 16
    for (int c = 0; c < n; ++c, dst += dst_pitch) vst1q_u8((uint8_t *)(void *)dst, v[c]);
}

static void transpose(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t rows, size_t cols,
                      size_t size) {
    sk_stage_blocks(src, src_pitch, dst, dst_pitch, rows, cols, size, 0, 1, transpose_block);
    const size_t b = 16 / size;
    sk_stage_transpose_rest(src, src_pitch, dst, dst_pitch, rows, cols, size, rows / b * b, cols / b * b);
}

/* 32- then 16-byte moves; a line of 16 bytes or more ends with a 16-byte
 * move that ends at its end (it may overlap the one before: the same bytes,
 * written twice); shorter lines move byte by byte. */
static void copy_lines(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t lines, size_t bytes,
                       int stream) {
    (void)stream;
    for (size_t i = 0; i < lines; ++i, src += src_pitch, dst += dst_pitch) {
        const uint8_t *s = (const uint8_t *)(const void *)src;
        uint8_t *d = (uint8_t *)(void *)dst;
        size_t k = 0;
        for (; k + 32 <= bytes; k += 32) vst1q_u8_x2(d + k, vld1q_u8_x2(s + k));
        for (; k + 16 <= bytes; k += 16) vst1q_u8(d + k, vld1q_u8(s + k));
        if (k < bytes && bytes >= 16)
            vst1q_u8(d + bytes - 16, vld1q_u8(s + bytes - 16));
        else
            for (; k < bytes; ++k) d[k] = s[k];
    }
}

static void fence(void) {}

const sk_stage sk_stage_neon = {gather, sk_stage_scatter_elements, transpose, copy_lines, fence, 0};
#endif
