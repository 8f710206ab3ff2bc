"""Expected parameters of ``sk.choose_qparams`` (docs/qparams.md, "The rule").

Written from the page, not from the package: exact rationals
(:class:`fractions.Fraction`) and this oracle's own nearest-even rounding
(:func:`.formats.round_to_format`), no floating-point operation.

The levels ``L .. H`` are the storage type's range (API.md, "Integer formats
beyond INT8": a signed type of b bits holds -2^(b-1) .. 2^(b-1) - 1, an
unsigned one 0 .. 2^b - 1; INT8, the default, -128 .. 127).

1. The range: the least and greatest finite values, 0 included (NaN and
   infinities left out).
2. The first scale: ``(hi - lo) / (H - L - 1)`` (asymmetric; INT8: 254) or
   ``max(-lo, hi) / (2^(b-1) - 1)`` (symmetric, signed types only; INT8:
   127), rounded to binary32 nearest-even; 1.0 for an empty range; never
   below the least binary32 whose reciprocal is a finite binary32.
3. The multiplier: ``fl32(1 / scale)``.
4. The check: ``a = floor(fl32(lo * multiplier))``, ``b =
   ceil(fl32(hi * multiplier))``; asymmetric needs ``b - a <= H - L``
   (INT8: 255; zero point ``L - a``), symmetric ``-(2^(b-1) - 1) <= a`` and
   ``b <= 2^(b-1) - 1`` (zero point 0); while it fails, the scale goes up
   one binary32 step.

:func:`quantized` is Quant's order before any saturation (the binary32
product, the integer of a rounding mode, plus the zero point), for
checking the guarantees on a type's levels without a kernel for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Iterable, Tuple

from .formats import BINARY32, Format, Kind, decode, decompose, round_ratio, round_scaled, round_to_format, value_of
from .integers import round_to_integer, rounding_name

__all__ = ["Chosen", "INT8_LEVELS", "ONE_BITS", "STORAGE", "choose", "choose_keys", "finite_range", "key_value",
           "least_scale_bits", "levels", "quantized", "storage_levels"]

ONE_BITS = 0x3F800000  # binary32 1.0
# The storage types whose levels the rule chooses for: (bits, signed), from
# API.md's list (INT32 and UINT32 are not quantization outputs).
STORAGE = {"int8": (8, True), "uint8": (8, False), "int16": (16, True), "uint16": (16, False),
           "int4": (4, True), "uint4": (4, False), "int2": (2, True), "uint2": (2, False)}


def levels(bits: int, signed: bool) -> Tuple[int, int]:
    """(L, H): the range of a storage type of ``bits`` bits."""
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def storage_levels(name: str) -> Tuple[int, int]:
    """(L, H) of a storage type by name (``"uint4"``)."""
    return levels(*STORAGE[name])


INT8_LEVELS = levels(8, True)  # (-128, 127)
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


def _divisor(symmetric: bool, levels: Tuple[int, int]) -> int:
    """The first scale's divisor for the levels (L, H): symmetric 2^(b-1) - 1
    (= H of a signed type), asymmetric H - L - 1."""
    low, high = levels
    if symmetric:
        if low != -high - 1:
            raise ValueError(f"symmetric levels need a signed type, not {low}..{high}")
        return high
    return high - low - 1


def choose(lo: Fraction, hi: Fraction, symmetric: bool, levels: Tuple[int, int] = INT8_LEVELS) -> Chosen:
    """The parameters of the exact range ``lo <= 0 <= hi`` (values of a
    binary format: dyadic rationals) for the levels ``(L, H)``."""
    lo, hi = Fraction(lo), Fraction(hi)
    if not lo <= 0 <= hi:
        raise ValueError(f"a range includes 0: lo {lo}, hi {hi}")
    divisor = _divisor(symmetric, levels)
    return _choose(_dyadic(lo), _dyadic(hi), max(-lo, hi) / divisor if symmetric else (hi - lo) / divisor,
                   symmetric, levels)


def _choose(low: Tuple[bool, int, int], high: Tuple[bool, int, int], span: Fraction, symmetric: bool,
            levels: Tuple[int, int]) -> Chosen:
    """:func:`choose` from the ends as (negative, significand, exponent) and
    the exact first span."""
    least, greatest = levels
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
        if symmetric and -greatest <= a and b <= greatest:
            return Chosen(scale, 0, multiplier, steps)
        if not symmetric and b - a <= greatest - least:
            return Chosen(scale, least - a, multiplier, steps)
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


def choose_keys(fmt: Format, least_key: int, greatest_key: int, symmetric: bool,
                levels: Tuple[int, int] = INT8_LEVELS) -> Chosen:
    """:func:`choose` of the range given by its keys in ``fmt``."""
    if not least_key <= 0 <= greatest_key:
        raise ValueError(f"range keys include 0: {least_key}, {greatest_key}")
    low, high = _key_dyadic(fmt, least_key), _key_dyadic(fmt, greatest_key)
    below, above = _magnitude(low), _magnitude(high)  # -lo and hi
    divisor = _divisor(symmetric, levels)
    return _choose(low, high, max(below, above) / divisor if symmetric else (above + below) / divisor, symmetric,
                   levels)


def quantized(x: Fraction, multiplier_bits: int, zero_point: int, rounding="nearest_even") -> int:
    """Quant's order on an exact value of a binary format (a dyadic
    rational), before saturation: ``x * multiplier`` rounded to binary32
    (nearest-even, gradual underflow), rounded to an integer by the mode,
    plus the zero point.  A product beyond the largest binary32 raises."""
    product = _times32(*_dyadic(Fraction(x)), multiplier_bits)
    if not _is_finite32(product):
        raise ValueError(f"{x} times {multiplier_bits:#010x} overflows binary32")
    return _integer(product, rounding_name(rounding)) + zero_point


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
