/* Tuning constants of the shared traversal, each with its reason in one
 * line; the measurements behind them are in docs/PERF.md ("Traversal
 * constants"). */
#ifndef SK_COMMON_TUNING_H
#define SK_COMMON_TUNING_H
#include <stddef.h>

/* Staged chunk (elements): amortises a leaf call's head and tail; two
 * scratch buffers of it stay in a 32 KiB L1 beside the leaf's lines. */
#define SK_STAGE_CHUNK 2048

/* Tiles in cache: scratch bytes of the transposed port where the input is
 * transposed (the leaf writes longer output lines) ... */
#define SK_TILE_IN_BYTES 32768
/* ... and where the output is transposed (32 KiB measured slower there). */
#define SK_TILE_OUT_BYTES 16384
/* ... the transposed port's line per tile, in elements: whole 64-byte lines
 * for 1- and 2-byte elements. */
#define SK_TILE_CROSS 64

/* Walks of more than this many bytes (both ports) take ordered tiles:
 * beyond L2, output lines are then written whole. */
#define SK_TILE_BIG ((size_t)8 << 20)
/* Ordered tiles' side in elements (256 for 1-byte outputs): an L2-resident
 * 64 KiB of output at most; larger measured no faster. */
#define SK_ORDERED_SIDE 128
#define SK_ORDERED_SIDE_BYTE_OUT 256
#define SK_ORDERED_BYTES 65536
/* The tile and two ordered tiles (one being copied out while the next is
 * converted), from the heap: on the stack they overflowed small threads. */
#define SK_ORDERED_SPACE (3 * SK_ORDERED_BYTES)
/* Ordered tiles ahead whose input is prefetched: the next one's arrives
 * too late, three or four ahead no faster. */
#define SK_PREFETCH_TILES 2
/* Input rows transposed per prefetch and per share of the pending tile
 * copied out: a whole number of every transpose block's rows. */
#define SK_PREFETCH_ROWS 16
/* Leaf lines per share of the pending tile copied out. */
#define SK_COPY_OUT_LINES 8

/* Rows leaves (NEON): rows a strip of columns goes down with its parameters
 * in registers: their set-up (and, in Dequant's narrow form, the zero
 * points' conversion) stays near 0.04 instructions per element, and a
 * column strip reads that many row streams at once, few enough to stay in
 * L1 beside the output (32 rows of two 64-byte lines). */
#define SK_ROW_GROUP 32

#endif
