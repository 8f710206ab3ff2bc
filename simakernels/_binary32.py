"""binary32 parameters held by their representation bits.  Conversions here
use integer arithmetic only, so validation, route selection and plan caching
never depend on the caller's FP modes (rounding, flush-to-zero, traps)."""
from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np

_EMIN, _PRECISION = -126, 24          # binary32: normal exponent range, significand bits


def _round_to_bits(x: float) -> int:
    """Exact nearest-even rounding of a double to binary32 bits, with
    gradual underflow and overflow to infinity, from its integer ratio."""
    sign = 0x80000000 if math.copysign(1.0, x) < 0 else 0
    if math.isnan(x):
        return sign | 0x7FC00000
    if math.isinf(x):
        return sign | 0x7F800000
    num, den = abs(x).as_integer_ratio()  # exact; den is a power of two
    return ratio_bits(sign, num, den)


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
    """The binary32 bits of ``value`` rounded nearest-even (what
    ``numpy.float32(value)`` gives in the default FP environment).  A NumPy
    binary32 value keeps its bits; an overflowing value becomes infinity and
    is rejected by admission, not here."""
    if isinstance(value, np.float32):
        return int(np.array(value).view(np.uint32))
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype == np.float32:
        return int(value.view(np.uint32))
    try:
        return _round_to_bits(float(value))
    except OverflowError:            # an int beyond the double range
        return (0x80000000 if value < 0 else 0) | 0x7F800000


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


def is_finite_positive(bits: int) -> bool:
    """Finite and > 0: sign clear, exponent not all ones, not +0.  Subnormals
    qualify."""
    return bits >> 31 == 0 and (bits >> 23) & 0xFF != 0xFF and bits != 0
