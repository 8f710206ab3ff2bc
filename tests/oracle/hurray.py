"""Expected FP32 bits of the Hurray per-tensor affine dequantization formula.

Specification (Hurray, "Dequantization Formula"): "x_real = scale * (q -
zero_point). The subtraction q - zero_point is performed in signed 32-bit
integer arithmetic. The result is then cast to float32 and multiplied by scale
in float32 arithmetic." The scale "MUST be a finite, non-zero value" (it may
be negative).
"""

from __future__ import annotations

from .dequant import int32_to_binary32, multiply_binary32
from .formats import BINARY32, Kind, decompose
from .integers import wrap_signed

__all__ = ["hurray_dequant", "hurray_difference"]


def hurray_difference(q: int, zero_point: int) -> int:
    """``q - zero_point`` in signed 32-bit two's-complement arithmetic.

    ``q`` is the stored element's value (any storage type; a uint32 element
    above 2**31 - 1 takes part through its 32-bit pattern, which the
    wrap-around makes equivalent).
    """
    return wrap_signed(q - zero_point, 32)


def hurray_dequant(q: int, scale_bits: int, zero_point: int = 0) -> int:
    """FP32 encoding of ``float32(int32(q - zero_point)) * scale``.

    The INT32 -> FP32 conversion and the product each round to binary32
    nearest-even; a zero difference converts to +0, so the result is +0 for a
    positive scale and -0 for a negative one.
    """
    kind, _, significand, _ = decompose(BINARY32, scale_bits)
    if kind is not Kind.FINITE or significand == 0:
        raise ValueError(f"Hurray scale {scale_bits:#010x} must be finite and non-zero")
    difference_bits = int32_to_binary32(hurray_difference(q, zero_point))
    return multiply_binary32(difference_bits, scale_bits)
