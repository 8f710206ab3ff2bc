"""An EV74 Quant packet from plan to result on the host device model.

Shows the EV74 host codec step by step: admit a Quant request for the
device (``sk.ev74.quant.check_inference``, 32-bit device domain), encode a
relocatable packet (the 224-byte descriptor with zero address slots), read
the descriptor's fields back (``sk.ev74.quant.decode``, the device-side
validation), bind it to buffers allocated on ``sk.ev74.Device`` (the host
model of the EV74), submit it, and compare the device's output with
``sk.quantize`` on the CPU: the same bits.  The input here is a strided view
(every other column of its buffer), so the descriptor carries byte strides.

Run: ``python examples/ev74_packet.py`` with the wheel installed, or in a checkout
after ``make build``: ``.venv/bin/python examples/ev74_packet.py``.
"""
import struct

import numpy as np

import simakernels as sk


def ok(value):
    """The value, or a clear failure for an sk.Error (the codec returns errors, never raises)."""
    if isinstance(value, sk.Error):
        raise SystemExit(f"{value.code.name}: {value.message}")
    return value


rng = np.random.default_rng(74)
parent = rng.standard_normal((16, 256), dtype=np.float32)   # host data, 16 KiB
x = parent[:, ::2]                                          # the tensor to quantize: 16 x 128, strided
multiplier, zero_point = np.float32(40.0), -5

# 1. The request: FP32 every other column in, dense INT8 out.
spec_in = sk.TensorSpec(x.shape, sk.DType.FLOAT32, sk.Strided(x.strides))
spec_out = sk.TensorSpec(x.shape, sk.DType.INT8)
request = sk.ops.quant.Request([spec_in], [spec_out],
                               sk.ops.quant.Params(multiplier, zero_point, "toward_zero"))
plan = ok(sk.ev74.quant.check_inference(request))
packet = ok(sk.ev74.quant.encode_relocatable(plan))

# 2. The descriptor's fields (docs/ev74_descriptor.md has the layout).
raw = packet.descriptor
magic, version, length = struct.unpack_from("<IHH", raw)
d = ok(sk.ev74.quant.decode(raw))
print(f"relocatable packet: {len(raw)}-byte descriptor")
for name, value in [
    ("magic", f"{magic:#010x} ({raw[:4].decode()!r})"), ("version", version), ("length", length),
    ("conversion", f"{d.conversion.name} -> INT8"), ("rank", d.rank), ("flags", f"{d.flags:#x}"),
    ("address slots", f"input {d.input_address:#x}, output {d.output_address:#x} (bound: {d.bound})"),
    ("element count", d.count), ("input span", f"{d.input_span} bytes"), ("output span", f"{d.output_span} bytes"),
    ("extents", d.extents), ("input strides", d.input_strides), ("output strides", d.output_strides),
    ("multiplier", f"{d.multiplier_bits:#010x} = {float(np.uint32(d.multiplier_bits).view(np.float32))}"),
    ("zero point", d.zero_point), ("rounding", d.rounding.name.lower()),
]:
    print(f"  {name:<14} {value}")

# 3. Device buffers, binding, submission.
need_in, = plan.input_requirements()
need_out, = plan.output_requirements()
with sk.ev74.Device() as device:
    src = device.allocate(need_in.nbytes)                           # 64-byte aligned device regions
    dst = device.allocate(need_out.nbytes)
    device.write(src, parent.reshape(-1)[:need_in.nbytes // 4])   # the accessed span of the parent buffer
    bound = ok(sk.ev74.quant.bind(packet, plan, [src], [dst]))    # a new packet; `packet` stays relocatable
    done = ok(device.submit(bound).result())
    device_out = np.frombuffer(device.read(dst), np.int8).reshape(x.shape)

b = ok(sk.ev74.quant.decode(bound.descriptor))
kinds = {kind: sum(u.kind == kind for u in done.units) for kind in sorted({u.kind for u in done.units})}
same_elsewhere = raw[:24] + raw[40:] == bound.descriptor[:24] + bound.descriptor[40:]
print(f"bound packet: input slot {b.input_address:#x}, output slot {b.output_address:#x} "
      f"(the only bytes that changed: {same_elsewhere})")
# A strided input shares no contiguous run with the output, so the model moves
# single elements ("scatter"); dense tensors move DMA blocks or vector rows.
print(f"device ran {len(done.units)} work units ({', '.join(f'{n} {k}' for k, n in kinds.items())}) "
      f"on {done.workgroups} workgroups")

# 4. The same request on the CPU, through the array layer.
cpu_out = sk.quantize(x, multiplier, zero_point, rounding="toward_zero")
assert np.array_equal(device_out, cpu_out)
print(f"device output equals sk.quantize(x, {float(multiplier)}, {zero_point}, rounding='toward_zero')")
print(f"    {device_out.size} int8 values, first row starts {device_out[0, :8].tolist()}")
