"""Backend-neutral admission: one module per operation."""
from . import cast

__all__ = ["cast"]
