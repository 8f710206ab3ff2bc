"""Quant plans: immutable, with their parameters; plans of all twelve
entries executed interleaved.  Bindings shared with Dequant are in
test_op_bindings.py; reuse, one shared plan for every route and threads in
test_plans.py."""
import dataclasses

import pytest

import simakernels as sk
from support.helpers import ROUTES, fail_if
from support.op_cases import QUANT_M as M
from support.op_cases import QUANT_ZP as ZP
from support.op_cases import quant_exceptional as exceptional_values
from support.quant_helpers import BF16, F16, F32, MODES, Case, quant_request, run_cases


@pytest.mark.parametrize("route", ROUTES)
def test_plans_are_immutable(route):
    req = quant_request((3, 4), BF16, M, -3, "toward_zero")
    shared = sk.ops.quant.check_inference(req)
    plan = sk.a65.quant.prepare(shared, route=route)
    for obj, attribute, value in (
        (plan, "route", "other"),
        (plan, "shared", shared),
        (shared, "request", req),
        (req, "params", None),
        (req, "inputs", ()),
        (req.params, "multiplier", 1.0),
        (req.params, "zero_point", 0),
        (req.params, "rounding", sk.ops.quant.Rounding.NEAREST_EVEN),
    ):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, attribute, value)
    assert (plan.route, shared.params.zero_point, shared.params.multiplier_bits) == (route, -3, M)


@pytest.mark.parametrize("route", ROUTES)
def test_many_plans_interleaved(route):
    """Plans of all twelve entries created first, then executed in an
    interleaved order twice: no plan depends on another's preparation."""
    cases = []
    for k, dtype in enumerate((F32, BF16, F16)):
        for mode in MODES:
            values = exceptional_values(dtype, 100, k)
            cases.append(Case.make(route, (100,), dtype, M, ZP, mode, values=values))
    order = cases[::2] + cases[1::2]
    fail_if(run_cases(order) + run_cases(list(reversed(order))))
