"""Arrays of other libraries (PyTorch, JAX, CuPy on the host...) through the
DLPack protocol: a NumPy view of the producer's memory, never a copy.

NumPy's ``from_dlpack`` does the exchange (capsule, lifetime, strides,
read-only flag).  It knows no bfloat16, so a bfloat16 export is relabelled
16-bit unsigned in its capsule before NumPy reads it, and the view is then
taken as ``ml_dtypes.bfloat16``: the same bytes.
"""
from __future__ import annotations

import ctypes
from typing import Any, Protocol, Union

import ml_dtypes
import numpy as np

from .core import Error, ErrorCode, describe, type_name

DEVICE_CPU = 1                       # DLDeviceType kDLCPU
_UINT, _BFLOAT = 1, 4                # DLDataTypeCode kDLUInt, kDLBfloat
# Byte offset of DLTensor in the capsule's struct: DLManagedTensor starts
# with it; DLManagedTensorVersioned has version, manager_ctx, deleter and
# flags before it.  The dtype (code u8, bits u8, lanes u16) is at +20.
_TENSOR_AT = {b"dltensor": 0, b"dltensor_versioned": 32}
_DTYPE_AT = 20

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype, _capsule_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


class SupportsDLPack(Protocol):
    """An array offering the DLPack protocol (a PyTorch tensor, a JAX array)."""

    def __dlpack__(self, **kwargs: Any) -> Any: ...

    def __dlpack_device__(self) -> Any: ...


def exports(obj: Any) -> bool:
    """Whether ``obj`` offers DLPack (NumPy arrays do too: callers take
    those as they are)."""
    return hasattr(type(obj), "__dlpack__") and hasattr(type(obj), "__dlpack_device__")


class _Relabelled:
    """``obj``'s DLPack export with a bfloat16 dtype shown as uint16."""

    __slots__ = ("_obj", "bfloat16")

    def __init__(self, obj: Any) -> None:
        self._obj = obj
        self.bfloat16 = False

    def __dlpack_device__(self) -> Any:
        return self._obj.__dlpack_device__()

    def __dlpack__(self, **kwargs: Any) -> Any:
        capsule = self._obj.__dlpack__(**kwargs)
        name = _capsule_name(capsule)
        if name in _TENSOR_AT:
            dtype = _capsule_pointer(capsule, name) + _TENSOR_AT[name] + _DTYPE_AT
            code, bits = ctypes.c_uint8.from_address(dtype), ctypes.c_uint8.from_address(dtype + 1)
            if code.value == _BFLOAT and bits.value == 16:
                code.value = _UINT
                self.bfloat16 = True
        return capsule


def to_numpy(obj: Any, port: str, name: str) -> Union[np.ndarray, Error]:
    """A NumPy view of a DLPack producer's host memory (its shape, strides
    and writability), or the INVALID_BINDING Error naming what stands in the
    way: another device, or an export NumPy cannot read.

    The producer's ``__dlpack_device__`` is asked only when the export
    fails (PyTorch's costs as much as a small call), and the capsule is
    relabelled only for bfloat16: when ``obj.dtype`` names it, or on a
    second export after NumPy refused the first one's dtype."""
    bfloat16 = str(getattr(obj, "dtype", "")).endswith("bfloat16")
    try:
        return _viewed(obj, bfloat16)
    except Exception as exc:  # BufferError, RuntimeError, TypeError: the producer's or NumPy's refusal
        refused = exc
    try:
        device = tuple(obj.__dlpack_device__())
    except Exception as exc:
        return Error(ErrorCode.INVALID_BINDING, f"{port} ({name}): {type_name(obj)}.__dlpack_device__() failed: "
                                                f"{describe(exc)}")
    if device[0] != DEVICE_CPU:  # (NumPy also maps CUDA host and managed memory: those never get here)
        return Error(ErrorCode.INVALID_BINDING, f"{port} ({name}): the {type_name(obj)} is on DLPack device "
                                                f"{device} (type {device[0]}), not the CPU: copy it to the host first "
                                                f"(for example .cpu()); nothing is copied implicitly")
    if not bfloat16:
        try:
            return _viewed(obj, True)
        except Exception:
            pass  # not a bfloat16 export either: the first refusal says why
    return Error(ErrorCode.INVALID_BINDING, f"{port} ({name}): the {type_name(obj)} could not be read through "
                                            f"DLPack: {describe(refused)}")


def _viewed(obj: Any, bfloat16: bool) -> np.ndarray:
    if not bfloat16:
        return np.from_dlpack(obj)
    relabelled = _Relabelled(obj)
    array = np.from_dlpack(relabelled)
    return array.view(ml_dtypes.bfloat16) if relabelled.bfloat16 else array
