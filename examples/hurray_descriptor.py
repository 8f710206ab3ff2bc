"""Read, use and write a Hurray per-tensor affine descriptor.

Shows ``sk.formats.hurray``: decode the 16-byte descriptor (scheme tag 0x01)
from bytes for a given storage type, print its fields, dequantize packed
INT4 storage with it (``x = scale * (q - zero_point)``, elements packed
little-end first), check the result against NumPy, encode the descriptor back
to the same bytes, build a new one for INT8 storage, and show what the strict
reader refuses.

Run: ``python examples/hurray_descriptor.py`` with the wheel installed, or in a checkout
after ``make build``: ``.venv/bin/python examples/hurray_descriptor.py``.
"""
import struct

import numpy as np

import simakernels as sk

H = sk.formats.hurray

# 1. Read: 16 bytes as they would arrive in a model file.
raw = bytes.fromhex("010100000000803efdffffff00000000")
tag, version, flags, scale_bits, zero_point, reserved = struct.unpack("<BBHIi4s", raw)
print(f"descriptor bytes {raw.hex()}")
print(f"  scheme tag {tag:#04x}, version {version}, flags {flags:#06x}, scale bits {scale_bits:#010x}, "
      f"zero point {zero_point}, reserved {reserved.hex()}")
desc = H.PerTensorAffine.decode(raw, H.StorageType.INT4)            # validated for INT4 storage
print(f"  decoded for INT4 storage: scale {desc.scale}, zero point {desc.zero_point}")

# 2. Dequantize packed INT4 storage: two elements per byte, element 0 in the low nibble.
packed = bytes([0x21, 0xF3, 0x7F, 0x80])
values = H.dequantize(packed, desc, H.StorageType.INT4)
nibbles = np.stack([np.frombuffer(packed, np.uint8) & 0xF, np.frombuffer(packed, np.uint8) >> 4], 1).reshape(-1)
q = np.where(nibbles >= 8, nibbles.astype(np.int32) - 16, nibbles)     # two's-complement 4-bit values
expected = (q - np.int32(desc.zero_point)).astype(np.float32) * np.float32(desc.scale)
assert np.array_equal(values.view(np.uint32), expected.view(np.uint32))
print(f"INT4 storage {packed.hex()} holds q = {q.tolist()}")
print(f"  dequantized: {values.tolist()}  = (q - ({desc.zero_point})) * {desc.scale}, as NumPy computes it")
print(f"  the first 3 only (count=3): {H.dequantize(packed, desc, H.StorageType.INT4, count=3).tolist()}")

# 3. Write: encoding gives back the same 16 bytes.
assert desc.encode() == raw
print(f"encode() -> {desc.encode().hex()}: the same bytes, round trip exact")

# 4. A new descriptor for INT8 storage; INT8 with a positive scale runs through the Dequant kernel.
new = H.PerTensorAffine(scale=0.02, zero_point=-10)
wire = new.encode()
again = H.PerTensorAffine.decode(wire, H.StorageType.INT8)
assert again == new
data = np.array([-128, -10, 0, 45, 127], np.int8)
out = H.dequantize(data.tobytes(), again, H.StorageType.INT8)
assert np.array_equal(out, sk.dequantize(data, np.float32(0.02), -10))
print(f"new INT8 descriptor {wire.hex()}: scale 0.02 stored as binary32 {float(again.scale):.10g}")
print(f"  q = {data.tolist()} -> [{', '.join(f'{v:.7g}' for v in out)}], equal to sk.dequantize")

# 5. The reader is strict: each violation names the field at fault.
for what, bad, storage in [
    ("flags set", raw[:2] + b"\x01\x00" + raw[4:], H.StorageType.INT4),
    ("zero point -3 for unsigned storage", raw, H.StorageType.UINT4),
    ("15 bytes", raw[:15], H.StorageType.INT4),
]:
    try:
        H.PerTensorAffine.decode(bad, storage)
    except H.HurrayFormatError as exc:
        print(f"refused ({what}): {exc}")
    else:
        raise AssertionError(f"{what}: accepted")
