"""Expected INT8 results of the Quant operation (FP32 / BF16 / FP16 -> INT8).

Specification (Quant, "Ordered numerical implementation"):

1. "Interpret the source as its declared floating-point format."
2. "Multiply by the FP32 multiplier, rounding the product to IEEE binary32 with
   round-to-nearest-even and gradual underflow."
3. "Round that binary32 result to an integer using the selected rounding mode."
4. "Add the INT8-range zero point in a wider integer representation."
5. "Saturate to [-128, 127] and store one byte."

"NaNs of either sign and any payload map to the zero point. Positive and
negative infinity saturate by sign. Both signed zeros map to the zero point.
... The integer rounding mode does not change the preceding binary32 rounding."
"""

from __future__ import annotations

from functools import lru_cache

from .formats import BFLOAT16, BINARY16, BINARY32, Format, Kind, decompose, round_scaled
from .integers import round_to_integer, rounding_name, saturate

__all__ = ["quant", "quant_many", "quant_table", "INT8_MIN", "INT8_MAX"]

INT8_MIN, INT8_MAX = -128, 127


def _check_multiplier(multiplier_bits: int) -> tuple[int, int]:
    kind, negative, significand, exponent = decompose(BINARY32, multiplier_bits)
    if kind is not Kind.FINITE or negative or significand == 0:
        raise ValueError(f"Quant multiplier {multiplier_bits:#010x} must be finite and > 0")
    return significand, exponent


def _quant(
    fmt: Format, bits: int, m_significand: int, m_exponent: int, zero_point: int, mode: str
) -> int:
    kind, negative, significand, exponent = decompose(fmt, bits)
    if kind is Kind.NAN:
        return saturate(zero_point, INT8_MIN, INT8_MAX)
    if kind is Kind.INFINITE:
        return INT8_MIN if negative else INT8_MAX
    if significand == 0:  # +0 and -0
        return saturate(zero_point, INT8_MIN, INT8_MAX)
    # Step 2: one binary32 rounding of the exact product (multiplier > 0).
    product = round_scaled(BINARY32, negative, significand * m_significand, exponent + m_exponent)
    p_kind, p_negative, p_significand, p_exponent = decompose(BINARY32, product)
    if p_kind is Kind.INFINITE:
        return INT8_MIN if p_negative else INT8_MAX
    # Step 3: integer rounding of the binary32 value p_significand * 2**p_exponent.
    num = -p_significand if p_negative else p_significand
    if p_exponent >= 0:
        integer = num << p_exponent
    else:
        integer = round_to_integer(num, 1 << -p_exponent, mode)
    # Steps 4-5: unbounded integer addition, then saturation.
    return saturate(integer + zero_point, INT8_MIN, INT8_MAX)


def quant(
    bits: int, fmt: Format, multiplier_bits: int, zero_point: int = 0, rounding="nearest_even"
) -> int:
    """INT8 result of Quant for one input encoding.

    ``bits`` is an encoding in ``fmt`` (:data:`BINARY32`, :data:`BFLOAT16` or
    :data:`BINARY16`); ``multiplier_bits`` a binary32 encoding (finite, > 0,
    subnormals allowed); ``zero_point`` an integer (the API admits
    [-128, 127]); ``rounding`` one of ``nearest_even``, ``toward_zero``,
    ``toward_positive``, ``toward_negative`` (or an enum member so named).

    15.0 times 0x3e99999a rounds to binary32 4.5 first, so nearest-even gives
    4; 200.0 times 1.0 with zero point -100 gives 100 (no clipping before the
    zero point is added).
    """
    mode = rounding_name(rounding)
    m_significand, m_exponent = _check_multiplier(multiplier_bits)
    return _quant(fmt, bits, m_significand, m_exponent, zero_point, mode)


def quant_many(
    bits_values, fmt: Format, multiplier_bits: int, zero_point: int = 0, rounding="nearest_even"
) -> list[int]:
    """:func:`quant` of every encoding in an iterable (e.g. FP32 samples)."""
    mode = rounding_name(rounding)
    m_significand, m_exponent = _check_multiplier(multiplier_bits)
    return [_quant(fmt, int(b), m_significand, m_exponent, zero_point, mode) for b in bits_values]


@lru_cache(maxsize=64)
def _quant_table(fmt: Format, multiplier_bits: int, zero_point: int, mode: str) -> tuple[int, ...]:
    m_significand, m_exponent = _check_multiplier(multiplier_bits)
    return tuple(
        _quant(fmt, b, m_significand, m_exponent, zero_point, mode) for b in range(1 << fmt.width)
    )


def quant_table(
    fmt: Format, multiplier_bits: int, zero_point: int = 0, rounding="nearest_even"
) -> tuple[int, ...]:
    """:func:`quant` for every pattern of a 16-bit format (BF16 or FP16),
    indexed by the pattern; cached."""
    if fmt not in (BFLOAT16, BINARY16):
        raise ValueError("quant_table covers the 16-bit input formats; use quant_many for FP32")
    return _quant_table(fmt, multiplier_bits, zero_point, rounding_name(rounding))
