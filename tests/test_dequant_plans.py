"""Dequant plans and bindings: immutable plans reused with new buffers and
shared by four threads (bit-exact); a few binding rejections proving that no
byte is written (the shared binding machinery is covered by
test_binding.py)."""
import dataclasses
import threading

import numpy as np
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
    ok_plan,
    oracle_dequant,
    random_int8,
)

E = sk.ErrorCode
OUTPUTS = {"f32": F32, "bf16": BF16}
SHAPE = (5, 37)
IN_STRIDES = (41, 1)


def out_strides(dst):
    item = 4 if dst is F32 else 2
    return (40 * item, item)


class Case:
    """A padded-row plan with oracle-known input in a framed input buffer and
    a sentinel-filled output."""

    def __init__(self, route, dst, params=(0x4037CED9, 16777089)):
        self.dst_dtype, self.params = dst, params
        self.plan = ok_plan(dequant_request(SHAPE, dst, *params, IN_STRIDES, out_strides(dst)), route)
        (self.need_in,), (self.need_out,) = self.plan.input_requirements(), self.plan.output_requirements()
        self.src = Storage.make(SHAPE, I8, IN_STRIDES, nbytes=self.need_in.nbytes, excess=8, fill=INPUT_FILL)
        self.dst = Storage.make(SHAPE, dst, out_strides(dst), nbytes=self.need_out.nbytes, excess=8)
        self.values = random_int8(self.src.offsets.size, 23)
        self.src.write(self.values)
        self.src_before = self.src.buf.copy()

    def execute(self, inputs, outputs):
        return sk.a65.dequant.execute(self.plan, inputs, outputs)

    def assert_rejected(self, result, code, *fragments):
        assert isinstance(result, sk.Error), f"expected {code.name}, execute returned {result!r}"
        assert result.code == code, f"expected {code.name}, got {result}"
        for fragment in fragments:
            assert fragment in result.message, f"{fragment!r} not in {result.message!r}"
        assert_untouched(self.dst.buf, SENTINEL, what="output (rejected binding)")
        assert np.array_equal(self.src.buf, self.src_before), "input changed"

    def assert_converted(self):
        expected = oracle_dequant(self.values, self.dst_dtype, *self.params)
        assert_bits_equal(self.dst.read(), expected, self.values, "output", shape=SHAPE)
        self.dst.assert_gaps_untouched()


@pytest.fixture(params=[(r, o) for r in ROUTES for o in OUTPUTS], ids=lambda p: f"{p[0]}-{p[1]}")
def case(request):
    route, output = request.param
    return Case(route, OUTPUTS[output])


# --------------------------------------------------------------- bindings


def test_baseline_and_exact_size_views(case):
    assert case.execute([case.src.buf[: case.need_in.nbytes]], [case.dst.buf[: case.need_out.nbytes]]) is None
    case.assert_converted()


def test_too_small_views(case):
    n_in, n_out = case.need_in.nbytes, case.need_out.nbytes
    case.assert_rejected(case.execute([case.src.buf[: n_in - 1]], [case.dst.buf]), E.INVALID_BINDING, "input 0")
    case.assert_rejected(case.execute([case.src.buf], [case.dst.buf[: n_out - 1]]), E.INVALID_BINDING, "output 0")
    case.assert_rejected(case.execute([case.src.buf], [case.dst.buf[:0]]), E.INVALID_BINDING, "output 0")


def test_misaligned_output(case):
    """An output view starting inside a word of a sentinel buffer."""
    big = aligned_bytes(case.need_out.nbytes + 16, SENTINEL)
    for k in (1, case.need_out.alignment - 1):
        view = sk.HostBuffer.from_address(big.ctypes.data + k, case.need_out.nbytes, keepalive=big)
        case.assert_rejected(case.execute([case.src.buf], [view]), E.INVALID_BINDING, "output 0")
        assert_untouched(big, SENTINEL, what="misaligned output")


def test_null_read_only_and_arity(case):
    null_out = sk.HostBuffer.from_address(0, case.need_out.nbytes)
    case.assert_rejected(case.execute([case.src.buf], [null_out]), E.INVALID_BINDING, "output 0")
    case.assert_rejected(case.execute([case.src.buf], [sk.ConstHostBuffer(case.dst.buf)]), E.INVALID_BINDING)
    case.assert_rejected(case.execute([case.src.buf], [bytes(case.dst.buf)]), E.INVALID_BINDING, "output 0")
    case.assert_rejected(case.execute([case.src.buf, case.src.buf], [case.dst.buf]), E.INVALID_ARITY)
    case.assert_rejected(case.execute([], [case.dst.buf]), E.INVALID_ARITY)


def test_overlapping_input_and_output(case):
    """The input placed inside the output's range (even within its gaps)."""
    n_in, n_out = case.need_in.nbytes, case.need_out.nbytes
    big = aligned_bytes(n_in + n_out + 64, SENTINEL)
    big[8:8 + n_in] = case.src.buf[:n_in]
    before = big.copy()
    src = sk.ConstHostBuffer.from_address(big.ctypes.data + 8, n_in, keepalive=big)
    dst = sk.HostBuffer.from_address(big.ctypes.data, n_out, keepalive=big)
    case.assert_rejected(case.execute([src], [dst]), E.INVALID_BINDING, "overlap")
    assert np.array_equal(big, before), "overlapping binding wrote bytes"


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


# --------------------------------------------------------------- plans


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


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("route", ROUTES)
def test_plan_reused_with_new_buffers(route, output):
    """One plan, fresh buffers of different kinds and capacities and new data
    each call; a rejected call in between changes nothing for later calls."""
    dst_dtype = OUTPUTS[output]
    params = (0x40800000, -16777089)  # wide_pow2
    plan = ok_plan(dequant_request(SHAPE, dst_dtype, *params, IN_STRIDES, out_strides(dst_dtype)), route)
    for seed in range(5):
        src = Storage.make(SHAPE, I8, IN_STRIDES, excess=seed, fill=INPUT_FILL)
        dst = Storage.make(SHAPE, dst_dtype, out_strides(dst_dtype), excess=3 * seed)
        values = random_int8(src.offsets.size, 100 + seed)
        src.write(values)
        in_obj = src.buf if seed % 2 else bytes(src.buf)
        out_obj = dst.buf if seed % 3 else sk.HostBuffer(dst.buf)
        assert sk.a65.dequant.execute(plan, [in_obj], [out_obj]) is None
        assert_bits_equal(dst.read(), oracle_dequant(values, dst_dtype, *params), values, f"reuse {seed}")
        dst.assert_gaps_untouched()
        if seed == 2:
            assert sk.a65.dequant.execute(plan, [src.buf[:3]], [dst.buf]).code == E.INVALID_BINDING


def test_one_shared_plan_prepared_for_every_route():
    params = (0x3F800000, 16777217)
    shared = sk.ops.dequant.check_inference(dequant_request((40,), BF16, *params))
    values = random_int8(40, 5)
    for route in ROUTES:
        plan = sk.a65.dequant.prepare(shared, route=route)
        assert (plan.route, plan.form) == (route, "wide_unit")
        src = Storage.make((40,), I8, fill=INPUT_FILL)
        src.write(values)
        dst = Storage.make((40,), BF16, excess=7)
        assert sk.a65.dequant.execute(plan, [src.buf], [dst.buf]) is None
        assert_bits_equal(dst.read(), oracle_dequant(values, BF16, *params), values, route)
        dst.assert_gaps_untouched()


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("route", ROUTES)
def test_plan_shared_by_four_threads(route, output):
    dst_dtype = OUTPUTS[output]
    params = (0x4037CED9, -123)
    item = 4 if dst_dtype is F32 else 2
    shape, in_strides, o_strides = (17, 67), (70, 1), (68 * item, item)
    plan = ok_plan(dequant_request(shape, dst_dtype, *params, in_strides, o_strides), route)
    iterations = 30
    barrier = threading.Barrier(4)
    failures = []

    def worker(index):
        try:
            src = Storage.make(shape, I8, in_strides, excess=index, fill=INPUT_FILL)
            dst = Storage.make(shape, dst_dtype, o_strides, excess=2 * index)
            mask = ~dst.element_mask()
            barrier.wait()
            for i in range(iterations):
                values = random_int8(src.offsets.size, 1000 * index + i)
                expected = oracle_dequant(values, dst_dtype, *params)
                src.write(values)
                dst.reset()
                status = sk.a65.dequant.execute(plan, [src.buf], [dst.buf])
                if status is not None:
                    failures.append(f"thread {index} iteration {i}: {status}")
                    return
                got = dst.read()
                if not np.array_equal(got, expected):
                    bad = int(np.flatnonzero(got != expected)[0])
                    failures.append(
                        f"thread {index} iteration {i} index {bad}: input {int(values[bad]):#04x} "
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
