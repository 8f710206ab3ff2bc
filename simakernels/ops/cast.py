"""Cast (FP32 <-> BF16): backend-neutral request, parameters and admission.

FP32 -> BF16 follows the specification's unsigned bit rule (nearest-even for
finite values; NaN payloads by the same rule); BF16 -> FP32 is exact.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from ..fenv import in_default_state
from ..admission import admit_elementwise
from ..core import DType, Error, ErrorCode, describe, type_name
from ._base import RequestBase, SharedPlan

SUPPORTED = frozenset({(DType.FLOAT32, DType.BFLOAT16), (DType.BFLOAT16, DType.FLOAT32)})


@dataclass(frozen=True)
class Params:
    """Empty: the output dtype selects the conversion."""


@dataclass(frozen=True)
class Request(RequestBase):
    params: Params = Params()


@dataclass(frozen=True)
class Plan(SharedPlan):
    request: Request

    @property
    def params(self) -> Params:
        return self.request.params


@in_default_state
def check_inference(request: Request) -> Union[Plan, Error]:
    """Admits a cast request: returns a shared :class:`Plan` or an Error."""
    if not isinstance(request, Request):
        return Error(
            ErrorCode.INVALID_OPERATION,
            f"cast.check_inference takes a cast.Request, got {type_name(request)}",
        )
    if not isinstance(request.params, Params):
        return Error(ErrorCode.INVALID_PARAMS, f"params must be cast.Params(), got {describe(request.params)}")
    admitted = admit_elementwise(
        "cast",
        request.inputs,
        request.outputs,
        lambda src, dst: (src, dst) in SUPPORTED,
        "FLOAT32 -> BFLOAT16, BFLOAT16 -> FLOAT32",
    )
    if isinstance(admitted, Error):
        return admitted
    return Plan(request, admitted)
