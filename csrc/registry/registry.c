/* The module's kernel registry (sk_leaf_at): every operation's registry
 * file, a row per leaf function.  It sits above the operations: nothing
 * below reads it. */
#include "../cast/cast.h"
#include "../quant/quant.h"
#include "../dequant/dequant.h"
#include "../range/range.h"
#include "../affine/affine.h"

static const sk_leaf_info leaves[] = {
#define SK_LEAF SK_LEAF_INFO
#define SK_LEAF_OPERATION SK_OP_CAST
#include "../cast/cast_kernels.inc"
#undef SK_LEAF_OPERATION
#define SK_LEAF_OPERATION SK_OP_QUANT
#include "../quant/quant_kernels.inc"
#undef SK_LEAF_OPERATION
#define SK_LEAF_OPERATION SK_OP_DEQUANT
#include "../dequant/dequant_kernels.inc"
#undef SK_LEAF_OPERATION
#define SK_LEAF_OPERATION SK_OP_RANGE
#include "../range/range_kernels.inc"
#undef SK_LEAF_OPERATION
#define SK_LEAF_OPERATION SK_OP_AFFINE_QUANT
#include "../affine/affine_quant_kernels.inc"
#undef SK_LEAF_OPERATION
#define SK_LEAF_OPERATION SK_OP_AFFINE_DEQUANT
#include "../affine/affine_dequant_kernels.inc"
#undef SK_LEAF_OPERATION
#undef SK_LEAF
};

size_t sk_leaf_count(void) { return sizeof leaves / sizeof leaves[0]; }

const sk_leaf_info *sk_leaf_at(size_t index) { return index < sk_leaf_count() ? &leaves[index] : NULL; }
