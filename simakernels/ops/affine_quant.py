"""affine_quant (FP32 / BF16 / FP16 -> INT8, UINT8, INT16, UINT16, INT4,
UINT4, INT2, UINT2): backend-neutral request, parameters and admission.

Per element, Quant's order: decode the input; multiply by the binary32
multiplier with the product rounded to binary32 (nearest-even, gradual
underflow); round that value to an integer by the selected mode; add the
zero point; saturate to the output type's range.  NaN and zeros -> zero
point; +/-infinity saturate by sign.  INT8 output gives Quant's bits.

Sub-byte outputs with a ``Contiguous()`` layout are packed (element 0 in the
least significant bits of byte 0, ``ceil(n * bits / 8)`` bytes; the unused
high bits of the last byte keep their value); with a ``Strided`` layout one
element per byte (its low bits, the high bits zero: ml_dtypes' image).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Tuple, Union

from .. import _rules
from ..core import DType, Error
from ..fenv import in_default_state
from . import quant as ops_quant
from ._base import RequestBase, Rules, SharedPlan, admit, check_affine_or_axis
from .affine_dequant import STORAGE, packed

INPUTS = ops_quant.INPUTS
OUTPUTS = tuple(d for d in STORAGE if d.bits <= 16)
Rounding = ops_quant.Rounding


@dataclass(frozen=True)
class Params(ops_quant.Params):
    """As ``quant.Params`` (``multiplier`` finite and > 0, the reciprocal
    of a scale; a rounding mode), with ``zero_point`` in the output type's
    range.  Checked by admission (``INVALID_PARAMS``)."""


@dataclass(frozen=True, eq=False)
class AxisParams(ops_quant.AxisParams):
    """Per-axis parameters as ``quant.AxisParams``, with zero points in the
    output type's range."""


@dataclass(frozen=True, eq=False)
class BlockParams(ops_quant.BlockParams):
    """Blocked parameters as ``quant.BlockParams``, with zero points in the
    output type's range."""


@dataclass(frozen=True)
class Request(RequestBase):
    """An affine_quant request: one input, one output, per-tensor,
    per-axis or blocked parameters."""

    params: Union[ops_quant.Params, ops_quant.AxisParams, ops_quant.BlockParams]


@dataclass(frozen=True)
class Plan(SharedPlan):
    """An admitted affine_quant request (:func:`check_inference`)."""

    request: Request


@functools.lru_cache(maxsize=None)
def rules(storage: DType) -> Rules:
    """The parameter rules for ``storage`` output."""
    return Rules("affine_quant", (_rules.AFFINE_QUANT, STORAGE[storage]))


@in_default_state
def check_inference(request: Request) -> Union[Plan, Error]:
    """Admits an affine_quant request: returns a shared :class:`Plan` or an Error."""
    output: Tuple[DType, ...] = ()
    if isinstance(request, Request) and len(request.outputs) == 1:
        output = (request.outputs[0].dtype,)

    def check_params(params: object, shape: Tuple[int, ...]) -> Union[Error, None]:
        return check_affine_or_axis(params, shape, operation=rules(output[0]), params_type=ops_quant.Params,
                                    axis_type=ops_quant.AxisParams, block_type=ops_quant.BlockParams)

    plan = admit("affine_quant", request, Request, Plan, lambda src, dst: src in INPUTS and dst in OUTPUTS,
                 "FLOAT32, BFLOAT16 or FLOAT16 -> INT8, UINT8, INT16, UINT16, INT4, UINT4, INT2, UINT2",
                 check_params)
    if isinstance(plan, Error):
        return plan
    return Plan(plan.request, packed(plan.admitted, 1, plan.admitted.count))
