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

Blocked (group-wise) layouts of Dequant and Quant, one scale (multiplier)
and zero point per block of B elements along the axis: ``block32-inner``
and ``block128-inner`` have shape (n/K, K) and axis 1 (LLM weights: the
parameters change every B elements of a run; K = :func:`row_length`, 4096
from 64K up), ``block32-outer`` has shape (n/C, C) and axis 0 (blocks of
32 rows: each run takes a row of parameters).
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
BLOCK_LAYOUTS = {"block32-inner": (1, 32), "block128-inner": (1, 128), "block32-outer": (0, 32)}  # (axis, block)
LAYOUTS = ("dense", *VIEW_LAYOUTS, *AXIS_LAYOUTS, *BLOCK_LAYOUTS)
MAX_ROW = 4096               # blocked inner layouts: elements per row, at most
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
    if layout in BLOCK_LAYOUTS and op.kind == "cast":
        return f"{', '.join(BLOCK_LAYOUTS)} (blocked parameters) apply to dequant and quant only"
    if layout in BLOCK_LAYOUTS and n < 4 * BLOCK_LAYOUTS[layout][1]:
        return f"{layout} runs from {4 * BLOCK_LAYOUTS[layout][1]} elements up (four blocks)"
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


def row_length(n: int, block: int) -> int:
    """The blocked inner layouts' row length for n elements: n/16 (at least
    one block), at most MAX_ROW: 4096 from 64K up."""
    return max(block, min(MAX_ROW, n // 16))


def parent_shape(n: int, layout: str) -> Tuple[int, ...]:
    if layout in BLOCK_LAYOUTS:
        axis, block = BLOCK_LAYOUTS[layout]
        if axis == 1:
            k = row_length(n, block)
            return (n // k, k)
        c = channels(n)
        return (n // c, c)
    if layout in AXIS_LAYOUTS:
        c = channels(n)
        return (c, n // c) if AXIS_LAYOUTS[layout] == 0 else (n // c, c)
    rows, cols = grid(n)
    return {"dense": (n,), "strided": (rows, 2 * cols), "transposed": (cols, rows)}[layout]


def out_shape(n: int, layout: str) -> Tuple[int, ...]:
    if layout in AXIS_LAYOUTS or layout in BLOCK_LAYOUTS:
        return parent_shape(n, layout)
    return (n,) if layout == "dense" else grid(n)


def axis_of(layout: str) -> Optional[int]:
    """The channel axis of a per-axis layout, the block axis of a blocked
    one; None for per-tensor ones."""
    return BLOCK_LAYOUTS[layout][0] if layout in BLOCK_LAYOUTS else AXIS_LAYOUTS.get(layout)


def block_of(layout: str) -> Optional[int]:
    """The block size of a blocked layout; None for the others."""
    return BLOCK_LAYOUTS[layout][1] if layout in BLOCK_LAYOUTS else None


def block_shape(shape: Tuple[int, ...], axis: int, block: int) -> Tuple[int, ...]:
    """The parameters' shape of a blocked tensor: ceil(extent / block) along the axis."""
    return tuple(-(-e // block) if a == axis else e for a, e in enumerate(shape))


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


def channel_params(op: Op, count: int, period: Optional[int] = None) -> ChannelParams:
    """``period``: the values repeat every so many entries (blocked
    parameters, whose count can be large; default: the count)."""
    base, zp = (SCALE, DEQUANT_ZP) if op.kind == "dequant" else (MULTIPLIER, QUANT_ZP)
    period = period or count
    spread = np.float32(0.5) + (np.arange(count) % period).astype(np.float32) / np.float32(period)
    values = (base * spread).astype(np.float32)
    return ChannelParams(values, zp + np.arange(count, dtype=np.int64) % 7 - 3)


def block_params(op: Op, shape: Tuple[int, ...], axis: int, block: int) -> ChannelParams:
    """One op's blocked parameters for a tensor of ``shape``: channel_params
    over the entries, shaped as :func:`block_shape`."""
    pshape = block_shape(shape, axis, block)
    flat = channel_params(op, int(np.prod(pshape)), period=256)
    return ChannelParams(flat.values.reshape(pshape), flat.zero_points.reshape(pshape))


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


def request(op: Op, x: np.ndarray, out: np.ndarray, axis: Optional[int] = None,
            block_size: Optional[int] = None) -> Any:
    """The op's request for ``x`` into ``out``: per-tensor parameters, or
    with ``axis`` the per-axis ones of :func:`channel_params`, with
    ``block_size`` too the blocked ones of :func:`block_params`."""
    specs = [TensorSpec(x.shape, op.src, Strided(x.strides))], [TensorSpec(out.shape, op.dst)]
    if op.kind == "cast":
        return ops.cast.Request(*specs)
    rounding = ops.quant.Rounding.parse(op.rounding)
    if axis is not None and block_size is not None:
        blocked = block_params(op, x.shape, axis, block_size)
        if op.kind == "dequant":
            return ops.dequant.Request(*specs, ops.dequant.BlockParams(axis, block_size, blocked.values,
                                                                       blocked.zero_points))
        return ops.quant.Request(*specs, ops.quant.BlockParams(axis, block_size, blocked.values, blocked.zero_points,
                                                               rounding))
    if axis is not None:
        per_axis = channel_params(op, x.shape[axis])
        if op.kind == "dequant":
            return ops.dequant.Request(*specs, ops.dequant.AxisParams(axis, per_axis.values, per_axis.zero_points))
        return ops.quant.Request(*specs, ops.quant.AxisParams(axis, per_axis.values, per_axis.zero_points, rounding))
    if op.kind == "dequant":
        return ops.dequant.Request(*specs, ops.dequant.Params(SCALE, DEQUANT_ZP))
    return ops.quant.Request(*specs, ops.quant.Params(MULTIPLIER, QUANT_ZP, rounding))


def ours(op: Op, x: np.ndarray, route: Optional[str] = None, axis: Optional[int] = None,
         block_size: Optional[int] = None) -> Tuple[Runner, str]:
    """The runner for ``sk.a65.<op>.execute`` and the route its plan chose
    (``route``, else the default choice); ``axis``: per-axis parameters
    (:func:`channel_params`) along it, with ``block_size`` blocked ones."""
    backend = getattr(a65, op.kind)
    out = np.empty(x.shape, numpy_dtype(op.dst))
    plan = backend.check_inference(request(op, x, out, axis, block_size), route)
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


def numpy_expression(op: Op, x: np.ndarray, axis: Optional[int] = None,
                     block_size: Optional[int] = None) -> Runner:
    """NumPy's expression at its best: staged float32 ufuncs into
    preallocated arrays (BF16 ends converted by ml_dtypes' casts); with
    ``axis``, the per-channel parameters broadcast along it; with
    ``block_size`` too (a divisor of the axis's extent), the blocked ones
    broadcast over the axis split into (blocks, block_size)."""
    out = np.empty(x.shape, numpy_dtype(op.dst))
    if op.kind == "cast":
        return Runner(lambda: np.copyto(out, x, casting="unsafe"), lambda: out)
    factor: Any
    zp: Any
    src, dst = x, out
    if axis is not None and block_size is not None:
        split = x.shape[:axis] + (x.shape[axis] // block_size, block_size) + x.shape[axis + 1:]
        src, dst = x.reshape(split), out.reshape(split)
        blocked = block_params(op, x.shape, axis, block_size)
        factor = np.expand_dims(blocked.values, axis + 1)
        zp = np.expand_dims(blocked.zero_points.astype(np.float32), axis + 1)
    elif axis is not None:
        factor, zp = channel_params(op, x.shape[axis]).shaped(axis, x.ndim)
    else:
        factor = SCALE if op.kind == "dequant" else MULTIPLIER
        zp = np.float32(DEQUANT_ZP if op.kind == "dequant" else QUANT_ZP)
    tmp = np.empty(src.shape, np.float32)
    if op.kind == "dequant":
        final = dst if op.dst == DType.FLOAT32 else tmp

        def dequant() -> object:
            np.subtract(src, zp, out=tmp, dtype=np.float32)
            np.multiply(tmp, factor, out=final)
            if final is tmp:
                np.copyto(dst, tmp, casting="unsafe")
            return out
        return Runner(dequant, lambda: out)
    rounder = _ROUND[op.rounding]

    def quant() -> object:
        np.multiply(src, factor, out=tmp, dtype=np.float32)
        rounder(tmp, out=tmp)
        np.add(tmp, zp, out=tmp)
        np.clip(tmp, -128, 127, out=tmp)
        np.copyto(dst, tmp, casting="unsafe")
        return out
    return Runner(quant, lambda: out)


def bits(array: np.ndarray) -> np.ndarray:
    """The array's bit patterns (unsigned integers of its width), for exact
    comparison (NaN == NaN, -0 != +0)."""
    return np.ascontiguousarray(array).view(f"u{array.dtype.itemsize}")

