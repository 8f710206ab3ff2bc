"""Dequant admission: dtypes, parameters (bit-based scale validation, the
INT32 zero-point range), arity, shapes and layouts with their exact
requirements, the operation identity of requests and plans.  The
backend-neutral ``ops.dequant.check_inference`` and the A65
``check_inference``/``prepare`` (on every route) must agree."""
import dataclasses

import numpy as np
import pytest

import simakernels as sk
from helpers import (
    BF16,
    F32,
    I8,
    ROUTES,
    SENTINEL,
    Storage,
    assert_untouched,
    dequant_request,
    fp_or_skip,
    spec,
)

E = sk.ErrorCode
Params = sk.ops.dequant.Params
D = sk.DType
OK = Params(0.25, -3)


def admit_everywhere(req):
    shared = sk.ops.dequant.check_inference(req)
    return shared, [sk.a65.dequant.check_inference(req, route=r) for r in ROUTES]


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
    assert isinstance(shared, sk.ops.dequant.Plan), shared
    for route, plan in zip(ROUTES, per_route):
        assert isinstance(plan, sk.a65.dequant.Plan), plan
        assert plan.route == route
        prepared = sk.a65.dequant.prepare(shared, route=route)
        assert isinstance(prepared, sk.a65.dequant.Plan) and prepared.route == route
        assert prepared.form == plan.form
        for p in (shared, plan, prepared):
            assert p.input_requirements() == (sk.Requirement(*in_need),)
            assert p.output_requirements() == (sk.Requirement(*out_need),)
    return shared


def req(shape, src=I8, dst=F32, in_strides=None, out_strides=None, params=OK, out_shape=None):
    return sk.ops.dequant.Request(
        [spec(shape, src, in_strides)], [spec(shape if out_shape is None else out_shape, dst, out_strides)], params)


# ------------------------------------------------------------------ dtypes


@pytest.mark.parametrize("src", [d for d in D if d is not D.INT8], ids=lambda d: d.name)
@pytest.mark.parametrize("dst", [F32, BF16], ids=lambda d: d.name)
def test_inputs_other_than_int8_are_rejected(src, dst):
    assert_rejected(req((4,), src, dst), E.UNSUPPORTED_DTYPE, "input 0", src.name)


@pytest.mark.parametrize("dst", [d for d in D if d not in (F32, BF16)], ids=lambda d: d.name)
def test_outputs_other_than_f32_bf16_are_rejected(dst):
    assert_rejected(req((4,), I8, dst), E.UNSUPPORTED_DTYPE, "output 0")


def test_exactly_two_dtype_pairs_are_admitted():
    for src in D:
        for dst in D:
            result = sk.ops.dequant.check_inference(req((3,), src, dst))
            if src is I8 and dst in (F32, BF16):
                assert isinstance(result, sk.ops.dequant.Plan), result
            else:
                assert isinstance(result, sk.Error) and result.code == E.UNSUPPORTED_DTYPE, (src, dst, result)


# ------------------------------------------------------------------ parameters


@pytest.mark.parametrize(
    "scale",
    [0.0, -0.0, -1.0, -1e-45, float("inf"), float("-inf"), float("nan"), 1e40, -1e40, 1e-46, np.float64(3.5e38)],
    ids=repr,
)
def test_invalid_scale(scale):
    """Zero (either sign), negative, infinite, NaN, a value that overflows
    binary32 and one that rounds to zero in binary32."""
    for dst in (F32, BF16):
        assert_rejected(req((4,), dst=dst, params=Params(scale, 0)), E.INVALID_PARAMS, "scale")


@pytest.mark.parametrize(
    "bits", [0x00000000, 0x80000000, 0x80000001, 0xBF800000, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
             0x7FC00000, 0x7F800001, 0xFFFFFFFF], ids=hex)
def test_invalid_scale_bits(bits):
    assert_rejected(req((4,), params=Params.from_bits(bits, 0)), E.INVALID_PARAMS, "scale")


def test_invalid_scale_on_an_empty_tensor():
    """Parameters are validated even when there is nothing to compute."""
    assert_rejected(req((0,), params=Params(0.0)), E.INVALID_PARAMS, "scale")
    assert_rejected(req((3, 0), params=Params(1.0, 2**31)), E.INVALID_PARAMS, "zero_point")


@pytest.mark.parametrize(
    "zero_point", [2**31, -(2**31) - 1, 2**63, 1.5, 1.0, True, False, "3", None, np.float32(2.0), np.uint64(2**32)],
    ids=repr)
def test_invalid_zero_point(zero_point):
    assert_rejected(req((4,), params=Params(1.0, zero_point)), E.INVALID_PARAMS, "zero_point")


@pytest.mark.parametrize("bits", [0x00000001, 0x007FFFFF, 0x00400000, 0x00800000, 0x7F7FFFFF], ids=hex)
def test_extreme_finite_scales_are_accepted(bits):
    shared = assert_accepted(req((4,), params=Params.from_bits(bits, -5)), (4, 1), (16, 4))
    assert shared.params.scale_bits == bits


def test_scale_is_converted_to_binary32():
    p = Params(0.1, 0)
    assert p.scale_bits == 0x3DCCCCCD
    assert float(p.scale) == float(np.float32(0.1))  # the binary32 value, not 0.1
    assert Params(1e-45).scale_bits == 0x00000001   # rounds to the smallest subnormal
    assert Params(np.float32(0.25)).scale_bits == 0x3E800000
    assert Params(3).scale_bits == 0x40400000


@pytest.mark.parametrize(
    "zero_point, value",
    [(np.int8(-128), -128), (np.int32(-(2**31)), -(2**31)), (np.int64(2**31 - 1), 2**31 - 1),
     (np.uint8(200), 200), (np.int16(16777), 16777), (np.uint32(16777217), 16777217),
     (2**31 - 1, 2**31 - 1), (-(2**31), -(2**31))],
    ids=repr)
def test_integer_zero_points_are_accepted(zero_point, value):
    shared = assert_accepted(req((4,), params=Params(0.5, zero_point)), (4, 1), (16, 4))
    assert shared.params.zero_point == value and type(shared.params.zero_point) is int


def test_zero_point_defaults_to_zero():
    assert Params(2.0).zero_point == 0
    assert Params.from_bits(0x40000000).zero_point == 0


def test_params_must_be_dequant_params():
    for params in (None, sk.ops.cast.Params(), (0.25, -3), {"scale": 0.25}):
        assert_rejected(req((4,), params=params), E.INVALID_PARAMS)


def test_scale_validation_is_bit_based_under_any_fp_mode():
    """Admission and preparation use the scale's bits: a subnormal scale is
    admitted (and its form chosen) even under flush-to-zero /
    denormals-are-zero and directed rounding."""
    request = req((4,), params=Params.from_bits(0x00000001, 16777217))
    zero = req((4,), params=Params.from_bits(0x80000000, 0))
    for state in (dict(flush_to_zero=True, denormals_are_zero=True), dict(rounding=sk.fenv.Rounding.UPWARD)):
        with fp_or_skip(**state):
            results = [sk.ops.dequant.check_inference(request)]
            results += [sk.a65.dequant.check_inference(request, route=r) for r in ROUTES]
            rejected = sk.ops.dequant.check_inference(zero)
        for result in results:
            assert not isinstance(result, sk.Error), (state, result)
            shared = result if isinstance(result, sk.ops.dequant.Plan) else result.shared
            assert shared.params.scale_bits == 0x00000001
        assert [r.form for r in results[1:]] == ["wide"] * len(ROUTES)
        assert isinstance(rejected, sk.Error) and rejected.code == E.INVALID_PARAMS


# ------------------------------------------------------------------ arity / shapes / layouts

A, B = spec((2, 3), I8), spec((2, 3), F32)


@pytest.mark.parametrize(
    "inputs, outputs", [([], [B]), ([A, A], [B]), ([A], []), ([A], [B, B]), ([], [])],
    ids=["0-in", "2-in", "0-out", "2-out", "0-0"])
def test_wrong_arity(inputs, outputs):
    assert_rejected(sk.ops.dequant.Request(inputs, outputs, OK), E.INVALID_ARITY)


def test_shapes():
    assert_rejected(req((2, -3), out_shape=(2, 3)), E.INVALID_SHAPE, "input 0", "axis 1")
    assert_rejected(req((2, 3), out_shape=(2, 4)), E.INVALID_SHAPE, "axis 1")
    assert_rejected(req((2, 3), out_shape=(6,)), E.INVALID_SHAPE, "rank")
    assert_rejected(req((), out_shape=(1,)), E.INVALID_SHAPE, "rank")


def test_layouts():
    # FP32 output strides must be multiples of 4, BF16 of 2; INT8 any.
    assert_rejected(req((2, 3), dst=F32, out_strides=(12, 2)), E.UNSUPPORTED_LAYOUT, "output 0", "axis 1")
    assert_rejected(req((2, 3), dst=BF16, out_strides=(7, 2)), E.UNSUPPORTED_LAYOUT, "output 0", "axis 0")
    assert_rejected(req((2, 3), in_strides=(3, 0)), E.UNSUPPORTED_LAYOUT, "input 0", "axis 1")
    assert_rejected(req((2, 3), in_strides=(3, -1)), E.UNSUPPORTED_LAYOUT, "input 0")
    assert_rejected(req((2, 2), in_strides=(1, 1)), E.UNSUPPORTED_LAYOUT, "input 0")   # overlapping
    assert_rejected(req((2, 3), in_strides=(1,)), E.UNSUPPORTED_LAYOUT, "input 0")


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
    assert_accepted(req(shape, I8, dst, in_strides, out_strides), in_need, out_need)


@pytest.mark.parametrize("shape, dst", [((1 << 61,), F32), ((1 << 62,), BF16), ((1 << 40, 1 << 40), F32)])
def test_overflow(shape, dst):
    assert_rejected(req(shape, I8, dst), E.OVERFLOW)


# ------------------------------------------------------------------ operation identity


def cast_request():
    return sk.ops.cast.Request([spec((4,), F32)], [spec((4,), BF16)])


def test_cast_request_is_invalid_operation():
    cast_req = cast_request()
    results = [sk.ops.dequant.check_inference(cast_req), sk.ops.dequant.check_inference(None)]
    results += [sk.a65.dequant.check_inference(cast_req, route=r) for r in ROUTES]
    for result in results:
        assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result


@dataclasses.dataclass(frozen=True)
class LookAlike:
    inputs: tuple
    outputs: tuple
    params: object


def test_look_alike_request_is_invalid_operation():
    fake = LookAlike((spec((4,), I8),), (spec((4,), F32),), OK)
    assert sk.ops.dequant.check_inference(fake).code == E.INVALID_OPERATION


def test_prepare_takes_a_dequant_shared_plan_only():
    dq_req = req((4,))
    cast_shared = sk.ops.cast.check_inference(cast_request())
    for wrong in (cast_shared, dq_req, sk.a65.dequant.check_inference(dq_req), None):
        result = sk.a65.dequant.prepare(wrong)
        assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result
    # and a dequant shared plan is not a cast one
    result = sk.a65.cast.prepare(sk.ops.dequant.check_inference(dq_req))
    assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result


@pytest.mark.parametrize("route", ROUTES)
def test_plan_of_another_operation_is_invalid_operation(route):
    """A cast plan (and a shared dequant plan, a request) given to
    a65.dequant.execute, and a dequant plan given to a65.cast.execute:
    INVALID_OPERATION with nothing written."""
    cast_plan = sk.a65.cast.check_inference(cast_request(), route=route)
    dq_req = dequant_request((4,), BF16, 0x3E800000, -3)
    dq_plan = sk.a65.dequant.check_inference(dq_req, route=route)
    src = Storage.make((4,), F32)         # 16 bytes: large enough for either plan's input
    dst = Storage.make((4,), F32)         # 16 bytes of sentinel
    for wrong in (cast_plan, sk.ops.dequant.check_inference(dq_req), dq_req, None):
        result = sk.a65.dequant.execute(wrong, [src.buf], [dst.buf])
        assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result
        assert_untouched(dst.buf, SENTINEL, what="output")
    result = sk.a65.cast.execute(dq_plan, [src.buf], [dst.buf])
    assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result
    assert_untouched(dst.buf, SENTINEL, what="output")


def test_unknown_route_is_an_error():
    for result in (sk.a65.dequant.check_inference(req((4,)), route="bogus"),
                   sk.a65.dequant.prepare(sk.ops.dequant.check_inference(req((4,))), route="bogus")):
        assert isinstance(result, sk.Error) and result.code == E.UNSUPPORTED_ENVIRONMENT
        assert "bogus" in result.message
