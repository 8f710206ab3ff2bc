"""What is measured: the operations, sizes and layouts, the input data, and
the runners every case has (ours, the memcpy reference, NumPy's expression).

"ours" is the fastest user path: ``sk.a65.<op>.execute(plan, [x], [out])``
with a prepared plan, prepared buffer views and a preallocated output.

Layouts: ``dense`` (n,), ``strided`` (x[:, ::2]) and ``transposed`` (x.T)
views, with per-tensor parameters; and the per-axis (per-channel)
parameter layouts of Dequant and Quant, a C-contiguous 2-D tensor of C
channels with one scale (multiplier) and zero point per channel:
``axis-outer`` has shape (C, n/C) and axis 0 (each channel one contiguous
run), ``axis-inner`` has shape (n/C, C) and axis 1 (the parameters vary
along every run).  C (:func:`channels`) is the largest divisor of n up to
``min(256, sqrt(n))``: 256 from 64K elements up, 64 at 4K, 8 at 64.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from .. import a65, ops
from ..arrays import numpy_dtype
from ..buffers import ConstHostBuffer, HostBuffer
from ..core import DType, Error, Strided, TensorSpec

DEFAULT_SIZES = ("64", "4K", "256K", "16M", "64M")
VIEW_LAYOUTS = ("strided", "transposed")     # views of a larger parent: only from 4K up
AXIS_LAYOUTS = {"axis-outer": 0, "axis-inner": 1}  # per-axis parameters: the channel axis
LAYOUTS = ("dense", *VIEW_LAYOUTS, *AXIS_LAYOUTS)
MIN_LAYOUT_N = 4096          # strided/transposed: only from 4K up
MAX_CHANNELS = 256           # per-axis layouts: channels, at most (fewer for n < 64K)
ROUNDINGS = ("nearest_even", "toward_zero", "toward_positive", "toward_negative")

SCALE, DEQUANT_ZP = np.float32(0.0123), -3      # dequant parameters
MULTIPLIER, QUANT_ZP = np.float32(21.5), 3      # quant: x * 21.5 spans about +-86 for N(0,1)


@dataclass(frozen=True)
class Op:
    key: str          # "quant-fp16-int8": what --ops matches
    kind: str         # "cast", "dequant", "quant"
    src: DType
    dst: DType
    rounding: str = "nearest_even"

    @property
    def label(self) -> str:
        name = f"{self.kind} {self.key.split('-', 1)[1].replace('-', '->')}"
        return name if self.rounding == "nearest_even" else f"{name} {self.rounding}"


OPS = (
    Op("cast-fp32-bf16", "cast", DType.FLOAT32, DType.BFLOAT16),
    Op("cast-bf16-fp32", "cast", DType.BFLOAT16, DType.FLOAT32),
    Op("dequant-int8-fp32", "dequant", DType.INT8, DType.FLOAT32),
    Op("dequant-int8-bf16", "dequant", DType.INT8, DType.BFLOAT16),
    Op("quant-fp32-int8", "quant", DType.FLOAT32, DType.INT8),
    Op("quant-bf16-int8", "quant", DType.BFLOAT16, DType.INT8),
    Op("quant-fp16-int8", "quant", DType.FLOAT16, DType.INT8),
)


def parse_size(text: str) -> int:
    """``64``, ``4K`` (x 1024), ``16M`` (x 1024^2) -> element count > 0."""
    t = text.strip().upper()
    factor = {"K": 1 << 10, "M": 1 << 20}.get(t[-1:], 1)
    digits = t[:-1] if factor > 1 else t
    if not digits.isdigit() or int(digits) <= 0:
        raise ValueError(f"bad size {text!r}: use an element count like 64, 4K, 256K, 16M")
    return int(digits) * factor


def size_label(n: int) -> str:
    for suffix, unit in (("M", 1 << 20), ("K", 1 << 10)):
        if n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)


def select_ops(tokens: Optional[Sequence[str]], roundings: Sequence[str]) -> List[Op]:
    """The operations a token list names: a key, or its leading parts
    ("quant", "quant-fp16"); quant rows once per rounding mode."""
    chosen = []
    for op in OPS:
        if tokens and not any(op.key == t or op.key.startswith(t + "-") for t in tokens):
            continue
        for mode in roundings if op.kind == "quant" else ("nearest_even",):
            chosen.append(Op(op.key, op.kind, op.src, op.dst, mode))
    unknown = [t for t in tokens or () if not any(o.key == t or o.key.startswith(t + "-") for o in OPS)]
    if unknown:
        raise ValueError(f"unknown op(s) {', '.join(unknown)}; choose among {', '.join(o.key for o in OPS)} "
                         "or a prefix (cast, dequant, quant, quant-fp16, ...)")
    return chosen


def channels(n: int, most: int = MAX_CHANNELS) -> int:
    """The per-axis layouts' channel count for n elements: the largest
    divisor of n up to ``min(most, sqrt(n))`` (256 from 64K up for powers of
    two; 64 at 4K, 8 at 64: a channel keeps at least as many elements as
    there are channels)."""
    top = max(1, min(most, math.isqrt(n)))
    return next(c for c in range(top, 0, -1) if n % c == 0)


def skip_reason(op: Op, layout: str, n: int) -> Optional[str]:
    """None when the case runs, else why the layout does not apply."""
    if layout in AXIS_LAYOUTS and op.kind == "cast":
        return f"{' and '.join(AXIS_LAYOUTS)} (per-axis parameters) apply to dequant and quant only"
    if layout in VIEW_LAYOUTS and n < MIN_LAYOUT_N:
        return (f"{' and '.join(VIEW_LAYOUTS)} run from {size_label(MIN_LAYOUT_N)} ({MIN_LAYOUT_N} elements) up; "
                f"add a size of at least {size_label(MIN_LAYOUT_N)} or another layout")
    return None


def grid(n: int) -> Tuple[int, int]:
    """rows x cols = n, as close to square as n allows (64 -> 8 x 8)."""
    rows = next(r for r in range(math.isqrt(n), 0, -1) if n % r == 0)
    return rows, n // rows


def apply_layout(parent: Any, layout: str) -> Any:
    """The view a layout takes of its parent array (NumPy or torch alike)."""
    if layout == "strided":
        return parent[:, ::2]
    if layout == "transposed":
        return parent.T
    return parent


def parent_shape(n: int, layout: str) -> Tuple[int, ...]:
    if layout in AXIS_LAYOUTS:
        c = channels(n)
        return (c, n // c) if AXIS_LAYOUTS[layout] == 0 else (n // c, c)
    rows, cols = grid(n)
    return {"dense": (n,), "strided": (rows, 2 * cols), "transposed": (cols, rows)}[layout]


def out_shape(n: int, layout: str) -> Tuple[int, ...]:
    if layout in AXIS_LAYOUTS:
        return parent_shape(n, layout)
    return (n,) if layout == "dense" else grid(n)


def axis_of(layout: str) -> Optional[int]:
    """The channel axis of a per-axis layout; None for per-tensor ones."""
    return AXIS_LAYOUTS.get(layout)


@dataclass(frozen=True)
class ChannelParams:
    """One op's per-channel parameters for C channels: binary32 values
    (scales for Dequant, multipliers for Quant) spread over [0.5, 1.5) of
    the per-tensor value, and zero points around the per-tensor one (a few
    apart, in INT8 range, as ONNX Runtime's INT8 zero points must be)."""

    values: np.ndarray       # float32, (C,)
    zero_points: np.ndarray  # int64, (C,)

    def shaped(self, axis: int, ndim: int) -> Tuple[np.ndarray, np.ndarray]:
        """float32 values and zero points shaped to broadcast along ``axis``."""
        shape = [1] * ndim
        shape[axis] = -1
        return self.values.reshape(shape), self.zero_points.astype(np.float32).reshape(shape)


def channel_params(op: Op, count: int) -> ChannelParams:
    base, zp = (SCALE, DEQUANT_ZP) if op.kind == "dequant" else (MULTIPLIER, QUANT_ZP)
    spread = np.float32(0.5) + np.arange(count, dtype=np.float32) / np.float32(count)
    values = (base * spread).astype(np.float32)
    return ChannelParams(values, zp + np.arange(count, dtype=np.int64) % 7 - 3)


def make_parent(dtype: DType, shape: Tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Reproducible inputs: INT8 uniform over all values; floats N(0, 1),
    which the quant multiplier spreads over the INT8 range."""
    rng = np.random.default_rng(seed)
    if dtype == DType.INT8:
        return rng.integers(-128, 128, shape, dtype=np.int8)
    values = rng.standard_normal(shape, dtype=np.float32)
    return values if dtype == DType.FLOAT32 else values.astype(numpy_dtype(dtype))


@dataclass
class Runner:
    """One timed way to do a case: ``call`` runs it once; ``result`` gives the
    output of the last call (None for the memcpy reference)."""

    call: Callable[[], object]
    result: Callable[[], Optional[np.ndarray]] = field(default=lambda: None)


def request(op: Op, x: np.ndarray, out: np.ndarray, axis: Optional[int] = None) -> Any:
    """The op's request for ``x`` into ``out``: per-tensor parameters, or
    with ``axis`` the per-axis ones of :func:`channel_params`."""
    specs = [TensorSpec(x.shape, op.src, Strided(x.strides))], [TensorSpec(out.shape, op.dst)]
    if op.kind == "cast":
        return ops.cast.Request(*specs)
    rounding = ops.quant.Rounding.parse(op.rounding)
    if axis is not None:
        per_axis = channel_params(op, x.shape[axis])
        if op.kind == "dequant":
            return ops.dequant.Request(*specs, ops.dequant.AxisParams(axis, per_axis.values, per_axis.zero_points))
        return ops.quant.Request(*specs, ops.quant.AxisParams(axis, per_axis.values, per_axis.zero_points, rounding))
    if op.kind == "dequant":
        return ops.dequant.Request(*specs, ops.dequant.Params(SCALE, DEQUANT_ZP))
    return ops.quant.Request(*specs, ops.quant.Params(MULTIPLIER, QUANT_ZP, rounding))


def ours(op: Op, x: np.ndarray, route: Optional[str] = None, axis: Optional[int] = None) -> Tuple[Runner, str]:
    """The runner for ``sk.a65.<op>.execute`` and the route its plan chose
    (``route``, else the default choice); ``axis``: per-axis parameters
    (:func:`channel_params`) along it."""
    backend = getattr(a65, op.kind)
    out = np.empty(x.shape, numpy_dtype(op.dst))
    plan = backend.check_inference(request(op, x, out, axis), route)
    if isinstance(plan, Error):
        raise RuntimeError(f"{op.label}: no plan: {plan}")
    if x.flags.c_contiguous:
        src = ConstHostBuffer(x)
    else:  # the accessed span of the view, from its first element
        src = ConstHostBuffer.from_address(x.__array_interface__["data"][0],
                                           plan.input_requirements()[0].nbytes, keepalive=x)
    inputs, outputs, execute = [src], [HostBuffer(out)], backend.execute

    def call() -> object:
        return execute(plan, inputs, outputs)

    status = call()
    if status is not None:
        raise RuntimeError(f"{op.label}: execute failed: {status}")
    return Runner(call, lambda: out), plan.route


def memcpy(n: int, op: Op) -> Runner:
    """np.copyto of uint8 arrays moving the operation's memory traffic:
    n * (input + output itemsize) / 2 bytes each way."""
    nbytes = n * (op.src.itemsize + op.dst.itemsize) // 2
    src, dst = np.ones(nbytes, np.uint8), np.empty(nbytes, np.uint8)
    return Runner(lambda: np.copyto(dst, src))


_ROUND = {"nearest_even": np.rint, "toward_zero": np.trunc, "toward_positive": np.ceil, "toward_negative": np.floor}


def numpy_expression(op: Op, x: np.ndarray, axis: Optional[int] = None) -> Runner:
    """NumPy's expression at its best: staged float32 ufuncs into
    preallocated arrays (BF16 ends converted by ml_dtypes' casts); with
    ``axis``, the per-channel parameters broadcast along it."""
    out = np.empty(x.shape, numpy_dtype(op.dst))
    if op.kind == "cast":
        return Runner(lambda: np.copyto(out, x, casting="unsafe"), lambda: out)
    tmp = np.empty(x.shape, np.float32)
    factor: Any
    zp: Any
    if axis is not None:
        factor, zp = channel_params(op, x.shape[axis]).shaped(axis, x.ndim)
    else:
        factor = SCALE if op.kind == "dequant" else MULTIPLIER
        zp = np.float32(DEQUANT_ZP if op.kind == "dequant" else QUANT_ZP)
    if op.kind == "dequant":
        final = out if op.dst == DType.FLOAT32 else tmp

        def dequant() -> object:
            np.subtract(x, zp, out=tmp, dtype=np.float32)
            np.multiply(tmp, factor, out=final)
            if final is tmp:
                np.copyto(out, tmp, casting="unsafe")
            return out
        return Runner(dequant, lambda: out)
    rounder = _ROUND[op.rounding]

    def quant() -> object:
        np.multiply(x, factor, out=tmp, dtype=np.float32)
        rounder(tmp, out=tmp)
        np.add(tmp, zp, out=tmp)
        np.clip(tmp, -128, 127, out=tmp)
        np.copyto(out, tmp, casting="unsafe")
        return out
    return Runner(quant, lambda: out)


def bits(array: np.ndarray) -> np.ndarray:
    """The array's bit patterns (unsigned integers of its width), for exact
    comparison (NaN == NaN, -0 != +0)."""
    return np.ascontiguousarray(array).view(f"u{array.dtype.itemsize}")

