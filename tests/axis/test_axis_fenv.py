"""Per-axis plans and the FP environment.

* Quant admits flush-to-zero and denormals-are-zero (each alone on x86-64,
  the one FZ bit on AArch64) and gives the default state's bits on both
  walks: per-run channels (the contexts for a flushing control register)
  and the parameter-vector blocks (whose exact-path test must catch every
  zero or subnormal product and every subnormal input), with inputs aimed
  at each channel's 2^-126 product edge and subnormal inputs, channels of
  tiny multipliers in some blocks and not in others; the caller's state is
  left as it was.
* Dequant refuses rounding other than nearest, the flush modes and
  enabled traps; Quant refuses non-nearest rounding and traps: all with
  UNSUPPORTED_ENVIRONMENT before writing anything.
* Preparation does not depend on the caller's state: per-axis parameters
  built and plans prepared under another rounding mode or the flush modes
  give the default state's bits when executed.

Expected bits come from the oracle (tests/oracle/axis.py), computed
before any state is entered.  (The exhaustive 16-bit and FP32 sweeps of
test_axis_numerics also run under FTZ+DAZ.)"""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import simakernels as sk
from support.axis_helpers import (
    DEQUANT_SETS,
    QUANT_SETS,
    channels,
    draw,
    make_case,
    module_of,
    plan_for,
    request,
    run_cases,
)
from support.helpers import (
    AARCH64,
    BF16,
    F16,
    F32,
    I8,
    ROUTES,
    SENTINEL,
    Storage,
    fail_if,
    fp_or_skip,
    fp_state,
    fp_state_id,
    single_feature_states,
    unmet_requirements,
)
from support.quant_helpers import MODES, to_patterns

E = sk.ErrorCode
Rounding = sk.fenv.Rounding
FLUSH_STATES = [s for s in single_feature_states()
                if (s["flush_to_zero"] or s["denormals_are_zero"]) and not unmet_requirements("quant", s)]
FLUSH_IDS = [fp_state_id(s) for s in FLUSH_STATES]
# 32 channels: the inner run's aligned 16-lane blocks alternate between the
# 16 tie-making channels and the 16 of tiny and huge multipliers.
MIXED = channels(QUANT_SETS["ties"], 16) + channels(QUANT_SETS["tiny"], 16)


def test_flush_states_are_the_platforms():
    expected = {"nearest+ftz+daz"} if AARCH64 else {"nearest+ftz", "nearest+daz", "nearest+ftz+daz"}
    assert set(FLUSH_IDS) == expected


def flush_values(dtype, params, rows: int, seed: int, inner: bool) -> np.ndarray:
    """(rows, C) inputs for an inner layout, (C, rows) for an outer one:
    per channel, inputs whose exact products with the channel's
    multiplier lie within a few ulps of +-2^-126 (below: subnormal, which
    FTZ would flush), subnormal inputs (which DAZ would zero), pool draws
    (specials, ties, random)."""
    rng = np.random.default_rng(seed)
    count = len(params)
    out = draw(dtype, (count, rows), rng).astype(np.int64)
    for c, (m, _) in enumerate(params):
        mv = float(np.array(m, np.uint32).view(np.float32))
        edge = to_patterns(dtype, np.array([2.0 ** -126 / mv, -(2.0 ** -126) / mv])).astype(np.int64)
        near = (edge[:, None] + np.arange(-3, 4)).reshape(-1)
        finite = (near & {F32: 0x7F800000, BF16: 0x7F80, F16: 0x7C00}[dtype]) != {F32: 0x7F800000, BF16: 0x7F80,
                                                                                 F16: 0x7C00}[dtype]
        near = near[finite]
        sub = {F32: (0x00000001, 0x807FFFFF, 0x00400000, 0x80000003), BF16: (0x0001, 0x807F, 0x0040, 0x8003),
               F16: (0x0001, 0x83FF, 0x0200, 0x8003)}[dtype]
        picks = np.concatenate([near, np.array(sub, np.int64)])
        where = rng.choice(rows, size=min(rows, picks.size), replace=False)
        out[c, where] = picks[: where.size]
    bits = 8 * {F32: 4, BF16: 2, F16: 2}[dtype]
    out = (out & ((1 << bits) - 1)).astype({F32: np.uint32, BF16: np.uint16, F16: np.uint16}[dtype])
    return np.ascontiguousarray(out.T) if inner else out


@pytest.mark.parametrize("state", FLUSH_STATES, ids=FLUSH_IDS)
@pytest.mark.parametrize("route", ROUTES)
def test_quant_exact_under_flush_modes(route, state):
    cases = []
    for k, dtype in enumerate((F32, BF16, F16)):
        for mode in MODES:
            for inner in (True, False):
                values = flush_values(dtype, MIXED, 70, 10 * k + inner, inner)
                axis = -1 if inner else 0
                case = make_case(route, values.shape, dtype, I8, axis, MIXED, mode, values=values)
                case.what += " inner" if inner else " outer"
                cases.append(case)
    with fp_or_skip(**state) as entered:
        before = sk.fenv.query()
        statuses = [c.execute() for c in cases]
        after = sk.fenv.query()
    assert before == entered == after, f"execute changed the caller's FP state: {before} -> {after}"
    assert statuses == [None] * len(cases), [s for s in statuses if s is not None][:3]
    fail_if(run_cases(cases, state, fp_state_id(state)) + run_cases(cases))


REFUSED = [s for s in single_feature_states() if unmet_requirements("dequant", s)]


@pytest.mark.parametrize("route", ROUTES)
def test_refused_states_write_nothing(route):
    """Each state the contract refuses for an operation: the per-axis plan
    (inner and outer) returns UNSUPPORTED_ENVIRONMENT and the output keeps
    its sentinel.  Bodies with traps only call the library."""
    entries = []
    for src, dst, mode, params in ((I8, F32, None, DEQUANT_SETS["forms"]), (I8, BF16, None, DEQUANT_SETS["extremes"]),
                                   (F32, I8, "nearest_even", MIXED), (F16, I8, "toward_zero", MIXED)):
        for shape, axis in (((40, len(params)), 1), ((len(params), 40), 0)):
            plan = plan_for(route, shape, src, dst, axis, params, mode)
            s = Storage.make(shape, src)
            s.write(draw(src, shape, np.random.default_rng(1)).reshape(-1))
            d = Storage.make(shape, dst, excess=8)
            entries.append((f"{src.name}->{dst.name} axis {axis}", "dequant" if src is I8 else "quant", plan, s, d))
    problems = []
    for state in REFUSED:
        for what, op, plan, s, d in entries:
            if not unmet_requirements(op, state):
                continue
            d.reset()
            execute = module_of(s.dtype).execute
            try:
                with sk.testing.fp_environment(**state):
                    status = execute(plan, [s.buf], [d.buf])
            except sk.testing.UnsupportedFPState:      # e.g. traps on many Arm cores: that state only
                continue
            if not isinstance(status, sk.Error) or status.code is not E.UNSUPPORTED_ENVIRONMENT:
                problems.append(f"{what} under {fp_state_id(state)}: {status}")
            elif not (d.buf == SENTINEL).all():
                problems.append(f"{what} under {fp_state_id(state)}: output written")
    assert not problems, problems[:10]


PREPARE_STATES = [fp_state(Rounding.UPWARD), fp_state(Rounding.TOWARD_ZERO), fp_state(Rounding.DOWNWARD),
                  fp_state(flush_to_zero=True, denormals_are_zero=True)]
# Values given as Python floats (converted to binary32 when AxisParams is
# built) with conversions that round, subnormal and huge; zero points whose
# binary32 conversion rounds (Dequant).
FLOAT_SCALES = [0.1, 1 / 3, 2 / 3, 1e-40, 3.0e38, 0.0625, 1.0, 5e-45]
DEQUANT_ZPS = [16777217, -16777217, 2**31 - 1, -123, 40000, -(2**31), 16777088, 5]
QUANT_ZPS = [-128, 127, 0, -3, 17, 100, -100, 1]


@pytest.mark.parametrize("state", PREPARE_STATES, ids=[fp_state_id(s) for s in PREPARE_STATES])
@pytest.mark.parametrize("route", ROUTES)
def test_preparation_ignores_the_callers_state(route, state):
    """AxisParams built and plans prepared inside ``state``, executed in
    the default state: the oracle's bits for the binary32 values of the
    given floats (nearest-even conversion, whatever the state)."""
    bits = [int(np.array(v, np.float64).astype(np.float32).view(np.uint32)) for v in FLOAT_SCALES]
    specs = []
    for src, dst, mode, zps in ((I8, F32, None, DEQUANT_ZPS), (I8, BF16, None, DEQUANT_ZPS),
                                (F32, I8, "toward_positive", QUANT_ZPS), (BF16, I8, "nearest_even", QUANT_ZPS)):
        for shape, axis in (((50, 8), -1), ((8, 50), 0)):
            specs.append((src, dst, mode, zps, shape, axis))
    plans = []
    with fp_or_skip(**state):
        for src, dst, mode, zps, shape, axis in specs:
            if src is I8:
                p = sk.ops.dequant.AxisParams(axis, FLOAT_SCALES, zps)
            else:
                p = sk.ops.quant.AxisParams(axis, FLOAT_SCALES, zps, mode)
            plans.append(module_of(src).check_inference(request(shape, src, dst, p), route=route))
    cases = []
    for (src, dst, mode, zps, shape, axis), plan in zip(specs, plans):
        assert not isinstance(plan, sk.Error), plan
        case = make_case(route, shape, src, dst, axis, tuple(zip(bits, zps)), mode, plan=plan, seed=3)
        case.what += f" prepared under {fp_state_id(state)}"
        cases.append(case)
    fail_if(run_cases(cases))


@pytest.mark.parametrize("route", ROUTES)
def test_threads_in_different_states_share_a_plan(route):
    """One Quant plan per layout, called at once from threads in the
    default state and in each flush state (the FP state is per thread; the
    plan holds read-only parameters for both kinds of control register):
    every call exact."""
    states = [fp_state()] + FLUSH_STATES
    jobs = []
    for inner in (True, False):
        values = flush_values(BF16, MIXED, 64, 40 + inner, inner)
        axis = -1 if inner else 0
        jobs.append(make_case(route, values.shape, BF16, I8, axis, MIXED, "toward_positive", values=values))

    def worker(k):
        state = states[k % len(states)]
        found = []
        with sk.testing.fp_environment(**state):
            for _ in range(25):
                for case in jobs:
                    out = Storage.make(case.dst.shape, I8, excess=3)
                    status = sk.a65.quant.execute(case.plan, [case.src.buf], [out.buf])
                    if status is not None or not np.array_equal(out.read(), case.expected) or out.gaps_report():
                        found.append(f"{case.what} in thread {k} ({fp_state_id(state)}): {status}")
                        return found
        return found

    with ThreadPoolExecutor(2 * len(states)) as pool:
        problems = [p for found in pool.map(worker, range(2 * len(states))) for p in found]
    assert not problems, problems[:4]
