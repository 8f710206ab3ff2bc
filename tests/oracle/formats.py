"""IEEE-style binary floating-point formats, decoded and rounded exactly.

Everything here is exact rational arithmetic on Python integers: a finite
encoding is ``(-1)**sign * significand * 2**exponent`` with integer
``significand`` and ``exponent``; rounding compares integer remainders. No
floating-point operation is used, so the results do not depend on the host's
FP environment or on the code under test.

Rounding is IEEE 754 roundTiesToEven with gradual underflow (subnormals, whose
quantum is ``2**(1 - bias - fraction_bits)``) and overflow to infinity exactly
when rounding with an unbounded exponent range would give a value above the
largest finite value (IEEE 754-2019, 4.3.1 and 7.4).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "Format",
    "BINARY32",
    "BFLOAT16",
    "BINARY16",
    "FORMATS",
    "Kind",
    "Value",
    "decode",
    "decompose",
    "round_to_format",
    "round_ratio",
    "round_scaled",
    "to_bits",
    "value_of",
    "is_nan",
    "is_inf",
    "is_finite",
    "is_zero",
    "is_subnormal",
    "sign_bit",
    "infinity_bits",
]


@dataclass(frozen=True)
class Format:
    """A binary interchange format: 1 sign bit, exponent field, fraction field.

    ``fraction_bits`` is the number of stored significand bits (the precision
    is ``fraction_bits + 1`` with the implicit leading bit).
    """

    name: str
    exponent_bits: int
    fraction_bits: int
    bias: int

    @property
    def width(self) -> int:
        """Total number of bits of an encoding."""
        return 1 + self.exponent_bits + self.fraction_bits

    @property
    def precision(self) -> int:
        """Significand precision p, including the implicit bit."""
        return self.fraction_bits + 1

    @property
    def emax(self) -> int:
        """Largest unbiased exponent of a finite value."""
        return (1 << self.exponent_bits) - 2 - self.bias

    @property
    def emin(self) -> int:
        """Smallest unbiased exponent of a normal value (also of subnormals' quantum)."""
        return 1 - self.bias

    @property
    def exponent_all_ones(self) -> int:
        """Biased exponent field value of infinities and NaNs."""
        return (1 << self.exponent_bits) - 1

    @property
    def sign_mask(self) -> int:
        return 1 << (self.width - 1)

    @property
    def max_finite(self) -> Fraction:
        """Largest finite magnitude, (2 - 2**-fraction_bits) * 2**emax."""
        return (2 - Fraction(1, 1 << self.fraction_bits)) * Fraction(2) ** self.emax

    @property
    def min_subnormal(self) -> Fraction:
        """Smallest positive magnitude, the subnormal quantum 2**(emin - fraction_bits)."""
        return Fraction(2) ** (self.emin - self.fraction_bits)

    @property
    def min_normal(self) -> Fraction:
        """Smallest positive normal magnitude, 2**emin."""
        return Fraction(2) ** self.emin


BINARY32 = Format("binary32", exponent_bits=8, fraction_bits=23, bias=127)
BFLOAT16 = Format("bfloat16", exponent_bits=8, fraction_bits=7, bias=127)
BINARY16 = Format("binary16", exponent_bits=5, fraction_bits=10, bias=15)

FORMATS = {f.name: f for f in (BINARY32, BFLOAT16, BINARY16)}


class Kind(enum.Enum):
    FINITE = "finite"
    INFINITE = "infinite"
    NAN = "nan"


@dataclass(frozen=True)
class Value:
    """A decoded encoding.

    ``exact`` is the signed exact value of a finite encoding (``None`` for
    infinities and NaNs); ``negative`` is the sign bit, which is what tells
    -0.0 from +0.0. ``bits`` is the original encoding (a NaN keeps its payload).
    """

    kind: Kind
    negative: bool
    exact: Fraction | None
    bits: int

    @property
    def is_nan(self) -> bool:
        return self.kind is Kind.NAN

    @property
    def is_inf(self) -> bool:
        return self.kind is Kind.INFINITE

    @property
    def is_finite(self) -> bool:
        return self.kind is Kind.FINITE

    @property
    def is_zero(self) -> bool:
        return self.kind is Kind.FINITE and self.exact == 0


def _check_bits(fmt: Format, bits: int) -> None:
    if not 0 <= bits < (1 << fmt.width):
        raise ValueError(f"{bits:#x} is not a {fmt.width}-bit {fmt.name} encoding")


def decompose(fmt: Format, bits: int) -> tuple[Kind, bool, int, int]:
    """Split an encoding into ``(kind, negative, significand, exponent)``.

    For a finite encoding the value is ``(-1)**negative * significand *
    2**exponent`` exactly: a normal number has significand ``2**f + fraction``
    and exponent ``biased - bias - f``; a subnormal (biased exponent 0) has
    significand ``fraction`` and exponent ``emin - f``. For infinities and NaNs
    significand and exponent are 0 (a NaN's payload is in ``bits``).
    """
    _check_bits(fmt, bits)
    f = fmt.fraction_bits
    negative = bool(bits >> (fmt.width - 1))
    biased = (bits >> f) & fmt.exponent_all_ones
    fraction = bits & ((1 << f) - 1)
    if biased == fmt.exponent_all_ones:
        return (Kind.NAN if fraction else Kind.INFINITE), negative, 0, 0
    if biased == 0:
        return Kind.FINITE, negative, fraction, fmt.emin - f
    return Kind.FINITE, negative, (1 << f) | fraction, biased - fmt.bias - f


def decode(fmt: Format, bits: int) -> Value:
    """Decode an encoding to an exact :class:`Value` (sign kept for zeros, NaN bits kept)."""
    kind, negative, significand, exponent = decompose(fmt, bits)
    if kind is not Kind.FINITE:
        return Value(kind, negative, None, bits)
    magnitude = Fraction(significand) * Fraction(2) ** exponent
    return Value(kind, negative, -magnitude if negative else magnitude, bits)


def value_of(fmt: Format, bits: int) -> Fraction:
    """Exact value of a finite encoding; raises ``ValueError`` for infinities and NaNs."""
    value = decode(fmt, bits)
    if value.exact is None:
        raise ValueError(f"{fmt.name} {bits:#x} is not finite")
    return value.exact


def infinity_bits(fmt: Format, negative: bool) -> int:
    """Encoding of the infinity of the given sign."""
    return (fmt.sign_mask if negative else 0) | (fmt.exponent_all_ones << fmt.fraction_bits)


def round_ratio(fmt: Format, negative: bool, num: int, den: int) -> int:
    """Encoding nearest to ``(-1)**negative * num / den`` (``num > 0``, ``den > 0``).

    Implements roundTiesToEven: among the representable values (all multiples of
    the quantum ``2**(max(e, emin) - fraction_bits)``, where ``e`` is the
    exponent of the exact value) pick the nearest, and on an exact tie the one
    whose integral significand is even. A nonzero value too small for the
    smallest subnormal rounds to a zero that keeps the sign of the exact value;
    a result above the largest finite value becomes infinity.
    """
    if num <= 0 or den <= 0:
        raise ValueError("round_ratio needs a positive num/den")
    f = fmt.fraction_bits
    # e = floor(log2(num/den)): the bit lengths bound it to one of two values.
    e = num.bit_length() - den.bit_length()
    if (num << -e if e < 0 else num) < (den << e if e > 0 else den):
        e -= 1
    e = max(e, fmt.emin)  # below emin the quantum stays that of the subnormals
    quantum_exponent = e - f
    if quantum_exponent >= 0:
        divisor = den << quantum_exponent
        n, remainder = divmod(num, divisor)
    else:
        divisor = den
        n, remainder = divmod(num << -quantum_exponent, den)
    # n quanta below the exact value; remainder/divisor is the discarded part.
    twice = remainder << 1
    if twice > divisor or (twice == divisor and n & 1):
        n += 1
    sign = fmt.sign_mask if negative else 0
    if n == 0:
        return sign  # underflow to zero keeps the sign of the exact value
    if n >> (f + 1):  # rounded up to 2**(f+1) quanta: the next binade
        n >>= 1
        e += 1
    if n >> f:
        biased = e + fmt.bias
        if biased >= fmt.exponent_all_ones:
            return sign | infinity_bits(fmt, False)
        return sign | (biased << f) | (n - (1 << f))
    return sign | n  # subnormal: e == emin, fewer than 2**f quanta


def round_scaled(
    fmt: Format, negative: bool, significand: int, exponent: int, sign_of_zero: bool | int = False
) -> int:
    """:func:`round_to_format` of ``(-1)**negative * significand * 2**exponent``.

    The integer form of a dyadic rational (what :func:`decompose` returns and
    what products of decoded values are), rounded without building a Fraction.
    A zero ``significand`` gives the zero whose sign bit is ``sign_of_zero``.
    """
    if significand == 0:
        return fmt.sign_mask if sign_of_zero else 0
    if exponent >= 0:
        return round_ratio(fmt, negative, significand << exponent, 1)
    return round_ratio(fmt, negative, significand, 1 << -exponent)


def round_to_format(fmt: Format, x, sign_of_zero: bool | int = False) -> int:
    """Round the exact rational ``x`` to ``fmt`` (nearest, ties to even).

    ``x`` is anything :class:`fractions.Fraction` accepts exactly (int,
    Fraction, decimal string). If ``x`` is exactly zero the result is the zero
    whose sign bit is ``sign_of_zero`` (IEEE leaves the sign of an exact zero
    result to the operation: the caller supplies it). A nonzero ``x`` that
    underflows keeps its own sign.
    """
    x = Fraction(x)
    if x == 0:
        return fmt.sign_mask if sign_of_zero else 0
    return round_ratio(fmt, x < 0, abs(x.numerator), x.denominator)


def to_bits(fmt: Format, x) -> int:
    """Encoding of ``x`` rounded once to ``fmt``.

    Accepts int, Fraction, decimal string or Python float. A float is taken
    at its exact binary64 value (so ``to_bits(BINARY32, 0.1)`` is the single
    nearest-even rounding of that double, like ``numpy.float32(0.1)``);
    ``-0.0`` gives the negative zero and float infinities give infinities.
    NaN has no canonical payload and is rejected.
    """
    if isinstance(x, float):
        if math.isnan(x):
            raise ValueError("to_bits: NaN has no canonical encoding; write the bits")
        if math.isinf(x):
            return infinity_bits(fmt, x < 0)
        return round_to_format(fmt, Fraction(x), math.copysign(1.0, x) < 0)
    return round_to_format(fmt, Fraction(x))


def sign_bit(fmt: Format, bits: int) -> int:
    _check_bits(fmt, bits)
    return bits >> (fmt.width - 1)


def is_nan(fmt: Format, bits: int) -> bool:
    return decompose(fmt, bits)[0] is Kind.NAN


def is_inf(fmt: Format, bits: int) -> bool:
    return decompose(fmt, bits)[0] is Kind.INFINITE


def is_finite(fmt: Format, bits: int) -> bool:
    return decompose(fmt, bits)[0] is Kind.FINITE


def is_zero(fmt: Format, bits: int) -> bool:
    kind, _, significand, _ = decompose(fmt, bits)
    return kind is Kind.FINITE and significand == 0


def is_subnormal(fmt: Format, bits: int) -> bool:
    """Nonzero finite encoding with biased exponent 0."""
    kind, _, significand, _ = decompose(fmt, bits)
    return kind is Kind.FINITE and 0 < significand < (1 << fmt.fraction_bits)
