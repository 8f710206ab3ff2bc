"""Pieces every operation's backend-neutral module shares: the request shape
and the shared plan (admitted metadata and storage requirements)."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Optional, Sequence, Tuple, Type

from .. import _binary32
from ..admission import Admitted
from ..core import Error, ErrorCode, KernelError, Requirement, TensorSpec


def _specs(specs: Sequence[TensorSpec], role: str) -> Tuple[TensorSpec, ...]:
    items = tuple(specs)
    for i, spec in enumerate(items):
        if not isinstance(spec, TensorSpec):
            raise TypeError(f"{role} {i} must be a simakernels.TensorSpec, got {spec!r}")
    return items


@dataclass(frozen=True)
class RequestBase:
    """Input and output specs (any count: admission checks arity) and the
    operation's parameters.  ``inputs`` and ``outputs`` take any sequence of
    :class:`TensorSpec` and are stored as tuples."""

    inputs: Sequence[TensorSpec]
    outputs: Sequence[TensorSpec]
    params: Any

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", _specs(self.inputs, "input"))
        object.__setattr__(self, "outputs", _specs(self.outputs, "output"))


@dataclass(frozen=True)
class SharedPlan:
    """An admitted request: immutable, reusable, safe to share."""

    request: Any
    admitted: Admitted

    @property
    def params(self) -> Any:
        return self.request.params

    @property
    def shape(self) -> Tuple[int, ...]:
        return self.admitted.shape

    @property
    def count(self) -> int:
        """Logical element count (1 for a scalar, 0 for an empty tensor)."""
        return self.admitted.count

    @property
    def empty(self) -> bool:
        return self.admitted.empty

    def input_requirements(self) -> Tuple[Requirement, ...]:
        return tuple(p.requirement for p in self.admitted.inputs)

    def output_requirements(self) -> Tuple[Requirement, ...]:
        return tuple(p.requirement for p in self.admitted.outputs)

    def __reduce__(self) -> Tuple[Any, ...]:
        """Pickled as its request; loading admits it again, so the admitted
        metadata (which drives the native walk) never comes unchecked from
        a pickle, nor from another version's admission."""
        return _readmit, (type(self).__module__, self.request)


def _readmit(module: str, request: Any) -> SharedPlan:
    """``check_inference(request)`` of the operation module that made a
    pickled plan (``simakernels.ops.<operation>``); KernelError if refused."""
    plan = importlib.import_module(module).check_inference(request)
    if isinstance(plan, Error):
        raise KernelError(plan)
    assert isinstance(plan, SharedPlan)
    return plan


def check_affine_params(params: Any, params_type: Type[Any], operation: str, value_name: str,
                        bits: int, zero_point_range: Tuple[int, int]) -> Optional[Error]:
    """The parameter rules Dequant and Quant share: a binary32 value (scale or
    multiplier, by its bits) finite and > 0, and an integer zero point."""
    if not isinstance(params, params_type):
        return Error(ErrorCode.INVALID_PARAMS, f"params must be {operation}.Params, got {params!r}")
    value = getattr(params, value_name)
    if not _binary32.is_real(value):
        return Error(ErrorCode.INVALID_PARAMS,
                     f"{value_name} {value!r} ({type(value).__name__}) must be {_binary32.REAL_NUMBER}")
    if not _binary32.is_finite_positive(bits):
        return Error(
            ErrorCode.INVALID_PARAMS,
            f"{value_name} {float(getattr(params, value_name))!r} as binary32 (bits {bits:#010x}) "
            "must be finite and > 0",
        )
    zp, (low, high) = params.zero_point, zero_point_range
    if isinstance(zp, bool) or not isinstance(zp, int) or not low <= zp <= high:
        return Error(ErrorCode.INVALID_PARAMS, f"zero_point {zp!r} must be an integer in [{low}, {high}]")
    return None
