"""affine_quant and affine_dequant and the FP environment.

Policy (API.md and the design of issue 32): affine_quant is Quant's (exact
under flush-to-zero and denormals-are-zero; non-nearest rounding and enabled
traps refused); affine_dequant is Dequant's and Hurray's (nearest rounding,
gradual underflow, no traps, else UNSUPPORTED_ENVIRONMENT).  A refusal
writes nothing and no call changes the caller's state.

The exactness sweeps run every BF16 or FP16 subnormal, the normals above
them, random 16-bit patterns and FP32 samples full of subnormals, with multipliers whose products underflow (2^-126, a
subnormal one) or that lift subnormal inputs into range (2^127), inside
``fp_environment(flush_to_zero=..., denormals_are_zero=...)``; expected
values are computed beforehand (the oracle is integer-only anyway).  Bodies
that enable traps only call into the library."""
from __future__ import annotations

import numpy as np
import pytest

import simakernels as sk
from support.formats_helpers import (BF16, F16, F32, IntPort, dequant_expected, float_port,
                                     quant_expected, run_dequant, run_quant)
from support.helpers import (INPUT_FILL, ROUTES, environment_message_report, fail_if, fp_or_skip, fp_state_id,
                             single_feature_states, unmet_requirements)

D = sk.DType
E = sk.ErrorCode
# (output type, multiplier bits, zero point, 16-bit input format, mode)
FLUSH_CASES = (
    (D.UINT4, 0x00800000, 3, BF16, "toward_positive"),      # products of BF16 below 2^-126: subnormal
    (D.INT16, 0x00400000, -5, F16, "toward_negative"),      # a subnormal multiplier
    (D.INT2, 0x7F000000, 0, BF16, "nearest_even"),          # subnormal inputs x 2^127: small integers
    (D.UINT8, 0x3E99999A, 100, F16, "toward_zero"),
)
FLUSHES = [s for s in single_feature_states()
           if (s["flush_to_zero"] or s["denormals_are_zero"]) and s["rounding"] is sk.fenv.Rounding.NEAREST
           and not s["traps"]]


def subnormal_f32(count: int = 2048, seed: int = 7) -> np.ndarray:
    """FP32 patterns: subnormals of both signs, the smallest normals and
    random patterns."""
    rng = np.random.default_rng(seed)
    sub = rng.integers(1, 1 << 23, count // 2, dtype=np.uint32) | (rng.integers(0, 2, count // 2, dtype=np.uint32)
                                                                   << 31)
    normal = rng.integers(0, 1 << 32, count // 2, dtype=np.uint64).astype(np.uint32)
    edge = np.array([1, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x00800001, 0], np.uint32)
    return np.concatenate([edge, sub, normal])


def subnormal_16(dtype, count: int = 1536, seed: int = 16) -> np.ndarray:
    """16-bit patterns: every subnormal of both signs, the normals just
    above them and random patterns."""
    top = 0x80 if dtype is BF16 else 0x400
    low = np.arange(1, 2 * top, dtype=np.uint32)
    rng = np.random.default_rng(seed)
    rest = rng.integers(0, 1 << 16, count, dtype=np.uint32)
    return np.concatenate([low, low | 0x8000, rest]).astype(np.uint16)


@pytest.mark.parametrize("state", FLUSHES, ids=[fp_state_id(s) for s in FLUSHES])
@pytest.mark.parametrize("route", ROUTES)
def test_quant_is_exact_under_flush(route, state):
    with fp_or_skip(**state):          # skips where this CPU cannot hold the state
        pass
    reports = []
    before = sk.fenv.query()
    for out, m, zp, src, mode in FLUSH_CASES:
        params = sk.ops.affine_quant.Params.from_bits(m, zp, mode)
        for fmt, values in ((src, subnormal_16(src)), (F32, subnormal_f32())):
            expected = quant_expected(fmt, values, m, zp, mode, out)
            x = float_port(fmt, values.shape, fill=INPUT_FILL)
            x.write(values)
            for packed in ((True, False) if out.sub_byte else (False,)):
                dst = IntPort.make(out, values.shape, packed=packed)
                what = f"{route} {fmt.name}->{out.name} m={m:#010x} zp={zp} {mode} [{fp_state_id(state)}]"
                reports.append(run_quant(route, x, values, dst, params, expected, what, fenv=state))
    assert sk.fenv.query() == before
    fail_if(reports)


def _refusal_report(module, plan, src, dst, state, operation, what):
    unmet = unmet_requirements(operation, state)
    before_out = dst.copy()
    with fp_or_skip(**state):
        inside = sk.fenv.query()
        status = module.execute(plan, [src], [dst])
        after = sk.fenv.query()
    problems = []
    if after != inside:
        problems.append(f"{what}: the call changed the FP state from {inside} to {after}")
    if unmet:
        if not (isinstance(status, sk.Error) and status.code is E.UNSUPPORTED_ENVIRONMENT):
            problems.append(f"{what}: expected UNSUPPORTED_ENVIRONMENT, got {status}")
        else:
            problems.append(environment_message_report(status.message, state, unmet))
        if not np.array_equal(dst, before_out):
            problems.append(f"{what}: refused, but the output changed")
    elif status is not None:
        problems.append(f"{what}: refused an allowed state: {status}")
    found = [p for p in problems if p]
    return "\n".join(found) if found else None


STATES = single_feature_states()


@pytest.mark.parametrize("route", ROUTES)
def test_policy_in_every_single_feature_state(route):
    """Each single-feature state: affine_quant refuses what Quant refuses,
    affine_dequant what Dequant refuses; nothing is written when refused."""
    n = 37
    reports = []
    for out in (D.UINT8, D.INT4):
        for packed in ((True, False) if out.sub_byte else (False,)):
            dst = IntPort.make(out, (n,), packed=packed)
            q_plan = sk.a65.affine_quant.check_inference(sk.ops.affine_quant.Request(
                [sk.TensorSpec((n,), F32)], [dst.spec()], sk.ops.affine_quant.Params(0.5, 3)), route=route)
            d_plan = sk.a65.affine_dequant.check_inference(sk.ops.affine_dequant.Request(
                [dst.spec()], [sk.TensorSpec((n,), BF16)], sk.ops.affine_dequant.Params(-0.25, 3)), route=route)
            x = np.linspace(-50, 50, n).astype(np.float32)
            for state in STATES:
                what = f"{route} {out.name} packed={packed} [{fp_state_id(state)}]"
                dst.buf[...] = 0xA5
                reports.append(_refusal_report(sk.a65.affine_quant, q_plan, x, dst.buf, state, "quant",
                                               f"affine_quant {what}"))
                y = np.full(n, 0x5A5A, np.uint16)
                reports.append(_refusal_report(sk.a65.affine_dequant, d_plan, dst.buf, y, state, "dequant",
                                               f"affine_dequant {what}"))
    fail_if(reports)


@pytest.mark.parametrize("route", ROUTES)
def test_dequant_subnormal_results_in_the_default_state(route):
    """Gradual underflow: subnormal scales give subnormal FP32 results
    (and BF16 ones), never flushed."""
    values = np.arange(-8, 8, dtype=np.int64)
    reports = []
    for scale in (0x00000001, 0x80000003, 0x00400000):
        for out in (F32, BF16):
            q = IntPort.make(D.INT4, values.shape)
            q.write(values)
            y = float_port(out, values.shape)
            expected = dequant_expected(D.INT4, values, scale, -1, "float32" if out is F32 else "bfloat16")
            reports.append(run_dequant(route, q, values, y, sk.ops.affine_dequant.Params.from_bits(scale, -1),
                                       expected, f"{route} INT4->{out.name} scale={scale:#010x}"))
    fail_if(reports)
