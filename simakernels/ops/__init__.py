"""Backend-neutral admission: one module per operation."""
from . import cast, dequant

__all__ = ["cast", "dequant"]
