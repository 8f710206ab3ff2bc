"""Dequant and the FP environment: nonempty execution refuses non-nearest
rounding, flush-to-zero, denormals-are-zero and every enabled trap with
UNSUPPORTED_ENVIRONMENT before writing anything (or converting the zero
point: the parameters below would raise the enabled trap if any arithmetic
ran), never changes the caller's state, and names the problem; empty
execution performs no arithmetic and succeeds under any state.

Bodies that enable traps only call into the library: no NumPy and no Python
float arithmetic between entering and leaving the environment."""
import pytest

import simakernels as sk
from helpers import (
    BF16,
    F32,
    I8,
    INPUT_FILL,
    ROUTES,
    SENTINEL,
    Storage,
    aligned_bytes,
    assert_bits_equal,
    assert_untouched,
    dequant_request,
    environment_message_report,
    fp_or_skip,
    fp_state_id,
    ok_plan,
    oracle_dequant,
    random_int8,
    single_feature_states,
    unmet_requirements,
)

E = sk.ErrorCode
Rounding, Trap = sk.fenv.Rounding, sk.fenv.Trap
DEFAULT = sk.fenv.State(Rounding.NEAREST, False, False, frozenset())

# Parameters whose arithmetic would raise each exception: the zero point
# 16777217 converts inexactly; 2^31 * max-finite overflows; a subnormal
# scale gives tiny products from a denormal operand.
INEXACT = (0x4037CED9, 16777217)
OVERFLOW = (0x7F7FFFFF, -(2**31))
TINY = (0x00000001, 0)



def trap_params(state):
    """Parameters whose arithmetic would raise what ``state`` enables."""
    traps = set(state["traps"])
    if state["flush_to_zero"] or state["denormals_are_zero"] or traps & {Trap.UNDERFLOW, Trap.INPUT_DENORMAL}:
        return TINY
    return OVERFLOW if traps == {Trap.OVERFLOW} else INEXACT


# The shared single-feature states that the contract refuses for Dequant.
STATES = [(fp_state_id(s), s, trap_params(s)) for s in single_feature_states() if unmet_requirements("dequant", s)]
IDS = [s[0] for s in STATES]
SHAPE, OUT_ROW = (2, 40), 43   # padded output rows: dense runs with blocks and a tail


def nonempty_case(route, dst, params):
    item = 4 if dst is F32 else 2
    out_strides = (OUT_ROW * item, item)
    plan = ok_plan(dequant_request(SHAPE, dst, *params, None, out_strides), route)
    src = Storage.make(SHAPE, I8, fill=INPUT_FILL)
    values = random_int8(src.offsets.size, 17)
    src.write(values)
    out = Storage.make(SHAPE, dst, out_strides, excess=32)
    return plan, src, out, values


@pytest.mark.parametrize("output", ["f32", "bf16"])
@pytest.mark.parametrize("state", STATES, ids=IDS)
@pytest.mark.parametrize("route", ROUTES)
def test_nonempty_execution_is_refused(route, state, output):
    _, fp_state, params = state
    dst = F32 if output == "f32" else BF16
    plan, src, out, values = nonempty_case(route, dst, params)
    bindings = ([src.buf], [out.buf])
    src_before = src.buf.copy()

    with fp_or_skip(**fp_state) as entered:
        before = sk.fenv.query()
        status = sk.a65.dequant.execute(plan, *bindings)
        after = sk.fenv.query()

    assert sk.fenv.query() == DEFAULT
    assert before == entered and after == entered, f"execute changed the caller's FP state: {before} -> {after}"
    assert isinstance(status, sk.Error) and status.code == E.UNSUPPORTED_ENVIRONMENT, status
    report = environment_message_report(status.message, fp_state, unmet_requirements("dequant", fp_state))
    assert report is None, report
    assert_untouched(out.buf, SENTINEL, what=f"output under {state[0]}")
    assert (src.buf == src_before).all(), "input changed"

    # The same plan and buffers work once the environment is restored.
    assert sk.a65.dequant.execute(plan, *bindings) is None
    assert_bits_equal(out.read(), oracle_dequant(values, dst, *params), values, f"{route} after {state[0]}")
    out.assert_gaps_untouched()


@pytest.mark.parametrize("route", ROUTES)
def test_message_names_every_unmet_requirement(route):
    plan, src, out, _ = nonempty_case(route, F32, INEXACT)
    with fp_or_skip(rounding=Rounding.UPWARD, flush_to_zero=True, denormals_are_zero=True):
        status = sk.a65.dequant.execute(plan, [src.buf], [out.buf])
    assert status.code == E.UNSUPPORTED_ENVIRONMENT
    message = status.message.lower()
    assert "rounding" in message and "flush" in message, status.message
    assert "trap" not in message, status.message
    assert_untouched(out.buf, SENTINEL, what="output")


EMPTY = [((0,), None, None), ((3, 0, 2), (8, 0, 1), (2, 0, 1))]


@pytest.mark.parametrize("state", STATES, ids=IDS)
@pytest.mark.parametrize("route", ROUTES)
def test_empty_execution_succeeds_under_any_state(route, state):
    """Empty calls perform no arithmetic: None (not UNSUPPORTED_ENVIRONMENT),
    nothing written, the state unchanged."""
    _, fp_state, params = state
    plans = []
    for dst in (F32, BF16):
        for shape, in_el, out_el in EMPTY:
            item = 4 if dst is F32 else 2
            out_strides = None if out_el is None else tuple(s * item for s in out_el)
            plans.append(ok_plan(dequant_request(shape, dst, *params, in_el, out_strides), route))
    src, out = aligned_bytes(16, INPUT_FILL), aligned_bytes(64, SENTINEL)
    null_in, null_out = sk.ConstHostBuffer.from_address(0, 0), sk.HostBuffer.from_address(0, 0)

    with fp_or_skip(**fp_state) as entered:
        before = sk.fenv.query()
        statuses = [sk.a65.dequant.execute(p, [src], [out]) for p in plans]
        statuses += [sk.a65.dequant.execute(p, [null_in], [null_out]) for p in plans]
        after = sk.fenv.query()

    assert before == entered and after == entered
    assert statuses == [None] * len(statuses), statuses
    assert_untouched(out, SENTINEL, what="output of an empty plan")


PARAMS = [(0x4037CED9, -123), (0x3E000000, 5), (0x40800000, 16777088), (0x3F800000, 16777217), INEXACT,
          OVERFLOW, TINY]


@pytest.mark.parametrize("route", ROUTES)
def test_default_state_is_left_unchanged(route):
    """Every form, both outputs: the caller's state is the same after the call."""
    for params in PARAMS:
        for dst in (F32, BF16):
            plan, src, out, values = nonempty_case(route, dst, params)
            before = sk.fenv.query()
            assert sk.a65.dequant.execute(plan, [src.buf], [out.buf]) is None
            assert sk.fenv.query() == before == DEFAULT
            assert_bits_equal(out.read(), oracle_dequant(values, dst, *params), values, f"{route} {params}")
