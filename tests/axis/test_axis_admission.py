"""Per-axis admission: ``dequant.AxisParams`` and ``quant.AxisParams``
against the tensor's shape.  Every refusal is ``INVALID_PARAMS`` from the
backend-neutral admission and from every route alike, and its message
names what the user must fix: the axis and the shape's valid range, both
lengths, or the entry by index with its value (and binary32 bits).  Also:
what is accepted (negative axes, shared and per-channel zero points, any
real-number sequence, empty channel axes), the copies AxisParams keep, and
the EV74's refusal.  Pure Python admission: host only (tests/conftest.py
HOST_ONLY)."""
from fractions import Fraction

import numpy as np
import pytest

import simakernels as sk
from support.helpers import BF16, F16, F32, I8, spec
from support.op_cases import DEQUANT, QUANT, assert_accepted, assert_rejected

E = sk.ErrorCode
DAxis, QAxis = sk.ops.dequant.AxisParams, sk.ops.quant.AxisParams
SHAPE = (2, 4, 3)
OPS = {"dequant": (DEQUANT, DAxis, "scales", (-(2**31), 2**31 - 1)),
       "quant": (QUANT, QAxis, "multipliers", (-128, 127))}


def axis_req(op_name, shape, params, float_dtype=F32):
    op = OPS[op_name][0]
    return op.req(shape, *op.pair(float_dtype), params=params)


def good(op_name, axis=1, shape=SHAPE, **kwargs):
    cls = OPS[op_name][1]
    return cls(axis, [0.5] * shape[axis], **kwargs)


def refused(op_name, shape, params, *fragments):
    return assert_rejected(OPS[op_name][0], axis_req(op_name, shape, params), E.INVALID_PARAMS, *fragments)


# ------------------------------------------------------------------- axis


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("axis", [3, 4, 100, -4, -5])
def test_axis_outside_the_rank(op, axis):
    """Names the axis as given, the rank, the shape and the valid range."""
    refused(op, SHAPE, OPS[op][1](axis, [1.0] * 3), f"axis {axis}", "rank 3", str(SHAPE), "-3 to 2")


@pytest.mark.parametrize("op", OPS)
def test_rank_zero_has_no_axis(op):
    refused(op, (), OPS[op][1](0, [1.0]), "rank 0", "no axis", "Params")
    refused(op, (), OPS[op][1](-1, [1.0]), "axis -1", "rank 0")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("axis", [1.0, 1.5, "1", None, True, np.float32(1)], ids=repr)
def test_axis_must_be_an_integer(op, axis):
    refused(op, SHAPE, OPS[op][1](axis, [1.0] * 4), f"axis {axis!r}", "must be an integer")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3, np.int64(-2), np.int8(2)], ids=repr)
def test_every_axis_either_way_is_accepted(op, axis):
    """Negative axes count from the end; NumPy integers are integers.  The
    plans (shared and every route's) need exactly the dense spans."""
    n = SHAPE[int(axis)]
    opc = OPS[op][0]
    assert_accepted(opc, axis_req(op, SHAPE, OPS[op][1](axis, [0.25] * n)), *opc.requirements(24, F32))


# ---------------------------------------------------------------- lengths


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("count", [0, 1, 3, 5, 12])
def test_wrong_value_count(op, count):
    """Both lengths, the axis as given and the shape."""
    _, cls, name, _ = OPS[op]
    refused(op, SHAPE, cls(-2, [1.0] * count), f"{name} has {count} entries", "axis -2", str(SHAPE), "has 4")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("count", [0, 3, 5])
def test_wrong_zero_point_count(op, count):
    _, cls, _, _ = OPS[op]
    refused(op, SHAPE, cls(1, [1.0] * 4, [0] * count), f"zero_points has {count} entries", "axis 1",
            str(SHAPE), "has 4")


# ----------------------------------------------------------------- entries

BAD_VALUES = [
    (float("nan"), "nan", "0x7fc00000"),
    (float("inf"), "inf", "0x7f800000"),
    (-float("inf"), "-inf", "0xff800000"),
    (0.0, "0.0", "0x00000000"),
    (-0.0, "-0.0", "0x80000000"),
    (-2.0, "-2.0", "0xc0000000"),
    (1e40, "inf", "0x7f800000"),              # overflows binary32
    (1e-46, "0.0", "0x00000000"),             # rounds to zero as binary32
    (np.float32(-1e-45), "-1.401298464324817e-45", "0x80000001"),
]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("bad", BAD_VALUES, ids=lambda b: b[1])
@pytest.mark.parametrize("index", [0, 2, 3])
def test_value_not_finite_positive(op, bad, index):
    """Names the entry by index, its value and binary32 bits."""
    _, cls, name, _ = OPS[op]
    values = [0.5] * 4
    values[index] = bad[0]
    refused(op, SHAPE, cls(1, values), f"{name}[{index}] {bad[1]}", f"bits {bad[2]}", "finite and > 0")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("bad", ["a", "0.5", None, True, False, 1 + 2j, b"1", [1.0], np.bool_(True)], ids=repr)
def test_value_not_a_real_number(op, bad):
    """Names the entry by index, its repr and type."""
    _, cls, name, _ = OPS[op]
    values = [0.5, 0.5, bad, 0.5]
    refused(op, SHAPE, cls(1, values), f"{name}[2] {bad!r}", f"({type(bad).__name__})", "real number")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("values", [1.0, None, "abcd", np.ones((4, 1), np.float32), np.ones((2, 2), np.float64)],
                         ids=["float", "None", "str", "2-D float32", "2-D float64"])
def test_values_not_a_sequence(op, values):
    _, cls, name, _ = OPS[op]
    refused(op, SHAPE, cls(1, values), name)


@pytest.mark.parametrize("op", OPS)
def test_first_bad_entry_is_named(op):
    _, cls, name, _ = OPS[op]
    refused(op, SHAPE, cls(1, [0.5, -1.0, 0.0, float("nan")]), f"{name}[1] -1.0")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("side", ["low", "high"])
@pytest.mark.parametrize("index", [0, 3])
def test_zero_point_out_of_range(op, side, index):
    """Per channel: the entry by index with its value and the range; one
    shared integer: its value and the range."""
    _, cls, _, (low, high) = OPS[op]
    bad = low - 1 if side == "low" else high + 1
    zps = [0] * 4
    zps[index] = bad
    refused(op, SHAPE, cls(1, [0.5] * 4, zps), f"zero_points[{index}] {bad}", f"[{low}, {high}]")
    refused(op, SHAPE, cls(1, [0.5] * 4, bad), f"zero_points {bad}", f"[{low}, {high}]")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("bad", [1.5, "3", None, True, False, np.True_, np.float32(2.0)], ids=repr)
def test_zero_point_not_an_integer(op, bad):
    """As for the per-tensor zero point (op_cases invalid_zero_points), a
    bool is not an integer zero point, nor is a float or a string."""
    _, cls, _, _ = OPS[op]
    refused(op, SHAPE, cls(1, [0.5] * 4, [0, bad, 0, 0]), "zero_points[1]", "integer")
    refused(op, SHAPE, cls(1, [0.5] * 4, bad), "zero_points", "integer")


@pytest.mark.parametrize("op", OPS)
def test_zero_points_not_one_dimensional(op):
    _, cls, _, _ = OPS[op]
    refused(op, SHAPE, cls(1, [0.5] * 4, np.zeros((2, 2), np.int64)), "zero_points", "1-D")


@pytest.mark.parametrize("op", OPS)
def test_checks_follow_the_shape_not_the_params(op):
    """The same AxisParams fit one shape and not another."""
    _, cls, name, _ = OPS[op]
    params = cls(0, [0.5, 0.25])
    assert not isinstance(OPS[op][0].ops.check_inference(axis_req(op, (2, 7), params)), sk.Error)
    refused(op, (7, 2), params, f"{name} has 2 entries", "axis 0", "(7, 2)", "has 7")


# --------------------------------------------------------------- accepted


@pytest.mark.parametrize("op", OPS)
def test_accepted_value_and_zero_point_forms(op):
    """Lists, tuples, float32/float64/int arrays, Fractions and NumPy
    scalars; zero points as one int, a NumPy integer, a list or an array
    (any integer dtype); the extremes of each range; subnormal values."""
    opc, cls, _, (low, high) = OPS[op]
    forms = [
        cls(1, [0.5, 1, Fraction(1, 3), np.float16(2.0)]),
        cls(1, (1e-45, 3.4e38, np.float64(0.1), np.int32(7))),
        cls(1, np.array([1, 2, 3, 4], np.float32), np.int64(low)),
        cls(-2, np.array([1.0, 2.0, 3.0, 4.0]), [low, high, 0, np.int8(-1)]),
        cls(1, np.arange(1, 5), np.array([low, high, 1, 2], np.int32)),
        cls(1, [0.5] * 4, (high, high, low, low)),
    ]
    for params in forms:
        for dtype in opc.float_dtypes:
            plan = opc.ops.check_inference(axis_req(op, SHAPE, params, dtype))
            assert not isinstance(plan, sk.Error), (params, plan)


@pytest.mark.parametrize("op", OPS)
def test_empty_tensors(op):
    """An empty channel axis takes no values; an empty other axis still
    needs one value per channel (and checks them)."""
    opc, cls, name, _ = OPS[op]
    assert_accepted(opc, axis_req(op, (0, 4), cls(0, [])), *opc.requirements(0, F32))
    assert_accepted(opc, axis_req(op, (3, 0), cls(0, [1.0, 2.0, 3.0])), *opc.requirements(0, F32))
    refused(op, (3, 0), cls(0, [1.0]), f"{name} has 1 entries", "has 3")
    refused(op, (3, 0), cls(0, [1.0, 0.0, 1.0]), f"{name}[1] 0.0")


@pytest.mark.parametrize("op", OPS)
def test_params_are_copies(op):
    """AxisParams hold read-only copies: changing the caller's arrays
    afterwards changes nothing."""
    _, cls, name, _ = OPS[op]
    values = np.array([0.5, 0.25, 2.0, 4.0], np.float32)
    zps = np.array([1, 2, 3, 4], np.int64)
    params = cls(1, values, zps)
    values[:] = -1.0
    zps[:] = 1000
    stored = getattr(params, name)
    assert stored.tolist() == [0.5, 0.25, 2.0, 4.0] and params.zero_points.tolist() == [1, 2, 3, 4]
    assert not stored.flags.writeable and not params.zero_points.flags.writeable
    assert not isinstance(OPS[op][0].ops.check_inference(axis_req(op, SHAPE, params)), sk.Error)


def test_quant_rounding_is_checked_at_construction():
    with pytest.raises(ValueError, match="nearest_even"):
        QAxis(0, [1.0], 0, "nearest")
    assert QAxis(0, [1.0], 0, "toward_zero").rounding is sk.ops.quant.Rounding.TOWARD_ZERO


def test_reprs_name_the_axis_values_and_zero_points():
    d = repr(DAxis(-1, [0.5, 2.0], [3, 4]))
    assert d.startswith("dequant.AxisParams(axis=-1") and "0.5" in d and "3" in d
    q = repr(QAxis(2, np.arange(1, 100, dtype=np.float32), 7, "toward_negative"))
    assert q.startswith("quant.AxisParams(axis=2") and "..." in q and "zero_points=7" in q
    assert "TOWARD_NEGATIVE" in q


def test_params_kinds_do_not_mix():
    """Dequant does not take quant.AxisParams, nor the other way round."""
    assert_rejected(DEQUANT, axis_req("dequant", SHAPE, QAxis(1, [1.0] * 4)), E.INVALID_PARAMS, "dequant.AxisParams")
    assert_rejected(QUANT, axis_req("quant", SHAPE, DAxis(1, [1.0] * 4)), E.INVALID_PARAMS, "quant.AxisParams")


@pytest.mark.parametrize("src", [F32, BF16, F16], ids=lambda d: d.name)
def test_ev74_refuses_per_axis_quant(src):
    """The EV74 descriptor holds one multiplier: DEVICE_LIMIT, naming the
    A65 alternative."""
    req = sk.ops.quant.Request([spec(SHAPE, src)], [spec(SHAPE, I8)], QAxis(1, [1.0] * 4))
    got = sk.ev74.quant.check_inference(req)
    assert isinstance(got, sk.Error) and got.code is E.DEVICE_LIMIT, got
    assert "per-axis" in got.message and "sk.a65.quant" in got.message
