"""Expected bits of per-axis (per-channel) Dequant and Quant.

Specification (per-axis parameters): element ``i`` along the channel axis
takes channel ``i``'s parameters (its scale or multiplier, and its zero
point: one shared integer or one per channel) "with exactly the per-tensor
arithmetic".  So the expected bits of every element are the per-tensor
oracle's (:mod:`.dequant`, :mod:`.quant`) under the parameters of the
element's channel; nothing here computes a result of its own.

What this module adds is the bookkeeping, from the logical shape alone:

* :func:`channel_of`: the channel (index along the axis) of every logical
  element, by broadcasting ``arange(shape[axis])``;
* channels grouped by identical parameters, so that the per-tensor oracle
  runs once per distinct (value bits, zero point) pair, not once per channel;
* the per-tensor results gathered per element (integer indexing only).

Inputs and outputs are NumPy arrays of bit patterns in the tensor's logical
shape (INT8 as int8 or uint8 bytes; FP32 as uint32; BF16 / FP16 as uint16).
NumPy is used for integer indexing only: no floating-point arithmetic, and
the package under test is never imported.  Per-tensor tables are cached by
the per-tensor oracle itself; callers with a cache of their own (on disk,
for instance) pass it as ``table`` / ``many``.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence, Tuple, Union

import numpy as np

from .dequant import INT32_MAX, INT32_MIN, dequant_bf16_table, dequant_f32_table
from .formats import BFLOAT16, BINARY16, BINARY32, Format
from .integers import rounding_name
from .quant import INT8_MAX, INT8_MIN, quant_many, quant_table

__all__ = [
    "normalize_axis",
    "channel_of",
    "channel_params",
    "dequant_axis",
    "quant_axis",
    "dequant_entries",
    "quant_entries",
]

ZeroPoints = Union[int, Sequence[int]]


def normalize_axis(axis: int, rank: int) -> int:
    """``axis`` as an index into a shape of ``rank`` (negative counts from
    the end); ValueError outside ``[-rank, rank)``."""
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise ValueError(f"axis {axis!r} is not an integer")
    if not -rank <= int(axis) < rank:
        raise ValueError(f"axis {axis} is outside the rank {rank}")
    return int(axis) % rank


def channel_of(shape: Sequence[int], axis: int) -> np.ndarray:
    """The channel of every logical element of ``shape``: its index along
    ``axis`` (an int64 array of ``shape``)."""
    shape = tuple(int(e) for e in shape)
    a = normalize_axis(axis, len(shape))
    view = [1] * len(shape)
    view[a] = shape[a]
    return np.broadcast_to(np.arange(shape[a], dtype=np.int64).reshape(view), shape)


def channel_params(values: Sequence[int], zero_points: ZeroPoints, low: int, high: int) -> Tuple[Tuple[int, int], ...]:
    """Each channel's (value bits, zero point): ``zero_points`` is one
    integer for every channel or one per channel, each in [low, high]."""
    values = [int(v) for v in values]
    if isinstance(zero_points, (int, np.integer)) and not isinstance(zero_points, bool):
        zps = [int(zero_points)] * len(values)
    else:
        zps = [int(z) for z in zero_points]
    if len(zps) != len(values):
        raise ValueError(f"{len(values)} channel values but {len(zps)} zero points")
    for z in zps:
        if not low <= z <= high:
            raise ValueError(f"zero point {z} outside [{low}, {high}]")
    return tuple(zip(values, zps))


def _grouped(params: Tuple[Tuple[int, int], ...], channels: np.ndarray, shape) -> Tuple[list, np.ndarray]:
    """(distinct parameter pairs, the group of every element); ``channels``
    holds every element's index into ``params``."""
    distinct = sorted(set(params))
    index = {p: g for g, p in enumerate(distinct)}
    group_of_channel = np.array([index[p] for p in params], dtype=np.int64)
    if channels.size and channels.max() >= len(params):
        raise ValueError(f"{len(params)} parameter pairs, but an element takes pair {int(channels.max())}")
    return distinct, group_of_channel[channels].reshape(shape)


def dequant_axis(q: np.ndarray, axis: int, scale_bits: Sequence[int], zero_points: ZeroPoints = 0,
                 output: str = "float32") -> np.ndarray:
    """Per-axis Dequant of INT8 inputs ``q`` (int8 values or their uint8
    bytes, in logical shape): FP32 bits (uint32) for ``output="float32"``,
    BF16 bits (uint16) for ``"bfloat16"``.  Channel ``c`` takes
    ``scale_bits[c]`` (binary32 encodings, finite and > 0) and its INT32
    zero point; each element is :func:`.dequant.dequant_f32` /
    ``dequant_bf16`` of its channel's parameters."""
    q = np.asarray(q)
    params = channel_params(scale_bits, zero_points, INT32_MIN, INT32_MAX)
    channels = channel_of(q.shape, axis)
    if len(params) != q.shape[normalize_axis(axis, q.ndim)]:
        raise ValueError(f"{len(params)} scales for an axis of {q.shape[normalize_axis(axis, q.ndim)]}")
    return dequant_entries(q, channels, params, output)


def dequant_entries(q: np.ndarray, entries: np.ndarray, params: Tuple[Tuple[int, int], ...],
                    output: str = "float32") -> np.ndarray:
    """Dequant of INT8 inputs ``q`` where element ``e`` takes the parameter
    pair (scale bits, zero point) ``params[entries[e]]`` (``entries``: an
    int64 array of ``q``'s shape): each element is the per-tensor oracle's
    result under its pair."""
    q = np.asarray(q)
    if q.dtype not in (np.int8, np.uint8):
        raise ValueError(f"Dequant inputs are INT8 bytes, got {q.dtype}")
    if output not in ("float32", "bfloat16"):
        raise ValueError(f"output must be 'float32' or 'bfloat16', got {output!r}")
    distinct, groups = _grouped(params, entries, q.shape)
    table_of, word = (dequant_f32_table, np.uint32) if output == "float32" else (dequant_bf16_table, np.uint16)
    tables = np.array([table_of(s, z) for s, z in distinct], dtype=word).reshape(len(distinct), 256)
    return tables[groups, q.view(np.uint8)]


TableFn = Callable[[Format, int, int, str], Sequence[int]]
ManyFn = Callable[[np.ndarray, Format, int, int, str], Sequence[int]]


def _many_unique(patterns: np.ndarray, fmt: Format, m: int, zp: int, rounding: str) -> np.ndarray:
    unique, inverse = np.unique(patterns, return_inverse=True)
    results = np.array(quant_many(unique.tolist(), fmt, m, zp, rounding), dtype=np.int8)
    return results[inverse.reshape(-1)]


def quant_axis(x: np.ndarray, fmt: Format, axis: int, multiplier_bits: Sequence[int], zero_points: ZeroPoints = 0,
               rounding: str = "nearest_even", *, table: Optional[TableFn] = None,
               many: Optional[ManyFn] = None) -> np.ndarray:
    """Per-axis Quant of input patterns ``x`` (encodings of ``fmt``, in
    logical shape) to INT8 (an int8 array).  Channel ``c`` takes
    ``multiplier_bits[c]`` (binary32, finite and > 0) and its zero point in
    [-128, 127]; each element is :func:`.quant.quant` of its channel's
    parameters and the one ``rounding``.

    16-bit formats look results up in whole-format tables, ``table(fmt, m,
    zp, rounding)`` (default :func:`.quant.quant_table`), unless only
    ``many`` is given; otherwise (and always for BINARY32) each parameter
    group's inputs are evaluated by ``many(patterns, fmt, m, zp, rounding)``
    (default :func:`.quant.quant_many` over the distinct patterns).  A
    caller's ``table`` / ``many`` must give the per-tensor oracle's results
    (a cache of them)."""
    x = np.asarray(x)
    params = channel_params(multiplier_bits, zero_points, INT8_MIN, INT8_MAX)
    a = normalize_axis(axis, x.ndim)
    if len(params) != x.shape[a]:
        raise ValueError(f"{len(params)} multipliers for an axis of {x.shape[a]}")
    return quant_entries(x, fmt, channel_of(x.shape, axis), params, rounding, table=table, many=many)


def quant_entries(x: np.ndarray, fmt: Format, entries: np.ndarray, params: Tuple[Tuple[int, int], ...],
                  rounding: str = "nearest_even", *, table: Optional[TableFn] = None,
                  many: Optional[ManyFn] = None) -> np.ndarray:
    """Quant of input patterns ``x`` where element ``e`` takes the pair
    (multiplier bits, zero point) ``params[entries[e]]`` (``entries``: an
    int64 array of ``x``'s shape): each element is the per-tensor oracle's
    result under its pair and the one ``rounding`` (``table`` / ``many``
    as :func:`quant_axis` takes them)."""
    x = np.asarray(x)
    rounding = rounding_name(rounding)
    distinct, groups = _grouped(params, entries, x.shape)
    if not distinct:                    # an empty channel axis: an empty tensor
        return np.zeros(x.shape, dtype=np.int8)
    if fmt in (BFLOAT16, BINARY16) and (table is not None or many is None):
        table = table or (lambda f, m, z, r: quant_table(f, m, z, r))
        tables = np.stack([np.asarray(table(fmt, m, z, rounding), dtype=np.int8).reshape(1 << 16)
                           for m, z in distinct])
        return tables[groups, x.astype(np.uint16)]
    if fmt not in (BINARY32, BFLOAT16, BINARY16):
        raise ValueError(f"unknown input format {fmt!r}")
    many = many or _many_unique
    flat_x = x.astype(np.uint32 if fmt is BINARY32 else np.uint16).reshape(-1)
    flat_g = groups.reshape(-1)
    out = np.zeros(flat_x.size, dtype=np.int8)
    for g, (m, z) in enumerate(distinct):
        where = np.flatnonzero(flat_g == g)
        if where.size:
            out[where] = np.asarray(many(flat_x[where], fmt, m, z, rounding), dtype=np.int8).reshape(-1)
    return out.reshape(x.shape)
