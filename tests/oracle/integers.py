"""Exact rounding of rationals to integers, two's-complement wrapping, saturation.

These are the integer steps of the Quant "Ordered numerical implementation"
(step 3: "Round that binary32 result to an integer using the selected rounding
mode"; steps 4-5: add the zero point "in a wider integer representation", then
"Saturate to [-128, 127]") and of the Hurray formula ("The subtraction
q - zero_point is performed in signed 32-bit integer arithmetic").
"""

from __future__ import annotations

from fractions import Fraction

__all__ = [
    "ROUNDING_MODES",
    "rounding_name",
    "round_to_integer",
    "round_fraction",
    "wrap_signed",
    "saturate",
]

ROUNDING_MODES = ("nearest_even", "toward_zero", "toward_positive", "toward_negative")


def rounding_name(mode) -> str:
    """Normalise a rounding mode: one of :data:`ROUNDING_MODES`, any case, or an
    enum member whose ``.name`` is one of them (e.g. ``NEAREST_EVEN``)."""
    name = getattr(mode, "name", mode)
    if not isinstance(name, str) or name.lower() not in ROUNDING_MODES:
        raise ValueError(f"unknown rounding mode {mode!r}; expected one of {ROUNDING_MODES}")
    return name.lower()


def round_to_integer(num: int, den: int, mode) -> int:
    """Round the exact rational ``num / den`` (``den > 0``) to an integer.

    * ``nearest_even``: the nearest integer; an exact half goes to the even one.
    * ``toward_zero``: drop the fraction (truncate).
    * ``toward_positive``: the smallest integer >= num/den (ceiling).
    * ``toward_negative``: the largest integer <= num/den (floor).
    """
    mode = rounding_name(mode)
    if den <= 0:
        raise ValueError("den must be positive")
    floor = num // den  # Python integer division floors
    remainder = num - floor * den  # 0 <= remainder < den
    if mode == "toward_negative":
        return floor
    if mode == "toward_positive":
        return floor + (remainder != 0)
    if mode == "toward_zero":
        return floor if num >= 0 else floor + (remainder != 0)
    twice = 2 * remainder
    if twice < den:
        return floor
    if twice > den:
        return floor + 1
    return floor + (floor & 1)  # exact half: step to the even neighbour


def round_fraction(x, mode) -> int:
    """:func:`round_to_integer` for a :class:`fractions.Fraction` (or int)."""
    x = Fraction(x)
    return round_to_integer(x.numerator, x.denominator, mode)


def wrap_signed(value: int, bits: int) -> int:
    """Reduce ``value`` modulo ``2**bits`` into ``[-2**(bits-1), 2**(bits-1))``."""
    modulus = 1 << bits
    value %= modulus
    return value - modulus if value >= modulus >> 1 else value


def saturate(value: int, low: int, high: int) -> int:
    """Clamp ``value`` to ``[low, high]``."""
    return low if value < low else high if value > high else value
