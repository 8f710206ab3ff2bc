"""affine_dequant on the A65 CPU: one entry per output dtype and input
element width, the storage type's bits and signedness from the plan;
synchronous execution."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._ffi import lib
from ..ops import affine_dequant as ops_affine_dequant
from ..ops.affine_dequant import STORAGE, is_packed
from . import _backend
from .dequant import OUTPUT


@dataclass(frozen=True, eq=False)
class Plan(_backend.BackendPlan):
    shared: ops_affine_dequant.Plan


def _fill(native: Any, shared: ops_affine_dequant.Plan) -> Any:
    src, dst = shared.admitted.inputs[0], shared.admitted.outputs[0]
    native.output = OUTPUT[dst.dtype]
    native.storage = STORAGE[src.dtype]
    native.packed = src.dtype.sub_byte and is_packed(src.spec.layout)
    return _backend.fill_params(native, shared, lib.sk_affine_dequant_axis_space)


prepare, check_inference, execute = _backend.entry_points(
    Plan, "affine_dequant", ops_affine_dequant, "sk_affine_dequant_plan *", _fill,
    lib.sk_affine_dequant_run,
    "Selects the CPU route and the (output, input width) entry.",
    """execute(plan, inputs, outputs):
    Dequantizes ``inputs[0]`` into ``outputs[0]``; returns None or an Error
    (bindings and, for nonempty work, the FP environment are checked before
    any byte is written).""")
