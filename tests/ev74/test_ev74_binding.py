"""EV74 preparation, binding and submission errors: device representability
(check_inference), encode_relocatable, bind/encode (capacity, alignment,
32-bit domain, aliasing, region types, arity, packet/plan mismatch), empty
requests and submissions the device must refuse.  Every failure is an
``sk.Error`` value, never an exception.

Also a property: for random admitted requests, the encoder's bytes equal
this suite's independent lowering (ev74_helpers.ref_fields + ref_pack) and
the native decoder accepts them.
"""
import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simakernels as sk
from support.ev74_helpers import (
    BF16,
    DOMAIN,
    F16,
    F32,
    I8,
    ITEM,
    MODES,
    Arena,
    DeviceRegion,
    ErrorCode,
    accessed_span,
    assert_descriptor_equal,
    assert_error,
    contiguous_strides,
    describe,
    ev,
    ev_plan,
    get_field,
    ok,
    quant_request,
    ref_fields,
    ref_pack,
    set_field,
    tensor_spec,
    untouched_problems,
)

A = 0x10000000


@pytest.fixture(scope="module")
def device():
    with sk.ev74.Device(size=1 << 20) as d:
        yield d


def plan_35(dtype=F32, **kw):
    """(3,5) contiguous: input span 15 * item, output span 15."""
    return ev_plan((3, 5), dtype, **kw)


def regions(in_addr, out_addr, in_cap=60, out_cap=15):
    return [DeviceRegion(in_addr, in_cap)], [DeviceRegion(out_addr, out_cap)]


# --------------------------------------------------------- check_inference


def test_request_and_shared_plan_give_the_same_packet():
    request = quant_request((2, 3), BF16, (12, 2), None, multiplier_bits=0x3E99999A, zero_point=9,
                            rounding="toward_positive")
    shared = ok(sk.ops.quant.check_inference(request))
    from_request = ok(ev.check_inference(request))
    from_plan = ok(ev.check_inference(shared))
    assert isinstance(from_request, ev.Plan) and isinstance(from_plan, ev.Plan)
    a = ok(ev.encode_relocatable(from_request)).descriptor
    b = ok(ev.encode_relocatable(from_plan)).descriptor
    assert_descriptor_equal(a, b, "request vs shared plan")
    assert from_plan.input_requirements() == shared.input_requirements()
    assert from_plan.output_requirements() == shared.output_requirements()


@pytest.mark.parametrize("shape,dtype,si,so,port", [
    ((2**31,), F32, None, None, "input 0"),
    ((2**30,), F32, None, None, "input 0"),                 # span exactly 2^32
    ((2**31,), BF16, None, None, "input 0"),                # span exactly 2^32
    ((2**31,), F16, None, None, "input 0"),
    ((2**32,), BF16, None, None, "32-bit"),                 # extent and span both beyond the domain
    ((2, 2), F32, (2**32, 4), None, "input 0"),
    ((2,), F32, None, (2**32 - 1,), "output 0"),            # output span exactly 2^32
    ((3, 2**31), F16, (2, 6), (1, 3), "input 0"),
], ids=["f32-2^31", "f32-span-2^32", "bf16-span-2^32", "f16-2^31", "bf16-2^32", "f32-strided",
        "output-span-2^32", "f16-permuted"])
def test_device_limit(shape, dtype, si, so, port):
    got = ev.check_inference(quant_request(shape, dtype, si, so))
    assert_error(got, ErrorCode.DEVICE_LIMIT, port, what=f"{shape} {dtype.name}")
    # The shared (backend-neutral) admission accepts these: a backend limit.
    ok(sk.ops.quant.check_inference(quant_request(shape, dtype, si, so)))


@pytest.mark.parametrize("shape,dtype,si,so", [
    ((2**30 - 1,), F32, None, None),                          # input span 2^32 - 4
    ((2**31 - 1,), BF16, None, None),                         # 2^32 - 2
    ((2,), F32, None, (2**32 - 2,)),                          # output span 2^32 - 1
    ((2, 2), F32, (2**31, 4), None),
], ids=["f32-2^32-4", "bf16-2^32-2", "output-2^32-1", "f32-strided"])
def test_largest_representable_spans(shape, dtype, si, so):
    plan = ok(ev.check_inference(quant_request(shape, dtype, si, so)))
    packet = ok(ev.encode_relocatable(plan))
    desc = ok(ev.decode(packet.descriptor), describe(packet.descriptor))
    item = ITEM[dtype]
    s_in = si or contiguous_strides(shape, item)
    assert desc.input_span == accessed_span(shape, s_in, item) < DOMAIN


def test_admission_overflow_passes_through():
    """Beyond 2^63 the shared admission refuses first (OVERFLOW)."""
    assert_error(ev.check_inference(quant_request((2**62,), F32)), ErrorCode.OVERFLOW)
    assert_error(ev.check_inference(quant_request((2, 2), F32, (2**63, 4))), ErrorCode.OVERFLOW)


@pytest.mark.parametrize("request_, code", [
    (quant_request((2,), F32, multiplier_bits=0), ErrorCode.INVALID_PARAMS),
    (quant_request((2,), F32, multiplier_bits=0x7F800000), ErrorCode.INVALID_PARAMS),
    (quant_request((2,), F32, zero_point=128), ErrorCode.INVALID_PARAMS),
    (sk.ops.quant.Request([tensor_spec((2,), I8)], [tensor_spec((2,), I8)], sk.ops.quant.Params(1.0)),
     ErrorCode.UNSUPPORTED_DTYPE),
    (sk.ops.quant.Request([], [tensor_spec((2,), I8)], sk.ops.quant.Params(1.0)), ErrorCode.INVALID_ARITY),
    (quant_request((2, 3), F32, (4, -8)), ErrorCode.UNSUPPORTED_LAYOUT),
    (quant_request((2, 3), F32, (8, 4)), ErrorCode.UNSUPPORTED_LAYOUT),   # overlapping view
    (sk.ops.quant.Request([tensor_spec((2,), F32)], [tensor_spec((3,), I8)], sk.ops.quant.Params(1.0)),
     ErrorCode.INVALID_SHAPE),
], ids=["multiplier-0", "multiplier-inf", "zero-point", "dtype", "arity", "negative-stride", "overlap", "shape"])
def test_shared_admission_errors_pass_through(request_, code):
    assert_error(ev.check_inference(request_), code)


def _foreign():
    cast_request = sk.ops.cast.Request([tensor_spec((2,), F32)], [tensor_spec((2,), BF16)])
    return [
        None, object(), 42, "quant", quant_request((2,), F32).params, cast_request,
        ok(sk.ops.cast.check_inference(cast_request)), ok(sk.a65.quant.check_inference(quant_request((2,), F32))),
        ev_plan((2,), F32),
    ]


@pytest.mark.parametrize("value", _foreign(),
                         ids=["None", "object", "int", "str", "params", "cast-request", "cast-plan", "a65-plan",
                              "ev74-plan"])
def test_foreign_object_is_invalid_operation(value):
    assert_error(ev.check_inference(value), ErrorCode.INVALID_OPERATION)


def test_empty_with_huge_extent_is_representable_or_refused():
    """An empty request with an extent beyond 2^32 either is refused as a
    device limit or encodes a packet the device decoder accepts (the host
    must not produce a packet its own device rejects)."""
    failures = []
    for shape in [(0, 2**32), (2**33, 0), (0, 2**40, 3)]:
        plan = ev.check_inference(quant_request(shape, F32))
        if isinstance(plan, sk.Error):
            if plan.code is not ErrorCode.DEVICE_LIMIT:
                failures.append(f"{shape}: {plan.code.name}: {plan.message}")
            continue
        packet = ok(ev.encode_relocatable(plan))
        desc = ev.decode(packet.descriptor)
        if isinstance(desc, sk.Error):
            failures.append(f"{shape}: check_inference and encode_relocatable accept it, decode refuses: "
                            f"{desc.message}")
    assert not failures, "\n".join(failures)


# ------------------------------------------------------------ encoding


@pytest.mark.parametrize("value", [None, object(), "plan"], ids=["None", "object", "str"])
def test_encode_relocatable_refuses_non_plans(value):
    assert_error(ev.encode_relocatable(value), ErrorCode.INVALID_OPERATION)


def test_encode_relocatable_refuses_shared_plan_and_request():
    request = quant_request((2,), F32)
    assert_error(ev.encode_relocatable(request), ErrorCode.INVALID_OPERATION)
    assert_error(ev.encode_relocatable(ok(sk.ops.quant.check_inference(request))), ErrorCode.INVALID_OPERATION)


def test_packet_is_immutable_and_relocatable():
    packet = ok(ev.encode_relocatable(plan_35()))
    assert isinstance(packet.descriptor, bytes) and len(packet.descriptor) == 224
    assert get_field(packet.descriptor, "input_address") == get_field(packet.descriptor, "output_address") == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        packet.descriptor = bytes(224)  # type: ignore[misc]
    assert not packet.empty


SHAPES = st.lists(st.integers(0, 6), min_size=0, max_size=6).map(tuple)


@st.composite
def layouts(draw):
    """(shape, dtype, input strides, output strides): random admissible
    layouts (a random physical axis order, per-axis padding, arbitrary
    strides on singleton axes), or None for contiguous."""
    shape = draw(SHAPES)
    dtype = draw(st.sampled_from([F32, BF16, F16]))

    def strides(item):
        if draw(st.booleans()):
            return None
        order = draw(st.permutations(range(len(shape))))
        result = [0] * len(shape)
        step = item
        for axis in reversed(order):        # last in `order` is the fastest
            if shape[axis] <= 1:
                result[axis] = item * draw(st.integers(0, 50))
                continue
            step = step + item * draw(st.integers(0, 3))
            result[axis] = step
            step = step * shape[axis]
        return tuple(result)

    return shape, dtype, strides(ITEM[dtype]), strides(1)


@settings(max_examples=150)
@given(layouts(), st.sampled_from(MODES), st.integers(-128, 127),
       st.sampled_from([0x3E99999A, 0x00000001, 0x7F7FFFFF, 0x3F800000, 0x00800000]))
def test_encoder_matches_independent_lowering(layout, mode, zp, multiplier):
    shape, dtype, si, so = layout
    plan = ok(ev.check_inference(quant_request(shape, dtype, si, so, multiplier_bits=multiplier, zero_point=zp,
                                               rounding=mode)), f"{layout}")
    packet = ok(ev.encode_relocatable(plan))
    expected = ref_pack(ref_fields(shape, dtype, si, so, multiplier_bits=multiplier, zero_point=zp, rounding=mode))
    assert_descriptor_equal(packet.descriptor, expected, f"{layout} {mode} zp {zp}")
    desc = ok(ev.decode(packet.descriptor), describe(packet.descriptor))
    assert desc.empty == packet.empty == (0 in shape)


# ---------------------------------------------------------------- bind


def test_bind_sets_only_the_slots_and_keeps_the_packet():
    plan = plan_35()
    packet = ok(ev.encode_relocatable(plan))
    original = bytes(packet.descriptor)
    ins, outs = regions(A, A + 0x100)
    bound = ok(ev.bind(packet, plan, ins, outs))
    assert isinstance(bound, ev.BoundPacket)
    expected = set_field(set_field(original, "input_address", A), "output_address", A + 0x100)
    assert_descriptor_equal(bound.descriptor, expected, "bound")
    assert packet.descriptor == original
    assert bound.inputs == tuple(ins) and bound.outputs == tuple(outs)
    again = ok(ev.encode(plan, ins, outs))
    assert again.descriptor == bound.descriptor
    ok(ev.decode(bound.descriptor))


def _bind_both(plan, ins, outs):
    """bind() and encode() must agree on every outcome."""
    a = ev.bind(ok(ev.encode_relocatable(plan)), plan, ins, outs)
    b = ev.encode(plan, ins, outs)
    if isinstance(a, sk.Error) or isinstance(b, sk.Error):
        assert isinstance(a, sk.Error) and isinstance(b, sk.Error) and a.code is b.code, (a, b)
    else:
        assert a.descriptor == b.descriptor
    return a


@pytest.mark.parametrize("ins,outs,code,tokens", [
    (regions(DOMAIN, A), None, ErrorCode.DEVICE_LIMIT, ("input 0",)),
    (regions(A, DOMAIN), None, ErrorCode.DEVICE_LIMIT, ("output 0",)),
    (regions(1 << 40, A), None, ErrorCode.DEVICE_LIMIT, ("input 0",)),
    (regions(DOMAIN - 56, A), None, ErrorCode.DEVICE_LIMIT, ("input 0",)),       # end 2^32 + 4
    (regions(A, DOMAIN - 14), None, ErrorCode.DEVICE_LIMIT, ("output 0",)),      # end 2^32 + 1
    (regions(A + 2, A + 0x100), None, ErrorCode.INVALID_BINDING, ("input 0", "align")),
    (regions(A + 1, A + 0x100), None, ErrorCode.INVALID_BINDING, ("input 0", "align")),
    (regions(A, A + 0x100, in_cap=59), None, ErrorCode.INVALID_BINDING, ("input 0", "capacity")),
    (regions(A, A + 0x100, out_cap=14), None, ErrorCode.INVALID_BINDING, ("output 0", "capacity")),
    (regions(A, A + 0x100, in_cap=0), None, ErrorCode.INVALID_BINDING, ("input 0", "capacity")),
    (regions(0, A + 0x100), None, ErrorCode.INVALID_BINDING, ("input 0", "null")),
    (regions(A, 0), None, ErrorCode.INVALID_BINDING, ("output 0", "null")),
    (regions(A, A + 59), None, ErrorCode.INVALID_BINDING, ("overlap",)),            # last input byte
    (regions(A, A), None, ErrorCode.INVALID_BINDING, ("overlap",)),
    (regions(A + 12, A), None, ErrorCode.INVALID_BINDING, ("overlap",)),            # input starts in output
    (regions(A, A - 14, out_cap=15), None, ErrorCode.INVALID_BINDING, ("overlap",)),
], ids=["in-2^32", "out-2^32", "in-2^40", "in-end-beyond", "out-end-beyond", "in-misaligned-2",
        "in-misaligned-1", "in-capacity", "out-capacity", "in-capacity-0", "in-null", "out-null",
        "overlap-last-byte", "overlap-same", "overlap-input-in-output", "overlap-output-end"])
def test_bind_rejections(ins, outs, code, tokens):
    if outs is None:
        ins, outs = ins
    assert_error(_bind_both(plan_35(), ins, outs), code, *tokens)


@pytest.mark.parametrize("ins,outs", [
    regions(DOMAIN - 60, A),                    # input ends exactly at 2^32
    regions(A, DOMAIN - 15),                    # output ends exactly at 2^32
    regions(A + 4, A + 0x101),                  # input aligned to its element only; output odd
    regions(A, A + 60),                         # adjacent: output right after input
    regions(A + 15, A),                         # adjacent: input right after output (aligned? 15 is not)
    regions(A + 16, A + 1),                     # adjacent: input right after output ending at A+16
    regions(A, A + 0x100, in_cap=60, out_cap=15),
    regions(A, A + 0x100, in_cap=1 << 20, out_cap=1 << 40),   # excess capacity is irrelevant
], ids=["in-at-top", "out-at-top", "element-aligned", "adjacent-after", "misaligned-adjacent",
        "adjacent-before", "exact-capacity", "large-capacity"])
def test_bind_boundaries(ins, outs):
    got = _bind_both(plan_35(), ins, outs)
    if ins[0].address % 4:
        assert_error(got, ErrorCode.INVALID_BINDING, "align")
        return
    bound = ok(got)
    assert get_field(bound.descriptor, "input_address") == ins[0].address
    assert get_field(bound.descriptor, "output_address") == outs[0].address
    ok(ev.decode(bound.descriptor), describe(bound.descriptor))


def test_bind_output_in_strided_input_gap_is_aliasing():
    """Nonaliasing is about the accessed ranges: an output inside the input's
    row padding overlaps it."""
    plan = ev_plan((3, 5), F32, (32, 4))                  # input span 84
    assert_error(_bind_both(plan, [DeviceRegion(A, 84)], [DeviceRegion(A + 20, 15)]),
                 ErrorCode.INVALID_BINDING, "overlap")
    ok(_bind_both(plan, [DeviceRegion(A, 84)], [DeviceRegion(A + 84, 15)]))


@pytest.mark.parametrize("value", [(A, 60), A, None, {"address": A, "capacity": 60}, "region",
                                   DeviceRegion(float(A), 60), DeviceRegion(-4, 60), DeviceRegion(True, 60),
                                   DeviceRegion(A, -1), DeviceRegion(A, 60.0), DeviceRegion(A, None)],
                         ids=["tuple", "int", "None", "dict", "str", "float-address", "negative-address",
                              "bool-address", "negative-capacity", "float-capacity", "none-capacity"])
@pytest.mark.parametrize("port", ["input", "output"])
def test_bind_wrong_region_type(value, port):
    good_in, good_out = regions(A, A + 0x100)
    ins, outs = ([value], good_out) if port == "input" else (good_in, [value])
    assert_error(_bind_both(plan_35(), ins, outs), ErrorCode.INVALID_BINDING, f"{port} 0")


@pytest.mark.parametrize("n_in,n_out", [(0, 1), (2, 1), (1, 0), (1, 2), (0, 0)])
@pytest.mark.parametrize("empty", [False, True], ids=["nonempty", "empty"])
def test_bind_wrong_counts(n_in, n_out, empty):
    plan = ev_plan((3, 0), F32) if empty else plan_35()
    ins = [DeviceRegion(A + 0x1000 * i, 60) for i in range(n_in)]
    outs = [DeviceRegion(A + 0x8000 + 0x1000 * i, 15) for i in range(n_out)]
    assert_error(_bind_both(plan, ins, outs), ErrorCode.INVALID_ARITY)


def test_bind_refuses_a_non_plan():
    packet = ok(ev.encode_relocatable(plan_35()))
    ins, outs = regions(A, A + 0x100)
    for value in (None, ok(sk.ops.quant.check_inference(quant_request((3, 5), F32))), packet):
        assert_error(ev.bind(packet, value, ins, outs), ErrorCode.INVALID_OPERATION)
        assert_error(ev.encode(value, ins, outs), ErrorCode.INVALID_OPERATION)


def _other_plans():
    return {
        "other-shape": ev_plan((5, 3), F32),
        "other-dtype": ev_plan((3, 5), BF16),
        "other-layout": ev_plan((3, 5), F32, (24, 4)),
        "other-multiplier": ev_plan((3, 5), F32, multiplier_bits=0x3F800001),
        "other-zero-point": ev_plan((3, 5), F32, zero_point=1),
        "other-rounding": ev_plan((3, 5), F32, rounding="toward_zero"),
    }


@pytest.mark.parametrize("other", list(_other_plans()))
def test_packet_from_another_plan(other):
    plan = plan_35()
    foreign = ok(ev.encode_relocatable(_other_plans()[other]))
    ins, outs = regions(A, A + 0x100)
    assert_error(ev.bind(foreign, plan, ins, outs), ErrorCode.PACKET_MISMATCH)


@pytest.mark.parametrize("offset", [0, 8, 12, 16, 20, 24, 32, 40, 48, 56, 64, 112, 160, 208, 212, 216, 220, 223])
def test_modified_packet_bytes(offset):
    plan = plan_35()
    packet = ok(ev.encode_relocatable(plan))
    data = bytearray(packet.descriptor)
    data[offset] ^= 0x01
    ins, outs = regions(A, A + 0x100)
    assert_error(ev.bind(ev.Packet(bytes(data)), plan, ins, outs), ErrorCode.PACKET_MISMATCH,
                 what=f"byte {offset}")


def test_other_packet_forms_mismatch():
    plan = plan_35()
    packet = ok(ev.encode_relocatable(plan))
    ins, outs = regions(A, A + 0x100)
    bound = ok(ev.bind(packet, plan, ins, outs))
    for value in (bound, ev.Packet(bound.descriptor), ev.Packet(packet.descriptor[:-1]),
                  ev.Packet(packet.descriptor + b"\0"), packet.descriptor, None):
        assert_error(ev.bind(value, plan, ins, outs), ErrorCode.PACKET_MISMATCH, what=repr(value)[:40])


# ---------------------------------------------------------------- empty


@pytest.mark.parametrize("shape", [(0,), (3, 0, 2), (0, 1, 1, 1, 1, 7)])
def test_empty_request(device, shape):
    plan = ev_plan(shape, F16, multiplier_bits=0x3E99999A, zero_point=3)
    packet = ok(ev.encode_relocatable(plan))
    assert packet.empty
    assert_descriptor_equal(packet.descriptor, ref_pack(ref_fields(shape, F16, multiplier_bits=0x3E99999A,
                                                                   zero_point=3)), f"empty {shape}")
    assert get_field(packet.descriptor, "count") == 0
    # Binding checks no regions and leaves both slots 0.
    for ins, outs in (([DeviceRegion(0, 0)], [DeviceRegion(0, 0)]), regions(A, A),
                      ([DeviceRegion(A + 1, 0)], [DeviceRegion(DOMAIN, 0)])):
        bound = ok(ev.bind(packet, plan, ins, outs), f"{ins} {outs}")
        assert bound.empty
        assert bound.descriptor == packet.descriptor
    desc = ok(ev.decode(bound.descriptor))
    assert desc.empty and not desc.bound and desc.count == 0
    arena = Arena(device, 256)
    future = device.submit(ok(ev.bind(packet, plan, *regions(arena.start, arena.start + 128))))
    assert future.done(), "an empty submission completes at once"
    completion = future.result()
    assert isinstance(completion, sk.ev74.Completion)
    assert completion.units == () and completion.workgroups == 0
    assert not untouched_problems(arena.snapshot, arena.read(), arena.start)


# -------------------------------------------------- submissions the device refuses


def _submit_refused(device, value, code=None, *tokens):
    arena = Arena(device, 512)
    result = device.submit(value).result(timeout=60)
    assert isinstance(result, sk.Error), f"submit({type(value).__name__}) gave {result!r}"
    if code is not None:
        assert_error(result, code, *tokens)
    assert not untouched_problems(arena.snapshot, arena.read(), arena.start), "a refused submission wrote memory"


def test_submit_relocatable_packet(device):
    packet = ok(ev.encode_relocatable(plan_35()))
    _submit_refused(device, packet)


def test_submit_bound_packet_with_unbound_slots(device):
    packet = ok(ev.encode_relocatable(plan_35()))
    base = device.base + 0x100
    forged = ev.BoundPacket(packet.descriptor, *regions(base, base + 0x100))
    _submit_refused(device, forged)


def test_submit_corrupted_descriptor(device):
    base = device.base + 0x100
    bound = ok(ev.encode(plan_35(), *regions(base, base + 0x100)))
    forged = ev.BoundPacket(set_field(bound.descriptor, "count", 16), bound.inputs, bound.outputs)
    _submit_refused(device, forged, ErrorCode.INVALID_DESCRIPTOR, "count")
    overlap = ev.BoundPacket(set_field(bound.descriptor, "output_address", base + 4), bound.inputs, bound.outputs)
    _submit_refused(device, overlap, ErrorCode.INVALID_DESCRIPTOR, "overlap")


def test_submit_outside_device_memory(device):
    bound = ok(ev.encode(plan_35(), *regions(0x0100_0000, 0x0200_0000)))     # valid domain, not this device
    _submit_refused(device, bound)


@pytest.mark.parametrize("value", [None, b"\0" * 224, object()], ids=["None", "bytes", "object"])
def test_submit_non_packet(device, value):
    _submit_refused(device, value)


# Found by tests/reliability/test_fuzz.py: a forged packet whose descriptor is not 224
# bytes made `empty` (and so submit) raise struct.error, and a corrupted
# descriptor with count 0 was "completed" without device-side validation.
@pytest.mark.parametrize("length", [0, 8, 223, 225, 448])
def test_submit_descriptor_of_wrong_length(device, length):
    base = device.base + 0x100
    bound = ok(ev.encode(plan_35(), *regions(base, base + 0x100)))
    data = (bound.descriptor * 2)[:length]
    forged = ev.BoundPacket(data, bound.inputs, bound.outputs)
    assert not forged.empty and not ev.Packet(data).empty
    _submit_refused(device, forged, ErrorCode.INVALID_DESCRIPTOR, "length")


def test_submit_corrupted_empty_descriptor(device):
    plan = ev_plan((3, 0), F32, multiplier_bits=0x3E99999A, zero_point=3)
    bound = ok(ev.encode(plan, *regions(device.base, device.base + 0x100)))
    assert bound.empty
    for name, value, token in (("magic", 0, "magic"), ("rank", 9, "rank"), ("reserved1", 1, "reserved")):
        forged = ev.BoundPacket(set_field(bound.descriptor, name, value), bound.inputs, bound.outputs)
        assert not forged.empty, name
        _submit_refused(device, forged, ErrorCode.INVALID_DESCRIPTOR, token)


# Found by tests/reliability/test_fuzz.py: the packet of an admitted empty request whose
# other extents multiply past 2^32 was refused by the device-side decoder.
@pytest.mark.parametrize("shape", [(1, 2, 1 << 31, 0), (0, 0xFFFFFFFF, 0xFFFFFFFF)])
def test_empty_request_with_large_extents_decodes(shape):
    plan = ev_plan(shape, BF16, multiplier_bits=0x3F800000, zero_point=0)
    packet = ok(ev.encode_relocatable(plan))
    desc = ok(ev.decode(packet.descriptor))
    assert desc.empty and desc.extents == shape and packet.empty
