/* Test support, kept out of the public interface: process-wide hooks that
 * the test suite uses to reach paths small tensors would not take, and to
 * see which staging ran.  The cffi module declares them (csrc/ffi_build.py);
 * nothing else calls them. */
#ifndef SIMAKERNELS_TESTING_H
#define SIMAKERNELS_TESTING_H
#include <stddef.h>
#include <stdint.h>

/* Makes the streaming-store threshold n bytes for the whole process (0
 * restores the default), so the streaming paths can be checked on small
 * tensors.  Plans decide whether their tiled walks stream when prepared:
 * prepare them after the override. */
void sk_stream_override(size_t bytes);

/* How many staging moves of each kind the walk made with a staging since
 * the process started, keyed by the route that owns that staging code
 * (sk_route_borrows gives the staging a route runs): gathers and scatters
 * per staged chunk, transposes and line copies per tile piece, every_other
 * per run read in place by an every_other leaf, fused tiles per tile
 * converted by a fused tile leaf.  Only test builds count (the builder's
 * SIMAKERNELS_TEST_HOOKS=1); elsewhere -1. */
enum sk_stage_move {
    SK_MOVE_GATHER = 0,
    SK_MOVE_SCATTER = 1,
    SK_MOVE_TRANSPOSE = 2,
    SK_MOVE_COPY_LINES = 3,
    SK_MOVE_EVERY_OTHER = 4,
    SK_MOVE_FUSED_TILE = 5,
    SK_MOVE_COUNT = 6
};
int64_t sk_stage_moves(int staging, int move);

#endif
