"""Cast on the A65 CPU: route choice at preparation, synchronous execution."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Union

from ..fenv import in_default_state
from .._ffi import lib
from ..core import DType, Error
from ..ops import cast as ops_cast
from . import _backend

_KIND = {
    (DType.FLOAT32, DType.BFLOAT16): lib.SK_CAST_F32_BF16,
    (DType.BFLOAT16, DType.FLOAT32): lib.SK_CAST_BF16_F32,
}


@dataclass(frozen=True, eq=False)
class Plan(_backend.BackendPlan):
    shared: ops_cast.Plan


def _fill(native: Any, shared: ops_cast.Plan) -> None:
    admitted = shared.admitted
    native.kind = _KIND[(admitted.inputs[0].dtype, admitted.outputs[0].dtype)]


def prepare(shared: ops_cast.Plan, route: Optional[str] = None) -> Union[Plan, Error]:
    """Selects the CPU route for an admitted plan (Cast is bit manipulation: it
    needs nothing from the FP environment).

    ``route`` names one of :func:`simakernels.a65.available_routes`; by default
    ``$SIMAKERNELS_FORCE_ROUTE`` or the best route.  No re-admission."""
    return _backend.prepare(shared, ops_cast.Plan, Plan, "cast", route, "sk_cast_plan *", _fill)


@in_default_state
def check_inference(request: ops_cast.Request, route: Optional[str] = None) -> Union[Plan, Error]:
    """Admission and preparation in one step."""
    shared = ops_cast.check_inference(request)
    if isinstance(shared, Error):
        return shared
    return prepare(shared, route)


execute = _backend.make_execute(Plan, "cast", lib.sk_cast_execute, """execute(plan, inputs, outputs):
    Converts ``inputs[0]`` into ``outputs[0]``; returns None or an Error
    (before any byte is written).""")
