"""Strided views without copies: every other column, a transpose, and a
padded-row output through the contract layer.

Shows that the kernels read and write NumPy views in place (any nonnegative
byte strides, no hidden copy) and that the results equal NumPy's own
expression bit for bit:

* the array layer on ``x[:, ::2]`` and ``x.T``, including ``out=`` a view;
* the contract layer (``sk.TensorSpec`` + ``sk.Strided``, then
  ``sk.a65.<op>.check_inference`` / ``execute``): the input described as every
  other column of its parent buffer, the output as rows padded to a pitch,
  bound to one ``bytearray``; the padding bytes are never written.

Run: ``python examples/strided_views.py`` with the wheel installed, or in a checkout
after ``make build``: ``.venv/bin/python examples/strided_views.py``.
"""

import ml_dtypes
import numpy as np

import simakernels as sk

rng = np.random.default_rng(1)
x = rng.standard_normal((6, 8), dtype=np.float32) * np.float32(4)


def same_bits(a, b):
    """Bit for bit (NaN payloads included), whatever the two layouts."""
    bits = f"u{a.itemsize}"
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a.view(bits), b.view(bits))


# 1. Every other column: a view with a column stride of 8 bytes, read in place.
cols = x[:, ::2]
y = sk.cast(cols, sk.DType.BFLOAT16)
assert not cols.flags.c_contiguous and same_bits(y, cols.astype(ml_dtypes.bfloat16))
print(f"cast(x[:, ::2], bfloat16)      input {cols.shape}, strides {cols.strides}")
print("    equals x[:, ::2].astype(ml_dtypes.bfloat16)")

# 2. A transpose (strides (4, 32)), quantized, into `out=` every other row of a bigger array.
m, zp = np.float32(10.0), -3
out = np.zeros((16, 6), np.int8)
sk.quantize(x.T, m, zp, out=out[::2])
expected = np.clip(np.rint(x.T * m) + zp, -128, 127).astype(np.int8)
assert same_bits(out[::2], expected) and not out[1::2].any()
print(f"quantize(x.T, out=out[::2])    input strides {x.T.strides}, output strides {out[::2].strides}")
print("    equals clip(rint(x.T * m) + zp, -128, 127); the odd rows of out are untouched")

# 3. Dequantize a transposed INT8 view.
q = rng.integers(-128, 128, (5, 7), dtype=np.int8)
scale = np.float32(0.05)
d = sk.dequantize(q.T, scale, zp)
assert same_bits(d, (q.T.astype(np.float32) - np.float32(zp)) * scale)
print(f"dequantize(q.T, scale, zp)     input strides {q.T.strides}")
print("    equals (float32(q.T) - float32(zp)) * scale")

# 4. The contract layer: the input is every other column of x's buffer, the
#    output has rows padded to a pitch of 8 BF16 elements (16 bytes).
rows, n = cols.shape
spec_in = sk.TensorSpec((rows, n), sk.DType.FLOAT32, sk.Strided((x.strides[0], 2 * x.itemsize)))
spec_out = sk.TensorSpec((rows, n), sk.DType.BFLOAT16, sk.Strided((16, 2)))
plan = sk.a65.cast.check_inference(sk.ops.cast.Request([spec_in], [spec_out]))
assert not isinstance(plan, sk.Error), plan
need_in, = plan.input_requirements()
need_out, = plan.output_requirements()
dst = bytearray(b"\xa5" * need_out.nbytes)                      # sentinel: shows what is written
status = sk.a65.cast.execute(plan, [x], [dst])                    # x: the whole parent, bound as is
assert status is None, status
result = np.ndarray((rows, n), ml_dtypes.bfloat16, buffer=dst, strides=(16, 2))
assert same_bits(result, cols.astype(ml_dtypes.bfloat16))
padding = np.frombuffer(dst, np.uint8).reshape(-1)[[r * 16 + c for r in range(rows - 1) for c in range(2 * n, 16)]]
assert (padding == 0xA5).all()
print(f"a65.cast.execute (route {plan.route})  input: x's buffer, every other column ({need_in.nbytes} bytes "
      f"accessed); output: {need_out.nbytes} bytes in 16-byte rows")
print(f"    equals x[:, ::2].astype(ml_dtypes.bfloat16); the {padding.size} padding bytes are untouched")

# A binding that is too small is refused before anything is written.
short = bytearray(need_out.nbytes - 1)
error = sk.a65.cast.execute(plan, [x], [short])
assert isinstance(error, sk.Error) and not any(short)
print(f"a {len(short)}-byte output is refused, nothing written: {error.code.name}: {error.message}")
