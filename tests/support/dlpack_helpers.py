"""A DLPack producer for the tests: what a foreign tensor offers (the two
DLPack methods, nothing else), over a NumPy array."""
from __future__ import annotations

import ctypes

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype, _capsule_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


class DLPackOnly:
    """The two DLPack methods of ``array``.  With ``device``, its capsules say
    that device (as a GPU tensor's do) while the memory stays host memory
    that must not be touched; with ``failing``, the export raises it (and
    ``__dlpack_device__`` too when ``failing_device``)."""

    def __init__(self, array, device=None, failing=None, failing_device=None):
        self.array, self.device, self.failing, self.failing_device = array, device, failing, failing_device

    def __dlpack__(self, **kwargs):
        if self.failing is not None:
            raise self.failing
        capsule = self.array.__dlpack__(**kwargs)
        if self.device is not None:
            name = _capsule_name(capsule)
            tensor = _capsule_pointer(capsule, name) + (32 if name == b"dltensor_versioned" else 0)
            ctypes.c_int32.from_address(tensor + 8).value = self.device[0]   # DLTensor.device.device_type
            ctypes.c_int32.from_address(tensor + 12).value = self.device[1]  # DLTensor.device.device_id
        return capsule

    def __dlpack_device__(self):
        if self.failing_device is not None:
            raise self.failing_device
        return self.device if self.device is not None else self.array.__dlpack_device__()
