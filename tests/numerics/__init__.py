"""Bit-for-bit numerics of Cast, Dequant and Quant on every route, and the
routes' fast paths and tables."""
