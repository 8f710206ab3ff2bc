"""Borrowed host buffer views and the binding checks every ``execute`` runs
before it writes a byte (the C core's rules: :mod:`simakernels._rules`)."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Type, TypeVar, Union

import numpy as np

from . import _rules, dlpack, storage
from ._ffi import ffi
from .core import INT64_MAX, DType, Error, ErrorCode, Requirement, describe

_ADDRESS_LIMIT = 1 << 64

_ViewT = TypeVar("_ViewT", bound="ConstHostBuffer")


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
    def from_address(cls: Type[_ViewT], address: int, nbytes: int, keepalive: Any = None) -> _ViewT:
        """A raw view for runtime integrations; address 0 is a null binding.
        Out-of-range values are reported by ``execute`` as errors."""
        for name, value in (("address", address), ("nbytes", nbytes)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, got {describe(value)}")
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


def _view(obj: BufferLike, writable: bool, name: str, dtype: Optional[DType]) -> Union[ConstHostBuffer, Error]:
    if not isinstance(obj, (ConstHostBuffer, np.ndarray)) and dlpack.exports(obj):
        obj = dlpack.to_numpy(obj, name, "binding")  # a PyTorch or JAX array: its NumPy view, then the array rules
        if isinstance(obj, Error):
            return obj
    if dtype is not None:
        refused = storage.error(obj, dtype, name)
        if refused is not None:
            return refused
    if isinstance(obj, ConstHostBuffer):
        if writable and not isinstance(obj, HostBuffer):
            return Error(ErrorCode.INVALID_BINDING, f"{name}: a ConstHostBuffer cannot be written")
        return obj
    try:
        return (HostBuffer if writable else ConstHostBuffer)(obj)
    except TypeError as exc:
        return Error(ErrorCode.INVALID_BINDING, f"{name}: {exc}")


def bind(
    inputs: Sequence[BufferLike],
    outputs: Sequence[BufferLike],
    in_needs: Tuple[Requirement, ...],
    out_needs: Tuple[Requirement, ...],
    dtypes: Tuple[Optional[DType], Optional[DType]] = (None, None),
) -> Union[Tuple[Tuple[ConstHostBuffer, ...], Tuple[ConstHostBuffer, ...]], Error]:
    """Resolves and checks every binding; returns the views or the first
    error.  ``dtypes`` are the ports' tensor dtypes, for the storage rule of
    arrays (:mod:`simakernels.storage`).  Nothing is written here, so an
    error leaves outputs untouched."""
    if len(inputs) != len(in_needs) or len(outputs) != len(out_needs):
        return Error(
            ErrorCode.INVALID_ARITY,
            f"plan binds {len(in_needs)} input(s) and {len(out_needs)} output(s), "
            f"got {len(inputs)} and {len(outputs)}",
        )
    if len(in_needs) != 1 or len(out_needs) != 1:
        raise ValueError("bind serves plans of one input and one output")
    views = []
    for writable, obj, name, dtype in ((False, inputs[0], "input 0", dtypes[0]),
                                       (True, outputs[0], "output 0", dtypes[1])):
        view = _view(obj, writable, name, dtype)
        if isinstance(view, Error):
            return view
        views.append(view)
    src, dst = views
    error = _rules.binding(("input 0", "output 0"), ((src.address, src.nbytes), (dst.address, dst.nbytes)),
                           ((in_needs[0].nbytes, in_needs[0].alignment), (out_needs[0].nbytes, out_needs[0].alignment)))
    if error is not None:
        return error
    return (src,), (dst,)
