"""Quant (FP32 / BF16 / FP16 -> INT8): backend-neutral request, parameters
and admission.

Per element, in this order: decode the input; multiply by the binary32
multiplier with the product rounded to binary32 (nearest-even, gradual
underflow); round that value to an integer by the selected mode; add the zero
point; saturate to [-128, 127].  NaN -> zero point; +/-infinity saturate by
sign; both zeros -> zero point.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Union

from .. import _binary32
from .._ffi import lib
from ..admission import admit_elementwise
from ..core import DType, Error, ErrorCode, type_name
from ._base import RequestBase, SharedPlan, check_affine_params

INPUTS = (DType.FLOAT32, DType.BFLOAT16, DType.FLOAT16)


class Rounding(enum.Enum):
    """Integer rounding of the binary32 product (the C core's ``enum
    sk_quant_rounding`` values, read from it)."""

    NEAREST_EVEN = lib.SK_QUANT_NEAREST_EVEN
    TOWARD_ZERO = lib.SK_QUANT_TOWARD_ZERO
    TOWARD_POSITIVE = lib.SK_QUANT_TOWARD_POSITIVE
    TOWARD_NEGATIVE = lib.SK_QUANT_TOWARD_NEGATIVE

    @classmethod
    def parse(cls, value: Union["Rounding", str]) -> "Rounding":
        """The enum member, or its lower-case name ("nearest_even", ...)."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str) and value.upper() in cls.__members__:
            return cls[value.upper()]
        raise ValueError(f"rounding must be a quant.Rounding or one of {[m.name.lower() for m in cls]}, got {value!r}")


@dataclass(frozen=True)
class Params:
    """``multiplier`` is a real number (int, float, Fraction, NumPy integer
    or floating scalar; not a string or a bool), stored as binary32
    (``numpy.float32(multiplier)``): finite and > 0, subnormal allowed (a
    multiplier, not a divisor or scale: ``1 / scale`` for a dequantization
    scale).
    ``zero_point`` must be in [-128, 127].  Checked by admission
    (``INVALID_PARAMS``)."""

    multiplier: Any
    zero_point: int = 0
    rounding: Rounding = Rounding.NEAREST_EVEN
    multiplier_bits: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # A value that is not a real number is kept as given (bits 0), for
        # admission to refuse with a message naming it.
        real = _binary32.is_real(self.multiplier)
        object.__setattr__(self, "multiplier_bits", _binary32.bits_of(self.multiplier) if real else 0)
        if real:
            object.__setattr__(self, "multiplier", _binary32.from_bits(self.multiplier_bits))
        object.__setattr__(self, "zero_point", _binary32.as_int(self.zero_point))
        object.__setattr__(self, "rounding", Rounding.parse(self.rounding))

    @classmethod
    def from_bits(cls, multiplier_bits: int, zero_point: int = 0,
                  rounding: Union[Rounding, str] = Rounding.NEAREST_EVEN) -> "Params":
        """Parameters from the multiplier's binary32 representation."""
        return cls(_binary32.from_bits(multiplier_bits), zero_point, Rounding.parse(rounding))


@dataclass(frozen=True)
class Request(RequestBase):
    params: Params


@dataclass(frozen=True)
class Plan(SharedPlan):
    request: Request

    @property
    def params(self) -> Params:
        return self.request.params


def check_params(params: Any) -> Union[Error, None]:
    bits = params.multiplier_bits if isinstance(params, Params) else 0
    return check_affine_params(params, Params, "quant", "multiplier", bits, (-128, 127))


def check_inference(request: Request) -> Union[Plan, Error]:
    """Admits a quant request: returns a shared :class:`Plan` or an Error."""
    if not isinstance(request, Request):
        return Error(
            ErrorCode.INVALID_OPERATION,
            f"quant.check_inference takes a quant.Request, got {type_name(request)}",
        )
    admitted = admit_elementwise(
        "quant",
        request.inputs,
        request.outputs,
        lambda src, dst: src in INPUTS and dst is DType.INT8,
        "FLOAT32 -> INT8, BFLOAT16 -> INT8, FLOAT16 -> INT8",
    )
    if isinstance(admitted, Error):
        return admitted
    error = check_params(request.params)
    if error is not None:
        return error
    return Plan(request, admitted)
