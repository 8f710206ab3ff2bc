"""Quant traversal: every dense length 0..200 (exceptional lanes near the
end), the 16/32/48-element block boundaries in every mode, padded rows,
named strided and permuted layouts, element-aligned but otherwise unaligned
bases, and random layouts of rank 0..6 with independent port strides, for
all three input dtypes on every route.  Outputs are pre-filled with the
sentinel and every byte outside the logical elements (gaps, the bytes after
the end) is checked untouched; expected values come from the oracle."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simakernels as sk
from support.helpers import (
    INPUT_FILL,
    ITEMSIZE,
    ROUTES,
    SENTINEL,
    admissible_strides,
    aligned_bytes,
    assert_bits_equal,
    assert_untouched,
    fail_if,
    small_shapes,
)
from support.quant_helpers import (
    BF16,
    F16,
    F32,
    INPUTS,
    MODES,
    Case,
    oracle,
    pow2,
    quant_plan,
    quant_report,
    quant_request,
    run_cases,
    useful_values,
)
from support.op_cases import LAYOUT_IDS, LAYOUTS, byte_strides

I8 = sk.DType.INT8

# (multiplier bits, zero point): the fast path with repairs, a subnormal
# multiplier (exact path only), products near the subnormal range.
PARAMS = [(0x3E99999A, -3), (0x00400000, 17), (pow2(-126), -128), (0x3F800000, 127)]

# Values forcing the exact path (FP32/BF16 subnormals, products that
# underflow with 0x3e99999a) or special (NaN, infinity, FP16 subnormal).
EXCEPTIONAL = {
    F32: (0x00000001, 0x00800000, 0x7FC00000, 0x807FFFFF),
    BF16: (0x0001, 0x0080, 0x7FC0, 0x807F),
    F16: (0x0001, 0xFC00, 0x7E00, 0x83FF),
}


def values_with_tail_lanes(dtype, n, seed, m):
    """Useful values with exceptional lanes at the last element, 17 before
    it (the previous block or the tail) and the start of the last block."""
    values = useful_values(dtype, n, seed, m)
    lanes = EXCEPTIONAL[dtype]
    for k, pos in enumerate((n - 1, n - 17, (n // 16) * 16 - 16)):
        if 0 <= pos < n:
            values[pos] = lanes[(seed + k) % len(lanes)]
    return values


@pytest.mark.parametrize("n", range(201))
@pytest.mark.parametrize("route", ROUTES)
def test_dense_lengths(route, n):
    """Dense 1-D, each input dtype and mode, one parameter set per length
    (rotating); the 29 bytes after the end must keep the sentinel."""
    m, zp = PARAMS[n % len(PARAMS)]
    cases = []
    for dtype in (F32, BF16, F16):
        values = values_with_tail_lanes(dtype, n, n, m)
        cases += [Case.make(route, (n,), dtype, m, zp, mode, values=values, out_excess=29) for mode in MODES]
    fail_if(run_cases(cases))


BLOCK_SIZES = [1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 127, 128, 129]


@pytest.mark.parametrize("n", BLOCK_SIZES)
@pytest.mark.parametrize("route", ROUTES)
def test_block_boundaries_every_mode(route, n):
    cases = []
    for dtype in (F32, BF16, F16):
        for k, (m, zp) in enumerate(PARAMS):
            values = values_with_tail_lanes(dtype, n, 7 * n + k, m)
            cases += [Case.make(route, (n,), dtype, m, zp, mode, values=values, out_excess=5) for mode in MODES]
    fail_if(run_cases(cases))


@pytest.mark.parametrize("n", [1, 15, 16, 17, 31, 32, 33, 48, 49, 129])
@pytest.mark.parametrize("route", ROUTES)
def test_padded_rows_around_blocks(route, n):
    """Rows of n packed elements with gaps after each row (input, output or
    both): each row is a dense run with its own blocks and tail."""
    reports = []
    for dtype in (F32, BF16, F16):
        si = ITEMSIZE[dtype]
        for k, (m, zp) in enumerate(PARAMS):
            mode = MODES[k]
            reports.append(quant_report(route, (3, n), dtype, m, zp, mode, ((n + 3) * si, si), (n + 5, 1), seed=k))
            reports.append(quant_report(route, (3, n), dtype, m, zp, mode, None, (n + 1, 1), seed=k + 1))
            reports.append(quant_report(route, (3, n), dtype, m, zp, mode, ((n + 2) * si, si), None, seed=k + 2))
    fail_if(reports)


@pytest.mark.parametrize("input", INPUTS)
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("route", ROUTES)
def test_named_layouts(route, layout, input):
    _, shape, in_el, out_strides = layout
    dtype = INPUTS[input]
    in_strides = byte_strides(in_el, dtype)
    fail_if(
        quant_report(route, shape, dtype, m, zp, MODES[k], in_strides, out_strides, seed=k)
        for k, (m, zp) in enumerate(PARAMS)
    )


@pytest.mark.in_child  # raw addresses at odd offsets
@pytest.mark.parametrize("input", INPUTS)
@pytest.mark.parametrize("route", ROUTES)
def test_unaligned_bases(route, input):
    """Views starting one element (input) and an odd number of bytes
    (output) into aligned buffers: the vector blocks use unaligned loads
    and stores and still write only the logical bytes."""
    dtype = INPUTS[input]
    item = ITEMSIZE[dtype]
    n, (m, zp) = 100, PARAMS[0]
    values = values_with_tail_lanes(dtype, n, 5, m)
    for mode, (in_off, out_off) in zip(MODES, ((item, 1), (3 * item, 3), (5 * item, 7), (0, 13))):
        plan = quant_plan(quant_request((n,), dtype, m, zp, mode), route)
        expected = oracle(dtype, values, m, zp, mode).view(np.uint8)
        src = aligned_bytes(n * item + 64, INPUT_FILL)
        src[in_off:in_off + n * item] = values.view(np.uint8)
        dst = aligned_bytes(n + 64, SENTINEL)
        status = sk.a65.quant.execute(
            plan,
            [sk.ConstHostBuffer.from_address(src.ctypes.data + in_off, n * item, keepalive=src)],
            [sk.HostBuffer.from_address(dst.ctypes.data + out_off, n, keepalive=dst)],
        )
        assert status is None, status
        what = f"{route} {dtype.name} {mode} input +{in_off} output +{out_off}"
        assert_bits_equal(dst[out_off:out_off + n], expected, values, what)
        mask = np.ones(dst.size, dtype=bool)
        mask[out_off:out_off + n] = False
        assert_untouched(dst, SENTINEL, mask, what)


# ------------------------------------------------------------------ random


@settings(max_examples=30)
@given(data=st.data())
@pytest.mark.parametrize("input", INPUTS)
@pytest.mark.parametrize("route", ROUTES)
def test_random_layouts(route, input, data):
    dtype = INPUTS[input]
    shape = data.draw(small_shapes(), label="shape")
    in_strides = data.draw(admissible_strides(shape, ITEMSIZE[dtype]), label="input strides")
    out_strides = data.draw(admissible_strides(shape, 1), label="output strides")
    m, zp = data.draw(st.sampled_from(PARAMS), label="params")
    mode = data.draw(st.sampled_from(MODES), label="mode")
    in_excess = data.draw(st.integers(0, 16), label="input excess")
    out_excess = data.draw(st.integers(0, 16), label="output excess")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    fail_if([quant_report(route, shape, dtype, m, zp, mode, in_strides, out_strides,
                          seed=seed, in_excess=in_excess, out_excess=out_excess)])


@settings(max_examples=30)
@given(data=st.data())
@pytest.mark.parametrize("route", ROUTES)
def test_random_long_rows(route, data):
    """Rank 1..3 with a long fastest axis (up to 300), so that strided and
    permuted layouts also reach the vector blocks; exceptional lanes near
    the end of the data."""
    rank = data.draw(st.integers(1, 3), label="rank")
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank - 1, max_size=rank - 1), label="outer"))
    shape += (data.draw(st.integers(1, 300), label="inner"),)
    dtype = data.draw(st.sampled_from([F32, BF16, F16]), label="input")
    in_strides = data.draw(admissible_strides(shape, ITEMSIZE[dtype]), label="input strides")
    out_strides = data.draw(admissible_strides(shape, 1), label="output strides")
    m, zp = data.draw(st.sampled_from(PARAMS), label="params")
    mode = data.draw(st.sampled_from(MODES), label="mode")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    n = int(np.prod(shape))
    values = values_with_tail_lanes(dtype, n, seed % 1000, m)
    fail_if([quant_report(route, shape, dtype, m, zp, mode, in_strides, out_strides, values=values)])
