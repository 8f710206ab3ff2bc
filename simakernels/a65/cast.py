"""Cast on the A65 CPU: route choice at preparation, synchronous execution."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._ffi import lib
from ..core import DType
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


prepare, check_inference, execute = _backend.entry_points(
    Plan, "cast", ops_cast, "sk_cast_plan *", _fill, lib.sk_cast_execute,
    "Selects the CPU route for an admitted plan (Cast is bit manipulation: it\n    needs nothing from the FP "
    "environment).",
    """execute(plan, inputs, outputs):
    Converts ``inputs[0]`` into ``outputs[0]``; returns None or an Error
    (before any byte is written).""")
