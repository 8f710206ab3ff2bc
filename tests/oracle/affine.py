"""Expected results of affine_quant and affine_dequant (the Hurray storage types).

Specification (API.md, "Integer formats beyond INT8"):

* ``affine_quant`` (FLOAT32 / BFLOAT16 / FLOAT16 -> INT8, UINT8, INT16,
  UINT16, INT4, UINT4, INT2, UINT2): "the specification's Quant order
  (binary32 product, one of the four modes, zero point added in a wider
  integer, NaN -> zero point, +-inf saturate) saturated to the output type's
  range".  Quant's "Ordered numerical implementation": interpret the source
  in its format; multiply by the binary32 multiplier, rounding the product
  to binary32 nearest-even with gradual underflow; round that to an integer
  by the mode; add the zero point in a wider integer; saturate.  "NaNs of
  either sign and any payload map to the zero point.  Positive and negative
  infinity saturate by sign.  Both signed zeros map to the zero point."  The
  multiplier is Quant's (finite, > 0, subnormal allowed); zero points lie in
  the output type's range.
* ``affine_dequant`` (any of the ten types -> FLOAT32 / BFLOAT16): "Hurray's
  formula: (int32)(q - zero_point) wrapping modulo 2^32, converted to
  binary32 nearest-even, times scale in binary32; BF16 narrowed by Cast's
  rule".  The scale is "finite and non-zero, negative allowed"; zero points
  lie in the storage type's range.

Everything is exact integer arithmetic on decoded values (:mod:`.formats`,
:mod:`.integers`), one explicit IEEE rounding per step.  This module does
not call :mod:`.quant`, :mod:`.dequant` or :mod:`.hurray`: the INT8 results
and the Hurray formula's are checked against those independently written
oracles (test_storage_oracle.py).

Step 3's integer is kept unsaturated (:func:`quant_integer`); saturation is
the last step, per output type, so whole-format tables of the integer serve
every type and zero point.  In tables (NumPy int64) an integer beyond
+-2^40 is stored as +-2^40 (:data:`BEYOND`), infinities too: every zero
point lies within +-2^32 and every range within [-2^31, 2^32), so
``saturate(I + zp)`` is the same for the stored and the exact integer.

Per-axis and blocked versions take each element's parameters by the index
rules of :mod:`.axis` and :mod:`.blocked` (the element's channel, or its
index with ``i[axis] // block_size``) and apply the per-tensor result.

NumPy is used for integer indexing and integer clipping only.
"""

from __future__ import annotations

from functools import lru_cache
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

from .axis import channel_of, channel_params, normalize_axis
from .blocked import _pairs as _blocked_pairs
from .cast import f32_to_bf16
from .formats import BFLOAT16, BINARY16, BINARY32, Format, Kind, decompose, round_scaled, round_to_format
from .integers import round_to_integer, rounding_name, saturate
from .storage import QUANT_OUTPUTS, StorageType, storage_type

__all__ = [
    "BEYOND",
    "quant_integer",
    "affine_quant",
    "affine_quant_many",
    "affine_quant_table",
    "quant_integer_table",
    "quant_integers",
    "saturate_integers",
    "int32_difference",
    "affine_dequant_f32",
    "affine_dequant_bf16",
    "affine_dequant",
    "affine_dequant_many",
    "affine_dequant_table",
    "affine_quant_entries",
    "affine_quant_axis",
    "affine_quant_blocked",
    "affine_dequant_entries",
    "affine_dequant_axis",
    "affine_dequant_blocked",
]

BEYOND = 1 << 40
OUTPUTS = ("float32", "bfloat16")


# ------------------------------------------------------------------ quant


def _multiplier(multiplier_bits: int) -> Tuple[int, int]:
    kind, negative, significand, exponent = decompose(BINARY32, multiplier_bits)
    if kind is not Kind.FINITE or negative or significand == 0:
        raise ValueError(f"affine_quant multiplier {multiplier_bits:#010x} must be finite and > 0")
    return significand, exponent


def _quant_output(st) -> StorageType:
    st = storage_type(st)
    if st not in QUANT_OUTPUTS:
        raise ValueError(f"affine_quant does not write {st.name}")
    return st


def _check_zero_point(zero_point: int, st: StorageType) -> int:
    if isinstance(zero_point, bool) or not st.contains(int(zero_point)):
        raise ValueError(f"zero point {zero_point!r} outside {st.name}'s range [{st.lo}, {st.hi}]")
    return int(zero_point)


def _product(fmt: Format, bits: int, m_significand: int, m_exponent: int) -> Tuple[str, int, int]:
    """Steps 1-2: ("nan", 0, 0), ("inf", sign, 0) or ("finite", signed
    significand, exponent) of the binary32 product."""
    kind, negative, significand, exponent = decompose(fmt, bits)
    if kind is Kind.NAN:
        return "nan", 0, 0
    if kind is Kind.INFINITE:
        return "inf", -1 if negative else 1, 0
    # One rounding of the exact product to binary32 (nearest-even, gradual
    # underflow, overflow to infinity); a zero input gives a zero product.
    p = round_scaled(BINARY32, negative, significand * m_significand, exponent + m_exponent, sign_of_zero=negative)
    p_kind, p_negative, p_significand, p_exponent = decompose(BINARY32, p)
    if p_kind is Kind.INFINITE:
        return "inf", -1 if p_negative else 1, 0
    return "finite", -p_significand if p_negative else p_significand, p_exponent


def _integer(product: Tuple[str, int, int], mode: str) -> Optional[int]:
    """Step 3 on a product: the exact integer, 0 for NaN (the result is then
    the zero point), None for an infinity (saturation by its sign)."""
    what, a, b = product
    if what == "nan":
        return 0
    if what == "inf":
        return None
    if b >= 0:
        return a << b
    return round_to_integer(a, 1 << -b, mode)


def quant_integer(bits: int, fmt: Format, multiplier_bits: int, rounding="nearest_even") -> Union[int, str]:
    """Steps 1-3 of one input encoding: the integer before the zero point is
    added (0 for NaN and zeros), or ``"+inf"`` / ``"-inf"`` when the input
    or the binary32 product is infinite."""
    mode = rounding_name(rounding)
    product = _product(fmt, bits, *_multiplier(multiplier_bits))
    integer = _integer(product, mode)
    if integer is None:
        return "+inf" if product[1] > 0 else "-inf"
    return integer


def _finish(product: Tuple[str, int, int], mode: str, zero_point: int, st: StorageType) -> int:
    integer = _integer(product, mode)
    if integer is None:                       # saturate by sign
        return st.hi if product[1] > 0 else st.lo
    return saturate(integer + zero_point, st.lo, st.hi)   # steps 4-5


def affine_quant(bits: int, fmt: Format, multiplier_bits: int, zero_point: int = 0, rounding="nearest_even",
                 storage="int8") -> int:
    """The value affine_quant stores for one input encoding ``bits`` of
    ``fmt`` (BINARY32, BFLOAT16, BINARY16), a binary32 multiplier (finite,
    > 0), a zero point in the output type's range, a rounding mode and an
    output storage type (one of :data:`.storage.QUANT_OUTPUTS`).

    int4, multiplier 1, zero point 0: 7.5 gives 7 whatever the mode rounds
    to (8 saturates); -8.5 nearest-even gives -8; uint2 with zero point 3:
    -1.0 gives 2, 1.0 gives 3 (4 saturates)."""
    st = _quant_output(storage)
    zero_point = _check_zero_point(zero_point, st)
    mode = rounding_name(rounding)
    return _finish(_product(fmt, bits, *_multiplier(multiplier_bits)), mode, zero_point, st)


def affine_quant_many(bits_values, fmt: Format, multiplier_bits: int, zero_point: int = 0,
                      rounding="nearest_even", storage="int8") -> List[int]:
    """:func:`affine_quant` of every encoding in an iterable."""
    st = _quant_output(storage)
    zero_point = _check_zero_point(zero_point, st)
    mode = rounding_name(rounding)
    m = _multiplier(multiplier_bits)
    return [_finish(_product(fmt, int(b), *m), mode, zero_point, st) for b in bits_values]


@lru_cache(maxsize=16)
def _products16(fmt: Format, multiplier_bits: int) -> Tuple[Tuple[str, int, int], ...]:
    m = _multiplier(multiplier_bits)
    return tuple(_product(fmt, b, *m) for b in range(1 << fmt.width))


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@lru_cache(maxsize=64)
def _integer_table(fmt: Format, multiplier_bits: int, mode: str) -> np.ndarray:
    out = np.empty(1 << fmt.width, dtype=np.int64)
    for b, product in enumerate(_products16(fmt, multiplier_bits)):
        integer = _integer(product, mode)
        if integer is None:
            integer = BEYOND * product[1]
        out[b] = saturate(integer, -BEYOND, BEYOND)
    return _frozen(out)


def quant_integer_table(fmt: Format, multiplier_bits: int, rounding="nearest_even") -> np.ndarray:
    """Step 3's integer for every pattern of a 16-bit format (BFLOAT16 or
    BINARY16), indexed by the pattern: 0 for NaN and zeros, +-:data:`BEYOND`
    for infinities, integers clipped to [-BEYOND, BEYOND] (read-only int64,
    cached)."""
    if fmt not in (BFLOAT16, BINARY16):
        raise ValueError("quant_integer_table covers the 16-bit input formats")
    return _integer_table(fmt, multiplier_bits, rounding_name(rounding))


def quant_integers(patterns, fmt: Format, multiplier_bits: int, rounding="nearest_even") -> np.ndarray:
    """Step 3's integer for every encoding in ``patterns`` (any integer
    array or iterable): an int64 array of its shape, NaN and zeros 0,
    infinities +-:data:`BEYOND`, integers clipped to [-BEYOND, BEYOND]
    (each distinct pattern evaluated once)."""
    mode = rounding_name(rounding)
    m = _multiplier(multiplier_bits)
    patterns = np.asarray(patterns)
    unique, inverse = np.unique(patterns.reshape(-1).astype(np.int64), return_inverse=True)
    values = np.empty(unique.size, dtype=np.int64)
    for k, b in enumerate(unique.tolist()):
        product = _product(fmt, b, *m)
        integer = _integer(product, mode)
        values[k] = saturate(BEYOND * product[1] if integer is None else integer, -BEYOND, BEYOND)
    return values[inverse.reshape(-1)].reshape(patterns.shape)


def saturate_integers(integers, zero_point: int, storage) -> np.ndarray:
    """Steps 4-5 on step 3's integers as :func:`quant_integers` gives them:
    the zero point added (in int64: |integer| <= 2^40), then saturation to
    the output type's range."""
    st = _quant_output(storage)
    zero_point = _check_zero_point(zero_point, st)
    integers = np.asarray(integers, dtype=np.int64)
    if integers.size and np.abs(integers).max() > BEYOND:
        raise ValueError("integers beyond +-BEYOND: pass them through quant_integers")
    return np.clip(integers + zero_point, st.lo, st.hi)


@lru_cache(maxsize=128)
def _quant_table(fmt: Format, multiplier_bits: int, zero_point: int, mode: str, st: StorageType) -> np.ndarray:
    return _frozen(saturate_integers(_integer_table(fmt, multiplier_bits, mode), zero_point, st))


def affine_quant_table(fmt: Format, multiplier_bits: int, zero_point: int = 0, rounding="nearest_even",
                       storage="int8") -> np.ndarray:
    """:func:`affine_quant` for every pattern of a 16-bit format, indexed by
    the pattern: read-only int64 values (cached)."""
    st = _quant_output(storage)
    zero_point = _check_zero_point(zero_point, st)
    if fmt not in (BFLOAT16, BINARY16):
        raise ValueError("affine_quant_table covers the 16-bit input formats; use affine_quant_many for FP32")
    _multiplier(multiplier_bits)
    return _quant_table(fmt, multiplier_bits, zero_point, rounding_name(rounding), st)


# ---------------------------------------------------------------- dequant


def _scale(scale_bits: int) -> Tuple[bool, int, int]:
    kind, negative, significand, exponent = decompose(BINARY32, scale_bits)
    if kind is not Kind.FINITE or significand == 0:
        raise ValueError(f"affine_dequant scale {scale_bits:#010x} must be finite and non-zero")
    return negative, significand, exponent


def int32_difference(q: int, zero_point: int) -> int:
    """q - zero_point in signed 32-bit arithmetic: the representative of
    the exact difference modulo 2^32 in [-2^31, 2^31)."""
    r = (q - zero_point) % (1 << 32)
    return r - (1 << 32) if r >= 1 << 31 else r


def _dequant(q: int, scale: Tuple[bool, int, int], zero_point: int) -> int:
    difference = int32_difference(q, zero_point)
    # binary32 of an integer, nearest-even; a zero difference is +0.
    f = round_to_format(BINARY32, difference, sign_of_zero=False)
    _, f_negative, f_significand, f_exponent = decompose(BINARY32, f)
    s_negative, s_significand, s_exponent = scale
    # The binary32 product: its sign is the exclusive or of the operands'
    # (+0 times a negative scale is -0); one nearest-even rounding.
    negative = f_negative != s_negative
    return round_scaled(BINARY32, negative, f_significand * s_significand, f_exponent + s_exponent,
                        sign_of_zero=negative)


def _check_value(q: int, st: StorageType) -> int:
    if isinstance(q, bool) or not st.contains(int(q)):
        raise ValueError(f"{q!r} is not a {st.name} value")
    return int(q)


def affine_dequant_f32(q: int, storage, scale_bits: int, zero_point: int = 0) -> int:
    """FP32 bits of affine_dequant for a stored value ``q`` of a storage type
    (any of the ten), binary32 scale bits (finite, non-zero, either sign) and
    a zero point in the type's range.

    int32 q = -2^31, zero point 1: the difference wraps to 2^31 - 1, which
    converts to 2^31; uint32 q = 2^32 - 1, zero point 0: the difference is
    -1."""
    st = storage_type(storage)
    return _dequant(_check_value(q, st), _scale(scale_bits), _check_zero_point(zero_point, st))


def affine_dequant_bf16(q: int, storage, scale_bits: int, zero_point: int = 0) -> int:
    """BF16 bits: the FP32 result narrowed by Cast's rule (no NaN arises)."""
    bits32 = affine_dequant_f32(q, storage, scale_bits, zero_point)
    assert decompose(BINARY32, bits32)[0] is not Kind.NAN
    return f32_to_bf16(bits32)


def affine_dequant(q: int, storage, scale_bits: int, zero_point: int = 0, output: str = "float32") -> int:
    """:func:`affine_dequant_f32` or :func:`affine_dequant_bf16` by ``output``."""
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}")
    fn = affine_dequant_f32 if output == "float32" else affine_dequant_bf16
    return fn(q, storage, scale_bits, zero_point)


def affine_dequant_many(values, storage, scale_bits: int, zero_point: int = 0, output: str = "float32") -> List[int]:
    """:func:`affine_dequant` of every stored value in an iterable."""
    st = storage_type(storage)
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}")
    scale = _scale(scale_bits)
    zero_point = _check_zero_point(zero_point, st)
    out = [_dequant(_check_value(q, st), scale, zero_point) for q in values]
    return out if output == "float32" else [f32_to_bf16(b) for b in out]


@lru_cache(maxsize=128)
def _dequant_table(st: StorageType, scale_bits: int, zero_point: int, output: str) -> np.ndarray:
    if output == "bfloat16":   # Cast's rule on each FP32 result
        f32 = _dequant_table(st, scale_bits, zero_point, "float32").tolist()
        return _frozen(np.array([f32_to_bf16(b) for b in f32], dtype=np.uint16))
    scale = _scale(scale_bits)
    patterns = range(1 << st.bits)
    values = [p - (1 << st.bits) if st.signed and p >> (st.bits - 1) else p for p in patterns]
    return _frozen(np.array([_dequant(q, scale, zero_point) for q in values], dtype=np.uint32))


def affine_dequant_table(storage, scale_bits: int, zero_point: int = 0, output: str = "float32") -> np.ndarray:
    """:func:`affine_dequant` of every value of a type of at most 16 bits,
    indexed by its ``bits``-bit pattern (``value mod 2^bits``): read-only
    uint32 (FP32 bits) or uint16 (BF16 bits), cached."""
    st = storage_type(storage)
    if st.bits > 16:
        raise ValueError(f"{st.name} has too many values for a table; use affine_dequant_many")
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}")
    _scale(scale_bits)
    return _dequant_table(st, scale_bits, _check_zero_point(zero_point, st), output)


# ------------------------------------------------- per-axis and blocked

Pairs = Tuple[Tuple[int, int], ...]
ZeroPoints = Union[int, Sequence[int], np.ndarray]


def _groups(params: Pairs, entries: np.ndarray) -> Tuple[List[Tuple[int, int]], np.ndarray]:
    """(distinct parameter pairs, every element's index among them)."""
    distinct = sorted(set(params))
    index = {p: g for g, p in enumerate(distinct)}
    of_entry = np.array([index[p] for p in params], dtype=np.int64)
    entries = np.asarray(entries, dtype=np.int64)
    if entries.size and (entries.min() < 0 or entries.max() >= len(params)):
        raise ValueError(f"{len(params)} parameter pairs, but an element takes pair {int(entries.max())}")
    return distinct, (of_entry[entries] if entries.size else np.zeros(entries.shape, np.int64))


def _values_of(q, st: StorageType) -> np.ndarray:
    q = np.asarray(q).astype(np.int64)
    if q.size and (q.min() < st.lo or q.max() > st.hi):
        raise ValueError(f"a value outside {st.name}'s range")
    return q


def affine_dequant_entries(q, storage, entries: np.ndarray, params: Pairs, output: str = "float32") -> np.ndarray:
    """affine_dequant of stored values ``q`` (any integer array of the
    values, in logical shape) where element ``e`` takes the pair (scale bits,
    zero point) ``params[entries[e]]``: uint32 FP32 bits or uint16 BF16 bits
    of ``q``'s shape.  Groups of more than 256 elements per pair (types of
    up to 8 bits) or 4,096 (16-bit types) look results up in whole-type
    tables; the others evaluate each distinct value once."""
    st = storage_type(storage)
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}")
    q = _values_of(q, st)
    word = np.uint32 if output == "float32" else np.uint16
    distinct, groups = _groups(params, entries)
    out = np.zeros(q.shape, dtype=word)
    if not distinct or q.size == 0:
        return out
    flat_q, flat_g, flat_out = q.reshape(-1), groups.reshape(-1), out.reshape(-1)
    for g, (s, z) in enumerate(distinct):
        where = np.flatnonzero(flat_g == g)
        if not where.size:
            continue
        if (st.bits <= 8 and where.size > 256) or (st.bits <= 16 and where.size > 4096):
            flat_out[where] = affine_dequant_table(st, s, z, output)[flat_q[where] % (1 << st.bits)]
        else:
            unique, inverse = np.unique(flat_q[where], return_inverse=True)
            results = np.array(affine_dequant_many(unique.tolist(), st, s, z, output), dtype=word)
            flat_out[where] = results[inverse.reshape(-1)]
    return flat_out.reshape(q.shape)


def affine_dequant_axis(q, storage, axis: int, scale_bits: Sequence[int], zero_points: ZeroPoints = 0,
                        output: str = "float32") -> np.ndarray:
    """Per-axis affine_dequant: channel ``c`` (the index along ``axis``)
    takes ``scale_bits[c]`` and its zero point (one shared or one per
    channel)."""
    st = storage_type(storage)
    q = np.asarray(q)
    a = normalize_axis(axis, q.ndim)
    params = channel_params(scale_bits, zero_points, st.lo, st.hi)
    if len(params) != q.shape[a]:
        raise ValueError(f"{len(params)} scales for an axis of {q.shape[a]}")
    return affine_dequant_entries(q, st, channel_of(q.shape, a), params, output)


def affine_dequant_blocked(q, storage, axis: int, block_size: int, scale_bits: np.ndarray,
                           zero_points: ZeroPoints = 0, output: str = "float32") -> np.ndarray:
    """Blocked affine_dequant: element ``i`` takes the parameters at ``i``
    with ``i[axis] // block_size`` in place of ``i[axis]``; ``scale_bits``
    (and an array of ``zero_points``) have the parameter shape."""
    st = storage_type(storage)
    q = np.asarray(q)
    entries, pairs = _blocked_pairs(q.shape, axis, block_size, scale_bits, zero_points, st.lo, st.hi)
    return affine_dequant_entries(q, st, entries, pairs, output)


def affine_quant_entries(x, fmt: Format, storage, entries: np.ndarray, params: Pairs,
                         rounding="nearest_even") -> np.ndarray:
    """affine_quant of input patterns ``x`` (encodings of ``fmt`` in logical
    shape) where element ``e`` takes the pair (multiplier bits, zero point)
    ``params[entries[e]]``: the stored values (int64) of ``x``'s shape.
    16-bit inputs of more than 4,096 elements per pair look results up in
    whole-format tables; the others evaluate each distinct pattern once."""
    st = _quant_output(storage)
    mode = rounding_name(rounding)
    x = np.asarray(x)
    for _, z in params:
        _check_zero_point(z, st)
    distinct, groups = _groups(params, entries)
    out = np.zeros(x.shape, dtype=np.int64)
    if not distinct or x.size == 0:
        return out
    if fmt not in (BINARY32, BFLOAT16, BINARY16):
        raise ValueError(f"unknown input format {fmt!r}")
    flat_x = x.astype(np.uint32 if fmt is BINARY32 else np.uint16).reshape(-1)
    flat_g, flat_out = groups.reshape(-1), out.reshape(-1)
    for g, (m, z) in enumerate(distinct):
        where = np.flatnonzero(flat_g == g)
        if not where.size:
            continue
        if fmt is not BINARY32 and where.size > 4096:
            flat_out[where] = affine_quant_table(fmt, m, z, mode, st)[flat_x[where]]
        else:
            unique, inverse = np.unique(flat_x[where], return_inverse=True)
            results = np.array(affine_quant_many(unique.tolist(), fmt, m, z, mode, st), dtype=np.int64)
            flat_out[where] = results[inverse.reshape(-1)]
    return flat_out.reshape(x.shape)


def affine_quant_axis(x, fmt: Format, storage, axis: int, multiplier_bits: Sequence[int],
                      zero_points: ZeroPoints = 0, rounding="nearest_even") -> np.ndarray:
    """Per-axis affine_quant (channel ``c`` takes ``multiplier_bits[c]`` and
    its zero point)."""
    st = _quant_output(storage)
    x = np.asarray(x)
    a = normalize_axis(axis, x.ndim)
    params = channel_params(multiplier_bits, zero_points, st.lo, st.hi)
    if len(params) != x.shape[a]:
        raise ValueError(f"{len(params)} multipliers for an axis of {x.shape[a]}")
    return affine_quant_entries(x, fmt, st, channel_of(x.shape, a), params, rounding)


def affine_quant_blocked(x, fmt: Format, storage, axis: int, block_size: int, multiplier_bits: np.ndarray,
                         zero_points: ZeroPoints = 0, rounding="nearest_even") -> np.ndarray:
    """Blocked affine_quant (the blocked index rule of :mod:`.blocked`)."""
    st = _quant_output(storage)
    x = np.asarray(x)
    entries, pairs = _blocked_pairs(x.shape, axis, block_size, multiplier_bits, zero_points, st.lo, st.hi)
    return affine_quant_entries(x, fmt, st, entries, pairs, rounding)
