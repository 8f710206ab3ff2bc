"""affine_quant numerics, bit for bit, on every route and in every rounding
mode, for every output type (INT8, UINT8, INT16, UINT16, INT4, UINT4, INT2,
UINT2): every BF16 and FP16 pattern, FP32 samples (specials, products at and
around each type's range edges shifted by the zero point, random patterns),
lengths around the vector blocks and the fused packing chunk; sub-byte
outputs packed (the last byte's spare bits keep the sentinel's) and one
element per byte; INT8 output bit-identical to ``quant``.

Expected values come from tests/oracle/affine.py (support/formats_helpers.py
caches them).  The exhaustive sweep's non-slow part runs each (output type,
mode) once, the input formats alternating; the rest of the cross product is
``slow``.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import simakernels as sk
from simakernels._ffi import lib
from support.formats_helpers import (BF16, F16, F32, MODES, QUANT_OUT, QUANT_PARAMS, IntPort,
                                     block_lengths, every16_with_tail, f32_samples, float_port, ids, quant_expected,
                                     quant_params, run_quant, storage)
from support.helpers import INPUT_FILL, ROUTES, fail_if, stream_override

I8 = sk.DType.INT8


def _layouts(out):
    """(name, output port factory) per output layout: packed and one
    element per byte for sub-byte types, C order otherwise."""
    if out.sub_byte:
        return (("packed", lambda shape: IntPort.make(out, shape)),
                ("unpacked", lambda shape: IntPort.make(out, shape, packed=False)))
    return (("dense", lambda shape: IntPort.make(out, shape)),)


def exhaustive_reports(route, out, src, modes):
    patterns = every16_with_tail(src)
    x = float_port(src, patterns.shape, fill=INPUT_FILL)
    x.write(patterns)
    m, zp = QUANT_PARAMS[out]
    reports = []
    for mode in modes:
        expected = quant_expected(src, patterns, m, zp, mode, out)
        for layout, port in _layouts(out):
            what = f"{route} {src.name}->{out.name} m={m:#010x} zp={zp} {mode} {layout} every pattern"
            reports.append(run_quant(route, x, patterns, port(patterns.shape), quant_params(out, mode), expected,
                                     what))
    return reports


QUICK = {mode: (BF16, F16)[i % 2] for i, mode in enumerate(MODES)}


@pytest.mark.parametrize("out", QUANT_OUT, ids=ids(QUANT_OUT))
@pytest.mark.parametrize("route", ROUTES)
def test_every_16bit_pattern(route, out):
    """Each mode once, BF16 and FP16 alternating by mode (the other half:
    ``test_every_16bit_pattern_rest``)."""
    fail_if([r for mode, src in QUICK.items() for r in exhaustive_reports(route, out, src, (mode,))])


@pytest.mark.slow
@pytest.mark.parametrize("out", QUANT_OUT, ids=ids(QUANT_OUT))
@pytest.mark.parametrize("route", ROUTES)
def test_every_16bit_pattern_rest(route, out):
    fail_if([r for mode, src in QUICK.items() for r in
             exhaustive_reports(route, out, BF16 if src is F16 else F16, (mode,))])


# ----------------------------------------------------------------- FP32


@pytest.mark.parametrize("out", QUANT_OUT, ids=ids(QUANT_OUT))
@pytest.mark.parametrize("route", ROUTES)
def test_f32_samples(route, out):
    """Specials, range edges and random FP32 patterns: dense, every second
    input, and (wide types) every third output element, each mode."""
    m, zp = QUANT_PARAMS[out]
    values = f32_samples(out, m, zp)
    n = values.size
    layouts = [("dense", None, None), ("in[::2]", (8,), None)]
    if not out.sub_byte:
        layouts.append(("out[::3]", None, (3 * out.itemsize,)))
    else:
        layouts.append(("out one per byte [::3]", None, (3,)))
    reports = []
    for mode in MODES:
        expected = quant_expected(F32, values, m, zp, mode, out)
        for name, in_strides, out_strides in layouts:
            x = float_port(F32, (n,), in_strides, fill=INPUT_FILL)
            x.write(values)
            dst = IntPort.make(out, (n,), out_strides)
            reports.append(run_quant(route, x, values, dst, quant_params(out, mode), expected,
                                     f"{route} FLOAT32->{out.name} {mode} {name} samples"))
    fail_if(reports)


# -------------------------------------------------------- block edges


@pytest.mark.parametrize("out", QUANT_OUT, ids=ids(QUANT_OUT))
@pytest.mark.parametrize("route", ROUTES)
def test_lengths_around_blocks(route, out):
    """Dense runs of every length around the route's blocks, the packing
    granule and the fused chunk: the input format and mode rotate with the
    length; packed outputs keep the spare bits of their last byte."""
    m, zp = QUANT_PARAMS[out]
    pools = {F32: f32_samples(out, m, zp, count=256, seed=1), BF16: every16_with_tail(BF16),
             F16: every16_with_tail(F16)}
    expected = {(src, mode): quant_expected(src, pool, m, zp, mode, out) for src, pool in pools.items()
                for mode in MODES}
    rng = np.random.default_rng(out.bits * 31 + storage(out).signed)
    reports = []
    for k, n in enumerate(block_lengths(lib.SK_OP_AFFINE_QUANT, route)):
        src, mode = (F32, BF16, F16)[k % 3], MODES[(k // 3) % 4]
        pick = rng.integers(0, pools[src].size, n)
        values = pools[src][pick]
        x = float_port(src, (n,), fill=INPUT_FILL)
        x.write(values)
        dst = IntPort.make(out, (n,), fill=0xA5 if k % 2 else 0x5A)
        reports.append(run_quant(route, x, values, dst, quant_params(out, mode), expected[src, mode][pick],
                                 f"{route} {src.name}->{out.name} {mode} n={n}"))
    fail_if(reports)


@pytest.mark.parametrize("out", QUANT_OUT, ids=ids(QUANT_OUT))
@pytest.mark.parametrize("route", ROUTES)
def test_streamed_outputs(route, out):
    """Every run forced to stream its output (the documented test override,
    restored after): lengths around the blocks and the tested chunk, output
    bases at and off the 32- and 64-byte alignments the streamed stores
    start from (a head before them), each layout of the type; inputs rotate
    through the three formats and the modes."""
    m, zp = QUANT_PARAMS[out]
    pools = {F32: f32_samples(out, m, zp, count=256, seed=2), BF16: every16_with_tail(BF16),
             F16: every16_with_tail(F16)}
    rng = np.random.default_rng(out.bits * 7 + storage(out).signed)
    reports = []
    with stream_override(1):
        for k, n in enumerate((64, 65, 127, 128, 129, 300, 1023, 1024, 1090, 2200)):
            src, mode = (F32, BF16, F16)[k % 3], MODES[k % 4]
            values = pools[src][rng.integers(0, pools[src].size, n)]
            expected = quant_expected(src, values, m, zp, mode, out)
            x = float_port(src, (n,), fill=INPUT_FILL)
            x.write(values)
            for layout, port in _layouts(out):
                item = 1 if out.sub_byte else out.itemsize
                for shift in (0, item, 3 * item, 40):
                    dst = port((n,))
                    base = IntPort.make(out, (n,), packed=dst.packed, excess=7 + shift)
                    dst = dataclasses.replace(dst, buf=base.buf[shift:shift + dst.buf.size])
                    reports.append(run_quant(route, x, values, dst, quant_params(out, mode), expected,
                                             f"{route} {src.name}->{out.name} {mode} {layout} n={n} streamed, "
                                             f"output at byte {shift}"))
    fail_if(reports)


# ------------------------------------------------------------- INT8 = quant


@pytest.mark.parametrize("route", ROUTES)
def test_int8_output_is_quant(route):
    """affine_quant to INT8 gives quant's bits: every BF16 / FP16 pattern
    and the FP32 samples, each mode, both operations on the same input."""
    m, zp = QUANT_PARAMS[I8]
    reports = []
    for src in (BF16, F16, F32):
        values = every16_with_tail(src) if src is not F32 else f32_samples(I8, m, zp)
        x = float_port(src, values.shape, fill=INPUT_FILL)
        x.write(values)
        for mode in MODES:
            ours = IntPort.make(I8, values.shape)
            expected = quant_expected(src, values, m, zp, mode, I8)   # = the INT8 quant oracle's (its self-test)
            reports.append(run_quant(route, x, values, ours, quant_params(I8, mode), expected,
                                     f"{route} {src.name}->INT8 affine_quant {mode}"))
            plan = sk.a65.quant.check_inference(sk.ops.quant.Request(
                [sk.TensorSpec(values.shape, src)], [sk.TensorSpec(values.shape, I8)],
                sk.ops.quant.Params.from_bits(m, zp, mode)), route=route)
            theirs = np.zeros(values.size, np.int8)
            assert sk.a65.quant.execute(plan, [x.buf], [theirs]) is None
            if not np.array_equal(ours.values(), theirs.astype(np.int64)):
                bad = np.flatnonzero(ours.values() != theirs)
                reports.append(f"{route} {src.name} {mode}: affine_quant and quant differ at {bad[:8]} "
                               f"(inputs {[hex(v) for v in values[bad[:8]]]})")
    fail_if(reports)


def test_the_parameter_sets_cover_both_saturations():
    """Every output type's parameters, over every BF16 pattern, reach both
    ends of its range and values strictly inside it."""
    for out in QUANT_OUT:
        m, zp = QUANT_PARAMS[out]
        st = storage(out)
        got = quant_expected(BF16, every16_with_tail(BF16), m, zp, "nearest_even", out)
        assert got.min() == st.lo and got.max() == st.hi
        assert ((got > st.lo) & (got < st.hi)).sum() > 8, out
