"""Plans: immutable values that own their specifications; for every
operation (op_cases), reusable with new buffers, prepared from one shared
plan for every route and shareable between threads; a plan of the wrong
kind is INVALID_OPERATION."""
import dataclasses
import threading

import numpy as np
import pytest

import simakernels as sk
from support.helpers import (
    BF16,
    F32,
    INPUT_FILL,
    ROUTES,
    SENTINEL,
    Storage,
    assert_bits_equal,
    assert_untouched,
    request,
)
from support.op_cases import OPS, op_variants

E = sk.ErrorCode


def _plans(route):
    req = request((3, 4), F32, BF16, (32, 4), None)
    shared = sk.ops.cast.check_inference(req)
    return req, shared, sk.a65.cast.prepare(shared, route=route)


@pytest.mark.parametrize("route", ROUTES)
def test_plans_are_immutable(route):
    req, shared, plan = _plans(route)
    for obj, attribute, value in (
        (plan, "route", "other"),
        (plan, "shared", shared),
        (shared, "request", req),
        (shared, "admitted", None),
        (req, "inputs", ()),
        (req, "params", None),
        (req.inputs[0], "shape", (1,)),
        (req.inputs[0], "layout", sk.Contiguous()),
        (req.inputs[0].layout, "strides", (4, 4)),
        (plan.input_requirements()[0], "nbytes", 1 << 20),
        (sk.Error(E.OVERFLOW, "x"), "code", E.INVALID_SHAPE),
    ):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, attribute, value)
    with pytest.raises(dataclasses.FrozenInstanceError):
        del plan.route
    assert plan.route == route
    assert plan.input_requirements() == (sk.Requirement(4 + 2 * 32 + 3 * 4, 4),)


def test_plan_owns_copies_of_its_specifications():
    inputs = [sk.TensorSpec((2, 3), F32)]
    outputs = [sk.TensorSpec((2, 3), BF16)]
    req = sk.ops.cast.Request(inputs, outputs)
    plan = sk.a65.cast.check_inference(req)
    inputs.append(sk.TensorSpec((9,), F32))
    outputs[0] = sk.TensorSpec((7,), BF16)
    assert len(req.inputs) == 1 and req.outputs[0].shape == (2, 3)
    assert plan.output_requirements() == (sk.Requirement(12, 2),)


@pytest.mark.parametrize("op, variant", op_variants(), ids=lambda p: str(p))
@pytest.mark.parametrize("route", ROUTES)
def test_plan_reused_with_new_buffers(route, op, variant):
    """One plan, fresh buffers of different kinds and capacities and new data
    each call; a rejected call in between changes nothing for later calls."""
    entry = op.reuse_entry(route, variant)
    for seed in range(6):
        src, dst = entry.storages(op.reuse_in_excess * seed, 3 * seed)
        inputs, expected = entry.draw(src.offsets.size, 100 + seed)
        src.write(inputs)
        in_obj = src.buf if seed % 2 else bytes(src.buf)
        out_obj = dst.buf if seed % 3 else sk.HostBuffer(dst.buf)
        assert op.a65.execute(entry.plan, [in_obj], [out_obj]) is None
        assert_bits_equal(dst.read(), expected, inputs, f"reuse {seed}", shape=entry.shape)
        dst.assert_gaps_untouched()
        if seed == 2:
            assert op.a65.execute(entry.plan, [src.buf[:3]], [dst.buf]).code == E.INVALID_BINDING


@pytest.mark.parametrize("op, group", [(op, g) for op in OPS for g in op.shared_groups], ids=lambda p: str(p))
def test_one_shared_plan_prepared_for_every_route(op, group):
    for shared, attributes, src_dtype, dst_dtype, n, inputs, expected in op.shared_entries(group):
        for route in ROUTES:
            plan = op.a65.prepare(shared, route=route)
            assert plan.route == route
            for name, value in attributes.items():
                assert getattr(plan, name) == value, (route, name)
            src = Storage.make((n,), src_dtype, fill=INPUT_FILL)
            src.write(inputs)
            dst = Storage.make((n,), dst_dtype, excess=7)
            assert op.a65.execute(plan, [src.buf], [dst.buf]) is None
            assert_bits_equal(dst.read(), expected, inputs, f"{route} {src_dtype.name}")
            dst.assert_gaps_untouched()


@pytest.mark.parametrize("op, group", [(op, g) for op in OPS for g in op.thread_groups], ids=lambda p: str(p))
@pytest.mark.parametrize("route", ROUTES)
def test_plans_shared_by_four_threads(route, op, group):
    """Four threads run the same plans (Quant: all twelve entries) repeatedly
    on their own buffers with new data, bit-exact against expectations
    computed before the threads start (the oracle is not the subject)."""
    entries, iterations = op.thread_entries(route, group)
    work = {}
    for index in range(4):
        for i in range(iterations):
            for k, entry in enumerate(entries):
                work[index, i, k] = entry.draw(int(np.prod(entry.shape)), 1000 * index + i)
    barrier = threading.Barrier(4)
    failures = []

    def worker(index):
        try:
            storages = [entry.storages(index, 2 * index) for entry in entries]
            masks = [~dst.element_mask() for _, dst in storages]
            barrier.wait()
            for i in range(iterations):
                for k, (entry, (src, dst), mask) in enumerate(zip(entries, storages, masks)):
                    inputs, expected = work[index, i, k]
                    what = f"thread {index} iteration {i} {entry.label}"
                    src.write(inputs)
                    dst.reset()
                    status = op.a65.execute(entry.plan, [src.buf], [dst.buf])
                    if status is not None:
                        failures.append(f"{what}: {status}")
                        return
                    got = dst.read()
                    if not np.array_equal(got, expected):
                        bad = int(np.flatnonzero(got != expected)[0])
                        failures.append(f"{what} index {bad}: input {int(inputs[bad]):#x} "
                                        f"expected {int(expected[bad]):#x} got {int(got[bad]):#x}")
                        return
                    if np.any(dst.buf[mask] != SENTINEL):
                        failures.append(f"{what}: gap bytes written")
                        return
        except Exception as exc:  # reported below, with the thread it came from
            failures.append(f"thread {index}: {exc!r}")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("route", ROUTES)
def test_plan_of_another_kind_is_invalid_operation(route):
    req, shared, plan = _plans(route)
    src = Storage.make((3, 4), F32, (32, 4), fill=INPUT_FILL)
    dst = Storage.make((3, 4), BF16, excess=16)
    for wrong in (shared, req, None, "plan", object(), shared.input_requirements()):
        result = sk.a65.cast.execute(wrong, [src.buf], [dst.buf])
        assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result
        assert_untouched(dst.buf, SENTINEL, what="output")
    assert sk.a65.cast.execute(plan, [src.buf], [dst.buf]) is None


def test_requirements_are_values():
    plan = sk.a65.cast.check_inference(request((2, 2), BF16, F32))
    assert plan.input_requirements() == (sk.Requirement(8, 2),)
    assert plan.output_requirements() == (sk.Requirement(16, 4),)
    need = plan.output_requirements()[0]
    assert (need.nbytes, need.alignment) == (16, 4)
    assert isinstance(plan.input_requirements(), tuple)
