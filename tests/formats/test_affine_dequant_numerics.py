"""affine_dequant numerics, bit for bit, on every route: every value of each
8-bit, sub-byte and 16-bit type (packed and one element per byte for the
sub-byte ones, whose unread high bits hold garbage), sampled INT32 / UINT32
values with the 32-bit wrap of ``q - zero_point``, negative, subnormal and
huge scales, FP32 and BF16 outputs, lengths around the blocks and the fused
unpacking chunk; dense runs at every output offset within a 64-byte line,
cached and streamed, with the zero point at each end of the type's range;
INT8 input with a positive scale bit-identical to ``dequant``.

Expected values come from tests/oracle/affine.py (support/formats_helpers.py
caches them).
"""
from __future__ import annotations

import numpy as np
import pytest

import simakernels as sk
from simakernels._ffi import lib
from support.formats_helpers import (BF16, DEQUANT_PARAMS, F32, NAME, STORAGE_DTYPES, IntPort, block_lengths,
                                     dequant_expected, dequant_params, dequant_request, float_port, ids,
                                     plan_or_report, run_dequant, spec_of, storage)
from support.helpers import (ROUTES, SENTINEL, aligned_bytes, fail_if, mismatch_report, oracle_dequant,
                             stream_override, untouched_report)

I8 = sk.DType.INT8


def every_value(dtype) -> np.ndarray:
    """Every value of a type of at most 16 bits in a shuffled order, then
    its extremes again (a tail); 32-bit types: the extremes, the values
    around 0, +-2^24 and +-2^31 and 4,096 random ones."""
    st = storage(dtype)
    rng = np.random.default_rng(st.tag)
    if st.bits <= 16:
        values = rng.permutation(np.arange(st.lo, st.hi + 1, dtype=np.int64))
        return np.concatenate([values, [st.lo, st.hi, st.lo, st.hi, 0 if st.signed else 1]])
    specials = [st.lo, st.hi, st.lo + 1, st.hi - 1, 0, 1, 2**24 + 1, 2**24 + 3, 2**31 - 1, 2**31 - 64]
    specials += [-v for v in (1, 2**24 + 1, 2**24 + 3)] if st.signed else [2**31, 2**31 + 1, 2**32 - 2]
    return np.concatenate([np.array(specials, np.int64), rng.integers(st.lo, st.hi + 1, 4096, dtype=np.int64)])


def _layouts(dtype):
    if dtype.sub_byte:
        return (("packed", lambda shape: IntPort.make(dtype, shape, fill=0x3C)),
                ("unpacked", lambda shape: IntPort.make(dtype, shape, packed=False, fill=0x3C)))
    return (("dense", lambda shape: IntPort.make(dtype, shape, fill=0x3C)),)


@pytest.mark.parametrize("dtype", STORAGE_DTYPES, ids=ids(STORAGE_DTYPES))
@pytest.mark.parametrize("route", ROUTES)
def test_every_value(route, dtype):
    """Every value (32-bit types: samples) of the type, each parameter set,
    to FP32 and BF16; one-per-byte sub-byte inputs carry random high bits."""
    values = every_value(dtype)
    rng = np.random.default_rng(values.size)
    reports = []
    for layout, make in _layouts(dtype):
        q = make(values.shape)
        q.write(values, high=rng.integers(0, 256, values.size, dtype=np.uint8) if layout == "unpacked" else None)
        for scale, zp in DEQUANT_PARAMS[dtype]:
            for out in (F32, BF16):
                expected = dequant_expected(dtype, values, scale, zp, NAME[out])
                y = float_port(out, values.shape)
                what = f"{route} {dtype.name}->{out.name} scale={scale:#010x} zp={zp} {layout}"
                reports.append(run_dequant(route, q, values, y, dequant_params(scale, zp), expected, what))
    fail_if(reports)


@pytest.mark.parametrize("dtype", STORAGE_DTYPES, ids=ids(STORAGE_DTYPES))
@pytest.mark.parametrize("route", ROUTES)
def test_lengths_around_blocks(route, dtype):
    """Dense runs of every length around the route's blocks and the fused
    chunk (packed sub-byte inputs end inside a byte whose spare bits hold
    garbage), the output alternating FP32 / BF16."""
    pool = every_value(dtype)
    rng = np.random.default_rng(dtype.bits * 7 + storage(dtype).signed)
    scale, zp = DEQUANT_PARAMS[dtype][0]
    reports = []
    for k, n in enumerate(block_lengths(lib.SK_OP_AFFINE_DEQUANT, route)):
        out = (F32, BF16)[k % 2]
        values = pool[rng.integers(0, pool.size, n)]
        q = IntPort.make(dtype, (n,), fill=int(rng.integers(0, 256)))
        q.write(values)
        y = float_port(out, (n,))
        reports.append(run_dequant(route, q, values, y, dequant_params(scale, zp),
                                   dequant_expected(dtype, values, scale, zp, NAME[out]),
                                   f"{route} {dtype.name}->{out.name} n={n}"))
    fail_if(reports)


# Around the 16- and 64-element blocks and the 32-element BF16 and packed
# steps; each runs at every output offset of a 64-byte line, so a head
# before the aligned (or streamed) blocks moves every block boundary.
ALIGN_LENGTHS = (1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 95, 127, 128, 129, 200, 257)


@pytest.mark.parametrize("streaming", ("cached", "streamed"))
@pytest.mark.parametrize("dtype", STORAGE_DTYPES, ids=ids(STORAGE_DTYPES))
@pytest.mark.parametrize("route", ROUTES)
def test_dense_runs_at_every_output_offset(route, dtype, streaming):
    """Dense runs of each length at every output offset (steps of the
    output element) from a 64-byte aligned base, FP32 and BF16, the zero
    point at the type's least and greatest value in turn, packed and (sub-byte
    types) one element per byte with garbage high bits; "streamed" forces the
    streaming-store path (sk_stream_override), plans prepared inside.  Every
    output byte outside the run must still hold the sentinel."""
    st = storage(dtype)
    pool = every_value(dtype)
    rng = np.random.default_rng(dtype.bits * 11 + st.signed)
    scale = DEQUANT_PARAMS[dtype][0][0]
    layouts = (True, False) if dtype.sub_byte else (None,)
    reports = []
    with stream_override(1 if streaming == "streamed" else 0):
        for k, n in enumerate(ALIGN_LENGTHS):
            zp = (st.lo, st.hi)[k % 2]
            values = pool[rng.integers(0, pool.size, n)]
            for packed in layouts:
                q = IntPort.make(dtype, (n,), packed=packed, fill=int(rng.integers(0, 256)))
                q.write(values, high=None if packed is not False else rng.integers(0, 256, n, dtype=np.uint8))
                for out in (F32, BF16):
                    item = 4 if out is F32 else 2
                    what = f"{route} {streaming} {dtype.name}->{out.name} zp={zp} n={n} packed={packed}"
                    plan, problem = plan_or_report(sk.a65.affine_dequant,
                                                   dequant_request(q, spec_of((n,), out), dequant_params(scale, zp)),
                                                   route, what)
                    if problem:
                        reports.append(problem)
                        continue
                    expected = dequant_expected(dtype, values, scale, zp, NAME[out])
                    for off in range(0, 64, item):
                        dst = aligned_bytes(off + n * item + 67, SENTINEL)
                        status = sk.a65.affine_dequant.execute(plan, [q.buf], [dst[off:]])
                        if status is not None:
                            reports.append(f"{what} offset {off}: execute returned {status}")
                            continue
                        outside = np.ones(dst.size, dtype=bool)
                        outside[off:off + n * item] = False
                        got = dst[off:off + n * item].view(expected.dtype)
                        reports.append(mismatch_report(got, expected, values, f"{what} offset {off}"))
                        reports.append(untouched_report(dst, SENTINEL, outside, f"{what} offset {off}"))
    fail_if([r for r in reports if r])


@pytest.mark.parametrize("route", ROUTES)
def test_int8_positive_scale_is_dequant(route):
    """INT8 input, positive scale, zero point in [-128, 127]: affine_dequant
    gives dequant's bits (both differences are exact)."""
    values = np.arange(-128, 128, dtype=np.int64).repeat(3)
    reports = []
    for scale, zp in ((0x3E000000, 127), (0x4037CED9, -123), (0x00000001, -128), (0x7F7FFFFF, 5)):
        for out in (F32, BF16):
            q = IntPort.make(I8, values.shape)
            q.write(values)
            y = float_port(out, values.shape)
            expected = dequant_expected(I8, values, scale, zp, NAME[out])
            assert np.array_equal(expected, oracle_dequant(values.astype(np.int8).view(np.uint8), out, scale, zp))
            reports.append(run_dequant(route, q, values, y, dequant_params(scale, zp), expected,
                                       f"{route} INT8->{out.name} scale={scale:#010x} zp={zp} (as dequant)"))
            plan = sk.a65.dequant.check_inference(sk.ops.dequant.Request(
                [sk.TensorSpec(values.shape, I8)], [sk.TensorSpec(values.shape, out)],
                sk.ops.dequant.Params.from_bits(scale, zp)), route=route)
            theirs = np.zeros(values.size, np.uint32 if out is F32 else np.uint16)
            assert sk.a65.dequant.execute(plan, [q.buf[:values.size]], [theirs]) is None
            assert np.array_equal(theirs, expected), f"{route} dequant {out.name} scale={scale:#010x} zp={zp}"
    fail_if(reports)


def test_the_parameter_sets_reach_the_interesting_results():
    """The parameter sets give, over each type's values: both signs of
    zero or of results, infinities (huge scales) and subnormal FP32 results
    (subnormal scales), wrapped differences for INT32 / UINT32."""
    seen = set()
    for dtype in STORAGE_DTYPES:
        values = every_value(dtype)
        for scale, zp in DEQUANT_PARAMS[dtype]:
            bits = dequant_expected(dtype, values, scale, zp, "float32")
            exponent = (bits >> 23) & 0xFF
            seen |= {"inf"} if (exponent == 0xFF).any() else set()
            seen |= {"subnormal"} if ((exponent == 0) & ((bits & 0x7FFFFF) != 0)).any() else set()
            seen |= {"-0"} if (bits == 0x80000000).any() else set()
            seen |= {"negative"} if ((bits >> 31) == 1).any() else set()
            if storage(dtype).bits == 32:
                exact = values - zp
                if ((exact < -2**31) | (exact >= 2**31)).any():
                    seen.add(f"wrap {dtype.name}")
    assert seen >= {"inf", "subnormal", "-0", "negative", "wrap INT32", "wrap UINT32"}, seen
