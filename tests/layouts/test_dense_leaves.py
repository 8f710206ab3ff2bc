"""Dense runs at every alignment, around every block of the dense leaves:
the AVX2 leaves convert a scalar head until the output is 32-byte aligned,
then 32 elements per iteration, then one 16-element (BF16 output) or several
8-element (FP32 output) groups, then a scalar tail; outputs of a dense run
whose input and output bytes together reach ``sk_stream_min_bytes()`` use
non-temporal stores.

Every length around those blocks runs at every output byte offset 0..31
(steps of the output element size, from a 64-byte aligned base) and at input
offsets that are and are not vector aligned, on every route, once with the
default threshold (these small runs stay cached) and once with the streaming
path forced by the documented test override (``sk_stream_override``, always
restored).  Expected bits come from the oracle; every output byte outside
the logical elements must still hold the sentinel, and the input must be
unchanged.  One slow test streams above the real threshold.
"""

import numpy as np
import pytest

import simakernels as sk
from simakernels._ffi import lib
from support.helpers import (
    BF16,
    F32,
    I8,
    INPUT_FILL,
    ITEMSIZE,
    ROUTES,
    SENTINEL,
    UINT,
    aligned_bytes,
    block_edges,
    dequant_request,
    draw_values,
    plan_form,
    fail_if,
    mismatch_report,
    ok_plan,
    oracle_dequant,
    random_int8,
    request,
    untouched_report,
    stream_override,
)

# Around the 8-, 16- and 32-element blocks, with and without a head (a
# misaligned output moves every block boundary by the head's length).
LENGTHS = [1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 39, 40, 41, 47, 48, 49,
           63, 64, 65, 79, 95, 96, 97, 127, 128, 129, 200]
# Input byte offsets: aligned, one element, and just short of 32 bytes.
IN_OFFSETS = {1: (0, 1, 13, 31), 2: (0, 2, 14, 30), 4: (0, 4, 12, 28)}

DEQUANT_PARAMS = {  # (scale bits, zero point), one per arithmetic form
    "narrow": (0x3C4985F0, -3),           # 0.0123
    "narrow_pow2": (0x3E000000, 5),       # 2^-3
    "narrow_pow2_up": (0x40800000, -128), # 2^2
    "wide_pow2": (0x40800000, 1000),
    "wide_unit": (0x3F800000, 16777217),
    "wide": (0x3C4985F0, 1000),
}
STREAMING = {"cached": 0, "streamed": 1}  # sk_stream_override argument (1: every run streams)


stream_threshold = stream_override


def offset_report(module, plan, inputs, expected, in_item, out_item, in_off, out_off, what):
    """Executes ``plan`` with the input at byte ``in_off`` and the output at
    byte ``out_off`` of 64-byte aligned sentinel-filled buffers; None or a
    report of wrong bits, touched bytes or a modified input."""
    n = inputs.size
    src = aligned_bytes(in_off + n * in_item + 13, INPUT_FILL)
    dst = aligned_bytes(out_off + n * out_item + 29, SENTINEL)
    src[in_off:in_off + n * in_item] = inputs.view(np.uint8)
    before = src.copy()
    status = module.execute(plan, [src[in_off:]], [dst[out_off:]])
    what = f"{what} n={n} input offset {in_off} output offset {out_off}"
    if status is not None:
        return f"{what}: execute returned {status}"
    outside = np.ones(dst.size, dtype=bool)
    outside[out_off:out_off + n * out_item] = False
    got = dst[out_off:out_off + n * out_item].view(expected.dtype)
    problems = [mismatch_report(got, expected, inputs, what), untouched_report(dst, SENTINEL, outside, what)]
    if not np.array_equal(src, before):
        problems.append(f"{what}: input buffer modified")
    found = [p for p in problems if p]
    return "\n".join(found) if found else None


def lengths(operation, route, variant):
    """LENGTHS and the lengths around the entry's own blocks (its kernel
    table's block size: 32 and 64 on the wider routes)."""
    return sorted(set(LENGTHS) | set(block_edges(operation, route, variant)))


def sweep(module, plan_for, inputs_for, in_item, out_item, what, sizes):
    reports = []
    for n in sizes:
        plan = plan_for(n)
        inputs, expected = inputs_for(n)
        for out_off in range(0, 32, out_item):
            for in_off in IN_OFFSETS[in_item]:
                reports.append(offset_report(module, plan, inputs, expected, in_item, out_item,
                                             in_off, out_off, what))
    return reports


@pytest.mark.parametrize("streaming", STREAMING)
@pytest.mark.parametrize("direction", [(F32, BF16), (BF16, F32)], ids=["f32_to_bf16", "bf16_to_f32"])
@pytest.mark.parametrize("route", ROUTES)
def test_cast_every_alignment(route, direction, streaming):
    src_dtype, dst_dtype = direction
    si, so = ITEMSIZE[src_dtype], ITEMSIZE[dst_dtype]

    def inputs_for(n):
        inputs, expected = draw_values(src_dtype, n, seed=n)
        return inputs.astype(UINT[src_dtype]), expected.astype(UINT[dst_dtype])

    with stream_threshold(STREAMING[streaming]):
        kind = lib.SK_CAST_F32_BF16 if src_dtype is F32 else lib.SK_CAST_BF16_F32
        fail_if(sweep(sk.a65.cast, lambda n: ok_plan(request((n,), src_dtype, dst_dtype), route),
                      inputs_for, si, so, f"{route} {streaming} {src_dtype.name}->{dst_dtype.name}",
                      lengths(lib.SK_OP_CAST, route, kind)))


@pytest.mark.parametrize("streaming", STREAMING)
@pytest.mark.parametrize("output", [F32, BF16], ids=["f32", "bf16"])
@pytest.mark.parametrize("params", DEQUANT_PARAMS)
@pytest.mark.parametrize("route", ROUTES)
def test_dequant_every_alignment(route, params, output, streaming):
    scale_bits, zero_point = DEQUANT_PARAMS[params]
    assert plan_form(scale_bits, zero_point) == params.replace("_up", "")

    def inputs_for(n):
        inputs = random_int8(n, seed=n)
        return inputs, oracle_dequant(inputs, output, scale_bits, zero_point)

    with stream_threshold(STREAMING[streaming]):
        fail_if(sweep(sk.a65.dequant,
                      lambda n: ok_plan(dequant_request((n,), output, scale_bits, zero_point), route),
                      inputs_for, 1, ITEMSIZE[output],
                      f"{route} {streaming} INT8->{output.name} {params}",
                      lengths(lib.SK_OP_DEQUANT, route, lib.sk_dequant_variant(
                          lib.SK_DEQUANT_F32 if output is F32 else lib.SK_DEQUANT_BF16,
                          getattr(lib, "SK_DEQUANT_" + params.replace("_up", "").upper())))))


def test_stream_override_sets_and_restores_the_threshold():
    default = lib.sk_stream_min_bytes()
    assert default >= 16 << 20  # the documented floor
    with stream_threshold(4096):
        assert lib.sk_stream_min_bytes() == 4096
    assert lib.sk_stream_min_bytes() == default


@pytest.mark.slow
@pytest.mark.parametrize("case", ["f32_to_bf16", "bf16_to_f32", "int8_to_f32", "int8_to_bf16"])
@pytest.mark.parametrize("route", ROUTES)
def test_streams_above_the_real_threshold(route, case):
    """One dense run just above the default threshold (input and output
    bytes together, csrc/common/stream.h), output misaligned by one
    element: head, streamed blocks, sentinel after the end."""
    threshold = lib.sk_stream_min_bytes()
    if threshold > 256 << 20:
        pytest.skip(f"threshold {threshold} bytes: too large a tensor for the suite")
    src_dtype, dst_dtype = {"f32_to_bf16": (F32, BF16), "bf16_to_f32": (BF16, F32),
                            "int8_to_f32": (I8, F32), "int8_to_bf16": (I8, BF16)}[case]
    si, so = ITEMSIZE[src_dtype], ITEMSIZE[dst_dtype]
    n = threshold // (si + so) + 45
    if src_dtype is I8:
        scale_bits, zero_point = DEQUANT_PARAMS["narrow"]
        plan = ok_plan(dequant_request((n,), dst_dtype, scale_bits, zero_point), route)
        inputs = random_int8(n, seed=7)
        expected = oracle_dequant(inputs, dst_dtype, scale_bits, zero_point)
        module = sk.a65.dequant
    else:
        plan = ok_plan(request((n,), src_dtype, dst_dtype), route)
        inputs, expected = draw_values(src_dtype, n, seed=7)
        inputs, expected = inputs.astype(UINT[src_dtype]), expected.astype(UINT[dst_dtype])
        module = sk.a65.cast
    fail_if([offset_report(module, plan, inputs, expected, si, so, si, so, f"{route} {case}")])
