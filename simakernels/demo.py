"""``python -m simakernels demo`` (``make run``): what the library does, in
about thirty lines of output and well under five seconds on a workstation.

1. a realistic weight tensor quantized to INT8 and back, with error statistics;
2. the specification's BF16 rounding examples (nearest-even on the bits, the
   staged Dequant product 718 -> 720, not 716);
3. a strided view processed in place, equal to NumPy's expression;
4. an EV74 packet: the 224-byte descriptor's fields, bound and run on the host
   (the device model, and the EV74 kernel itself where an OpenCL runtime is)
   device model, equal to the A65 result;
5. timings against NumPy / ml_dtypes on 4M elements.
"""
from __future__ import annotations

import platform
import struct
import sys
import time
from typing import Any, Callable, List, Tuple, TypeVar, Union

import ml_dtypes
import numpy as np

from . import __version__, a65, ev74
from .arrays import cast, dequantize, quantize
from .core import DType, Error, TensorSpec
from .ev74.quant import Descriptor
from .ops import cast as ops_cast
from .ops import dequant as ops_dequant
from .ops import quant as ops_quant

_BF16 = ml_dtypes.bfloat16
_T = TypeVar("_T")


def _best_time(fn: Callable[[], object], repeat: int = 7) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _ok(value: Union[_T, Error]) -> _T:
    if isinstance(value, Error):
        raise RuntimeError(f"demo: {value.code.name}: {value.message}")
    return value


def _section_round_trip(rng: np.random.Generator) -> Tuple[bool, np.ndarray, np.float32]:
    print("1. A weight tensor (1024 x 1024, normal x 0.05) quantized per tensor to INT8 and back:")
    weights = rng.standard_normal((1024, 1024), dtype=np.float32) * np.float32(0.05)
    scale = np.float32(np.abs(weights).max() / 127)          # symmetric: the largest weight -> 127
    q = quantize(weights, np.float32(1) / scale)              # multiplier = 1/scale, nearest-even
    back = dequantize(q, scale)
    err = back.astype(np.float64) - weights
    rms = float(np.sqrt(np.mean(err ** 2)))
    snr = 10 * np.log10(float(np.mean(weights.astype(np.float64) ** 2)) / rms ** 2)
    print(f"   scale {float(scale):.4e}, q in [{q.min()}, {q.max()}], 1 byte per weight instead of 4")
    print(f"   max |error| {np.abs(err).max():.4e} = {np.abs(err).max() / scale:.6f} x scale "
          "(1/2 + binary32 rounding)")
    print(f"   RMS error {rms:.3e}, signal-to-noise ratio {snr:.1f} dB")
    # 1/scale, the product and q * scale are each rounded to binary32: the
    # bound scale/2 holds up to a few 2^-24 of scale (never 2^-14).
    return bool(np.abs(err).max() <= scale / 2 * (1 + 2 ** -14)), weights, scale


def _section_bf16() -> bool:
    print("\n2. BF16 rounding, as the specification works it out:")
    words = [(0x44338000, "a midpoint: ties to even"), (0x44338001, "just above the midpoint"),
             (0x7F800001, "the rule has no NaN case"), (0xFFFFFFFF, "the addition wraps around")]
    x = np.array([w for w, _ in words], np.uint32).view(np.float32)
    y = cast(x, DType.BFLOAT16)
    out = y.view(np.uint16)
    for (word, what), f, b, v in zip(words, x, out, y.astype(np.float32)):
        left, right = f"fp32 {word:#010x} = {float(f):.7g}", f"bf16 {int(b):#06x} = {float(v):g}"
        print(f"   cast    {left:<26} -> {right:<18} {what}")
    p = ops_dequant.Params.from_bits(0x4037CED9, -123)
    f32 = dequantize(np.array([127], np.int8), p.scale, -123)
    bf = dequantize(np.array([127], np.int8), p.scale, -123, dtype=DType.BFLOAT16)
    exact = (127 + 123) * float(p.scale)                      # exact in binary64 (8 + 24 bits)
    print(f"   dequant q=127, zero point -123, scale bits 0x4037ced9: exact product {exact:.6f},")
    print(f"          FP32 {float(f32[0])} -> BF16 {float(bf[0])} ({int(bf.view(np.uint16)[0]):#06x}); "
          "rounding the exact product directly would give 716 (0x4433)")
    return out.tolist() == [0x4434, 0x4434, 0x7F80, 0x0000] and int(bf.view(np.uint16)[0]) == 0x4434


def _section_strided(weights: np.ndarray) -> bool:
    print("\n3. Strided views run in place: no copy in, results written straight into a view of `out`:")
    view = weights[:512, ::2]                                 # every other column
    out = np.zeros((512, 1024), _BF16)
    cast(view, DType.BFLOAT16, out=out[:, 1::2])              # odd columns of a bigger array
    same = np.array_equal(out[:, 1::2].view(np.uint16), view.astype(_BF16).view(np.uint16))
    untouched = not out[:, ::2].view(np.uint16).any()
    print(f"   cast(weights[:512, ::2], out=out[:, 1::2]): input strides {view.strides}, "
          f"output strides {out[:, 1::2].strides}")
    print(f"   equals ml_dtypes' astype bit for bit: {same}; even columns of out untouched: {untouched}")
    t = weights[:256, :384].T
    q = quantize(t, 21.5, 3)
    expected = np.clip(np.rint(t * np.float32(21.5)) + 3, -128, 127).astype(np.int8)
    equal = np.array_equal(q, expected)
    print(f"   quantize(weights[:256, :384].T, 21.5, 3): strides {t.strides}, "
          f"equals NumPy's clip(rint(x*m) + zp): {equal}")
    return same and untouched and equal


def _descriptor_lines(descriptor: bytes, d: Descriptor) -> List[str]:
    """A short field listing: the header from the bytes, the rest as the
    device-side decoder validated it."""
    magic, version, length = struct.unpack_from("<IHH", descriptor)
    m = float(np.array(d.multiplier_bits, np.uint32).view(np.float32))
    return [
        f"magic {magic:#010x} ({descriptor[:4].decode()!r}), version {version}, length {length} bytes",
        f"conversion {d.conversion.name} -> INT8, rank {d.rank}, flags {d.flags:#x}, count {d.count}",
        f"extents {d.extents}, byte strides: input {d.input_strides}, output {d.output_strides}",
        f"spans: input {d.input_span} bytes, output {d.output_span} bytes; "
        f"address slots {d.input_address:#x}, {d.output_address:#x} (relocatable)",
        f"multiplier {d.multiplier_bits:#010x} ({m:.6g}), zero point {d.zero_point}, "
        f"rounding {d.rounding.name.lower()}",
    ]


def _section_ev74(weights: np.ndarray, scale: np.float32) -> bool:
    print("\n4. The same quantization as an EV74 packet (first 8 rows), run on the host device model:")
    x = np.ascontiguousarray(weights[:8])
    multiplier = np.float32(1) / scale
    request = ops_quant.Request([TensorSpec(x.shape, DType.FLOAT32)], [TensorSpec(x.shape, DType.INT8)],
                                ops_quant.Params(multiplier))
    plan = _ok(ev74.quant.check_inference(request))
    packet = _ok(ev74.quant.encode_relocatable(plan))
    decoded = _ok(ev74.quant.decode(packet.descriptor))
    print(f"   relocatable packet, {len(packet.descriptor)}-byte descriptor:")
    for line in _descriptor_lines(packet.descriptor, decoded):
        print(f"     {line}")
    done, result, src, dst = _run_packet("model", packet, plan, x)
    kinds = "/".join(sorted({u.kind for u in done.units}))
    equal = np.array_equal(result, quantize(x, multiplier))
    print(f"   bound to device {src.address:#x} -> {dst.address:#x}: {len(done.units)} {kinds} work units "
          f"on {done.workgroups} workgroup{'s' if done.workgroups > 1 else ''}; equals sk.quantize: {equal}")
    try:
        kernel_done, kernel_result, _, _ = _run_packet("opencl", packet, plan, x)
    except RuntimeError as exc:  # no OpenCL runtime on this machine
        print(f"   the EV74 kernel itself (OpenCL C) does not run here: {exc}")
        return equal
    same = kernel_done == done and np.array_equal(kernel_result, result)
    print(f"   the same packet through the EV74 kernel itself (OpenCL C on this host's OpenCL runtime): "
          f"the same bytes and work units: {same}")
    return equal and same


def _run_packet(engine: str, packet: Any, plan: Any, x: np.ndarray) -> Tuple[Any, np.ndarray, Any, Any]:
    """(Completion, INT8 result, input region, output region) of the packet
    bound and run on a Device of ``engine``."""
    with ev74.Device(engine=engine) as device:
        src, dst = device.allocate(x.nbytes), device.allocate(x.size)
        device.write(src, x)
        bound = _ok(ev74.quant.bind(packet, plan, [src], [dst]))
        done = _ok(device.submit(bound).result())
        return done, np.frombuffer(device.read(dst), np.int8).reshape(x.shape), src, dst


def _section_timing(rng: np.random.Generator) -> None:
    n = 1 << 22
    probe = ops_cast.Request([TensorSpec((n,), DType.FLOAT32)], [TensorSpec((n,), DType.BFLOAT16)])
    route = _ok(a65.cast.check_inference(probe)).route
    print(f"\n5. Time per call on {n >> 20}M elements, route {route} (best of 7, one thread; "
          "> 1x: simakernels is faster):")
    x = rng.standard_normal(n, dtype=np.float32)
    q = rng.integers(-128, 128, n, dtype=np.int8)
    y, f, i8 = np.empty(n, _BF16), np.empty(n, np.float32), np.empty(n, np.int8)
    m, s, zp = np.float32(21.5), np.float32(0.05), 3
    xs = x.reshape(2048, 2048)[:, ::2]
    ys = np.empty(xs.shape, _BF16)
    rows: List[Tuple[str, Callable[[], object], str, Callable[[], object]]] = [
        ("cast FP32->BF16", lambda: cast(x, DType.BFLOAT16, out=y), "ml_dtypes astype", lambda: x.astype(_BF16)),
        ("cast x[:, ::2] (2M)", lambda: cast(xs, DType.BFLOAT16, out=ys), "ml_dtypes astype",
         lambda: xs.astype(_BF16)),
        ("dequantize INT8->FP32", lambda: dequantize(q, s, zp, out=f), "NumPy (q - zp) * s",
         lambda: np.multiply(np.subtract(q, np.float32(zp), dtype=np.float32), s, out=f)),
        ("quantize FP32->INT8", lambda: quantize(x, m, zp, out=i8), "NumPy clip(rint(x*m) + zp)",
         lambda: np.clip(np.rint(x * m) + zp, -128, 127).astype(np.int8)),
    ]
    for name, ours, peer_name, peer in rows:
        ours()  # warm: plan cache, page faults
        a, b = _best_time(ours), _best_time(peer)
        print(f"   {name:<22} {a * 1e3:6.2f} ms   {peer_name:<26} {b * 1e3:6.2f} ms   {b / a:5.1f}x")


def run() -> int:
    rng = np.random.default_rng(7)
    routes = ", ".join(a65.available_routes())
    print(f"simakernels {__version__} on {platform.machine()}, routes {routes} (best first)\n")
    bounded, weights, scale = _section_round_trip(rng)
    held = {"1": bounded, "2": _section_bf16(), "3": _section_strided(weights), "4": _section_ev74(weights, scale)}
    _section_timing(rng)
    print("\nMore: README.md, examples/*.py; python -m simakernels bench (the full table) | selftest | info")
    failed = [section for section, ok in held.items() if not ok]
    if failed:
        print(f"demo: the results of section(s) {', '.join(failed)} differ from what they should be", file=sys.stderr)
        return 1
    return 0
