"""Quant admission: dtypes, parameters (bit-based multiplier validation, the
INT8 zero-point range, rounding names), arity, shapes and layouts with
their exact requirements, and the operation identity of requests and plans.
The backend-neutral ``ops.quant.check_inference`` and the A65
``check_inference``/``prepare`` (on every route) must agree."""
import dataclasses

import numpy as np
import pytest

import simakernels as sk
from helpers import ROUTES, SENTINEL, Storage, assert_untouched, fp_or_skip, spec
from quant_helpers import BF16, F16, F32, MODES, pow2

E = sk.ErrorCode
D = sk.DType
I8 = D.INT8
Params = sk.ops.quant.Params
Rounding = sk.ops.quant.Rounding
OK = Params(0.25, -3)
INPUTS = (F32, BF16, F16)


def admit_everywhere(req):
    shared = sk.ops.quant.check_inference(req)
    return shared, [sk.a65.quant.check_inference(req, route=r) for r in ROUTES]


def assert_rejected(req, code, *fragments):
    shared, per_route = admit_everywhere(req)
    for result in [shared, *per_route]:
        assert isinstance(result, sk.Error), f"expected {code.name}, got a plan: {result}"
        assert result.code == code, f"expected {code.name}, got {result}"
        for fragment in fragments:
            assert fragment in result.message, f"{fragment!r} not named in {result.message!r}"
    return shared


def assert_accepted(req, in_need, out_need):
    shared, per_route = admit_everywhere(req)
    assert isinstance(shared, sk.ops.quant.Plan), shared
    for route, plan in zip(ROUTES, per_route):
        assert isinstance(plan, sk.a65.quant.Plan), plan
        assert plan.route == route
        prepared = sk.a65.quant.prepare(shared, route=route)
        assert isinstance(prepared, sk.a65.quant.Plan) and prepared.route == route
        for p in (shared, plan, prepared):
            assert p.input_requirements() == (sk.Requirement(*in_need),)
            assert p.output_requirements() == (sk.Requirement(*out_need),)
    return shared


def req(shape, src=F32, dst=I8, in_strides=None, out_strides=None, params=OK, out_shape=None):
    return sk.ops.quant.Request(
        [spec(shape, src, in_strides)], [spec(shape if out_shape is None else out_shape, dst, out_strides)], params)


# ------------------------------------------------------------------ dtypes


@pytest.mark.parametrize("src", [d for d in D if d not in INPUTS], ids=lambda d: d.name)
def test_inputs_other_than_floats_are_rejected(src):
    assert_rejected(req((4,), src), E.UNSUPPORTED_DTYPE, "input 0", src.name)


@pytest.mark.parametrize("dst", [d for d in D if d is not I8], ids=lambda d: d.name)
@pytest.mark.parametrize("src", INPUTS, ids=lambda d: d.name)
def test_outputs_other_than_int8_are_rejected(src, dst):
    assert_rejected(req((4,), src, dst), E.UNSUPPORTED_DTYPE, "output 0")


def test_exactly_three_dtype_pairs_are_admitted():
    for src in D:
        for dst in D:
            result = sk.ops.quant.check_inference(req((3,), src, dst))
            if src in INPUTS and dst is I8:
                assert isinstance(result, sk.ops.quant.Plan), result
            else:
                assert isinstance(result, sk.Error) and result.code == E.UNSUPPORTED_DTYPE, (src, dst, result)


# ------------------------------------------------------------------ parameters


@pytest.mark.parametrize(
    "multiplier",
    [0.0, -0.0, -1.0, -1e-45, float("inf"), float("-inf"), float("nan"), 1e40, -1e40, 1e-46,
     np.float64(3.5e38), np.float32("-inf")],
    ids=repr,
)
def test_invalid_multiplier(multiplier):
    """Zero (either sign), negative, infinite, NaN, a value that overflows
    binary32 and one that rounds to zero in binary32."""
    for src in INPUTS:
        assert_rejected(req((4,), src, params=Params(multiplier, 0)), E.INVALID_PARAMS, "multiplier")


@pytest.mark.parametrize(
    "bits", [0x00000000, 0x80000000, 0x80000001, 0xBF800000, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
             0x7FC00000, 0x7F800001, 0xFFFFFFFF, 0x807FFFFF], ids=hex)
def test_invalid_multiplier_bits(bits):
    assert_rejected(req((4,), params=Params.from_bits(bits, 0)), E.INVALID_PARAMS, "multiplier")


def test_invalid_params_on_an_empty_tensor():
    """Parameters are validated even when there is nothing to compute."""
    assert_rejected(req((0,), params=Params(0.0)), E.INVALID_PARAMS, "multiplier")
    assert_rejected(req((3, 0), BF16, params=Params(1.0, 128)), E.INVALID_PARAMS, "zero_point")


@pytest.mark.parametrize(
    "zero_point",
    [128, -129, 255, 2**31, -(2**63), 1.5, 1.0, -0.0, True, False, np.True_, "3", None, np.float32(2.0),
     np.int16(128), np.uint8(200), np.int64(-129)],
    ids=repr)
def test_invalid_zero_point(zero_point):
    for src in INPUTS:
        assert_rejected(req((4,), src, params=Params(1.0, zero_point)), E.INVALID_PARAMS, "zero_point")


@pytest.mark.parametrize("bits", [0x00000001, 0x007FFFFF, 0x00400000, 0x00800000, 0x7F7FFFFF, 0x3E99999A],
                         ids=hex)
def test_extreme_finite_multipliers_are_accepted(bits):
    for src in INPUTS:
        shared = assert_accepted(req((4,), src, params=Params.from_bits(bits, -5)), (4 * src.itemsize, src.itemsize),
                                 (4, 1))
        assert shared.params.multiplier_bits == bits


def test_multiplier_is_converted_to_binary32():
    p = Params(0.1)
    assert p.multiplier_bits == 0x3DCCCCCD
    assert float(p.multiplier) == float(np.float32(0.1))      # the binary32 value, not 0.1
    assert Params(1e-45).multiplier_bits == 0x00000001       # rounds to the smallest subnormal
    assert Params(np.float32(0.25)).multiplier_bits == 0x3E800000
    assert Params(3).multiplier_bits == 0x40400000
    assert Params.from_bits(0x3E99999A).multiplier_bits == 0x3E99999A
    assert Params.from_bits(0x00000001).multiplier_bits == 0x00000001


@pytest.mark.parametrize(
    "zero_point, value",
    [(np.int8(-128), -128), (np.int64(127), 127), (np.uint8(5), 5), (np.int32(-100), -100),
     (np.int16(-128), -128), (np.uint64(127), 127), (-128, -128), (127, 127), (0, 0)],
    ids=repr)
def test_integer_zero_points_are_accepted(zero_point, value):
    shared = assert_accepted(req((4,), BF16, params=Params(0.5, zero_point)), (8, 2), (4, 1))
    assert shared.params.zero_point == value and type(shared.params.zero_point) is int


def test_defaults():
    p = Params(2.0)
    assert p.zero_point == 0 and p.rounding is Rounding.NEAREST_EVEN
    q = Params.from_bits(0x40000000)
    assert q.zero_point == 0 and q.rounding is Rounding.NEAREST_EVEN


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


def test_params_must_be_quant_params():
    for params in (None, sk.ops.dequant.Params(0.25, -3), sk.ops.cast.Params(), (0.25, -3), {"multiplier": 0.25}):
        assert_rejected(req((4,), params=params), E.INVALID_PARAMS)


def test_multiplier_validation_is_bit_based_under_any_fp_mode():
    """Admission and preparation use the multiplier's bits: a subnormal
    multiplier is admitted even under flush-to-zero / denormals-are-zero and
    directed rounding, and a negative zero is still rejected."""
    request = req((4,), BF16, params=Params.from_bits(0x00000001, 127, "toward_negative"))
    zero = req((4,), params=Params.from_bits(0x80000000, 0))
    for state in (dict(flush_to_zero=True, denormals_are_zero=True), dict(rounding=sk.fenv.Rounding.UPWARD)):
        with fp_or_skip(**state):
            results = [sk.ops.quant.check_inference(request)]
            results += [sk.a65.quant.check_inference(request, route=r) for r in ROUTES]
            rejected = sk.ops.quant.check_inference(zero)
        for result in results:
            assert not isinstance(result, sk.Error), (state, result)
            shared = result if isinstance(result, sk.ops.quant.Plan) else result.shared
            assert shared.params.multiplier_bits == 0x00000001
        assert isinstance(rejected, sk.Error) and rejected.code == E.INVALID_PARAMS


# ------------------------------------------------------------------ arity / shapes / layouts

A, B = spec((2, 3), F32), spec((2, 3), I8)


@pytest.mark.parametrize(
    "inputs, outputs", [([], [B]), ([A, A], [B]), ([A], []), ([A], [B, B]), ([], [])],
    ids=["0-in", "2-in", "0-out", "2-out", "0-0"])
def test_wrong_arity(inputs, outputs):
    assert_rejected(sk.ops.quant.Request(inputs, outputs, OK), E.INVALID_ARITY)


def test_shapes():
    assert_rejected(req((2, -3), out_shape=(2, 3)), E.INVALID_SHAPE, "input 0", "axis 1")
    assert_rejected(req((2, 3), out_shape=(2, 4)), E.INVALID_SHAPE, "axis 1")
    assert_rejected(req((2, 3), out_shape=(6,)), E.INVALID_SHAPE, "rank")
    assert_rejected(req((), out_shape=(1,)), E.INVALID_SHAPE, "rank")
    with pytest.raises(ValueError):
        sk.TensorSpec((1,) * 7, F32)


def test_layouts():
    # FP32 input strides must be multiples of 4, BF16/FP16 of 2; INT8 any.
    assert_rejected(req((2, 3), F32, in_strides=(12, 2)), E.UNSUPPORTED_LAYOUT, "input 0", "axis 1")
    assert_rejected(req((2, 3), BF16, in_strides=(7, 2)), E.UNSUPPORTED_LAYOUT, "input 0", "axis 0")
    assert_rejected(req((2, 3), F16, in_strides=(6, 3)), E.UNSUPPORTED_LAYOUT, "input 0", "axis 1")
    assert_rejected(req((2, 3), out_strides=(3, 0)), E.UNSUPPORTED_LAYOUT, "output 0", "axis 1")
    assert_rejected(req((2, 3), out_strides=(3, -1)), E.UNSUPPORTED_LAYOUT, "output 0")
    assert_rejected(req((2, 2), out_strides=(1, 1)), E.UNSUPPORTED_LAYOUT, "output 0")   # overlapping
    assert_rejected(req((2, 3), F16, in_strides=(2,)), E.UNSUPPORTED_LAYOUT, "input 0")


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
    assert_accepted(req(shape, src, I8, in_strides, out_strides), in_need, out_need)


@pytest.mark.parametrize("shape, src", [((1 << 62,), F16), ((1 << 61,), F32), ((1 << 40, 1 << 40), BF16)])
def test_overflow(shape, src):
    assert_rejected(req(shape, src), E.OVERFLOW)


# ------------------------------------------------------------------ operation identity


def cast_request():
    return sk.ops.cast.Request([spec((4,), F32)], [spec((4,), BF16)])


def dequant_request():
    return sk.ops.dequant.Request([spec((4,), I8)], [spec((4,), F32)], sk.ops.dequant.Params(0.25, -3))


def test_other_requests_are_invalid_operation():
    for other in (cast_request(), dequant_request(), None, "quant"):
        results = [sk.ops.quant.check_inference(other)]
        results += [sk.a65.quant.check_inference(other, route=r) for r in ROUTES]
        for result in results:
            assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, (other, result)


@dataclasses.dataclass(frozen=True)
class LookAlike:
    inputs: tuple
    outputs: tuple
    params: object


def test_look_alike_request_is_invalid_operation():
    fake = LookAlike((spec((4,), F32),), (spec((4,), I8),), OK)
    assert sk.ops.quant.check_inference(fake).code == E.INVALID_OPERATION


def test_prepare_takes_a_quant_shared_plan_only():
    q_req = req((4,))
    others = (sk.ops.cast.check_inference(cast_request()), sk.ops.dequant.check_inference(dequant_request()),
              q_req, sk.a65.quant.check_inference(q_req), None)
    for wrong in others:
        result = sk.a65.quant.prepare(wrong)
        assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result
    shared = sk.ops.quant.check_inference(q_req)
    for module in (sk.a65.cast, sk.a65.dequant):
        result = module.prepare(shared)
        assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result


@pytest.mark.parametrize("route", ROUTES)
def test_plan_of_another_operation_is_invalid_operation(route):
    """Cast and dequant plans (and a shared quant plan, a request, None)
    given to a65.quant.execute, and a quant plan given to the cast and
    dequant executes: INVALID_OPERATION with nothing written."""
    cast_plan = sk.a65.cast.check_inference(cast_request(), route=route)
    dq_plan = sk.a65.dequant.check_inference(dequant_request(), route=route)
    q_req = req((4,))
    q_plan = sk.a65.quant.check_inference(q_req, route=route)
    src = Storage.make((4,), F32)         # 16 bytes: large enough for any of these plans' input
    dst = Storage.make((4,), F32)         # 16 bytes of sentinel
    for wrong in (cast_plan, dq_plan, sk.ops.quant.check_inference(q_req), q_req, None):
        result = sk.a65.quant.execute(wrong, [src.buf], [dst.buf])
        assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result
        assert_untouched(dst.buf, SENTINEL, what="output")
    for module in (sk.a65.cast, sk.a65.dequant):
        result = module.execute(q_plan, [src.buf], [dst.buf])
        assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result
        assert_untouched(dst.buf, SENTINEL, what="output")


def test_unknown_route_is_an_error():
    for result in (sk.a65.quant.check_inference(req((4,)), route="bogus"),
                   sk.a65.quant.prepare(sk.ops.quant.check_inference(req((4,))), route="bogus")):
        assert isinstance(result, sk.Error) and result.code == E.UNSUPPORTED_ENVIRONMENT
        assert "bogus" in result.message


def test_every_route_is_listed_once_and_prepares_every_entry():
    assert len(set(ROUTES)) == len(ROUTES) and "scalar" in ROUTES
    for route in ROUTES:
        for src in INPUTS:
            for mode in MODES:
                plan = sk.a65.quant.check_inference(req((3,), src, params=Params.from_bits(pow2(-3), 1, mode)),
                                                    route=route)
                assert isinstance(plan, sk.a65.quant.Plan) and plan.route == route
                assert plan.shared.params.rounding is Rounding[mode.upper()]
