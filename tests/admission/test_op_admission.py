"""Admission rules that Dequant and Quant share: the exact dtype pairs,
bit-based validation of the binary32 scale (Quant: multiplier) under any FP
mode, zero points as integers of the operation's range, arity and shapes,
and the operation identity of requests and plans among all operations.
The backend-neutral ``check_inference`` and the A65
``check_inference``/``prepare`` (on every route) must agree.  The value
tables that differ (zero-point ranges, layouts, requirements) are in
op_cases and the per-operation files."""
import dataclasses

import numpy as np
import pytest

import simakernels as sk
from support.helpers import ROUTES, SENTINEL, Storage, assert_untouched, fp_or_skip, spec
from support.op_cases import OPS, PARAM_OPS, Op, assert_accepted, assert_invalid_operation, assert_rejected

E = sk.ErrorCode
D = sk.DType


def with_op(values):
    """(op, value) pairs for every parameter-taking operation."""
    return [(op, v) for op in PARAM_OPS for v in values]


def hex_ids(value):
    return repr(value) if isinstance(value, Op) else hex(value)


@pytest.mark.parametrize("op", PARAM_OPS, ids=repr)
def test_exactly_the_admitted_dtype_pairs(op):
    for src in D:
        for dst in D:
            result = op.ops.check_inference(op.req((3,), src, dst))
            if (src, dst) in op.admitted_pairs:
                assert isinstance(result, op.ops.Plan), result
            else:
                assert isinstance(result, sk.Error) and result.code == E.UNSUPPORTED_DTYPE, (src, dst, result)


# ------------------------------------------------------------------ scale / multiplier


@pytest.mark.parametrize(
    "op, value",
    with_op([0.0, -0.0, -1.0, -1e-45, float("inf"), float("-inf"), float("nan"), 1e40, -1e40, 1e-46,
             np.float64(3.5e38), np.float32("-inf")]),
    ids=repr,
)
def test_invalid_scale(op, value):
    """Zero (either sign), negative, infinite, NaN, a value that overflows
    binary32 and one that rounds to zero in binary32."""
    for dtype in op.float_dtypes:
        assert_rejected(op, op.float_req((4,), dtype, op.ops.Params(value, 0)), E.INVALID_PARAMS, op.scale_name)


@pytest.mark.parametrize(
    "op, bits",
    with_op([0x00000000, 0x80000000, 0x80000001, 0xBF800000, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
             0x7FC00000, 0x7F800001, 0xFFFFFFFF, 0x807FFFFF]),
    ids=hex_ids)
def test_invalid_scale_bits(op, bits):
    assert_rejected(op, op.req((4,), params=op.ops.Params.from_bits(bits, 0)), E.INVALID_PARAMS, op.scale_name)


@pytest.mark.parametrize(
    "op, bits", with_op([0x00000001, 0x007FFFFF, 0x00400000, 0x00800000, 0x7F7FFFFF, 0x3E99999A]),
    ids=hex_ids)
def test_extreme_finite_scales_are_accepted(op, bits):
    for dtype in op.float_dtypes:
        shared = assert_accepted(op, op.float_req((4,), dtype, op.ops.Params.from_bits(bits, -5)),
                                 *op.requirements(4, dtype))
        assert getattr(shared.params, op.bits_attr) == bits


@pytest.mark.parametrize("op", PARAM_OPS, ids=repr)
def test_scale_is_converted_to_binary32(op):
    Params, bits = op.ops.Params, op.bits_attr
    p = Params(0.1)
    assert getattr(p, bits) == 0x3DCCCCCD
    assert float(getattr(p, op.scale_name)) == float(np.float32(0.1))   # the binary32 value, not 0.1
    assert getattr(Params(1e-45), bits) == 0x00000001                   # rounds to the smallest subnormal
    assert getattr(Params(np.float32(0.25)), bits) == 0x3E800000
    assert getattr(Params(3), bits) == 0x40400000
    assert getattr(Params.from_bits(0x3E99999A), bits) == 0x3E99999A
    assert getattr(Params.from_bits(0x00000001), bits) == 0x00000001


@pytest.mark.parametrize("op", PARAM_OPS, ids=repr)
def test_scale_validation_is_bit_based_under_any_fp_mode(op):
    """Admission and preparation use the scale's bits: a subnormal scale is
    admitted (Dequant: its form chosen) even under flush-to-zero /
    denormals-are-zero and directed rounding; a negative zero is still
    rejected."""
    zero = op.req((4,), params=op.ops.Params.from_bits(0x80000000, 0))
    for dtype in op.float_dtypes:
        request = op.float_req((4,), dtype, op.subnormal_params)
        for state in (dict(flush_to_zero=True, denormals_are_zero=True), dict(rounding=sk.fenv.Rounding.UPWARD)):
            with fp_or_skip(**state):
                results = [op.ops.check_inference(request)]
                results += [op.a65.check_inference(request, route=r) for r in ROUTES]
                rejected = op.ops.check_inference(zero)
            for result in results:
                assert not isinstance(result, sk.Error), (state, result)
                shared = result if isinstance(result, op.ops.Plan) else result.shared
                assert getattr(shared.params, op.bits_attr) == 0x00000001
            for name, value in op.subnormal_plan.items():
                assert [getattr(r, name) for r in results[1:]] == [value] * len(ROUTES)
            assert isinstance(rejected, sk.Error) and rejected.code == E.INVALID_PARAMS


# ------------------------------------------------------------------ zero point / params


@pytest.mark.parametrize("op, zero_point", [(op, z) for op in PARAM_OPS for z in op.invalid_zero_points],
                         ids=repr)
def test_invalid_zero_point(op, zero_point):
    for dtype in op.float_dtypes:
        assert_rejected(op, op.float_req((4,), dtype, op.ops.Params(1.0, zero_point)), E.INVALID_PARAMS,
                        "zero_point")


@pytest.mark.parametrize("op", PARAM_OPS, ids=repr)
def test_invalid_params_on_an_empty_tensor(op):
    """Parameters are validated even when there is nothing to compute."""
    out_of_range = op.invalid_zero_points[0]
    for dtype in op.float_dtypes:
        assert_rejected(op, op.float_req((0,), dtype, op.ops.Params(0.0)), E.INVALID_PARAMS, op.scale_name)
        assert_rejected(op, op.float_req((3, 0), dtype, op.ops.Params(1.0, out_of_range)), E.INVALID_PARAMS,
                        "zero_point")


@pytest.mark.parametrize("op, zero_point, value", [(op, *z) for op in PARAM_OPS for z in op.integer_zero_points],
                         ids=repr)
def test_integer_zero_points_are_accepted(op, zero_point, value):
    for dtype in op.float_dtypes:
        shared = assert_accepted(op, op.float_req((4,), dtype, op.ops.Params(0.5, zero_point)),
                                 *op.requirements(4, dtype))
        assert shared.params.zero_point == value and type(shared.params.zero_point) is int


@pytest.mark.parametrize("op", PARAM_OPS, ids=repr)
def test_zero_point_defaults_to_zero(op):
    assert op.ops.Params(2.0).zero_point == 0
    assert op.ops.Params.from_bits(0x40000000).zero_point == 0


@pytest.mark.parametrize("op", PARAM_OPS, ids=repr)
def test_params_must_be_the_operations_params(op):
    others = [other.ok_params for other in PARAM_OPS if other is not op]
    for params in (None, *others, sk.ops.cast.Params(), (0.25, -3), {op.scale_name: 0.25}):
        assert_rejected(op, op.req((4,), params=params), E.INVALID_PARAMS)


# ------------------------------------------------------------------ arity / shapes


@pytest.mark.parametrize("op", PARAM_OPS, ids=repr)
@pytest.mark.parametrize(
    "ports", [(0, 1), (2, 1), (1, 0), (1, 2), (0, 0)], ids=["0-in", "2-in", "0-out", "2-out", "0-0"])
def test_wrong_arity(op, ports):
    a, b = (spec((2, 3), d) for d in op.default_pair)
    assert_rejected(op, op.ops.Request([a] * ports[0], [b] * ports[1], op.ok_params), E.INVALID_ARITY)


@pytest.mark.parametrize("op", PARAM_OPS, ids=repr)
def test_shapes(op):
    assert_rejected(op, op.req((2, -3), out_shape=(2, 3)), E.INVALID_SHAPE, "input 0", "axis 1")
    assert_rejected(op, op.req((2, 3), out_shape=(2, 4)), E.INVALID_SHAPE, "axis 1")
    assert_rejected(op, op.req((2, 3), out_shape=(6,)), E.INVALID_SHAPE, "rank")
    assert_rejected(op, op.req((), out_shape=(1,)), E.INVALID_SHAPE, "rank")
    with pytest.raises(ValueError):
        sk.TensorSpec((1,) * 7, sk.DType.FLOAT32)


# ------------------------------------------------------------------ operation identity


@pytest.mark.parametrize("op", PARAM_OPS, ids=repr)
def test_other_requests_are_invalid_operation(op):
    for other in [o.sample_request() for o in OPS if o is not op] + [None, op.name]:
        results = [op.ops.check_inference(other)]
        results += [op.a65.check_inference(other, route=r) for r in ROUTES]
        for result in results:
            assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, (other, result)


@dataclasses.dataclass(frozen=True)
class LookAlike:
    inputs: tuple
    outputs: tuple
    params: object


@pytest.mark.parametrize("op", PARAM_OPS, ids=repr)
def test_look_alike_request_is_invalid_operation(op):
    fake = LookAlike(tuple(op.sample_request().inputs), tuple(op.sample_request().outputs), op.ok_params)
    assert op.ops.check_inference(fake).code == E.INVALID_OPERATION


@pytest.mark.parametrize("op", PARAM_OPS, ids=repr)
def test_prepare_takes_the_operations_shared_plan_only(op):
    own = op.sample_request()
    others = [o.ops.check_inference(o.sample_request()) for o in OPS if o is not op]
    for wrong in others + [own, op.a65.check_inference(own), None]:
        assert_invalid_operation(op.a65.prepare(wrong))
    shared = op.ops.check_inference(own)
    for other in OPS:
        if other is not op:
            assert_invalid_operation(other.a65.prepare(shared))


@pytest.mark.parametrize("op", PARAM_OPS, ids=repr)
@pytest.mark.parametrize("route", ROUTES)
def test_plan_of_another_operation_is_invalid_operation(route, op):
    """Other operations' plans (and the operation's own shared plan, its
    request, None) given to its execute, and its plan given to the other
    operations' executes: INVALID_OPERATION with nothing written."""
    own = op.sample_request()
    plan = op.a65.check_inference(own, route=route)
    src = Storage.make((4,), sk.DType.FLOAT32)   # 16 bytes: large enough for any of these plans' input
    dst = Storage.make((4,), sk.DType.FLOAT32)   # 16 bytes of sentinel
    others = [o.a65.check_inference(o.sample_request(), route=route) for o in OPS if o is not op]
    for wrong in others + [op.ops.check_inference(own), own, None]:
        assert_invalid_operation(op.a65.execute(wrong, [src.buf], [dst.buf]))
        assert_untouched(dst.buf, SENTINEL, what="output")
    for other in OPS:
        if other is not op:
            assert_invalid_operation(other.a65.execute(plan, [src.buf], [dst.buf]))
            assert_untouched(dst.buf, SENTINEL, what="output")


@pytest.mark.parametrize("op", PARAM_OPS, ids=repr)
def test_unknown_route_is_an_error(op):
    for result in (op.a65.check_inference(op.req((4,)), route="bogus"),
                   op.a65.prepare(op.ops.check_inference(op.req((4,))), route="bogus")):
        assert isinstance(result, sk.Error) and result.code == E.UNSUPPORTED_ENVIRONMENT
        assert "bogus" in result.message
