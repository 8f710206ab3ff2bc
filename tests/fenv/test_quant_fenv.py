"""Quant and the FP environment.

Policy: nonempty execution refuses non-nearest rounding and every enabled
trap with UNSUPPORTED_ENVIRONMENT before writing anything and without
changing the caller's state (test_op_fenv.py, with empty execution); it
is bit-exact under flush-to-zero and denormals-are-zero (here).  The
numerical sweeps of test_quant_numerics run again inside
``fp_environment(flush_to_zero=True, denormals_are_zero=True)`` with
expected values computed beforehand in the default environment (the oracle
is integer-only anyway), including products that underflow only under FTZ
and subnormal inputs that DAZ would zero.

Bodies that enable traps only call into the library: no NumPy and no Python
float arithmetic between entering and leaving the environment."""
import numpy as np
import pytest

import simakernels as sk
from support.helpers import (
    INPUT_FILL,
    ROUTES,
    Storage,
    fail_if,
    fp_or_skip,
    fp_state_id,
    single_feature_states,
    unmet_requirements,
)
from support.op_cases import QUANT
from oracle import quant_many
from support.quant_helpers import (
    BF16,
    CROSS_PROFILES,
    F16,
    F32,
    FORMAT,
    FTZ_DAZ,
    INPUTS,
    MODES,
    PROFILES,
    QUICK16,
    ZERO_POINTS,
    Case,
    exhaustive16_cases,
    f32_random_case,
    f32_sweep_cases,
    isolated_cases,
    normal_neighbours,
    pow2,
    quant_plan,
    quant_request,
    run_cases,
    useful_values,
)

INEXACT, OVERFLOW, TINY = QUANT.trap_inexact, QUANT.trap_overflow, QUANT.trap_tiny
SHAPE, OUT_ROW = (2, 40), 43   # padded output rows: dense runs with blocks and a tail


def nonempty_case(route, dtype, params, mode="nearest_even"):
    m, zp = params
    out_strides = (OUT_ROW, 1)
    plan = quant_plan(quant_request(SHAPE, dtype, m, zp, mode, None, out_strides), route)
    src = Storage.make(SHAPE, dtype, fill=INPUT_FILL)
    values = useful_values(dtype, src.offsets.size, 17, m)
    src.write(values)
    out = Storage.make(SHAPE, sk.DType.INT8, out_strides, excess=32)
    return plan, src, out, values


# ------------------------------------------------------------ allowed states

ALLOWED = [(fp_state_id(s), s) for s in single_feature_states() if not unmet_requirements("quant", s)]


@pytest.mark.parametrize("state", ALLOWED, ids=[a[0] for a in ALLOWED])
@pytest.mark.parametrize("route", ROUTES)
def test_flush_states_are_allowed_and_left_unchanged(route, state):
    """Every entry runs under each flush state, bit-exact, and leaves the
    caller's state as it found it."""
    _, fp_state = state
    cases = []
    for dtype in (F32, BF16, F16):
        for mode in MODES:
            for params in (INEXACT, TINY, OVERFLOW, (0x00000001, 9)):
                plan, src, out, values = nonempty_case(route, dtype, params, mode)
                cases.append(Case.make(route, SHAPE, dtype, params[0], params[1], mode, None, (OUT_ROW, 1),
                                       src=src, dst=out, values=values))
    with fp_or_skip(**fp_state) as entered:
        before = sk.fenv.query()
        statuses = [c.execute() for c in cases]
        after = sk.fenv.query()
    assert before == entered and after == entered, f"execute changed the caller's FP state: {before} -> {after}"
    assert statuses == [None] * len(cases), [s for s in statuses if s is not None][:3]
    fail_if(run_cases(cases, fp_state, label=state[0]))


# ------------------------------------------------------------ FTZ/DAZ sweeps
# Expectations are computed when the cases are built, in the default
# environment; run_cases enters the flush state only around the calls.


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("route", ROUTES)
def test_exhaustive_16bit_slice_under_ftz_daz(route, profile):
    dtype, zp = QUICK16[profile]
    fail_if(run_cases(exhaustive16_cases(route, dtype, PROFILES[profile], [zp]), FTZ_DAZ, "ftz+daz"))


@pytest.mark.slow
@pytest.mark.parametrize("input", ["bf16", "f16"])
@pytest.mark.parametrize("profile", CROSS_PROFILES)
@pytest.mark.parametrize("route", ROUTES)
def test_exhaustive_16bit_cross_under_ftz_daz(route, profile, input):
    cases = exhaustive16_cases(route, INPUTS[input], PROFILES[profile], ZERO_POINTS, by_class=True)
    fail_if(run_cases(cases, FTZ_DAZ, "ftz+daz"))


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("route", ROUTES)
def test_f32_sweeps_under_ftz_daz(route, profile):
    """Exponent classes and product boundaries (the zero points of
    test_quant_numerics, so the oracle's results are shared)."""
    i = list(PROFILES).index(profile)
    m = PROFILES[profile]
    cases = f32_sweep_cases(route, "classes", m, ZERO_POINTS[i % 4])
    cases += f32_sweep_cases(route, "boundaries", m, ZERO_POINTS[(i + 1) % 4], seed=i)
    fail_if(run_cases(cases, FTZ_DAZ, "ftz+daz"))


def random_f32_cases(route, seed, count, m, zp):
    cases = []
    for mode in MODES:
        inputs, expected = f32_random_case(seed, count, m, zp, mode)
        cases.append(Case.make(route, inputs.shape, F32, m, zp, mode, values=inputs, expected=expected))
    return cases


@pytest.mark.parametrize("route", ROUTES)
def test_f32_random_under_ftz_daz(route):
    """The random samples of test_quant_numerics (shared oracle results)."""
    fail_if(run_cases(random_f32_cases(route, 11, 20_000 + 5, 0x3DCCCCCD, 127), FTZ_DAZ, "ftz+daz"))


@pytest.mark.slow
@pytest.mark.parametrize("params", [(0x3E99999A, 0), (pow2(-126), -128)], ids=lambda p: f"m{p[0]:#010x}-zp{p[1]}")
@pytest.mark.parametrize("route", ROUTES)
def test_f32_random_large_under_ftz_daz(route, params):
    fail_if(run_cases(random_f32_cases(route, 12, 200_000 + 11, *params), FTZ_DAZ, "ftz+daz"))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("input", INPUTS)
@pytest.mark.parametrize("route", ROUTES)
def test_isolated_exceptional_lanes_under_ftz_daz(route, input, mode):
    fail_if(run_cases(isolated_cases(route, INPUTS[input], mode), FTZ_DAZ, "ftz+daz"))


# Normal inputs whose products are subnormal in IEEE arithmetic (hence
# flushed to zero under FTZ), and subnormal inputs whose products are normal
# (hence lost under DAZ): (input dtype, multiplier, patterns).
FLUSH_SENSITIVE = [
    (F32, 0x3E99999A, (0x00800000, 0x80800000, 0x00FFFFFF, 0x80C00000, 0x01000000, 0x81000000, 0x0133FFFF)),
    (F32, pow2(-1), (0x00800000, 0x80800001, 0x00FFFFFF, 0x80FFFFFF)),
    (F32, pow2(127), (0x00000001, 0x80000001, 0x00400000, 0x807FFFFF, 0x00600000, 0x80200000)),
    (BF16, 0x3E99999A, (0x0080, 0x8080, 0x00FF, 0x80C0, 0x0100, 0x8100)),
    (BF16, pow2(127), (0x0001, 0x8001, 0x0040, 0x807F, 0x0060, 0x8020)),
    (BF16, pow2(100), (0x0040, 0x8040, 0x007F, 0x8001)),
    (F16, pow2(-110), (0x0001, 0x8001, 0x00FF, 0x80C0, 0x0080, 0x8003)),
    (F16, pow2(-126), (0x3C00, 0xBC00, 0x0001, 0x7BFF, 0xFBFF, 0x3800)),
    (F16, 0x00400000, (0x3C00, 0xBC00, 0x7BFF, 0xFBFF, 0x0001, 0x4000)),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("route", ROUTES)
def test_flush_sensitive_values_under_ftz_daz(route, mode):
    """Whole blocks of flush-sensitive lanes, the same lanes one per block
    among normal neighbours, and in the tail; toward-positive and
    toward-negative would see 0 instead of +-1 if a flushed product or
    input leaked into the result."""
    zp = -2
    cases = []
    for k, (dtype, m, lanes) in enumerate(FLUSH_SENSITIVE):
        lanes = np.array(lanes, dtype=np.uint32)
        block = np.resize(lanes, 16 * 3 + 5)
        mixed = normal_neighbours(dtype, 16 * 8 + 3, 300 + k, m).astype(np.uint32)
        mixed[5::16] = lanes[np.arange(mixed[5::16].size) % lanes.size]
        mixed[-1] = lanes[0]
        for values in (block, mixed):
            cases.append(Case.make(route, values.shape, dtype, m, zp, mode, values=values, out_excess=3))
        expected = np.array(quant_many(lanes.tolist(), FORMAT[dtype], m, zp, mode))
        assert mode in ("nearest_even", "toward_zero") or np.any(expected != zp), (dtype.name, hex(m), mode)
    fail_if(run_cases(cases) + run_cases(cases, FTZ_DAZ, "ftz+daz"))
