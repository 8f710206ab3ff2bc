"""Quantize a weight tensor per tensor to INT8 and dequantize it back.

Shows the array layer on a realistic tensor (512 x 512 weights, normal
distribution x 0.05): a symmetric per-tensor scale (the largest weight maps
to 127), ``sk.quantize`` with the multiplier 1/scale, ``sk.dequantize`` back
to FP32, and the error statistics, with the bound every round-to-nearest
quantizer must meet: |error| <= scale/2.

Run: ``python examples/quantize_weights.py`` with the wheel installed, or in a checkout
after ``make build``: ``.venv/bin/python examples/quantize_weights.py``.
"""

import numpy as np

import simakernels as sk

rng = np.random.default_rng(2024)
weights = rng.standard_normal((512, 512), dtype=np.float32) * np.float32(0.05)

scale = np.float32(np.abs(weights).max() / 127)    # symmetric per-tensor scale, zero point 0
multiplier = np.float32(1) / scale                 # Quant multiplies: q = round(x * multiplier)
q = sk.quantize(weights, multiplier)               # int8, nearest-even, saturating
restored = sk.dequantize(q, scale)                 # float32: (q - 0) * scale

# The contract, checked exactly: q is the nearest-even integer to the binary32
# product x * multiplier, so it is never more than half a step away from it.
product = weights * multiplier                     # NumPy: the same binary32 product
assert np.array_equal(q, np.clip(np.rint(product), -128, 127).astype(np.int8))
assert np.abs(q - product.astype(np.float64)).max() <= 0.5

# In the weights' units the bound is scale/2, up to binary32 rounding: 1/scale,
# the product and q * scale are each rounded (a few 2^-24 relative), so the
# largest error may exceed scale/2 by about 1e-5 of it, never by 2^-14.
error = restored.astype(np.float64) - weights
max_error = float(np.abs(error).max())
rms = float(np.sqrt(np.mean(error ** 2)))
snr_db = 10 * np.log10(float(np.mean(weights.astype(np.float64) ** 2)) / rms ** 2)
assert max_error <= float(scale) / 2 * (1 + 2 ** -14), (max_error, float(scale))

print(f"weights: {weights.shape} float32, |w| <= {np.abs(weights).max():.4f}, "
      f"{weights.nbytes} bytes -> {q.nbytes} bytes as int8")
print(f"scale {float(scale):.6e} (multiplier {float(multiplier):.4f}), q in [{q.min()}, {q.max()}]")
print(f"max |error| {max_error:.4e} = {max_error / float(scale):.6f} x scale  (bound: 1/2, plus binary32 rounding)")
print(f"RMS error   {rms:.4e} (uniform rounding noise would be scale/sqrt(12) = {float(scale) / 12 ** 0.5:.4e})")
print(f"SNR         {snr_db:.1f} dB")
