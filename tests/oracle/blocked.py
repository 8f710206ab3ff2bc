"""Expected bits of blocked (group-wise) Dequant and Quant.

Specification (API.md, "Blocked parameters"): for ``x`` of shape ``S``, an
``axis`` and a ``block_size`` B >= 1, the parameter arrays have ``S``'s
rank and shape except ``ceil(S[axis] / B)`` along ``axis``; element ``i``
takes the parameters at ``i`` with ``i[axis]`` replaced by
``i[axis] // B`` (the last block may be partial), "with the same staged
arithmetic per element".  So the expected bits of every element are the
per-tensor oracle's (:mod:`.dequant`, :mod:`.quant`) under the parameters
of the element's block; nothing here computes a result of its own.

What this module adds is the index bookkeeping, from the rule alone:

* :func:`parameter_shape`: the parameters' shape;
* :func:`parameter_index_of`: for every logical element, the index (a
  tuple, one integer array per axis) of its parameters, by the rule above;
* the per-tensor results gathered per element through
  :func:`.axis.dequant_entries` / :func:`.axis.quant_entries` (which group
  identical parameter pairs and run the per-tensor oracle once per pair).

Inputs and outputs are NumPy arrays of bit patterns in the tensor's logical
shape, as in :mod:`.axis`.  NumPy is used for integer indexing only, and the
package under test is never imported.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

import numpy as np

from .axis import ManyFn, TableFn, dequant_entries, normalize_axis, quant_entries
from .dequant import INT32_MAX, INT32_MIN
from .formats import Format
from .quant import INT8_MAX, INT8_MIN

__all__ = ["parameter_shape", "parameter_index_of", "dequant_blocked", "quant_blocked"]

ZeroPoints = Union[int, np.ndarray]


def _block_size(block_size: int) -> int:
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise ValueError(f"block_size {block_size!r} is not an integer >= 1")
    return int(block_size)


def parameter_shape(shape: Sequence[int], axis: int, block_size: int) -> Tuple[int, ...]:
    """``shape`` with its ``axis`` extent E replaced by ceil(E / block_size)."""
    shape = tuple(int(e) for e in shape)
    a, b = normalize_axis(axis, len(shape)), _block_size(block_size)
    return tuple((e + b - 1) // b if d == a else e for d, e in enumerate(shape))


def parameter_index_of(shape: Sequence[int], axis: int, block_size: int) -> Tuple[np.ndarray, ...]:
    """For every logical element ``i`` of ``shape``, the index into the
    parameter arrays: ``i`` with ``i[axis] // block_size`` in place of
    ``i[axis]``; one int64 array of ``shape`` per axis."""
    shape = tuple(int(e) for e in shape)
    a, b = normalize_axis(axis, len(shape)), _block_size(block_size)
    index = np.indices(shape, dtype=np.int64) if shape else np.zeros((0,), np.int64)
    return tuple(index[d] // b if d == a else index[d] for d in range(len(shape)))


def _pairs(shape: Sequence[int], axis: int, block_size: int, values: np.ndarray, zero_points: ZeroPoints,
           low: int, high: int) -> Tuple[np.ndarray, Tuple[Tuple[int, int], ...]]:
    """(every element's position among the parameter entries (C order of
    the parameter shape), the entries' (value bits, zero point) pairs)."""
    expected = parameter_shape(shape, axis, block_size)
    values = np.asarray(values)
    if values.shape != expected:
        raise ValueError(f"parameter values of shape {values.shape}, expected {expected}")
    if isinstance(zero_points, (int, np.integer)) and not isinstance(zero_points, bool):
        zps = np.full(expected, int(zero_points), dtype=np.int64)
    else:
        zps = np.asarray(zero_points, dtype=np.int64)
        if zps.shape != expected:
            raise ValueError(f"zero points of shape {zps.shape}, expected {expected}")
    if zps.size and (zps.min() < low or zps.max() > high):
        raise ValueError(f"a zero point outside [{low}, {high}]")
    pairs = tuple(zip((int(v) for v in values.astype(np.uint32).reshape(-1)), (int(z) for z in zps.reshape(-1))))
    index = parameter_index_of(shape, axis, block_size)
    entries = np.ravel_multi_index(index, expected) if index else np.zeros((), np.int64)
    return np.asarray(entries, dtype=np.int64).reshape(tuple(shape)), pairs


def dequant_blocked(q: np.ndarray, axis: int, block_size: int, scale_bits: np.ndarray, zero_points: ZeroPoints = 0,
                    output: str = "float32") -> np.ndarray:
    """Blocked Dequant of INT8 inputs ``q`` (int8 values or uint8 bytes, in
    logical shape): FP32 bits (uint32) or BF16 bits (uint16).  ``scale_bits``
    (binary32 encodings, finite and > 0) has the parameter shape;
    ``zero_points`` is one INT32 integer or an array of that shape."""
    q = np.asarray(q)
    entries, pairs = _pairs(q.shape, axis, block_size, scale_bits, zero_points, INT32_MIN, INT32_MAX)
    return dequant_entries(q, entries, pairs, output)


def quant_blocked(x: np.ndarray, fmt: Format, axis: int, block_size: int, multiplier_bits: np.ndarray,
                  zero_points: ZeroPoints = 0, rounding: str = "nearest_even", *, table: Optional[TableFn] = None,
                  many: Optional[ManyFn] = None) -> np.ndarray:
    """Blocked Quant of input patterns ``x`` (encodings of ``fmt``, in
    logical shape) to INT8.  ``multiplier_bits`` (binary32, finite and > 0)
    has the parameter shape; ``zero_points`` is one integer in [-128, 127]
    or an array of that shape.  ``table`` / ``many``: as
    :func:`.axis.quant_axis` takes them (caches of the per-tensor oracle)."""
    x = np.asarray(x)
    entries, pairs = _pairs(x.shape, axis, block_size, multiplier_bits, zero_points, INT8_MIN, INT8_MAX)
    if not pairs:
        return np.zeros(x.shape, dtype=np.int8)
    return quant_entries(x, fmt, entries, pairs, rounding, table=table, many=many)
