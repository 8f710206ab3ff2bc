"""Pieces every operation's backend-neutral module shares: the request shape
and the shared plan (admitted metadata and storage requirements)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Tuple

from ..admission import Admitted
from ..core import Requirement, TensorSpec


def _specs(specs: Any, role: str) -> Tuple[TensorSpec, ...]:
    items = tuple(specs)
    for i, spec in enumerate(items):
        if not isinstance(spec, TensorSpec):
            raise TypeError(f"{role} {i} must be a simakernels.TensorSpec, got {spec!r}")
    return items


@dataclass(frozen=True)
class RequestBase:
    """Input and output specs (any count: admission checks arity) and the
    operation's parameters."""

    inputs: Tuple[TensorSpec, ...]
    outputs: Tuple[TensorSpec, ...]
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
