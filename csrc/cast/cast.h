/* Cast leaves: the prototypes of every line of the registry. */
#ifndef SK_CAST_H
#define SK_CAST_H
#include "../common/kernel.h"

#define SK_CAST_VARIANTS 2 /* enum sk_cast_kind */
#define SK_LEAF SK_LEAF_DECLARE
#include "cast_kernels.inc"
#undef SK_LEAF

/* The kernel table, [route][kind] (cast.c). */
extern const sk_kernel sk_cast_kernels[SK_ROUTE_COUNT][SK_CAST_VARIANTS];

#endif
