"""Quantization descriptor formats."""
from . import hurray

__all__ = ["hurray"]
