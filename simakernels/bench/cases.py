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

Integer formats beyond INT8 (issue 32): ``sk.a65.affine_quant`` to UINT8,
INT16, UINT16 and packed INT4, UINT4, INT2, and ``sk.a65.affine_dequant``
from UINT8, INT16, UINT16, INT32 and packed INT4 (:data:`FORMAT_OPS`), per
tensor on the dense layout, and for INT4 also ``block32-inner`` (the LLM
weight case); each against the INT8 row of the same direction and float
type (:attr:`Op.reference`).  Sub-byte ports are packed (a ``Contiguous()``
layout: element 0 in the low bits of byte 0, ``ceil(n * bits / 8)``
bytes); their inputs and outputs are :class:`~simakernels.Packed` tensors.
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
from ..packed import Packed

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

# The storage types' per-tensor parameters: the INT8 ones scaled by 2^(bits - 8)
# (exact binary32 values; N(0,1) inputs spread over the type's range as over
# INT8's), zero points a little off the middle of the range.
QUANT_PARAMS = {DType.INT8: (MULTIPLIER, QUANT_ZP), DType.UINT8: (MULTIPLIER, 131),
                DType.INT16: (np.float32(21.5 * 256), 3), DType.UINT16: (np.float32(21.5 * 256), 32771),
                DType.INT4: (np.float32(21.5 / 16), 1), DType.UINT4: (np.float32(21.5 / 16), 9),
                DType.INT2: (np.float32(21.5 / 64), 0), DType.UINT2: (np.float32(21.5 / 64), 2)}
DEQUANT_PARAMS = {DType.INT8: (SCALE, DEQUANT_ZP), DType.UINT8: (SCALE, 125),
                  DType.INT16: (np.float32(0.0123 / 256), -3), DType.UINT16: (np.float32(0.0123 / 256), 32765),
                  DType.INT32: (np.float32(0.0123 / 2 ** 24), -3),
                  DType.INT4: (np.float32(0.0123 * 16), -3), DType.UINT4: (np.float32(0.0123 * 16), 5),
                  DType.INT2: (np.float32(0.0123 * 64), -1), DType.UINT2: (np.float32(0.0123 * 64), 1)}
FORMAT_LAYOUTS = ("dense",)               # the storage rows beyond INT8: per tensor, dense ...
INT4_LAYOUTS = ("dense", "block32-inner")  # ... and INT4 also blocked along the rows (LLM weights)


def storage_range(dtype: DType) -> Tuple[int, int]:
    """[least, greatest] of an integer storage type of b bits: signed
    [-2^(b-1), 2^(b-1) - 1], unsigned [0, 2^b - 1]."""
    if dtype.name.startswith("U"):
        return 0, (1 << dtype.bits) - 1
    return -(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1


@dataclass(frozen=True)
class Op:
    key: str          # "quant-fp16-int8": what --ops matches
    kind: str         # "cast", "dequant", "quant"
    src: DType
    dst: DType
    rounding: str = "nearest_even"

    @property
    def label(self) -> str:
        name = f"{self.kind} {self.key.split('-', 1)[1].replace('-', '->')}" + (" packed" if self.packed else "")
        return name if self.rounding == "nearest_even" else f"{name} {self.rounding}"

    @property
    def storage(self) -> Optional[DType]:
        """The integer type of a Dequant or Quant row (None for Cast)."""
        return None if self.kind == "cast" else self.src if self.kind == "dequant" else self.dst

    @property
    def affine(self) -> bool:
        """A storage type beyond INT8: ``affine_quant`` / ``affine_dequant``."""
        return self.storage not in (None, DType.INT8)

    @property
    def packed(self) -> bool:
        """A sub-byte storage type: its port is packed."""
        return self.storage is not None and self.storage.sub_byte

    @property
    def backend(self) -> str:
        """The operation's module in ``sk.a65`` and ``sk.ops``."""
        return f"affine_{self.kind}" if self.affine else self.kind

    @property
    def reference(self) -> Optional[str]:
        """The key of the INT8 row of the same direction and float type
        (an affine row's reference ratio; None for the others)."""
        if not self.affine:
            return None
        parts = self.key.split("-")
        return f"dequant-int8-{parts[2]}" if self.kind == "dequant" else f"quant-{parts[1]}-int8"

    def nbytes(self, n: int) -> int:
        """Input plus output bytes of n elements (packed ports: ceil(n * bits / 8))."""
        return sum(-(-n * d.bits // 8) for d in (self.src, self.dst))


OPS: Tuple[Op, ...] = (
    Op("cast-fp32-bf16", "cast", DType.FLOAT32, DType.BFLOAT16),
    Op("cast-bf16-fp32", "cast", DType.BFLOAT16, DType.FLOAT32),
    Op("dequant-int8-fp32", "dequant", DType.INT8, DType.FLOAT32),
    Op("dequant-int8-bf16", "dequant", DType.INT8, DType.BFLOAT16),
    Op("quant-fp32-int8", "quant", DType.FLOAT32, DType.INT8),
    Op("quant-bf16-int8", "quant", DType.BFLOAT16, DType.INT8),
    Op("quant-fp16-int8", "quant", DType.FLOAT16, DType.INT8),
)
# Integer formats beyond INT8 (affine_dequant, affine_quant); sub-byte ones packed.
FORMAT_OPS = (
    *(Op(f"dequant-{s.name.lower()}-{f}", "dequant", s, d)
      for s in (DType.UINT8, DType.INT16, DType.UINT16, DType.INT32, DType.INT4)
      for f, d in (("fp32", DType.FLOAT32), ("bf16", DType.BFLOAT16)) if (s, d) != (DType.INT32, DType.BFLOAT16)),
    *(Op(f"quant-fp32-{d.name.lower()}", "quant", DType.FLOAT32, d)
      for d in (DType.UINT8, DType.INT16, DType.UINT16, DType.INT4, DType.UINT4, DType.INT2)),
    *(Op(f"quant-bf16-{d.name.lower()}", "quant", DType.BFLOAT16, d)
      for d in (DType.UINT8, DType.INT16, DType.UINT16, DType.INT4)),
)
OPS = OPS + FORMAT_OPS


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
    if op.affine and layout not in format_layouts(op):
        return (f"the rows of the integer formats beyond INT8 run {' and '.join(FORMAT_LAYOUTS)} "
                f"(INT4 also {' and '.join(INT4_LAYOUTS[1:])})")
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


def format_layouts(op: Op) -> Tuple[str, ...]:
    """The layouts an affine (storage beyond INT8) row runs."""
    return INT4_LAYOUTS if op.storage == DType.INT4 else FORMAT_LAYOUTS


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


def params(op: Op) -> Tuple[np.float32, int]:
    """The op's per-tensor (scale or multiplier, zero point)."""
    assert op.storage is not None, "cast has no parameters"
    value, zp = (DEQUANT_PARAMS if op.kind == "dequant" else QUANT_PARAMS)[op.storage]
    return np.float32(value), zp


def channel_params(op: Op, count: int, period: Optional[int] = None) -> ChannelParams:
    """``period``: the values repeat every so many entries (blocked
    parameters, whose count can be large; default: the count).  Zero
    points stay in the storage type's range."""
    base, zp = params(op)
    period = period or count
    spread = np.float32(0.5) + (np.arange(count) % period).astype(np.float32) / np.float32(period)
    values = (base * spread).astype(np.float32)
    assert op.storage is not None
    least, greatest = storage_range(op.storage)
    return ChannelParams(values, np.clip(zp + np.arange(count, dtype=np.int64) % 7 - 3, least, greatest))


def block_params(op: Op, shape: Tuple[int, ...], axis: int, block: int) -> ChannelParams:
    """One op's blocked parameters for a tensor of ``shape``: channel_params
    over the entries, shaped as :func:`block_shape`."""
    pshape = block_shape(shape, axis, block)
    flat = channel_params(op, int(np.prod(pshape)), period=256)
    return ChannelParams(flat.values.reshape(pshape), flat.zero_points.reshape(pshape))


def make_parent(dtype: DType, shape: Tuple[int, ...], seed: int = 0) -> Any:
    """Reproducible inputs: integers uniform over all values of their type
    (sub-byte types: a :class:`Packed` tensor of uniform random bytes);
    floats N(0, 1), which the quant multiplier spreads over the range."""
    rng = np.random.default_rng(seed)
    if dtype.sub_byte:
        count = math.prod(shape)
        return Packed(rng.integers(0, 256, -(-count * dtype.bits // 8), dtype=np.uint8), dtype, shape)
    if dtype in DEQUANT_PARAMS:
        least, greatest = storage_range(dtype)
        return rng.integers(least, greatest, shape, dtype=numpy_dtype(dtype), endpoint=True)
    values = rng.standard_normal(shape, dtype=np.float32)
    return values if dtype == DType.FLOAT32 else values.astype(numpy_dtype(dtype))


@dataclass
class Runner:
    """One timed way to do a case: ``call`` runs it once; ``result`` gives the
    output of the last call (None for the memcpy reference)."""

    call: Callable[[], object]
    result: Callable[[], Optional[np.ndarray]] = field(default=lambda: None)


def _spec(op: Op, array: Any, dtype: DType) -> TensorSpec:
    """A port's spec: packed (``Contiguous()``) for a :class:`Packed`
    tensor, else the array's strides."""
    if isinstance(array, Packed):
        return TensorSpec(array.shape, dtype)
    return TensorSpec(array.shape, dtype, Strided(array.strides))


def request(op: Op, x: Any, out: Any, axis: Optional[int] = None, block_size: Optional[int] = None) -> Any:
    """The op's request for ``x`` into ``out`` (arrays, or :class:`Packed`
    tensors for packed ports): per-tensor parameters, or with ``axis`` the
    per-axis ones of :func:`channel_params`, with ``block_size`` too the
    blocked ones of :func:`block_params`."""
    specs = [_spec(op, x, op.src)], [TensorSpec(out.shape, op.dst)]
    if op.kind == "cast":
        return ops.cast.Request(*specs)
    module = getattr(ops, op.backend)  # ops.quant / ops.affine_quant, ops.dequant / ops.affine_dequant
    rounding = ops.quant.Rounding.parse(op.rounding)
    dequant = op.kind == "dequant"
    if axis is not None and block_size is not None:
        blocked = block_params(op, x.shape, axis, block_size)
        return module.Request(*specs, module.BlockParams(axis, block_size, blocked.values, blocked.zero_points,
                                                         *(() if dequant else (rounding,))))
    if axis is not None:
        per_axis = channel_params(op, x.shape[axis])
        return module.Request(*specs, module.AxisParams(axis, per_axis.values, per_axis.zero_points,
                                                        *(() if dequant else (rounding,))))
    value, zp = params(op)
    return module.Request(*specs, module.Params(value, zp, *(() if dequant else (rounding,))))


def new_output(op: Op, shape: Tuple[int, ...]) -> Any:
    """An output of the op's type: an array, or a :class:`Packed` tensor."""
    return Packed.empty(shape, op.dst) if op.dst.sub_byte else np.empty(shape, numpy_dtype(op.dst))


def raw(value: Any) -> np.ndarray:
    """An array, or a :class:`Packed` tensor's bytes."""
    return value.data if isinstance(value, Packed) else value


def ours(op: Op, x: Any, route: Optional[str] = None, axis: Optional[int] = None,
         block_size: Optional[int] = None) -> Tuple[Runner, str]:
    """The runner for ``sk.a65.<op>.execute`` (``affine_quant`` /
    ``affine_dequant`` for the storage types beyond INT8) and the route its
    plan chose (``route``, else the default choice); ``axis``: per-axis
    parameters (:func:`channel_params`) along it, with ``block_size``
    blocked ones.  Packed ports are bound as their bytes."""
    backend = getattr(a65, op.backend)
    out = new_output(op, x.shape)
    plan = backend.check_inference(request(op, x, out, axis, block_size), route)
    if isinstance(plan, Error):
        raise RuntimeError(f"{op.label}: no plan: {plan}")
    if isinstance(x, Packed) or x.flags.c_contiguous:
        src = ConstHostBuffer(raw(x))
    else:  # the accessed span of the view, from its first element
        src = ConstHostBuffer.from_address(x.__array_interface__["data"][0],
                                           plan.input_requirements()[0].nbytes, keepalive=x)
    inputs, outputs, execute = [src], [HostBuffer(raw(out))], backend.execute

    def call() -> object:
        return execute(plan, inputs, outputs)

    status = call()
    if status is not None:
        raise RuntimeError(f"{op.label}: execute failed: {status}")
    return Runner(call, lambda: raw(out)), plan.route


def memcpy(n: int, op: Op) -> Runner:
    """np.copyto of uint8 arrays moving the operation's memory traffic:
    n * (input + output itemsize) / 2 bytes each way (packed ports:
    their packed bytes)."""
    nbytes = op.nbytes(n) // 2
    src, dst = np.ones(nbytes, np.uint8), np.empty(nbytes, np.uint8)
    return Runner(lambda: np.copyto(dst, src))


_ROUND = {"nearest_even": np.rint, "toward_zero": np.trunc, "toward_positive": np.ceil, "toward_negative": np.floor}


def numpy_expression(op: Op, x: Any, axis: Optional[int] = None,
                     block_size: Optional[int] = None) -> Runner:
    """NumPy's expression at its best: staged float32 ufuncs into
    preallocated arrays (BF16 ends converted by ml_dtypes' casts); with
    ``axis``, the per-channel parameters broadcast along it; with
    ``block_size`` too (a divisor of the axis's extent), the blocked ones
    broadcast over the axis split into (blocks, block_size).  INT32 input:
    ``q - zero_point`` in int32 (wrapping) first.  Packed ports: unpacked
    (shifts and masks, sign extension by ``(v ^ h) - h``) into one byte per
    element first, or packed from it last."""
    if op.kind == "cast":
        out = np.empty(x.shape, numpy_dtype(op.dst))
        return Runner(lambda: np.copyto(out, x, casting="unsafe"), lambda: out)
    out = new_output(op, x.shape)
    factor: Any
    zp: Any
    src, dst = x, raw(out)
    unpack: Optional[Callable[[], object]] = None
    pack: Optional[Callable[[], object]] = None
    if op.packed and op.kind == "dequant":
        unpack, src = _numpy_unpack(x)
    elif op.packed:
        pack, dst = _numpy_pack(out)
    if axis is not None and block_size is not None:
        split = x.shape[:axis] + (x.shape[axis] // block_size, block_size) + x.shape[axis + 1:]
        src, dst = src.reshape(split), dst.reshape(split)
        blocked = block_params(op, x.shape, axis, block_size)
        factor = np.expand_dims(blocked.values, axis + 1)
        zp = np.expand_dims(blocked.zero_points, axis + 1)
    elif axis is not None:
        per_channel = channel_params(op, x.shape[axis])
        factor, _ = per_channel.shaped(axis, x.ndim)
        zp = per_channel.zero_points.reshape([-1 if a == axis else 1 for a in range(x.ndim)])
    else:
        factor, zp = params(op)
        zp = np.int64(zp)
    tmp = np.empty(src.shape, np.float32)
    if op.kind == "dequant":
        final = dst if op.dst == DType.FLOAT32 else tmp
        # INT32: (int32)(q - zp) wraps, then binary32 nearest-even; the others: q - zp is exact in binary32
        wide = np.empty(src.shape, np.int32) if op.src.bits == 32 else None
        zpd = np.asarray(zp).astype(np.int32 if wide is not None else np.float32)

        def dequant() -> object:
            if unpack is not None:
                unpack()
            if wide is not None:
                np.subtract(src, zpd, out=wide, dtype=np.int32)
                np.multiply(wide, factor, out=final, dtype=np.float32)
            else:
                np.subtract(src, zpd, out=tmp, dtype=np.float32)
                np.multiply(tmp, factor, out=final)
            if final is tmp:
                np.copyto(dst, tmp, casting="unsafe")
            return out
        return Runner(dequant, lambda: raw(out))
    rounder, zpf = _ROUND[op.rounding], np.asarray(zp).astype(np.float32)
    assert op.storage is not None
    least, greatest = storage_range(op.storage)

    def quant() -> object:
        np.multiply(src, factor, out=tmp, dtype=np.float32)
        rounder(tmp, out=tmp)
        np.add(tmp, zpf, out=tmp)
        np.clip(tmp, least, greatest, out=tmp)
        np.copyto(dst, tmp, casting="unsafe")
        if pack is not None:
            pack()
        return out
    return Runner(quant, lambda: raw(out))


def _numpy_unpack(x: Packed) -> Tuple[Callable[[], object], np.ndarray]:
    """A staged NumPy unpack of ``x`` into one byte per element (int8 for a
    signed type: sign-extended), and that array in ``x``'s shape."""
    bits, per = x.dtype.bits, 8 // x.dtype.bits
    count, mask, half = x.size, (1 << bits) - 1, 1 << (bits - 1)
    lanes = np.empty((x.data.size, per), np.uint8)  # element k of byte j at [j, k]
    shifted = np.empty(x.data.size, np.uint8)
    signed = not x.dtype.name.startswith("U")
    flat = lanes.reshape(-1)
    values = flat.view(np.int8) if signed else flat

    def unpack() -> object:
        for k in range(per):
            np.right_shift(x.data, k * bits, out=shifted)
            np.bitwise_and(shifted, mask, out=lanes[:, k])
        if signed:
            np.bitwise_xor(flat, half, out=flat)
            np.subtract(values, half, out=values)
        return values
    return unpack, values[:count].reshape(x.shape)


def _numpy_pack(out: Packed) -> Tuple[Callable[[], object], np.ndarray]:
    """A staged NumPy pack into ``out`` of one byte per element, and that
    array (int8 or uint8, ``out``'s shape) to write the elements to."""
    bits, per = out.dtype.bits, 8 // out.dtype.bits
    mask = (1 << bits) - 1
    lanes = np.zeros((out.data.size, per), np.uint8)  # spare elements of the last byte: zero
    shifted = np.empty(out.data.size, np.uint8)
    flat = lanes.reshape(-1)
    elements = flat if out.dtype.name.startswith("U") else flat.view(np.int8)

    def pack() -> object:
        np.bitwise_and(lanes[:, 0], mask, out=out.data)
        for k in range(1, per):
            np.bitwise_and(lanes[:, k], mask, out=shifted)
            np.left_shift(shifted, k * bits, out=shifted)
            np.bitwise_or(out.data, shifted, out=out.data)
        return out
    return pack, elements[:out.size].reshape(out.shape)


def bits(array: np.ndarray) -> np.ndarray:
    """The array's bit patterns (unsigned integers of its width), for exact
    comparison (NaN == NaN, -0 != +0)."""
    return np.ascontiguousarray(array).view(f"u{array.dtype.itemsize}")

