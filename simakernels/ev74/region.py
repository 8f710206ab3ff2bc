"""A region of the EV74's 32-bit device address space."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DeviceRegion:
    """``capacity`` bytes at device ``address`` (resolved by the Runtime, or
    allocated by the host :class:`~simakernels.ev74.Device` model).  Values
    are checked by binding, which reports errors instead of raising."""

    address: int
    capacity: int
