"""Backend-neutral admission: one module per operation."""
from . import cast, dequant, quant

__all__ = ["cast", "dequant", "quant"]
