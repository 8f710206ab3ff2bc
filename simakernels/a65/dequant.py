"""Dequant on the A65 CPU: route and arithmetic form chosen at preparation
from integer metadata and the scale's bits; synchronous execution."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Union

from .._ffi import lib
from ..core import DType, Error
from ..ops import dequant as ops_dequant
from . import _backend

_OUTPUT = {DType.FLOAT32: lib.SK_DEQUANT_F32, DType.BFLOAT16: lib.SK_DEQUANT_BF16}
_FORMS = {
    lib.SK_DEQUANT_NARROW: "narrow",
    lib.SK_DEQUANT_NARROW_POW2: "narrow_pow2",
    lib.SK_DEQUANT_WIDE_POW2: "wide_pow2",
    lib.SK_DEQUANT_WIDE_UNIT: "wide_unit",
    lib.SK_DEQUANT_WIDE: "wide",
}

@dataclass(frozen=True, eq=False)
class Plan(_backend.BackendPlan):
    shared: ops_dequant.Plan

    @property
    def form(self) -> str:
        """The arithmetic form preparation selected (all give identical bits)."""
        return _FORMS[self._native.form]


def _fill(native: Any, shared: ops_dequant.Plan) -> None:
    native.output = _OUTPUT[shared.admitted.outputs[0].dtype]
    native.scale_bits = shared.params.scale_bits
    native.zero_point = shared.params.zero_point
    status = lib.sk_dequant_prepare(native)  # the arithmetic form, from integers and bits
    if status != lib.SK_OK:  # admission already proved the parameters
        raise AssertionError(f"sk_dequant_prepare rejected an admitted plan: status {status}")


def prepare(shared: ops_dequant.Plan, route: Optional[str] = None) -> Union[Plan, Error]:
    """Selects the CPU route and arithmetic form for an admitted plan.

    ``route`` names one of :func:`simakernels.a65.available_routes`; by default
    ``$SIMAKERNELS_FORCE_ROUTE`` or the best route.  No re-admission."""
    return _backend.prepare(shared, ops_dequant.Plan, Plan, "dequant", route, "sk_dequant_plan *", _fill)


def check_inference(request: ops_dequant.Request, route: Optional[str] = None) -> Union[Plan, Error]:
    """Admission and preparation in one step."""
    shared = ops_dequant.check_inference(request)
    if isinstance(shared, Error):
        return shared
    return prepare(shared, route)


execute = _backend.make_execute(Plan, "dequant", lib.sk_dequant_execute, """execute(plan, inputs, outputs):
    Dequantizes ``inputs[0]`` into ``outputs[0]``; returns None or an Error
    (bindings and, for nonempty work, the FP environment are checked before
    any byte is written).""")
