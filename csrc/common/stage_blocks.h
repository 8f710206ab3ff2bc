/* The order in which the vector stagings (stage_neon.c, stage_sse2.c,
 * stage_avx2.c) transpose a matrix's blocks. */
#ifndef SK_COMMON_STAGE_BLOCKS_H
#define SK_COMMON_STAGE_BLOCKS_H
#include <stddef.h>

/* A block of the transpose: its source corner, rows src_pitch apart, into
 * its destination corner, rows dst_pitch apart. */
typedef void sk_stage_block_fn(const char *src, ptrdiff_t src_pitch, char *dst, ptrdiff_t dst_pitch, size_t size);

/* Every whole (16/size)-square block, `wide` blocks side by side, from
 * column c_begin on; size is a constant here, so `block` (an always_inline
 * function, inlined) unrolls straight.  The rows of whichever side is
 * farther apart (the tensor, not the scratch) are finished one group at a
 * time, so that each of its cache lines is completed while it is in L1. */
static inline __attribute__((always_inline)) void sk_stage_blocks_of(const char *src, ptrdiff_t src_pitch, char *dst,
                                                                     ptrdiff_t dst_pitch, size_t rows, size_t cols,
                                                                     size_t size, size_t c_begin, size_t wide,
                                                                     sk_stage_block_fn *block) {
    const size_t height = 16 / size, width = wide * height;
    if (dst_pitch > src_pitch) {
        for (size_t c = c_begin; c + width <= cols; c += width)
            for (size_t r = 0; r + height <= rows; r += height)
                block(src + (ptrdiff_t)r * src_pitch + (ptrdiff_t)(c * size), src_pitch,
                      dst + (ptrdiff_t)c * dst_pitch + (ptrdiff_t)(r * size), dst_pitch, size);
    } else {
        for (size_t r = 0; r + height <= rows; r += height)
            for (size_t c = c_begin; c + width <= cols; c += width)
                block(src + (ptrdiff_t)r * src_pitch + (ptrdiff_t)(c * size), src_pitch,
                      dst + (ptrdiff_t)c * dst_pitch + (ptrdiff_t)(r * size), dst_pitch, size);
    }
}
/* The same for an element size of 1, 2 or 4 bytes. */
static inline __attribute__((always_inline)) void sk_stage_blocks(const char *src, ptrdiff_t src_pitch, char *dst,
                                                                  ptrdiff_t dst_pitch, size_t rows, size_t cols,
                                                                  size_t size, size_t c_begin, size_t wide,
                                                                  sk_stage_block_fn *block) {
    switch (size) {
    case 1:
        sk_stage_blocks_of(src, src_pitch, dst, dst_pitch, rows, cols, 1, c_begin, wide, block);
        break;
    case 2:
        sk_stage_blocks_of(src, src_pitch, dst, dst_pitch, rows, cols, 2, c_begin, wide, block);
        break;
    default:
        sk_stage_blocks_of(src, src_pitch, dst, dst_pitch, rows, cols, 4, c_begin, wide, block);
        break;
    }
}

#endif
