"""Quant on the A65 CPU: one specialised entry per input dtype and rounding
mode, chosen at preparation; synchronous execution."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._ffi import lib
from ..core import DType
from ..ops import quant as ops_quant
from . import _backend

INPUT = {DType.FLOAT32: lib.SK_QUANT_F32, DType.BFLOAT16: lib.SK_QUANT_BF16, DType.FLOAT16: lib.SK_QUANT_F16}


@dataclass(frozen=True, eq=False)
class Plan(_backend.BackendPlan):
    shared: ops_quant.Plan


def _fill(native: Any, shared: ops_quant.Plan) -> Any:
    native.input = INPUT[shared.admitted.inputs[0].dtype]
    native.rounding = shared.params.rounding.value
    return _backend.fill_params(native, shared, lib.sk_quant_axis_space)  # _backend then prepares it natively


prepare, check_inference, execute = _backend.entry_points(
    Plan, "quant", ops_quant, "sk_quant_plan *", _fill, lib.sk_quant_execute,
    "Selects the CPU route and the (input dtype, rounding) entry.",
    """execute(plan, inputs, outputs):
    Quantizes ``inputs[0]`` into ``outputs[0]``; returns None or an Error
    (before any byte is written).""")
