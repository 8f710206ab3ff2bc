"""Backend-neutral admission: one module per operation."""
from . import affine_dequant, affine_quant, cast, dequant, quant

__all__ = ["affine_dequant", "affine_quant", "cast", "dequant", "quant"]
