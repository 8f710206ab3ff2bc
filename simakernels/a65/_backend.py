"""What every A65 operation shares: the backend plan (route, prepared native
struct) and the execute sequence (bind, check, one native call)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, Tuple, Union

from .._ffi import ffi, lib
from ..admission import Admitted
from ..buffers import BufferLike, bind
from ..core import Error, ErrorCode, Requirement
from ..fenv import describe_unmet
from ..ops._base import SharedPlan


@dataclass(frozen=True, eq=False)
class BackendPlan:
    """An A65 plan: the shared plan plus the route chosen at preparation.
    Immutable, reusable with new buffers and safe to share between threads."""

    shared: SharedPlan
    route: str
    _native: Any = field(repr=False)
    _fenv_needs: int = field(repr=False)

    @property
    def shape(self) -> Tuple[int, ...]:
        return self.shared.shape

    def input_requirements(self) -> Tuple[Requirement, ...]:
        return self.shared.input_requirements()

    def output_requirements(self) -> Tuple[Requirement, ...]:
        return self.shared.output_requirements()


def prepare_walk(walk: Any, admitted: Admitted) -> None:
    """Fills a native ``sk_walk`` for a nonempty admitted elementwise request."""
    if admitted.empty:
        return
    src, dst = admitted.inputs[0], admitted.outputs[0]
    rank = len(admitted.shape)
    status = lib.sk_walk_prepare(
        rank,
        ffi.new("int64_t[]", list(admitted.shape) or [0]),
        ffi.new("int64_t[]", list(src.strides) or [0]),
        ffi.new("int64_t[]", list(dst.strides) or [0]),
        src.dtype.itemsize,
        dst.dtype.itemsize,
        walk,
    )
    if status != lib.SK_OK:  # admission guarantees the walk's preconditions
        raise AssertionError(f"sk_walk_prepare rejected an admitted shape: status {status}")


def execute(
    plan: Any,
    plan_type: type,
    operation: str,
    inputs: Sequence[BufferLike],
    outputs: Sequence[BufferLike],
    native_execute: Callable[[Any, int, int], int],
) -> Union[None, Error]:
    """Binds, checks and runs one plan; returns None or the first Error,
    always before any output byte is written."""
    if not isinstance(plan, plan_type):
        return Error(
            ErrorCode.INVALID_OPERATION,
            f"{operation}.execute takes an a65.{operation}.Plan, got {type(plan).__module__}.{type(plan).__qualname__}",
        )
    shared = plan.shared
    bound = bind(inputs, outputs, shared.input_requirements(), shared.output_requirements())
    if isinstance(bound, Error):
        return bound
    if shared.empty:
        return None
    status = native_execute(plan._native, bound[0][0].address, bound[1][0].address)
    if status == lib.SK_OK:
        return None
    if status == lib.SK_UNSUPPORTED_ENVIRONMENT:
        detail = describe_unmet(lib.sk_fenv_unmet(plan._fenv_needs))
        return Error(ErrorCode.UNSUPPORTED_ENVIRONMENT, f"{operation}: {detail}; nothing was written")
    return Error(ErrorCode(status), f"{operation}: the native core rejected the call (status {status})")
