"""Independent test oracle: expected bits computed from the specification.

Pure Python, exact arithmetic (integers and :class:`fractions.Fraction`) with
explicit IEEE rounding. It never imports the package under test, never uses
floating-point arithmetic and never copies a production bit trick, so an
agreement between the kernels and this oracle is evidence, not tautology.

Modules:

* :mod:`.formats`: BINARY32 / BFLOAT16 / BINARY16, exact decoding, rounding.
* :mod:`.integers`: integer rounding modes, 32-bit wrap-around, saturation.
* :mod:`.cast`: FP32 <-> BF16 (Cast).
* :mod:`.dequant`: INT8 -> FP32 / BF16 (Dequant, staged binary32 arithmetic).
* :mod:`.quant`: FP32 / BF16 / FP16 -> INT8 (Quant, ordered arithmetic).
* :mod:`.hurray`: the Hurray per-tensor affine dequantization formula.
* :mod:`.qparams`: the ``sk.choose_qparams`` rule (docs/qparams.md): range,
  first scale, multiplier, check (imported as ``oracle.qparams``, not
  re-exported here).
* :mod:`.axis`: per-axis (per-channel) Dequant and Quant: the per-tensor
  results under each element's channel parameters (NumPy integer indexing;
  imported as ``oracle.axis``, not re-exported here).
* :mod:`.blocked`: blocked (group-wise) Dequant and Quant (``oracle.blocked``).
* :mod:`.storage`: the ten Hurray storage types (ranges), packed sub-byte
  bytes and the one-element-per-byte image (``oracle.storage``).
* :mod:`.affine`: affine_quant (FP32 / BF16 / FP16 -> the eight output
  types) and affine_dequant (the ten types -> FP32 / BF16), per tensor, per
  axis and blocked (``oracle.affine``).
"""

from .cast import bf16_to_f32, bf16_to_f32_table, f32_to_bf16, f32_to_bf16_many
from .dequant import (
    dequant_bf16,
    dequant_bf16_table,
    dequant_f32,
    dequant_f32_table,
    int32_to_binary32,
    multiply_binary32,
)
from .formats import (
    BFLOAT16,
    BINARY16,
    BINARY32,
    FORMATS,
    Format,
    Kind,
    Value,
    decode,
    decompose,
    infinity_bits,
    is_finite,
    is_inf,
    is_nan,
    is_subnormal,
    is_zero,
    round_ratio,
    round_scaled,
    round_to_format,
    sign_bit,
    to_bits,
    value_of,
)
from .hurray import hurray_dequant, hurray_difference
from .integers import (
    ROUNDING_MODES,
    round_fraction,
    round_to_integer,
    rounding_name,
    saturate,
    wrap_signed,
)
from .quant import INT8_MAX, INT8_MIN, quant, quant_many, quant_table

__all__ = [
    "BFLOAT16",
    "BINARY16",
    "BINARY32",
    "FORMATS",
    "Format",
    "INT8_MAX",
    "INT8_MIN",
    "Kind",
    "ROUNDING_MODES",
    "Value",
    "bf16_to_f32",
    "bf16_to_f32_table",
    "decode",
    "decompose",
    "dequant_bf16",
    "dequant_bf16_table",
    "dequant_f32",
    "dequant_f32_table",
    "f32_to_bf16",
    "f32_to_bf16_many",
    "hurray_dequant",
    "hurray_difference",
    "infinity_bits",
    "int32_to_binary32",
    "is_finite",
    "is_inf",
    "is_nan",
    "is_subnormal",
    "is_zero",
    "multiply_binary32",
    "quant",
    "quant_many",
    "quant_table",
    "round_fraction",
    "round_ratio",
    "round_scaled",
    "round_to_format",
    "round_to_integer",
    "rounding_name",
    "saturate",
    "sign_bit",
    "to_bits",
    "value_of",
    "wrap_signed",
]
