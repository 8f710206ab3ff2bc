"""The operations described once, for the tests that check one rule for
each of them (test_op_*.py, test_plans.py): their ``ops``/``a65`` modules,
valid requests and parameters, dtypes, and the oracle-known data the plan
and binding tests run.  What is specific to one operation stays in its own
test files; only its data lives here.

Dequant's float port is its output, Quant's its input; Cast has no params."""
from dataclasses import dataclass
from typing import Callable, Tuple

import numpy as np
import pytest

import simakernels as sk
from support.helpers import (
    BF16,
    DIRECTIONS,
    F16,
    F32,
    I8,
    INPUT_FILL,
    ITEMSIZE,
    ROUTES,
    SENTINEL,
    Storage,
    dequant_request,
    draw_values,
    ok_plan,
    oracle_dequant,
    random_int8,
    request,
    spec,
)
from support.quant_helpers import MODES, oracle, pow2, quant_plan, quant_request, useful_values

E = sk.ErrorCode
Trap = sk.fenv.Trap
ROWS = (5, 37)          # the plan and binding tests' padded-row shape
QUANT_M, QUANT_ZP = 0x3E99999A, -100


def quant_exceptional(dtype, n, seed):
    """Useful values with a block-repairing lane (subnormal or tiny
    product) every 23 elements."""
    v = useful_values(dtype, n, seed, QUANT_M)
    v[3::23] = {F32: 0x00800001, BF16: 0x0081, F16: 0x0001}[dtype]
    return v


def row_strides(dtype, row):
    """Byte strides of rows ``row`` elements apart."""
    return (row * ITEMSIZE[dtype], ITEMSIZE[dtype])


@dataclass
class Entry:
    """One plan with its port layouts and a source of oracle-known data:
    ``draw(n, seed)`` gives (input patterns, expected output patterns)."""

    label: str
    plan: object
    src_dtype: sk.DType
    dst_dtype: sk.DType
    shape: Tuple[int, ...]
    in_strides: tuple
    out_strides: tuple
    draw: Callable

    def storages(self, in_excess, out_excess):
        return (Storage.make(self.shape, self.src_dtype, self.in_strides, excess=in_excess, fill=INPUT_FILL),
                Storage.make(self.shape, self.dst_dtype, self.out_strides, excess=out_excess, fill=SENTINEL))


class Op:
    name: str
    ops: object
    a65: object
    variants: dict              # test id -> (src dtype, dst dtype)
    reuse_in_excess = 1         # input capacity grows by this many bytes a reuse round

    def __repr__(self):
        return self.name

    def sample_request(self):
        """A valid 4-element request."""
        raise NotImplementedError


class CastOp(Op):
    name, ops, a65 = "cast", sk.ops.cast, sk.a65.cast
    variants = DIRECTIONS

    def sample_request(self):
        return request((4,), F32, BF16)

    def reuse_entry(self, route, variant):
        src, dst = self.variants[variant]
        shape, ins, outs = (5, 7), row_strides(src, 9), (7 * ITEMSIZE[dst] * 2, ITEMSIZE[dst] * 2)
        plan = ok_plan(request(shape, src, dst, ins, outs), route)
        return Entry(variant, plan, src, dst, shape, ins, outs, lambda n, seed: draw_values(src, n, seed))

    thread_groups = tuple(DIRECTIONS)

    def thread_entries(self, route, group):
        src, dst = self.variants[group]
        shape, ins, outs = (17, 33), row_strides(src, 35), row_strides(dst, 34)
        plan = ok_plan(request(shape, src, dst, ins, outs), route)
        return [Entry(group, plan, src, dst, shape, ins, outs, lambda n, seed: draw_values(src, n, seed))], 40

    shared_groups = ("bf16_to_f32",)

    def shared_entries(self, group):
        """(shared plan, what every route's prepared plan must show, input
        dtype, output dtype, n, inputs, expected)."""
        src, dst = self.variants[group]
        inputs, expected = draw_values(src, 40, seed=5)
        return [(self.ops.check_inference(request((40,), src, dst)), {}, src, dst, 40, inputs, expected)]


class ParamOp(Op):
    """Dequant or Quant: an INT8 port, a float port, a binary32 scale (or
    multiplier) validated by its bits and an integer zero point."""

    float_dtypes: tuple
    float_port: str              # "input" or "output"
    scale_name: str
    plan_attrs: tuple = ()       # what each route's plans of one request agree on besides requirements

    def pair(self, float_dtype):
        return (I8, float_dtype) if self.float_port == "output" else (float_dtype, I8)

    @property
    def default_pair(self):
        return self.pair(F32)

    @property
    def admitted_pairs(self):
        return {self.pair(d) for d in self.float_dtypes}

    @property
    def bits_attr(self):
        return self.scale_name + "_bits"

    def req(self, shape, src=None, dst=None, in_strides=None, out_strides=None, params=..., out_shape=None):
        """A request (``params`` defaults to ``ok_params``; None is a value to reject)."""
        src = self.default_pair[0] if src is None else src
        dst = self.default_pair[1] if dst is None else dst
        params = self.ok_params if params is ... else params
        return self.ops.Request([spec(shape, src, in_strides)],
                                [spec(shape if out_shape is None else out_shape, dst, out_strides)], params)

    def float_req(self, shape, float_dtype, params=...):
        return self.req(shape, *self.pair(float_dtype), params=params)

    def requirements(self, n, float_dtype):
        """(input, output) requirements of a dense 1-D request of ``n``."""
        item = ITEMSIZE[float_dtype]
        needs = (n, 1), (n * item, item)
        return needs if self.float_port == "output" else needs[::-1]

    def sample_request(self):
        return self.req((4,))

    def reuse_entry(self, route, variant):
        return self.rows_entry(route, self.variants[variant], self.reuse_params)


class DequantOp(ParamOp):
    name, ops, a65 = "dequant", sk.ops.dequant, sk.a65.dequant
    float_dtypes, float_port, scale_name = (F32, BF16), "output", "scale"
    plan_attrs = ("form",)
    variants = {"f32": (I8, F32), "bf16": (I8, BF16)}
    ok_params = sk.ops.dequant.Params(0.25, -3)
    invalid_zero_points = (2**31, -(2**31) - 1, 2**63, 1.5, 1.0, True, False, "3", None, np.float32(2.0),
                           np.uint64(2**32))
    integer_zero_points = ((np.int8(-128), -128), (np.int32(-(2**31)), -(2**31)), (np.int64(2**31 - 1), 2**31 - 1),
                           (np.uint8(200), 200), (np.int16(16777), 16777), (np.uint32(16777217), 16777217),
                           (2**31 - 1, 2**31 - 1), (-(2**31), -(2**31)))
    # A subnormal scale keeps the staged conversion: the wide form.
    subnormal_params = sk.ops.dequant.Params.from_bits(0x00000001, 16777217)
    subnormal_plan = {"form": "wide"}
    framed_params = (0x4037CED9, 16777089)
    reuse_params = (0x40800000, -16777089)   # wide_pow2

    def entry(self, route, dtype, params, shape, in_strides=None, out_strides=None):
        plan = ok_plan(dequant_request(shape, dtype, *params, in_strides, out_strides), route)

        def draw(n, seed):
            values = random_int8(n, seed)
            return values, oracle_dequant(values, dtype, *params)
        return Entry(f"{dtype.name} {params}", plan, I8, dtype, tuple(shape), in_strides, out_strides, draw)

    def rows_entry(self, route, pair, params, shape=ROWS, in_row=41, out_row=40):
        return self.entry(route, pair[1], params, shape, row_strides(I8, in_row), row_strides(pair[1], out_row))

    # FP environment: parameters whose arithmetic would raise each exception
    # (the zero point 16777217 converts inexactly; 2^31 * max-finite
    # overflows; a subnormal scale gives tiny products from a denormal
    # operand); one plan per (dtype, params), no rounding modes.
    trap_inexact, trap_overflow, trap_tiny = (0x4037CED9, 16777217), (0x7F7FFFFF, -(2**31)), (0x00000001, 0)
    fenv_modes = 1

    def trap_params(self, state):
        """Parameters whose arithmetic would raise what ``state`` enables."""
        traps = set(state["traps"])
        if state["flush_to_zero"] or state["denormals_are_zero"] or traps & {Trap.UNDERFLOW, Trap.INPUT_DENORMAL}:
            return self.trap_tiny
        return self.trap_overflow if traps == {Trap.OVERFLOW} else self.trap_inexact

    def fenv_entry(self, route, dtype, params, k, shape, in_el=None, out_el=None):
        return self.entry(route, dtype, params, shape, byte_strides(in_el, I8), byte_strides(out_el, dtype))

    thread_groups = ("f32", "bf16")

    def thread_entries(self, route, group):
        entry = self.rows_entry(route, self.variants[group], (0x4037CED9, -123), (17, 67), 70, 68)
        return [entry], 30

    shared_groups = ("bf16",)

    def shared_entries(self, group):
        params = (0x3F800000, 16777217)
        values = random_int8(40, 5)
        shared = self.ops.check_inference(dequant_request((40,), BF16, *params))
        return [(shared, {"form": "wide_unit"}, I8, BF16, 40, values, oracle_dequant(values, BF16, *params))]


class QuantOp(ParamOp):
    name, ops, a65 = "quant", sk.ops.quant, sk.a65.quant
    float_dtypes, float_port, scale_name = (F32, BF16, F16), "input", "multiplier"
    variants = {"f32": (F32, I8), "bf16": (BF16, I8), "f16": (F16, I8)}
    ok_params = sk.ops.quant.Params(0.25, -3)
    invalid_zero_points = (128, -129, 255, 2**31, -(2**63), 1.5, 1.0, -0.0, True, False, np.True_, "3", None,
                           np.float32(2.0), np.int16(128), np.uint8(200), np.int64(-129))
    integer_zero_points = ((np.int8(-128), -128), (np.int64(127), 127), (np.uint8(5), 5), (np.int32(-100), -100),
                           (np.int16(-128), -128), (np.uint64(127), 127), (-128, -128), (127, 127), (0, 0))
    subnormal_params = sk.ops.quant.Params.from_bits(0x00000001, 127, "toward_negative")
    subnormal_plan = {}
    framed_params = (QUANT_M, QUANT_ZP, "toward_positive")
    reuse_params = (QUANT_M, QUANT_ZP, "toward_negative")
    reuse_in_excess = 2

    def entry(self, route, dtype, params, shape, in_strides=None, out_strides=None, values=None):
        """``values(n, seed)``: input patterns (default: useful values with
        block-repairing lanes)."""
        m, zp, mode = params
        values = values or (lambda n, seed: quant_exceptional(dtype, n, seed))
        plan = quant_plan(quant_request(shape, dtype, m, zp, mode, in_strides, out_strides), route)

        def draw(n, seed):
            v = values(n, seed)
            return v, oracle(dtype, v, m, zp, mode).view(np.uint8)
        return Entry(f"{dtype.name} {mode}", plan, dtype, I8, tuple(shape), in_strides, out_strides, draw)

    def rows_entry(self, route, pair, params, shape=ROWS, in_row=40, out_row=41):
        return self.entry(route, pair[0], params, shape, row_strides(pair[0], in_row), row_strides(I8, out_row))

    # FP environment: an inexact multiplier over inputs holding a signaling
    # NaN and subnormals; overflowing products; tiny products from normal
    # and subnormal inputs.  Plans take each rounding mode in turn.
    trap_inexact, trap_overflow, trap_tiny = (0x3E99999A, -3), (0x7F7FFFFF, 0), (pow2(-126), 5)
    fenv_modes = len(MODES)

    def trap_params(self, state):
        """Parameters whose arithmetic would raise what ``state`` enables
        (denormals-are-zero alone is allowed: it raises nothing here)."""
        traps = set(state["traps"])
        if state["flush_to_zero"] or traps & {Trap.UNDERFLOW, Trap.INPUT_DENORMAL}:
            return self.trap_tiny
        return self.trap_overflow if traps == {Trap.OVERFLOW} else self.trap_inexact

    def fenv_entry(self, route, dtype, params, k, shape, in_el=None, out_el=None):
        """The ``k``-th rounding mode (cyclically) and useful values."""
        m, zp = params
        return self.entry(route, dtype, (m, zp, MODES[k % len(MODES)]), shape, byte_strides(in_el, dtype),
                          byte_strides(out_el, I8), values=lambda n, seed: useful_values(dtype, n, seed, m))

    # One test per route shares all twelve (input dtype, rounding) plans.
    thread_groups = ("every-entry",)

    def thread_entries(self, route, group):
        return [self.rows_entry(route, (src, I8), (QUANT_M, QUANT_ZP, mode), (9, 67), 70, 70)
                for src in self.float_dtypes for mode in MODES], 6

    shared_groups = MODES

    def shared_entries(self, mode):
        entries = []
        for dtype in self.float_dtypes:
            values = quant_exceptional(dtype, 77, 5)
            expected = oracle(dtype, values, QUANT_M, QUANT_ZP, mode).view(np.uint8)
            shared = self.ops.check_inference(quant_request((77,), dtype, QUANT_M, QUANT_ZP, mode))
            entries.append((shared, {}, dtype, I8, 77, values, expected))
        return entries


CAST, DEQUANT, QUANT = CastOp(), DequantOp(), QuantOp()
OPS = (CAST, DEQUANT, QUANT)
PARAM_OPS = (DEQUANT, QUANT)


def op_variants(ops=OPS):
    """(op, variant id) pairs for parametrize."""
    return [(op, v) for op in ops for v in op.variants]


# ------------------------------------------------------------------ layouts

# Named layouts for Dequant and Quant traversal: (id, shape, input strides,
# output strides), strides in elements (so bytes on the INT8 port), None =
# Contiguous().
LAYOUTS = [
    ("rank0", (), None, None),
    ("rank0-strided", (), (), ()),
    ("single-odd-strides", (1,), (7,), (13,)),
    ("stepped-in", (37,), (3,), None),
    ("stepped-out", (37,), None, (3,)),
    ("stepped-both", (37,), (5,), (2,)),
    ("padded-rows", (5, 17), (20, 1), (19, 1)),
    ("transposed-in", (6, 9), (1, 6), None),
    ("transposed-out", (6, 9), None, (1, 6)),
    ("transposed-both", (6, 9), (1, 6), (1, 6)),
    ("transposed-padded", (6, 9), (1, 8), (1, 7)),
    ("perm-3d-different", (3, 4, 5), (20, 1, 4), (1, 15, 3)),
    ("perm-3d-reversed", (3, 4, 5), (1, 3, 12), (1, 3, 12)),
    ("partial-coalesce", (2, 3, 4), (13, 4, 1), (12, 4, 1)),
    ("long-rows-permuted", (3, 140), (1, 3), (140, 1)),
    ("long-rows-transposed-both", (3, 140), (1, 3), (1, 3)),
    ("singleton-middle", (4, 1, 6), (6, 99, 1), (6, 5, 1)),
    ("rank6-permuted-padded", (2, 3, 1, 2, 3, 2), (5, 34, 999, 3, 12, 1), (1, 2, 0, 6, 12, 40)),
    ("rank6-dense", (2, 3, 1, 2, 3, 2), None, None),
    ("rank6-long-inner", (1, 2, 1, 1, 2, 70), None, (300, 150, 7, 7, 75, 1)),
    ("empty-middle", (3, 0, 2), (8, 0, 1), (2, 0, 1)),
]
LAYOUT_IDS = [layout[0] for layout in LAYOUTS]


def byte_strides(elements, dtype):
    """Element strides (None = Contiguous()) as byte strides of ``dtype``."""
    return None if elements is None else tuple(s * ITEMSIZE[dtype] for s in elements)


# ------------------------------------------------------------------ admission


def admit_everywhere(op, req):
    shared = op.ops.check_inference(req)
    return shared, [op.a65.check_inference(req, route=r) for r in ROUTES]


def assert_rejected(op, req, code, *fragments):
    """The backend-neutral and every route's admission agree on ``code``."""
    shared, per_route = admit_everywhere(op, req)
    for result in [shared, *per_route]:
        assert isinstance(result, sk.Error), f"expected {code.name}, got a plan: {result}"
        assert result.code == code, f"expected {code.name}, got {result}"
        for fragment in fragments:
            assert fragment in result.message, f"{fragment!r} not named in {result.message!r}"
    return shared


def assert_accepted(op, req, in_need, out_need):
    """Admitted everywhere, prepare agreeing with check_inference per route,
    every plan with exactly these requirements."""
    shared, per_route = admit_everywhere(op, req)
    assert isinstance(shared, op.ops.Plan), shared
    for route, plan in zip(ROUTES, per_route):
        assert isinstance(plan, op.a65.Plan), plan
        assert plan.route == route
        prepared = op.a65.prepare(shared, route=route)
        assert isinstance(prepared, op.a65.Plan) and prepared.route == route
        for attribute in op.plan_attrs:
            assert getattr(prepared, attribute) == getattr(plan, attribute), attribute
        for p in (shared, plan, prepared):
            assert p.input_requirements() == (sk.Requirement(*in_need),)
            assert p.output_requirements() == (sk.Requirement(*out_need),)
    return shared


def assert_invalid_operation(result):
    assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result


# ------------------------------------------------------------------ array layer


def raises_kernel_error(code, fn, *args, **kwargs):
    """``fn`` raises a KernelError of ``code`` carrying the same sk.Error."""
    with pytest.raises(sk.KernelError) as info:
        fn(*args, **kwargs)
    assert info.value.code == code, f"expected {code.name}, got {info.value}"
    assert isinstance(info.value.error, sk.Error) and info.value.error.code == code
    return info.value
