"""affine_dequant (the ten Hurray storage types -> FP32 / BF16):
backend-neutral request, parameters and admission.

Per element, Hurray's formula: ``d = (int32)(q - zero_point)`` (wrapping
modulo 2^32, which only INT32 and UINT32 storage can reach), converted to
binary32 nearest-even, times the binary32 ``scale`` (nearest-even, gradual
underflow); BF16 output narrows that result nearest-even (Cast's rule).  The
scale is finite and nonzero (negative allowed); the zero point lies in the
storage type's range.

Sub-byte inputs (INT4, UINT4, INT2, UINT2) with a ``Contiguous()`` layout
are packed: elements in C order, element 0 in the least significant bits of
byte 0, ``ceil(n * bits / 8)`` bytes.  With a ``Strided`` layout they are one
element per byte (its low bits count: ml_dtypes' int4/uint4/int2/uint2
arrays), at the given byte strides.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Dict, Optional, Tuple, Union

from .. import _rules
from .._ffi import lib
from ..admission import Admitted
from ..core import Contiguous, DType, Error
from ..fenv import in_default_state
from . import dequant as ops_dequant
from ._base import RequestBase, Rules, SharedPlan, admit, check_affine_or_axis

#: The storage types, each with its code in the C core (enum sk_hurray_storage).
STORAGE: Dict[DType, int] = {d: getattr(lib, f"SK_HURRAY_{d.name}") for d in (
    DType.INT8, DType.UINT8, DType.INT16, DType.UINT16, DType.INT32, DType.UINT32,
    DType.INT4, DType.UINT4, DType.INT2, DType.UINT2)}
OUTPUTS = ops_dequant.OUTPUTS


@dataclass(frozen=True)
class Params(ops_dequant.Params):
    """``scale`` is a real number stored as binary32: finite and nonzero
    (negative and subnormal allowed, as Hurray allows); ``zero_point`` lies
    in the input storage type's range.  Checked by admission
    (``INVALID_PARAMS``)."""


@dataclass(frozen=True, eq=False)
class AxisParams(ops_dequant.AxisParams):
    """Per-axis parameters as ``dequant.AxisParams``, with this
    operation's rules: scales finite and nonzero, zero points in the
    storage type's range."""


@dataclass(frozen=True, eq=False)
class BlockParams(ops_dequant.BlockParams):
    """Blocked parameters as ``dequant.BlockParams``, with this
    operation's rules: scales finite and nonzero, zero points in the
    storage type's range."""


@dataclass(frozen=True)
class Request(RequestBase):
    """An affine_dequant request: one input, one output, per-tensor,
    per-axis or blocked parameters."""

    params: Union[ops_dequant.Params, ops_dequant.AxisParams, ops_dequant.BlockParams]


@dataclass(frozen=True)
class Plan(SharedPlan):
    """An admitted affine_dequant request (:func:`check_inference`)."""

    request: Request


@functools.lru_cache(maxsize=None)
def rules(storage: DType) -> Rules:
    """The parameter rules for ``storage`` input."""
    return Rules("affine_dequant", (_rules.AFFINE_DEQUANT, STORAGE[storage]), "finite and nonzero")


def packed(admitted: Admitted, port: int, count: int) -> Admitted:
    """``admitted`` with the sub-byte port of a ``Contiguous()`` layout
    (``port`` 0: the input, 1: the output) requiring its packed bytes,
    ``ceil(count * bits / 8)``; the walk still reads its strides as one
    element per byte.  Anything else as it is."""
    ports = admitted.inputs if port == 0 else admitted.outputs
    spec = ports[0].spec
    if not (spec.dtype.sub_byte and is_packed(spec.layout)):
        return admitted
    fixed = (ports[0].with_nbytes(-(-count * spec.dtype.bits // 8) if count else 0),)
    return Admitted(admitted.shape, admitted.count, fixed if port == 0 else admitted.inputs,
                    fixed if port == 1 else admitted.outputs)


def is_packed(layout: object) -> bool:
    """Whether a sub-byte port of this layout is packed (``Contiguous()``)."""
    return isinstance(layout, Contiguous)


@in_default_state
def check_inference(request: Request) -> Union[Plan, Error]:
    """Admits an affine_dequant request: returns a shared :class:`Plan` or an Error."""
    storage: Tuple[DType, ...] = ()
    if isinstance(request, Request) and len(request.inputs) == 1:
        storage = (request.inputs[0].dtype,)

    def check_params(params: object, shape: Tuple[int, ...]) -> Optional[Error]:
        return check_affine_or_axis(params, shape, operation=rules(storage[0]), params_type=ops_dequant.Params,
                                    axis_type=ops_dequant.AxisParams, block_type=ops_dequant.BlockParams)

    plan = admit("affine_dequant", request, Request, Plan, lambda src, dst: src in STORAGE and dst in OUTPUTS,
                 "INT8, UINT8, INT16, UINT16, INT32, UINT32, INT4, UINT4, INT2, UINT2 -> FLOAT32 or BFLOAT16",
                 check_params)
    if isinstance(plan, Error):
        return plan
    return Plan(plan.request, packed(plan.admitted, 0, plan.admitted.count))
