"""Expected bits of the Cast operation (FP32 <-> BF16).

Specification (Cast, "Numerical behavior"):

* "FP32 -> BF16 uses the exact unsigned 32-bit rule below. The addition wraps
  modulo 2^32 before the high 16 bits are selected ... For finite inputs this
  rounds to nearest, ties to even ... the same bit rule is applied to NaN
  payloads ... 0x7f800001 produces 0x7f80, and 0xffffffff produces 0x0000."
* "BF16 -> FP32 places the input word in the upper 16 bits and sets the lower
  bits to zero. Expansion preserves signed zero, infinity, subnormals and NaN
  bits."

The oracle does not transcribe the bit rule: finite values are rounded by
value (exact rational, nearest-even, overflow to infinity); only NaN payloads,
for which there is no value, use the integer rounding of the unsigned
representation that the rule amounts to.
"""

from __future__ import annotations

from functools import lru_cache

from .formats import (
    BFLOAT16,
    BINARY32,
    Kind,
    decompose,
    infinity_bits,
    round_scaled,
)
from .integers import round_to_integer

__all__ = ["f32_to_bf16", "bf16_to_f32", "f32_to_bf16_many", "bf16_to_f32_table"]


def _nan_payload_to_bf16(bits32: int) -> int:
    # (u + 0x7fff + lsb) >> 16 adds just under one half, plus one more unit
    # exactly when the kept word is odd, so it is round-half-even of u / 2**16;
    # wrapping the sum mod 2**32 before the shift is that quotient mod 2**16.
    return round_to_integer(bits32, 1 << 16, "nearest_even") % (1 << 16)


def f32_to_bf16(bits32: int) -> int:
    """BF16 encoding produced by Cast for the FP32 encoding ``bits32``.

    Finite input: the exact value rounded to BF16 nearest-even, overflowing to
    infinity, signed zeros and underflow keeping the sign. Infinity: the
    infinity of the same sign. NaN: the unsigned representation rounded
    half-to-even to a multiple of 2**16, taken modulo 2**16 (so some NaNs
    become infinities and 0xffffffff becomes +0).
    """
    kind, negative, significand, exponent = decompose(BINARY32, bits32)
    if kind is Kind.NAN:
        return _nan_payload_to_bf16(bits32)
    if kind is Kind.INFINITE:
        return infinity_bits(BFLOAT16, negative)
    return round_scaled(BFLOAT16, negative, significand, exponent, sign_of_zero=negative)


def f32_to_bf16_many(bits32_values) -> list[int]:
    """:func:`f32_to_bf16` of every element of an iterable of FP32 encodings."""
    return [f32_to_bf16(int(b)) for b in bits32_values]


def bf16_to_f32(bits16: int) -> int:
    """FP32 encoding produced by Cast for the BF16 encoding ``bits16``.

    Finite input: the exact BF16 value encoded in binary32 (always exact:
    same exponent range, more fraction bits; asserted). Infinity: the FP32
    infinity of the same sign. NaN: the payload bits kept in the upper half
    ("Expansion preserves ... NaN bits").
    """
    kind, negative, significand, exponent = decompose(BFLOAT16, bits16)
    if kind is Kind.NAN:
        return bits16 << 16
    if kind is Kind.INFINITE:
        return infinity_bits(BINARY32, negative)
    bits32 = round_scaled(BINARY32, negative, significand, exponent, sign_of_zero=negative)
    k32, n32, s32, e32 = decompose(BINARY32, bits32)
    exact = (
        k32 is Kind.FINITE
        and n32 == negative
        and (s32 << max(e32 - exponent, 0)) == (significand << max(exponent - e32, 0))
    )
    assert exact, f"BF16 {bits16:#06x} is not exactly representable in binary32"
    return bits32


@lru_cache(maxsize=1)
def bf16_to_f32_table() -> tuple[int, ...]:
    """``bf16_to_f32(b)`` for every BF16 pattern ``b`` in 0..65535, indexed by ``b``."""
    return tuple(bf16_to_f32(b) for b in range(1 << 16))
