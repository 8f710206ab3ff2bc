"""Dequant on the A65 CPU: route and arithmetic form chosen at preparation
from integer metadata and the scale's bits; synchronous execution."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._ffi import lib
from ..core import DType
from ..ops import dequant as ops_dequant
from . import _backend

OUTPUT = {DType.FLOAT32: lib.SK_DEQUANT_F32, DType.BFLOAT16: lib.SK_DEQUANT_BF16}
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
        """The arithmetic form preparation selected (all give identical bits;
        per-axis plans choose one per channel and report "per_channel")."""
        return "per_channel" if self._native.axis.count else _FORMS[self._native.form]


def _fill(native: Any, shared: ops_dequant.Plan) -> Any:
    native.output = OUTPUT[shared.admitted.outputs[0].dtype]
    # _backend then chooses the arithmetic form(s) from integers and bits
    return _backend.fill_params(native, shared, lib.sk_dequant_axis_space)


prepare, check_inference, execute = _backend.entry_points(
    Plan, "dequant", ops_dequant, "sk_dequant_plan *", _fill, lib.sk_dequant_execute,
    "Selects the CPU route and arithmetic form for an admitted plan.",
    """execute(plan, inputs, outputs):
    Dequantizes ``inputs[0]`` into ``outputs[0]``; returns None or an Error
    (bindings and, for nonempty work, the FP environment are checked before
    any byte is written).""")
