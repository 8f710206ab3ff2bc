"""``sk.choose_qparams``: INT8 quantization parameters from the data's range.

The rule (docs/qparams.md has it with examples):

1. The range, per tensor or per channel of ``axis``: the least and greatest
   *finite* input values, widened to include 0 (NaN and infinities are left
   out of it: NaN quantizes to the zero point and infinities saturate, as
   the Quant contract says).  Taken on the representation bits, so the
   caller's FP modes cannot change it.
2. The first scale: asymmetric ``(hi - lo) / 254`` (the range spans 254
   steps, so the two ends' integers fit the 256 levels however they
   round), symmetric ``max(-lo, hi) / 127``, computed exactly and rounded
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
   asymmetric needs ``b - a <= 255`` and takes the zero point ``-128 - a``;
   symmetric needs ``-127 <= a`` and ``b <= 127`` and takes zero point 0.
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

from typing import Any, Dict, Optional, Tuple

import ml_dtypes
import numpy as np
import numpy.typing as npt

from . import _binary32
from ._ffi import ffi, lib
from . import _routes
from .arrays import _input
from .core import MAX_RANK, Error, ErrorCode, KernelError, QParams, describe, type_name
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


def choose_qparams(x: npt.ArrayLike, *, symmetric: bool = False, axis: Optional[int] = None) -> QParams:
    """INT8 parameters from the range of ``x`` (FLOAT32, FLOAT16 or BFLOAT16),
    per tensor or per channel along ``axis`` (negative counts from the end).

    ``multiplier`` (for ``sk.quantize``) is the binary32 reciprocal of the
    binary32 ``scale`` (for ``sk.dequantize``).  Asymmetric (default): the
    range spans 254 of the 255 steps between -128 and 127 (its ends land
    on the outermost levels or next to them).  Symmetric: zero point 0,
    levels -127..127.  Guarantees: finite
    scales > 0 and finite multipliers (an empty or constant range too);
    ``dequantize(zero_point)`` is exactly 0; neither end of the range
    saturates in any rounding mode; with nearest-even rounding every finite
    input in the range comes back within half a scale step (plus the
    binary32 rounding of the product and of the result).  NaN and
    infinities are left out of the range.  The rule: module docstring and
    docs/qparams.md.

    Raises :class:`~simakernels.KernelError`: ``UNSUPPORTED_DTYPE`` for
    another dtype, ``INVALID_PARAMS`` for an ``axis`` outside the rank or a
    ``symmetric`` that is not a bool, ``INVALID_BINDING`` for a masked array.

    >>> import numpy as np, simakernels as sk
    >>> qp = sk.choose_qparams(np.float32([-1.0, 0.5, 2.0]))
    >>> float(qp.scale), qp.zero_point, float(qp.multiplier)   # scale: 3/254 as binary32
    (0.011811023578047752, -43, 84.66666412353516)
    >>> q = sk.quantize(np.float32([-1.0, 0.5, 2.0]), qp.multiplier, qp.zero_point)
    >>> q.tolist(), sk.dequantize(q, qp.scale, qp.zero_point).tolist()
    ([-128, -1, 126], [-1.003937005996704, 0.4960629940032959, 1.996062994003296])
    """
    array = _array(x)
    channel_axis = _check_options(array.shape, symmetric, axis)
    return _choose(array, symmetric, channel_axis)


def _choose(array: np.ndarray, symmetric: bool, channel_axis: Optional[int]) -> QParams:
    """The range pass and the rule in one native call (sk_qparams_choose:
    _keys then _from_keys, without the keys leaving C); Python allocates
    only the outputs."""
    axis, kind = -1 if channel_axis is None else channel_axis, _INPUTS[array.dtype]
    key = (array.shape, array.strides, kind, axis)
    known = _LAYOUTS.get(key)
    if known is None:
        known = _layout(key)
    layout, need = known
    space = ffi.NULL
    if need:
        words = np.empty(need, np.uint8)  # any alignment: C aligns it
        space = ffi.from_buffer(words, require_writable=True)
    if channel_axis is None:
        bits = np.empty(3, np.int32)  # scale bits, zero point, multiplier bits
        out = ffi.from_buffer(bits, require_writable=True)
        scale, zero_point, multiplier = out, out + 4, out + 8
    else:
        count = array.shape[channel_axis]
        scales, zero_points, multipliers = np.empty(count, np.uint32), np.empty(count, np.int32), \
            np.empty(count, np.uint32)
        scale, zero_point, multiplier = (ffi.from_buffer(scales, require_writable=True),
                                         ffi.from_buffer(zero_points, require_writable=True),
                                         ffi.from_buffer(multipliers, require_writable=True))
    if array.flags.c_contiguous:
        src, span = ffi.from_buffer(array), array.nbytes
    else:
        src, span = ffi.cast("const void *", array.__array_interface__["data"][0]), _span(array)
    status = lib.sk_qparams_choose(kind, _routes.route_id(), int(symmetric), layout, axis, src, span, space, need,
                                   scale, zero_point, multiplier)
    if status == lib.SK_UNSUPPORTED_LAYOUT or status == lib.SK_INVALID_BINDING:
        return _choose(np.array(array, order="C"), symmetric, channel_axis)  # a copy: aligned and packed
    if status != lib.SK_OK:  # the arguments above are in contract: a broken invariant, not a caller's fault
        raise AssertionError(f"sk_qparams_choose refused an admitted array: status {status}")
    if channel_axis is None:
        values = bits.view(np.float32)
        return QParams(values[0], int(bits[1]), values[2], None, symmetric)
    return QParams(scales.view(np.float32), zero_points, multipliers.view(np.float32), channel_axis, symmetric)


# The layout cdata and workspace bytes of each (shape, strides, input,
# axis) _choose has seen: read-only once made, so threads share them.
_LAYOUTS: Dict[Any, Tuple[Any, int]] = {}
_LAYOUTS_KEPT = 256


def _layout(key: Tuple[Any, ...]) -> Tuple[Any, int]:
    shape, strides, kind, axis = key
    layout = ffi.new("sk_layout *", (len(shape), 0, 0, 0, _SIZES[kind], shape, strides))
    need = int(lib.sk_qparams_space(kind, layout, axis)) if axis >= 0 else 0
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


def _check_options(shape: Tuple[int, ...], symmetric: Any, axis: Any) -> Optional[int]:
    """The channel axis as an index of ``shape`` (None per tensor), after
    checking ``symmetric`` and ``axis``; raises KernelError."""
    if not isinstance(symmetric, bool):
        raise KernelError(Error(ErrorCode.INVALID_PARAMS, f"symmetric must be a bool, got {describe(symmetric)}"))
    if len(shape) > MAX_RANK:  # as quantize refuses it: parameters for a tensor no operation takes
        raise KernelError(Error(ErrorCode.INVALID_SHAPE, f"x: rank {len(shape)} exceeds {MAX_RANK}"))
    if axis is None:
        return None
    channel_axis = check_axis(axis, shape)  # the rule per-axis Quant and Dequant apply
    if isinstance(channel_axis, Error):
        raise KernelError(channel_axis)
    return channel_axis


def _keys(array: np.ndarray, channel_axis: Optional[int]) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The least and greatest finite value, with 0, per channel of
    ``channel_axis`` (one channel when None), as sign-magnitude keys of the
    representation bits (+magnitude for sign 0, -magnitude for sign 1):
    integers that order as the values do, so the range of a tensor split
    into parts is the min and max of the parts' keys, exactly.  Computed by
    the native range pass (csrc/range) in place, on any strides; a layout it
    does not take (negative, broadcast or overlapping strides, a misaligned
    view) is read from a C-contiguous copy.  (Both callers have refused
    ranks above six.)"""
    count = 1 if channel_axis is None else array.shape[channel_axis]
    least = np.empty(count, np.int64)
    greatest = np.empty(count, np.int64)
    axis, kind = -1 if channel_axis is None else channel_axis, _INPUTS[array.dtype]
    key = (array.shape, array.strides, kind, axis)
    layout = (_LAYOUTS.get(key) or _layout(key))[0]  # the cached record; the pass asks its own workspace size
    space, need = ffi.NULL, int(lib.sk_range_space(kind, layout, axis))
    if need:
        words = np.empty(need + 64, np.uint8)
        start = -words.ctypes.data % 64  # the workspace is 64-byte aligned
        space = ffi.from_buffer(words[start:start + need])
    src = ffi.from_buffer(array) if array.flags.c_contiguous else \
        ffi.cast("const void *", array.__array_interface__["data"][0])
    status = lib.sk_range_execute(kind, _routes.route_id(), layout, axis, src, _span(array), space, need,
                                  ffi.from_buffer("int64_t[]", least), ffi.from_buffer("int64_t[]", greatest))
    if status == lib.SK_UNSUPPORTED_LAYOUT or status == lib.SK_INVALID_BINDING:
        return _keys(np.array(array, order="C"), channel_axis)  # a copy: aligned and packed, always taken
    if status != lib.SK_OK:  # the arguments above are in contract: a broken invariant, not a caller's fault
        raise AssertionError(f"sk_range_execute refused an admitted array: status {status}")
    return least, greatest


def _span(array: np.ndarray) -> int:
    """The bytes an array's elements span from its first (0 when empty)."""
    if array.size == 0:
        return 0
    return int(array.itemsize + sum((n - 1) * abs(s) for n, s in zip(array.shape, array.strides)))


def _from_keys(least: npt.NDArray[np.int64], greatest: npt.NDArray[np.int64], dtype: np.dtype, symmetric: bool,
               channel_axis: Optional[int]) -> QParams:
    """The parameters for each channel's range keys (one channel when
    ``channel_axis`` is None): the rule, for all channels in one native call
    (csrc/qparams/rule.c: exact, in integer arithmetic)."""
    # Aligned too: keys merged by Dask can arrive in a misaligned buffer
    low = np.require(least, np.int64, ["C_CONTIGUOUS", "ALIGNED"])
    high = np.require(greatest, np.int64, ["C_CONTIGUOUS", "ALIGNED"])
    count = low.size
    scales = np.empty(count, np.uint32)
    zero_points = np.empty(count, np.int32)
    multipliers = np.empty(count, np.uint32)
    status = lib.sk_qparams_rule(_INPUTS[dtype], int(symmetric), ffi.from_buffer("int64_t[]", low),
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
                       _binary32.from_bits(int(multipliers[0])), None, symmetric)
    return QParams(scales.view(np.float32), zero_points, multipliers.view(np.float32), channel_axis, symmetric)
