"""Dequant plans: immutable, with their parameters and form; adjacent
input and output ranges are accepted.  Bindings shared with Quant are in
test_op_bindings.py; reuse, one shared plan for every route and threads in
test_plans.py."""
import dataclasses

import numpy as np
import pytest

import simakernels as sk
from support.helpers import (
    BF16,
    F32,
    ROUTES,
    SENTINEL,
    aligned_bytes,
    assert_bits_equal,
    dequant_request,
    ok_plan,
    oracle_dequant,
    random_int8,
)


@pytest.mark.in_child  # raw addresses inside one buffer
@pytest.mark.parametrize("route", ROUTES)
def test_adjacent_ranges_are_accepted(route):
    plan = ok_plan(dequant_request((40,), F32, 0x3E000000, -7), route)
    values = random_int8(40, 9)
    big = aligned_bytes(40 + 160 + 32, SENTINEL)
    big[160:200] = values                      # input right after the output
    status = sk.a65.dequant.execute(
        plan,
        [sk.ConstHostBuffer.from_address(big.ctypes.data + 160, 40, keepalive=big)],
        [sk.HostBuffer.from_address(big.ctypes.data, 160, keepalive=big)],
    )
    assert status is None, status
    assert_bits_equal(big[:160].copy().view(np.uint32), oracle_dequant(values, F32, 0x3E000000, -7), values, route)
    assert np.array_equal(big[160:200], values) and (big[200:] == SENTINEL).all()


@pytest.mark.parametrize("route", ROUTES)
def test_plans_are_immutable(route):
    req = dequant_request((3, 4), BF16, 0x3E800000, -3)
    shared = sk.ops.dequant.check_inference(req)
    plan = sk.a65.dequant.prepare(shared, route=route)
    for obj, attribute, value in (
        (plan, "route", "other"),
        (plan, "shared", shared),
        (shared, "request", req),
        (req, "params", None),
        (req.params, "scale", 1.0),
        (req.params, "zero_point", 0),
        (req.params, "scale_bits", 0x3F800000),
    ):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, attribute, value)
    with pytest.raises(AttributeError):
        plan.form = "wide"
    assert (plan.route, plan.form, shared.params.zero_point) == (route, "narrow_pow2", -3)
