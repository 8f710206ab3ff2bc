"""Hurray: the per-tensor affine descriptor, dequantization and the bridge to
the A65 Dequant."""
