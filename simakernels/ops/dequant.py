"""Dequant (INT8 -> FP32 / BF16): backend-neutral request, parameters and
admission.

The result is the staged binary32 expression
``zp = float(zero_point); d = float(q) - zp; r = d * scale`` (each step
nearest-even, never fused); BF16 output narrows ``r`` nearest-even.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Union

from ..fenv import in_default_state
from .. import _binary32
from ..core import DType, Error
from ._base import (AffineAxisParams, AffineBlockParams, AffineParams, RequestBase, SharedPlan, admit,
                    check_affine_or_axis, describe_vector)

OUTPUTS = (DType.FLOAT32, DType.BFLOAT16)


@dataclass(frozen=True)
class Params(AffineParams):
    """``scale`` is a real number (int, float, Fraction, NumPy integer or
    floating scalar; not a string or a bool), stored as binary32
    (``numpy.float32(scale)``); it must be finite and > 0 (subnormals
    allowed).  ``zero_point`` must fit INT32.
    Both are checked by admission, which reports ``INVALID_PARAMS``."""

    scale: Any
    zero_point: int = 0
    scale_bits: int = field(init=False, repr=False)
    VALUE, BITS = "scale", "scale_bits"

    @classmethod
    def from_bits(cls, scale_bits: int, zero_point: int = 0) -> "Params":
        """Parameters from the scale's binary32 representation."""
        return cls(_binary32.from_bits(scale_bits), zero_point)


@dataclass(frozen=True, eq=False)
class AxisParams(AffineAxisParams):
    """Per-axis parameters: element ``i`` along ``axis`` takes ``scales[i]``
    and its zero point (``zero_points``: one integer for every index, or one
    per index), with exactly the per-tensor arithmetic.

    ``axis`` counts from the end when negative; ``scales`` is a 1-D
    sequence of real numbers (a list or NumPy array), each stored as
    binary32 (finite and > 0); zero points fit INT32.  The values are
    copied (read-only arrays: ``scales`` float32, ``zero_points`` int64 or
    the shared int); admission checks them against the tensor's shape and
    names the axis, the lengths or the index and value at fault
    (``INVALID_PARAMS``)."""

    axis: int
    scales: Any
    zero_points: Any = 0
    scale_bits: Any = field(init=False, repr=False)
    VALUES, BITS = "scales", "scale_bits"

    def __repr__(self) -> str:
        return (f"dequant.AxisParams(axis={self.axis!r}, scales={describe_vector(self.scale_bits)}, "
                f"zero_points={self.zero_points!r})")


@dataclass(frozen=True, eq=False)
class BlockParams(AffineBlockParams):
    """Blocked (group-wise) parameters: element ``i`` takes the scale and
    zero point at ``i`` with ``i[axis]`` replaced by ``i[axis] //
    block_size`` (the last block along ``axis`` may be partial), with
    exactly the per-tensor arithmetic.

    ``axis`` counts from the end when negative; ``block_size`` is an int
    >= 1; ``scales`` is an array (or nested sequences) of real numbers with
    the tensor's rank and shape, except ``ceil(shape[axis] / block_size)``
    along ``axis`` (a 1-D tensor takes a 1-D array), each stored as
    binary32 (finite and > 0); ``zero_points`` is one integer for every
    block or an array of the same shape, fitting INT32.  The values are
    copied (read-only arrays: ``scales`` float32, ``zero_points`` int64 or
    the shared int); admission checks them against the tensor's shape and
    names the axis, the block size, the expected and given shapes or the
    index and value at fault (``INVALID_PARAMS``)."""

    axis: int
    block_size: int
    scales: Any
    zero_points: Any = 0
    scale_bits: Any = field(init=False, repr=False)
    VALUES, BITS = "scales", "scale_bits"

    def __repr__(self) -> str:
        return (f"dequant.BlockParams(axis={self.axis!r}, block_size={self.block_size!r}, "
                f"scales={describe_vector(self.scale_bits)}, zero_points={describe_vector(self.zero_points)})")


@dataclass(frozen=True)
class Request(RequestBase):
    """A Dequant request: one input, one output, per-tensor, per-axis or
    blocked parameters."""

    params: Union[Params, AxisParams, BlockParams]


@dataclass(frozen=True)
class Plan(SharedPlan):
    """An admitted Dequant request (:func:`check_inference`)."""

    request: Request


check_params = functools.partial(check_affine_or_axis, operation="dequant", params_type=Params,
                                 axis_type=AxisParams, block_type=BlockParams)


@in_default_state
def check_inference(request: Request) -> Union[Plan, Error]:
    """Admits a dequant request: returns a shared :class:`Plan` or an Error."""
    return admit("dequant", request, Request, Plan, lambda src, dst: src is DType.INT8 and dst in OUTPUTS,
                 "INT8 -> FLOAT32, INT8 -> BFLOAT16", check_params)
