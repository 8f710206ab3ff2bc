"""``sk.choose_qparams``: quantization parameters from the data's range,
for the levels of a storage type (INT8 by default; UINT8, INT16, UINT16,
INT4, UINT4, INT2, UINT2).

The rule (docs/qparams.md has it with examples), for a type's levels
``L .. H`` (signed ``-2^(b-1) .. 2^(b-1) - 1``, unsigned ``0 .. 2^b - 1``;
INT8: -128 .. 127):

1. The range, per tensor or per channel of ``axis``: the least and greatest
   *finite* input values, widened to include 0 (NaN and infinities are left
   out of it: NaN quantizes to the zero point and infinities saturate, as
   the Quant contract says).  Taken on the representation bits, so the
   caller's FP modes cannot change it.
2. The first scale: asymmetric ``(hi - lo) / (H - L - 1)`` (INT8: 254; the
   range spans one step fewer than the levels have, so the two ends'
   integers fit however they round), symmetric ``max(-lo, hi) / H`` (signed
   types only: H = 2^(b-1) - 1, INT8: 127), computed exactly and rounded
   to binary32
   (nearest-even); 1.0 for an empty range (all zeros, no finite value, an
   empty tensor); never below the least binary32 whose reciprocal is
   finite in binary32.
3. The multiplier: the binary32 reciprocal of the binary32 scale (nearest-
   even of the exact 1 / scale).  This is the one place where the library
   takes a reciprocal.
4. The check, exact: with ``a = floor(fl32(lo * multiplier))`` and
   ``b = ceil(fl32(hi * multiplier))`` (the binary32 product Quant
   computes, then the integer the most extreme rounding mode can give),
   asymmetric needs ``b - a <= H - L`` and takes the zero point ``L - a``;
   symmetric needs ``-H <= a`` and ``b <= H`` and takes zero point 0.
   While the check fails (binary32 rounding of the scale, the multiplier
   or a product can push an end past its level by a hair) the scale goes
   up one binary32 step, and the multiplier with it.  So neither end of the range saturates, in any of
   the four rounding modes, and every value in between lands within its
   level.

Steps 2-4 run natively for all channels at once (``sk_qparams_rule``,
csrc/qparams/rule.c), exact and in integer arithmetic only, so the
caller's FP state neither changes a bit nor raises a trap.
"""
from __future__ import annotations

import math
import typing
from typing import Any, Dict, NamedTuple, Optional, Tuple, Union

import ml_dtypes
import numpy as np
import numpy.typing as npt

from . import _binary32, _plans, a65, storage
from .ops import affine_dequant as ops_affine_dequant
from .ops import affine_quant as ops_affine_quant
from ._ffi import ffi, lib
from . import _routes
from .a65 import _backend
from .arrays import InArray, OutArray, _input, _out_array, _out_key, _output, _param_key, _spec, _view
from .buffers import bind
from .core import MAX_RANK, DType, Error, ErrorCode, KernelError, QParams, describe, type_name
from .ops import quant as ops_quant
from .ops._base import check_axis

# Bits of each input format: (exponent bits, fraction bits), for _keys.
_FORMATS: Dict[Any, Tuple[int, int]] = {
    np.dtype(np.float32): (8, 23),
    np.dtype(ml_dtypes.bfloat16): (8, 7),
    np.dtype(np.float16): (5, 10),
}
# The input format code (enum sk_quant_input) of each dtype, for the native range pass and rule.
_INPUTS: Dict[Any, int] = {
    np.dtype(np.float32): lib.SK_QUANT_F32,
    np.dtype(ml_dtypes.bfloat16): lib.SK_QUANT_BF16,
    np.dtype(np.float16): lib.SK_QUANT_F16,
}
# Element bytes of each input format code.
_SIZES = {lib.SK_QUANT_F32: 4, lib.SK_QUANT_BF16: 2, lib.SK_QUANT_F16: 2}

class _Storage(NamedTuple):
    """A storage type choose_qparams chooses levels for."""

    code: int    # enum sk_hurray_storage
    dtype: DType  # what QParams.dtype records
    name: str    # its lowercase name


_INT8_STORAGE = _Storage(lib.SK_HURRAY_INT8, DType.INT8, "int8")


def _storage_dtype(dtype: Any) -> Optional[DType]:
    """The DType a ``dtype=`` of choose_qparams names (``storage.to_dtype``:
    a DType, its name, or a NumPy or ml_dtypes dtype or scalar type); None
    when it names none."""
    try:
        return storage.to_dtype(dtype)
    except KernelError:
        return None


def _check_storage(dtype: Any, symmetric: bool) -> _Storage:
    """The storage type of choose_qparams' ``dtype=`` (``symmetric`` already
    checked to be a bool): UNSUPPORTED_DTYPE for a dtype whose levels the
    rule does not choose, INVALID_PARAMS for symmetric with an unsigned
    type; raises KernelError."""
    found = _storage_dtype(dtype)
    name = found.name.lower() if found is not None else ""
    if found is None or found not in ops_affine_quant.OUTPUTS:
        why = ("names no simakernels dtype" if found is None else
               "32-bit integers are no quantization's output" if name in ("int32", "uint32") else
               "not an integer storage type")
        raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE, f"dtype={describe(dtype)}: {why}; choose_qparams chooses "
                                                             f"levels of int8, uint8, int16, uint16, int4, uint4, "
                                                             f"int2 or uint2"))
    if symmetric and found.name.startswith("UINT"):
        raise KernelError(Error(ErrorCode.INVALID_PARAMS, f"symmetric=True with dtype={name}: symmetric levels "
                                                          f"-(2^(b-1) - 1) .. 2^(b-1) - 1 need a signed type; "
                                                          f"{name} is unsigned (take symmetric=False)"))
    return _Storage(ops_affine_dequant.STORAGE[found], found, name)


def choose_qparams(x: npt.ArrayLike, *, dtype: storage.DTypeSpec = "int8", symmetric: bool = False,
                   axis: Optional[int] = None, block_size: Optional[int] = None) -> QParams:
    """Parameters for the levels of the storage type ``dtype`` from the
    range of ``x`` (FLOAT32, FLOAT16 or BFLOAT16), per tensor or per channel
    along ``axis`` (negative counts from the end),
    or per block of ``block_size`` elements along ``axis`` (needs ``axis``):
    one parameter set per entry of the parameter shape, ``x``'s shape with
    ``ceil(x.shape[axis] / block_size)`` along ``axis``, from the range of
    the elements ``i`` with ``i[axis] // block_size`` at that entry (the
    last block along the axis may be partial); the arrays of ``QParams``
    then have that shape and its ``block_size`` is set.

    ``multiplier`` (for ``sk.quantize``) is the binary32 reciprocal of the
    binary32 ``scale`` (for ``sk.dequantize``).  ``dtype``: int8 (default),
    uint8, int16, uint16, int4, uint4, int2 or uint2, as an ``sk.DType``, its
    name or a NumPy or ml_dtypes dtype; the levels are its whole range
    (int8: -128..127, uint4: 0..15) and ``QParams.dtype`` records it.
    Asymmetric (default): the range spans all steps but one between the
    type's least and greatest levels (int8: 254 of the 255 between -128 and
    127; its ends land on the outermost levels or next to them).
    Symmetric (signed types only): zero point 0, levels -(2^(b-1) - 1) ..
    2^(b-1) - 1 (int8: -127..127).  Guarantees: finite
    scales > 0 and finite multipliers (an empty or constant range too);
    zero points among the levels; ``dequantize(zero_point)`` is exactly 0;
    neither end of the range
    saturates in any rounding mode; with nearest-even rounding every finite
    input in the range comes back within half a scale step (plus the
    binary32 rounding of the product and of the result).  NaN and
    infinities are left out of the range.  Per channel or block, all of
    this holds for each channel or block.  The rule: module docstring and
    docs/qparams.md.

    Raises :class:`~simakernels.KernelError`: ``UNSUPPORTED_DTYPE`` for
    another dtype of ``x``, and for a ``dtype`` that is none of the eight
    above (int32, uint32, floats), ``INVALID_PARAMS`` for an ``axis``
    outside the rank, a ``symmetric`` that is not a bool, ``symmetric=True``
    with an unsigned ``dtype``, a ``block_size`` without ``axis`` or that is
    not a positive integer, ``INVALID_BINDING`` for a masked array.

    >>> import numpy as np, simakernels as sk
    >>> qp = sk.choose_qparams(np.float32([-1.0, 0.5, 2.0]))
    >>> float(qp.scale), qp.zero_point, float(qp.multiplier)   # scale: 3/254 as binary32
    (0.011811023578047752, -43, 84.66666412353516)
    >>> q = sk.quantize(np.float32([-1.0, 0.5, 2.0]), qp.multiplier, qp.zero_point)
    >>> q.tolist(), sk.dequantize(q, qp.scale, qp.zero_point).tolist()
    ([-128, -1, 126], [-1.003937005996704, 0.4960629940032959, 1.996062994003296])
    >>> qu = sk.choose_qparams(np.float32([-1.0, 0.5, 2.0]), dtype="uint4")   # levels 0..15
    >>> float(qu.scale), qu.zero_point                                       # 3/14; -floor(-1 * 14/3) = 5
    (0.2142857164144516, 5)
    """
    array = _array(x)
    channel_axis, block = _check_options(array.shape, symmetric, axis, block_size)
    target = _INT8_STORAGE if type(dtype) is str and dtype == "int8" else _check_storage(dtype, symmetric)
    return _choose(array, symmetric, channel_axis, block, target)


def _choose(array: np.ndarray, symmetric: bool, channel_axis: Optional[int], block: int = 0,
            target: _Storage = _INT8_STORAGE) -> QParams:
    """The range pass and the rule in one native call (sk_qparams_choose:
    _keys then _from_keys, without the keys leaving C); Python allocates
    only the outputs."""
    axis, kind = -1 if channel_axis is None else channel_axis, _INPUTS[array.dtype]
    key = (array.shape, array.strides, kind, axis, block)
    known = _LAYOUTS.get(key)
    if known is None:
        known = _layout(key)
    layout, need = known
    space = ffi.NULL
    if need:
        words = np.empty(need, np.uint8)  # any alignment: C aligns it
        space = ffi.from_buffer(words, require_writable=True)
    fields, scale, zero_point, multiplier = _outputs(array.shape, channel_axis, block)
    if array.flags.c_contiguous:
        src, span = ffi.from_buffer(array), array.nbytes
    else:
        src, span = ffi.cast("const void *", array.__array_interface__["data"][0]), _span(array)
    status = lib.sk_qparams_choose(kind, _routes.route_id(), target.code, int(symmetric), layout, axis, block, src,
                                   span, space, need, scale, zero_point, multiplier)
    if status == lib.SK_UNSUPPORTED_LAYOUT or status == lib.SK_INVALID_BINDING:
        return _choose(np.array(array, order="C"), symmetric, channel_axis, block, target)  # a copy: aligned, packed
    if status != lib.SK_OK:  # the arguments above are in contract: a broken invariant, not a caller's fault
        raise AssertionError(f"sk_qparams_choose refused an admitted array: status {status}")
    return _qparams(fields, channel_axis, block, symmetric, target.dtype)


def _outputs(shape: Tuple[int, ...], channel_axis: Optional[int], block: int) -> Tuple[Any, Any, Any, Any]:
    """The arrays the native entry writes the parameters into (one int32
    array of three per tensor; else scale bits, zero points and multiplier
    bits of the parameter shape) and their three pointers."""
    if channel_axis is None:
        bits = np.empty(3, np.int32)  # scale bits, zero point, multiplier bits
        out = ffi.from_buffer(bits, require_writable=True)
        return bits, out, out + 4, out + 8
    count = (shape[channel_axis],) if not block else _param_shape(shape, channel_axis, block)
    fields = np.empty(count, np.uint32), np.empty(count, np.int32), np.empty(count, np.uint32)
    return (fields,) + tuple(ffi.from_buffer(f, require_writable=True) for f in fields)


def _qparams(fields: Any, channel_axis: Optional[int], block: int, symmetric: bool, dtype: Any) -> QParams:
    """The QParams of the arrays :func:`_outputs` made, once written."""
    if channel_axis is None:
        values = fields.view(np.float32)
        return QParams(values[0], int(fields[1]), values[2], None, symmetric, dtype=dtype)
    scales, zero_points, multipliers = fields
    return QParams(scales.view(np.float32), zero_points, multipliers.view(np.float32), channel_axis, symmetric,
                   block_size=block or None, dtype=dtype)


def _param_shape(shape: Tuple[int, ...], channel_axis: int, block: int) -> Tuple[int, ...]:
    """The blocked parameters' shape: ``shape`` with ceil(n / block) along the axis."""
    return tuple(-(-n // block) if d == channel_axis else n for d, n in enumerate(shape))


# The layout cdata and workspace bytes of each (shape, strides, input,
# axis, block) _choose has seen: read-only once made, so threads share them.
_LAYOUTS: Dict[Any, Tuple[Any, int]] = {}
_LAYOUTS_KEPT = 256


def _layout(key: Tuple[Any, ...]) -> Tuple[Any, int]:
    shape, strides, kind, axis, block = key
    layout = ffi.new("sk_layout *", (len(shape), 0, 0, 0, _SIZES[kind], shape, strides))
    need = int(lib.sk_qparams_space(kind, layout, axis, block)) if axis >= 0 else 0
    if len(_LAYOUTS) >= _LAYOUTS_KEPT:
        _LAYOUTS.clear()
    _LAYOUTS[key] = layout, need
    return layout, need


# The steps, shared with the Dask layer (simakernels.dask), which runs
# _keys per block, merges the blocks' keys by min and max (exact:
# they are integers) and calls _from_keys once: one rule, one place.

def _array(x: Any) -> np.ndarray:
    array = _input(x)  # the array layer's: masked arrays are refused
    _check_dtype(array.dtype, x)
    return array


def _check_dtype(dtype: np.dtype, x: Any) -> None:
    """UNSUPPORTED_DTYPE unless ``dtype`` is one the rule reads (``x`` named
    by its type in the message)."""
    if dtype not in _FORMATS:
        raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE, f"x: dtype {dtype} is not FLOAT32, FLOAT16 or "
                                                             f"BFLOAT16 ({type_name(x)})"))


def _check_options(shape: Tuple[int, ...], symmetric: Any, axis: Any,
                   block_size: Any = None) -> Tuple[Optional[int], int]:
    """(the channel axis as an index of ``shape``, None per tensor; the
    block size, 0 for none), after checking ``symmetric``, ``axis`` and
    ``block_size``; raises KernelError."""
    if not isinstance(symmetric, bool):
        raise KernelError(Error(ErrorCode.INVALID_PARAMS, f"symmetric must be a bool, got {describe(symmetric)}"))
    if len(shape) > MAX_RANK:  # as quantize refuses it: parameters for a tensor no operation takes
        raise KernelError(Error(ErrorCode.INVALID_SHAPE, f"x: rank {len(shape)} exceeds {MAX_RANK}"))
    if axis is None:
        if block_size is not None:
            raise KernelError(Error(ErrorCode.INVALID_PARAMS, f"block_size={describe(block_size)} needs an axis "
                                                              f"(the axis its blocks run along); axis=None is per "
                                                              f"tensor"))
        return None, 0
    channel_axis = check_axis(axis, shape)  # the rule per-axis Quant and Dequant apply
    if isinstance(channel_axis, Error):
        raise KernelError(channel_axis)
    if block_size is None:
        return channel_axis, 0
    if isinstance(block_size, (bool, np.bool_)) or not hasattr(block_size, "__index__") or \
            block_size.__index__() < 1:
        raise KernelError(Error(ErrorCode.INVALID_PARAMS, f"block_size {describe(block_size)} "
                                                          f"({type(block_size).__name__}) for axis {axis} of shape "
                                                          f"{shape} must be a positive integer"))
    return channel_axis, int(block_size.__index__())


def _keys(array: np.ndarray, channel_axis: Optional[int],
          block: int = 0) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The least and greatest finite value, with 0, per channel of
    ``channel_axis`` (one channel when None), or with ``block`` per entry of
    the parameter shape (flat, in its C order), as sign-magnitude keys of the
    representation bits (+magnitude for sign 0, -magnitude for sign 1):
    integers that order as the values do, so the range of a tensor split
    into parts is the min and max of the parts' keys, exactly.  Computed by
    the native range pass (csrc/range) in place, on any strides; a layout it
    does not take (negative, broadcast or overlapping strides, a misaligned
    view) is read from a C-contiguous copy.  (Both callers have refused
    ranks above six.)"""
    count = 1 if channel_axis is None else array.shape[channel_axis] if not block else \
        math.prod(_param_shape(array.shape, channel_axis, block))
    least = np.empty(count, np.int64)
    greatest = np.empty(count, np.int64)
    axis, kind = -1 if channel_axis is None else channel_axis, _INPUTS[array.dtype]
    key = (array.shape, array.strides, kind, axis, block)
    layout = (_LAYOUTS.get(key) or _layout(key))[0]  # the cached record; the pass asks its own workspace size
    space, need = ffi.NULL, int(lib.sk_range_space(kind, layout, axis, block))
    if need:
        words = np.empty(need + 64, np.uint8)
        start = -words.ctypes.data % 64  # the workspace is 64-byte aligned
        space = ffi.from_buffer(words[start:start + need])
    src = ffi.from_buffer(array) if array.flags.c_contiguous else \
        ffi.cast("const void *", array.__array_interface__["data"][0])
    status = lib.sk_range_execute(kind, _routes.route_id(), layout, axis, block, src, _span(array), space, need,
                                  ffi.from_buffer("int64_t[]", least), ffi.from_buffer("int64_t[]", greatest))
    if status == lib.SK_UNSUPPORTED_LAYOUT or status == lib.SK_INVALID_BINDING:
        return _keys(np.array(array, order="C"), channel_axis, block)  # a copy: aligned and packed, always taken
    if status != lib.SK_OK:  # the arguments above are in contract: a broken invariant, not a caller's fault
        raise AssertionError(f"sk_range_execute refused an admitted array: status {status}")
    return least, greatest


def _span(array: np.ndarray) -> int:
    """The bytes an array's elements span from its first (0 when empty)."""
    if array.size == 0:
        return 0
    return int(array.itemsize + sum((n - 1) * abs(s) for n, s in zip(array.shape, array.strides)))


def _from_keys(least: npt.NDArray[np.int64], greatest: npt.NDArray[np.int64], dtype: np.dtype, symmetric: bool,
               channel_axis: Optional[int], block: int = 0, shape: Tuple[int, ...] = (),
               target: _Storage = _INT8_STORAGE) -> QParams:
    """The parameters for each channel's range keys (one channel when
    ``channel_axis`` is None; with ``block``, the flat entries of the
    parameter shape ``shape``) in the input format ``dtype``, for the levels
    of ``target`` (:func:`_check_storage`'s): the rule, for all channels in
    one native call (csrc/qparams/rule.c: exact, in integer arithmetic)."""
    # Aligned too: keys merged by Dask can arrive in a misaligned buffer
    low = np.require(least, np.int64, ["C_CONTIGUOUS", "ALIGNED"])
    high = np.require(greatest, np.int64, ["C_CONTIGUOUS", "ALIGNED"])
    count = low.size
    scales = np.empty(count, np.uint32)
    zero_points = np.empty(count, np.int32)
    multipliers = np.empty(count, np.uint32)
    status = lib.sk_qparams_rule(_INPUTS[dtype], target.code, int(symmetric), ffi.from_buffer("int64_t[]", low),
                                 ffi.from_buffer("int64_t[]", high), count,
                                 ffi.from_buffer("uint32_t[]", scales, require_writable=True),
                                 ffi.from_buffer("int32_t[]", zero_points, require_writable=True),
                                 ffi.from_buffer("uint32_t[]", multipliers, require_writable=True))
    if status != lib.SK_OK:  # _keys gives in-range keys: only a broken caller gets here
        exponent_bits, fraction_bits = _FORMATS[dtype]
        limit = ((1 << exponent_bits) - 1) << fraction_bits  # the least non-finite magnitude
        bad = np.flatnonzero((low > 0) | (low <= -limit) | (high < 0) | (high >= limit))
        c = int(bad[0]) if bad.size else 0
        raise KernelError(Error(ErrorCode(status), f"choose_qparams: the native rule refused the range keys of "
                                                   f"channel {c}: ({int(low[c])}, {int(high[c])}) in {dtype}"))
    if channel_axis is None:
        return QParams(_binary32.from_bits(int(scales[0])), int(zero_points[0]),
                       _binary32.from_bits(int(multipliers[0])), None, symmetric, dtype=target.dtype)
    if block:
        return QParams(scales.reshape(shape).view(np.float32), zero_points.reshape(shape),
                       multipliers.reshape(shape).view(np.float32), channel_axis, symmetric, block_size=block,
                       dtype=target.dtype)
    return QParams(scales.view(np.float32), zero_points, multipliers.view(np.float32), channel_axis, symmetric,
                   dtype=target.dtype)


# ---- sk.quantize_dynamic ------------------------------------------------------

def quantize_dynamic(x: InArray, *, axis: Optional[int] = None, block_size: Optional[int] = None,
                     symmetric: bool = False, rounding: Union[ops_quant.Rounding, str] = "nearest_even",
                     out: Optional[OutArray] = None) -> Tuple[np.ndarray, QParams]:
    """Dynamic quantization: :func:`choose_qparams` and :func:`quantize` in
    one call, ``(q, qp)`` bit for bit what ``qp = choose_qparams(x,
    symmetric=symmetric, axis=axis, block_size=block_size)`` then ``q =
    quantize(x, qp, rounding=rounding, out=out)`` give.

    ``x``: a ``numpy.float32``, ``ml_dtypes.bfloat16`` or ``numpy.float16``
    array (anything else array-like goes through ``numpy.asarray``; a DLPack
    array is viewed in place; a masked array is refused).  Per tensor
    (default), per channel along ``axis`` (negative counts from the end) or
    per block of ``block_size`` elements along ``axis``: the parameters and
    their guarantees are :func:`choose_qparams`' (NaN and infinities are
    left out of each range; NaN then quantizes to the zero point and
    infinities saturate).  ``rounding``: as :func:`quantize`'s (the
    parameters do not depend on it: no end of a range saturates in any
    mode).  Returns ``(q, qp)``: ``q`` a new C-contiguous ``int8`` array of
    ``x``'s shape, or ``out`` (same shape, ``int8``, any non-negative
    strides) written in place; ``qp`` the :class:`QParams` (its ``scale``
    for :func:`dequantize`).

    One native call reads ``x`` twice (its range, then the quantization)
    and writes ``q`` once: no Python runs between the two passes, and
    repeated calls on one layout reuse the plan prepared on the first.

    Raises :class:`~simakernels.KernelError` before writing any output
    byte, with :func:`choose_qparams`' errors first (``UNSUPPORTED_DTYPE``;
    ``INVALID_PARAMS`` for an ``axis`` outside the rank, a ``symmetric``
    that is not a bool, a ``block_size`` without ``axis`` or that is not a
    positive integer; ``INVALID_BINDING`` for a masked array), then
    :func:`quantize`'s (``INVALID_PARAMS`` for an unknown ``rounding``,
    ``INVALID_SHAPE``, ``UNSUPPORTED_LAYOUT`` for negative or broadcast
    strides, ``INVALID_BINDING`` for a read-only or overlapping ``out``,
    ``UNSUPPORTED_DTYPE`` for an ``out`` that is not ``int8``, and for a
    nonempty ``x`` ``UNSUPPORTED_ENVIRONMENT`` when the calling thread's
    rounding mode is not round-to-nearest or an FP trap is enabled).

    >>> import numpy as np, simakernels as sk
    >>> q, qp = sk.quantize_dynamic(np.float32([-1.0, 0.5, 2.0]))
    >>> q.tolist(), qp.zero_point, float(qp.scale)
    ([-128, -1, 126], -43, 0.011811023578047752)
    >>> w = np.float32([[0.5, -0.25, 1.0, 2.0], [-4.0, 0.0, 1.0, 8.0]])
    >>> q, qp = sk.quantize_dynamic(w, axis=1, block_size=2, symmetric=True)
    >>> q.tolist(), qp.scale.shape
    ([[127, -64, 64, 127], [-127, 0, 16, 127]], (2, 2))
    """
    if type(x) is not np.ndarray:
        x = _input(x)
    if not (out is None or isinstance(out, np.ndarray)):  # a DLPack array: written in place, returned
        _, qp = quantize_dynamic(x, axis=axis, block_size=block_size, symmetric=symmetric, rounding=rounding,
                                 out=_out_array(out))
        return typing.cast(np.ndarray, out), qp
    key = ("quant-dynamic", x.shape, x.strides, x.dtype,
           (out.shape, out.strides, out.dtype) if type(out) is np.ndarray else _out_key(out),
           axis if type(axis) is int else _param_key(axis),
           block_size if type(block_size) is int else _param_key(block_size),
           _SYMMETRIC if symmetric is True else _ASYMMETRIC if symmetric is False else _param_key(symmetric),
           rounding if type(rounding) is str else _param_key(rounding), _routes.forced_route_key())
    try:
        entry = _PLANS.get(key)
    except TypeError:  # unhashable options: never cached (and refused below)
        entry = None
    if entry is None:
        entry = _plans.remember(key, _dynamic_entry(x, out, axis, block_size, symmetric, rounding))
    plan, layout, channel_axis, block, shape, need = entry
    if out is None:
        out = _empty(x.shape, _INT8)
    space = _from_buffer(_empty(need, _UINT8), require_writable=True) if need else _NULL
    fields: Any
    if channel_axis < 0:
        fields = _empty(3, _INT32)  # scale bits, zero point, multiplier bits
        scale = _from_buffer(fields, require_writable=True)
        zero_point, multiplier = scale + 4, scale + 8
    else:
        fields = _empty(shape, _UINT32), _empty(shape, _INT32), _empty(shape, _UINT32)
        scale, zero_point, multiplier = (_from_buffer(f, require_writable=True) for f in fields)
    try:
        if plan._dense:
            src, dst = _from_buffer(x), _from_buffer(_CHAR_ARRAY, out, True)
            src_len, dst_len = len(src), len(dst)
        else:
            first, (src_len, dst_len) = plan._first, plan._spans
            src, dst = _from_buffer(_getitem(x, first)), _from_buffer(_CHAR_ARRAY, _getitem(out, first), True)
        status = _dynamic(plan._native, symmetric, layout, channel_axis, block, src, src_len, dst, dst_len, space,
                          need, scale, zero_point, multiplier)
    except _backend._NOT_A_PLAIN_BUFFER:
        status = None
    if status != 0:
        _dynamic_refused(plan, status, x, out)
    qp = _new(QParams)  # the dataclass's fields without its frozen __init__ (a microsecond per call)
    if channel_axis < 0:
        values = fields.view(_FLOAT32)
        qp.__dict__.update(scale=values[0], zero_point=int(fields[1]), multiplier=values[2], axis=None,
                           symmetric=symmetric, block_size=None, dtype=_DTYPE_INT8)
    else:
        scales, zero_points, multipliers = fields
        qp.__dict__.update(scale=scales.view(_FLOAT32), zero_point=zero_points, multiplier=multipliers.view(_FLOAT32),
                           axis=channel_axis, symmetric=symmetric, block_size=block or None, dtype=_DTYPE_INT8)
    return out, qp


_PLANS = _plans.PLANS
_SYMMETRIC, _ASYMMETRIC = ("symmetric",), ("asymmetric",)  # equal to no key _param_key gives (True == 1)
_new = object.__new__
_empty = np.empty
_from_buffer = ffi.from_buffer
_CHAR_ARRAY = ffi.typeof("char[]")
_NULL = ffi.NULL
_INT8, _INT32, _UINT8, _UINT32, _FLOAT32 = np.int8, np.int32, np.uint8, np.uint32, np.float32
_DTYPE_INT8 = DType.INT8
_getitem = np.ndarray.__getitem__  # a subclass's own indexing is not asked
_dynamic = lib.sk_quant_dynamic


def _dynamic_entry(x: np.ndarray, out: Optional[np.ndarray], axis: Any, block_size: Any, symmetric: Any,
                   rounding: Any) -> Tuple[Any, Any, int, int, Tuple[int, ...], int]:
    """Admission, once per layout and options: choose_qparams' checks, then
    quantize's admission of a plan with placeholder parameters of the
    parameter shape (the native entry prepares a copy with the chosen ones);
    raises the first KernelError.  (the plan, the input's layout record,
    the channel axis (-1 per tensor), the block (0: none), the parameter
    shape, the workspace bytes)."""
    _check_dtype(x.dtype, x)
    channel_axis, block = _check_options(x.shape, symmetric, axis, block_size)
    out = _output(x, DType.INT8, out)
    try:
        params: Any
        if channel_axis is None:
            shape: Tuple[int, ...] = ()
            params = ops_quant.Params(1, 0, rounding)
        elif not block:
            shape = (x.shape[channel_axis],)
            params = ops_quant.AxisParams(channel_axis, np.ones(shape, np.float32), 0, rounding)
        else:
            shape = _param_shape(x.shape, channel_axis, block)
            params = ops_quant.BlockParams(channel_axis, block, np.ones(shape, np.float32), 0, rounding)
    except ValueError as exc:
        raise KernelError(Error(ErrorCode.INVALID_PARAMS, str(exc))) from None
    request = ops_quant.Request([_spec(x, "input 0")], [_spec(out, "output 0")], params)
    plan = a65.quant.check_inference(request)
    if isinstance(plan, Error):
        raise KernelError(plan)
    index = -1 if channel_axis is None else channel_axis
    layout = _layout((x.shape, x.strides, _INPUTS[x.dtype], index, block))[0]
    need = int(lib.sk_quant_dynamic_space(plan._native, layout, index, block))
    return plan, layout, index, block, shape, need


def _dynamic_refused(plan: Any, status: Optional[int], x: np.ndarray, out: np.ndarray) -> None:
    """Raises the KernelError of a refused call (``status`` None: a port was
    no plain buffer): binding faults named by the Python checks, other
    statuses worded as quantize words them."""
    if status is None or status in _backend._BINDING_FAULTS:
        if not out.flags.writeable:
            raise KernelError(Error(ErrorCode.INVALID_BINDING, "output 0: out is read-only, a writable array is "
                                                               "required"))
        shared = plan.shared
        (src,), (dst,) = shared.admitted.inputs, shared.admitted.outputs
        in_nbytes, out_nbytes = plan._spans
        bound = bind([_view(x, in_nbytes, False)], [_view(out, out_nbytes, True)], shared.input_requirements(),
                     shared.output_requirements(), (src.dtype, dst.dtype))
        if isinstance(bound, Error):
            raise KernelError(bound)
        status = lib.SK_INVALID_BINDING if status is None else status
    raise KernelError(_backend._status_error(status, "quantize_dynamic", plan._fenv_needs))
