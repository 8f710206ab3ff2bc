"""simakernels: bit-exact Cast, Dequant and Quant kernels for the A65 CPU and
the EV74 host codec; the same bits on x86 and on the DevKit."""
from ._version import __version__
from . import _ffi  # noqa: F401  (loads the core and refuses a stale build)
from .core import (
    Contiguous,
    DType,
    Error,
    ErrorCode,
    KernelError,
    Requirement,
    Strided,
    TensorSpec,
)
from .buffers import ConstHostBuffer, HostBuffer
from . import fenv, ops, a65, ev74, formats, testing
from .arrays import cast, dequantize, quantize
from .packed import Packed, pack
from .core import QParams
from .qparams import choose_qparams, quantize_dynamic

__all__ = [
    "__version__",
    "Contiguous",
    "ConstHostBuffer",
    "DType",
    "Error",
    "ErrorCode",
    "HostBuffer",
    "KernelError",
    "Packed",
    "Requirement",
    "Strided",
    "TensorSpec",
    "a65",
    "ev74",
    "QParams",
    "cast",
    "choose_qparams",
    "quantize_dynamic",
    "dequantize",
    "quantize",
    "fenv",
    "formats",
    "ops",
    "pack",
    "testing",
]
