"""Quant (FP32 / BF16 / FP16 -> INT8): backend-neutral request, parameters
and admission.

Per element, in this order: decode the input; multiply by the binary32
multiplier with the product rounded to binary32 (nearest-even, gradual
underflow); round that value to an integer by the selected mode; add the zero
point; saturate to [-128, 127].  NaN -> zero point; +/-infinity saturate by
sign; both zeros -> zero point.
"""
from __future__ import annotations

import enum
import functools
from dataclasses import dataclass, field
from typing import Any, Union

from ..fenv import in_default_state
from .. import _binary32
from .._ffi import lib
from ..core import DType, Error, describe
from ._base import (AffineAxisParams, AffineBlockParams, AffineParams, RequestBase, SharedPlan, admit,
                    check_affine_or_axis, describe_vector)

INPUTS = (DType.FLOAT32, DType.BFLOAT16, DType.FLOAT16)


class Rounding(enum.Enum):
    """Integer rounding of the binary32 product (the C core's ``enum
    sk_quant_rounding`` values, read from it)."""

    NEAREST_EVEN = lib.SK_QUANT_NEAREST_EVEN
    TOWARD_ZERO = lib.SK_QUANT_TOWARD_ZERO
    TOWARD_POSITIVE = lib.SK_QUANT_TOWARD_POSITIVE
    TOWARD_NEGATIVE = lib.SK_QUANT_TOWARD_NEGATIVE

    @classmethod
    def parse(cls, value: Union["Rounding", str]) -> "Rounding":
        """The enum member, or its lower-case name ("nearest_even", ...)."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str) and value.upper() in cls.__members__:
            return cls[value.upper()]
        raise ValueError(f"rounding must be a quant.Rounding or one of {[m.name.lower() for m in cls]}, "
                         f"got {describe(value)}")


class _Rounded:
    """Parameters with a ``rounding`` (a Rounding or its name), held as the
    Rounding member."""

    rounding: Rounding

    def __post_init__(self) -> None:
        super().__post_init__()  # type: ignore[misc]  # the value fields' (Affine{,Axis,Block}Params)
        object.__setattr__(self, "rounding", Rounding.parse(self.rounding))


@dataclass(frozen=True)
class Params(_Rounded, AffineParams):
    """``multiplier`` is a real number (int, float, Fraction, NumPy integer
    or floating scalar; not a string or a bool), stored as binary32
    (``numpy.float32(multiplier)``): finite and > 0, subnormal allowed (a
    multiplier, not a divisor or scale: ``1 / scale`` for a dequantization
    scale).
    ``zero_point`` must be in [-128, 127].  Checked by admission
    (``INVALID_PARAMS``)."""

    multiplier: Any
    zero_point: int = 0
    rounding: Rounding = Rounding.NEAREST_EVEN
    multiplier_bits: int = field(init=False, repr=False)
    VALUE, BITS = "multiplier", "multiplier_bits"

    @classmethod
    def from_bits(cls, multiplier_bits: int, zero_point: int = 0,
                  rounding: Union[Rounding, str] = Rounding.NEAREST_EVEN) -> "Params":
        """Parameters from the multiplier's binary32 representation."""
        return cls(_binary32.from_bits(multiplier_bits), zero_point, Rounding.parse(rounding))


@dataclass(frozen=True, eq=False)
class AxisParams(_Rounded, AffineAxisParams):
    """Per-axis parameters: element ``i`` along ``axis`` takes
    ``multipliers[i]`` and its zero point (``zero_points``: one integer for
    every index, or one per index), with exactly the per-tensor arithmetic
    and one ``rounding`` for all.

    ``axis`` counts from the end when negative; ``multipliers`` is a 1-D
    sequence of real numbers (a list or NumPy array), each stored as
    binary32 (finite and > 0: multipliers, the reciprocals of scales); zero
    points are in [-128, 127].  The values are copied (read-only arrays:
    ``multipliers`` float32, ``zero_points`` int64 or the shared int);
    admission checks them against the tensor's shape and names the axis,
    the lengths or the index and value at fault (``INVALID_PARAMS``)."""

    axis: int
    multipliers: Any
    zero_points: Any = 0
    rounding: Rounding = Rounding.NEAREST_EVEN
    multiplier_bits: Any = field(init=False, repr=False)
    VALUES, BITS = "multipliers", "multiplier_bits"

    def __repr__(self) -> str:
        return (f"quant.AxisParams(axis={self.axis!r}, multipliers={describe_vector(self.multiplier_bits)}, "
                f"zero_points={self.zero_points!r}, rounding={self.rounding})")


@dataclass(frozen=True, eq=False)
class BlockParams(_Rounded, AffineBlockParams):
    """Blocked (group-wise) parameters: element ``i`` takes the multiplier
    and zero point at ``i`` with ``i[axis]`` replaced by ``i[axis] //
    block_size`` (the last block along ``axis`` may be partial), with
    exactly the per-tensor arithmetic and one ``rounding`` for all.

    ``axis`` counts from the end when negative; ``block_size`` is an int
    >= 1; ``multipliers`` is an array (or nested sequences) of real
    numbers with the tensor's rank and shape, except ``ceil(shape[axis] /
    block_size)`` along ``axis`` (a 1-D tensor takes a 1-D array), each
    stored as binary32 (finite and > 0: multipliers, the reciprocals of
    scales); ``zero_points`` is one integer for every block or an array of
    the same shape, in [-128, 127].  The values are copied (read-only
    arrays: ``multipliers`` float32, ``zero_points`` int64 or the shared
    int); admission checks them against the tensor's shape and names the
    axis, the block size, the expected and given shapes or the index and
    value at fault (``INVALID_PARAMS``)."""

    axis: int
    block_size: int
    multipliers: Any
    zero_points: Any = 0
    rounding: Rounding = Rounding.NEAREST_EVEN
    multiplier_bits: Any = field(init=False, repr=False)
    VALUES, BITS = "multipliers", "multiplier_bits"

    def __repr__(self) -> str:
        return (f"quant.BlockParams(axis={self.axis!r}, block_size={self.block_size!r}, "
                f"multipliers={describe_vector(self.multiplier_bits)}, "
                f"zero_points={describe_vector(self.zero_points)}, rounding={self.rounding})")


@dataclass(frozen=True)
class Request(RequestBase):
    """A Quant request: one input, one output, per-tensor, per-axis or
    blocked parameters."""

    params: Union[Params, AxisParams, BlockParams]


@dataclass(frozen=True)
class Plan(SharedPlan):
    """An admitted Quant request (:func:`check_inference`)."""

    request: Request


check_params = functools.partial(check_affine_or_axis, operation="quant", params_type=Params, axis_type=AxisParams,
                                 block_type=BlockParams)


@in_default_state
def check_inference(request: Request) -> Union[Plan, Error]:
    """Admits a quant request: returns a shared :class:`Plan` or an Error."""
    return admit("quant", request, Request, Plan, lambda src, dst: src in INPUTS and dst is DType.INT8,
                 "FLOAT32 -> INT8, BFLOAT16 -> INT8, FLOAT16 -> INT8", check_params)
