"""Quant plans and bindings: immutable plans reused with new buffers and
shared by four threads (bit-exact, every entry); binding rejections that
write nothing (the shared binding machinery is covered by
test_binding.py)."""
import dataclasses
import threading

import numpy as np
import pytest

import simakernels as sk
from helpers import (
    INPUT_FILL,
    ITEMSIZE,
    ROUTES,
    SENTINEL,
    Storage,
    aligned_bytes,
    assert_bits_equal,
    assert_untouched,
    fail_if,
)
from quant_helpers import (
    BF16,
    F16,
    F32,
    INPUTS,
    MODES,
    Case,
    oracle,
    quant_plan,
    quant_request,
    run_cases,
    useful_values,
)

E = sk.ErrorCode
I8 = sk.DType.INT8
SHAPE = (5, 37)
OUT_STRIDES = (41, 1)
M, ZP = 0x3E99999A, -100


def in_strides(dtype):
    item = ITEMSIZE[dtype]
    return (40 * item, item)


def exceptional_values(dtype, n, seed):
    """Useful values with a block-repairing lane (subnormal or tiny
    product) every 23 elements."""
    v = useful_values(dtype, n, seed, M)
    v[3::23] = {F32: 0x00800001, BF16: 0x0081, F16: 0x0001}[dtype]
    return v


class Fixture:
    """A padded-row plan with oracle-known input in a framed input buffer
    and a sentinel-filled output."""

    def __init__(self, route, dtype, mode="toward_positive"):
        self.dtype, self.mode = dtype, mode
        self.plan = quant_plan(quant_request(SHAPE, dtype, M, ZP, mode, in_strides(dtype), OUT_STRIDES), route)
        (self.need_in,), (self.need_out,) = self.plan.input_requirements(), self.plan.output_requirements()
        self.src = Storage.make(SHAPE, dtype, in_strides(dtype), nbytes=self.need_in.nbytes, excess=8, fill=INPUT_FILL)
        self.dst = Storage.make(SHAPE, I8, OUT_STRIDES, nbytes=self.need_out.nbytes, excess=8)
        self.values = exceptional_values(dtype, self.src.offsets.size, 23)
        self.src.write(self.values)
        self.src_before = self.src.buf.copy()

    def execute(self, inputs, outputs):
        return sk.a65.quant.execute(self.plan, inputs, outputs)

    def assert_rejected(self, result, code, *fragments):
        assert isinstance(result, sk.Error), f"expected {code.name}, execute returned {result!r}"
        assert result.code == code, f"expected {code.name}, got {result}"
        for fragment in fragments:
            assert fragment in result.message, f"{fragment!r} not in {result.message!r}"
        assert_untouched(self.dst.buf, SENTINEL, what="output (rejected binding)")
        assert np.array_equal(self.src.buf, self.src_before), "input changed"

    def assert_quantized(self):
        expected = oracle(self.dtype, self.values, M, ZP, self.mode).view(np.uint8)
        assert_bits_equal(self.dst.read(), expected, self.values, "output", shape=SHAPE)
        self.dst.assert_gaps_untouched()


@pytest.fixture(params=[(r, i) for r in ROUTES for i in INPUTS], ids=lambda p: f"{p[0]}-{p[1]}")
def fx(request):
    route, name = request.param
    return Fixture(route, INPUTS[name])


# --------------------------------------------------------------- bindings


def test_baseline_and_exact_size_views(fx):
    assert fx.execute([fx.src.buf[: fx.need_in.nbytes]], [fx.dst.buf[: fx.need_out.nbytes]]) is None
    fx.assert_quantized()


def test_too_small_views(fx):
    n_in, n_out = fx.need_in.nbytes, fx.need_out.nbytes
    fx.assert_rejected(fx.execute([fx.src.buf[: n_in - 1]], [fx.dst.buf]), E.INVALID_BINDING, "input 0")
    fx.assert_rejected(fx.execute([fx.src.buf], [fx.dst.buf[: n_out - 1]]), E.INVALID_BINDING, "output 0")
    fx.assert_rejected(fx.execute([fx.src.buf], [fx.dst.buf[:0]]), E.INVALID_BINDING, "output 0")


def test_misaligned_input(fx):
    """An input view starting inside an element (the output is INT8, any
    address)."""
    if fx.need_in.alignment == 1:
        pytest.skip("byte-aligned input")
    big = aligned_bytes(fx.need_in.nbytes + 16, INPUT_FILL)
    view = sk.ConstHostBuffer.from_address(big.ctypes.data + 1, fx.need_in.nbytes, keepalive=big)
    fx.assert_rejected(fx.execute([view], [fx.dst.buf]), E.INVALID_BINDING, "input 0")


def test_null_read_only_and_arity(fx):
    null_out = sk.HostBuffer.from_address(0, fx.need_out.nbytes)
    null_in = sk.ConstHostBuffer.from_address(0, fx.need_in.nbytes)
    fx.assert_rejected(fx.execute([fx.src.buf], [null_out]), E.INVALID_BINDING, "output 0")
    fx.assert_rejected(fx.execute([null_in], [fx.dst.buf]), E.INVALID_BINDING, "input 0")
    fx.assert_rejected(fx.execute([fx.src.buf], [sk.ConstHostBuffer(fx.dst.buf)]), E.INVALID_BINDING)
    fx.assert_rejected(fx.execute([fx.src.buf], [bytes(fx.dst.buf)]), E.INVALID_BINDING, "output 0")
    fx.assert_rejected(fx.execute([fx.src.buf, fx.src.buf], [fx.dst.buf]), E.INVALID_ARITY)
    fx.assert_rejected(fx.execute([fx.src.buf], []), E.INVALID_ARITY)


def test_overlapping_input_and_output(fx):
    """The output placed inside the input's range."""
    n_in, n_out = fx.need_in.nbytes, fx.need_out.nbytes
    big = aligned_bytes(n_in + n_out + 64, SENTINEL)
    big[:n_in] = fx.src.buf[:n_in]
    before = big.copy()
    src = sk.ConstHostBuffer.from_address(big.ctypes.data, n_in, keepalive=big)
    dst = sk.HostBuffer.from_address(big.ctypes.data + 8, n_out, keepalive=big)
    fx.assert_rejected(fx.execute([src], [dst]), E.INVALID_BINDING, "overlap")
    assert np.array_equal(big, before), "overlapping binding wrote bytes"


# --------------------------------------------------------------- plans


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


@pytest.mark.parametrize("input", INPUTS)
@pytest.mark.parametrize("route", ROUTES)
def test_plan_reused_with_new_buffers(route, input):
    """One plan, fresh buffers of different kinds and capacities and new
    data each call; a rejected call in between changes nothing for later
    calls."""
    dtype = INPUTS[input]
    plan = quant_plan(quant_request(SHAPE, dtype, M, ZP, "toward_negative", in_strides(dtype), OUT_STRIDES), route)
    for seed in range(5):
        src = Storage.make(SHAPE, dtype, in_strides(dtype), excess=2 * seed, fill=INPUT_FILL)
        dst = Storage.make(SHAPE, I8, OUT_STRIDES, excess=3 * seed)
        values = exceptional_values(dtype, src.offsets.size, 100 + seed)
        src.write(values)
        in_obj = src.buf if seed % 2 else bytes(src.buf)
        out_obj = dst.buf if seed % 3 else sk.HostBuffer(dst.buf)
        assert sk.a65.quant.execute(plan, [in_obj], [out_obj]) is None
        expected = oracle(dtype, values, M, ZP, "toward_negative").view(np.uint8)
        assert_bits_equal(dst.read(), expected, values, f"reuse {seed}")
        dst.assert_gaps_untouched()
        if seed == 2:
            assert sk.a65.quant.execute(plan, [src.buf[:3]], [dst.buf]).code == E.INVALID_BINDING


@pytest.mark.parametrize("mode", MODES)
def test_one_shared_plan_prepared_for_every_route(mode):
    for dtype in (F32, BF16, F16):
        shared = sk.ops.quant.check_inference(quant_request((77,), dtype, M, ZP, mode))
        values = exceptional_values(dtype, 77, 5)
        expected = oracle(dtype, values, M, ZP, mode).view(np.uint8)
        for route in ROUTES:
            plan = sk.a65.quant.prepare(shared, route=route)
            assert plan.route == route
            src = Storage.make((77,), dtype, fill=INPUT_FILL)
            src.write(values)
            dst = Storage.make((77,), I8, excess=7)
            assert sk.a65.quant.execute(plan, [src.buf], [dst.buf]) is None
            assert_bits_equal(dst.read(), expected, values, f"{route} {dtype.name}")
            dst.assert_gaps_untouched()


@pytest.mark.parametrize("route", ROUTES)
def test_plans_shared_by_four_threads(route):
    """Every (input dtype, rounding) entry: one plan each, shared by four
    threads that each run all twelve plans repeatedly on their own buffers
    with new data (blocks with and without repairs), bit-exact against
    expectations computed before the threads start."""
    shape, o_strides = (9, 67), (70, 1)
    plans = {}
    for dtype in (F32, BF16, F16):
        for mode in MODES:
            ins = (70 * ITEMSIZE[dtype], ITEMSIZE[dtype])
            plans[dtype, mode] = (quant_plan(quant_request(shape, dtype, M, ZP, mode, ins, o_strides), route), ins)
    iterations = 6
    # Inputs and oracle results, computed up front (the oracle is not the
    # subject of the threading test).
    work = {}
    for index in range(4):
        for i in range(iterations):
            for (dtype, mode) in plans:
                values = exceptional_values(dtype, shape[0] * shape[1], 1000 * index + i)
                work[index, i, dtype, mode] = (values, oracle(dtype, values, M, ZP, mode).view(np.uint8))
    barrier = threading.Barrier(4)
    failures = []

    def worker(index):
        try:
            storages = {dtype: Storage.make(shape, dtype, (70 * ITEMSIZE[dtype], ITEMSIZE[dtype]), excess=index,
                                            fill=INPUT_FILL) for dtype in (F32, BF16, F16)}
            dst = Storage.make(shape, I8, o_strides, excess=2 * index)
            mask = ~dst.element_mask()
            barrier.wait()
            for i in range(iterations):
                for (dtype, mode), (plan, _) in plans.items():
                    values, expected = work[index, i, dtype, mode]
                    src = storages[dtype]
                    src.write(values)
                    dst.reset()
                    status = sk.a65.quant.execute(plan, [src.buf], [dst.buf])
                    if status is not None:
                        failures.append(f"thread {index} iteration {i} {dtype.name} {mode}: {status}")
                        return
                    got = dst.read()
                    if not np.array_equal(got, expected):
                        bad = int(np.flatnonzero(got != expected)[0])
                        failures.append(
                            f"thread {index} iteration {i} {dtype.name} {mode} index {bad}: input "
                            f"{int(values[bad]):#x} expected {int(expected[bad]):#04x} got {int(got[bad]):#04x}")
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
