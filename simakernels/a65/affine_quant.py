"""affine_quant on the A65 CPU: one entry per input dtype and rounding mode,
the output type's width, range and packing from the plan; synchronous
execution."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._ffi import lib
from ..ops import affine_quant as ops_affine_quant
from ..ops.affine_dequant import STORAGE, is_packed
from . import _backend
from .quant import INPUT


@dataclass(frozen=True, eq=False)
class Plan(_backend.BackendPlan):
    shared: ops_affine_quant.Plan


def _fill(native: Any, shared: ops_affine_quant.Plan) -> Any:
    src, dst = shared.admitted.inputs[0], shared.admitted.outputs[0]
    native.input = INPUT[src.dtype]
    native.rounding = shared.params.rounding.value
    native.storage = STORAGE[dst.dtype]
    native.packed = dst.dtype.sub_byte and is_packed(dst.spec.layout)
    return _backend.fill_params(native, shared, lib.sk_affine_quant_axis_space)


prepare, check_inference, execute = _backend.entry_points(
    Plan, "affine_quant", ops_affine_quant, "sk_affine_quant_plan *", _fill,
    lib.sk_affine_quant_run,
    "Selects the CPU route and the (input dtype, rounding) entry.",
    """execute(plan, inputs, outputs):
    Quantizes ``inputs[0]`` into ``outputs[0]`` (a packed sub-byte output:
    its bytes, of which the last one's unused high bits keep their value);
    returns None or an Error (before any byte is written).""")
