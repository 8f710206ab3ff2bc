"""Blocked plans and the FP environment (Quant's flush states are in
test_blocked_numerics, every case of which also runs under FTZ+DAZ):

* each state the contract refuses for an operation gives
  UNSUPPORTED_ENVIRONMENT from a blocked plan (block axis inner and outer)
  and writes nothing;
* preparation does not depend on the caller's state: BlockParams built
  from float64 arrays and nested lists of Python floats (the vectorised and
  the per-entry binary32 conversions) and plans prepared under another
  rounding mode, the flush modes or every trap enabled give, executed in
  the default state, the oracle's bits for the binary32 values of the
  given floats (nearest-even, whatever the state).

Expected bits come from the oracle, computed before any state is entered."""
import numpy as np
import pytest

import simakernels as sk
from support.axis_helpers import AxisCase, draw, module_of, request, run_cases
from support.blocked_helpers import expected, make_case, parameter_shape
from support.helpers import (BF16, F16, F32, I8, ROUTES, SENTINEL, Storage, UINT, fail_if, fp_state, fp_state_id,
                             single_feature_states, unmet_requirements)

E = sk.ErrorCode
Rounding, Trap = sk.fenv.Rounding, sk.fenv.Trap
REFUSED = [s for s in single_feature_states() if unmet_requirements("dequant", s)]
OPS = ((I8, F32, None), (I8, BF16, None), (F32, I8, "nearest_even"), (F16, I8, "toward_zero"))
SHAPES = (((4, 70), 1, 16), ((70, 4), 0, 17))


@pytest.mark.parametrize("route", ROUTES)
def test_refused_states_write_nothing(route):
    entries = []
    for src, dst, mode in OPS:
        for shape, axis, block in SHAPES:
            case = make_case(route, shape, src, dst, axis, block, mode, k=block)
            entries.append((case.what, "dequant" if src is I8 else "quant", case))
    problems = []
    for state in REFUSED:
        for what, op, case in entries:
            if not unmet_requirements(op, state):
                continue
            case.dst.reset()
            try:
                with sk.testing.fp_environment(**state):
                    status = case.execute()
            except sk.testing.UnsupportedFPState:      # e.g. traps on many Arm cores: that state only
                continue
            if not isinstance(status, sk.Error) or status.code is not E.UNSUPPORTED_ENVIRONMENT:
                problems.append(f"{what} under {fp_state_id(state)}: {status}")
            elif not (case.dst.buf == SENTINEL).all():
                problems.append(f"{what} under {fp_state_id(state)}: output written")
    assert not problems, problems[:10]


PREPARE_STATES = [fp_state(Rounding.UPWARD), fp_state(Rounding.TOWARD_ZERO), fp_state(Rounding.DOWNWARD),
                  fp_state(flush_to_zero=True, denormals_are_zero=True), fp_state(traps=tuple(Trap))]
# Python floats whose binary32 conversions round (up, down, to subnormals,
# near the top); zero points whose binary32 conversion rounds (Dequant).
FLOAT_VALUES = [0.1, 1 / 3, 2 / 3, 1e-40, 3.0e38, 0.0625, 1.0, 5e-45, 1 + 2.0**-24, 7e-46 * 1.1]
DEQUANT_ZPS = [16777217, -16777217, 2**31 - 1, -123, 40000, -(2**31), 16777088, 5]
QUANT_ZPS = [-128, 127, 0, -3, 17, 100, -100, 1]


@pytest.mark.parametrize("state", PREPARE_STATES, ids=[fp_state_id(s) for s in PREPARE_STATES])
@pytest.mark.parametrize("route", ROUTES)
def test_preparation_ignores_the_callers_state(route, state):
    rng = np.random.default_rng(3)
    specs = []
    for src, dst, mode in OPS:
        zps_pool = DEQUANT_ZPS if src is I8 else QUANT_ZPS
        for shape, axis, block in SHAPES:
            p = parameter_shape(shape, axis, block)
            floats = np.array(FLOAT_VALUES)[rng.integers(0, len(FLOAT_VALUES), p)]
            zps = np.array(zps_pool)[rng.integers(0, len(zps_pool), p)]
            bits = floats.astype(np.float32).view(np.uint32)   # the default state's conversion
            values = draw(src, shape, rng)
            want = expected(src, dst, values, axis, block, bits, zps, mode)
            specs.append((src, dst, mode, shape, axis, block, floats, zps, values, want))
    plans = []
    try:
        with sk.testing.fp_environment(**state):
            for k, (src, dst, mode, shape, axis, block, floats, zps, *_rest) in enumerate(specs):
                given = floats if k % 2 else floats.tolist()
                if src is I8:
                    params = sk.ops.dequant.BlockParams(axis, block, given, zps.tolist())
                else:
                    params = sk.ops.quant.BlockParams(axis, block, given, zps.tolist(), mode)
                plans.append(module_of(src).check_inference(request(shape, src, dst, params), route=route))
    except sk.testing.UnsupportedFPState as exc:
        pytest.skip(f"UnsupportedFPState: {exc}")
    cases = []
    for plan, (src, dst, _mode, shape, axis, block, _floats, _zps, values, want) in zip(plans, specs):
        assert not isinstance(plan, sk.Error), plan
        s = Storage.make(shape, src, excess=3)
        s.write(values.reshape(-1))
        d = Storage.make(shape, dst, excess=5)
        cases.append(AxisCase(f"{src.name}->{dst.name} {shape} axis {axis} block {block} prepared under "
                              f"{fp_state_id(state)}", plan, s, d, values.reshape(-1),
                              np.asarray(want, UINT[dst]).reshape(-1)))
    fail_if(run_cases(cases))
