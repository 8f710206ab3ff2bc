"""Cast (FP32 <-> BF16): backend-neutral request, parameters and admission.

FP32 -> BF16 follows the specification's unsigned bit rule (nearest-even for
finite values; NaN payloads by the same rule); BF16 -> FP32 is exact.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Tuple, Union

from ..fenv import in_default_state
from ..core import DType, Error, ErrorCode, describe
from ._base import RequestBase, SharedPlan, admit

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
    if isinstance(request, Request) and not isinstance(request.params, Params):  # before the ports
        return Error(ErrorCode.INVALID_PARAMS, f"params must be cast.Params(), got {describe(request.params)}")
    return admit("cast", request, Request, Plan, lambda src, dst: (src, dst) in SUPPORTED,
                 "FLOAT32 -> BFLOAT16, BFLOAT16 -> FLOAT32", _no_params)


def _no_params(params: Any, shape: Tuple[int, ...]) -> Optional[Error]:
    return None
