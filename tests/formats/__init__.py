"""The Hurray storage types (issue 32): affine_quant (FP32 / BF16 / FP16 ->
INT8, UINT8, INT16, UINT16, INT4, UINT4, INT2, UINT2) and affine_dequant (the
ten types -> FP32 / BF16): exhaustive numerics per route, sizes around the
blocks, per-axis and blocked layouts, packed sub-byte ports and their spare
bits, guard pages, FP environments, admission and the array layer."""
