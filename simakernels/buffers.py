"""Borrowed host buffer views and the binding checks every ``execute`` runs
before it writes a byte."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

from ._ffi import ffi
from .core import INT64_MAX, Error, ErrorCode, Requirement

_ADDRESS_LIMIT = 1 << 64


class ConstHostBuffer:
    """A read-only view of host memory: any buffer-protocol object (NumPy
    array, bytes, bytearray, memoryview, mmap) from its start, or a raw
    address.  The caller keeps the storage alive until ``execute`` returns."""

    __slots__ = ("address", "nbytes", "_keep", "_ptr")
    _writable = False

    def __init__(self, obj: Any) -> None:
        try:
            view = ffi.from_buffer("char[]", obj, require_writable=self._writable)
        except (TypeError, BufferError, ValueError) as exc:
            kind = "writable, C-contiguous" if self._writable else "C-contiguous"
            raise TypeError(
                f"{type(self).__name__} needs a {kind} buffer-protocol object, "
                f"got {type(obj).__name__}: {exc}"
            ) from exc
        self.address = int(ffi.cast("uintptr_t", view))
        self.nbytes = len(view)
        self._keep: Any = view  # holds the buffer export for the view's life
        self._ptr: Any = view   # what the native entry points take

    @classmethod
    def from_address(cls, address: int, nbytes: int, keepalive: Any = None) -> "ConstHostBuffer":
        """A raw view for runtime integrations; address 0 is a null binding.
        Out-of-range values are reported by ``execute`` as errors."""
        for name, value in (("address", address), ("nbytes", nbytes)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, got {value!r}")
        view = cls.__new__(cls)
        view.address = address
        view.nbytes = nbytes
        view._keep = keepalive
        # Out-of-range values never reach C: the Python checks report them.
        in_range = 0 <= address < _ADDRESS_LIMIT and 0 <= nbytes <= INT64_MAX
        view._ptr = ffi.cast("void *", address) if in_range else None
        return view

    def __repr__(self) -> str:
        return f"{type(self).__name__}(address={self.address:#x}, nbytes={self.nbytes})"


class HostBuffer(ConstHostBuffer):
    """A writable view of host memory (see :class:`ConstHostBuffer`)."""

    __slots__ = ()
    _writable = True


BufferLike = Union[ConstHostBuffer, Any]


def _view(obj: BufferLike, writable: bool, name: str) -> Union[ConstHostBuffer, Error]:
    if isinstance(obj, ConstHostBuffer):
        if writable and not isinstance(obj, HostBuffer):
            return Error(ErrorCode.INVALID_BINDING, f"{name}: a ConstHostBuffer cannot be written")
        return obj
    try:
        return (HostBuffer if writable else ConstHostBuffer)(obj)
    except TypeError as exc:
        return Error(ErrorCode.INVALID_BINDING, f"{name}: {exc}")


def _check_view(view: ConstHostBuffer, need: Requirement, name: str) -> Optional[Error]:
    address, nbytes = view.address, view.nbytes
    if not 0 <= address < _ADDRESS_LIMIT:
        return Error(ErrorCode.INVALID_BINDING, f"{name}: address {address:#x} is outside the 64-bit address space")
    if nbytes < 0:
        return Error(ErrorCode.INVALID_BINDING, f"{name}: negative extent {nbytes}")
    if nbytes > INT64_MAX:
        return Error(ErrorCode.OVERFLOW, f"{name}: extent {nbytes} exceeds 2^63-1 bytes")
    if need.nbytes == 0:
        return None  # empty work: nothing is read or written, any view will do
    if address == 0:
        return Error(ErrorCode.INVALID_BINDING, f"{name}: null binding for a tensor of {need.nbytes} bytes")
    if nbytes < need.nbytes:
        return Error(
            ErrorCode.INVALID_BINDING,
            f"{name}: view has {nbytes} bytes, the plan requires {need.nbytes}",
        )
    if address + nbytes > _ADDRESS_LIMIT:
        return Error(ErrorCode.INVALID_BINDING, f"{name}: view at {address:#x} wraps the address space")
    if address % need.alignment:
        return Error(
            ErrorCode.INVALID_BINDING,
            f"{name}: address {address:#x} is not {need.alignment}-byte aligned",
        )
    return None


def bind(
    inputs: Sequence[BufferLike],
    outputs: Sequence[BufferLike],
    in_needs: Tuple[Requirement, ...],
    out_needs: Tuple[Requirement, ...],
) -> Union[Tuple[Tuple[ConstHostBuffer, ...], Tuple[ConstHostBuffer, ...]], Error]:
    """Resolves and checks every binding; returns the views or the first
    error.  Nothing is written here, so an error leaves outputs untouched."""
    if len(inputs) != len(in_needs) or len(outputs) != len(out_needs):
        return Error(
            ErrorCode.INVALID_ARITY,
            f"plan binds {len(in_needs)} input(s) and {len(out_needs)} output(s), "
            f"got {len(inputs)} and {len(outputs)}",
        )
    views = []
    for writable, objs, needs, role in ((False, inputs, in_needs, "input"), (True, outputs, out_needs, "output")):
        for i, (obj, need) in enumerate(zip(objs, needs)):
            name = f"{role} {i}"
            view = _view(obj, writable, name)
            if isinstance(view, Error):
                return view
            error = _check_view(view, need, name)
            if error is not None:
                return error
            views.append(view)
    in_views = tuple(views[: len(in_needs)])
    out_views = tuple(views[len(in_needs):])
    for i, (src, src_need) in enumerate(zip(in_views, in_needs)):
        for o, (dst, dst_need) in enumerate(zip(out_views, out_needs)):
            if (
                src_need.nbytes
                and dst_need.nbytes
                and src.address < dst.address + dst_need.nbytes
                and dst.address < src.address + src_need.nbytes
            ):
                return Error(
                    ErrorCode.INVALID_BINDING,
                    f"input {i} [{src.address:#x}, +{src_need.nbytes}) and output {o} "
                    f"[{dst.address:#x}, +{dst_need.nbytes}): accessed byte ranges overlap",
                )
    return in_views, out_views
