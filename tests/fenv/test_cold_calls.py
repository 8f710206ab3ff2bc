"""Every public call, cold, in a fresh process, under each FP state alone
and all at once: the exact result of the default state, or the documented
UNSUPPORTED_ENVIRONMENT refusal naming what is unmet; never a signal, and
no module imported on a call path (cold_calls.py runs the calls).

The first call of a process converts its parameters, builds its plan and
formats its messages with nothing cached, which is where Python float code
(which assumes the default state) would run under the caller's traps.
"""
from __future__ import annotations

import pathlib
import pickle
import subprocess
import sys

import pytest

from support.helpers import FP_CONTRACT, fp_state_id, single_feature_states, unmet_requirements, \
    environment_message_report

CHILD = pathlib.Path(__file__).with_name("cold_calls.py")
STATES = single_feature_states()


def run_child(state, tmp_path):
    out = tmp_path / "records.pickle"
    traps = ",".join(t.name for t in state["traps"]) or "-"
    argv = [sys.executable, str(CHILD), state["rounding"].name, str(int(state["flush_to_zero"])),
            str(int(state["denormals_are_zero"])), traps, str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if "UnsupportedFPState" in done.stderr:
        pytest.skip(f"this CPU cannot hold {fp_state_id(state)}")
    assert done.returncode == 0, f"child died ({done.returncode}) under {fp_state_id(state)}:\n{done.stderr[-3000:]}"
    return pickle.loads(out.read_bytes())


@pytest.fixture(scope="module")
def default_records(tmp_path_factory):
    return run_child(STATES[0], tmp_path_factory.mktemp("default"))


def test_default_state_runs_every_call_without_importing(default_records):
    assert default_records["imported"] == []
    outcomes = {label: outcome for label, _, outcome in default_records["records"]}
    # The calls must reach what they test: successes succeed and refusals refuse.
    assert outcomes["quantize 0.37"][0] == "array" and outcomes["hurray dequantize"][0] == "array"
    assert outcomes["quantize negative"][:3] == ("raised", "KernelError", "INVALID_PARAMS")
    assert outcomes["hurray scale string"][:2] == ("raised", "HurrayFormatError")


@pytest.mark.parametrize("state", STATES[1:], ids=[fp_state_id(s) for s in STATES[1:]])
def test_cold_calls_under_state(state, default_records, tmp_path):
    got = run_child(state, tmp_path)
    assert got["imported"] == [], f"modules imported on a call path: {got['imported']}"
    problems = []
    for (label, operation, expected), (_, _, outcome) in zip(default_records["records"], got["records"]):
        unmet = unmet_requirements(operation, state)
        succeeded = expected[0] not in ("raised", "error value")
        if unmet and succeeded:
            code, message = (outcome[2], outcome[3]) if outcome[0] == "raised" else outcome[1:3]
            if code != "UNSUPPORTED_ENVIRONMENT":
                problems.append(f"{label}: {outcome[:3]}, expected UNSUPPORTED_ENVIRONMENT")
            else:
                report = environment_message_report(message, state, unmet)
                if report:
                    problems.append(f"{label}: {report}")
        elif outcome != expected:
            problems.append(f"{label}: {str(outcome)[:300]} != {str(expected)[:300]}")
    assert not problems, "\n".join(problems)


def test_the_contract_covers_each_operation():
    assert set(FP_CONTRACT) >= {"cast", "quant", "dequant", "hurray", "ev74"}
