"""The avx512 route's BF16 Dequant: a lookup in a 256-entry table that the
plan holds (csrc/dequant/dequant_avx512.c).

The table is computed at preparation in the default FP state whatever the
caller's, so preparing under any rounding mode, flush-to-zero,
denormals-are-zero or enabled trap gives the oracle's bits and leaves the
caller's state as it was.  The lookup is checked for all 256 inputs at
every lane of the 64-element block, at every output alignment of the
streamed head (64 bytes), around every block boundary, with sentinels
after the end.  The general suites (exhaustive INT8, layouts, FP states)
run on this route too, parametrised over the available routes."""
import os
import subprocess
import sys

import numpy as np
import pytest

import simakernels as sk
from support.helpers import (
    BF16,
    F32,
    INPUT_FILL,
    SENTINEL,
    aligned_bytes,
    dequant_request,
    dequant_tables,
    fail_if,
    fp_or_skip,
    mismatch_report,
    ok_plan,
    untouched_report,
    stream_override,
)

pytestmark = pytest.mark.skipif("avx512" not in sk.a65.available_routes(),
                                reason="this CPU has no avx512 route")

Rounding, Trap = sk.fenv.Rounding, sk.fenv.Trap
BLOCK = 64
# (scale bits, zero point): every form; results whose BF16 bits change with
# the FP state the staged arithmetic would run in (a subnormal scale of 2^-130
# under FTZ/DAZ; zero points whose conversion rounds to an FP32 value at a
# BF16 tie under nearest, and off it under upward or downward rounding); and
# arithmetic that would raise each enabled trap.
PARAMS = {
    "narrow": (0x3C4985F0, -3),
    "narrow_pow2": (0x3E000000, 5),
    "wide_pow2": (0x40800000, 1000),
    "wide_unit": (0x3F800000, 16777217),
    "wide": (0x3C4985F0, 1000),
    "subnormal_scale": (0x00080000, 0),
    "zp_rounds_up": (0x3F800000, 33685505),
    "zp_rounds_down": (0x3F800000, 33947647),
    "tiny_products": (0x00F0F0F1, 7),
    "overflow": (0x7F7FFFFF, -(2**31)),
    "inexact_zp": (0x4037CED9, 16777217),
}
STATES = {
    "toward-zero": dict(rounding=Rounding.TOWARD_ZERO),
    "upward": dict(rounding=Rounding.UPWARD),
    "downward": dict(rounding=Rounding.DOWNWARD),
    "flush-to-zero": dict(flush_to_zero=True),
    "denormals-are-zero": dict(denormals_are_zero=True),
    "ftz-daz-upward": dict(rounding=Rounding.UPWARD, flush_to_zero=True, denormals_are_zero=True),
    "all-traps": dict(traps=list(Trap)),
}


def native_table(plan) -> np.ndarray:
    """The plan's table as BF16 words indexed by the input byte."""
    planes = np.frombuffer(sk._ffi.ffi.buffer(plan._native.bf16_table), dtype=np.uint8).reshape(2, 256)
    return planes[0].astype(np.uint16) | (planes[1].astype(np.uint16) << 8)


def table_report(plan, params, what):
    expected = dequant_tables(*PARAMS[params])[1]
    return mismatch_report(native_table(plan), expected, np.arange(256, dtype=np.uint8), what)


@pytest.mark.parametrize("params", PARAMS)
def test_table_holds_the_oracle_bits(params):
    scale_bits, zero_point = PARAMS[params]
    plan = ok_plan(dequant_request((5,), BF16, scale_bits, zero_point), "avx512")
    fail_if([table_report(plan, params, f"table {params}")])


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("params", PARAMS)
def test_table_does_not_depend_on_the_callers_fp_state(params, state):
    """Prepared under the state (only library calls inside it); the state is
    unchanged after, the table holds the oracle bits, and executing under
    the default state afterwards gives them."""
    scale_bits, zero_point = PARAMS[params]
    req = dequant_request((300,), BF16, scale_bits, zero_point)
    with fp_or_skip(**STATES[state]) as wanted:
        plan = sk.a65.dequant.check_inference(req, route="avx512")
        after = sk.fenv.query()
    assert not isinstance(plan, sk.Error), plan
    assert after == wanted, f"preparation changed the FP state: {after} != {wanted}"
    reports = [table_report(plan, params, f"table prepared under {state}, {params}")]
    q = (np.arange(300) * 7 % 256).astype(np.uint8)
    out = np.empty(300, np.uint16)
    assert sk.a65.dequant.execute(plan, [q], [out]) is None
    reports.append(mismatch_report(out, dequant_tables(scale_bits, zero_point)[1][q], q, f"execute {params}"))
    fail_if(reports)


def test_table_left_zero_on_other_routes_and_for_f32():
    scale_bits, zero_point = PARAMS["narrow"]
    for route, output in (("avx2", BF16), ("avx512", F32)):
        plan = ok_plan(dequant_request((5,), output, scale_bits, zero_point), route)
        assert not native_table(plan).any(), f"{route} {output.name}"


def every_value_at_every_lane() -> np.ndarray:
    """256 blocks of 64: block b lane p holds (b + 3 p) mod 256 (3 is odd,
    so each lane sees all 256 values and each block 64 distinct ones)."""
    b, p = np.divmod(np.arange(256 * BLOCK), BLOCK)
    return ((b + 3 * p) % 256).astype(np.uint8)


def run_report(plan, q, expected, out_off, what):
    n = q.size
    dst = aligned_bytes(out_off + 2 * n + 70, SENTINEL)
    src = aligned_bytes(n + 64, INPUT_FILL)
    src[:n] = q
    status = sk.a65.dequant.execute(plan, [src[:n]], [dst[out_off:out_off + 2 * n]])
    if status is not None:
        return f"{what}: {status}"
    outside = np.ones(dst.size, dtype=bool)
    outside[out_off:out_off + 2 * n] = False
    got = dst[out_off:out_off + 2 * n].view(np.uint16)
    return mismatch_report(got, expected, q, what) or untouched_report(dst, SENTINEL, outside, what)


@pytest.mark.parametrize("streaming", [0, 1], ids=["cached", "streamed"])
@pytest.mark.parametrize("params", ["narrow", "wide", "subnormal_scale"])
def test_every_input_at_every_lane_and_alignment(params, streaming):
    scale_bits, zero_point = PARAMS[params]
    q = every_value_at_every_lane()
    table = dequant_tables(scale_bits, zero_point)[1]
    reports = []
    with stream_override(streaming):
        for n in (q.size, q.size - 1, q.size - 63):
            plan = ok_plan(dequant_request((n,), BF16, scale_bits, zero_point), "avx512")
            for out_off in range(0, 64, 2):  # every head length of the streamed path
                reports.append(run_report(plan, q[:n], table[q[:n]], out_off, f"{params} n={n} @{out_off}"))
    fail_if(reports)


@pytest.mark.parametrize("streaming", [0, 1], ids=["cached", "streamed"])
def test_sizes_around_blocks(streaming):
    scale_bits, zero_point = PARAMS["narrow"]
    table = dequant_tables(scale_bits, zero_point)[1]
    rng = np.random.default_rng(5)
    reports = []
    with stream_override(streaming):
        for n in sorted({k * BLOCK + d for k in range(4) for d in (-2, -1, 0, 1, 2, 31, 32, 33)} - {-2, -1, 0}):
            plan = ok_plan(dequant_request((n,), BF16, scale_bits, zero_point), "avx512")
            q = rng.integers(0, 256, n, dtype=np.uint8)
            for out_off in (0, 2, 62):
                reports.append(run_report(plan, q, table[q], out_off, f"n={n} @{out_off}"))
    fail_if(reports)


def test_forcing_avx2_still_works():
    code = ("import simakernels as sk, sys; sys.path.insert(0, 'tests'); from support.helpers import *; "
            "p = sk.a65.dequant.check_inference(dequant_request((3,), BF16, 0x3F800000, 0)); print(p.route)")
    env = dict(os.environ, SIMAKERNELS_FORCE_ROUTE="avx2")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "avx2"
    assert sk.a65.available_routes()[0] == "avx512"
