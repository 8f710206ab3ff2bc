"""Every rejection path and its message (issue 9, "Error quality").

ROWS is a table of every place the package produces an error: each
``Error(ErrorCode..., message)`` in ``simakernels/**/*.py``, each
``HurrayFormatError(...)`` and each ``REJECT(...)`` of the native EV74
decoder (``csrc/ev74/decode.c``), keyed by its source file and message
template.  A row says how to trigger the path, the expected code, a token
that names the port, axis or field at fault and a token holding the offending
value; the test triggers every row and checks all three.

``test_every_rejection_path_has_a_row`` collects the templates from the
sources themselves (Python by AST, C by its REJECT format strings), so a new
rejection path without a row fails the suite, and so does a row whose
template no longer exists.  ``test_every_native_status_is_covered`` does the
same for the status codes the C core returns.
"""
from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path
from typing import Any, Callable, List, NamedTuple, Optional, Tuple
from unittest import mock

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from support.ev74_helpers import set_field
from support.helpers import fp_or_skip, split_freely

E = sk.ErrorCode
F32, BF16, F16, I8 = sk.DType.FLOAT32, sk.DType.BFLOAT16, sk.DType.FLOAT16, sk.DType.INT8
H = sk.formats.hurray
ST = H.StorageType
ev = sk.ev74.quant
Region = sk.ev74.DeviceRegion
ROOT = Path(__file__).resolve().parents[2]   # the repository: its sources, wherever the package is installed
FORMAT_ERROR = "HurrayFormatError"


# ------------------------------------------------------------- triggering


def spec(shape, dtype, strides=None):
    return sk.TensorSpec(shape, dtype, sk.Contiguous() if strides is None else sk.Strided(strides))


def cast_admit(in_spec, out_spec=None, inputs=None):
    """cast.check_inference of one input and one output (or ``inputs``)."""
    out_spec = out_spec if out_spec is not None else spec(in_spec.shape, BF16)
    return sk.ops.cast.check_inference(sk.ops.cast.Request(inputs or [in_spec], [out_spec]))


def cast_plan(n=4):
    return sk.a65.cast.check_inference(sk.ops.cast.Request([spec((n,), F32)], [spec((n,), BF16)]))


def dequant_plan(n=4):
    return sk.a65.dequant.check_inference(sk.ops.dequant.Request(
        [spec((n,), I8)], [spec((n,), F32)], sk.ops.dequant.Params.from_bits(0x3DCCCCCD, 0)))


def raised(fn: Callable[[], Any]) -> Callable[[], Any]:
    """The Error of the KernelError ``fn`` raises (or the exception itself)."""
    def trigger():
        try:
            fn()
        except sk.KernelError as exc:
            return exc.error
        except (H.HurrayFormatError, ValueError) as exc:
            return exc
        return None
    return trigger


def under(state: dict, fn: Callable[[], Any]) -> Callable[[], Any]:
    def trigger():
        with fp_or_skip(**state):
            return fn()
    return trigger


UPWARD = dict(rounding=sk.fenv.Rounding.UPWARD)


def execute_cast(inputs, outputs, plan=None):
    return lambda: sk.a65.cast.execute(plan or cast_plan(), inputs, outputs)


def f32_buf(n=4):
    return np.zeros(n, np.float32)


def bf16_buf(n=4):
    return np.zeros(n, np.uint16)


def misaligned_input():
    raw = np.zeros(24, np.uint8)
    view = raw[1:17]
    return view, f"{view.ctypes.data:#x}"


def corrupted_route_plan():
    plan = cast_plan()
    plan._native.route = 97  # no such route: the native core refuses the plan
    return plan


def readonly(a):
    a.setflags(write=False)
    return a


def unpickled_without_its_route():
    """The Error of loading a pickled scalar-route plan where no route is available."""
    request = sk.ops.quant.Request([spec((2,), F32)], [spec((2,), I8)], sk.ops.quant.Params(1.0))
    data = pickle.dumps(sk.a65.quant.check_inference(request, route="scalar"))
    with mock.patch.object(sk.a65._routes, "_AVAILABLE", {}):
        return raised(lambda: pickle.loads(data))()


def split(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with small tensors split into slabs (the
    rejections of simakernels/_split.py)."""
    with split_freely():
        return fn(*args, **kwargs)


def on_dask(call):
    """The rejection of ``call(simakernels.dask, dask.array)``; a skip where
    the optional Dask layer's packages (requirements-dask.txt) are missing."""
    def trigger():
        da = pytest.importorskip("dask.array")
        import simakernels.dask as skd
        return raised(lambda: call(skd, da))()
    return trigger


def cached_then_readonly(fn):
    """Calls ``fn(out)`` once with a writable ``out`` (the plan is cached),
    then with a read-only array of the same layout."""
    def trigger():
        fn(np.zeros((2, 4), ml_dtypes.bfloat16))
        return raised(lambda: fn(readonly(np.zeros((2, 4), ml_dtypes.bfloat16))))()
    return trigger


def hurray_native_status():
    """The native kernel given a storage code it does not know."""
    saved = dict(H._NATIVE)
    H._NATIVE[ST.INT16] = 77
    try:
        return raised(lambda: H.dequantize(bytes(8), H.PerTensorAffine(np.float32(-1.0)), ST.INT16))()
    finally:
        H._NATIVE.clear()
        H._NATIVE.update(saved)


# EV74: a plan of shape (2, 8) FP32, its packet and regions.
def ev_plan(shape=(2, 8), m=0x3F800000):
    return ev.check_inference(sk.ops.quant.Request([spec(shape, F32)], [spec(shape, I8)],
                                                   sk.ops.quant.Params.from_bits(m, 0)))


def ev_packet():
    return ev.encode_relocatable(ev_plan())


def ev_bind(inputs, outputs, plan=None, packet=None):
    return lambda: ev.bind(packet or ev_packet(), plan or ev_plan(), inputs, outputs)


IN_OK, OUT_OK = Region(0x1000_0000, 64), Region(0x1000_1000, 16)


def bound_descriptor(ia=0x1000, oa=0x2000):
    return ev.encode(ev_plan(), [Region(ia, 64)], [Region(oa, 16)]).descriptor


def decode_with(*changes, base=None):
    """The native decoder's verdict on a bound (2, 8) FP32 descriptor with
    ``(field, value[, index])`` changes."""
    def trigger():
        data = bound_descriptor() if base is None else base()
        for change in changes:
            data = set_field(data, *change)
        return ev.decode(data)
    return trigger


def submit(bound):
    def trigger():
        with sk.ev74.Device(size=1 << 16) as device:
            return device.submit(bound() if callable(bound) else bound).result()
    return trigger


def relocatable_bound():
    packet = ev_packet()
    return ev.BoundPacket(packet.descriptor, (IN_OK,), (OUT_OK,))


def hurray_bytes(tag=1, version=1, flags=0, scale=0x3F800000, zp=0, reserved=0):
    return (bytes([tag, version]) + flags.to_bytes(2, "little") + scale.to_bytes(4, "little")
            + (zp & 0xFFFFFFFF).to_bytes(4, "little") + reserved.to_bytes(4, "little"))


# ------------------------------------------------------------------- table


class Row(NamedTuple):
    path: str                     # id of the rejection path
    source: str                   # file producing the message
    template: str                 # its template ("{}" per substitution; C: the format string)
    trigger: Callable[[], Any]    # returns the Error / exception
    code: Any                     # ErrorCode, or FORMAT_ERROR / "ValueError"
    field: str                    # names the port, axis or field
    value: str                    # the offending value


ADM, BUF = "simakernels/admission.py", "simakernels/buffers.py"
RUL, STO = "simakernels/_rules.py", "simakernels/storage.py"
QP, OPB = "simakernels/qparams.py", "simakernels/ops/_base.py"
ARR, SPL = "simakernels/arrays.py", "simakernels/_split.py"
BACK, ROUTES_PY = "simakernels/a65/_backend.py", "simakernels/a65/_routes.py"
EVQ, EVD, HUR = "simakernels/ev74/quant.py", "simakernels/ev74/device.py", "simakernels/formats/hurray.py"
DSK = "simakernels/dask.py"
DEC = "csrc/ev74/decode.c"
BIG = 1 << 63

ROWS: List[Row] = [
    # ---- shared admission (via cast)
    Row("arity", ADM, "{} takes 1 input and 1 output, got {} and {}",
        lambda: cast_admit(spec((2,), F32), inputs=[spec((2,), F32)] * 2), E.INVALID_ARITY, "input", "got 2"),
    Row("dtype pair", ADM, "{} does not support input 0 {} -> output 0 {}; supported: {}",
        lambda: cast_admit(spec((2,), F32), spec((2,), I8)), E.UNSUPPORTED_DTYPE, "output 0", "INT8"),
    Row("element count", ADM, "input 0: element count of shape {} exceeds 2^63-1",
        lambda: cast_admit(spec((1 << 32, 1 << 32), F32)), E.OVERFLOW, "input 0", "4294967296"),
    Row("negative extent", ADM, "{} axis {}: negative extent {}",
        lambda: cast_admit(spec((2, -3), F32)), E.INVALID_SHAPE, "input 0 axis 1", "-3"),
    Row("rank mismatch", ADM, "output 0: rank {} does not match input 0 rank {}",
        lambda: cast_admit(spec((2, 3), F32), spec((6,), BF16)), E.INVALID_SHAPE, "output 0", "rank 1"),
    Row("extent mismatch", ADM, "output 0 axis {}: extent {} does not match input 0 extent {}",
        lambda: cast_admit(spec((2, 3), F32), spec((2, 5), BF16)), E.INVALID_SHAPE, "output 0 axis 1", "extent 5"),
    Row("extent overflow", ADM, "input 0 axis {}: extent {} exceeds 2^63-1",
        lambda: cast_admit(spec((BIG,), F32)), E.OVERFLOW, "input 0 axis 0", str(BIG)),
    Row("contiguous bytes", ADM, "{}: contiguous storage of shape {} exceeds 2^63-1 bytes",
        lambda: cast_admit(spec((1 << 62,), F32)), E.OVERFLOW, "input 0", str(1 << 62)),
    Row("stride count", ADM, "{}: {} strides given for rank {}",
        lambda: cast_admit(spec((2, 2), F32, (4,))), E.UNSUPPORTED_LAYOUT, "input 0", "1 strides"),
    Row("negative stride", RUL, "{}: negative stride {} (reversed views are unsupported)",
        lambda: cast_admit(spec((2,), F32, (-4,))), E.UNSUPPORTED_LAYOUT, "input 0 axis 0", "-4"),
    Row("stride overflow", ADM, "{} axis {}: stride {} exceeds 2^63-1",
        lambda: cast_admit(spec((2,), F32, (BIG,))), E.OVERFLOW, "input 0 axis 0", str(BIG)),
    Row("stride multiple", RUL, "{}: stride {} is not a multiple of the {}-byte {} scalar",
        lambda: cast_admit(spec((2,), F32, (6,))), E.UNSUPPORTED_LAYOUT, "input 0 axis 0", "stride 6"),
    Row("zero stride", RUL, "{}: zero stride on an axis of extent {} (broadcast views are unsupported)",
        lambda: cast_admit(spec((3,), F32, (0,))), E.UNSUPPORTED_LAYOUT, "input 0 axis 0", "zero stride"),
    Row("span overflow", RUL, "{}: accessed span of {} bytes exceeds 2^63-1",
        lambda: cast_admit(spec((3,), F32, (1 << 62,))), E.OVERFLOW, "input 0 axis 0", str(4 + (2 << 62))),
    Row("overlap proof", RUL,
        "{}: stride {} does not clear the {} bytes spanned by its faster axes "
        "(overlapping or unproven interleaved view)",
        lambda: cast_admit(spec((2, 2), F32, (4, 4))), E.UNSUPPORTED_LAYOUT, "input 0 axis", "stride 4"),
    # ---- parameters and request types
    Row("params type", "simakernels/ops/_base.py", "params must be {}.Params or {}.AxisParams, got {}",
        lambda: sk.ops.dequant.check_inference(sk.ops.dequant.Request([spec((2,), I8)], [spec((2,), F32)],
                                                                      sk.ops.cast.Params())),
        E.INVALID_PARAMS, "params", "Params()"),
    Row("scale or multiplier", "simakernels/ops/_base.py", "{} {} as binary32 (bits {}) must be finite and > 0",
        lambda: sk.ops.dequant.check_inference(sk.ops.dequant.Request([spec((2,), I8)], [spec((2,), F32)],
                                                                      sk.ops.dequant.Params(1e40))),
        E.INVALID_PARAMS, "scale", "inf as binary32 (bits 0x7f800000)"),
    Row("scale or multiplier type", "simakernels/ops/_base.py", "{} {} ({}) must be {}",
        raised(lambda: sk.quantize(f32_buf(), "0.5")), E.INVALID_PARAMS, "multiplier", "'0.5' (str)"),
    Row("zero point", "simakernels/ops/_base.py", "zero_point {} must be an integer in [{}, {}]",
        lambda: sk.ops.quant.check_inference(sk.ops.quant.Request([spec((2,), F32)], [spec((2,), I8)],
                                                                  sk.ops.quant.Params(1.0, 200))),
        E.INVALID_PARAMS, "zero_point", "200"),
    Row("cast request type", "simakernels/ops/cast.py", "cast.check_inference takes a cast.Request, got {}",
        lambda: sk.ops.cast.check_inference("nope"), E.INVALID_OPERATION, "cast.Request", "str"),
    Row("cast params", "simakernels/ops/cast.py", "params must be cast.Params(), got {}",
        lambda: sk.ops.cast.check_inference(sk.ops.cast.Request([spec((2,), F32)], [spec((2,), BF16)],
                                                                sk.ops.dequant.Params(1.0))),
        E.INVALID_PARAMS, "params", "Params(scale="),
    Row("dequant request type", "simakernels/ops/dequant.py",
        "dequant.check_inference takes a dequant.Request, got {}",
        lambda: sk.ops.dequant.check_inference(3), E.INVALID_OPERATION, "dequant.Request", "int"),
    Row("quant request type", "simakernels/ops/quant.py", "quant.check_inference takes a quant.Request, got {}",
        lambda: sk.ops.quant.check_inference(None), E.INVALID_OPERATION, "quant.Request", "NoneType"),
    # ---- A65 backend
    Row("prepare type", BACK, "{}.prepare takes an ops.{}.Plan, got {}",
        lambda: sk.a65.cast.prepare(dequant_plan()), E.INVALID_OPERATION, "ops.cast.Plan", "a65.dequant.Plan"),
    Row("execute plan type", BACK, "{}.execute takes an a65.{}.Plan, got {}",
        lambda: sk.a65.cast.execute(dequant_plan(), [f32_buf()], [bf16_buf()]), E.INVALID_OPERATION,
        "a65.cast.Plan", "dequant.Plan"),
    Row("environment", BACK, "{}: {}; nothing was written",
        under(UPWARD, lambda: sk.a65.dequant.execute(dequant_plan(), [np.zeros(4, np.int8)], [f32_buf()])),
        E.UNSUPPORTED_ENVIRONMENT, "rounding mode", "UPWARD"),
    Row("native refusal", BACK, "{}: the native core rejected the plan (status {} {})",
        lambda: sk.a65.cast.execute(corrupted_route_plan(), [f32_buf()], [bf16_buf()]), E.INVALID_OPERATION,
        "plan", "status 1"),
    Row("route name", ROUTES_PY, "{}={} names no route of this build on this CPU; available: {}",
        lambda: sk.a65.cast.check_inference(sk.ops.cast.Request([spec((2,), F32)], [spec((2,), BF16)]), "vax"),
        E.UNSUPPORTED_ENVIRONMENT, "route", "'vax'"),
    # ---- bindings
    Row("const output", BUF, "{}: a ConstHostBuffer cannot be written",
        execute_cast([f32_buf()], [sk.ConstHostBuffer(bf16_buf())]), E.INVALID_BINDING, "output 0",
        "ConstHostBuffer"),
    Row("not a buffer", BUF, "{}: {}",
        execute_cast([f32_buf()], [(1, 2)]), E.INVALID_BINDING, "output 0", "tuple"),
    Row("address range", RUL, "{}: address {} is outside the 64-bit address space",
        execute_cast([sk.ConstHostBuffer.from_address(1 << 64, 16)], [bf16_buf()]), E.INVALID_BINDING,
        "input 0", "0x10000000000000000"),
    Row("negative view", RUL, "{}: negative extent {}",
        execute_cast([sk.ConstHostBuffer.from_address(0x1000, -1)], [bf16_buf()]), E.INVALID_BINDING,
        "input 0", "-1"),
    Row("view overflow", RUL, "{}: extent {} exceeds 2^63-1 bytes",
        execute_cast([sk.ConstHostBuffer.from_address(0x1000, BIG)], [bf16_buf()]), E.OVERFLOW, "input 0",
        str(BIG)),
    Row("null binding", RUL, "{}: null binding for a tensor of {} bytes",
        execute_cast([sk.ConstHostBuffer.from_address(0, 0)], [bf16_buf()]), E.INVALID_BINDING, "input 0",
        "16 bytes"),
    Row("short view", RUL, "{}: view has {} bytes, the plan requires {}",
        execute_cast([f32_buf()], [bf16_buf(3)]), E.INVALID_BINDING, "output 0", "6 bytes"),
    Row("wrapping view", RUL, "{}: view [{}, +{}) ends beyond 2^63-1",
        execute_cast([sk.ConstHostBuffer.from_address((1 << 64) - 8, 16)], [bf16_buf()]), E.OVERFLOW,
        "input 0", "0xfffffffffffffff8"),
    Row("view beyond 2^63", RUL, "{}: view [{}, +{}) ends beyond 2^63-1",
        execute_cast([f32_buf()], [sk.HostBuffer.from_address(BIG - 4, 8192)]), E.OVERFLOW,
        "output 0", hex(BIG - 4)),
    Row("typed storage", STO, "{}: a {} array is not {} storage; bind a {} array or raw storage (bytes-like, a host "
        "view, a uint8 or {} array): its bytes are never reinterpreted",
        execute_cast([np.arange(4, dtype=np.float64)], [bf16_buf()]), E.INVALID_BINDING, "input 0", "float64"),
    Row("misaligned view", RUL, "{}: address {} is not {}-byte aligned",
        lambda: (lambda v: (sk.a65.cast.execute(cast_plan(), [v[0]], [bf16_buf()]), v[1]))(misaligned_input())[0],
        E.INVALID_BINDING, "input 0", "not 4-byte aligned"),
    Row("binding arity", BUF, "plan binds {} input(s) and {} output(s), got {} and {}",
        execute_cast([f32_buf(), f32_buf()], [bf16_buf()]), E.INVALID_ARITY, "input(s)", "got 2"),
    Row("binding overlap", RUL, "{} [{}, +{}) and {} [{}, +{}): accessed {} overlap",
        lambda: (lambda b: sk.a65.cast.execute(cast_plan(2), [b], [b]))(np.zeros(8, np.uint8)),
        E.INVALID_BINDING, "input 0", "+8)"),
    # ---- array layer
    Row("dtype name", ARR, "no simakernels dtype for {}; supported: {}",
        raised(lambda: sk.cast(f32_buf(), "int3")), E.UNSUPPORTED_DTYPE, "dtype", "'int3'; supported: int8, "),
    Row("numpy dtype", ARR, "{}: NumPy dtype {} is not a simakernels dtype ({}){}",
        raised(lambda: sk.cast(np.zeros(3, np.float64), F32)), E.UNSUPPORTED_DTYPE, "input 0",
        "float64 is not a simakernels dtype (int8, "),
    Row("numpy dtype, float64 hint", ARR, "{}: NumPy dtype {} is not a simakernels dtype ({}){}",
        raised(lambda: sk.quantize([1.5, 2.0], 1.0)), E.UNSUPPORTED_DTYPE, "input 0",
        "float64: pass np.asarray(x, np.float32)"),
    Row("array rank", ARR, "{}: rank {} exceeds 6",
        raised(lambda: sk.cast(np.zeros((1,) * 7, np.float32), BF16)), E.INVALID_SHAPE, "input 0", "rank 7"),
    Row("read-only out", ARR, "output 0: out is read-only, a writable array is required",
        raised(lambda: sk.cast(np.zeros((3, 5), np.float32), BF16,
                               out=readonly(np.zeros((3, 5), ml_dtypes.bfloat16)))),
        E.INVALID_BINDING, "output 0", "read-only, a writable array is required"),
    Row("read-only out, cached plan", ARR, "output 0: out is read-only, a writable array is required",
        cached_then_readonly(lambda out: sk.cast(np.zeros((2, 4), np.float32), BF16, out=out)),
        E.INVALID_BINDING, "output 0", "read-only, a writable array is required"),
    Row("masked array", ARR, "{} ({}): numpy.ma.MaskedArray is not supported (its mask would be ignored); "
        "pass {}.filled(value) or {}.data",
        raised(lambda: sk.cast(np.ma.masked_array(f32_buf(), mask=True), BF16)), E.INVALID_BINDING, "input 0 (x)",
        "MaskedArray"),
    Row("out dtype", ARR, "output 0: out has dtype {}, expected {}",
        raised(lambda: sk.cast(f32_buf(), BF16, out=np.zeros(4, np.float32))), E.UNSUPPORTED_DTYPE, "output 0",
        "float32"),
    Row("quant params", ARR, "<dynamic>",
        raised(lambda: sk.quantize(f32_buf(), 1.0, rounding="sideways")), E.INVALID_PARAMS, "rounding",
        "'sideways'"),
    Row("read-only out, workers", SPL, "output 0: out is read-only, a writable array is required",
        cached_then_readonly(lambda out: split(sk.cast, np.zeros((2, 4), np.float32), BF16, out=out, workers=2)),
        E.INVALID_BINDING, "output 0", "read-only, a writable array is required"),
    Row("workers", SPL, "workers {} ({}) must be a positive integer",
        raised(lambda: sk.cast(np.zeros((2, 4), np.float32), BF16, workers=0)), E.INVALID_PARAMS, "workers", "0"),
    Row("environment, workers", SPL, "{}: {}; nothing was written",
        under(UPWARD, raised(lambda: split(sk.dequantize, np.zeros((2, 4), np.int8), 0.5, workers=2))),
        E.UNSUPPORTED_ENVIRONMENT, "rounding mode", "UPWARD"),
    Row("pickled plan, route missing", BACK, "loading a pickled {} plan: {}", unpickled_without_its_route,
        E.UNSUPPORTED_ENVIRONMENT, "pickled quant plan", "route='scalar'"),
    # ---- parameter chooser
    Row("qparams dtype", QP, "x: dtype {} is not FLOAT32, FLOAT16 or BFLOAT16 ({})",
        raised(lambda: sk.choose_qparams(np.float64([1.0]))), E.UNSUPPORTED_DTYPE, "x", "float64"),
    # ---- per-axis parameters (Dequant, Quant, choose_qparams)
    Row("axis outside the rank", OPB, "axis {} is outside the rank {} of shape {} ({})",
        raised(lambda: sk.choose_qparams(np.float32([1.0]), axis=3)), E.INVALID_PARAMS, "axis", "3"),
    Row("axis not an integer", OPB, "axis {} ({}) must be an integer",
        raised(lambda: sk.dequantize(np.int8([1]), [1.0], axis=0.5)), E.INVALID_PARAMS, "axis", "0.5"),
    Row("axis values length", OPB, "{} has {} entries, but {}",
        raised(lambda: sk.quantize(np.float32([[1.0, 2.0]]), [1.0], axis=1)), E.INVALID_PARAMS, "multipliers", "1"),
    Row("axis value entry type", OPB, "{}[{}] {} ({}) must be {}",
        raised(lambda: sk.dequantize(np.int8([1, 2]), [1.0, "x"], axis=0)), E.INVALID_PARAMS, "scales[1]", "'x'"),
    Row("axis value entry", OPB, "{}[{}] {} as binary32 (bits {}) must be finite and > 0",
        raised(lambda: sk.dequantize(np.int8([1, 2]), [1.0, 0.0], axis=0)), E.INVALID_PARAMS, "scales[1]", "0.0"),
    Row("axis values not a sequence", OPB, "{} must be a 1-D sequence of real numbers, got {}",
        raised(lambda: sk.dequantize(np.int8([1, 2]), 1.0, axis=0)), E.INVALID_PARAMS, "scales", "float"),
    Row("axis shared zero point", OPB, "zero_points {} must be an integer in [{}, {}]",
        raised(lambda: sk.quantize(np.float32([1.0]), [1.0], 200, axis=0)), E.INVALID_PARAMS, "zero_points", "200"),
    Row("axis zero points type", OPB, "zero_points must be an integer or a 1-D sequence of integers, got {}",
        raised(lambda: sk.quantize(np.float32([1.0]), [1.0], np.zeros((1, 1), np.int64), axis=0)),
        E.INVALID_PARAMS, "zero_points", "ndarray"),
    Row("axis zero point entry", OPB, "zero_points[{}] {} must be an integer in [{}, {}]",
        raised(lambda: sk.quantize(np.float32([1.0, 2.0]), [1.0, 1.0], [0, -129], axis=0)), E.INVALID_PARAMS,
        "zero_points[1]", "-129"),
    Row("per-tensor value given a sequence", OPB,
        "{} is a sequence of {} values ({}): one value per index along an axis needs axis= (the array functions) "
        "or {}.AxisParams",
        raised(lambda: sk.quantize(np.float32([1.0, 2.0]), [1.0, 1.0])), E.INVALID_PARAMS, "multiplier", "2 values"),
    Row("ev74 per-axis", EVQ, "ev74.quant: per-axis parameters (quant.AxisParams) cannot be encoded: the 224-byte "
        "descriptor holds one multiplier and one zero point; run per-axis Quant on the A65 (sk.a65.quant) or encode "
        "one plan per channel slice",
        lambda: ev.check_inference(sk.ops.quant.Request([spec((2,), F32)], [spec((2,), I8)],
                                                        sk.ops.quant.AxisParams(0, [1.0, 2.0]))),
        E.DEVICE_LIMIT, "per-axis", "AxisParams"),
    Row("qparams range keys", QP,
        "choose_qparams: the native rule refused the range keys of channel {}: ({}, {}) in {}",
        raised(lambda: sk.qparams._from_keys(np.int64([0, 1]), np.int64([0, 0]), np.dtype(np.float32), False, 0)),
        E.INVALID_PARAMS, "channel 1", "(1, 0)"),
    Row("qparams symmetric", QP, "symmetric must be a bool, got {}",
        raised(lambda: sk.choose_qparams(np.float32([1.0]), symmetric="yes")), E.INVALID_PARAMS, "symmetric",
        "'yes'"),
    # ---- the Dask layer (its other rejections are the array layer's, from the same code)
    Row("dask rounding", DSK, "<dynamic>",
        on_dask(lambda skd, da: skd.quantize(da.zeros(4, dtype=np.float32, chunks=2), 1.0, rounding="sideways")),
        E.INVALID_PARAMS, "rounding", "'sideways'"),
    Row("dask unknown chunks", DSK, "x: shape {} has unknown chunk sizes; call x.compute_chunk_sizes() first",
        on_dask(lambda skd, da: skd.cast(da.arange(4, dtype=np.float32, chunks=2)[da.arange(4, chunks=2) > 1], BF16)),
        E.INVALID_SHAPE, "x", "(nan,)"),
    Row("dask parameters", DSK, "{} is a dask.array.Array; pass its values as a NumPy array ({}.compute())",
        on_dask(lambda skd, da: skd.dequantize(da.zeros(4, dtype=np.int8, chunks=2), da.ones(4, chunks=2), axis=0)),
        E.INVALID_PARAMS, "scale", "dask.array.Array"),
    # ---- EV74 host codec
    Row("ev74 request type", EVQ, "ev74.quant.check_inference takes an ops.quant Request or Plan, got {}",
        lambda: ev.check_inference("nope"), E.INVALID_OPERATION, "ops.quant Request", "str"),
    Row("ev74 extent", RUL, "{}: extent {} does not fit {}",
        lambda: ev.check_inference(sk.ops.quant.Request([spec((1 << 32, 0), F32)], [spec((1 << 32, 0), I8)],
                                                        sk.ops.quant.Params(1.0))),
        E.DEVICE_LIMIT, "axis 0", "4294967296"),
    Row("ev74 span", RUL, "{}: accessed span of {} bytes (from axis {}) does not fit the EV74's 32-bit address "
        "domain",
        lambda: ev.check_inference(sk.ops.quant.Request([spec((1 << 30,), F32)], [spec((1 << 30,), I8)],
                                                        sk.ops.quant.Params(1.0))),
        E.DEVICE_LIMIT, "input 0", "4294967296"),
    Row("ev74 stride", RUL, "{}: stride {} does not fit {}",
        lambda: ev.check_inference(sk.ops.quant.Request([spec((2,), F32, (1 << 32,))], [spec((2,), I8)],
                                                        sk.ops.quant.Params(1.0))),
        E.DEVICE_LIMIT, "input 0 axis 0", "4294967296"),
    Row("encode type", EVQ, "encode_relocatable takes an ev74.quant.Plan, got {}",
        lambda: ev.encode_relocatable(7), E.INVALID_OPERATION, "ev74.quant.Plan", "int"),
    Row("region type", EVQ, "{}: expected an ev74.DeviceRegion, got {}",
        ev_bind([(0x1000, 64)], [OUT_OK]), E.INVALID_BINDING, "input 0", "tuple"),
    Row("region value", EVQ, "{}: {} {} is not a nonnegative integer",
        ev_bind([IN_OK], [Region(0x1000_1000, -5)]), E.INVALID_BINDING, "output 0: capacity", "-5"),
    Row("null region", RUL, "{}: null device address",
        ev_bind([Region(0, 64)], [OUT_OK]), E.INVALID_BINDING, "input 0", "null"),
    Row("region capacity", RUL, "{}: capacity {} bytes, the plan accesses {}",
        ev_bind([IN_OK], [Region(0x1000_1000, 15)]), E.INVALID_BINDING, "output 0", "capacity 15"),
    Row("region domain", RUL, "{}: address {} + {} bytes leaves the 32-bit device domain",
        ev_bind([Region((1 << 32) - 32, 64)], [OUT_OK]), E.DEVICE_LIMIT, "input 0", "0xffffffe0"),
    Row("region alignment", RUL, "{}: address {} is not {}-byte aligned",
        ev_bind([Region(0x1000_0002, 64)], [OUT_OK]), E.INVALID_BINDING, "input 0", "0x10000002"),
    Row("bind plan type", EVQ, "bind takes an ev74.quant.Plan, got {}",
        ev_bind([IN_OK], [OUT_OK], plan="nope"), E.INVALID_OPERATION, "ev74.quant.Plan", "str"),
    Row("bind packet type", EVQ, "bind takes a relocatable ev74.quant.Packet, got {}",
        ev_bind([IN_OK], [OUT_OK], packet=b"x" * 224), E.PACKET_MISMATCH, "ev74.quant.Packet", "bytes"),
    Row("packet mismatch", EVQ, "packet field {} (offset {}) is {}, this plan's is {}: the packet was not encoded "
        "from this plan",
        lambda: ev.bind(ev_packet(), ev_plan(m=0x3E99999A), [IN_OK], [OUT_OK]), E.PACKET_MISMATCH,
        "multiplier (offset 208)", "0x3f800000"),
    Row("packet length", EVQ, "packet descriptor is {}, this plan's is {} bytes: the packet was not encoded "
        "from this plan",
        lambda: ev.bind(ev.Packet(b"\x00" * 200), ev_plan(), [IN_OK], [OUT_OK]), E.PACKET_MISMATCH,
        "packet descriptor", "200 bytes"),
    Row("region arity", EVQ, "bind takes 1 input and 1 output region, got {} and {}",
        ev_bind([], [OUT_OK]), E.INVALID_ARITY, "input", "got 0"),
    Row("region overlap", RUL, "{} [{}, +{}) and {} [{}, +{}): accessed {} overlap",
        ev_bind([Region(0x1000_0000, 64)], [Region(0x1000_0020, 16)]), E.INVALID_BINDING, "output 0",
        "0x10000020"),
    Row("decode type", EVQ, "descriptor must be bytes-like, got {}",
        lambda: ev.decode(5), E.INVALID_DESCRIPTOR, "descriptor", "int"),
    Row("decoder message", EVQ, "<dynamic>",
        lambda: ev.decode(bytes(100)), E.INVALID_DESCRIPTOR, "length", "100"),
    Row("submit type", EVD, "submit takes a BoundPacket, got {}",
        submit("nope"), E.INVALID_DESCRIPTOR, "BoundPacket", "str"),
    Row("submit relocatable", EVD,
        "packet fields input_address and output_address are 0 (relocatable): bind it to device regions first",
        submit(relocatable_bound), E.INVALID_BINDING, "input_address", "are 0"),
    Row("submit memory", EVD, "{} range {} + {} is not device memory",
        submit(lambda: ev.encode(ev_plan(), [Region(0x2000_0000, 64)], [Region(0x2000_1000, 16)])),
        E.INVALID_BINDING, "input range", "0x20000000"),
    # ---- Hurray format
    Row("descriptor data type", HUR, "data must be bytes-like (the 16 descriptor bytes), got {}",
        raised(lambda: H.PerTensorAffine.decode(16, ST.INT8)), FORMAT_ERROR, "data", "builtins.int"),
    Row("storage tag type", HUR, "storage type {} is not an integer tag",
        raised(lambda: H.dequantize(b"", H.PerTensorAffine(1.0), 1.5)), FORMAT_ERROR, "storage type", "1.5"),
    Row("storage tag", HUR, "storage type {} is not one of the valid tags ({})",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(), 0x99)), FORMAT_ERROR, "storage type", "153"),
    Row("zero point int32", HUR, "zero_point (offset 8): {} is not an int32",
        raised(lambda: H.PerTensorAffine(1.0, 1 << 31).encode()), FORMAT_ERROR, "zero_point", "2147483648"),
    Row("zero point range", HUR, "zero_point (offset 8): {} is outside the {} range [{}, {}]",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(zp=300), ST.UINT8)), FORMAT_ERROR, "zero_point", "300"),
    Row("scale finite", HUR, "scale (offset 4): bits {} are not finite{}",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(scale=0x7FC00000), ST.INT8)), FORMAT_ERROR, "scale",
        "0x7fc00000"),
    Row("scale zero", HUR, "scale (offset 4): bits {} are zero{}",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(scale=0x80000000), ST.INT8)), FORMAT_ERROR, "scale",
        "0x80000000"),
    Row("scale zero at construction", HUR, "scale (offset 4): bits {} are zero{}",
        raised(lambda: H.PerTensorAffine(1e-50)), FORMAT_ERROR, "scale", "scale=1e-50"),
    Row("scale type", HUR, "scale: {} is not a real number",
        raised(lambda: H.PerTensorAffine("abc")), FORMAT_ERROR, "scale", "'abc'"),
    Row("length", HUR, "length: {} bytes, expected {}",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes()[:15], ST.INT8)), FORMAT_ERROR, "length", "15"),
    Row("scheme tag", HUR, "scheme_tag (offset 0): {}, expected {}",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(tag=2), ST.INT8)), FORMAT_ERROR, "scheme_tag", "0x02"),
    Row("scheme version", HUR, "scheme_version (offset 1): {}, expected {}",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(version=3), ST.INT8)), FORMAT_ERROR, "scheme_version",
        "0x03"),
    Row("flags", HUR, "flags (offset 2): {}, expected 0x0000",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(flags=0x80), ST.INT8)), FORMAT_ERROR, "flags",
        "0x0080"),
    Row("reserved", HUR, "_reserved (offset 12): {}, expected 00000000",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(reserved=0x01000000), ST.INT8)), FORMAT_ERROR,
        "_reserved", "00000001"),
    Row("bridge storage", HUR, "the Dequant bridge takes INT8 storage only, not {}",
        raised(lambda: H.PerTensorAffine(1.0).to_dequant_params(ST.INT16)), FORMAT_ERROR, "storage", "INT16"),
    Row("bridge scale", HUR, "the Dequant bridge needs a positive scale, got {}",
        raised(lambda: H.PerTensorAffine(-2.0).to_dequant_params(ST.INT8)), FORMAT_ERROR, "scale", "-2.0"),
    Row("hurray environment", HUR, "hurray.dequantize: {}; nothing was written",
        under(UPWARD, raised(lambda: H.dequantize(bytes(8), H.PerTensorAffine(-2.0), ST.INT16))),
        E.UNSUPPORTED_ENVIRONMENT, "rounding mode", "UPWARD"),
    Row("hurray environment, INT8 bridge", HUR, "hurray.dequantize: {}; nothing was written",
        under(UPWARD, raised(lambda: H.dequantize(bytes(8), H.PerTensorAffine(0.5), ST.INT8))),
        E.UNSUPPORTED_ENVIRONMENT, "rounding mode", "UPWARD"),
    Row("hurray native status", HUR, "hurray.dequantize: the native kernel rejected storage code {} (status {})",
        hurray_native_status, E.INVALID_OPERATION, "storage code", "77"),
    # ---- native EV74 decoder (a bound (2, 8) FP32 descriptor, one field changed)
    Row("length", DEC, "descriptor length %zu, expected 224 bytes",
        lambda: ev.decode(bytes(223)), E.INVALID_DESCRIPTOR, "length", "223"),
    Row("magic", DEC, "field magic (offset 0): %#llx, expected %#x",
        decode_with(("magic", 0x12345678)), E.INVALID_DESCRIPTOR, "magic", "0x12345678"),
    Row("version", DEC, "field version (offset 4): %llu, expected 1",
        decode_with(("version", 77)), E.INVALID_DESCRIPTOR, "version", ": 77,"),
    Row("byte length", DEC, "field length (offset 6): %llu, expected 224",
        decode_with(("length", 100)), E.INVALID_DESCRIPTOR, "length (offset 6)", ": 100,"),
    Row("conversion", DEC, "field conversion (offset 8): %u, expected 0 (FP32), 1 (BF16) or 2 (FP16)",
        decode_with(("conversion", 9)), E.INVALID_DESCRIPTOR, "conversion", ": 9,"),
    Row("rank", DEC, "field rank (offset 12): %u, expected 1..6",
        decode_with(("rank", 9)), E.INVALID_DESCRIPTOR, "rank", ": 9,"),
    Row("flags", DEC, "field flags (offset 16): %#x has reserved bits set",
        decode_with(("flags", 0x40)), E.INVALID_DESCRIPTOR, "flags", "0x40"),
    Row("reserved word", DEC, "field reserved (offset %d): %#llx, expected 0",
        decode_with(("reserved1", 0x5A)), E.INVALID_DESCRIPTOR, "reserved (offset 220)", "0x5a"),
    Row("multiplier", DEC, "field multiplier (offset 208): bits %#010x are not a finite positive binary32",
        decode_with(("multiplier", 0xFF800000)), E.INVALID_DESCRIPTOR, "multiplier", "0xff800000"),
    Row("zero point", DEC, "field zero_point (offset 212): %d is outside [-128, 127]",
        decode_with(("zero_point", -129)), E.INVALID_DESCRIPTOR, "zero_point", "-129"),
    Row("rounding", DEC, "field rounding (offset 216): %u, expected 0..3",
        decode_with(("rounding", 4)), E.INVALID_DESCRIPTOR, "rounding", ": 4,"),
    Row("unused axis", DEC, "unused axis %u (offsets %u/%u/%u): extent %llu, strides %llu/%llu, expected 0",
        decode_with(("extents", 5, 3)), E.INVALID_DESCRIPTOR, "unused axis 3", "extent 5"),
    Row("scalar flag", DEC, "field flags (offset 16): a lowered scalar must have rank 1 and extent 1, "
        "got rank %u, extent %llu",
        decode_with(("flags", 1)), E.INVALID_DESCRIPTOR, "flags", "rank 2"),
    Row("extent domain", DEC, "field extents[%d] (offset %d): %llu is beyond the device domain",
        decode_with(("extents", 1 << 32, 1)), E.INVALID_DESCRIPTOR, "extents[1]", "4294967296"),
    Row("count domain", DEC, "field extents[%u] (offset %u): %llu takes the element count beyond the device domain",
        decode_with(("extents", 1 << 20, 0), ("extents", 1 << 20, 1)), E.INVALID_DESCRIPTOR, "extents",
        str(1 << 20)),
    Row("count", DEC, "field count (offset 40): %llu, but the extents hold %llu elements",
        decode_with(("count", 17)), E.INVALID_DESCRIPTOR, "count", ": 17,"),
    Row("empty strides", DEC, "field %s_strides[%d] (offset %d): %llu on an empty tensor, expected 0",
        decode_with(("extents", 0, 0), ("count", 0), ("input_span", 0), ("output_span", 0)),
        E.INVALID_DESCRIPTOR, "input_strides[0]", ": 32 on"),
    Row("stride multiple", DEC, "field %s_strides[%d] (offset %d): %llu is not a multiple of the %llu-byte element",
        decode_with(("input_strides", 6, 1)), E.INVALID_DESCRIPTOR, "input_strides[1]", ": 6 is"),
    Row("singleton stride", DEC, "field %s_strides[%d] (offset %d): singleton axis stride %llu is not normalised to 0",
        decode_with(("extents", 1, 0), ("count", 8)), E.INVALID_DESCRIPTOR, "input_strides[0]", "stride 32"),
    Row("zero stride", DEC, "field %s_strides[%d] (offset %d): zero stride on an axis of extent %llu",
        decode_with(("output_strides", 0, 1)), E.INVALID_DESCRIPTOR, "output_strides[1]", "zero stride"),
    Row("stride domain", DEC, "field %s_strides[%d] (offset %d): %llu is beyond the 32-bit device domain",
        decode_with(("input_strides", 1 << 32, 0)), E.INVALID_DESCRIPTOR, "input_strides[0]", "4294967296"),
    Row("span domain", DEC, "field %s_strides[%d] (offset %d): accessed span %llu + %llu x %llu exceeds the 32-bit "
        "device domain",
        decode_with(("extents", 4, 0), ("count", 32), ("input_strides", 1 << 31, 0)), E.INVALID_DESCRIPTOR,
        "input_strides[0]", str(1 << 31)),
    Row("stride overlap", DEC, "field %s_strides[%d] (offset %d): %llu overlaps the %llu bytes of faster axes",
        decode_with(("input_strides", 4, 0)), E.INVALID_DESCRIPTOR, "input_strides[", ": 4 overlaps"),
    Row("input span", DEC, "field input_span (offset 48): %llu, but the extents and strides access %llu bytes",
        decode_with(("input_span", 65)), E.INVALID_DESCRIPTOR, "input_span", ": 65,"),
    Row("output span", DEC, "field output_span (offset 56): %llu, but the extents and strides access %llu bytes",
        decode_with(("output_span", 17)), E.INVALID_DESCRIPTOR, "output_span", ": 17,"),
    Row("half-bound slots", DEC, "field %s (offset %d): 0 while %s is %#llx: one relocation slot is bound and the "
        "other is not",
        decode_with(("output_address", 0)), E.INVALID_DESCRIPTOR, "output_address", "0x1000"),
    Row("input address domain", DEC, "field %s (offset %d): %#llx + %llu bytes leaves the 32-bit device domain",
        decode_with(("input_address", (1 << 32) - 32)), E.INVALID_DESCRIPTOR, "input_address", "0xffffffe0"),
    Row("output address domain", DEC, "field %s (offset %d): %#llx + %llu bytes leaves the 32-bit device domain",
        decode_with(("output_address", (1 << 32) - 8)), E.INVALID_DESCRIPTOR, "output_address", "0xfffffff8"),
    Row("input alignment", DEC, "field %s (offset %d): %#llx is not %llu-byte aligned",
        decode_with(("input_address", 0x1002)), E.INVALID_DESCRIPTOR, "input_address", "0x1002"),
    Row("address field domain", DEC, "field %s (offset %d): %#llx is beyond the 32-bit device domain",
        decode_with(("output_address", 1 << 32)), E.INVALID_DESCRIPTOR, "output_address", "0x100000000"),
    Row("address overlap", DEC, "fields input_address/output_address (offsets 24/32): accessed ranges "
        "[%#llx, +%llu) and [%#llx, +%llu) overlap",
        decode_with(("output_address", 0x1010)), E.INVALID_DESCRIPTOR, "input_address/output_address", "0x1010"),
]
ROW_IDS = [f"{Path(r.source).stem}:{r.path}" for r in ROWS]


def message_of(outcome) -> Tuple[Any, str]:
    """(code, message) of an Error or a raised format/value error."""
    if isinstance(outcome, sk.Error):
        return outcome.code, outcome.message
    if isinstance(outcome, H.HurrayFormatError):
        return FORMAT_ERROR, str(outcome)
    if isinstance(outcome, ValueError):
        return "ValueError", str(outcome)
    return None, repr(outcome)


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_rejection_names_field_and_value(row):
    code, message = message_of(row.trigger())
    assert code == row.code, f"{row.path}: expected {row.code}, got {code}: {message}"
    assert row.field in message, f"{row.path}: {message!r} does not name {row.field!r}"
    assert row.value in message, f"{row.path}: {message!r} does not show the offending value {row.value!r}"
    if isinstance(code, E):  # reads well in a traceback: "CODE: message"
        assert str(sk.KernelError(sk.Error(code, message))) == f"{code.name}: {message}"


def test_kernel_error_in_a_traceback():
    """What a user sees: the traceback's last line is the class, the code and
    the message; the repr shows the Error; a copied or pickled exception
    (a process pool re-raising it) keeps ``.error`` and ``.code``."""
    import copy
    import pickle
    import traceback

    out = np.zeros(3, ml_dtypes.bfloat16)
    out.setflags(write=False)
    with pytest.raises(sk.KernelError) as info:
        sk.cast(np.zeros(3, np.float32), BF16, out=out)
    exc = info.value
    message = "output 0: out is read-only, a writable array is required"
    assert exc.error == sk.Error(E.INVALID_BINDING, message) and exc.code is E.INVALID_BINDING
    assert traceback.format_exception_only(type(exc), exc) == [
        f"simakernels.core.KernelError: INVALID_BINDING: {message}\n"]
    assert repr(exc) == f"KernelError(Error(ErrorCode.INVALID_BINDING, {message!r}))"
    assert repr(exc.error) == f"Error(ErrorCode.INVALID_BINDING, {message!r})"
    for clone in (pickle.loads(pickle.dumps(exc)), copy.copy(exc)):
        assert type(clone) is sk.KernelError and clone.error == exc.error and clone.code is E.INVALID_BINDING
        assert str(clone) == str(exc)
    # The contract layer returns the same Error value it would raise.
    plan = cast_plan(6)
    status = sk.a65.cast.execute(plan, [f32_buf(6)], [bf16_buf(3)])
    assert status == sk.Error(E.INVALID_BINDING, "output 0: view has 6 bytes, the plan requires 12")
    assert str(status) == "INVALID_BINDING: output 0: view has 6 bytes, the plan requires 12"


# -------------------------------------------------------------- completeness


def _template(node) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _template(node.left) + _template(node.right)
    return "<dynamic>"


def python_rejection_sites() -> List[Tuple[str, str]]:
    """(file, template) of every ``Error(ErrorCode..., message)`` and
    ``HurrayFormatError(message)`` in the package (the benchmark harness
    aside: it reports, it does not reject)."""
    sites = []
    package = ROOT / "simakernels"
    for path in sorted(package.rglob("*.py")):
        if "bench" in path.relative_to(package).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            first = node.args[0] if node.args else None
            is_error = name == "Error" and first is not None and "ErrorCode" in ast.dump(first)
            if is_error or name == "HurrayFormatError":
                message = node.args[1] if is_error else first
                sites.append((path.relative_to(ROOT).as_posix(), _template(message)))
    return sites


def c_rejection_sites() -> List[Tuple[str, str]]:
    """(file, format string) of every REJECT of the native decoder."""
    text = (ROOT / DEC).read_text()
    literal = r'"(?:[^"\\]|\\.)*"'
    return [(DEC, "".join(s[1:-1] for s in re.findall(literal, m.group(1))))
            for m in re.finditer(rf"REJECT\(\s*((?:{literal}\s*)+)", text)]


def _sources_present() -> Optional[str]:
    missing = [p for p in ("simakernels/admission.py", DEC) if not (ROOT / p).exists()]
    return f"the suite runs without the repository's sources ({missing})" if missing else None


def test_every_rejection_path_has_a_row():
    if _sources_present():
        pytest.skip(_sources_present())
    sites = set(python_rejection_sites() + c_rejection_sites())
    assert len(sites) > 100, f"the collector found only {len(sites)} sites: is it still reading the sources?"
    rows = {(r.source, r.template) for r in ROWS}
    missing = sorted(sites - rows)
    stale = sorted(rows - sites)
    assert not missing, "rejection paths without a row in ROWS:\n" + "\n".join(f"  {s}: {t!r}" for s, t in missing)
    assert not stale, "rows whose template is no longer in the sources:\n" + "\n".join(
        f"  {s}: {t!r}" for s, t in stale)


def test_every_native_status_is_covered():
    """Every status the C core returns is the code of some row."""
    if _sources_present():
        pytest.skip(_sources_present())
    returned = set()
    for path in (ROOT / "csrc").rglob("*.c"):
        returned |= set(re.findall(r"return (SK_[A-Z_]+);", path.read_text()))
    returned &= {f"SK_{c.name}" for c in E}  # statuses, not other constants
    covered = {f"SK_{r.code.name}" for r in ROWS if isinstance(r.code, E)}
    assert returned, "no status returns found in csrc/"
    assert not returned - covered, f"native statuses without a row: {sorted(returned - covered)}"
