"""Expected bits of the Dequant operation (INT8 -> FP32 / BF16).

Specification (Dequant, "Numerical behavior"): "The reference operation order
is: zp = static_cast<float>(zero_point); difference =
static_cast<float>(input_int8) - zp; result = difference * scale. Each step
rounds to binary32 nearest-even." and "For BF16 output, narrow the rounded
FP32 result to nearest-even ... This preserves signed zero and overflow to
infinity ... BF16 subnormals are not flushed. Do not narrow the scale or
intermediate difference to BF16."

Each step here is an exact rational followed by one binary32 rounding; the
BF16 narrowing rounds the FP32 value (not its bits) to BF16.
"""

from __future__ import annotations

from functools import lru_cache

from .cast import f32_to_bf16
from .formats import BINARY32, Kind, decompose, round_scaled, round_to_format, value_of

__all__ = [
    "dequant_f32",
    "dequant_bf16",
    "dequant_f32_table",
    "dequant_bf16_table",
    "int32_to_binary32",
    "multiply_binary32",
]

INT8_RANGE = range(-128, 128)
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def int32_to_binary32(value: int) -> int:
    """``static_cast<float>(value)``: nearest-even binary32 encoding of an integer
    (zero converts to +0)."""
    return round_to_format(BINARY32, value, sign_of_zero=False)


def multiply_binary32(a_bits: int, b_bits: int) -> int:
    """IEEE binary32 product of two finite encodings, rounded nearest-even.

    The exact product's sign is the exclusive or of the operand signs, also
    for a zero product; a nonzero product that underflows keeps that sign.
    """
    ka, na, sa, ea = decompose(BINARY32, a_bits)
    kb, nb, sb, eb = decompose(BINARY32, b_bits)
    if ka is not Kind.FINITE or kb is not Kind.FINITE:
        raise ValueError("multiply_binary32 takes finite operands")
    negative = na != nb
    return round_scaled(BINARY32, negative, sa * sb, ea + eb, sign_of_zero=negative)


def _check_scale(scale_bits: int) -> None:
    kind, negative, significand, _ = decompose(BINARY32, scale_bits)
    if kind is not Kind.FINITE or negative or significand == 0:
        raise ValueError(f"Dequant scale {scale_bits:#010x} must be finite and > 0")


def _check_args(q: int, zero_point: int) -> None:
    if q not in INT8_RANGE:
        raise ValueError(f"Dequant input {q} is not an INT8 value")
    if not INT32_MIN <= zero_point <= INT32_MAX:
        raise ValueError(f"Dequant zero point {zero_point} does not fit INT32")


def _staged(q: int, scale_bits: int, zero_point: int) -> int:
    zp_bits = int32_to_binary32(zero_point)
    # zp is an integer-valued binary32 (|zero_point| < 2**31), so q - zp is an
    # exact integer; it is zero only when q equals the *rounded* zero point,
    # and x - x is +0 under round-to-nearest.
    zp = value_of(BINARY32, zp_bits)
    difference_bits = round_to_format(BINARY32, q - zp, sign_of_zero=False)
    return multiply_binary32(difference_bits, scale_bits)


def dequant_f32(q: int, scale_bits: int, zero_point: int = 0) -> int:
    """FP32 encoding of Dequant for INT8 input ``q``, binary32 scale encoding
    ``scale_bits`` (finite, > 0) and INT32 ``zero_point``.

    ``round32(round32(q - round32(zero_point)) * scale)``: large zero points
    keep their INT32 -> FP32 conversion rounding (zero point 16777217, input 1,
    scale 1 gives -16777215); products may overflow to infinity or underflow
    to signed subnormals/zeros.
    """
    _check_args(q, zero_point)
    _check_scale(scale_bits)
    return _staged(q, scale_bits, zero_point)


def dequant_bf16(q: int, scale_bits: int, zero_point: int = 0) -> int:
    """BF16 encoding of Dequant: :func:`dequant_f32` narrowed by value to BF16
    nearest-even (input 127, zero point -123, scale 0x4037ced9: FP32 718.0
    narrows to 720.0 = 0x4434, not the 716.0 of rounding the exact product)."""
    bits32 = dequant_f32(q, scale_bits, zero_point)
    assert decompose(BINARY32, bits32)[0] is not Kind.NAN
    return f32_to_bf16(bits32)


@lru_cache(maxsize=256)
def dequant_f32_table(scale_bits: int, zero_point: int = 0) -> tuple[int, ...]:
    """:func:`dequant_f32` for all 256 INT8 inputs, indexed by the input's byte
    pattern (``q & 0xff``), so ``table[x.view(numpy.uint8)]`` works."""
    _check_scale(scale_bits)
    _check_args(0, zero_point)
    return tuple(_staged(b - 256 if b >= 128 else b, scale_bits, zero_point) for b in range(256))


@lru_cache(maxsize=256)
def dequant_bf16_table(scale_bits: int, zero_point: int = 0) -> tuple[int, ...]:
    """:func:`dequant_bf16` for all 256 INT8 inputs, indexed by byte pattern."""
    return tuple(f32_to_bf16(b) for b in dequant_f32_table(scale_bits, zero_point))
