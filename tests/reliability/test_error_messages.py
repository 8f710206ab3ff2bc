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
from support.dlpack_helpers import DLPackOnly
from simakernels._ffi import ffi, lib
from support.ev74_helpers import open_device, set_field
from support.helpers import fp_or_skip, split_freely

E = sk.ErrorCode
F32, BF16, F16, I8 = sk.DType.FLOAT32, sk.DType.BFLOAT16, sk.DType.FLOAT16, sk.DType.INT8
H = sk.formats.hurray
ST = H.StorageType
ev = sk.ev74.quant
Region = sk.ev74.DeviceRegion
ROOT = Path(__file__).resolve().parents[2]   # the repository: its sources, wherever the package is installed
FORMAT_ERROR = "HurrayFormatError"


# ------------------------------------------------ messages and templates
# A template's substitutions: "{}" in Python (an f-string's fields), a
# printf conversion in C.  "<dynamic>" (a message built elsewhere, e.g. a
# ValueError's text) is one substitution: the whole message.
_C_CONVERSION = r"%[-#0 +]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?[diouxXs]"


def holes(source: str, template: str) -> List[str]:
    """The template split at its substitutions (one more part than holes)."""
    if template == "<dynamic>":
        return ["", ""]
    return re.split(_C_CONVERSION if source.endswith(".c") else r"\{\}", template)


def template_regex(source: str, template: str) -> "re.Pattern[str]":
    """A regex matching exactly the messages of ``template``, a group per
    substitution."""
    return re.compile("(.*?)".join(re.escape(part) for part in holes(source, template)), re.S)


def substitutions(source: str, template: str, message: str) -> Optional[Tuple[str, ...]]:
    """What ``message`` substitutes into ``template`` (None: it does not
    follow the template)."""
    match = template_regex(source, template).fullmatch(message)
    return None if match is None else match.groups()


def filled(source: str, template: str, values: Tuple[str, ...]) -> str:
    """``template`` with ``values`` substituted in order."""
    parts = holes(source, template)
    return parts[0] + "".join(v + p for v, p in zip(values, parts[1:]))


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


# Raw storage at addresses the table states: 16 bytes at 2 mod 4 (aligned
# for the BFLOAT16 output, not for the FLOAT32 input), and 16 bytes of which
# the input and the output bind overlapping windows.
_BACKING = np.zeros(8, np.uint64)            # 8-byte aligned
MISALIGNED = _BACKING.view(np.uint8)[2:18]
SHARED = _BACKING.view(np.uint8)[32:48]


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
    with mock.patch.object(sk._routes, "_AVAILABLE", {}):
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


# EV74: a plan of shape (2, 8) FP32, its packet and regions.
def ev_plan(shape=(2, 8), m=0x3F800000):
    return ev.check_inference(sk.ops.quant.Request([spec(shape, F32)], [spec(shape, I8)],
                                                   sk.ops.quant.Params.from_bits(m, 0)))


def ev_packet():
    return ev.encode_relocatable(ev_plan())


def ev_bind(inputs, outputs, plan=None, packet=None):
    return lambda: ev.bind(packet or ev_packet(), plan or ev_plan(), inputs, outputs)


IN_OK, OUT_OK = Region(0x1000_0000, 64), Region(0x1000_1000, 16)


def bound_descriptor(ia=0x1000, oa=0x2000, shape=(2, 8)):
    count = shape[0] * shape[1]
    return ev.encode(ev_plan(shape), [Region(ia, 4 * count)], [Region(oa, count)]).descriptor


def decode_with(*changes, base=None):
    """The native decoder's verdict on a bound (2, 8) FP32 descriptor with
    ``(field, value[, index])`` changes."""
    def trigger():
        data = bound_descriptor() if base is None else base()
        for change in changes:
            data = set_field(data, *change)
        return ev.decode(data)
    return trigger


def submit(bound, engine="model"):
    def trigger():
        with open_device(engine, size=1 << 16) as device:
            return device.submit(bound() if callable(bound) else bound).result()
    return trigger


def explain_check(check):
    """The words of a refusal record naming `check` (a record a device's
    control could carry)."""
    def trigger():
        why = ffi.new("sk_ev74_why *")
        why.status, why.check = lib.SK_INVALID_DESCRIPTOR, check
        message = ffi.new("char[256]")
        return sk.Error(E(lib.sk_ev74_explain(why, message, 256)), ffi.string(message).decode())
    return trigger


def relocatable_bound():
    packet = ev_packet()
    return ev.BoundPacket(packet.descriptor, (IN_OK,), (OUT_OK,))


def hurray_bytes(tag=1, version=1, flags=0, scale=0x3F800000, zp=0, reserved=0):
    return (bytes([tag, version]) + flags.to_bytes(2, "little") + scale.to_bytes(4, "little")
            + (zp & 0xFFFFFFFF).to_bytes(4, "little") + reserved.to_bytes(4, "little"))


def read_only_packed():
    """A Packed INT4 tensor of 2 elements whose bytes are read-only."""
    data = np.zeros(1, np.uint8)
    data.flags.writeable = False
    return sk.Packed(data, "int4", (2,))


def packing_status():
    """The native packer given a destination too short for the count."""
    from simakernels import packed
    return raised(lambda: packed._native(lib.sk_pack, sk.DType.INT4, np.zeros(4, np.uint8), np.zeros(1, np.uint8),
                                         4))()


def format_error(fn):
    """The HurrayFormatError ``fn`` raises."""
    try:
        fn()
    except H.HurrayFormatError as exc:
        return exc
    raise AssertionError("no HurrayFormatError")


# ------------------------------------------------------------------- table


class Row(NamedTuple):
    path: str                     # id of the rejection path
    source: str                   # file producing the message
    template: str                 # its template ("{}" per substitution; C: the format string)
    trigger: Callable[[], Any]    # returns the Error / exception
    code: Any                     # ErrorCode, or FORMAT_ERROR / "ValueError"
    field: str                    # names the port, axis or field
    value: str                    # the offending value
    # Every substitution of the template, in order, exactly as the message
    # states it ("<dynamic>": the whole message), derived from the trigger.
    values: Optional[Tuple[str, ...]] = None


ADM, BUF = "simakernels/admission.py", "simakernels/buffers.py"
RUL, STO = "simakernels/_rules.py", "simakernels/storage.py"
QP, OPB = "simakernels/qparams.py", "simakernels/ops/_base.py"
ARR, SPL = "simakernels/arrays.py", "simakernels/_split.py"
BACK, ROUTES_PY = "simakernels/a65/_backend.py", "simakernels/_routes.py"
EVQ, EVD, HUR = "simakernels/ev74/quant.py", "simakernels/ev74/device.py", "simakernels/formats/hurray.py"
OCL = "simakernels/ev74/opencl.py"
DSK, DLP = "simakernels/dask.py", "simakernels/dlpack.py"
DEC = "csrc/ev74/decode.c"
BIG = 1 << 63
# Texts the messages state, as the documentation words them.
REAL = "a real number (int, float, fractions.Fraction, or a NumPy integer or floating scalar; not bool)"
UPWARD_TEXT = "rounding mode is UPWARD, round-to-nearest is required"
SUPPORTED = "int8, uint8, int16, uint16, int32, uint32, float16, bfloat16, float32, int4, uint4, int2, uint2"
ROUNDING_TEXT = ("rounding must be a quant.Rounding or one of ['nearest_even', 'toward_zero', 'toward_positive', "
                 "'toward_negative'], got 'sideways'")
EV74_DOMAIN = "the EV74's 32-bit domain"

ROWS: List[Row] = [
    # ---- shared admission (via cast)
    Row("arity", ADM, "{} takes 1 input and 1 output, got {} and {}",
        lambda: cast_admit(spec((2,), F32), inputs=[spec((2,), F32)] * 2), E.INVALID_ARITY, "input", "got 2",
        values=("cast", "2", "1")),
    Row("dtype pair", ADM, "{} does not support input 0 {} -> output 0 {}; supported: {}",
        lambda: cast_admit(spec((2,), F32), spec((2,), I8)), E.UNSUPPORTED_DTYPE, "output 0", "INT8",
        values=("cast", "FLOAT32", "INT8", "FLOAT32 -> BFLOAT16, BFLOAT16 -> FLOAT32")),
    Row("element count", ADM, "input 0: element count of shape {} exceeds 2^63-1",
        lambda: cast_admit(spec((1 << 33, 1 << 31), F32)), E.OVERFLOW, "input 0", "8589934592",
        values=(str((1 << 33, 1 << 31)),)),
    Row("negative extent", ADM, "{} axis {}: negative extent {}",
        lambda: cast_admit(spec((4, 3), F32), spec((4, -7), BF16)), E.INVALID_SHAPE, "output 0 axis 1", "-7",
        values=("output 0", "1", "-7")),
    Row("rank mismatch", ADM, "output 0: rank {} does not match input 0 rank {}",
        lambda: cast_admit(spec((2, 3), F32), spec((6,), BF16)), E.INVALID_SHAPE, "output 0", "rank 1",
        values=("1", "2")),
    Row("extent mismatch", ADM, "output 0 axis {}: extent {} does not match input 0 extent {}",
        lambda: cast_admit(spec((2, 3), F32), spec((2, 5), BF16)), E.INVALID_SHAPE, "output 0 axis 1", "extent 5",
        values=("1", "5", "3")),
    Row("extent overflow", ADM, "input 0 axis {}: extent {} exceeds 2^63-1",
        lambda: cast_admit(spec((3, BIG + 5), F32)), E.OVERFLOW, "input 0 axis 1", str(BIG + 5),
        values=("1", str(BIG + 5))),
    Row("contiguous bytes", ADM, "{}: contiguous storage of shape {} exceeds 2^63-1 bytes",
        lambda: cast_admit(spec((3, 1 << 60), BF16), spec((3, 1 << 60), F32)), E.OVERFLOW, "output 0", str(1 << 60),
        values=("output 0", str((3, 1 << 60)))),
    Row("stride count", ADM, "{}: {} strides given for rank {}",
        lambda: cast_admit(spec((2, 2), F32), spec((2, 2), BF16, (8, 4, 2))), E.UNSUPPORTED_LAYOUT, "output 0",
        "3 strides",
        values=("output 0", "3", "2")),
    Row("negative stride", RUL, "{}: negative stride {} (reversed views are unsupported)",
        lambda: cast_admit(spec((2, 3), F32), spec((2, 3), BF16, (6, -2))), E.UNSUPPORTED_LAYOUT, "output 0 axis 1",
        "-2",
        values=("output 0 axis 1", "-2")),
    Row("stride overflow", ADM, "{} axis {}: stride {} exceeds 2^63-1",
        lambda: cast_admit(spec((2, 3), F32), spec((2, 3), BF16, (6, BIG + 2))), E.OVERFLOW, "output 0 axis 1",
        str(BIG + 2),
        values=("output 0", "1", str(BIG + 2))),
    Row("stride multiple", RUL, "{}: stride {} is not a multiple of the {}-byte {} scalar",
        lambda: cast_admit(spec((2, 3), F32), spec((2, 3), BF16, (6, 3))), E.UNSUPPORTED_LAYOUT, "output 0 axis 1",
        "stride 3",
        values=("output 0 axis 1", "3", "2", "BFLOAT16")),
    Row("zero stride", RUL, "{}: zero stride on an axis of extent {} (broadcast views are unsupported)",
        lambda: cast_admit(spec((5, 3), F32), spec((5, 3), BF16, (0, 2))), E.UNSUPPORTED_LAYOUT, "output 0 axis 0",
        "zero stride",
        values=("output 0 axis 0", "5")),
    Row("span overflow", RUL, "{}: accessed span of {} bytes exceeds 2^63-1",
        lambda: cast_admit(spec((2, 3), F32), spec((2, 3), BF16, (6, 1 << 62))), E.OVERFLOW, "output 0 axis 1",
        str(2 + 6 + (2 << 62)),
        values=("output 0 axis 1", str(2 + 1 * 6 + 2 * (1 << 62)))),
    Row("overlap proof", RUL,
        "{}: stride {} does not clear the {} bytes spanned by its faster axes "
        "(overlapping or unproven interleaved view)",
        lambda: cast_admit(spec((3, 4), F32), spec((3, 4), BF16, (6, 2))), E.UNSUPPORTED_LAYOUT, "output 0 axis 0",
        "stride 6",
        values=("output 0 axis 0", "6", str(2 + 3 * 2))),
    # ---- parameters and request types
    Row("params type", "simakernels/ops/_base.py", "params must be {}.Params, {}.AxisParams or {}.BlockParams, got {}",
        lambda: sk.ops.dequant.check_inference(sk.ops.dequant.Request([spec((2,), I8)], [spec((2,), F32)],
                                                                      sk.ops.cast.Params())),
        E.INVALID_PARAMS, "params", "Params()",
        values=("dequant", "dequant", "dequant", "Params()")),
    Row("scale or multiplier", "simakernels/ops/_base.py", "{} {} as binary32 (bits {}) must be {}",
        lambda: sk.ops.dequant.check_inference(sk.ops.dequant.Request([spec((2,), I8)], [spec((2,), F32)],
                                                                      sk.ops.dequant.Params(1e40))),
        E.INVALID_PARAMS, "scale", "inf as binary32 (bits 0x7f800000)",
        values=("scale", "inf", "0x7f800000", "finite and > 0")),
    Row("affine scale", "simakernels/ops/_base.py", "{} {} as binary32 (bits {}) must be {}",
        raised(lambda: sk.dequantize(np.uint8([1, 2]), 0.0)), E.INVALID_PARAMS, "scale", "0.0 as binary32",
        values=("scale", "0.0", "0x00000000", "finite and nonzero")),
    Row("scale or multiplier type", "simakernels/ops/_base.py", "{} {} ({}) must be {}",
        raised(lambda: sk.quantize(f32_buf(), "0.5")), E.INVALID_PARAMS, "multiplier", "'0.5' (str)",
        values=("multiplier", "'0.5'", "str", REAL)),
    Row("zero point", "simakernels/ops/_base.py", "zero_point {} must be an integer in [{}, {}]",
        lambda: sk.ops.quant.check_inference(sk.ops.quant.Request([spec((2,), F32)], [spec((2,), I8)],
                                                                  sk.ops.quant.Params(1.0, 200))),
        E.INVALID_PARAMS, "zero_point", "200",
        values=("200", "-128", "127")),
    Row("cast request type", OPB, "{}.check_inference takes a {}.Request, got {}",
        lambda: sk.ops.cast.check_inference("nope"), E.INVALID_OPERATION, "cast.Request", "str",
        values=("cast", "cast", "builtins.str")),
    Row("cast params", "simakernels/ops/cast.py", "params must be cast.Params(), got {}",
        lambda: sk.ops.cast.check_inference(sk.ops.cast.Request([spec((2,), F32)], [spec((2,), BF16)],
                                                                sk.ops.dequant.Params(1.0))),
        E.INVALID_PARAMS, "params", "Params(scale=",
        values=("Params(scale=np.float32(1.0), zero_point=0)",)),
    Row("dequant request type", OPB, "{}.check_inference takes a {}.Request, got {}",
        lambda: sk.ops.dequant.check_inference(3), E.INVALID_OPERATION, "dequant.Request", "int",
        values=("dequant", "dequant", "builtins.int")),
    Row("quant request type", OPB, "{}.check_inference takes a {}.Request, got {}",
        lambda: sk.ops.quant.check_inference(None), E.INVALID_OPERATION, "quant.Request", "NoneType",
        values=("quant", "quant", "builtins.NoneType")),
    # ---- A65 backend
    Row("prepare type", BACK, "{}.prepare takes an ops.{}.Plan, got {}",
        lambda: sk.a65.cast.prepare(dequant_plan()), E.INVALID_OPERATION, "ops.cast.Plan", "a65.dequant.Plan",
        values=("cast", "cast", "simakernels.a65.dequant.Plan")),
    Row("execute plan type", BACK, "{}.execute takes an a65.{}.Plan, got {}",
        lambda: sk.a65.cast.execute(dequant_plan(), [f32_buf()], [bf16_buf()]), E.INVALID_OPERATION,
        "a65.cast.Plan", "dequant.Plan",
        values=("cast", "cast", "simakernels.a65.dequant.Plan")),
    Row("environment", BACK, "{}: {}; nothing was written",
        under(UPWARD, lambda: sk.a65.dequant.execute(dequant_plan(), [np.zeros(4, np.int8)], [f32_buf()])),
        E.UNSUPPORTED_ENVIRONMENT, "rounding mode", "UPWARD",
        values=("dequant", UPWARD_TEXT)),
    Row("native refusal", BACK, "{}: the native core rejected the plan (status {} {})",
        lambda: sk.a65.cast.execute(corrupted_route_plan(), [f32_buf()], [bf16_buf()]), E.INVALID_OPERATION,
        "plan", "status 1",
        values=("cast", "1", "INVALID_OPERATION")),
    Row("route name", ROUTES_PY, "{}={} names no route of this build on this CPU; available: {}",
        lambda: sk.a65.cast.check_inference(sk.ops.cast.Request([spec((2,), F32)], [spec((2,), BF16)]), "vax"),
        E.UNSUPPORTED_ENVIRONMENT, "route", "'vax'",
        values=("route", "'vax'", ", ".join(sk.a65.available_routes()))),
    # ---- bindings
    Row("const output", BUF, "{}: a ConstHostBuffer cannot be written",
        execute_cast([f32_buf()], [sk.ConstHostBuffer(bf16_buf())]), E.INVALID_BINDING, "output 0",
        "ConstHostBuffer",
        values=("output 0",)),
    Row("not a buffer", BUF, "{}: {}",
        execute_cast([f32_buf()], [(1, 2)]), E.INVALID_BINDING, "output 0", "tuple",
        values=("output 0", "HostBuffer needs a writable, C-contiguous buffer-protocol object, got tuple: "
                "a bytes-like object is required, not 'tuple'")),
    Row("address range", RUL, "{}: address {} is outside the 64-bit address space",
        execute_cast([f32_buf()], [sk.HostBuffer.from_address((1 << 64) + 0x40, 8)]), E.INVALID_BINDING,
        "output 0", "0x10000000000000040",
        values=("output 0", hex((1 << 64) + 0x40))),
    Row("negative view", RUL, "{}: negative extent {}",
        execute_cast([f32_buf()], [sk.HostBuffer.from_address(0x2000, -3)]), E.INVALID_BINDING,
        "output 0", "-3",
        values=("output 0", "-3")),
    Row("view overflow", RUL, "{}: extent {} exceeds 2^63-1 bytes",
        execute_cast([sk.ConstHostBuffer.from_address(0x1000, BIG + 16)], [bf16_buf()]), E.OVERFLOW, "input 0",
        str(BIG + 16),
        values=("input 0", str(BIG + 16))),
    Row("null binding", RUL, "{}: null binding for a tensor of {} bytes",
        execute_cast([sk.ConstHostBuffer.from_address(0, 0)], [bf16_buf()]), E.INVALID_BINDING, "input 0",
        "16 bytes",
        values=("input 0", "16")),
    Row("short view", RUL, "{}: view has {} bytes, the plan requires {}",
        execute_cast([f32_buf()], [bf16_buf(3)]), E.INVALID_BINDING, "output 0", "6 bytes",
        values=("output 0", "6", "8")),
    Row("wrapping view", RUL, "{}: view [{}, +{}) ends beyond 2^63-1",
        execute_cast([sk.ConstHostBuffer.from_address((1 << 64) - 8, 16)], [bf16_buf()]), E.OVERFLOW,
        "input 0", "0xfffffffffffffff8",
        values=("input 0", "0xfffffffffffffff8", "16")),
    Row("view beyond 2^63", RUL, "{}: view [{}, +{}) ends beyond 2^63-1",
        execute_cast([f32_buf()], [sk.HostBuffer.from_address(BIG - 4, 8192)]), E.OVERFLOW,
        "output 0", hex(BIG - 4),
        values=("output 0", hex(BIG - 4), "8192")),
    Row("typed storage", STO, "{}: a {} array is not {} storage; bind a {} array or raw storage (bytes-like, a host "
        "view, a uint8 or {} array): its bytes are never reinterpreted",
        execute_cast([np.arange(4, dtype=np.float64)], [bf16_buf()]), E.INVALID_BINDING, "input 0", "float64",
        values=("input 0", "float64", "FLOAT32", "float32", "uint32")),
    Row("misaligned view", RUL, "{}: address {} is not {}-byte aligned",
        execute_cast([MISALIGNED], [bf16_buf()]),
        E.INVALID_BINDING, "input 0", "not 4-byte aligned",
        values=("input 0", hex(MISALIGNED.ctypes.data), "4")),
    Row("binding arity", BUF, "plan binds {} input(s) and {} output(s), got {} and {}",
        execute_cast([f32_buf(), f32_buf()], [bf16_buf(), bf16_buf(), bf16_buf()]), E.INVALID_ARITY, "input(s)",
        "got 2",
        values=("1", "1", "2", "3")),
    Row("binding overlap", RUL, "{} [{}, +{}) and {} [{}, +{}): accessed {} overlap",
        lambda: sk.a65.cast.execute(cast_plan(2), [SHARED[:12]], [SHARED[4:10]]),
        E.INVALID_BINDING, "input 0", "+8)",
        values=("input 0", hex(SHARED.ctypes.data), "8", "output 0", hex(SHARED.ctypes.data + 4), "4", "byte ranges")),
    # ---- array layer
    Row("dtype name", STO, "no simakernels dtype for {}; supported: {}",
        raised(lambda: sk.cast(f32_buf(), "int3")), E.UNSUPPORTED_DTYPE, "dtype", "'int3'; supported: int8, ",
        values=("'int3'", SUPPORTED)),
    Row("numpy dtype", ARR, "{}: NumPy dtype {} is not a simakernels dtype ({}){}",
        raised(lambda: sk.cast(np.zeros(3, np.int64), F32)), E.UNSUPPORTED_DTYPE, "input 0",
        "int64 is not a simakernels dtype (int8, ",
        values=("input 0", "int64", SUPPORTED, "")),
    Row("numpy dtype, float64 hint", ARR, "{}: NumPy dtype {} is not a simakernels dtype ({}){}",
        raised(lambda: sk.quantize([1.5, 2.0], 1.0)), E.UNSUPPORTED_DTYPE, "input 0",
        "float64: pass np.asarray(x, np.float32)",
        values=("input 0", "float64", SUPPORTED,
                "; Python floats and lists become float64: pass np.asarray(x, np.float32)")),
    Row("array rank", ARR, "{}: rank {} exceeds 6",
        raised(lambda: sk.cast(np.zeros((1,) * 7, np.float32), BF16)), E.INVALID_SHAPE, "input 0", "rank 7",
        values=("input 0", "7")),
    Row("read-only out", ARR, "output 0: out is read-only, a writable array is required",
        raised(lambda: sk.cast(np.zeros((3, 5), np.float32), BF16,
                               out=readonly(np.zeros((3, 5), ml_dtypes.bfloat16)))),
        E.INVALID_BINDING, "output 0", "read-only, a writable array is required",
        values=()),
    Row("read-only out, cached plan", ARR, "output 0: out is read-only, a writable array is required",
        cached_then_readonly(lambda out: sk.cast(np.zeros((2, 4), np.float32), BF16, out=out)),
        E.INVALID_BINDING, "output 0", "read-only, a writable array is required",
        values=()),
    Row("masked array", ARR, "{} ({}): numpy.ma.MaskedArray is not supported (its mask would be ignored); "
        "pass {}.filled(value) or {}.data",
        raised(lambda: sk.cast(np.ma.masked_array(f32_buf(), mask=True), BF16)), E.INVALID_BINDING, "input 0 (x)",
        "MaskedArray",
        values=("input 0", "x", "x", "x")),
    Row("out dtype", ARR, "output 0: out has dtype {}, expected {}",
        raised(lambda: sk.cast(f32_buf(), BF16, out=np.zeros(4, np.float32))), E.UNSUPPORTED_DTYPE, "output 0",
        "float32",
        values=("float32", "bfloat16")),
    Row("quant params", ARR, "<dynamic>",
        raised(lambda: sk.quantize(f32_buf(), 1.0, rounding="sideways")), E.INVALID_PARAMS, "rounding",
        "'sideways'",
        values=(ROUNDING_TEXT,)),
    Row("read-only out, workers", SPL, "output 0: out is read-only, a writable array is required",
        cached_then_readonly(lambda out: split(sk.cast, np.zeros((2, 4), np.float32), BF16, out=out, workers=2)),
        E.INVALID_BINDING, "output 0", "read-only, a writable array is required",
        values=()),
    Row("workers", SPL, "workers {} ({}) must be a positive integer",
        raised(lambda: sk.cast(np.zeros((2, 4), np.float32), BF16, workers=0)), E.INVALID_PARAMS, "workers", "0",
        values=("0", "int")),
    Row("environment, workers", SPL, "{}: {}; nothing was written",
        under(UPWARD, raised(lambda: split(sk.dequantize, np.zeros((2, 4), np.int8), 0.5, workers=2))),
        E.UNSUPPORTED_ENVIRONMENT, "rounding mode", "UPWARD",
        values=("dequant", UPWARD_TEXT)),
    Row("pickled plan, route missing", BACK, "loading a pickled {} plan: {}", unpickled_without_its_route,
        E.UNSUPPORTED_ENVIRONMENT, "pickled quant plan", "route='scalar'",
        values=("quant", "route='scalar' names no route of this build on this CPU; available: ")),
    # ---- parameter chooser
    Row("qparams dtype", QP, "x: dtype {} is not FLOAT32, FLOAT16 or BFLOAT16 ({})",
        raised(lambda: sk.choose_qparams(np.float64([1.0]))), E.UNSUPPORTED_DTYPE, "x", "float64",
        values=("float64", "numpy.ndarray")),
    # ---- per-axis parameters (Dequant, Quant, choose_qparams)
    Row("axis outside the rank", OPB, "axis {} is outside the rank {} of shape {} ({})",
        raised(lambda: sk.choose_qparams(np.float32([[1.0, 2.0]]), axis=3)), E.INVALID_PARAMS, "axis", "3",
        values=("3", "2", "(1, 2)", "valid: -2 to 1")),
    Row("axis not an integer", OPB, "axis {} ({}) must be an integer",
        raised(lambda: sk.dequantize(np.int8([1]), [1.0], axis=0.5)), E.INVALID_PARAMS, "axis", "0.5",
        values=("0.5", "float")),
    Row("axis values length", OPB, "{} has {} entries, but {}",
        raised(lambda: sk.quantize(np.float32([[1.0, 2.0, 3.0]]), [1.0, 2.0], axis=1)), E.INVALID_PARAMS,
        "multipliers", "2 entries",
        values=("multipliers", "2", "axis 1 of shape (1, 3) has 3")),
    Row("axis value entry type", OPB, "{}[{}] {} ({}) must be {}",
        raised(lambda: sk.dequantize(np.int8([1, 2]), [1.0, "x"], axis=0)), E.INVALID_PARAMS, "scales[1]", "'x'",
        values=("scales", "1", "'x'", "str", REAL)),
    Row("axis value entry", OPB, "{}[{}] {} as binary32 (bits {}) must be {}",
        raised(lambda: sk.dequantize(np.int8([1, 2]), [1.0, 0.0], axis=0)), E.INVALID_PARAMS, "scales[1]", "0.0",
        values=("scales", "1", "0.0", "0x00000000", "finite and > 0")),
    Row("axis values not a sequence", OPB, "{} must be a 1-D sequence of real numbers, got {}",
        raised(lambda: sk.dequantize(np.int8([1, 2]), 1.0, axis=0)), E.INVALID_PARAMS, "scales", "float",
        values=("scales", "builtins.float")),
    Row("axis shared zero point", OPB, "zero_points {} must be an integer in [{}, {}]",
        raised(lambda: sk.quantize(np.float32([1.0]), [1.0], 200, axis=0)), E.INVALID_PARAMS, "zero_points", "200",
        values=("200", "-128", "127")),
    Row("axis zero points type", OPB, "zero_points must be an integer or a 1-D sequence of integers, got {}",
        raised(lambda: sk.quantize(np.float32([1.0]), [1.0], np.zeros((1, 1), np.int64), axis=0)),
        E.INVALID_PARAMS, "zero_points", "ndarray",
        values=("numpy.ndarray",)),
    Row("axis zero point entry", OPB, "zero_points[{}] {} must be an integer in [{}, {}]",
        raised(lambda: sk.quantize(np.float32([1.0, 2.0]), [1.0, 1.0], [0, -129], axis=0)), E.INVALID_PARAMS,
        "zero_points[1]", "-129",
        values=("1", "-129", "-128", "127")),
    Row("per-tensor value given a sequence", OPB,
        "{} is a sequence of {} values ({}): one value per index along an axis needs axis= (the array functions) "
        "or {}.AxisParams",
        raised(lambda: sk.quantize(np.float32([1.0, 2.0]), [1.0, 1.0])), E.INVALID_PARAMS, "multiplier", "2 values",
        values=("multiplier", "2", "list", "quant")),
    Row("ev74 per-axis", EVQ, "ev74.quant: per-axis parameters (quant.AxisParams) cannot be encoded: the 224-byte "
        "descriptor holds one multiplier and one zero point; run per-axis Quant on the A65 (sk.a65.quant) or encode "
        "one plan per channel slice",
        lambda: ev.check_inference(sk.ops.quant.Request([spec((2,), F32)], [spec((2,), I8)],
                                                        sk.ops.quant.AxisParams(0, [1.0, 2.0]))),
        E.DEVICE_LIMIT, "per-axis", "AxisParams",
        values=()),
    # ---- blocked parameters (Dequant, Quant)
    Row("block size", OPB, "block_size {} ({}) must be a positive integer (elements per block along axis {})",
        raised(lambda: sk.quantize(np.float32([[1.0, 2.0]]), [[1.0]], axis=-1, block_size=0)), E.INVALID_PARAMS,
        "block_size", "0",
        values=("0", "int", "-1")),
    Row("block size without axis", ARR, "block_size={} needs axis= (the axis along which the blocks run)",
        raised(lambda: sk.dequantize(np.int8([[1, 2]]), [[1.0]], block_size=2)), E.INVALID_PARAMS, "block_size",
        "2",
        values=("2",)),
    Row("blocked values shape", OPB, "{} has shape {}, expected {}: {}",
        raised(lambda: sk.quantize(np.float32([[1.0, 2.0, 3.0]]), [[1.0, 2.0]], axis=1, block_size=4)),
        E.INVALID_PARAMS, "multipliers", "(1, 2)",
        values=("multipliers", "(1, 2)", "(1, 1)",
                "axis 1 of shape (1, 3) in blocks of 4 gives parameters of shape (1, 1) (1 along the axis)")),
    Row("blocked values not an array", OPB, "{} must be an array of real numbers of shape {}, got {} ({}): {}",
        raised(lambda: sk.dequantize(np.int8([1, 2, 3]), 0.5, axis=0, block_size=2)), E.INVALID_PARAMS, "scales",
        "0.5",
        values=("scales", "(2,)", "0.5", "builtins.float",
                "axis 0 of shape (3,) in blocks of 2 gives parameters of shape (2,) (2 along the axis)")),
    Row("blocked zero points type", OPB,
        "zero_points must be an integer or an array of integers of shape {}, got {} ({})",
        raised(lambda: sk.quantize(np.float32([1.0, 2.0]), [1.0], "z", axis=0, block_size=2)), E.INVALID_PARAMS,
        "zero_points", "'z'",
        values=("(1,)", "'z'", "builtins.str")),
    Row("blocked zero points shape", OPB, "zero_points has shape {}, expected {}: {}",
        raised(lambda: sk.dequantize(np.int8([[1, 2]]), [[1.0]], [[0, 0]], axis=1, block_size=2)),
        E.INVALID_PARAMS, "zero_points", "(1, 2)",
        values=("(1, 2)", "(1, 1)",
                "axis 1 of shape (1, 2) in blocks of 2 gives parameters of shape (1, 1) (1 along the axis)")),
    Row("blocked value entry", OPB, "{}[{}] {} as binary32 (bits {}) must be {}",
        raised(lambda: sk.quantize(np.float32([[1.0, 2.0], [3.0, 4.0]]), [[1.0], [-2.0]], axis=1, block_size=2)),
        E.INVALID_PARAMS, "multipliers[1, 0]", "-2.0",
        values=("multipliers", "1, 0", "-2.0", "0xc0000000", "finite and > 0")),
    Row("ev74 blocked", EVQ, "ev74.quant: blocked parameters (quant.BlockParams) cannot be encoded: the 224-byte "
        "descriptor holds one multiplier and one zero point; run blocked Quant on the A65 (sk.a65.quant) or encode "
        "one plan per block",
        lambda: ev.check_inference(sk.ops.quant.Request([spec((2,), F32)], [spec((2,), I8)],
                                                        sk.ops.quant.BlockParams(0, 1, [1.0, 2.0]))),
        E.DEVICE_LIMIT, "blocked", "BlockParams",
        values=()),
    Row("qparams range keys", QP,
        "choose_qparams: the native rule refused the range keys of channel {}: ({}, {}) in {}",
        raised(lambda: sk.qparams._from_keys(np.int64([0, 1]), np.int64([0, 0]), np.dtype(np.float32), False, 0)),
        E.INVALID_PARAMS, "channel 1", "(1, 0)",
        values=("1", "1", "0", "float32")),
    Row("dynamic rounding", QP, "<dynamic>",
        raised(lambda: sk.quantize_dynamic(np.float32([1.0]), rounding="sideways")), E.INVALID_PARAMS, "rounding",
        "'sideways'",
        values=(ROUNDING_TEXT,)),
    Row("qparams block_size without axis", QP,
        "block_size={} needs an axis (the axis its blocks run along); axis=None is per tensor",
        raised(lambda: sk.choose_qparams(np.float32([1.0, 2.0]), block_size=2)), E.INVALID_PARAMS, "block_size",
        "2",
        values=("2",)),
    Row("qparams block_size", QP, "block_size {} ({}) for axis {} of shape {} must be a positive integer",
        raised(lambda: sk.choose_qparams(np.float32([1.0, 2.0]), axis=0, block_size=0)), E.INVALID_PARAMS,
        "block_size", "0",
        values=("0", "int", "0", "(2,)")),
    Row("dynamic read-only out", QP, "output 0: out is read-only, a writable array is required",
        raised(lambda: sk.quantize_dynamic(np.float32([1.0, 2.0]), out=readonly(np.zeros(2, np.int8)))),
        E.INVALID_BINDING, "output 0", "read-only, a writable array is required",
        values=()),
    Row("qparams symmetric", QP, "symmetric must be a bool, got {}",
        raised(lambda: sk.choose_qparams(np.float32([1.0]), symmetric="yes")), E.INVALID_PARAMS, "symmetric",
        "'yes'",
        values=("'yes'",)),
    Row("qparams storage dtype", QP, "dtype={}: {}; choose_qparams chooses levels of int8, uint8, int16, uint16, "
                                     "int4, uint4, int2 or uint2",
        raised(lambda: sk.choose_qparams(np.float32([1.0]), dtype="float32")), E.UNSUPPORTED_DTYPE, "dtype",
        "'float32'",
        values=("'float32'", "not an integer storage type")),
    Row("qparams storage dtype, 32-bit", QP, "dtype={}: {}; choose_qparams chooses levels of int8, uint8, int16, "
                                             "uint16, int4, uint4, int2 or uint2",
        raised(lambda: sk.choose_qparams(np.float32([1.0]), dtype=sk.DType.UINT32)), E.UNSUPPORTED_DTYPE, "dtype",
        "DType.UINT32",
        values=("DType.UINT32", "32-bit integers are no quantization's output")),
    Row("qparams storage dtype, none", QP, "dtype={}: {}; choose_qparams chooses levels of int8, uint8, int16, "
                                           "uint16, int4, uint4, int2 or uint2",
        raised(lambda: sk.choose_qparams(np.float32([1.0]), dtype="int3")), E.UNSUPPORTED_DTYPE, "dtype", "'int3'",
        values=("'int3'", "names no simakernels dtype")),
    Row("qparams symmetric unsigned", QP, "symmetric=True with dtype={}: symmetric levels -(2^(b-1) - 1) .. "
                                          "2^(b-1) - 1 need a signed type; {} is unsigned (take symmetric=False)",
        raised(lambda: sk.choose_qparams(np.float32([1.0]), dtype="uint4", symmetric=True)), E.INVALID_PARAMS,
        "symmetric=True", "uint4",
        values=("uint4", "uint4")),
    # ---- the Dask layer (its other rejections are the array layer's, from the same code)
    Row("dask rounding", DSK, "<dynamic>",
        on_dask(lambda skd, da: skd.quantize(da.zeros(4, dtype=np.float32, chunks=2), 1.0, rounding="sideways")),
        E.INVALID_PARAMS, "rounding", "'sideways'",
        values=(ROUNDING_TEXT,)),
    Row("dask unknown chunks", DSK, "x: shape {} has unknown chunk sizes; call x.compute_chunk_sizes() first",
        on_dask(lambda skd, da: skd.cast(da.arange(4, dtype=np.float32, chunks=2)[da.arange(4, chunks=2) > 1], BF16)),
        E.INVALID_SHAPE, "x", "(nan,)",
        values=("(nan,)",)),
    Row("dask parameters", DSK, "{} is a dask.array.Array; pass its values as a NumPy array ({}.compute())",
        on_dask(lambda skd, da: skd.dequantize(da.zeros(4, dtype=np.int8, chunks=2), da.ones(4, chunks=2), axis=0)),
        E.INVALID_PARAMS, "scale", "dask.array.Array",
        values=("scale", "scale")),
    # ---- EV74 host codec
    Row("ev74 request type", EVQ, "ev74.quant.check_inference takes an ops.quant Request or Plan, got {}",
        lambda: ev.check_inference("nope"), E.INVALID_OPERATION, "ops.quant Request", "str",
        values=("builtins.str",)),
    Row("ev74 extent", RUL, "{}: extent {} does not fit {}",
        lambda: ev.check_inference(sk.ops.quant.Request([spec((1 << 32, 0), F32)], [spec((1 << 32, 0), I8)],
                                                        sk.ops.quant.Params(1.0))),
        E.DEVICE_LIMIT, "axis 0", "4294967296",
        values=("input 0 axis 0", "4294967296", EV74_DOMAIN)),
    Row("ev74 span", RUL, "{}: accessed span of {} bytes (from axis {}) does not fit the EV74's 32-bit address "
        "domain",
        lambda: ev.check_inference(sk.ops.quant.Request([spec((2, 1 << 29), F32)], [spec((2, 1 << 29), I8)],
                                                        sk.ops.quant.Params(1.0))),
        E.DEVICE_LIMIT, "input 0", "4294967296",
        values=("input 0", str(4 + 1 * (1 << 31) + ((1 << 29) - 1) * 4), "1")),
    Row("ev74 stride", RUL, "{}: stride {} does not fit {}",
        lambda: ev.check_inference(sk.ops.quant.Request([spec((2, 3), F32)], [spec((2, 3), I8, (3, 1 << 33))],
                                                        sk.ops.quant.Params(1.0))),
        E.DEVICE_LIMIT, "output 0 axis 1", str(1 << 33),
        values=("output 0 axis 1", str(1 << 33), EV74_DOMAIN)),
    Row("encode type", EVQ, "encode_relocatable takes an ev74.quant.Plan, got {}",
        lambda: ev.encode_relocatable(7), E.INVALID_OPERATION, "ev74.quant.Plan", "int",
        values=("builtins.int",)),
    Row("region type", EVQ, "{}: expected an ev74.DeviceRegion, got {}",
        ev_bind([(0x1000, 64)], [OUT_OK]), E.INVALID_BINDING, "input 0", "tuple",
        values=("input 0", "builtins.tuple")),
    Row("region value", EVQ, "{}: {} {} is not a nonnegative integer",
        ev_bind([IN_OK], [Region(0x1000_1000, -5)]), E.INVALID_BINDING, "output 0: capacity", "-5",
        values=("output 0", "capacity", "-5")),
    Row("null region", RUL, "{}: null device address",
        ev_bind([IN_OK], [Region(0, 16)]), E.INVALID_BINDING, "output 0", "null",
        values=("output 0",)),
    Row("region capacity", RUL, "{}: capacity {} bytes, the plan accesses {}",
        ev_bind([IN_OK], [Region(0x1000_1000, 15)]), E.INVALID_BINDING, "output 0", "capacity 15",
        values=("output 0", "15", "16")),
    Row("region domain", RUL, "{}: address {} + {} bytes leaves the 32-bit device domain",
        ev_bind([Region((1 << 32) - 32, 96)], [OUT_OK]), E.DEVICE_LIMIT, "input 0", "0xffffffe0",
        values=("input 0", "0xffffffe0", "64")),
    Row("region alignment", RUL, "{}: address {} is not {}-byte aligned",
        ev_bind([Region(0x1000_0002, 64)], [OUT_OK]), E.INVALID_BINDING, "input 0", "0x10000002",
        values=("input 0", "0x10000002", "4")),
    Row("bind plan type", EVQ, "bind takes an ev74.quant.Plan, got {}",
        ev_bind([IN_OK], [OUT_OK], plan="nope"), E.INVALID_OPERATION, "ev74.quant.Plan", "str",
        values=("builtins.str",)),
    Row("bind packet type", EVQ, "bind takes a relocatable ev74.quant.Packet, got {}",
        ev_bind([IN_OK], [OUT_OK], packet=b"x" * 224), E.PACKET_MISMATCH, "ev74.quant.Packet", "bytes",
        values=("builtins.bytes",)),
    Row("packet mismatch", EVQ, "packet field {} (offset {}) is {}, this plan's is {}: the packet was not encoded "
        "from this plan",
        lambda: ev.bind(ev_packet(), ev_plan(m=0x3E99999A), [IN_OK], [OUT_OK]), E.PACKET_MISMATCH,
        "multiplier (offset 208)", "0x3f800000",
        values=("multiplier", "208", "0x3f800000", "0x3e99999a")),
    Row("packet length", EVQ, "packet descriptor is {}, this plan's is {} bytes: the packet was not encoded "
        "from this plan",
        lambda: ev.bind(ev.Packet(b"\x00" * 200), ev_plan(), [IN_OK], [OUT_OK]), E.PACKET_MISMATCH,
        "packet descriptor", "200 bytes",
        values=("200 bytes", "224")),
    Row("region arity", EVQ, "bind takes 1 input and 1 output region, got {} and {}",
        ev_bind([], [OUT_OK, OUT_OK]), E.INVALID_ARITY, "input", "got 0",
        values=("0", "2")),
    Row("region overlap", RUL, "{} [{}, +{}) and {} [{}, +{}): accessed {} overlap",
        ev_bind([Region(0x1000_0000, 64)], [Region(0x1000_0020, 16)]), E.INVALID_BINDING, "output 0",
        "0x10000020",
        values=("input 0", "0x10000000", "64", "output 0", "0x10000020", "16", "device ranges")),
    Row("decode type", EVQ, "descriptor must be bytes-like, got {}",
        lambda: ev.decode(5), E.INVALID_DESCRIPTOR, "descriptor", "int",
        values=("builtins.int",)),
    Row("decoder message", EVQ, "<dynamic>",
        lambda: ev.decode(bytes(100)), E.INVALID_DESCRIPTOR, "length", "100",
        values=("descriptor length 100, expected 224 bytes",)),
    Row("submit type", EVD, "submit takes a BoundPacket, got {}",
        submit("nope"), E.INVALID_DESCRIPTOR, "BoundPacket", "str",
        values=("builtins.str",)),
    Row("submit relocatable", DEC,
        "packet fields %s and %s are 0 (relocatable): bind it to device regions first",
        submit(relocatable_bound), E.INVALID_BINDING, "input_address", "are 0",
        values=("input_address", "output_address")),
    Row("submit memory", DEC, "%s range %#llx + %llu is not device memory",
        submit(lambda: ev.encode(ev_plan(), [Region(0x2000_0000, 64)], [Region(0x2000_1000, 16)])),
        E.INVALID_BINDING, "input range", "0x20000000",
        values=("input", "0x20000000", "64")),
    Row("admission message", EVQ, "<dynamic>",
        submit(relocatable_bound), E.INVALID_BINDING, "input_address", "are 0",
        values=("packet fields input_address and output_address are 0 (relocatable): bind it to device regions "
                "first",)),
    Row("kernel refusal", OCL, "<dynamic>",
        submit(lambda: ev.BoundPacket(bytes(100), (), ()), engine="opencl"), E.INVALID_DESCRIPTOR, "length",
        "100", values=("descriptor length 100, expected 224 bytes",)),
    Row("unknown check", DEC, "refused by check %d",
        explain_check(99), E.INVALID_DESCRIPTOR, "check", "99", values=("99",)),
    # ---- Hurray format
    Row("descriptor data type", HUR, "data must be bytes-like (the 16 descriptor bytes), got {}",
        raised(lambda: H.PerTensorAffine.decode(16, ST.INT8)), FORMAT_ERROR, "data", "builtins.int",
        values=("builtins.int",)),
    Row("storage tag type", HUR, "storage type {} is not an integer tag",
        raised(lambda: H.dequantize(b"", H.PerTensorAffine(1.0), 1.5)), FORMAT_ERROR, "storage type", "1.5",
        values=("1.5",)),
    Row("storage tag", HUR, "storage type {} is not one of the valid tags ({})",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(), 0x99)), FORMAT_ERROR, "storage type", "153",
        values=("153", "INT8 0x10, UINT8 0x11, INT16 0x12, UINT16 0x13, INT32 0x14, UINT32 0x15, INT4 0x48, "
                "UINT4 0x49, INT2 0x4a, UINT2 0x4b")),
    Row("zero point int32", HUR, "zero_point (offset 8): {} is not an int32",
        raised(lambda: H.PerTensorAffine(1.0, 1 << 31).encode()), FORMAT_ERROR, "zero_point", "2147483648",
        values=("2147483648",)),
    Row("zero point range", HUR, "zero_point (offset 8): {} is outside the {} range [{}, {}]",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(zp=300), ST.UINT8)), FORMAT_ERROR, "zero_point", "300",
        values=("300", "UINT8", "0", "255")),
    Row("scale finite", HUR, "scale (offset 4): bits {} are not finite{}",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(scale=0x7FC00000), ST.INT8)), FORMAT_ERROR, "scale",
        "0x7fc00000",
        values=("0x7fc00000", "")),
    Row("scale zero", HUR, "scale (offset 4): bits {} are zero{}",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(scale=0x80000000), ST.INT8)), FORMAT_ERROR, "scale",
        "0x80000000",
        values=("0x80000000", "")),
    Row("scale zero at construction", HUR, "scale (offset 4): bits {} are zero{}",
        raised(lambda: H.PerTensorAffine(1e-50)), FORMAT_ERROR, "scale", "scale=1e-50",
        values=("0x00000000", " (scale=1e-50 as binary32)")),
    Row("scale type", HUR, "scale: {} ({}) must be {}",
        raised(lambda: H.PerTensorAffine("abc")), FORMAT_ERROR, "scale", "'abc' (builtins.str)",
        values=("'abc'", "builtins.str", REAL)),
    Row("scale numeric string", HUR, "scale: {} ({}) must be {}",
        raised(lambda: H.PerTensorAffine(" 2.5 ")), FORMAT_ERROR, "scale", "' 2.5 ' (builtins.str)",
        values=("' 2.5 '", "builtins.str", REAL)),
    Row("scale bytes", HUR, "scale: {} ({}) must be {}",
        raised(lambda: H.PerTensorAffine(b"1")), FORMAT_ERROR, "scale", "b'1' (builtins.bytes)",
        values=("b'1'", "builtins.bytes", REAL)),
    Row("scale bool", HUR, "scale: {} ({}) must be {}",
        raised(lambda: H.PerTensorAffine(True)), FORMAT_ERROR, "scale", "True (builtins.bool)",
        values=("True", "builtins.bool", REAL)),
    Row("length", HUR, "length: {} bytes, expected {}",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes()[:15], ST.INT8)), FORMAT_ERROR, "length", "15",
        values=("15", "16")),
    Row("scheme tag", HUR, "scheme_tag (offset 0): {}, expected {}",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(tag=2), ST.INT8)), FORMAT_ERROR, "scheme_tag", "0x02",
        values=("0x02", "0x01")),
    Row("scheme version", HUR, "scheme_version (offset 1): {}, expected {}",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(version=3), ST.INT8)), FORMAT_ERROR, "scheme_version",
        "0x03",
        values=("0x03", "0x01")),
    Row("flags", HUR, "flags (offset 2): {}, expected 0x0000",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(flags=0x80), ST.INT8)), FORMAT_ERROR, "flags",
        "0x0080",
        values=("0x0080",)),
    Row("reserved", HUR, "_reserved (offset 12): {}, expected 00000000",
        raised(lambda: H.PerTensorAffine.decode(hurray_bytes(reserved=0x01000000), ST.INT8)), FORMAT_ERROR,
        "_reserved", "00000001",
        values=("00000001",)),
    Row("bridge storage", HUR, "the Dequant bridge takes INT8 storage only, not {}",
        raised(lambda: H.PerTensorAffine(1.0).to_dequant_params(ST.INT16)), FORMAT_ERROR, "storage", "INT16",
        values=("INT16",)),
    Row("bridge scale", HUR, "the Dequant bridge needs a positive scale, got {}",
        raised(lambda: H.PerTensorAffine(-2.0).to_dequant_params(ST.INT8)), FORMAT_ERROR, "scale", "-2.0",
        values=("-2.0",)),
    Row("hurray environment", HUR, "hurray.dequantize: {}; nothing was written",
        under(UPWARD, raised(lambda: H.dequantize(bytes(8), H.PerTensorAffine(-2.0), ST.INT16))),
        E.UNSUPPORTED_ENVIRONMENT, "rounding mode", "UPWARD",
        values=(UPWARD_TEXT,)),
    Row("hurray environment, INT8 bridge", HUR, "hurray.dequantize: {}; nothing was written",
        under(UPWARD, raised(lambda: H.dequantize(bytes(8), H.PerTensorAffine(0.5), ST.INT8))),
        E.UNSUPPORTED_ENVIRONMENT, "rounding mode", "UPWARD",
        values=(UPWARD_TEXT,)),
    # ---- the Hurray storage types (docs/formats.md): dtype=, packed=, sk.Packed, hurray.quantize
    Row("packed out shape", ARR, "output 0: out is a Packed {} of shape {}, expected {} of shape {}",
        raised(lambda: sk.quantize(np.float32([1, 2]), 1.0, dtype="int4", out=sk.Packed.empty((3,), "int4"))),
        E.INVALID_SHAPE, "output 0", "(3,)", values=("INT4", "(3,)", "INT4", "(2,)")),
    Row("packed out read-only", ARR, "output 0: out.data is read-only, a writable array is required",
        raised(lambda: sk.quantize(np.float32([1, 2]), 1.0, out=read_only_packed())), E.INVALID_BINDING,
        "output 0", "read-only", values=()),
    Row("packed out not Packed", ARR, "output 0: packed output needs out= an sk.Packed, got {} ({})",
        raised(lambda: sk.quantize(np.float32([1, 2]), 1.0, dtype="int4", packed=True, out=np.zeros(1, np.uint8))),
        E.INVALID_BINDING, "output 0", "array of shape (1,)",
        values=("array of shape (1,) and dtype uint8 [0]", "numpy.ndarray")),
    Row("packed not sub-byte", ARR, "packed=True takes a sub-byte dtype (int4, uint4, int2, uint2), not {}",
        raised(lambda: sk.quantize(np.float32([1, 2]), 1.0, dtype="uint8", packed=True)), E.UNSUPPORTED_DTYPE,
        "packed=True", "uint8", values=("uint8",)),
    Row("packed flag", ARR, "packed={} must be True or False",
        raised(lambda: sk.quantize(np.float32([1, 2]), 1.0, dtype="int4", packed=1)), E.INVALID_PARAMS, "packed",
        "1", values=("1",)),
    Row("qparams dtype", ARR, "dtype={} given with a QParams for {}: pass one or the other",
        raised(lambda: sk.quantize(np.float32([1, 2]), sk.choose_qparams(np.float32([1, 2]), dtype="uint4"),
                                   dtype="int16")), E.INVALID_PARAMS, "dtype", "'int16'", values=("'int16'", "uint4")),
    Row("quantize output dtype", ARR, "quantize: dtype {} is not an output type; supported: {}",
        raised(lambda: sk.quantize(np.float32([1, 2]), 1.0, dtype="int32")), E.UNSUPPORTED_DTYPE, "dtype", "int32",
        values=("int32", "int8, uint8, int16, uint16, int4, uint4, int2, uint2")),
    Row("hurray quantize storage", HUR, "quantize writes 8-, 16- and sub-byte storage, not {}",
        lambda: format_error(lambda: H.quantize(np.float32([1]), ST.INT32, 1.0)), FORMAT_ERROR, "storage", "INT32",
        values=("INT32",)),
    Row("hurray quantize scale", HUR, "scale (offset 4): {} (bits {}) must be positive with a finite binary32 "
        "reciprocal to quantize with",
        lambda: format_error(lambda: H.quantize(np.float32([1]), ST.INT8, -2.0)), FORMAT_ERROR, "scale", "-2.0",
        values=("-2.0", "0xc0000000")),
    Row("packed data length", "simakernels/packed.py", "Packed data has {} bytes; {} {} elements take {}",
        raised(lambda: sk.Packed(np.zeros(3, np.uint8), "int4", (4,))), E.INVALID_BINDING, "Packed data", "3 bytes",
        values=("3", "(4,)", "INT4", "2")),
    Row("packed data type", "simakernels/packed.py", "Packed data must be a C-contiguous uint8 array, got {} ({})",
        raised(lambda: sk.Packed(np.zeros(2, np.int8), "int4", (4,))), E.INVALID_BINDING, "Packed data", "int8",
        values=("array of shape (2,) and dtype int8 [0, 0]", "numpy.ndarray")),
    Row("packed shape", "simakernels/packed.py", "Packed shape {}: extents must be >= 0, rank <= 6",
        raised(lambda: sk.Packed(np.zeros(0, np.uint8), "int4", (-1,))), E.INVALID_SHAPE, "Packed shape", "(-1,)",
        values=("(-1,)",)),
    Row("pack dtype", "simakernels/packed.py", "pack takes an ml_dtypes int4/uint4/int2/uint2 array, got dtype {}",
        raised(lambda: sk.pack(np.zeros(2, np.int8))), E.UNSUPPORTED_DTYPE, "pack", "int8", values=("int8",)),
    Row("pack not an array", "simakernels/packed.py", "pack takes an ml_dtypes int4/uint4/int2/uint2 array, got {} ({})",
        raised(lambda: sk.pack([1, 2])), E.UNSUPPORTED_DTYPE, "pack", "[1, 2]", values=("[1, 2]", "builtins.list")),
    Row("packing status", "simakernels/packed.py", "packing {} {} elements: the native core refused the buffers (status {})",
        packing_status, E.INVALID_BINDING, "packing", "INT4", values=("4", "INT4", "8")),
    Row("packed dtype", "simakernels/packed.py", "{}: {} is not a packed sub-byte type (INT4, UINT4, INT2, UINT2)",
        raised(lambda: sk.Packed(np.zeros(2, np.uint8), "uint8", (2,))), E.UNSUPPORTED_DTYPE, "Packed dtype",
        "UINT8", values=("Packed dtype", "UINT8")),
    # ---- what a new user met: a QParams given with its own fields, arrays of other libraries
    Row("cast without a dtype", ARR, "cast: give the output dtype (dtype=) or an output array (out=)",
        raised(lambda: sk.cast(f32_buf())), E.UNSUPPORTED_DTYPE, "dtype=", "out=", values=()),
    Row("not an array", ARR, "input 0 (x): {} ({}) is not an array: pass a NumPy array, a DLPack array (PyTorch, "
        "JAX) or a sequence of numbers",
        raised(lambda: sk.quantize(None, 1.0)), E.UNSUPPORTED_DTYPE, "input 0 (x)", "None",
        values=("None", "builtins.NoneType")),
    Row("qparams given twice", ARR, "{}={} given with a QParams, which holds the {}: pass one or the other",
        raised(lambda: sk.dequantize(np.int8([1, 2]), sk.choose_qparams(np.float32([1.0, -2.0])), 3)),
        E.INVALID_PARAMS, "zero_point", "3", values=("zero_point", "3", "zero_point")),
    Row("dlpack device", DLP, "{} ({}): the {} is on DLPack device {} (type {}), not the CPU: copy it to the host "
        "first (for example .cpu()); nothing is copied implicitly",
        raised(lambda: sk.quantize(f32_buf(), 1.0, out=DLPackOnly(np.zeros(4, np.int8), device=(2, 1)))),
        E.INVALID_BINDING, "output 0 (out)", "(2, 1)",
        values=("output 0", "out", "support.dlpack_helpers.DLPackOnly", "(2, 1)", "2")),
    Row("dlpack export", DLP, "{} ({}): the {} could not be read through DLPack: {}",
        raised(lambda: sk.cast(DLPackOnly(f32_buf(), failing=BufferError("no export")), BF16)),
        E.INVALID_BINDING, "input 0 (x)", "no export",
        values=("input 0", "x", "support.dlpack_helpers.DLPackOnly", "BufferError('no export')")),
    Row("dlpack device query", DLP, "{} ({}): {}.__dlpack_device__() failed: {}",
        raised(lambda: sk.cast(DLPackOnly(f32_buf(), failing=BufferError("a"), failing_device=OSError("gone")), BF16)),
        E.INVALID_BINDING, "input 0 (x)", "gone",
        values=("input 0", "x", "support.dlpack_helpers.DLPackOnly", "OSError('gone')")),
    Row("parameter array dtype", OPB, "{}: an array of dtype {} ({}); the entries must be real numbers (an "
        "integer or floating dtype, not bool)",
        raised(lambda: sk.quantize(np.ones((3, 4), np.float32), np.ones(3, bool), axis=0)), E.INVALID_PARAMS,
        "multipliers", "bool", values=("multipliers", "bool", "array of shape (3,) and dtype bool [True, True, True]")),
    Row("choose_qparams rank", QP, "x: rank {} exceeds {}",
        raised(lambda: sk.choose_qparams(np.ones((1,) * 7, np.float32))), E.INVALID_SHAPE, "x", "rank 7",
        values=("7", "6")),
    # ---- native EV74 decoder (a bound (2, 8) FP32 descriptor, one field changed)
    Row("length", DEC, "descriptor length %llu, expected %d bytes",
        lambda: ev.decode(bytes(223)), E.INVALID_DESCRIPTOR, "length", "223",
        values=("223", "224")),
    Row("magic", DEC, "field %s (offset %d): %#llx, expected %#x",
        decode_with(("magic", 0x12345678)), E.INVALID_DESCRIPTOR, "magic", "0x12345678",
        values=("magic", "0", "0x12345678", hex(int.from_bytes(b"KSQ1", "little")))),
    Row("version", DEC, "field %s (offset %d): %llu, expected %d",
        decode_with(("version", 77)), E.INVALID_DESCRIPTOR, "version", ": 77,",
        values=("version", "4", "77", "1")),
    Row("byte length", DEC, "field %s (offset %d): %llu, expected %d",
        decode_with(("length", 100)), E.INVALID_DESCRIPTOR, "length (offset 6)", ": 100,",
        values=("length", "6", "100", "224")),
    Row("conversion", DEC, "field %s (offset %d): %llu, expected %d (FP32), %d (BF16) or %d (FP16)",
        decode_with(("conversion", 9)), E.INVALID_DESCRIPTOR, "conversion", ": 9,",
        values=("conversion", "8", "9", "0", "1", "2")),
    Row("rank", DEC, "field %s (offset %d): %llu, expected 1..%d",
        decode_with(("rank", 9)), E.INVALID_DESCRIPTOR, "rank", ": 9,",
        values=("rank", "12", "9", "6")),
    Row("flags", DEC, "field %s (offset %d): %#llx has reserved bits set",
        decode_with(("flags", 0x40)), E.INVALID_DESCRIPTOR, "flags", "0x40",
        values=("flags", "16", "0x40")),
    Row("reserved word", DEC, "field reserved (offset %llu): %#llx, expected 0",
        decode_with(("reserved1", 0x5A)), E.INVALID_DESCRIPTOR, "reserved (offset 220)", "0x5a",
        values=("220", "0x5a")),
    Row("multiplier", DEC, "field %s (offset %d): bits %#010llx are not a finite positive binary32",
        decode_with(("multiplier", 0xFF800000)), E.INVALID_DESCRIPTOR, "multiplier", "0xff800000",
        values=("multiplier", "208", "0xff800000")),
    Row("zero point", DEC, "field %s (offset %d): %lld is outside [%d, %d]",
        decode_with(("zero_point", -129)), E.INVALID_DESCRIPTOR, "zero_point", "-129",
        values=("zero_point", "212", "-129", "-128", "127")),
    Row("rounding", DEC, "field %s (offset %d): %llu, expected 0..%d",
        decode_with(("rounding", 4)), E.INVALID_DESCRIPTOR, "rounding", ": 4,",
        values=("rounding", "216", "4", "3")),
    Row("unused axis", DEC, "unused axis %d (offsets %d/%d/%d): extent %llu, strides %llu/%llu, expected 0",
        decode_with(("extents", 5, 3), ("input_strides", 12, 3), ("output_strides", 3, 3)), E.INVALID_DESCRIPTOR,
        "unused axis 3", "extent 5",
        values=("3", "88", "136", "184", "5", "12", "3")),
    Row("scalar flag", DEC, "field %s (offset %d): a lowered scalar must have rank 1 and extent 1, "
        "got rank %llu, extent %llu",
        decode_with(("flags", 1), base=lambda: bound_descriptor(shape=(3, 8))), E.INVALID_DESCRIPTOR, "flags",
        "rank 2, extent 3",
        values=("flags", "16", "2", "3")),
    Row("extent domain", DEC, "field %s[%d] (offset %d): %llu is beyond the device domain",
        decode_with(("extents", 5 << 32, 1), ("extents", 0, 0), ("count", 0), ("input_span", 0), ("output_span", 0),
                    *((port, 0, axis) for port in ("input_strides", "output_strides") for axis in (0, 1))),
        E.INVALID_DESCRIPTOR, "extents[1]", str(5 << 32),
        values=("extents", "1", "72", str(5 << 32))),
    Row("count domain", DEC, "field %s[%d] (offset %d): %llu takes the element count beyond the device domain",
        decode_with(("extents", 1 << 12, 0), ("extents", 1 << 21, 1)), E.INVALID_DESCRIPTOR, "extents[1]",
        str(1 << 21),
        values=("extents", "1", "72", str(1 << 21))),
    Row("count", DEC, "field %s (offset %d): %llu, but the extents hold %llu elements",
        decode_with(("count", 17)), E.INVALID_DESCRIPTOR, "count", ": 17,",
        values=("count", "40", "17", "16")),
    Row("empty strides", DEC, "field %s[%d] (offset %d): %llu on an empty tensor, expected 0",
        decode_with(("extents", 0, 0), ("count", 0), ("input_span", 0), ("output_span", 0)),
        E.INVALID_DESCRIPTOR, "input_strides[0]", ": 32 on",
        values=("input_strides", "0", "112", "32")),
    Row("stride multiple", DEC, "field %s[%d] (offset %d): %llu is not a multiple of the %llu-byte element",
        decode_with(("input_strides", 6, 1)), E.INVALID_DESCRIPTOR, "input_strides[1]", ": 6 is",
        values=("input_strides", "1", "120", "6", "4")),
    Row("singleton stride", DEC, "field %s[%d] (offset %d): singleton axis stride %llu is not normalised to 0",
        decode_with(("extents", 1, 0), ("count", 8)), E.INVALID_DESCRIPTOR, "input_strides[0]", "stride 32",
        values=("input_strides", "0", "112", "32")),
    Row("zero stride", DEC, "field %s[%d] (offset %d): zero stride on an axis of extent %llu",
        decode_with(("output_strides", 0, 1)), E.INVALID_DESCRIPTOR, "output_strides[1]", "zero stride",
        values=("output_strides", "1", "168", "8")),
    Row("stride domain", DEC, "field %s[%d] (offset %d): %llu is beyond the 32-bit device domain",
        decode_with(("input_strides", 1 << 32, 0)), E.INVALID_DESCRIPTOR, "input_strides[0]", "4294967296",
        values=("input_strides", "0", "112", "4294967296")),
    Row("span domain", DEC, "field %s[%d] (offset %d): accessed span %llu + %llu x %llu exceeds the 32-bit "
        "device domain",
        decode_with(("input_strides", 1 << 31, 1)), E.INVALID_DESCRIPTOR, "input_strides[1]", str(1 << 31),
        values=("input_strides", "1", "120", str(4 + 32), "7", str(1 << 31))),
    Row("stride overlap", DEC, "field %s[%d] (offset %d): %llu overlaps the %llu bytes of faster axes",
        decode_with(("input_strides", 12, 0)), E.INVALID_DESCRIPTOR, "input_strides[0]", ": 12 overlaps",
        values=("input_strides", "0", "112", "12", str(4 + 7 * 4))),
    Row("input span", DEC, "field %s (offset %d): %llu, but the extents and strides access %llu bytes",
        decode_with(("input_span", 65)), E.INVALID_DESCRIPTOR, "input_span", ": 65,",
        values=("input_span", "48", "65", "64")),
    Row("output span", DEC, "field %s (offset %d): %llu, but the extents and strides access %llu bytes",
        decode_with(("output_span", 17)), E.INVALID_DESCRIPTOR, "output_span", ": 17,",
        values=("output_span", "56", "17", "16")),
    Row("half-bound slots", DEC, "field %s (offset %d): 0 while %s is %#llx: one relocation slot is bound and the "
        "other is not",
        decode_with(("output_address", 0)), E.INVALID_DESCRIPTOR, "output_address", "0x1000",
        values=("output_address", "32", "input_address", "0x1000")),
    Row("input address domain", DEC, "field %s (offset %d): %#llx + %llu bytes leaves the 32-bit device domain",
        decode_with(("input_address", (1 << 32) - 32)), E.INVALID_DESCRIPTOR, "input_address", "0xffffffe0",
        values=("input_address", "24", "0xffffffe0", "64")),
    Row("output address domain", DEC, "field %s (offset %d): %#llx + %llu bytes leaves the 32-bit device domain",
        decode_with(("output_address", (1 << 32) - 8)), E.INVALID_DESCRIPTOR, "output_address", "0xfffffff8",
        values=("output_address", "32", "0xfffffff8", "16")),
    Row("input alignment", DEC, "field %s (offset %d): %#llx is not %llu-byte aligned",
        decode_with(("input_address", 0x1002)), E.INVALID_DESCRIPTOR, "input_address", "0x1002",
        values=("input_address", "24", "0x1002", "4")),
    Row("address field domain", DEC, "field %s (offset %d): %#llx is beyond the 32-bit device domain",
        decode_with(("output_address", 1 << 32)), E.INVALID_DESCRIPTOR, "output_address", "0x100000000",
        values=("output_address", "32", "0x100000000")),
    Row("address overlap", DEC, "fields %s/%s (offsets %d/%d): accessed ranges "
        "[%#llx, +%llu) and [%#llx, +%llu) overlap",
        decode_with(("output_address", 0x1010)), E.INVALID_DESCRIPTOR, "input_address/output_address", "0x1010",
        values=("input_address", "output_address", "24", "32", "0x1000", "64", "0x1010", "16")),
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


def test_every_row_states_every_value():
    """Each row states one value per substitution of its template, as a
    tuple of strings (a row that checks one value of several lets a
    swapped or wrong number through)."""
    wrong = []
    for row_id, row in zip(ROW_IDS, ROWS):
        need = len(holes(row.source, row.template)) - 1
        if not isinstance(row.values, tuple) or not all(isinstance(v, str) for v in row.values):
            wrong.append(f"{row_id}: values must be a tuple of {need} strings, got {row.values!r}")
        elif len(row.values) != need:
            wrong.append(f"{row_id}: states {len(row.values)} values, the template has {need}: {row.template!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_rejection_states_every_value(row):
    """The message is the row's template with exactly the row's values
    substituted, each compared on its own."""
    if not isinstance(row.values, tuple):
        pytest.fail(f"{row.path}: the row states no values (test_every_row_states_every_value)")
    code, message = message_of(row.trigger())
    assert code == row.code, f"{row.path}: expected {row.code}, got {code}: {message}"
    got = substitutions(row.source, row.template, message)
    assert got is not None, f"{row.path}: {message!r} does not follow the template {row.template!r}"
    if got != row.values and message == filled(row.source, row.template, row.values):
        return  # a value containing the template's own text: the regex split it elsewhere
    assert len(got) == len(row.values), f"{row.path}: {len(got)} substitutions, the row states {len(row.values)}"
    wrong = [f"  substitution {i}: expected {want!r}, got {have!r}"
             for i, (want, have) in enumerate(zip(row.values, got)) if want != have]
    assert not wrong, f"{row.path}: {message!r}\n" + "\n".join(wrong)


def test_the_template_reader():
    """``substitutions`` on both kinds of template, and on a message that
    does not follow its template."""
    assert substitutions(ADM, "{} axis {}: negative extent {}", "output 0 axis 1: negative extent -7") == (
        "output 0", "1", "-7")
    assert substitutions(DEC, "field %s_strides[%d] (offset %d): %llu is not a multiple of the %llu-byte element",
                         "field input_strides[1] (offset 120): 6 is not a multiple of the 4-byte element") == (
        "input", "1", "120", "6", "4")
    assert substitutions(DEC, "field magic (offset 0): %#llx, expected %#x",
                         "field magic (offset 0): 0x1, expected 0x2") == ("0x1", "0x2")
    assert substitutions(ADM, "<dynamic>", "any text") == ("any text",)
    assert substitutions(ADM, "{}: rank {} exceeds 6", "input 0: rank 7 exceeds 5") is None
    assert filled(DEC, "a %u b %#010x c", ("1", "0x00000002")) == "a 1 b 0x00000002 c"


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
    """(file, format string) of every message of the native decoder: SAY's,
    and SAY_FIELD's after the field's name and offset it writes first (of
    an element: index -1 names the field itself)."""
    text = (ROOT / DEC).read_text()
    literal = r'"(?:[^"\\]|\\.)*"'

    def joined(literals):
        return "".join(s[1:-1] for s in re.findall(literal, literals))

    said = [(DEC, joined(m.group(1))) for m in re.finditer(rf"SAY\(\s*((?:{literal}\s*)+)", text)]
    fields = [(DEC, ("field %s (offset %d): " if m.group(1).strip() == "-1" else "field %s[%d] (offset %d): ")
               + joined(m.group(2)))
              for m in re.finditer(rf"SAY_FIELD\([^,]+,([^,]+),\s*((?:{literal}\s*)+)", text)]
    return said + fields


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
