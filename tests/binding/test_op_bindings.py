"""Dequant and Quant bindings at execute: exact-size views convert
bit-exactly; too small, misaligned, null, read-only, overlapping bindings
and the wrong arity are rejected without writing a byte or changing the
input (the shared binding machinery is covered, for Cast, by
test_binding.py)."""
import numpy as np
import pytest

import simakernels as sk
from support.helpers import INPUT_FILL, ROUTES, SENTINEL, aligned_bytes, assert_bits_equal, assert_untouched
from support.op_cases import PARAM_OPS, op_variants

# Raw addresses (null, misaligned, too short, overlapping): each test in a
# forked child, so a wild access fails that test only.
pytestmark = pytest.mark.in_child

E = sk.ErrorCode


class Framed:
    """A padded-row plan with oracle-known input in a framed input buffer
    and a sentinel-filled output, both 8 bytes larger than required."""

    def __init__(self, op, route, variant):
        self.op = op
        entry = op.rows_entry(route, op.variants[variant], op.framed_params)
        self.plan, self.shape = entry.plan, entry.shape
        (self.need_in,), (self.need_out,) = self.plan.input_requirements(), self.plan.output_requirements()
        self.src, self.dst = entry.storages(8, 8)
        assert (self.src.buf.size, self.dst.buf.size) == (self.need_in.nbytes + 8, self.need_out.nbytes + 8)
        self.values, self.expected = entry.draw(self.src.offsets.size, 23)
        self.src.write(self.values)
        self.src_before = self.src.buf.copy()

    def execute(self, inputs, outputs):
        return self.op.a65.execute(self.plan, inputs, outputs)

    def assert_rejected(self, result, code, *fragments):
        assert isinstance(result, sk.Error), f"expected {code.name}, execute returned {result!r}"
        assert result.code == code, f"expected {code.name}, got {result}"
        for fragment in fragments:
            assert fragment in result.message, f"{fragment!r} not in {result.message!r}"
        assert_untouched(self.dst.buf, SENTINEL, what="output (rejected binding)")
        assert np.array_equal(self.src.buf, self.src_before), "input changed"

    def assert_converted(self):
        assert_bits_equal(self.dst.read(), self.expected, self.values, "output", shape=self.shape)
        self.dst.assert_gaps_untouched()


CASES = [(op, r, v) for op, v in op_variants(PARAM_OPS) for r in ROUTES]


@pytest.fixture(params=CASES, ids=lambda p: f"{p[0].name}-{p[1]}-{p[2]}")
def fx(request):
    return Framed(*request.param)


def test_baseline_and_exact_size_views(fx):
    assert fx.execute([fx.src.buf[: fx.need_in.nbytes]], [fx.dst.buf[: fx.need_out.nbytes]]) is None
    fx.assert_converted()


def test_too_small_views(fx):
    n_in, n_out = fx.need_in.nbytes, fx.need_out.nbytes
    fx.assert_rejected(fx.execute([fx.src.buf[: n_in - 1]], [fx.dst.buf]), E.INVALID_BINDING, "input 0")
    fx.assert_rejected(fx.execute([fx.src.buf], [fx.dst.buf[: n_out - 1]]), E.INVALID_BINDING, "output 0")
    fx.assert_rejected(fx.execute([fx.src.buf], [fx.dst.buf[:0]]), E.INVALID_BINDING, "output 0")


def test_misaligned_float_port(fx):
    """A view of the float port (Dequant's output, Quant's input) starting
    inside an element of an aligned buffer; INT8 has any address."""
    port = fx.op.float_port
    need = fx.need_out if port == "output" else fx.need_in
    assert need.alignment > 1
    for k in (1, need.alignment - 1):
        if port == "output":
            big = aligned_bytes(need.nbytes + 16, SENTINEL)
            view = sk.HostBuffer.from_address(big.ctypes.data + k, need.nbytes, keepalive=big)
            result = fx.execute([fx.src.buf], [view])
        else:
            big = aligned_bytes(need.nbytes + 16, INPUT_FILL)
            view = sk.ConstHostBuffer.from_address(big.ctypes.data + k, need.nbytes, keepalive=big)
            result = fx.execute([view], [fx.dst.buf])
        fx.assert_rejected(result, E.INVALID_BINDING, f"{port} 0")
        assert_untouched(big, SENTINEL if port == "output" else INPUT_FILL, what=f"misaligned {port}")


def test_null_read_only_and_arity(fx):
    null_out = sk.HostBuffer.from_address(0, fx.need_out.nbytes)
    null_in = sk.ConstHostBuffer.from_address(0, fx.need_in.nbytes)
    fx.assert_rejected(fx.execute([fx.src.buf], [null_out]), E.INVALID_BINDING, "output 0")
    fx.assert_rejected(fx.execute([null_in], [fx.dst.buf]), E.INVALID_BINDING, "input 0")
    fx.assert_rejected(fx.execute([fx.src.buf], [sk.ConstHostBuffer(fx.dst.buf)]), E.INVALID_BINDING)
    fx.assert_rejected(fx.execute([fx.src.buf], [bytes(fx.dst.buf)]), E.INVALID_BINDING, "output 0")
    fx.assert_rejected(fx.execute([fx.src.buf, fx.src.buf], [fx.dst.buf]), E.INVALID_ARITY)
    fx.assert_rejected(fx.execute([], [fx.dst.buf]), E.INVALID_ARITY)
    fx.assert_rejected(fx.execute([fx.src.buf], []), E.INVALID_ARITY)


@pytest.mark.parametrize("inner", ["input", "output"])
def test_overlapping_input_and_output(fx, inner):
    """One port placed 8 bytes into the other's range (even within its gaps)."""
    n_in, n_out = fx.need_in.nbytes, fx.need_out.nbytes
    big = aligned_bytes(n_in + n_out + 64, SENTINEL)
    in_at, out_at = (8, 0) if inner == "input" else (0, 8)
    big[in_at:in_at + n_in] = fx.src.buf[:n_in]
    before = big.copy()
    src = sk.ConstHostBuffer.from_address(big.ctypes.data + in_at, n_in, keepalive=big)
    dst = sk.HostBuffer.from_address(big.ctypes.data + out_at, n_out, keepalive=big)
    fx.assert_rejected(fx.execute([src], [dst]), E.INVALID_BINDING, "overlap")
    assert np.array_equal(big, before), "overlapping binding wrote bytes"
