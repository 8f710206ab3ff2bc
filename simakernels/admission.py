"""Admission shared by every operation: arity, dtypes, shapes, and each
port's layout by the C core's rules (overflow-checked spans and the
conservative nonoverlap proof: :mod:`simakernels._rules`).

Every check returns an :class:`~simakernels.core.Error` naming the port, axis
or field at fault; nothing here raises for a bad request.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Tuple, Union

from . import _rules
from .core import (
    INT64_MAX,
    Contiguous,
    DType,
    Error,
    ErrorCode,
    Requirement,
    TensorSpec,
)


@dataclass(frozen=True)
class Port:
    """An admitted port: byte strides with singleton (and empty-tensor) axes
    normalised to zero, and the bytes its binding must provide."""

    name: str
    spec: TensorSpec
    strides: Tuple[int, ...]
    nbytes: int

    @property
    def dtype(self) -> DType:
        return self.spec.dtype

    def with_nbytes(self, nbytes: int) -> "Port":
        """The port requiring ``nbytes`` bytes (a packed sub-byte port's)."""
        return dataclasses.replace(self, nbytes=nbytes)

    @property
    def requirement(self) -> Requirement:
        return Requirement(self.nbytes, self.spec.dtype.itemsize)

    @property
    def c_contiguous(self) -> bool:
        """Whether the elements lie in C order without gaps (NumPy's rule:
        singleton axes and empty tensors count as contiguous)."""
        if 0 in self.spec.shape:
            return True
        step = self.spec.dtype.itemsize
        for extent, stride in zip(reversed(self.spec.shape), reversed(self.strides)):
            if extent > 1 and stride != step:
                return False
            step *= extent
        return True


@dataclass(frozen=True)
class Admitted:
    """The normalised metadata of an admitted elementwise request."""

    shape: Tuple[int, ...]
    count: int
    inputs: Tuple[Port, ...]
    outputs: Tuple[Port, ...]

    @property
    def empty(self) -> bool:
        return self.count == 0


def rows(admitted: Admitted, extent: int) -> Admitted:
    """The first ``extent`` rows (1 <= extent <= shape[0]) of an admitted
    request's outermost axis: a sub-box of admitted layouts, so their rules
    hold; only the spans shrink."""
    shape = (extent,) + admitted.shape[1:]
    count = admitted.count // admitted.shape[0] * extent

    def port(p: Port) -> Port:
        strides = (p.strides[0] if extent > 1 else 0,) + p.strides[1:]
        nbytes = p.dtype.itemsize + sum((e - 1) * s for e, s in zip(shape, strides)) if count else 0
        return dataclasses.replace(p, spec=TensorSpec(shape, p.dtype, p.spec.layout), strides=strides, nbytes=nbytes)

    return Admitted(shape, count, tuple(port(p) for p in admitted.inputs), tuple(port(p) for p in admitted.outputs))


DTypeRule = Callable[[DType, DType], bool]


def admit_elementwise(
    operation: str,
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    dtype_rule: DTypeRule,
    supported: str,
) -> Union[Admitted, Error]:
    """Admits one input and one output of the same logical shape.

    ``dtype_rule(input_dtype, output_dtype)`` says whether the pair is
    supported; ``supported`` describes the supported pairs for messages.
    """
    if len(inputs) != 1 or len(outputs) != 1:
        return Error(
            ErrorCode.INVALID_ARITY,
            f"{operation} takes 1 input and 1 output, got {len(inputs)} and {len(outputs)}",
        )
    src, dst = inputs[0], outputs[0]
    if not dtype_rule(src.dtype, dst.dtype):
        return Error(
            ErrorCode.UNSUPPORTED_DTYPE,
            f"{operation} does not support input 0 {src.dtype.name} -> output 0 "
            f"{dst.dtype.name}; supported: {supported}",
        )
    shape_error = _check_shapes(src, dst)
    if shape_error is not None:
        return shape_error
    count = _element_count(src.shape)
    if count is None:
        return Error(ErrorCode.OVERFLOW, f"input 0: element count of shape {src.shape} exceeds 2^63-1")
    ports = []
    for name, spec in (("input 0", src), ("output 0", dst)):
        port = admit_port(name, spec, empty=count == 0)
        if isinstance(port, Error):
            return port
        ports.append(port)
    return Admitted(src.shape, count, (ports[0],), (ports[1],))


def _check_shapes(src: TensorSpec, dst: TensorSpec) -> Optional[Error]:
    for name, spec in (("input 0", src), ("output 0", dst)):
        for axis, extent in enumerate(spec.shape):
            if extent < 0:
                return Error(ErrorCode.INVALID_SHAPE, f"{name} axis {axis}: negative extent {extent}")
    if dst.rank != src.rank:
        return Error(
            ErrorCode.INVALID_SHAPE,
            f"output 0: rank {dst.rank} does not match input 0 rank {src.rank}",
        )
    for axis, (a, b) in enumerate(zip(src.shape, dst.shape)):
        if a != b:
            return Error(
                ErrorCode.INVALID_SHAPE,
                f"output 0 axis {axis}: extent {b} does not match input 0 extent {a}",
            )
    for axis, extent in enumerate(src.shape):
        if extent > INT64_MAX:
            return Error(ErrorCode.OVERFLOW, f"input 0 axis {axis}: extent {extent} exceeds 2^63-1")
    return None


def _element_count(shape: Tuple[int, ...]) -> Optional[int]:
    """Product of the extents, or None when a nonempty product exceeds int64."""
    if 0 in shape:
        return 0
    count = 1
    for extent in shape:
        count *= extent
        if count > INT64_MAX:
            return None
    return count


def admit_port(name: str, spec: TensorSpec, empty: bool) -> Union[Port, Error]:
    """Validates one port's layout and derives its normalised strides and
    required bytes (which include strided gaps; zero for an empty tensor).
    The layout rules are the C core's (:mod:`simakernels._rules`); here
    only what no C integer holds: a stride count that is not the rank, and
    values beyond int64."""
    item = spec.dtype.itemsize
    if isinstance(spec.layout, Contiguous):
        strides = _contiguous_strides(spec.shape, item)
        if strides is None:
            return Error(ErrorCode.OVERFLOW, f"{name}: contiguous storage of shape {spec.shape} exceeds 2^63-1 bytes")
    else:
        strides = spec.layout.strides
        if len(strides) != spec.rank:
            return Error(
                ErrorCode.UNSUPPORTED_LAYOUT,
                f"{name}: {len(strides)} strides given for rank {spec.rank}",
            )
        for axis, stride in enumerate(strides):
            if stride > INT64_MAX:
                return Error(ErrorCode.OVERFLOW, f"{name} axis {axis}: stride {stride} exceeds 2^63-1")
    span = _rules.layout(name, spec.shape, strides, item, spec.dtype.name)
    if isinstance(span, Error):
        return span
    if empty:
        return Port(name, spec, tuple(0 for _ in spec.shape), 0)
    strides = tuple(s if e > 1 else 0 for e, s in zip(spec.shape, strides))
    return Port(name, spec, strides, span)


def _contiguous_strides(shape: Tuple[int, ...], item: int) -> Optional[Tuple[int, ...]]:
    if 0 in shape:
        return tuple(0 for _ in shape)
    strides = []
    step = item
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    if step > INT64_MAX:
        return None
    return tuple(reversed(strides))
