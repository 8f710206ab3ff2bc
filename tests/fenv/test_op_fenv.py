"""Dequant, Quant and the FP environment states their contract refuses
(``unmet_requirements``: Dequant refuses non-nearest rounding, the flush
modes and traps; Quant allows the flush modes): nonempty execution returns
UNSUPPORTED_ENVIRONMENT before writing anything (the parameters would raise
the enabled trap if any arithmetic ran), never changes the caller's state,
names the problem, and the same plan works once the state is restored;
empty execution performs no arithmetic and succeeds under any state.

Bodies that enable traps only call into the library: no NumPy and no Python
float arithmetic between entering and leaving the environment."""
import numpy as np
import pytest

import simakernels as sk
from support.helpers import (
    INPUT_FILL,
    ROUTES,
    SENTINEL,
    aligned_bytes,
    assert_bits_equal,
    assert_untouched,
    environment_message_report,
    fp_or_skip,
    fp_state_id,
    single_feature_states,
    span,
    unmet_requirements,
)
from support.op_cases import PARAM_OPS

E = sk.ErrorCode
DEFAULT = sk.fenv.State(sk.fenv.Rounding.NEAREST, False, False, frozenset())
SHAPE, OUT_ROW = (2, 40), 43   # padded output rows: dense runs with blocks and a tail


def refused(op):
    """(id, state, trap params, k) of the single-feature states ``op``
    refuses; k picks Quant's rounding mode."""
    states = [s for s in single_feature_states() if unmet_requirements(op.name, s)]
    return [(fp_state_id(s), s, op.trap_params(s), k) for k, s in enumerate(states)]


NONEMPTY = [(op, state, v) for op in PARAM_OPS for state in refused(op) for v in op.variants]
EMPTY_CASES = [(op, state) for op in PARAM_OPS for state in refused(op)]


@pytest.mark.parametrize("op, state, variant", NONEMPTY, ids=[f"{op}-{s[0]}-{v}" for op, s, v in NONEMPTY])
@pytest.mark.parametrize("route", ROUTES)
def test_nonempty_execution_is_refused(route, op, state, variant):
    name, fp_state, params, k = state
    dtype = next(d for d in op.variants[variant] if d in op.float_dtypes)
    entry = op.fenv_entry(route, dtype, params, k, SHAPE, None, (OUT_ROW, 1))
    src, out = entry.storages(0, 32)
    values, expected = entry.draw(src.offsets.size, 17)
    src.write(values)
    bindings = ([src.buf], [out.buf])
    src_before = src.buf.copy()

    with fp_or_skip(**fp_state) as entered:
        before = sk.fenv.query()
        status = op.a65.execute(entry.plan, *bindings)
        after = sk.fenv.query()

    assert sk.fenv.query() == DEFAULT
    assert before == entered and after == entered, f"execute changed the caller's FP state: {before} -> {after}"
    assert isinstance(status, sk.Error) and status.code == E.UNSUPPORTED_ENVIRONMENT, status
    # Names what is unmet, never what is met (e.g. Quant's allowed flush modes).
    report = environment_message_report(status.message, fp_state, unmet_requirements(op.name, fp_state))
    assert report is None, report
    assert_untouched(out.buf, SENTINEL, what=f"output under {name}")
    assert np.array_equal(src.buf, src_before), "input changed"

    # The same plan and buffers work once the environment is restored.
    assert entry.plan.input_requirements() == (sk.Requirement(span(SHAPE, src.strides, src.itemsize), src.itemsize),)
    assert entry.plan.output_requirements() == (sk.Requirement(span(SHAPE, out.strides, out.itemsize), out.itemsize),)
    assert op.a65.execute(entry.plan, *bindings) is None
    assert_bits_equal(out.read(), expected, values, f"{route} {entry.label} after {name}", shape=SHAPE)
    out.assert_gaps_untouched()
    assert np.array_equal(src.buf, src_before), "input changed"


# (shape, input strides, output strides) in elements; the two empty-middle
# variants have Dequant's and Quant's input strides.
EMPTY = [((0,), None, None), ((3, 0, 2), (8, 0, 1), (2, 0, 1)), ((3, 0, 2), (8, 0, 2), (2, 0, 1))]


@pytest.mark.parametrize("op, state", EMPTY_CASES, ids=[f"{op}-{s[0]}" for op, s in EMPTY_CASES])
@pytest.mark.parametrize("route", ROUTES)
def test_empty_execution_succeeds_under_any_state(route, op, state):
    """Empty calls perform no arithmetic: None (not UNSUPPORTED_ENVIRONMENT),
    nothing written, the state unchanged."""
    _, fp_state, params, _ = state
    plans = [op.fenv_entry(route, dtype, params, k, shape, in_el, out_el).plan
             for dtype in op.float_dtypes for k in range(op.fenv_modes) for shape, in_el, out_el in EMPTY]
    src, out = aligned_bytes(16, INPUT_FILL), aligned_bytes(64, SENTINEL)
    null_in, null_out = sk.ConstHostBuffer.from_address(0, 0), sk.HostBuffer.from_address(0, 0)

    with fp_or_skip(**fp_state) as entered:
        before = sk.fenv.query()
        statuses = [op.a65.execute(p, [src], [out]) for p in plans]
        statuses += [op.a65.execute(p, [null_in], [null_out]) for p in plans]
        after = sk.fenv.query()

    assert before == entered and after == entered
    assert statuses == [None] * len(statuses), statuses
    assert_untouched(out, SENTINEL, what="output of an empty plan")
