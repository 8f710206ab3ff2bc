"""Admission: every rejection with its ErrorCode and a message naming the
port/axis at fault, the accepted edge cases and their exact requirements, and
storage-arithmetic overflow.  Admission runs in both the backend-neutral
``ops.cast.check_inference`` and the A65 ``check_inference``/``prepare`` (on
every route); they must agree."""
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simakernels as sk
from support.helpers import (
    BF16,
    F32,
    ITEMSIZE,
    ROUTES,
    Storage,
    assert_untouched,
    element_offsets,
    span,
    spec,
)

E = sk.ErrorCode
I64 = (1 << 63) - 1


def admit_everywhere(req):
    """Admission results: the shared plan or error, and each route's."""
    shared = sk.ops.cast.check_inference(req)
    per_route = [sk.a65.cast.check_inference(req, route=r) for r in ROUTES]
    return shared, per_route


def assert_rejected(req, code, *fragments):
    shared, per_route = admit_everywhere(req)
    for result in [shared, *per_route]:
        assert isinstance(result, sk.Error), f"expected {code.name}, got a plan: {result}"
        assert result.code == code, f"expected {code.name}, got {result}"
        for fragment in fragments:
            assert fragment in result.message, f"{fragment!r} not named in {result.message!r}"
        assert isinstance(result.message, str) and result.message
    return shared


def assert_accepted(req, in_need, out_need):
    """Admitted everywhere with exactly the given (nbytes, alignment) requirements."""
    shared, per_route = admit_everywhere(req)
    assert not isinstance(shared, sk.Error), shared
    assert isinstance(shared, sk.ops.cast.Plan)
    for route, plan in zip(ROUTES, per_route):
        assert not isinstance(plan, sk.Error), plan
        assert isinstance(plan, sk.a65.cast.Plan)
        assert plan.route == route
        prepared = sk.a65.cast.prepare(shared, route=route)
        assert isinstance(prepared, sk.a65.cast.Plan) and prepared.route == route
        for p in (shared, plan, prepared):
            assert p.input_requirements() == (sk.Requirement(*in_need),)
            assert p.output_requirements() == (sk.Requirement(*out_need),)
    return shared


def req1(shape, src, dst, in_strides=None, out_strides=None, out_shape=None):
    return sk.ops.cast.Request(
        [spec(shape, src, in_strides)],
        [spec(shape if out_shape is None else out_shape, dst, out_strides)],
    )


A = spec((2, 3), F32)
B = spec((2, 3), BF16)


# ------------------------------------------------------------------ arity / dtype


@pytest.mark.parametrize(
    "inputs, outputs",
    [([], [B]), ([A, A], [B]), ([A], []), ([A], [B, B]), ([], []), ([A, A], [B, B])],
    ids=["0-in", "2-in", "0-out", "2-out", "0-0", "2-2"],
)
def test_wrong_arity(inputs, outputs):
    assert_rejected(sk.ops.cast.Request(inputs, outputs), E.INVALID_ARITY)


D = sk.DType
UNSUPPORTED_PAIRS = [
    (D.FLOAT32, D.FLOAT32), (D.BFLOAT16, D.BFLOAT16), (D.INT8, D.BFLOAT16), (D.FLOAT16, D.FLOAT32),
    (D.FLOAT32, D.FLOAT16), (D.BFLOAT16, D.FLOAT16), (D.FLOAT16, D.BFLOAT16), (D.INT8, D.FLOAT32),
    (D.FLOAT32, D.INT8), (D.UINT8, D.FLOAT32), (D.INT32, D.FLOAT32), (D.FLOAT32, D.INT32),
    (D.INT16, D.BFLOAT16), (D.BFLOAT16, D.INT16), (D.FLOAT16, D.FLOAT16), (D.INT8, D.INT8),
]


@pytest.mark.parametrize("pair", UNSUPPORTED_PAIRS, ids=[f"{a.name}-{b.name}" for a, b in UNSUPPORTED_PAIRS])
def test_unsupported_dtype_pairs(pair):
    src, dst = pair
    req = sk.ops.cast.Request([sk.TensorSpec((4,), src)], [sk.TensorSpec((4,), dst)])
    assert_rejected(req, E.UNSUPPORTED_DTYPE)


def test_every_other_dtype_pair_is_rejected():
    for src in sk.DType:
        for dst in sk.DType:
            req = sk.ops.cast.Request([sk.TensorSpec((3,), src)], [sk.TensorSpec((3,), dst)])
            result = sk.ops.cast.check_inference(req)
            if (src, dst) in {(F32, BF16), (BF16, F32)}:
                assert isinstance(result, sk.ops.cast.Plan), result
            else:
                assert isinstance(result, sk.Error) and result.code == E.UNSUPPORTED_DTYPE, (src, dst, result)


# ------------------------------------------------------------------ shapes


def test_negative_extent():
    assert_rejected(req1((2, -3), F32, BF16, out_shape=(2, 3)), E.INVALID_SHAPE, "input", "axis 1")
    assert_rejected(req1((2, 3), F32, BF16, out_shape=(-2, 3)), E.INVALID_SHAPE, "output", "axis 0")
    assert_rejected(req1((-1,), BF16, F32), E.INVALID_SHAPE, "axis 0")


def test_negative_extent_is_stored_until_admission():
    s = sk.TensorSpec((4, -1), F32)
    assert s.shape == (4, -1)


@pytest.mark.parametrize(
    "in_shape, out_shape",
    [((2, 3), (6,)), ((2, 3), (2, 3, 1)), ((), (1,)), ((1,), ()), ((4,), (1, 4))],
)
def test_mismatched_rank(in_shape, out_shape):
    assert_rejected(req1(in_shape, F32, BF16, out_shape=out_shape), E.INVALID_SHAPE, "rank")


@pytest.mark.parametrize("out_shape, axis", [((2, 4), 1), ((3, 3), 0), ((2, 0), 1)])
def test_mismatched_extents(out_shape, axis):
    assert_rejected(req1((2, 3), BF16, F32, out_shape=out_shape), E.INVALID_SHAPE, f"axis {axis}")


def test_rank_seven_raises_value_error():
    with pytest.raises(ValueError):
        sk.TensorSpec((1,) * 7, F32)
    with pytest.raises(ValueError):
        sk.TensorSpec((2, 1, 1, 1, 1, 1, 1), BF16, sk.Strided((0,) * 7))
    sk.TensorSpec((1,) * 6, F32)  # six is fine


# ------------------------------------------------------------------ layouts


def test_stride_count_differs_from_rank():
    assert_rejected(req1((2, 3), F32, BF16, in_strides=(12,)), E.UNSUPPORTED_LAYOUT, "input")
    assert_rejected(req1((2, 3), F32, BF16, out_strides=(6, 2, 2)), E.UNSUPPORTED_LAYOUT, "output")
    assert_rejected(req1((), F32, BF16, in_strides=(4,)), E.UNSUPPORTED_LAYOUT, "input")


def test_negative_stride():
    assert_rejected(req1((2, 3), F32, BF16, in_strides=(12, -4)), E.UNSUPPORTED_LAYOUT, "input", "axis 1")
    assert_rejected(req1((2, 3), F32, BF16, out_strides=(-6, 2)), E.UNSUPPORTED_LAYOUT, "output", "axis 0")


def test_negative_stride_on_singleton_axis():
    assert_rejected(req1((1, 3), F32, BF16, in_strides=(-12, 4)), E.UNSUPPORTED_LAYOUT, "axis 0")


@pytest.mark.parametrize(
    "src, dst, in_strides, out_strides, port, axis",
    [
        (F32, BF16, (12, 2), None, "input", 1),        # 2 bytes for a 4-byte scalar
        (F32, BF16, (14, 4), None, "input", 0),
        (F32, BF16, None, (6, 1), "output", 1),        # 1 byte for a 2-byte scalar
        (BF16, F32, None, (12, 6), "output", 1),
        (BF16, F32, (7, 2), None, "input", 0),
        (F32, BF16, (12, 4, 2), None, "input", 2),     # even on a singleton axis
    ],
)
def test_misaligned_stride(src, dst, in_strides, out_strides, port, axis):
    shape = (2, 3) if len(in_strides or out_strides) == 2 else (2, 3, 1)
    assert_rejected(req1(shape, src, dst, in_strides, out_strides), E.UNSUPPORTED_LAYOUT, port, f"axis {axis}")


def test_zero_stride_on_extent_above_one():
    assert_rejected(req1((2, 3), F32, BF16, in_strides=(12, 0)), E.UNSUPPORTED_LAYOUT, "input", "axis 1")
    assert_rejected(req1((2, 3), F32, BF16, out_strides=(0, 2)), E.UNSUPPORTED_LAYOUT, "output", "axis 0")


@pytest.mark.parametrize(
    "shape, strides, axes",
    [
        ((2, 2), (4, 4), {0, 1}),          # the example: both axes step one element
        ((3, 4), (8, 4), {0, 1}),          # rows overlap
        ((2, 3), (8, 4), {0, 1}),
        ((2, 2, 2), (16, 8, 8), {1, 2}),
        ((4, 1, 3), (4, 0, 12), {0, 2}),   # singleton axis between overlapping ones
        ((3, 2), (4, 4), {0, 1}),
    ],
)
def test_overlapping_layouts(shape, strides, axes):
    """Rejected, naming the port and one of the axes involved."""
    half = tuple(s // 2 for s in strides)
    for req, port in ((req1(shape, F32, BF16, in_strides=strides), "input"),
                      (req1(shape, F32, BF16, out_strides=half), "output")):
        shared = assert_rejected(req, E.UNSUPPORTED_LAYOUT, port, "axis")
        assert any(f"axis {a}" in shared.message for a in axes), shared.message


def test_params_must_be_cast_params():
    req = sk.ops.cast.Request([A], [B], params=object())
    assert_rejected(req, E.INVALID_PARAMS)
    assert_rejected(sk.ops.cast.Request([A], [B], None), E.INVALID_PARAMS)


@dataclasses.dataclass(frozen=True)
class DequantLikeParams:
    scale: float = 0.25
    zero_point: int = -3


@dataclasses.dataclass(frozen=True)
class DequantLikeRequest:
    inputs: tuple
    outputs: tuple
    params: DequantLikeParams = DequantLikeParams()


def test_foreign_request_is_invalid_operation():
    foreign = DequantLikeRequest((spec((2, 3), sk.DType.INT8),), (B,))
    for result in (
        sk.ops.cast.check_inference(foreign),
        *(sk.a65.cast.check_inference(foreign, route=r) for r in ROUTES),
        sk.a65.cast.prepare(foreign),
        sk.ops.cast.check_inference(None),
        sk.ops.cast.check_inference((A, B)),
    ):
        assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result
    same_shape = DequantLikeRequest((A,), (B,))  # even one that looks like a valid cast
    assert sk.ops.cast.check_inference(same_shape).code == E.INVALID_OPERATION


def test_prepare_takes_a_shared_plan_only():
    req = req1((4,), F32, BF16)
    a65_plan = sk.a65.cast.check_inference(req)
    for wrong in (req, a65_plan, None, "plan"):
        result = sk.a65.cast.prepare(wrong)
        assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result


def test_unknown_route_is_an_error_naming_the_routes():
    req = req1((4,), F32, BF16)
    for result in (sk.a65.cast.check_inference(req, route="bogus"),
                   sk.a65.cast.prepare(sk.ops.cast.check_inference(req), route="bogus")):
        assert isinstance(result, sk.Error) and result.code == E.UNSUPPORTED_ENVIRONMENT
        assert "bogus" in result.message
        for name in ROUTES:
            assert name in result.message


# ------------------------------------------------------------------ accepted


@pytest.mark.parametrize("src, dst", [(F32, BF16), (BF16, F32)], ids=["f32_to_bf16", "bf16_to_f32"])
def test_rank0_scalar(src, dst):
    assert_accepted(req1((), src, dst), (ITEMSIZE[src], ITEMSIZE[src]), (ITEMSIZE[dst], ITEMSIZE[dst]))
    assert_accepted(req1((), src, dst, (), ()), (ITEMSIZE[src], ITEMSIZE[src]), (ITEMSIZE[dst], ITEMSIZE[dst]))


@pytest.mark.parametrize(
    "shape, in_strides, out_strides",
    [
        ((0,), None, None),
        ((0,), (0,), (0,)),
        ((5, 0), None, None),
        ((0, 5), (0, 4), (0, 2)),       # zero stride on the empty axis
        ((3, 0, 2), (8, 0, 4), (4, 0, 2)),
        ((1 << 62, 0), None, None),     # empty: no overflow from the other extent
        ((0,) * 6, (0,) * 6, (0,) * 6),
    ],
)
def test_empty_tensors_need_zero_bytes(shape, in_strides, out_strides):
    assert_accepted(req1(shape, F32, BF16, in_strides, out_strides), (0, 4), (0, 2))


@pytest.mark.parametrize(
    "shape, in_strides, out_strides, in_bytes, out_bytes",
    [
        # zero and odd strides on singleton axes are inert
        ((1, 4), (0, 4), (0, 2), 16, 8),
        ((4, 1), (4, 0), (2, 12), 16, 8),
        ((4, 1), (4, 28), (2, 26), 16, 8),
        ((1, 3), ((1 << 63) - 4, 4), (2, 2), 12, 6),       # largest aligned stride on a singleton
        # permutation (transposed): span = 4 + 1*4 + 2*8 = 24
        ((2, 3), (4, 8), (2, 4), 24, 12),
        # padded rows: 4 + 1*32 + 2*4 = 44; output 2 + 1*10 + 2*2 = 16
        ((2, 3), (32, 4), (10, 2), 44, 16),
        # stepped view: 4 + 4*12 = 52; output 2 + 4*6 = 26
        ((5,), (12,), (6,), 52, 26),
        # rank 6 with singletons
        ((2, 1, 3, 1, 1, 2), (96, 0, 32, 4, 0, 4), None, 4 + 96 + 64 + 4, 24),
    ],
)
def test_accepted_layouts_and_exact_requirements(shape, in_strides, out_strides, in_bytes, out_bytes):
    assert_accepted(req1(shape, F32, BF16, in_strides, out_strides), (in_bytes, 4), (out_bytes, 2))
    # The same two layouts the other way round.
    assert_accepted(req1(shape, BF16, F32, out_strides, in_strides), (out_bytes, 2), (in_bytes, 4))


def test_contiguous_requirements():
    assert_accepted(req1((2, 3), F32, BF16), (24, 4), (12, 2))
    assert_accepted(req1((7,), BF16, F32), (14, 2), (28, 4))
    assert_accepted(req1((2, 3, 4, 5, 6, 7), F32, BF16), (4 * 5040, 4), (2 * 5040, 2))


# ------------------------------------------------------------------ overflow


@pytest.mark.parametrize(
    "shape, src, dst, in_strides, out_strides",
    [
        ((1 << 62, 4), F32, BF16, None, None),              # element count 2^64
        ((1 << 40, 1 << 40), BF16, F32, None, None),         # element count 2^80
        ((1 << 61,), F32, BF16, None, None),                 # count fits, FP32 bytes 2^63
        ((1 << 62,) , BF16, F32, None, None),                # count fits, FP32 bytes 2^64
        (((1 << 62) - 1,), BF16, F32, None, None),           # BF16 bytes fit, FP32 bytes do not
        ((1 << 63,), F32, BF16, None, None),                 # extent beyond int64
        ((1 << 64,), BF16, F32, None, None),
        ((2, 1 << 63), F32, BF16, None, None),
        ((3,), F32, BF16, (1 << 62,), None),                 # strided span 2^63 + 4
        ((2,), F32, BF16, ((1 << 63) - 4,), None),           # span exactly 2^63
        ((2,), F32, BF16, (1 << 63,), None),                 # stride beyond int64
        ((1, 2), F32, BF16, (1 << 63, 4), None),             # ... even on a singleton axis
        ((2,), BF16, F32, None, (1 << 64,)),
        ((1 << 31, 1 << 31), F32, BF16, (1 << 33, 4), None),  # span 2^64 by the outer axis
    ],
)
def test_overflow(shape, src, dst, in_strides, out_strides):
    assert_rejected(req1(shape, src, dst, in_strides, out_strides), E.OVERFLOW)


@pytest.mark.parametrize(
    "shape, src, dst, in_strides, in_need, out_need",
    [
        ((1 << 60,), BF16, F32, None, (1 << 61, 2), (1 << 62, 4)),
        (((1 << 61) - 1,), F32, BF16, None, ((1 << 63) - 4, 4), ((1 << 62) - 2, 2)),
        ((2,), F32, BF16, ((1 << 63) - 8,), ((1 << 63) - 4, 4), (4, 2)),
        ((2,), F32, BF16, (1 << 62,), ((1 << 62) + 4, 4), (4, 2)),
    ],
)
def test_huge_but_representable_plans(shape, src, dst, in_strides, in_need, out_need):
    """Near the limit admission succeeds without allocating anything, and a
    small binding is then refused before any write."""
    assert_accepted(req1(shape, src, dst, in_strides), in_need, out_need)
    for route in ROUTES:
        plan = sk.a65.cast.check_inference(req1(shape, src, dst, in_strides), route=route)
        src_buf = Storage.make((16,), src)
        dst_buf = Storage.make((16,), dst)
        result = sk.a65.cast.execute(plan, [src_buf.buf], [dst_buf.buf])
        assert isinstance(result, sk.Error) and result.code == E.INVALID_BINDING, result
        assert_untouched(dst_buf.buf, dst_buf.fill, what="output")


# ------------------------------------------------------------------ properties


@st.composite
def arbitrary_layout(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank)))
    strides = tuple(4 * draw(st.integers(0, 12)) for _ in shape)
    return shape, strides


@settings(max_examples=300)
@given(arbitrary_layout())
def test_admitted_layouts_never_overlap(layout):
    """Whatever the proof admits has pairwise disjoint elements and requires
    exactly its span; whatever it rejects is a layout error."""
    shape, strides = layout
    result = sk.ops.cast.check_inference(req1(shape, F32, BF16, strides, None))
    if isinstance(result, sk.Error):
        assert result.code == E.UNSUPPORTED_LAYOUT, result
        assert "input" in result.message and "axis" in result.message
        return
    offsets = np.sort(element_offsets(shape, strides))
    assert np.all(np.diff(offsets) >= 4), f"admitted overlapping layout {shape} {strides}"
    assert result.input_requirements() == (sk.Requirement(span(shape, strides, 4), 4),)
    if offsets.size:
        assert result.input_requirements()[0].nbytes == int(offsets[-1]) + 4


@settings(max_examples=100)
@given(
    st.lists(st.integers(2, 4), min_size=1, max_size=4),
    st.data(),
)
def test_misaligned_strides_always_rejected(shape, data):
    axis = data.draw(st.integers(0, len(shape) - 1))
    strides = [4 * 4**i for i in reversed(range(len(shape)))]
    strides[axis] += data.draw(st.sampled_from([1, 2, 3]))
    result = sk.ops.cast.check_inference(req1(tuple(shape), F32, BF16, tuple(strides)))
    assert isinstance(result, sk.Error) and result.code == E.UNSUPPORTED_LAYOUT, result
