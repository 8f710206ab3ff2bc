"""Dequant traversal: dense lengths around the 16-element blocks, the
two-block loop and the 128-element cutoff; named strided and permuted
layouts; random layouts of rank 0..6 with independent port strides.  Every
case runs on every route with each arithmetic form, outputs pre-filled with
the sentinel and every byte outside the logical elements checked untouched."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simakernels as sk
from support.helpers import (
    BF16,
    F32,
    I8,
    INPUT_FILL,
    ITEMSIZE,
    ROUTES,
    SENTINEL,
    Storage,
    admissible_strides,
    assert_bits_equal,
    dequant_report,
    plan_form,
    fail_if,
    ok_plan,
    oracle_dequant,
    small_shapes,
)
from support.op_cases import LAYOUT_IDS, LAYOUTS, byte_strides

OUTPUTS = {"f32": F32, "bf16": BF16}

# (scale bits, zero point): one of each form; a general and a power-of-two
# scale, narrow and wide zero points.
PARAMS = [
    (0x4037CED9, -123),   # narrow
    (0x3E000000, 5),      # narrow_pow2, 2^-3
    (0x41000000, -128),   # narrow_pow2, 2^3
    (0x40800000, 16777088),  # wide_pow2, 2^2
    (0x3D800000, -1000001),  # wide_pow2, 2^-4
    (0x3F800000, 16777217),  # wide_unit
    (0x4037CED9, 16777089),  # wide
    (0x3E000000, -(2**31)),  # wide (power of two outside the wide range)
]


def test_params_cover_every_form():
    assert {plan_form(s, z) for s, z in PARAMS} == {
        "narrow", "narrow_pow2", "wide_pow2", "wide_unit", "wide"}


SIZES = [0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 127, 128, 129, 1000]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("route", ROUTES)
def test_dense_1d_sizes(route, n):
    """Random INT8 data; the sentinel right after the last element (and 29
    more bytes) must survive."""
    fail_if(
        dequant_report(route, (n,), dst, s, z, seed=n * 31 + k, out_excess=29)
        for dst in (F32, BF16)
        for k, (s, z) in enumerate(PARAMS)
    )


@pytest.mark.parametrize("n", [1, 15, 16, 17, 31, 32, 33, 48, 49, 129])
@pytest.mark.parametrize("route", ROUTES)
def test_padded_rows_around_blocks(route, n):
    """Rows of n packed elements with gaps after each row: each row is a
    dense run with its own blocks and tail."""
    reports = []
    for dst in (F32, BF16):
        so = ITEMSIZE[dst]
        for k, (s, z) in enumerate(PARAMS):
            reports.append(dequant_report(route, (3, n), dst, s, z, (n + 3, 1), ((n + 5) * so, so), seed=k))
            reports.append(dequant_report(route, (3, n), dst, s, z, None, ((n + 1) * so, so), seed=k + 1))
            reports.append(dequant_report(route, (3, n), dst, s, z, (n + 2, 1), None, seed=k + 2))
    fail_if(reports)


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("route", ROUTES)
def test_named_layouts(route, layout, output):
    _, shape, in_strides, out_el = layout
    dst = OUTPUTS[output]
    out_strides = byte_strides(out_el, dst)
    fail_if(
        dequant_report(route, shape, dst, s, z, in_strides, out_strides, seed=k)
        for k, (s, z) in enumerate(PARAMS)
    )


@pytest.mark.parametrize("route", ROUTES)
def test_specification_example_bf16_strided_rows(route):
    """The specification's C++ example: shape (2, 3), BF16 output with
    Strided((8, 2)) (one untouched word after each row), scale 0.25, zero
    point -3.  Expected words worked by hand: (q + 3) * 0.25."""
    req = sk.ops.dequant.Request(
        [sk.TensorSpec((2, 3), I8)],
        [sk.TensorSpec((2, 3), BF16, sk.Strided((8, 2)))],
        sk.ops.dequant.Params(0.25, -3),
    )
    plan = ok_plan(req, route)
    assert plan.input_requirements() == (sk.Requirement(6, 1),)
    assert plan.output_requirements() == (sk.Requirement(14, 2),)  # 2 + 1*8 + 2*2
    q = np.array([[-128, -3, 0], [1, 5, 127]], dtype=np.int8)
    # -31.25, 0, 0.75, 1, 2, 32.5
    expected = np.array([0xC1FA, 0x0000, 0x3F40, 0x3F80, 0x4000, 0x4202], dtype=np.uint16)
    assert np.array_equal(oracle_dequant(q.reshape(-1), BF16, 0x3E800000, -3), expected)
    src = Storage.make((2, 3), I8, fill=INPUT_FILL)
    src.write(q.view(np.uint8))
    dst = Storage.make((2, 3), BF16, (8, 2), excess=10)
    assert sk.a65.dequant.execute(plan, [src.buf], [dst.buf]) is None
    assert_bits_equal(dst.read(), expected, q.view(np.uint8), f"{route} specification example", shape=(2, 3))
    dst.assert_gaps_untouched()
    assert dst.buf[6:8].tolist() == [SENTINEL, SENTINEL]  # the word after row 0


# ------------------------------------------------------------------ random


@settings(max_examples=40)
@given(data=st.data())
@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("route", ROUTES)
def test_random_layouts(route, output, data):
    dst = OUTPUTS[output]
    shape = data.draw(small_shapes(), label="shape")
    in_strides = data.draw(admissible_strides(shape, 1), label="input strides")
    out_strides = data.draw(admissible_strides(shape, ITEMSIZE[dst]), label="output strides")
    scale_bits, zero_point = data.draw(st.sampled_from(PARAMS), label="params")
    in_excess = data.draw(st.integers(0, 16), label="input excess")
    out_excess = data.draw(st.integers(0, 16), label="output excess")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    fail_if([dequant_report(route, shape, dst, scale_bits, zero_point, in_strides, out_strides,
                            seed=seed, in_excess=in_excess, out_excess=out_excess)])


@settings(max_examples=40)
@given(data=st.data())
@pytest.mark.parametrize("route", ROUTES)
def test_random_long_rows(route, data):
    """Rank 1..3 with a long fastest axis (up to 300), so that strided and
    permuted layouts also reach the vector blocks of every form."""
    rank = data.draw(st.integers(1, 3), label="rank")
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank - 1, max_size=rank - 1), label="outer"))
    shape += (data.draw(st.integers(1, 300), label="inner"),)
    dst = data.draw(st.sampled_from([F32, BF16]), label="output")
    in_strides = data.draw(admissible_strides(shape, 1), label="input strides")
    out_strides = data.draw(admissible_strides(shape, ITEMSIZE[dst]), label="output strides")
    scale_bits, zero_point = data.draw(st.sampled_from(PARAMS), label="params")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    fail_if([dequant_report(route, shape, dst, scale_bits, zero_point, in_strides, out_strides, seed=seed)])
