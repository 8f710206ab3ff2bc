"""Fuzzing the Python-facing entry points (issue 9, docs/RELIABILITY.md).

* Admission of all three operations (shared, every A65 route, EV74) over
  random arities, ranks 0..7, extents (0, 1, small, huge, negative), layouts
  (strides zero, negative, overlapping, huge, not multiples of the element,
  of the wrong count), dtypes and parameters (NaN/inf/subnormal/negative/zero
  scales, zero points out of range or of the wrong type, wrong params
  types): the result is an ``sk.Error`` whose code is one of the rules the
  request violates (stated here independently from the documented rules and the
  specification) and whose message names the port or field, or a plan whose
  requirements are exactly the bytes its elements address (computed here,
  and checked pairwise disjoint for small tensors).  Never an exception.
* Binding: prepared plans of every op on every route against random
  addresses, view lengths, alignments, overlaps, null and out-of-range raw
  addresses, read-only outputs: either the run is bit-exact against the
  oracle with every byte outside the output elements unchanged, or an Error
  (predicted here) with the whole arena unchanged.
* EV74: random regions into ``bind`` (verdict predicted here, the bound
  descriptor decoding to those addresses), and mutated bound packets into
  the host device model (an Error with device memory unchanged, or a
  completion that wrote only the decoded output elements).  Raw descriptor
  bytes against the reference validator are fuzzed in test_ev74_decoder.py.
* Hurray: ``dequantize`` over arbitrary data, counts, storage tags,
  descriptors and ``out`` arrays: bit-exact or a documented exception, with
  ``out`` unchanged on error.  Descriptor bytes are fuzzed in
  test_hurray_descriptor.py.

The example counts are small by default (the suite also runs under QEMU);
``SIMAKERNELS_FUZZ_EXAMPLES=N`` runs every property here N times (and, via
conftest, every property of the suite that has no count of its own).
"""
import os
import random

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import simakernels as sk
from support.ev74_helpers import mutate
from support.helpers import (
    BF16,
    F16,
    F32,
    I8,
    ROUTES,
    UINT,
    admissible_strides,
    contiguous_strides,
    element_offsets,
    oracle_bf16_to_f32,
    oracle_dequant,
    oracle_f32_to_bf16,
    small_shapes,
)
from support.hurray_helpers import ALL_STORAGE, H, ST
from support.hurray_helpers import expected as hurray_expected
from support.hurray_helpers import unpack as hurray_unpack
from support.quant_helpers import oracle as quant_oracle

E = sk.ErrorCode
INT64_MAX = (1 << 63) - 1
DOMAIN = 1 << 32


def examples(default: int) -> settings:
    """``default`` examples, or SIMAKERNELS_FUZZ_EXAMPLES for a campaign."""
    return settings(max_examples=int(os.environ.get("SIMAKERNELS_FUZZ_EXAMPLES", "0")) or default)


OPS = {
    "cast": (sk.ops.cast, sk.a65.cast, {(F32, BF16), (BF16, F32)}),
    "dequant": (sk.ops.dequant, sk.a65.dequant, {(I8, F32), (I8, BF16)}),
    "quant": (sk.ops.quant, sk.a65.quant, {(F32, I8), (BF16, I8), (F16, I8)}),
}
ALL_DTYPES = tuple(sk.DType)
QUANT_MODES = tuple(sk.ops.quant.Rounding)

# ===================================================================== admission

HUGE = [2**31, 2**32, 2**62, INT64_MAX, 2**63, 2**64, 2**70]
extents = st.one_of(st.sampled_from([0, 1, 1, 2, 2, 3, 4, 5]), st.sampled_from([-1, -(2**63)] + HUGE),
                    st.integers(-(2**66), 2**66))
float_values = st.one_of(
    st.sampled_from([float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1e-45, 1.4e-45, 1e-46, -1.0, 0.25,
                     1.0, 3.0e38, 3.5e38, 1e39, 2**-149, 2**-150, 2**-126, 7, -3, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(0, 2**32 - 1).map(lambda b: np.array(b, np.uint32).view(np.float32)[()]),
)
zero_points = st.one_of(st.integers(-130, 130), st.sampled_from([-(2**31), 2**31 - 1, -(2**31) - 1, 2**31, 2**64]),
                        st.sampled_from([1.5, "3", None, True, np.int64(5), np.int8(-128), np.uint32(7)]))


@st.composite
def layouts(draw, shape, item):
    """Contiguous, admissible strides (helpers.admissible_strides) or wild
    ones: a wrong count, zero, negative, overlapping, huge, not multiples."""
    if draw(st.integers(0, 2)):
        strides = draw(admissible_strides(shape, item))
        return (sk.Contiguous(), None) if strides is None else (sk.Strided(strides), strides)
    rank = len(shape)
    n = max(0, rank + draw(st.sampled_from([0, 0, 0, 0, 0, -1, 1])))
    base = [item * draw(st.integers(0, 40)) for _ in range(n)]
    strides = [draw(st.one_of(st.just(s), st.just(s), st.sampled_from([0, -item, -1, 1, 3, item + 1]),
                              st.sampled_from(HUGE), st.integers(-(2**65), 2**65))) for s in base]
    return sk.Strided(strides), tuple(strides)


@st.composite
def params_for(draw, op):
    if draw(st.integers(0, 19)) == 0:  # a wrong params object
        return draw(st.sampled_from([None, 1.0, "params", sk.ops.cast.Params(), sk.ops.dequant.Params(1.0),
                                     sk.ops.quant.Params(1.0)]))
    if op == "cast":
        return sk.ops.cast.Params()
    if draw(st.booleans()):   # valid values, to reach the layout rules
        value, zp = draw(st.floats(1e-30, 1e30)), draw(st.integers(-128, 127))
    else:
        value, zp = draw(float_values), draw(zero_points)
    try:
        if op == "dequant":
            return sk.ops.dequant.Params(value, zp)
        return sk.ops.quant.Params(value, zp, draw(st.sampled_from(QUANT_MODES + ("toward_zero",))))
    except (TypeError, ValueError):  # the constructors' own documented refusals
        return None


@st.composite
def admission_cases(draw):
    op = draw(st.sampled_from(sorted(OPS)))
    pairs = sorted(OPS[op][2], key=str)
    rank = draw(st.sampled_from([0, 1, 2, 3, 4, 5, 6] * 3 + [7]))
    wild = draw(st.integers(0, 2)) == 0          # extents beyond the small ones
    shape = [draw(extents if wild else st.integers(0, 5)) for _ in range(rank)]
    ports = []
    for role in ("input", "output"):
        count = draw(st.sampled_from([1] * 14 + [0, 2]))
        for _ in range(count):
            if draw(st.integers(0, 11)) == 0:
                dtype = draw(st.sampled_from(ALL_DTYPES))
            else:
                dtype = draw(st.sampled_from(pairs))[0 if role == "input" else 1]
            port_shape = list(shape)
            if role == "output" and draw(st.integers(0, 11)) == 0:  # another rank or extent
                if port_shape and draw(st.booleans()):
                    port_shape[draw(st.integers(0, len(port_shape) - 1))] = draw(extents)
                else:
                    port_shape = port_shape + [draw(extents)] if draw(st.booleans()) else port_shape[:-1]
            layout, strides = draw(layouts(tuple(port_shape), dtype.itemsize))
            ports.append((role, tuple(port_shape), dtype, layout, strides))
    return op, ports, draw(params_for(op))


def _proof_error(shape, strides, item):
    """The specification's conservative sorted-axis proof (active axes by
    stride, each clearing the faster axes' span)."""
    covered = item
    for stride, extent in sorted((s, e) for e, s in zip(shape, strides) if e > 1):
        if stride < covered:
            return True
        covered += (extent - 1) * stride
    return False


def expected_verdict(op, specs_in, specs_out, params):
    """{code: tokens the message may name} of every rule the request
    violates (empty: admissible), and the requirement of each port."""
    bad = {}

    def violation(code, *tokens):
        bad.setdefault(code, set()).update(tokens)

    module = OPS[op][0]
    if not isinstance(params, module.Params):
        violation(E.INVALID_PARAMS, "params")
    elif op != "cast":
        bits = params.scale_bits if op == "dequant" else params.multiplier_bits
        if bits >> 31 or (bits >> 23) & 0xFF == 0xFF or bits == 0:
            violation(E.INVALID_PARAMS, "scale" if op == "dequant" else "multiplier")
        low, high = (-(2**31), 2**31 - 1) if op == "dequant" else (-128, 127)
        zp = params.zero_point
        if isinstance(zp, bool) or not isinstance(zp, int) or not low <= zp <= high:
            violation(E.INVALID_PARAMS, "zero_point")
    if len(specs_in) != 1 or len(specs_out) != 1:
        violation(E.INVALID_ARITY, "input", "output")
        return bad, None
    (src,), (dst,) = specs_in, specs_out
    if (src.dtype, dst.dtype) not in OPS[op][2]:
        violation(E.UNSUPPORTED_DTYPE, src.dtype.name)
    for name, spec in (("input 0", src), ("output 0", dst)):
        if any(e < 0 for e in spec.shape):
            violation(E.INVALID_SHAPE, name)
    if src.shape != dst.shape:
        violation(E.INVALID_SHAPE, "output 0")
    if bad.get(E.INVALID_SHAPE):
        return bad, None
    if any(e > INT64_MAX for e in src.shape):
        violation(E.OVERFLOW, "input 0")
    if bad.get(E.OVERFLOW):
        return bad, None
    count = 0 if 0 in src.shape else int(np.prod(src.shape, dtype=object)) if src.shape else 1
    if count > INT64_MAX:
        return {**bad, E.OVERFLOW: bad.get(E.OVERFLOW, set()) | {"input 0"}}, None
    needs = []
    for name, spec in (("input 0", src), ("output 0", dst)):
        item = spec.dtype.itemsize
        if isinstance(spec.layout, sk.Contiguous):
            strides = contiguous_strides(spec.shape, item)
            if count and item * count > INT64_MAX:
                violation(E.OVERFLOW, name)
                continue
        else:
            strides = spec.layout.strides
            if len(strides) != len(spec.shape):
                violation(E.UNSUPPORTED_LAYOUT, name)
                continue
            port_bad = False
            for e, s in zip(spec.shape, strides):
                if s < 0 or s % item or (count and e > 1 and s == 0):
                    violation(E.UNSUPPORTED_LAYOUT, name)
                    port_bad = True
                if s > INT64_MAX:
                    violation(E.OVERFLOW, name)
                    port_bad = True
            if port_bad:
                continue
        if count == 0:
            needs.append(sk.Requirement(0, item))
            continue
        nbytes = item + sum((e - 1) * s for e, s in zip(spec.shape, strides) if e > 1)
        if nbytes > INT64_MAX:
            violation(E.OVERFLOW, name)
        elif _proof_error(spec.shape, strides, item):
            violation(E.UNSUPPORTED_LAYOUT, name)
        needs.append(sk.Requirement(nbytes, item))
    return bad, (needs if not bad else None)


def _assert_error(result, bad, what):
    assert isinstance(result, sk.Error), f"{what}: expected an Error for {sorted(bad)}, got {result!r}"
    assert result.code in bad, f"{what}: {result} is none of the violated rules {sorted(c.name for c in bad)}"
    assert isinstance(result.message, str)
    assert any(token in result.message for token in bad[result.code]), \
        f"{what}: {result.message!r} names none of {sorted(bad[result.code])}"


def _assert_disjoint(shape, strides, item, nbytes, what):
    """Small tensors: every element has its own bytes, the last ends at nbytes."""
    offsets = np.sort(element_offsets(shape, strides))
    assert np.all(np.diff(offsets) >= item), f"{what}: admitted overlapping elements {shape} {strides}"
    assert int(offsets[-1]) + item == nbytes, f"{what}: requirement {nbytes} is not the last element's end"


@pytest.mark.host_only  # (conftest.HOST_ONLY: pure-Python admission)
@examples(300)
@given(admission_cases(), st.sampled_from(ROUTES))
def test_admission_is_a_consistent_plan_or_an_error(case, route):
    op, ports, params = case
    specs = {"input": [], "output": []}
    for role, shape, dtype, layout, _strides in ports:
        if len(shape) > sk.core.MAX_RANK:
            with pytest.raises(ValueError, match="rank"):
                sk.TensorSpec(shape, dtype, layout)
            return
        specs[role].append(sk.TensorSpec(shape, dtype, layout))
    shared_module, a65_module, _ = OPS[op]
    request = shared_module.Request(specs["input"], specs["output"], params)
    bad, needs = expected_verdict(op, specs["input"], specs["output"], params)

    shared = shared_module.check_inference(request)
    event(f"admission: {shared.code.name if isinstance(shared, sk.Error) else 'plan'}")
    backend = a65_module.check_inference(request, route=route)
    if bad:
        _assert_error(shared, bad, op)
        assert backend == shared, f"{route}: {backend} differs from the shared {shared}"
    else:
        assert isinstance(shared, shared_module.Plan), f"{op}: admissible request refused: {shared}"
        assert isinstance(backend, a65_module.Plan) and backend.route == route, backend
        for plan in (shared, backend, a65_module.prepare(shared, route=route)):
            assert plan.input_requirements() == (needs[0],), (plan.input_requirements(), needs)
            assert plan.output_requirements() == (needs[1],), (plan.output_requirements(), needs)
        (src,), (dst,) = specs["input"], specs["output"]
        count = int(np.prod(src.shape, dtype=object)) if src.shape else 1
        assert shared.count == count and shared.shape == src.shape
        if 0 < count <= 4096:
            for spec, need in ((src, needs[0]), (dst, needs[1])):
                strides = (contiguous_strides(spec.shape, spec.dtype.itemsize)
                           if isinstance(spec.layout, sk.Contiguous) else spec.layout.strides)
                _assert_disjoint(spec.shape, strides, spec.dtype.itemsize, need.nbytes, op)
    if op == "quant":
        device = sk.ev74.quant.check_inference(request)
        if bad:
            assert device == shared, device
        elif any(e >= DOMAIN for e in src.shape) or any(n.nbytes >= DOMAIN for n in needs):
            assert isinstance(device, sk.Error) and device.code == E.DEVICE_LIMIT, device
        else:
            assert isinstance(device, sk.ev74.quant.Plan), device
            assert sk.ev74.quant.decode(sk.ev74.quant.encode_relocatable(device).descriptor).count == count


@examples(100)
@given(st.sampled_from([None, 3, "request", sk.ops.cast.Request([], []), object()]), st.sampled_from(sorted(OPS)))
def test_admission_of_foreign_objects_is_invalid_operation(value, op):
    shared_module, a65_module, _ = OPS[op]
    if isinstance(value, shared_module.Request):
        return
    for result in (shared_module.check_inference(value), a65_module.check_inference(value),
                   a65_module.prepare(value)):
        assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION, result


# ======================================================================= binding

ARENA = 1 << 16       # bytes; both views of a case live in one arena
OUT_FILL = 0xA5



def _layout(strides):
    """A port's layout: strided when strides were drawn, else contiguous."""
    return sk.Strided(strides) if strides is not None else sk.Contiguous()


@st.composite
def prepared_plans(draw):
    op = draw(st.sampled_from(sorted(OPS)))
    src_dtype, dst_dtype = draw(st.sampled_from(sorted(OPS[op][2], key=str)))
    shape = draw(small_shapes(max_rank=4))
    si = draw(admissible_strides(shape, src_dtype.itemsize))
    so = draw(admissible_strides(shape, dst_dtype.itemsize))
    if op == "cast":
        params = sk.ops.cast.Params()
    else:
        bits = draw(st.one_of(st.sampled_from([0x3F800000, 0x3E800000, 0x00000001, 0x7F7FFFFF, 0x3DCCCCCD]),
                              st.integers(1, 0x7F7FFFFF)))
        if op == "dequant":
            params = sk.ops.dequant.Params.from_bits(bits, draw(st.integers(-200, 200)))
        else:
            params = sk.ops.quant.Params.from_bits(bits, draw(st.integers(-128, 127)),
                                                   draw(st.sampled_from(QUANT_MODES)))
    request = OPS[op][0].Request([sk.TensorSpec(shape, src_dtype, _layout(si))],
                                 [sk.TensorSpec(shape, dst_dtype, _layout(so))], params)
    route = draw(st.sampled_from(ROUTES))
    plan = OPS[op][1].check_inference(request, route=route)
    assert not isinstance(plan, sk.Error), plan
    si = si if si is not None else contiguous_strides(shape, src_dtype.itemsize)
    so = so if so is not None else contiguous_strides(shape, dst_dtype.itemsize)
    return op, plan, shape, (src_dtype, si), (dst_dtype, so)


@st.composite
def views(draw, need, alignment, half):
    """(kind, offset in the arena or raw address, length) of one view:
    mostly an aligned view of the needed length in its half of the arena,
    else any offset, a short or long length, a null or wild raw address."""
    kind = draw(st.sampled_from(["array"] * 3 + ["raw"] * 3 + ["readonly", "const", "bytes", "null", "wild"]))
    if kind == "wild":   # raw values the binding rules refuse whatever the plan needs
        return draw(st.sampled_from([
            (kind, draw(st.sampled_from([-1, 2**64, 2**70])), draw(st.sampled_from([0, need, 2**64]))),
            (kind, draw(st.sampled_from([1, 3, 2**63, 2**64 - 1])), draw(st.sampled_from([-1, 2**63, 2**64]))),
            (kind, 2**64 - 1, need + 1),     # wraps whenever anything is accessed
        ]))
    if draw(st.integers(0, 3)):
        offset = half * ARENA // 2 + alignment * draw(st.integers(0, (ARENA // 2 - need) // alignment))
        length = need + draw(st.sampled_from([0, 0, 0, 1, 64]))
    else:
        offset = draw(st.one_of(st.integers(0, ARENA - 1), st.integers(0, 64)))
        length = max(0, need + draw(st.sampled_from([0, 1, 7, -1, -2, -need])))
    return kind, offset, length


def _make_view(arena, address0, kind, offset, length, writable):
    if kind == "null":
        return (sk.HostBuffer if writable else sk.ConstHostBuffer).from_address(0, length), 0, length
    if kind == "wild":
        return (sk.HostBuffer if writable else sk.ConstHostBuffer).from_address(offset, length), offset, length
    length = min(length, ARENA - offset)
    piece = arena[offset:offset + length]
    address = address0 + offset
    if kind == "array":
        return piece, address, length
    if kind == "raw":
        return (sk.HostBuffer if writable else sk.ConstHostBuffer).from_address(address, length, arena), address, length
    if kind == "readonly":
        ro = piece.view()
        ro.flags.writeable = False
        return ro, address, length
    if kind == "const":
        return sk.ConstHostBuffer(piece), address, length
    data = piece.tobytes()  # a read-only copy: its own address
    return data, sk.ConstHostBuffer(data).address, length


def _view_fault(address, length, need, alignment):
    """The fault of one view (the documented binding rules), or ''."""
    if not 0 <= address < 2**64 or length < 0 or length > INT64_MAX:
        return "out of range"
    if need == 0:
        return ""
    for fault, present in (("null", address == 0), ("short", length < need),
                           ("wraps", address + length > 2**64), ("misaligned", address % alignment != 0)):
        if present:
            return fault
    return ""


def _oracle(op, plan, src_dtype, bits):
    if op == "cast":
        return oracle_f32_to_bf16(bits) if src_dtype is F32 else oracle_bf16_to_f32(bits)
    params = plan.shared.params
    if op == "dequant":
        dst_dtype = plan.shared.admitted.outputs[0].dtype
        return oracle_dequant(bits, dst_dtype, params.scale_bits, params.zero_point)
    return quant_oracle(src_dtype, bits, params.multiplier_bits, params.zero_point,
                        params.rounding.name.lower()).view(np.uint8)


@examples(300)
@given(prepared_plans(), st.data())
def test_binding_is_bit_exact_or_an_error_that_writes_nothing(case, data):
    op, plan, shape, (src_dtype, si), (dst_dtype, so) = case
    (need_in,), (need_out,) = plan.input_requirements(), plan.output_requirements()
    arena = np.frombuffer(bytearray(ARENA + 64), np.uint8)
    address0 = -sk.ConstHostBuffer(arena).address % 64
    arena = arena[address0:address0 + ARENA]
    address0 = sk.ConstHostBuffer(arena).address
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    arena[:] = rng.integers(0, 256, ARENA, dtype=np.uint16).astype(np.uint8)

    in_kind, in_off, in_len = data.draw(views(need_in.nbytes, need_in.alignment, 0))
    out_kind, out_off, out_len = data.draw(views(need_out.nbytes, need_out.alignment, 1))
    arena_views = in_kind not in ("wild", "null") and out_kind not in ("wild", "null")
    if arena_views and data.draw(st.integers(0, 7)) == 0:   # the output near the input: overlaps
        out_off = min(ARENA - 1, max(0, in_off + data.draw(st.integers(-need_out.nbytes - 4, need_in.nbytes + 4))))
    src, a, in_len = _make_view(arena, address0, in_kind, in_off, in_len, False)
    out_offsets = element_offsets(shape, so)
    if out_kind not in ("wild", "null"):
        dst_area = arena[out_off:out_off + min(out_len, ARENA - out_off)]
        dst_area[:] = OUT_FILL  # sentinel output (may overwrite input bytes: they are read after)
    dst, b, out_len = _make_view(arena, address0, out_kind, out_off, out_len, True)
    if in_kind == "bytes":  # the copy was taken before the sentinel fill: refresh it
        src = arena[in_off:in_off + in_len].tobytes()
        a = sk.ConstHostBuffer(src).address
    before = arena.copy()
    in_bytes = bytes(src) if in_kind == "bytes" else None

    fault = (_view_fault(a, in_len, need_in.nbytes, need_in.alignment)
             or _view_fault(b, out_len, need_out.nbytes, need_out.alignment)
             or ("read-only" if out_kind in ("readonly", "const", "bytes") else "")
             or ("overlap" if need_in.nbytes and need_out.nbytes and a < b + need_out.nbytes
                 and b < a + need_in.nbytes else ""))
    status = OPS[op][1].execute(plan, [src], [dst])
    event(f"binding: {fault or 'runs'}")
    what = f"{op} {plan.route} {shape} in {in_kind}@{in_off}+{in_len} out {out_kind}@{out_off}+{out_len}"
    if fault:
        assert isinstance(status, sk.Error) and status.code in (E.INVALID_BINDING, E.OVERFLOW), f"{what}: {status}"
        assert np.array_equal(arena, before), f"{what}: refused, yet arena bytes changed"
        return
    assert status is None, f"{what}: {status}"
    if not shape or 0 not in shape:
        in_at = element_offsets(shape, si)
        raw = np.frombuffer(in_bytes, np.uint8) if in_bytes is not None else before[in_off:]
        item, out_item = src_dtype.itemsize, dst_dtype.itemsize
        bits = np.stack([raw[in_at + k] for k in range(item)], axis=-1).copy().view(UINT[src_dtype]).reshape(-1)
        want = np.asarray(_oracle(op, plan, src_dtype, bits)).astype(UINT[dst_dtype])
        want = want.view(np.uint8).reshape(-1, out_item)
        expected = before.copy()
        for k in range(out_item):
            expected[out_off + out_offsets + k] = want[:, k]
        before = expected
    diff = np.flatnonzero(arena != before)
    assert diff.size == 0, f"{what}: {diff.size} bytes differ from the oracle/sentinel, first at {diff[:8]}"


# ========================================================================== EV74

_DEVICE = None


def device():
    global _DEVICE
    if _DEVICE is None:
        _DEVICE = sk.ev74.Device(size=1 << 16, base=0x1000_0000, workgroups=3)
    return _DEVICE


@pytest.fixture(scope="module", autouse=True)
def _close_device():
    yield
    if _DEVICE is not None:
        _DEVICE.close()


@st.composite
def ev74_plans(draw):
    dtype = draw(st.sampled_from([F32, BF16, F16]))
    shape = draw(small_shapes(max_rank=4))
    si, so = draw(admissible_strides(shape, dtype.itemsize)), draw(admissible_strides(shape, 1))
    params = sk.ops.quant.Params.from_bits(draw(st.integers(1, 0x7F7FFFFF)), draw(st.integers(-128, 127)),
                                           draw(st.sampled_from(QUANT_MODES)))
    request = sk.ops.quant.Request([sk.TensorSpec(shape, dtype, _layout(si))],
                                   [sk.TensorSpec(shape, I8, _layout(so))], params)
    plan = sk.ev74.quant.check_inference(request)
    assert isinstance(plan, sk.ev74.quant.Plan), plan
    return plan


wild_addresses = st.one_of(st.integers(0, 2**32 + 64), st.sampled_from([0, 1, 2, 2**32 - 1, 2**32, 2**64, -4]),
                           st.sampled_from([1.5, True, None, "0x1000"]))
wild_capacities = st.one_of(st.integers(0, 5000), st.sampled_from([-1, 2**32, 2**64, True, 2.0, None]))


@st.composite
def device_regions(draw, need, base):
    """Mostly aligned regions of the needed capacity near ``base`` (so that
    input and output sometimes overlap), else wild addresses or capacities."""
    if draw(st.integers(0, 3)):
        address = base + need.alignment * draw(st.integers(0, 8192 // need.alignment))
    else:
        address = draw(wild_addresses)
    if draw(st.integers(0, 3)):
        capacity = need.nbytes + draw(st.sampled_from([0, 0, 1, 100, -1]))
    else:
        capacity = draw(wild_capacities)
    return address, capacity


@pytest.mark.host_only  # (conftest.HOST_ONLY: the EV74 codec and device model, host-checked)
@examples(300)
@given(ev74_plans(), st.data())
def test_ev74_bind_is_a_valid_bound_packet_or_an_error(plan, data):
    packet = sk.ev74.quant.encode_relocatable(plan)
    (need_in,), (need_out,) = plan.input_requirements(), plan.output_requirements()
    ia, ic = data.draw(device_regions(need_in, 0x1000_0000))
    oa, oc = data.draw(device_regions(need_out, 0x1000_0000 + data.draw(st.sampled_from([0, 4096, 8192]))))
    bound = sk.ev74.quant.bind(packet, plan, [sk.ev74.DeviceRegion(ia, ic)], [sk.ev74.DeviceRegion(oa, oc)])

    def fault(address, capacity, need):
        for v in (address, capacity):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                return True
        return address == 0 or capacity < need.nbytes or address + need.nbytes > DOMAIN or address % need.alignment

    if plan.shared.empty:
        assert isinstance(bound, sk.ev74.quant.BoundPacket), bound
        assert bound.descriptor == packet.descriptor   # no addresses: nothing is submitted
        return
    refused = (fault(ia, ic, need_in) or fault(oa, oc, need_out)
               or (ia < oa + need_out.nbytes and oa < ia + need_in.nbytes))
    event(f"ev74 bind: {'refused' if refused else 'bound'}")
    if refused:
        assert isinstance(bound, sk.Error), f"bound {ia}/{ic} {oa}/{oc} for {need_in}, {need_out}"
        assert bound.code in (E.INVALID_BINDING, E.DEVICE_LIMIT), bound
        return
    assert isinstance(bound, sk.ev74.quant.BoundPacket), bound
    desc = sk.ev74.quant.decode(bound.descriptor)
    assert isinstance(desc, sk.ev74.quant.Descriptor) and desc.bound, desc
    assert (desc.input_address, desc.output_address) == (ia, oa)
    assert bound.descriptor[:24] == packet.descriptor[:24] and bound.descriptor[40:] == packet.descriptor[40:]


@pytest.mark.host_only  # (conftest.HOST_ONLY: the EV74 codec and device model, host-checked)
@examples(150)
@given(ev74_plans(), st.integers(0, 2**32 - 1))
def test_ev74_device_runs_mutated_packets_or_refuses_them(plan, seed):
    dev = device()
    (need_in,), (need_out,) = plan.input_requirements(), plan.output_requirements()
    rng = random.Random(seed)
    ia = dev.base + 64 * rng.randrange(0, 64)
    oa = dev.base + 32768 + rng.randrange(0, 64)
    bound = sk.ev74.quant.encode(plan, [sk.ev74.DeviceRegion(ia, need_in.nbytes)],
                                 [sk.ev74.DeviceRegion(oa, need_out.nbytes)])
    assert isinstance(bound, sk.ev74.quant.BoundPacket), bound
    data = mutate(rng, bound.descriptor) if rng.random() < 0.7 else bound.descriptor
    memory = np.random.default_rng(seed).integers(0, 256, dev.size, dtype=np.uint16).astype(np.uint8).tobytes()
    dev.write(dev.base, memory)
    packet = sk.ev74.quant.BoundPacket(data, bound.inputs, bound.outputs)
    try:
        result = dev.submit(packet).result(timeout=120)
    except Exception as exc:  # noqa: BLE001 - the finding itself
        pytest.fail(f"submit raised {type(exc).__name__}: {exc} for {data.hex()}")
    after = np.frombuffer(dev.read(dev.base, dev.size), np.uint8)
    before = np.frombuffer(memory, np.uint8)
    desc = sk.ev74.quant.decode(data)
    event(f"device: {'refused' if isinstance(result, sk.Error) else 'ran'}")
    if isinstance(result, sk.Error):
        assert np.array_equal(after, before), f"refused ({result}), yet device memory changed"
        return
    assert isinstance(result, sk.ev74.Completion), result
    if packet.empty:
        assert np.array_equal(after, before)
        return
    assert isinstance(desc, sk.ev74.quant.Descriptor) and desc.bound, desc
    written = desc.output_address - dev.base + element_offsets(desc.extents, desc.output_strides)
    outside = np.ones(dev.size, bool)
    outside[written] = False
    assert np.array_equal(after[outside], before[outside]), "bytes outside the decoded output elements changed"
    item = desc.conversion.itemsize
    in_at = desc.input_address - dev.base + element_offsets(desc.extents, desc.input_strides)
    bits = np.stack([before[in_at + k] for k in range(item)], axis=-1).copy().view(UINT[desc.conversion]).reshape(-1)
    want = quant_oracle(desc.conversion, bits, desc.multiplier_bits, desc.zero_point, desc.rounding.name.lower())
    assert np.array_equal(after[written], want.view(np.uint8)), "device results differ from the oracle"


# ======================================================================== Hurray

wild_storage_tags = st.one_of(st.integers(-2, 0x50), st.sampled_from([1.0, None, "INT8", True]))


@examples(300)
@given(st.binary(max_size=80), st.data(), st.integers(0, 3))
def test_hurray_dequantize_is_exact_or_refuses_without_writing(data, draw, out_kind):
    """Mostly valid storage tags, scales, zero points and counts (so that
    results are compared), else anything."""
    valid = draw.draw(st.integers(0, 3)) > 0
    storage = draw.draw(st.sampled_from(ALL_STORAGE) if valid else wild_storage_tags)
    scale_bits = draw.draw(st.integers(1, 0x7F7FFFFF).map(lambda b: b | draw.draw(st.sampled_from([0, 1 << 31])))
                           if valid else st.integers(0, 2**32 - 1))
    if isinstance(storage, ST) and valid:
        zero_point = draw.draw(st.integers(storage.range.start, storage.range.stop - 1))
    else:
        zero_point = draw.draw(st.integers(-(2**31), 2**31 - 1))
    count = draw.draw(st.one_of(st.none(), st.integers(0, 40)) if valid
                      else st.one_of(st.integers(-2, 400), st.sampled_from([True, 1.5])))
    try:
        descriptor = H.PerTensorAffine(np.array(scale_bits, np.uint32).view(np.float32)[()], zero_point)
    except (H.HurrayFormatError, ValueError, TypeError):
        return
    kind = storage if isinstance(storage, ST) else next((s for s in ALL_STORAGE if s.value == storage
                                                         and not isinstance(storage, (bool, float))), None)
    n_guess = len(data) * 8 // (kind.bits if kind else 8)
    n_out = n_guess if count is None or isinstance(count, bool) or not isinstance(count, int) else max(count, 0)
    out = None
    if out_kind:   # 1: the right array, 2: wrong length, 3: wrong dtype
        out = np.full(n_out + (out_kind == 2), 0xA5A5A5A5, np.uint32).view(np.float32)
        out = out.view(np.int32) if out_kind == 3 else out
    sentinel = None if out is None else out.copy()
    try:
        got = H.dequantize(data, descriptor, storage, count=count, out=out)
    except (H.HurrayFormatError, ValueError, TypeError, sk.KernelError) as exc:
        event(f"hurray: {type(exc).__name__}")
        if out is not None:
            assert np.array_equal(out.view(np.uint32), sentinel.view(np.uint32)), "refused, yet out changed"
        return
    event("hurray: exact")
    assert kind is not None, f"storage {storage!r} accepted"
    assert zero_point in kind.range and scale_bits & 0x7FFFFFFF and (scale_bits >> 23) & 0xFF != 0xFF
    values = hurray_unpack(data, kind, None if count is None else count)
    assert got.dtype == np.float32 and got.shape == values.shape and (out is None or got is out)
    want = hurray_expected(values, kind, scale_bits, zero_point)
    assert np.array_equal(got.view(np.uint32), np.asarray(want).view(np.uint32)), "hurray results differ"
