"""The EV74: the host codec (Quant descriptors, binding, native decoding),
the device kernel's OpenCL C source, and a host Device that runs packets
on a model or on the kernel through an OpenCL runtime."""
from . import quant
from .device import Completion, Device, WorkUnit
from .opencl import kernel_source
from .region import DeviceRegion

__all__ = ["quant", "Device", "DeviceRegion", "Completion", "WorkUnit", "kernel_source"]
