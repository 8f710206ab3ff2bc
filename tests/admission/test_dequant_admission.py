"""Dequant admission specific to it: the INT8 input and FP32/BF16 output
dtypes, layouts (with strides of its ports) and their exact requirements,
overflow.  What Dequant shares with Quant (dtype pairs, parameters, arity,
shapes, operation identity) is in test_op_admission.py."""
import pytest

import simakernels as sk
from support.helpers import BF16, F32, I8
from support.op_cases import DEQUANT, assert_accepted, assert_rejected

E = sk.ErrorCode
D = sk.DType
req = DEQUANT.req


# ------------------------------------------------------------------ dtypes


@pytest.mark.parametrize("src", [d for d in D if d is not D.INT8], ids=lambda d: d.name)
@pytest.mark.parametrize("dst", [F32, BF16], ids=lambda d: d.name)
def test_inputs_other_than_int8_are_rejected(src, dst):
    assert_rejected(DEQUANT, req((4,), src, dst), E.UNSUPPORTED_DTYPE, "input 0", src.name)


@pytest.mark.parametrize("dst", [d for d in D if d not in (F32, BF16)], ids=lambda d: d.name)
def test_outputs_other_than_f32_bf16_are_rejected(dst):
    assert_rejected(DEQUANT, req((4,), I8, dst), E.UNSUPPORTED_DTYPE, "output 0")


# ------------------------------------------------------------------ layouts


def test_layouts():
    # FP32 output strides must be multiples of 4, BF16 of 2; INT8 any.
    assert_rejected(DEQUANT, req((2, 3), dst=F32, out_strides=(12, 2)), E.UNSUPPORTED_LAYOUT, "output 0", "axis 1")
    assert_rejected(DEQUANT, req((2, 3), dst=BF16, out_strides=(7, 2)), E.UNSUPPORTED_LAYOUT, "output 0", "axis 0")
    assert_rejected(DEQUANT, req((2, 3), in_strides=(3, 0)), E.UNSUPPORTED_LAYOUT, "input 0", "axis 1")
    assert_rejected(DEQUANT, req((2, 3), in_strides=(3, -1)), E.UNSUPPORTED_LAYOUT, "input 0")
    assert_rejected(DEQUANT, req((2, 2), in_strides=(1, 1)), E.UNSUPPORTED_LAYOUT, "input 0")   # overlapping
    assert_rejected(DEQUANT, req((2, 3), in_strides=(1,)), E.UNSUPPORTED_LAYOUT, "input 0")


@pytest.mark.parametrize(
    "shape, dst, in_strides, out_strides, in_need, out_need",
    [
        ((2, 3), F32, None, None, (6, 1), (24, 4)),
        ((2, 3), BF16, None, (8, 2), (6, 1), (14, 2)),            # the specification's example
        ((), F32, None, None, (1, 1), (4, 4)),                    # scalar
        ((), BF16, (), (), (1, 1), (2, 2)),
        ((5,), F32, (3,), (8,), (13, 1), (36, 4)),                # odd INT8 stride
        ((2, 3), BF16, (1, 2), (2, 4), (6, 1), (12, 2)),          # transposed
        ((1, 4), F32, (0, 1), (0, 4), (4, 1), (16, 4)),           # zero stride on a singleton axis
        ((0,), F32, None, None, (0, 1), (0, 4)),                  # empty
        ((3, 0, 2), BF16, (8, 0, 1), (4, 0, 2), (0, 1), (0, 2)),
        (((1 << 61) - 1,), F32, None, None, ((1 << 61) - 1, 1), ((1 << 63) - 4, 4)),  # huge but representable
    ],
)
def test_accepted_requirements(shape, dst, in_strides, out_strides, in_need, out_need):
    assert_accepted(DEQUANT, req(shape, I8, dst, in_strides, out_strides), in_need, out_need)


@pytest.mark.parametrize("shape, dst", [((1 << 61,), F32), ((1 << 62,), BF16), ((1 << 40, 1 << 40), F32)])
def test_overflow(shape, dst):
    assert_rejected(DEQUANT, req(shape, I8, dst), E.OVERFLOW)
