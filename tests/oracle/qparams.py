"""Expected parameters of ``sk.choose_qparams`` (docs/qparams.md, "The rule").

Written from the page, not from the package: exact rationals
(:class:`fractions.Fraction`) and this oracle's own nearest-even rounding
(:func:`.formats.round_to_format`), no floating-point operation.

1. The range: the least and greatest finite values, 0 included (NaN and
   infinities left out).
2. The first scale: ``(hi - lo) / 254`` (asymmetric) or ``max(-lo, hi) /
   127`` (symmetric), rounded to binary32 nearest-even; 1.0 for an empty
   range; never below the least binary32 whose reciprocal is a finite
   binary32.
3. The multiplier: ``fl32(1 / scale)``.
4. The check: ``a = floor(fl32(lo * multiplier))``, ``b =
   ceil(fl32(hi * multiplier))``; asymmetric needs ``b - a <= 255`` (zero
   point ``-128 - a``), symmetric ``-127 <= a`` and ``b <= 127`` (zero point
   0); while it fails, the scale goes up one binary32 step.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Iterable, Tuple

from .formats import BINARY32, Format, Kind, decode, decompose, round_ratio, round_scaled, round_to_format, value_of
from .integers import round_to_integer

__all__ = ["Chosen", "ONE_BITS", "choose", "choose_keys", "finite_range", "key_value", "least_scale_bits"]

ONE_BITS = 0x3F800000  # binary32 1.0
# The docs promise a few steps at most; a loop that runs longer than this is a
# broken rule, reported rather than waited for.
_STEP_LIMIT = 64


@dataclass(frozen=True)
class Chosen:
    """The rule's result: binary32 bits of the scale and multiplier, the
    zero point, and how many times the check made the scale step up."""

    scale: int
    zero_point: int
    multiplier: int
    steps: int


def _fl32(x: Fraction) -> int:
    """Nearest-even binary32 bits of an exact value (+0 for 0)."""
    return round_to_format(BINARY32, x)


def _is_finite32(bits: int) -> bool:
    return decompose(BINARY32, bits)[0] is Kind.FINITE


def _dyadic(x: Fraction) -> Tuple[bool, int, int]:
    """(negative, significand, exponent) of an exact value whose denominator
    is a power of two (every binary32 value and the range ends)."""
    den = x.denominator
    if den & (den - 1):
        raise ValueError(f"{x} is not a dyadic rational")
    return x < 0, abs(x.numerator), 1 - den.bit_length()


def _times32(negative: bool, significand: int, exponent: int, bits: int) -> int:
    """fl32 of an exact value times a finite binary32 (one rounding)."""
    _, m_negative, m_significand, m_exponent = decompose(BINARY32, bits)
    return round_scaled(BINARY32, negative != m_negative, significand * m_significand, exponent + m_exponent)


def _reciprocal32(bits: int) -> int:
    """fl32(1 / x) of a positive finite binary32: 2^-e / s rounded once."""
    _, _, significand, exponent = decompose(BINARY32, bits)
    return round_ratio(BINARY32, False, 1 << max(0, -exponent), significand << max(0, exponent))


def _integer(bits: int, mode: str) -> int:
    """floor (``toward_negative``) or ceil (``toward_positive``) of a finite
    binary32 value."""
    _, negative, significand, exponent = decompose(BINARY32, bits)
    num = -significand if negative else significand
    if exponent >= 0:
        return num << exponent
    return round_to_integer(num, 1 << -exponent, mode)


@lru_cache(maxsize=None)
def least_scale_bits() -> int:
    """The least positive binary32 whose reciprocal rounds to a finite
    binary32, by bisection over the positive encodings (whose order is
    the values' order)."""
    low, high = 1, 0x7F7FFFFF  # high's reciprocal is finite (tiny)
    while low < high:
        mid = (low + high) // 2
        if _is_finite32(_fl32(1 / value_of(BINARY32, mid))):
            high = mid
        else:
            low = mid + 1
    return low


@lru_cache(maxsize=None)
def _least_scale_value() -> Fraction:
    return value_of(BINARY32, least_scale_bits())


def choose(lo: Fraction, hi: Fraction, symmetric: bool) -> Chosen:
    """The parameters of the exact range ``lo <= 0 <= hi`` (values of a
    binary format: dyadic rationals)."""
    lo, hi = Fraction(lo), Fraction(hi)
    if not lo <= 0 <= hi:
        raise ValueError(f"a range includes 0: lo {lo}, hi {hi}")
    return _choose(_dyadic(lo), _dyadic(hi), max(-lo, hi) / 127 if symmetric else (hi - lo) / 254, symmetric)


def _choose(low: Tuple[bool, int, int], high: Tuple[bool, int, int], span: Fraction, symmetric: bool) -> Chosen:
    """:func:`choose` from the ends as (negative, significand, exponent) and
    the exact first span."""
    if span == 0:
        scale = ONE_BITS
    elif span <= _least_scale_value():  # rounding is monotonic: fl32(span) <= least
        scale = least_scale_bits()
    else:
        scale = _fl32(span)
    for steps in range(_STEP_LIMIT):
        multiplier = _reciprocal32(scale)
        a = _integer(_times32(*low, multiplier), "toward_negative")
        b = _integer(_times32(*high, multiplier), "toward_positive")
        if symmetric and -127 <= a and b <= 127:
            return Chosen(scale, 0, multiplier, steps)
        if not symmetric and b - a <= 255:
            return Chosen(scale, -128 - a, multiplier, steps)
        scale = _next_up(scale)
    raise AssertionError(f"the check still fails after {_STEP_LIMIT} steps: {low}, {high}")


def _next_up(bits: int) -> int:
    """The next binary32 above a positive finite one: the next encoding."""
    up = bits + 1
    if not _is_finite32(up):
        raise AssertionError("the scale stepped to infinity")
    return up


def key_value(fmt: Format, key: int) -> Fraction:
    """The exact value of a sign-magnitude range key: +magnitude or
    -magnitude, the magnitude being the encoding's bits below the sign."""
    value = value_of(fmt, abs(key))
    return -value if key < 0 else value


def choose_keys(fmt: Format, least_key: int, greatest_key: int, symmetric: bool) -> Chosen:
    """:func:`choose` of the range given by its keys in ``fmt``."""
    if not least_key <= 0 <= greatest_key:
        raise ValueError(f"range keys include 0: {least_key}, {greatest_key}")
    low, high = _key_dyadic(fmt, least_key), _key_dyadic(fmt, greatest_key)
    below, above = _magnitude(low), _magnitude(high)  # -lo and hi
    return _choose(low, high, max(below, above) / 127 if symmetric else (above + below) / 254, symmetric)


def _magnitude(value: Tuple[bool, int, int]) -> Fraction:
    _, significand, exponent = value
    return Fraction(significand << max(0, exponent), 1 << max(0, -exponent))


def _key_dyadic(fmt: Format, key: int) -> Tuple[bool, int, int]:
    kind, _, significand, exponent = decompose(fmt, abs(key))
    if kind is not Kind.FINITE:
        raise ValueError(f"range key {key} is not finite in {fmt.name}")
    return key < 0, significand, exponent


def finite_range(fmt: Format, bits: Iterable[int]) -> Tuple[Fraction, Fraction]:
    """(lo, hi) of the finite values among encodings, 0 included."""
    lo = hi = Fraction(0)
    for b in bits:
        value = decode(fmt, int(b))
        if value.kind is Kind.FINITE:
            assert value.exact is not None
            lo, hi = min(lo, value.exact), max(hi, value.exact)
    return lo, hi
