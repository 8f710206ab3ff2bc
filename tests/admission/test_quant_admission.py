"""Quant admission specific to it: the FP32/BF16/FP16 input and INT8 output
dtypes, rounding names, frozen parameters, layouts (with strides of its
ports) and their exact requirements, overflow, every route preparing every
entry.  What Quant shares with Dequant (dtype pairs, multiplier and zero
point validation, arity, shapes, operation identity) is in
test_op_admission.py."""
import dataclasses

import pytest

import simakernels as sk
from support.helpers import ROUTES
from support.op_cases import QUANT, assert_accepted, assert_rejected
from support.quant_helpers import BF16, F16, F32, MODES, pow2

E = sk.ErrorCode
D = sk.DType
I8 = D.INT8
Params = sk.ops.quant.Params
Rounding = sk.ops.quant.Rounding
INPUTS = (F32, BF16, F16)
req = QUANT.req


# ------------------------------------------------------------------ dtypes


@pytest.mark.parametrize("src", [d for d in D if d not in INPUTS], ids=lambda d: d.name)
def test_inputs_other_than_floats_are_rejected(src):
    assert_rejected(QUANT, req((4,), src), E.UNSUPPORTED_DTYPE, "input 0", src.name)


@pytest.mark.parametrize("dst", [d for d in D if d is not I8], ids=lambda d: d.name)
@pytest.mark.parametrize("src", INPUTS, ids=lambda d: d.name)
def test_outputs_other_than_int8_are_rejected(src, dst):
    assert_rejected(QUANT, req((4,), src, dst), E.UNSUPPORTED_DTYPE, "output 0")


# ------------------------------------------------------------------ parameters


def test_default_rounding():
    assert Params(2.0).rounding is Rounding.NEAREST_EVEN
    assert Params.from_bits(0x40000000).rounding is Rounding.NEAREST_EVEN


@pytest.mark.parametrize("name", MODES)
def test_rounding_by_enum_or_lower_case_name(name):
    member = Rounding[name.upper()]
    assert Params(1.0, 0, name).rounding is member
    assert Params(1.0, 0, member).rounding is member
    assert Params.from_bits(0x3F800000, 0, name).rounding is member
    assert Params(1.0, 0, name) == Params(1.0, 0, member)
    assert isinstance(sk.ops.quant.check_inference(req((2,), params=Params(1.0, 0, name))), sk.ops.quant.Plan)


def test_rounding_enum_values_match_the_descriptor_codes():
    assert [m.value for m in (Rounding.NEAREST_EVEN, Rounding.TOWARD_ZERO, Rounding.TOWARD_POSITIVE,
                              Rounding.TOWARD_NEGATIVE)] == [0, 1, 2, 3]
    assert [m.name.lower() for m in Rounding] == list(MODES)


@pytest.mark.parametrize("rounding", ["bogus", "nearest", "", 0, 2, None, sk.fenv.Rounding.NEAREST, 1.5],
                         ids=repr)
def test_invalid_rounding_raises_value_error(rounding):
    with pytest.raises(ValueError):
        Params(1.0, 0, rounding)
    with pytest.raises(ValueError):
        Params.from_bits(0x3F800000, 0, rounding)


def test_params_are_frozen():
    p = Params(0.5, 3, "toward_zero")
    for attribute, value in (("multiplier", 1.0), ("zero_point", 0), ("rounding", Rounding.NEAREST_EVEN),
                             ("multiplier_bits", 0x3F800000)):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(p, attribute, value)


# ------------------------------------------------------------------ layouts

def test_layouts():
    # FP32 input strides must be multiples of 4, BF16/FP16 of 2; INT8 any.
    assert_rejected(QUANT, req((2, 3), F32, in_strides=(12, 2)), E.UNSUPPORTED_LAYOUT, "input 0", "axis 1")
    assert_rejected(QUANT, req((2, 3), BF16, in_strides=(7, 2)), E.UNSUPPORTED_LAYOUT, "input 0", "axis 0")
    assert_rejected(QUANT, req((2, 3), F16, in_strides=(6, 3)), E.UNSUPPORTED_LAYOUT, "input 0", "axis 1")
    assert_rejected(QUANT, req((2, 3), out_strides=(3, 0)), E.UNSUPPORTED_LAYOUT, "output 0", "axis 1")
    assert_rejected(QUANT, req((2, 3), out_strides=(3, -1)), E.UNSUPPORTED_LAYOUT, "output 0")
    assert_rejected(QUANT, req((2, 2), out_strides=(1, 1)), E.UNSUPPORTED_LAYOUT, "output 0")   # overlapping
    assert_rejected(QUANT, req((2, 3), F16, in_strides=(2,)), E.UNSUPPORTED_LAYOUT, "input 0")


@pytest.mark.parametrize(
    "shape, src, in_strides, out_strides, in_need, out_need",
    [
        ((2, 3), F32, None, None, (24, 4), (6, 1)),
        ((2, 3), BF16, (8, 2), (4, 1), (14, 2), (7, 1)),          # padded rows on both ports
        ((2, 3), F16, (2, 4), (1, 2), (12, 2), (6, 1)),           # transposed
        ((), F32, None, None, (4, 4), (1, 1)),                    # scalar
        ((), F16, (), (), (2, 2), (1, 1)),
        ((5,), F32, (12,), (3,), (52, 4), (13, 1)),               # stepped
        ((1, 4), BF16, (0, 2), (0, 1), (8, 2), (4, 1)),           # zero stride on a singleton axis
        ((0,), F32, None, None, (0, 4), (0, 1)),                  # empty
        ((3, 0, 2), F16, (8, 0, 2), (4, 0, 1), (0, 2), (0, 1)),
        (((1 << 61) - 1,), BF16, None, None, ((1 << 62) - 2, 2), ((1 << 61) - 1, 1)),  # huge but representable
    ],
)
def test_accepted_requirements(shape, src, in_strides, out_strides, in_need, out_need):
    assert_accepted(QUANT, req(shape, src, I8, in_strides, out_strides), in_need, out_need)


@pytest.mark.parametrize("shape, src", [((1 << 62,), F16), ((1 << 61,), F32), ((1 << 40, 1 << 40), BF16)])
def test_overflow(shape, src):
    assert_rejected(QUANT, req(shape, src), E.OVERFLOW)


def test_every_route_is_listed_once_and_prepares_every_entry():
    assert len(set(ROUTES)) == len(ROUTES) and "scalar" in ROUTES
    for route in ROUTES:
        for src in INPUTS:
            for mode in MODES:
                plan = sk.a65.quant.check_inference(req((3,), src, params=Params.from_bits(pow2(-3), 1, mode)),
                                                    route=route)
                assert isinstance(plan, sk.a65.quant.Plan) and plan.route == route
                assert plan.shared.params.rounding is Rounding[mode.upper()]
