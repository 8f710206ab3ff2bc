"""The EV74 host codec: Quant descriptors, binding, native decoding and a
host device model."""
from . import quant
from .device import Completion, Device, WorkUnit
from .region import DeviceRegion

__all__ = ["quant", "Device", "DeviceRegion", "Completion", "WorkUnit"]
