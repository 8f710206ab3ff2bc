"""Hurray dequantization and the FP environment: nonempty work refuses
non-nearest rounding, flush-to-zero, denormals-are-zero and every enabled trap
with KernelError(UNSUPPORTED_ENVIRONMENT) naming the problem, writes nothing
into a given ``out=`` and leaves the caller's state unchanged; for every
storage type, on both paths of INT8 storage (positive scale: the A65 Dequant
bridge; negative scale: the native kernel), with normal and subnormal scales.
Empty work performs no arithmetic and succeeds under any state.  Each
refusal is tried "cold" (no earlier call with those shapes) and "warm" (the
same call just succeeded in the default state, so any cached plan is in
place); afterwards the same call must succeed in the default state (a
refusal leaves nothing behind, e.g. in a plan cache).

States the CPU cannot hold (``UnsupportedFPState``, e.g. trap enables on many
Arm cores) are skipped with that reason.  Cases with enabled traps run in a
forked child without garbage collection (its callbacks may do float
arithmetic): an FP trap that fires inside the library kills the child only,
and the test reports it.  Everything is prepared before the state is entered;
the body only calls into the library."""
import numpy as np
import pytest

import simakernels as sk
from support.helpers import environment_message_report, fp_state_id, single_feature_states, unmet_requirements
from support.hurray_helpers import (
    ALL_STORAGE,
    SENTINEL,
    ST,
    H,
    bits_of,
    check,
    descriptor,
    expected,
    fp_or_skip,
    gc_paused,
    in_child,
    report,
    unpack,
    width,
)

Rounding, Trap = sk.fenv.Rounding, sk.fenv.Trap
UNSUPPORTED = sk.ErrorCode.UNSUPPORTED_ENVIRONMENT
DEFAULT = sk.fenv.State(Rounding.NEAREST, False, False, frozenset())

# The shared single-feature states that the contract refuses for Hurray:
# (id, fp_environment arguments, what is unmet).
STATES = [(fp_state_id(s), s, unmet_requirements("hurray", s)) for s in single_feature_states()
          if unmet_requirements("hurray", s)]
STATE_IDS = [s[0] for s in STATES]

# (storage, scale bits, zero point): every storage type with a scale whose
# products round; INT8 on both paths; subnormal scales (the products and any
# conversion of the scale are what FTZ / DAZ / underflow / denormal traps act on).
CASES = [(s, 0x4037CED9, 1) for s in ALL_STORAGE] + [
    (ST.INT8, 0xC037CED9, 1),        # native kernel
    (ST.INT8, 0x00400001, 0),        # bridge, subnormal scale
    (ST.INT8, 0x80400001, 0),        # native, negative subnormal
    (ST.INT16, 0x00400001, 7),       # native, subnormal
    (ST.UINT4, 0x00000001, 15),
]
CASE_IDS = [f"{s.name}-{b:#010x}" for s, b, _ in CASES]
DATA = bytes(range(7, 7 + 48))   # 48 bytes: a whole number of elements of every type


def state_data(state_id: str, temperature: str) -> bytes:
    """Input of a length unique to the state and temperature (52 .. 152
    bytes, a whole number of elements of every type), so that a "cold" call
    finds nothing cached for its shapes by any earlier call of the process."""
    k = 2 * STATE_IDS.index(state_id) + (temperature == "warm")
    return bytes((7 + i) & 0xFF for i in range(52 + 4 * k))


def default_state_call(data, d, storage, scale_bits, zero_point, what):
    """The same call in the default state: must succeed with the oracle's
    bits.  Returns a problem or None."""
    values = unpack(data, storage)
    try:
        got = H.dequantize(data, d, storage)
    except Exception as exc:  # noqa: BLE001 - reported
        return f"{what}: the default-state call failed: {type(exc).__name__}: {exc}"
    return report(bits_of(got), expected(values, storage, scale_bits, zero_point), values,
                  f"{what}: the default-state call")


def refusal(storage, scale_bits, zero_point, state_id, state, unmet, temperature):
    """Runs the call under ``state`` and returns a list of problems (empty
    when the refusal is as specified).  ``cold``: the first call with these
    shapes in the process; ``warm``: the same call has just succeeded in the
    default state (whatever the library caches is in place).  Either way the
    same call must succeed in the default state afterwards: a refusal leaves
    no trace."""
    data = state_data(state_id, temperature)
    d = descriptor(scale_bits, zero_point)
    n = len(data) * 8 // width(storage)
    out = np.full(n, SENTINEL, np.uint32).view(np.float32)
    problems = []
    if temperature == "warm":
        problems.append(default_state_call(data, d, storage, scale_bits, zero_point, "before"))
    error = result = None
    inside_before = inside_after = None
    with fp_or_skip(**state) as entered:
        inside_before = sk.fenv.query()
        try:
            result = H.dequantize(data, d, storage, out=out)
        except sk.KernelError as exc:
            error = exc.error
        except Exception as exc:  # noqa: BLE001 - reported below
            error = exc
        inside_after = sk.fenv.query()
    if result is not None:
        problems.append("not refused: returned a result")
    elif not isinstance(error, sk.Error):
        problems.append(f"refused with {type(error).__name__}: {error}, expected KernelError(UNSUPPORTED_ENVIRONMENT)")
    elif error.code != UNSUPPORTED:
        problems.append(f"refused with {error.code.name}: {error.message}, expected UNSUPPORTED_ENVIRONMENT")
    else:
        problems.append(environment_message_report(error.message, state, unmet))
    if not np.all(bits_of(out) == SENTINEL):
        problems.append(f"out written: {bits_of(out)[:4]}")
    if inside_before != entered or inside_after != entered:
        problems.append(f"state changed by the call: {inside_before} -> {inside_after}")
    if sk.fenv.query() != DEFAULT:
        problems.append(f"state not restored: {sk.fenv.query()}")
    problems.append(default_state_call(data, d, storage, scale_bits, zero_point, "after"))
    return [p for p in problems if p]


def run_state(state, body):
    """``body()`` in-process, or in a forked child when traps are enabled."""
    if not state.get("traps"):
        return body()
    with gc_paused(), fp_or_skip(**state):  # skip here when this CPU cannot enable them
        pass
    kind, value = in_child(body)
    if kind == "signal":
        pytest.fail(f"the process was killed by {value} (an enabled FP trap fired inside the library)")
    if kind == "skip":
        pytest.skip(value)
    if kind == "raised":
        pytest.fail(value)
    return value


@pytest.mark.parametrize("temperature", ["cold", "warm"])
@pytest.mark.parametrize("state_id, state, unmet", STATES, ids=STATE_IDS)
@pytest.mark.parametrize("storage, scale_bits, zero_point", CASES, ids=CASE_IDS)
def test_nonempty_work_is_refused(storage, scale_bits, zero_point, state_id, state, unmet, temperature):
    problems = run_state(state, lambda: refusal(storage, scale_bits, zero_point, state_id, state, unmet,
                                                temperature))
    assert not problems, (f"{storage.name} scale {scale_bits:#010x} zp {zero_point} under {state_id} "
                          f"({temperature}):\n" + "\n".join(problems))


@pytest.mark.parametrize("state_id, state, unmet", STATES, ids=STATE_IDS)
@pytest.mark.parametrize("storage, scale_bits", [(ST.INT8, 0x4037CED9), (ST.INT8, 0xC037CED9), (ST.UINT2, 0x4037CED9)],
                         ids=["INT8-bridge", "INT8-native", "UINT2"])
def test_refused_without_out_too(storage, scale_bits, state_id, state, unmet):
    def body():
        d = descriptor(scale_bits, 0)
        code = None
        with fp_or_skip(**state):
            try:
                H.dequantize(DATA, d, storage)
            except sk.KernelError as exc:
                code = exc.error.code
        return code

    assert run_state(state, body) == UNSUPPORTED


@pytest.mark.parametrize("state_id, state, unmet", STATES, ids=STATE_IDS)
@pytest.mark.parametrize("storage, scale_bits", [(s, 0x4037CED9) for s in ALL_STORAGE] + [(ST.INT8, 0xC037CED9)],
                         ids=[s.name for s in ALL_STORAGE] + ["INT8-native"])
def test_empty_work_succeeds_under_any_state(storage, scale_bits, state_id, state, unmet):
    def body():
        d = descriptor(scale_bits, 0)
        out = np.zeros(0, np.float32)
        with fp_or_skip(**state) as entered:
            results = (H.dequantize(b"", d, storage), H.dequantize(DATA, d, storage, count=0, out=out))
            after = sk.fenv.query()
        return [r.shape for r in results], results[1] is out, after == entered

    assert run_state(state, body) == ([(0,), (0,)], True, True)


@pytest.mark.parametrize("storage, scale_bits, zero_point", CASES, ids=CASE_IDS)
def test_same_calls_succeed_in_the_default_state(storage, scale_bits, zero_point):
    assert sk.fenv.query() == DEFAULT
    values = unpack(DATA, storage)
    got = H.dequantize(DATA, descriptor(scale_bits, zero_point), storage)
    check(got, expected(values, storage, scale_bits, zero_point), values, f"{storage.name} {scale_bits:#010x}")
