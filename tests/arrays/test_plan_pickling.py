"""Plans pickle (issue 19, edge 9): a shared plan (``sk.ops.<op>.Plan``) as
its request and admitted metadata, an A65 plan (``sk.a65.<op>.Plan``) as its
shared plan and route, prepared again on load.  The loaded plan runs on the
same route and writes the same bytes; a route the loading machine lacks is
a KernelError naming it.  Expected bytes are worked out by hand (README)."""
import dataclasses
import pickle

import numpy as np
import pytest

import simakernels as sk
from support.helpers import BF16, F32, I8, ROUTES
from tools.test_cli import run_python
from simakernels import _routes

E = sk.ErrorCode


def spec(shape, dtype, strides=None):
    return sk.TensorSpec(shape, dtype, sk.Contiguous() if strides is None else sk.Strided(strides))


# operation -> (request, input, output bytes, expected output bytes)
CASES = {
    # 717 and 718 round to 716 and 720 (ties to even on the bits); the output
    # rows are padded to 4 elements, the gap bytes stay 0xEE.
    "cast": (sk.ops.cast.Request([spec((2, 3), F32)], [spec((2, 3), BF16, (8, 2))]),
             np.float32([[1.0, 717.0, 718.0], [np.inf, -0.0, 3.0]]), 14,
             np.array([0x3F80, 0x4433, 0x4434, 0xEEEE, 0x7F80, 0x8000, 0x4040], "<u2").tobytes()),
    "dequant": (sk.ops.dequant.Request([spec((4,), I8)], [spec((4,), F32)], sk.ops.dequant.Params(0.25, -3)),
                np.int8([-128, -3, 0, 127]), 16, np.float32([-31.25, 0.0, 0.75, 32.5]).tobytes()),
    "quant": (sk.ops.quant.Request([spec((4,), F32)], [spec((4,), I8)], sk.ops.quant.Params(2.0)),
              np.float32([1.0, -2.5, 60.0, np.nan]), 4, np.int8([2, -5, 120, 0]).tobytes()),
}


def run(operation, plan):
    _, x, nbytes, _ = CASES[operation]
    out = bytearray(b"\xee" * nbytes)
    status = getattr(sk.a65, operation).execute(plan, [x], [out])
    assert status is None, status
    return bytes(out)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("operation", sorted(CASES))
def test_a65_plans_round_trip(operation, route):
    request, _, _, expected = CASES[operation]
    plan = getattr(sk.a65, operation).check_inference(request, route=route)
    loaded = pickle.loads(pickle.dumps(plan))
    assert type(loaded) is type(plan) and loaded.route == route
    assert loaded.shared == plan.shared
    assert loaded.input_requirements() == plan.input_requirements()
    assert loaded.output_requirements() == plan.output_requirements()
    assert run(operation, loaded) == run(operation, plan) == expected


@pytest.mark.parametrize("operation", sorted(CASES))
def test_shared_plans_round_trip(operation):
    request, _, _, expected = CASES[operation]
    shared = getattr(sk.ops, operation).check_inference(request)
    loaded = pickle.loads(pickle.dumps(shared))
    assert type(loaded) is type(shared) and loaded == shared
    assert run(operation, getattr(sk.a65, operation).prepare(loaded)) == expected


@pytest.mark.parametrize("operation", sorted(CASES))
def test_a_route_missing_where_the_plan_is_loaded_is_a_kernel_error(operation, monkeypatch):
    request = CASES[operation][0]
    plan = getattr(sk.a65, operation).check_inference(request, route=ROUTES[0])
    data = pickle.dumps(plan)
    monkeypatch.setattr(_routes, "_AVAILABLE", {k: v for k, v in _routes._AVAILABLE.items() if k != ROUTES[0]})
    with pytest.raises(sk.KernelError) as info:
        pickle.loads(data)
    assert info.value.error.code == E.UNSUPPORTED_ENVIRONMENT
    message = info.value.error.message
    assert message.startswith(f"loading a pickled {operation} plan: route={ROUTES[0]!r} names no route"), message


def test_the_pickled_route_wins_over_a_forced_route(monkeypatch):
    if len(ROUTES) < 2:
        pytest.skip("one route on this CPU")
    request, _, _, expected = CASES["quant"]
    plan = sk.a65.quant.check_inference(request, route=ROUTES[0])
    monkeypatch.setenv(sk.a65.FORCE_ROUTE_ENV, ROUTES[-1])
    loaded = pickle.loads(pickle.dumps(plan))
    assert loaded.route == ROUTES[0]
    assert run("quant", loaded) == expected


LOAD_AND_RUN = """
import pickle, sys
import numpy as np
import simakernels as sk
plan = pickle.loads(bytes.fromhex(sys.argv[1]))
out = bytearray(4)
assert sk.a65.quant.execute(plan, [np.float32([1.0, -2.5, 60.0, np.nan])], [out]) is None
print(plan.route, bytes(out).hex())
"""


def test_a_plan_loads_in_another_process(tmp_path):
    request, _, _, expected = CASES["quant"]
    plan = sk.a65.quant.check_inference(request, route=ROUTES[-1])
    done = run_python(["-c", LOAD_AND_RUN, pickle.dumps(plan).hex()], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [ROUTES[-1], expected.hex()]


@pytest.mark.parametrize("operation", sorted(CASES))
def test_loading_admits_the_request_again(operation):
    """A pickle carries the request, not admitted metadata: a shared plan
    whose metadata was altered loads with what admission gives."""
    request, _, nbytes, expected = CASES[operation]
    shared = getattr(sk.ops, operation).check_inference(request)
    port = shared.admitted.outputs[0]
    altered = dataclasses.replace(shared, admitted=dataclasses.replace(
        shared.admitted, outputs=(dataclasses.replace(port, nbytes=1, strides=(0,) * len(port.strides)),)))
    loaded = pickle.loads(pickle.dumps(altered))
    assert loaded.output_requirements() == (sk.Requirement(nbytes, {"cast": 2, "dequant": 4, "quant": 1}[operation]),)
    assert run(operation, getattr(sk.a65, operation).prepare(loaded)) == expected
    plan = pickle.loads(pickle.dumps(getattr(sk.a65, operation).prepare(altered)))
    assert plan.output_requirements() == loaded.output_requirements()
