"""The array layer (sk.cast, sk.dequantize, sk.quantize): inputs, plan cache,
workers, docstrings, and plan pickling."""
