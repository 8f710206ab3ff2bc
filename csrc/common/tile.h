/* The tiler (tile.c): transposes walked in tiles through the route's
 * staging. */
#ifndef SK_COMMON_TILE_H
#define SK_COMMON_TILE_H
#include "kernel.h"
#include "stage.h"

/* Whether the walk's inner run and fastest outer axis form a transpose. */
int sk_tile_axes_of(const sk_walk *w, sk_tile_axes *t);

/* One plane of the transpose: in cache tiles (space NULL; the kernel's
 * fused tile leaf converts each one where it has one) or, for walks beyond
 * the cache and streamed outputs, ordered tiles in `space`
 * (SK_ORDERED_SPACE bytes) whose output lines are copied out whole. */
void sk_tile_plane(const sk_walk *w, const sk_tile_axes *t, const char *src, char *dst, const sk_kernel *kernel,
                   const void *ctx, const sk_stage *stage, int stream, char *space);

#endif
