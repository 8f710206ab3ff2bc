"""binary32 parameters held by their representation bits, so validation and
route selection never depend on the caller's FP modes."""
from __future__ import annotations

import struct
import warnings
from typing import Any

import numpy as np

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def bits_of(value: Any) -> int:
    """The binary32 bits of ``numpy.float32(value)`` (an overflowing value
    becomes infinity and is rejected by admission, not here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        f32 = np.float32(value)
    return int(np.array(f32, dtype=np.float32).view(np.uint32))


def from_bits(bits: int) -> np.float32:
    """A NumPy binary32 scalar with exactly these bits."""
    return np.array(bits & 0xFFFFFFFF, dtype=np.uint32).view(np.float32)[()]  # type: ignore[no-any-return]


def as_int(value: Any) -> Any:
    """Integers (Python or NumPy) as ``int``; anything else unchanged, for
    admission to reject with a message."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        return value
    return value.__index__()


def value_of(bits: int) -> float:
    """The binary32 value of ``bits`` as a Python float (exact)."""
    return _F32.unpack(_U32.pack(bits))[0]  # type: ignore[no-any-return]


def is_finite_positive(bits: int) -> bool:
    """Finite and > 0: sign clear, exponent not all ones, not +0.  Subnormals
    qualify."""
    return bits >> 31 == 0 and (bits >> 23) & 0xFF != 0xFF and bits != 0
