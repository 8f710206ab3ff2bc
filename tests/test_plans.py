"""Plans: immutable values that own their specifications, reusable with new
buffers, shareable between threads; a plan of the wrong kind is
INVALID_OPERATION."""
import dataclasses
import threading

import numpy as np
import pytest

import simakernels as sk
from helpers import (
    BF16,
    DIRECTION_IDS,
    DIRECTIONS,
    F32,
    INPUT_FILL,
    ITEMSIZE,
    ROUTES,
    SENTINEL,
    Storage,
    assert_bits_equal,
    assert_untouched,
    draw_values,
    ok_plan,
    request,
)

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


@pytest.mark.parametrize("direction", DIRECTION_IDS)
@pytest.mark.parametrize("route", ROUTES)
def test_plan_reused_with_new_buffers(route, direction):
    """One plan, several fresh buffer pairs of different kinds and contents."""
    src_dtype, dst_dtype = DIRECTIONS[direction]
    si, so = ITEMSIZE[src_dtype], ITEMSIZE[dst_dtype]
    shape, in_strides, out_strides = (5, 7), (9 * si, si), (7 * so * 2, so * 2)
    plan = ok_plan(request(shape, src_dtype, dst_dtype, in_strides, out_strides), route)
    for seed in range(6):
        src = Storage.make(shape, src_dtype, in_strides, excess=seed, fill=INPUT_FILL)
        dst = Storage.make(shape, dst_dtype, out_strides, excess=3 * seed, fill=SENTINEL)
        inputs, expected = draw_values(src_dtype, src.offsets.size, seed=100 + seed)
        src.write(inputs)
        in_obj = src.buf if seed % 2 else bytes(src.buf)
        out_obj = dst.buf if seed % 3 else sk.HostBuffer(dst.buf)
        assert sk.a65.cast.execute(plan, [in_obj], [out_obj]) is None
        assert_bits_equal(dst.read(), expected, inputs, f"reuse {seed}", shape=shape)
        dst.assert_gaps_untouched()
        if seed == 2:  # an error in between changes nothing for later calls
            assert sk.a65.cast.execute(plan, [src.buf[:3]], [dst.buf]).code == E.INVALID_BINDING


def test_prepare_reuses_a_shared_plan_for_every_route():
    req = request((40,), BF16, F32)
    shared = sk.ops.cast.check_inference(req)
    inputs, expected = draw_values(BF16, 40, seed=5)
    for route in ROUTES:
        plan = sk.a65.cast.prepare(shared, route=route)
        assert plan.route == route
        src = Storage.make((40,), BF16, fill=INPUT_FILL)
        src.write(inputs)
        dst = Storage.make((40,), F32, excess=7)
        assert sk.a65.cast.execute(plan, [src.buf], [dst.buf]) is None
        assert_bits_equal(dst.read(), expected, inputs, route)
        dst.assert_gaps_untouched()


@pytest.mark.parametrize("direction", DIRECTION_IDS)
@pytest.mark.parametrize("route", ROUTES)
def test_plan_shared_by_four_threads(route, direction):
    src_dtype, dst_dtype = DIRECTIONS[direction]
    si, so = ITEMSIZE[src_dtype], ITEMSIZE[dst_dtype]
    shape, in_strides, out_strides = (17, 33), (35 * si, si), (34 * so, so)
    plan = ok_plan(request(shape, src_dtype, dst_dtype, in_strides, out_strides), route)
    iterations = 40
    barrier = threading.Barrier(4)
    failures = []

    def worker(index):
        try:
            src = Storage.make(shape, src_dtype, in_strides, excess=index, fill=INPUT_FILL)
            dst = Storage.make(shape, dst_dtype, out_strides, excess=2 * index, fill=SENTINEL)
            mask = ~dst.element_mask()
            barrier.wait()
            for i in range(iterations):
                inputs, expected = draw_values(src_dtype, src.offsets.size, seed=1000 * index + i)
                src.write(inputs)
                dst.reset()
                status = sk.a65.cast.execute(plan, [src.buf], [dst.buf])
                if status is not None:
                    failures.append(f"thread {index} iteration {i}: {status}")
                    return
                got = dst.read()
                if not np.array_equal(got, expected):
                    bad = int(np.flatnonzero(got != expected)[0])
                    failures.append(
                        f"thread {index} iteration {i} index {bad}: input {int(inputs[bad]):#x} "
                        f"expected {int(expected[bad]):#x} got {int(got[bad]):#x}")
                    return
                if np.any(dst.buf[mask] != SENTINEL):
                    failures.append(f"thread {index} iteration {i}: gap bytes written")
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
