"""binary32 parameters held by their representation bits.  Conversions here
use integer arithmetic only, so validation, route selection and plan caching
never depend on the caller's FP modes (rounding, flush-to-zero, traps)."""
from __future__ import annotations

import numbers
import struct
import sys
from fractions import Fraction
from typing import Any, Dict, Optional, Tuple

import ml_dtypes
import numpy as np

from .fenv import default_state

_EMIN, _PRECISION = -126, 24          # binary32: normal exponent range, significand bits


def _ieee_bits(bits: int, exponent_bits: int, fraction_bits: int, explicit_one: bool = False,
               top_is_finite: bool = False) -> int:
    """Nearest-even binary32 bits of the value a binary format encodes in
    ``bits`` (sign above the exponent): integer arithmetic only.  NaN gives
    the quiet NaN of its sign.  ``explicit_one``: the significand's leading
    bit is stored (x87 extended); ``top_is_finite``: the all-ones exponent
    holds finite values and only the all-ones magnitude is NaN (float8_e4m3fn)."""
    sign = 0x80000000 if bits >> (exponent_bits + fraction_bits) & 1 else 0
    biased = (bits >> fraction_bits) & ((1 << exponent_bits) - 1)
    fraction = bits & ((1 << fraction_bits) - 1)
    if biased == (1 << exponent_bits) - 1:
        if not top_is_finite:
            nan = fraction & ((1 << (fraction_bits - 1)) - 1) if explicit_one else fraction
            return sign | (0x7FC00000 if nan else 0x7F800000)
        if fraction == (1 << fraction_bits) - 1:
            return sign | 0x7FC00000
    bias = (1 << (exponent_bits - 1)) - 1
    sig = fraction if explicit_one or not biased else fraction | (1 << fraction_bits)
    exponent = max(biased, 1) - bias - fraction_bits + explicit_one  # the stored leading bit is a fraction bit
    return ratio_bits(sign, sig << max(exponent, 0), 1 << max(-exponent, 0))


def _int_bits(value: int) -> int:
    return ratio_bits(0x80000000 if value < 0 else 0, abs(value), 1)


# Binary formats of NumPy and ml_dtypes scalars: (unsigned view, exponent
# bits, fraction bits, explicit leading bit, all-ones exponent finite).
_SCALAR_FORMATS: Dict[np.dtype, Tuple[Any, int, int, bool, bool]] = {
    np.dtype(np.float16): (np.uint16, 5, 10, False, False),
    np.dtype(np.float64): (np.uint64, 11, 52, False, False),
    np.dtype(ml_dtypes.bfloat16): (np.uint16, 8, 7, False, False),
    np.dtype(ml_dtypes.float8_e5m2): (np.uint8, 5, 2, False, False),
    np.dtype(ml_dtypes.float8_e4m3fn): (np.uint8, 4, 3, False, True),
}
# (x87 extended stores its leading significand bit: 64 fraction bits.)
_LONG_DOUBLE = {52: (11, 52, False), 63: (15, 64, True), 112: (15, 112, False)}.get(np.finfo(np.longdouble).nmant)
_DOUBLE = struct.Struct("<d")
_U64 = struct.Struct("<Q")


def _scalar_bits(value: np.generic) -> Optional[int]:
    """Binary32 bits of a NumPy or ml_dtypes floating scalar from its
    representation, or None for a format not known here."""
    form = _SCALAR_FORMATS.get(value.dtype)
    if form is not None:
        view, exponent_bits, fraction_bits, explicit, top_finite = form
        raw = int(np.array(value).view(view))
        return _ieee_bits(raw, exponent_bits, fraction_bits, explicit, top_finite)
    if value.dtype == np.longdouble and _LONG_DOUBLE is not None:
        exponent_bits, fraction_bits, explicit = _LONG_DOUBLE
        width = 1 + exponent_bits + fraction_bits
        raw = int.from_bytes(np.array(value).tobytes(), sys.byteorder) & ((1 << width) - 1)
        return _ieee_bits(raw, exponent_bits, fraction_bits, explicit)
    return None


def fraction_bits(value: Fraction) -> int:
    """Exact nearest-even binary32 bits of a rational (+0 for zero)."""
    return ratio_bits(0x80000000 if value < 0 else 0, abs(value.numerator), value.denominator)


def value_of(bits: int) -> Fraction:
    """The exact value of finite binary32 bits."""
    if (bits >> 23) & 0xFF == 0xFF:
        raise ValueError(f"binary32 bits {bits:#010x} are not finite")
    return magnitude_value(bits & 0x7FFFFFFF, 8, 23) * (-1 if bits >> 31 else 1)


def magnitude_value(magnitude: int, exponent_bits: int, fraction_bits: int) -> Fraction:
    """The exact value of a finite IEEE-style magnitude (the bits below the
    sign) of a binary format with these field widths."""
    biased, fraction = magnitude >> fraction_bits, magnitude & ((1 << fraction_bits) - 1)
    sig = fraction | (1 << fraction_bits) if biased else fraction
    bias = (1 << (exponent_bits - 1)) - 1
    return Fraction(sig) * Fraction(2) ** (max(biased, 1) - bias - fraction_bits)


def ratio_bits(sign: int, num: int, den: int) -> int:
    """``sign`` with the nearest-even binary32 magnitude of num / den
    (num >= 0, den > 0)."""
    if num == 0:
        return sign
    # value = num / den; choose the exponent e of the quantum 2^q so that the
    # significand has 24 bits (or the subnormal quantum 2^-149 is reached).
    e = num.bit_length() - den.bit_length()      # value in [2^(e-1), 2^(e+1))
    if num << max(0, -e) < den << max(0, e):     # value < 2^e
        e -= 1                                    # now value in [2^e, 2^(e+1))
    q = max(e, _EMIN) - (_PRECISION - 1)
    if q >= 0:
        sig, rem_num, rem_den = divmod(num, den << q)[0], num % (den << q), den << q
    else:
        scaled = num << -q
        sig, rem_num, rem_den = scaled // den, scaled % den, den
    if 2 * rem_num > rem_den or (2 * rem_num == rem_den and sig & 1):
        sig += 1
    if sig == 1 << _PRECISION:                    # carried into the next binade
        sig >>= 1
        q += 1
    biased = q + (_PRECISION - 1) + 127 if sig >> (_PRECISION - 1) else 0
    if biased >= 0xFF:
        return sign | 0x7F800000
    return sign | (biased << 23) | (sig & 0x7FFFFF)


# NumPy scalar kinds that hold a real number: signed and unsigned integers
# and floating types; ml_dtypes' floats (bfloat16, ...) have kind "V".
_REAL_KINDS = frozenset("iuf")
_ML_FLOATS = frozenset(np.dtype(t) for t in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2))

#: What the scale and multiplier parameters accept, for messages.
REAL_NUMBER = "a real number (int, float, fractions.Fraction, or a NumPy integer or floating scalar; not bool)"


def is_real(value: Any) -> bool:
    """Whether ``value`` is a real number a binary32 parameter may be taken
    from: a Python int or float (not bool), a ``numbers.Real`` such as
    ``fractions.Fraction``, or a NumPy integer or floating scalar or 0-d
    array (``ml_dtypes.bfloat16`` included).  Strings, bytes, complex
    numbers, None and booleans are not: ``float()`` would accept some of
    them and hide a mistake."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, numbers.Real):
        return True
    if isinstance(value, (np.generic, np.ndarray)) and value.ndim == 0:
        return value.dtype.kind in _REAL_KINDS or value.dtype in _ML_FLOATS
    return False


def bits_of(value: Any) -> int:
    """The binary32 bits of ``value``'s exact value rounded nearest-even
    (what ``numpy.float32(value)`` gives in the default FP environment, but
    without double rounding for integers beyond 2**53), from its
    representation with integer arithmetic only: no FP operation runs, so
    the caller's rounding mode, flush modes and traps change nothing and
    raise nothing.  A NumPy binary32 value keeps its bits; NaN becomes the
    quiet NaN of its sign; an overflowing value becomes infinity (admission
    rejects both)."""
    if isinstance(value, np.ndarray):
        value = value[()]  # a 0-d array's scalar
    if isinstance(value, np.float32):
        return int(np.array(value).view(np.uint32))
    if isinstance(value, (int, np.integer)):
        return _int_bits(int(value))
    if isinstance(value, float):  # Python floats and numpy.float64
        return _ieee_bits(_U64.unpack(_DOUBLE.pack(value))[0], 11, 52)
    if isinstance(value, np.generic):
        bits = _scalar_bits(value)
        if bits is not None:
            return bits
    if isinstance(value, numbers.Rational):  # fractions.Fraction: exact
        num, den = int(value.numerator), int(value.denominator)
        return ratio_bits(0x80000000 if num < 0 else 0, abs(num), den)
    if not isinstance(value, numbers.Real):
        raise TypeError(f"{value!r} is not {REAL_NUMBER}")
    with default_state():  # another numbers.Real: its own float conversion
        double = float(value)
    return _ieee_bits(_U64.unpack(_DOUBLE.pack(double))[0], 11, 52)


def text(bits: int) -> str:
    """``repr`` of the binary32 value as a Python float, for messages: the
    same text under any FP state of the caller."""
    with default_state():
        return repr(float(from_bits(bits)))


def from_bits(bits: int) -> np.float32:
    """A NumPy binary32 scalar with exactly these bits (no FP arithmetic)."""
    # [()] of a 0-d array is its scalar (NumPy's stubs say ndarray); this
    # form is faster than np.uint32(bits).view(np.float32).
    return np.array(bits & 0xFFFFFFFF, dtype=np.uint32).view(np.float32)[()]  # type: ignore[return-value]


def as_int(value: Any) -> Any:
    """Integers (Python or NumPy) as ``int``; anything else unchanged, for
    admission to reject with a message."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        return value
    return value.__index__()


_F64_FRACTION = (1 << 52) - 1


def bits_of_array(values: np.ndarray) -> Optional[np.ndarray]:
    """The binary32 bits (a new uint32 array of ``values``' shape) of a
    NumPy array of binary32, binary64 or integers of magnitude at most
    2**53, rounded nearest-even as :func:`bits_of` rounds each entry,
    with integer arithmetic only (vectorised); None for any other dtype
    or larger integers (the caller converts entry by entry)."""
    if values.dtype == np.float32:
        return np.array(values, np.float32).view(np.uint32)
    if values.dtype.kind in "iu":
        wide = values.astype(np.int64) if values.dtype != np.uint64 else values
        if wide.size and (int(wide.max()) > 1 << 53 or int(wide.min()) < -(1 << 53)):
            return None
        signs = (wide < 0).astype(np.uint64) << np.uint64(63)
        magnitudes = np.abs(wide.astype(np.int64)).astype(np.uint64)
        return _binary64_magnitudes(signs, magnitudes, np.zeros(values.shape, np.int64))
    if values.dtype != np.float64:
        return None
    raw = np.ascontiguousarray(values).view(np.uint64)
    biased = ((raw >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    fraction = raw & np.uint64(_F64_FRACTION)
    significand = np.where(biased > 0, fraction | np.uint64(1 << 52), fraction)
    bits = _binary64_magnitudes(raw & np.uint64(1 << 63), significand, np.maximum(biased, 1) - 1075)
    special = biased == 0x7FF
    bits[special] = ((raw[special] >> np.uint64(32)).astype(np.uint32) & np.uint32(0x80000000)) | np.where(
        fraction[special] != 0, np.uint32(0x7FC00000), np.uint32(0x7F800000))
    return bits


def _binary64_magnitudes(signs: np.ndarray, significands: np.ndarray, exponents: np.ndarray) -> np.ndarray:
    """``sign | nearest-even binary32(significand * 2**exponent)`` for
    significands below 2**54 (uint64, int64 exponents), the signs in bit
    63 of ``signs``; integer operations only."""
    one = np.uint64(1)
    width = np.zeros(significands.shape, np.int64)          # floor(log2(significand)), by bisection
    for step in (32, 16, 8, 4, 2, 1):
        wider = significands >= (one << (width + step).astype(np.uint64))
        width += np.where(wider, step, 0)
    top = width + exponents                                  # the value lies in [2**top, 2**(top + 1))
    highest = np.maximum(top, _EMIN)
    shift = np.minimum(highest - (_PRECISION - 1) - exponents, 55)  # to binary32's quantum; from 55 on all is lost
    right = np.maximum(shift, 0).astype(np.uint64)
    kept = (significands >> right) << np.maximum(-shift, 0).astype(np.uint64)
    lost = significands & ((one << right) - one)
    half = np.where(shift > 0, one << (np.maximum(shift, 1) - 1).astype(np.uint64), np.uint64(0))
    up = (shift > 0) & ((lost > half) | ((lost == half) & ((kept & one) == one)))
    magnitude = ((highest + 126).astype(np.uint64) << np.uint64(23)) + kept + up.astype(np.uint64)
    magnitude = np.where(significands == 0, np.uint64(0), np.minimum(magnitude, np.uint64(0x7F800000)))
    return ((signs >> np.uint64(32)) | magnitude).astype(np.uint32)
