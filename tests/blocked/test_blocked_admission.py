"""Blocked admission: ``dequant.BlockParams`` and ``quant.BlockParams``
against the tensor's shape.  Every refusal is ``INVALID_PARAMS`` from the
backend-neutral admission and from every route alike, and its message names
what the user must fix: the axis, the block size, the expected and given
shapes, or the entry by its index into the parameter array with its value.
Also what is accepted (every axis either way, block sizes from 1 to beyond
the extent, shared and per-block zero points, any real-number array or
nested sequences), the copies BlockParams keep, messages that do not grow
with the parameters, and the EV74's refusal.  Pure Python admission: host
only (tests/conftest.py HOST_ONLY)."""
from fractions import Fraction

import numpy as np
import pytest

import simakernels as sk
from support.helpers import BF16, F16, F32, I8, spec
from support.op_cases import DEQUANT, QUANT, assert_accepted, assert_rejected

E = sk.ErrorCode
DBlock, QBlock = sk.ops.dequant.BlockParams, sk.ops.quant.BlockParams
SHAPE = (2, 10, 3)
OPS = {"dequant": (DEQUANT, DBlock, "scales", (-(2**31), 2**31 - 1)),
       "quant": (QUANT, QBlock, "multipliers", (-128, 127))}


def block_req(op_name, shape, params, float_dtype=F32):
    op = OPS[op_name][0]
    return op.req(shape, *op.pair(float_dtype), params=params)


def pshape(shape, axis, block):
    a = axis % len(shape)
    return tuple(-(-e // block) if d == a else e for d, e in enumerate(shape))


def good(op_name, axis=1, block=4, shape=SHAPE, **kwargs):
    return OPS[op_name][1](axis, block, np.full(pshape(shape, axis, block), 0.5), **kwargs)


def refused(op_name, shape, params, *fragments):
    return assert_rejected(OPS[op_name][0], block_req(op_name, shape, params), E.INVALID_PARAMS, *fragments)


# ------------------------------------------------------------ axis, block size


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("axis", [3, -4, 100])
def test_axis_outside_the_rank(op, axis):
    refused(op, SHAPE, OPS[op][1](axis, 2, np.ones(SHAPE)), f"axis {axis}", "rank 3", str(SHAPE), "-3 to 2")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("axis", [None, 1.0, "1", True], ids=repr)
def test_axis_missing_or_not_an_integer(op, axis):
    refused(op, SHAPE, OPS[op][1](axis, 2, np.ones(SHAPE)), f"axis {axis!r}", "must be an integer")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("block", [0, -1, -32, 2.5, 4.0, True, False, np.True_, None, "4", np.float32(4)], ids=repr)
def test_block_size_not_a_positive_integer(op, block):
    """Names the block size as given, its type and the axis."""
    refused(op, SHAPE, OPS[op][1](1, block, np.ones(pshape(SHAPE, 1, 4))), "block_size", "positive integer",
            "axis 1", type(block).__name__)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3, np.int64(-2), np.int8(2)], ids=repr)
@pytest.mark.parametrize("block", [1, 3, 4, 9, 10, 11, 1 << 40, np.int32(4), np.uint8(3)], ids=repr)
def test_every_axis_and_block_size_is_accepted(op, axis, block):
    """Negative axes count from the end; NumPy integers are integers; a
    block as long as the axis or longer gives one block along it.  Every
    route's plan needs exactly the dense spans."""
    opc = OPS[op][0]
    params = OPS[op][1](axis, block, np.full(pshape(SHAPE, int(axis), int(block)), 0.25))
    assert_accepted(opc, block_req(op, SHAPE, params), *opc.requirements(60, F32))


# ---------------------------------------------------------------- shapes


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("given", [(2, 2, 3), (2, 4, 3), (2, 10, 3), (2, 3), (3,), (2, 3, 3, 1), (3, 3, 2)])
def test_wrong_value_shape(op, given):
    """Both shapes, the axis, the block size and the tensor's shape
    (blocks of 4 along an axis of 10: 3 blocks, the last partial)."""
    _, cls, name, _ = OPS[op]
    refused(op, SHAPE, cls(-2, 4, np.ones(given)), f"{name} has shape {given}", "expected (2, 3, 3)",
            "axis -2", str(SHAPE), "blocks of 4")


@pytest.mark.parametrize("op", OPS)
def test_one_dimensional_tensors_take_one_dimensional_parameters(op):
    _, cls, name, _ = OPS[op]
    opc = OPS[op][0]
    assert_accepted(opc, block_req(op, (7,), cls(0, 3, [0.5, 1.0, 2.0])), *opc.requirements(7, F32))
    refused(op, (7,), cls(0, 3, [[0.5, 1.0, 2.0]]), f"{name} has shape (1, 3)", "expected (3,)")
    refused(op, (7,), cls(0, 3, 0.5), name, "shape (3,)", "float")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("given", [(2, 2, 3), (3,), (2, 3)])
def test_wrong_zero_point_shape(op, given):
    _, cls, _, _ = OPS[op]
    refused(op, SHAPE, cls(1, 4, np.ones((2, 3, 3)), np.zeros(given, np.int64)), f"zero_points has shape {given}",
            "expected (2, 3, 3)", "axis 1", "blocks of 4")


@pytest.mark.parametrize("op", OPS)
def test_checks_follow_the_shape_not_the_params(op):
    _, cls, name, _ = OPS[op]
    params = cls(0, 4, np.ones((2, 7)))
    assert not isinstance(OPS[op][0].ops.check_inference(block_req(op, (5, 7), params)), sk.Error)
    assert not isinstance(OPS[op][0].ops.check_inference(block_req(op, (8, 7), params)), sk.Error)
    refused(op, (9, 7), params, f"{name} has shape (2, 7)", "expected (3, 7)")


# --------------------------------------------------------------- entries

BAD_VALUES = [
    (float("nan"), "nan", "0x7fc00000"),
    (float("inf"), "inf", "0x7f800000"),
    (0.0, "0.0", "0x00000000"),
    (-0.0, "-0.0", "0x80000000"),
    (-2.0, "-2.0", "0xc0000000"),
    (1e40, "inf", "0x7f800000"),
    (1e-46, "0.0", "0x00000000"),
]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("bad", BAD_VALUES, ids=lambda b: b[1])
@pytest.mark.parametrize("where", [(0, 0, 0), (1, 2, 1), (1, 2, 2)])
@pytest.mark.parametrize("kind", ["float64", "float32", "list"])
def test_value_not_finite_positive(op, bad, where, kind):
    """Names the entry by its index into the parameter array, its value
    and binary32 bits; the first one in C order."""
    _, cls, name, _ = OPS[op]
    values = np.full((2, 3, 3), 0.5)
    values[where] = bad[0]
    values[1, 2, 2] = bad[0] if where != (1, 2, 1) else values[1, 2, 2]
    with np.errstate(over="ignore"):  # 1e40 becomes infinity as float32 too
        given = {"float64": values, "float32": values.astype(np.float32), "list": values.tolist()}[kind]
    index = ", ".join(map(str, where))
    refused(op, SHAPE, cls(1, 4, given), f"{name}[{index}] {bad[1]}", f"bits {bad[2]}", "finite and > 0")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("bad", ["a", None, True, 1 + 2j, b"1"], ids=repr)
def test_value_not_a_real_number(op, bad):
    _, cls, name, _ = OPS[op]
    values = np.full((2, 3, 3), 0.5).tolist()
    values[1][0][2] = bad
    refused(op, SHAPE, cls(1, 4, values), f"{name}[1, 0, 2] {bad!r}", f"({type(bad).__name__})", "real number")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("values", [np.ones((2, 3, 3), bool), np.ones((2, 3, 3), complex), "abc", None,
                                    [[0.5, 0.5], [0.5]]], ids=["bool", "complex", "str", "None", "ragged"])
def test_values_not_an_array_of_numbers(op, values):
    _, cls, name, _ = OPS[op]
    refused(op, SHAPE, cls(1, 4, values), name)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("side", ["low", "high"])
@pytest.mark.parametrize("where", [(0, 0, 0), (1, 1, 2)])
def test_zero_point_out_of_range(op, side, where):
    _, cls, _, (low, high) = OPS[op]
    bad = low - 1 if side == "low" else high + 1
    zps = np.zeros((2, 3, 3), np.int64)
    zps[where] = bad
    index = ", ".join(map(str, where))
    refused(op, SHAPE, cls(1, 4, np.ones((2, 3, 3)), zps), f"zero_points[{index}] {bad}", f"[{low}, {high}]")
    refused(op, SHAPE, cls(1, 4, np.ones((2, 3, 3)), zps.tolist()), f"zero_points[{index}] {bad}")
    refused(op, SHAPE, cls(1, 4, np.ones((2, 3, 3)), bad), f"zero_points {bad}", f"[{low}, {high}]")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("bad", [1.5, "3", None, True, np.True_, 2**70], ids=repr)
def test_zero_point_not_an_integer(op, bad):
    _, cls, _, _ = OPS[op]
    zps = np.zeros((2, 3, 3), np.int64).tolist()
    zps[0][2][1] = bad
    refused(op, SHAPE, cls(1, 4, np.ones((2, 3, 3)), zps), "zero_points[0, 2, 1]", "integer")
    refused(op, SHAPE, cls(1, 4, np.ones((2, 3, 3)), bad), "zero_points", "integer")
    refused(op, SHAPE, cls(1, 4, np.ones((2, 3, 3)), np.full((2, 3, 3), 1.0)), "zero_points[0, 0, 0]", "integer")


@pytest.mark.parametrize("op", OPS)
def test_messages_do_not_grow_with_the_parameters(op):
    """A million-entry parameter array: every message stays short (shapes,
    an index and a value, never the entries)."""
    _, cls, name, _ = OPS[op]
    shape = (1000, 32000)
    big = np.full((1000, 1000), 0.5, np.float32)
    big[999, 998] = -1.0
    messages = [
        refused(op, shape, cls(1, 32, big), f"{name}[999, 998] -1.0").message,
        refused(op, shape, cls(1, 31, np.full((1000, 1000), 0.5, np.float32)), "expected (1000, 1033)").message,
        refused(op, shape, cls(1, 32, np.full((1000, 1000), 0.5, np.float32), np.full((1000, 999), 0)),
                "zero_points has shape (1000, 999)").message,
    ]
    assert all(len(m) < 400 for m in messages), messages


# --------------------------------------------------------------- accepted


@pytest.mark.parametrize("op", OPS)
def test_accepted_value_and_zero_point_forms(op):
    """float32/float64/integer arrays, nested lists and tuples of mixed
    real numbers (Fractions, NumPy scalars); zero points as one int, a
    NumPy integer, nested lists or an array of any integer dtype; the
    extremes of each range; subnormal values."""
    opc, cls, _, (low, high) = OPS[op]
    p = (2, 3, 3)
    mixed = [[[0.5, 1, Fraction(1, 3)], [np.float16(2.0), 1e-45, 3.4e38], [np.float64(0.1), np.int32(7), 2]]] * 2
    forms = [
        cls(1, 4, mixed),
        cls(1, 4, np.full(p, 2.0, np.float32), np.int64(low)),
        cls(-2, 4, np.full(p, 0.1), np.full(p, high, np.int32)),
        cls(1, 4, np.arange(1, 19).reshape(p), np.full(p, low).tolist()),
        cls(1, 4, tuple(tuple(tuple(r) for r in plane) for plane in np.ones(p).tolist()), np.zeros(p, np.uint8)),
    ]
    for params in forms:
        for dtype in opc.float_dtypes:
            plan = opc.ops.check_inference(block_req(op, SHAPE, params, dtype))
            assert not isinstance(plan, sk.Error), (params, plan)


def test_binary32_conversion_rounds_nearest_even():
    """Parameter arrays are converted as ``numpy.float32`` rounds in the
    default state (vectorised for float64 and integer arrays, per entry
    otherwise): ties to even, subnormals, integers beyond 2**24."""
    values = np.array([1 + 2.0**-24, 1 + 3 * 2.0**-24, 2.0**-149 * 1.5, 2.0**-150 * 1.0000001, 0.1, 3.4028235e38,
                       16777217.0, 1e-45, 7e-46])
    params = DBlock(0, 1, values)
    assert params.scale_bits.tolist() == values.astype(np.float32).view(np.uint32).tolist()
    assert DBlock(0, 1, values.tolist()).scale_bits.tolist() == params.scale_bits.tolist()
    ints = np.array([16777217, 16777219, -(2**53), 2**53 - 1, 2**60 + 1], np.int64)
    got = DBlock(0, 1, ints).scale_bits.view(np.float32).tolist()
    assert got == [16777216.0, 16777220.0, -(2.0**53), 2.0**53, 2.0**60]


@pytest.mark.parametrize("op", OPS)
def test_empty_tensors(op):
    """An empty block axis takes no entries along it; an empty other axis
    none either (the parameters have its zero extent)."""
    opc, cls, name, _ = OPS[op]
    assert_accepted(opc, block_req(op, (0, 4), cls(0, 2, np.ones((0, 4)))), *opc.requirements(0, F32))
    assert_accepted(opc, block_req(op, (3, 0), cls(0, 2, np.ones((2, 0)))), *opc.requirements(0, F32))
    refused(op, (3, 0), cls(0, 2, np.ones((3, 0))), f"{name} has shape (3, 0)", "expected (2, 0)")


@pytest.mark.parametrize("op", OPS)
def test_params_are_copies(op):
    """BlockParams hold read-only copies: changing the caller's arrays
    afterwards changes nothing."""
    _, cls, name, _ = OPS[op]
    values = np.full((2, 3, 3), 0.5, np.float32)
    zps = np.ones((2, 3, 3), np.int64)
    params = cls(1, 4, values, zps)
    values[:] = -1.0
    zps[:] = 1000
    stored = getattr(params, name)
    assert stored.dtype == np.float32 and (stored == 0.5).all() and (params.zero_points == 1).all()
    assert stored.shape == params.zero_points.shape == (2, 3, 3)
    assert not stored.flags.writeable and not params.zero_points.flags.writeable
    assert not isinstance(OPS[op][0].ops.check_inference(block_req(op, SHAPE, params)), sk.Error)
    assert params.axis == 1 and params.block_size == 4 and type(cls(1, np.int16(4), values).block_size) is int


def test_quant_rounding_is_checked_at_construction():
    with pytest.raises(ValueError, match="nearest_even"):
        QBlock(0, 2, [1.0], 0, "nearest")
    assert QBlock(0, 2, [1.0], 0, "toward_zero").rounding is sk.ops.quant.Rounding.TOWARD_ZERO


def test_reprs_name_axis_block_values_and_zero_points_briefly():
    d = repr(DBlock(-1, 32, np.full((4, 2), 0.5), np.arange(8).reshape(4, 2)))
    assert d.startswith("dequant.BlockParams(axis=-1, block_size=32") and "0.5" in d
    q = repr(QBlock(1, 32, np.ones((1000, 1000), np.float32), np.zeros((1000, 1000), np.int64), "toward_negative"))
    assert q.startswith("quant.BlockParams(axis=1, block_size=32") and "..." in q and "TOWARD_NEGATIVE" in q
    assert len(q) < 600, q


def test_params_kinds_do_not_mix():
    assert_rejected(DEQUANT, block_req("dequant", SHAPE, QBlock(1, 4, np.ones((2, 3, 3)))), E.INVALID_PARAMS,
                    "dequant.BlockParams")
    assert_rejected(QUANT, block_req("quant", SHAPE, DBlock(1, 4, np.ones((2, 3, 3)))), E.INVALID_PARAMS,
                    "quant.BlockParams")


@pytest.mark.parametrize("src", [F32, BF16, F16], ids=lambda d: d.name)
def test_ev74_refuses_blocked_quant(src):
    """The EV74 descriptor holds one multiplier: DEVICE_LIMIT (for a
    request and for an admitted plan), naming the A65 alternative."""
    req = sk.ops.quant.Request([spec(SHAPE, src)], [spec(SHAPE, I8)], QBlock(1, 4, np.ones((2, 3, 3))))
    for given in (req, sk.ops.quant.check_inference(req)):
        got = sk.ev74.quant.check_inference(given)
        assert isinstance(got, sk.Error) and got.code is E.DEVICE_LIMIT, got
        assert "blocked" in got.message and "sk.a65.quant" in got.message


def test_vectorised_conversion_is_numpys_float32():
    """BlockParams convert float64 and integer arrays to binary32 with
    integer operations only (vectorised); the bits are NumPy's float32
    conversion in the default state for random doubles across binary32's
    whole range (normal, subnormal, overflowing, below half the smallest
    subnormal), exact ties at every exponent and integers up to 2**53."""
    rng = np.random.default_rng(0xB32)
    raw = rng.integers(0, 1 << 64, size=100_000, dtype=np.uint64)
    exponents = rng.integers(1023 - 160, 1023 + 132, size=raw.size).astype(np.uint64)
    doubles = ((raw & np.uint64((1 << 63) | ((1 << 52) - 1))) | (exponents << np.uint64(52))).view(np.float64)
    floats = rng.integers(0, 0x7F800000, size=20_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    ties = (floats.astype(np.float64).view(np.uint64) | np.uint64(1 << 28)).view(np.float64)   # halfway above
    ints = np.concatenate([rng.integers(-(1 << 53), 1 << 53, size=20_000), np.arange(-70_000, 70_000, 7)])
    for values in (doubles, ties, floats.astype(np.float64), ints):
        with np.errstate(over="ignore"):
            want = values.astype(np.float32).view(np.uint32)
        got = DBlock(0, 1, values).scale_bits
        bad = np.flatnonzero(got != want)
        assert not bad.size, [(values[i], hex(got[i]), hex(want[i])) for i in bad[:5]]
