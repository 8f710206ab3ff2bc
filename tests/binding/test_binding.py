"""Binding checks at execute: every rejection leaves every output byte as it
was (sentinel intact) and the input unchanged; accepted bindings of every
buffer kind, exact-size views and adjacent ranges give oracle-exact results."""
import mmap

import numpy as np
import pytest

import simakernels as sk
from support.helpers import (
    DIRECTION_IDS,
    DIRECTIONS,
    INPUT_FILL,
    ITEMSIZE,
    ROUTES,
    SENTINEL,
    Storage,
    aligned_bytes,
    assert_bits_equal,
    assert_untouched,
    draw_values,
    element_offsets,
    ok_plan,
    request,
)

E = sk.ErrorCode
SHAPE = (3, 5)
# Raw addresses (null, wrapping, beyond 2^63, misaligned, inside another
# buffer): each test in a forked child, so a wild access fails that test only.
pytestmark = pytest.mark.in_child


class Case:
    """A plan whose ports have gaps (padded rows), with oracle-known input
    written into a sentinel-framed input buffer and a sentinel-filled output."""

    def __init__(self, route, direction, shape=SHAPE, in_el=(7, 1), out_el=(8, 1)):
        self.src_dtype, self.dst_dtype = DIRECTIONS[direction]
        si, so = ITEMSIZE[self.src_dtype], ITEMSIZE[self.dst_dtype]
        self.in_strides = None if in_el is None else tuple(s * si for s in in_el)
        self.out_strides = None if out_el is None else tuple(s * so for s in out_el)
        self.shape = shape
        self.plan = ok_plan(request(shape, self.src_dtype, self.dst_dtype, self.in_strides, self.out_strides), route)
        (self.need_in,), (self.need_out,) = self.plan.input_requirements(), self.plan.output_requirements()
        self.src = self.storage_in()
        self.dst = self.storage_out()
        self.inputs, self.expected = draw_values(self.src_dtype, self.src.offsets.size, seed=11)
        self.src.write(self.inputs)
        self.src_before = self.src.buf.copy()

    def storage_in(self, window=None):
        return self._storage(self.src_dtype, self.in_strides, self.need_in.nbytes, INPUT_FILL, window)

    def storage_out(self, window=None):
        return self._storage(self.dst_dtype, self.out_strides, self.need_out.nbytes, SENTINEL, window)

    def _storage(self, dtype, strides, nbytes, fill, window):
        storage = Storage.make(self.shape, dtype, strides, nbytes=nbytes, excess=8, fill=fill)
        if window is not None:
            storage.buf = window
        return storage

    def execute(self, inputs, outputs):
        return sk.a65.cast.execute(self.plan, inputs, outputs)

    def assert_rejected(self, result, code, *fragments):
        assert isinstance(result, sk.Error), f"expected {code.name}, execute returned {result!r}"
        assert result.code == code, f"expected {code.name}, got {result}"
        for fragment in fragments:
            assert fragment in result.message, f"{fragment!r} not in {result.message!r}"
        self.assert_nothing_written()

    def assert_nothing_written(self):
        assert_untouched(self.dst.buf, SENTINEL, what="output (rejected binding)")
        assert np.array_equal(self.src.buf, self.src_before), "input changed"

    def assert_converted(self, dst=None):
        dst = self.dst if dst is None else dst
        assert_bits_equal(dst.read(), self.expected, self.inputs, "output", shape=self.shape)
        dst.assert_gaps_untouched()


@pytest.fixture(params=[(r, d) for r in ROUTES for d in DIRECTION_IDS], ids=lambda p: f"{p[0]}-{p[1]}")
def case(request):
    return Case(*request.param)


def test_baseline_binding_is_accepted(case):
    assert case.execute([case.src.buf], [case.dst.buf]) is None
    case.assert_converted()


# --------------------------------------------------------------- rejections


def test_wrong_buffer_count(case):
    other = aligned_bytes(case.need_out.nbytes, SENTINEL)
    for inputs, outputs in (
        ([], [case.dst.buf]),
        ([case.src.buf, case.src.buf], [case.dst.buf]),
        ([case.src.buf], []),
        ([case.src.buf], [case.dst.buf, other]),
        ([], []),
    ):
        case.assert_rejected(case.execute(inputs, outputs), E.INVALID_ARITY)
        assert_untouched(other, SENTINEL, what="second output")


def test_null_nonempty_bindings(case):
    null_in = sk.ConstHostBuffer.from_address(0, case.need_in.nbytes)
    null_out = sk.HostBuffer.from_address(0, case.need_out.nbytes)
    case.assert_rejected(case.execute([null_in], [case.dst.buf]), E.INVALID_BINDING, "input 0")
    case.assert_rejected(case.execute([sk.HostBuffer.from_address(0, 1 << 20)], [case.dst.buf]), E.INVALID_BINDING)
    case.assert_rejected(case.execute([case.src.buf], [null_out]), E.INVALID_BINDING, "output 0")
    case.assert_rejected(case.execute([null_in], [null_out]), E.INVALID_BINDING)


def test_too_small_views(case):
    n_in, n_out = case.need_in.nbytes, case.need_out.nbytes
    for short in (n_in - 1, n_in - case.need_in.alignment, 0):
        case.assert_rejected(case.execute([case.src.buf[:short]], [case.dst.buf]), E.INVALID_BINDING, "input 0")
    for short in (n_out - 1, n_out - case.need_out.alignment, 0):
        case.assert_rejected(case.execute([case.src.buf], [case.dst.buf[:short]]), E.INVALID_BINDING, "output 0")
    addr_in, addr_out = case.src.buf.ctypes.data, case.dst.buf.ctypes.data
    case.assert_rejected(
        case.execute([sk.ConstHostBuffer.from_address(addr_in, n_in - 1)], [case.dst.buf]), E.INVALID_BINDING)
    case.assert_rejected(
        case.execute([case.src.buf], [sk.HostBuffer.from_address(addr_out, n_out - 1)]), E.INVALID_BINDING)


def test_exact_size_views_are_enough(case):
    """The requirement is the whole need: exactly that many bytes suffice."""
    assert case.execute([case.src.buf[: case.need_in.nbytes]], [case.dst.buf[: case.need_out.nbytes]]) is None
    case.assert_converted()


def _misaligned_offsets(address, itemsize):
    return [k for k in range(1, 8) if (address + k) % itemsize][:3]


def test_misaligned_views(case):
    """Input and output slid by 1, 2 or 3 bytes (a bytearray through a
    memoryview, a NumPy slice and a raw address)."""
    n_in, n_out = case.need_in.nbytes, case.need_out.nbytes
    # input: a bytearray holding the same bytes at a misaligned start
    raw = bytearray(n_in + 16)
    base = sk.ConstHostBuffer(raw).address
    for k in _misaligned_offsets(base, case.need_in.alignment):
        raw[k:k + n_in] = case.src.buf[:n_in].tobytes()
        case.assert_rejected(case.execute([memoryview(raw)[k:]], [case.dst.buf]), E.INVALID_BINDING, "input 0", "align")
    big = aligned_bytes(n_in + 16, INPUT_FILL)
    for k in _misaligned_offsets(big.ctypes.data, case.need_in.alignment):
        case.assert_rejected(case.execute([big[k:]], [case.dst.buf]), E.INVALID_BINDING, "input 0")
        view = sk.ConstHostBuffer.from_address(big.ctypes.data + k, n_in, keepalive=big)
        case.assert_rejected(case.execute([view], [case.dst.buf]), E.INVALID_BINDING, "input 0")
    # output: misaligned windows into a sentinel buffer, all checked untouched
    out_raw = bytearray([SENTINEL]) * (n_out + 16)
    out_base = sk.ConstHostBuffer(out_raw).address
    for k in _misaligned_offsets(out_base, case.need_out.alignment):
        case.assert_rejected(case.execute([case.src.buf], [memoryview(out_raw)[k:]]), E.INVALID_BINDING, "output 0")
        assert_untouched(np.frombuffer(out_raw, np.uint8), SENTINEL, what="misaligned output")
    out_big = aligned_bytes(n_out + 16, SENTINEL)
    for k in _misaligned_offsets(out_big.ctypes.data, case.need_out.alignment):
        view = sk.HostBuffer.from_address(out_big.ctypes.data + k, n_out, keepalive=out_big)
        case.assert_rejected(case.execute([case.src.buf], [out_big[k:]]), E.INVALID_BINDING, "output 0")
        case.assert_rejected(case.execute([case.src.buf], [view]), E.INVALID_BINDING, "output 0")
        assert_untouched(out_big, SENTINEL, what="misaligned output")


def test_read_only_outputs(case):
    n_out = case.need_out.nbytes
    frozen = aligned_bytes(n_out + 8, SENTINEL)
    frozen.flags.writeable = False
    readonly = [
        bytes([SENTINEL]) * (n_out + 8),
        memoryview(bytes([SENTINEL]) * (n_out + 8)),
        sk.ConstHostBuffer(case.dst.buf),
        sk.ConstHostBuffer.from_address(case.dst.buf.ctypes.data, case.dst.buf.size),
        frozen,
    ]
    for out in readonly:
        case.assert_rejected(case.execute([case.src.buf], [out]), E.INVALID_BINDING, "output 0")
    assert_untouched(frozen, SENTINEL, what="read-only NumPy output")
    assert readonly[0] == bytes([SENTINEL]) * (n_out + 8)


def test_read_only_input_is_fine(case):
    frozen = case.src.buf.copy()
    frozen.flags.writeable = False
    assert case.execute([bytes(frozen)], [case.dst.buf]) is None
    case.assert_converted()
    case.dst.reset()
    assert case.execute([frozen], [case.dst.buf]) is None
    case.assert_converted()


# (Ids by type, not repr: an object's repr holds its address, which differs
# between pytest-xdist workers, and the workers must collect the same ids.)
@pytest.mark.parametrize("bad", [42, None, "text", 3.5, object(), [0] * 64],
                         ids=["int", "None", "str", "float", "object", "list"])
def test_non_buffer_objects(case, bad):
    case.assert_rejected(case.execute([bad], [case.dst.buf]), E.INVALID_BINDING, "input 0")
    case.assert_rejected(case.execute([case.src.buf], [bad]), E.INVALID_BINDING, "output 0")


def test_non_contiguous_array_is_not_a_raw_binding(case):
    """A raw binding is a byte range from the object's start; a strided NumPy
    view is not one (the array layer handles strides itself)."""
    whole = aligned_bytes(4 * case.need_out.nbytes + 8, SENTINEL)
    case.assert_rejected(case.execute([case.src.buf], [whole[::2]]), E.INVALID_BINDING, "output 0")
    assert_untouched(whole, SENTINEL, what="stepped output")


def test_same_object_as_input_and_output(case):
    n = max(case.need_in.nbytes, case.need_out.nbytes) + 8
    for obj in (bytearray([SENTINEL]) * n, aligned_bytes(n, SENTINEL)):
        case.assert_rejected(case.execute([obj], [obj]), E.INVALID_BINDING, "overlap")
        assert_untouched(np.frombuffer(obj, np.uint8), SENTINEL, what="aliased buffer")


def _shared_buffer(case, in_offset, out_offset):
    """One sentinel buffer holding the input at ``in_offset`` (with its data
    written) and raw views of both ranges."""
    n_in, n_out = case.need_in.nbytes, case.need_out.nbytes
    total = max(in_offset + n_in, out_offset + n_out) + 64
    big = aligned_bytes(total, SENTINEL)
    big[in_offset:in_offset + n_in] = case.src.buf[:n_in]
    before = big.copy()
    src = sk.ConstHostBuffer.from_address(big.ctypes.data + in_offset, n_in, keepalive=big)
    dst = sk.HostBuffer.from_address(big.ctypes.data + out_offset, n_out, keepalive=big)
    return big, before, src, dst


def _align_down(value, alignment):
    return value // alignment * alignment


def test_partial_overlap(case):
    n_in, n_out = case.need_in.nbytes, case.need_out.nbytes
    a_in, a_out = case.need_in.alignment, case.need_out.alignment
    layouts = [
        (0, _align_down(n_in - 1, a_out)),             # output starts inside the input's last element
        (_align_down(n_out - 1, a_in), 0),             # input starts inside the output's last element
        (0, 0),                                        # same start, different lengths
        (8, 8 + _align_down(n_in // 2, 4)),            # output starts mid-input
        (64, 64 - _align_down(n_out // 2, 4)),         # input starts mid-output
    ]
    for in_offset, out_offset in layouts:
        big, before, src, dst = _shared_buffer(case, in_offset, out_offset)
        case.assert_rejected(case.execute([src], [dst]), E.INVALID_BINDING, "overlap")
        assert np.array_equal(big, before), f"overlapping binding {in_offset}/{out_offset} wrote bytes"


@pytest.mark.parametrize("route", ROUTES)
def test_input_inside_output_gap_overlaps_bounding_span(route):
    """Input/output bounding spans must not overlap, even when the input lies
    entirely inside a gap of a strided output."""
    plan = ok_plan(request((2,), sk.DType.FLOAT32, sk.DType.BFLOAT16, None, (64,)), route)
    assert plan.output_requirements() == (sk.Requirement(66, 2),)
    big = aligned_bytes(128, SENTINEL)
    src = sk.ConstHostBuffer.from_address(big.ctypes.data + 16, 8, keepalive=big)
    dst = sk.HostBuffer.from_address(big.ctypes.data, 66, keepalive=big)
    result = sk.a65.cast.execute(plan, [src], [dst])
    assert isinstance(result, sk.Error) and result.code == E.INVALID_BINDING, result
    assert_untouched(big, SENTINEL, what="gap-overlap buffer")


def test_adjacent_ranges_are_accepted(case):
    """Input directly before the output and the output directly before the
    input (aligned up to the next element boundary when needed)."""
    n_in, n_out = case.need_in.nbytes, case.need_out.nbytes
    a_in, a_out = case.need_in.alignment, case.need_out.alignment
    for in_offset, out_offset in ((0, -(-n_in // a_out) * a_out), (-(-n_out // a_in) * a_in, 0)):
        big, before, src, dst = _shared_buffer(case, in_offset, out_offset)
        assert case.execute([src], [dst]) is None
        dst_storage = case.storage_out(big[out_offset:out_offset + n_out])
        case.assert_converted(dst_storage)
        mask = np.ones(big.size, dtype=bool)
        mask[out_offset + element_offsets(case.shape, dst_storage.strides)[:, None]
             + np.arange(case.need_out.alignment)] = False
        changed = np.flatnonzero((big != before) & mask)
        assert changed.size == 0, f"bytes outside the output elements changed: {changed[:10]}"


@pytest.mark.parametrize("direction", DIRECTION_IDS)
@pytest.mark.parametrize("route", ROUTES)
def test_exactly_adjacent_contiguous(route, direction):
    src_dtype, dst_dtype = DIRECTIONS[direction]
    plan = ok_plan(request((24,), src_dtype, dst_dtype), route)
    n_in, n_out = plan.input_requirements()[0].nbytes, plan.output_requirements()[0].nbytes
    inputs, expected = draw_values(src_dtype, 24, seed=3)
    for in_offset, out_offset in ((0, n_in), (n_out, 0)):
        big = aligned_bytes(n_in + n_out + 32, SENTINEL)
        src = Storage.make((24,), src_dtype, fill=INPUT_FILL)
        src.write(inputs)
        big[in_offset:in_offset + n_in] = src.buf
        status = sk.a65.cast.execute(
            plan,
            [sk.ConstHostBuffer.from_address(big.ctypes.data + in_offset, n_in, keepalive=big)],
            [sk.HostBuffer.from_address(big.ctypes.data + out_offset, n_out, keepalive=big)],
        )
        assert status is None, status
        got = big[out_offset:out_offset + n_out].copy().view(expected.dtype)
        assert_bits_equal(got, expected, inputs, f"adjacent {in_offset}/{out_offset}")
        assert np.array_equal(big[in_offset:in_offset + n_in], src.buf), "input changed"
        assert_untouched(big[n_in + n_out:], SENTINEL, what="bytes after both ranges")


def test_address_space_wrap(case):
    top = (1 << 64) - 8
    n_in, n_out = case.need_in.nbytes, case.need_out.nbytes
    case.assert_rejected(
        case.execute([sk.ConstHostBuffer.from_address(top, max(16, n_in + 8))], [case.dst.buf]), E.OVERFLOW)
    case.assert_rejected(
        case.execute([case.src.buf], [sk.HostBuffer.from_address(top, max(16, n_out + 8))]), E.OVERFLOW)


@pytest.mark.parametrize("address", [(1 << 63) - 4, (1 << 63) - 8192, 1 << 63, 3 << 62], ids=hex)
def test_views_ending_at_or_beyond_2_63(case, address):
    """Addresses are signed 64-bit values: a view whose end does
    not fit is OVERFLOW before any access (it used to pass and SIGSEGV)."""
    nbytes = 8192 + max(case.need_in.nbytes, case.need_out.nbytes)
    case.assert_rejected(case.execute([sk.ConstHostBuffer.from_address(address, nbytes)], [case.dst.buf]),
                         E.OVERFLOW, "input 0", "2^63-1")
    case.assert_rejected(case.execute([case.src.buf], [sk.HostBuffer.from_address(address, nbytes)]),
                         E.OVERFLOW, "output 0", "2^63-1")


@pytest.mark.parametrize("address", [-8, -(1 << 64), 1 << 64, (1 << 64) + 64, 1 << 70], ids=hex)
def test_addresses_outside_the_address_space(case, address):
    case.assert_rejected(
        case.execute([sk.ConstHostBuffer.from_address(address, case.need_in.nbytes)], [case.dst.buf]),
        E.INVALID_BINDING, "input 0")
    case.assert_rejected(
        case.execute([case.src.buf], [sk.HostBuffer.from_address(address, case.need_out.nbytes)]),
        E.INVALID_BINDING, "output 0")


def test_negative_and_huge_view_extents(case):
    addr_in, addr_out = case.src.buf.ctypes.data, case.dst.buf.ctypes.data
    case.assert_rejected(case.execute([sk.ConstHostBuffer.from_address(addr_in, -1)], [case.dst.buf]),
                         E.INVALID_BINDING)
    case.assert_rejected(case.execute([case.src.buf], [sk.HostBuffer.from_address(addr_out, -16)]),
                         E.INVALID_BINDING)
    for huge in (1 << 63, 1 << 64):
        case.assert_rejected(case.execute([sk.ConstHostBuffer.from_address(addr_in, huge)], [case.dst.buf]),
                             E.OVERFLOW)
        case.assert_rejected(case.execute([case.src.buf], [sk.HostBuffer.from_address(addr_out, huge)]),
                             E.OVERFLOW)


def test_from_address_rejects_non_integers():
    for bad in (1.0, "16", None, True):
        with pytest.raises(TypeError):
            sk.ConstHostBuffer.from_address(bad, 16)
        with pytest.raises(TypeError):
            sk.HostBuffer.from_address(4096, bad)


def test_rejections_write_nothing_after_a_success(case):
    """Each call checks its own views, also on a reused plan."""
    assert case.execute([case.src.buf], [case.dst.buf]) is None
    case.assert_converted()
    case.dst.reset()
    case.assert_rejected(case.execute([case.src.buf[:1]], [case.dst.buf]), E.INVALID_BINDING)
    case.assert_rejected(case.execute([case.src.buf], [case.dst.buf[: case.need_out.nbytes - 1]]), E.INVALID_BINDING)


# --------------------------------------------------------------- buffer kinds


def _make(kind, content, width=1):
    """(binding object of ``kind`` holding ``content``, a uint8 window onto
    it); ``width``: the port's element bytes (a typed array is the unsigned
    integer that wide: raw storage)."""
    n = content.size
    if kind == "numpy-uint8":
        obj = aligned_bytes(n, 0)
        obj[:] = content
        return obj, obj
    if kind == "numpy-typed":
        obj = np.zeros(n // width, dtype=f"<u{width}")  # NumPy allocations are 16-byte aligned
        window = obj.view(np.uint8)
        window[:] = content
        return obj, window
    if kind == "bytearray":
        obj = bytearray(content.tobytes())
        return obj, np.frombuffer(obj, np.uint8)
    if kind == "memoryview":
        raw = bytearray(n + 64)
        k = (-sk.ConstHostBuffer(raw).address) % 16
        obj = memoryview(raw)[k:k + n]
        obj[:] = content.tobytes()
        return obj, np.frombuffer(obj, np.uint8)
    if kind == "mmap":
        obj = mmap.mmap(-1, n)
        obj[:] = content.tobytes()
        return obj, np.frombuffer(obj, np.uint8)
    if kind == "bytes":
        obj = content.tobytes()
        return obj, np.frombuffer(obj, np.uint8)
    if kind in ("HostBuffer", "ConstHostBuffer"):
        inner, window = _make("numpy-uint8", content)
        return getattr(sk, kind)(inner), window
    if kind == "from_address":
        inner, window = _make("numpy-uint8", content)
        return sk.HostBuffer.from_address(inner.ctypes.data, n, keepalive=inner), window
    raise AssertionError(kind)


INPUT_KINDS = ["numpy-uint8", "numpy-typed", "bytearray", "memoryview", "mmap", "bytes",
               "HostBuffer", "ConstHostBuffer", "from_address"]
OUTPUT_KINDS = ["numpy-uint8", "numpy-typed", "bytearray", "memoryview", "mmap", "HostBuffer", "from_address"]


def _alignment_precondition(obj, alignment):
    address = sk.ConstHostBuffer(obj).address if not isinstance(obj, sk.ConstHostBuffer) else obj.address
    assert address % alignment == 0, f"test precondition: {type(obj).__name__} storage at {address:#x}"


@pytest.mark.parametrize("kind", INPUT_KINDS)
def test_input_buffer_kinds(case, kind):
    obj, window = _make(kind, case.src.buf[: case.need_in.nbytes + 8], case.need_in.alignment)
    _alignment_precondition(obj, case.need_in.alignment)
    assert case.execute([obj], [case.dst.buf]) is None
    case.assert_converted()
    assert np.array_equal(window, case.src_before[: window.size]), "input changed"


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
def test_output_buffer_kinds(case, kind):
    obj, window = _make(kind, case.dst.buf[: case.need_out.nbytes + 8].copy(), case.need_out.alignment)
    _alignment_precondition(obj, case.need_out.alignment)
    assert case.execute([case.src.buf], [obj]) is None
    case.assert_converted(case.storage_out(window))


# --------------------------------------------------------------- empty work


@pytest.mark.parametrize(
    "shape, in_el, out_el",
    [((0,), None, None), ((3, 0, 2), (8, 0, 1), (2, 0, 1)), ((0, 5), (0, 1), None)],
    ids=["empty-1d", "empty-middle", "empty-zero-stride"],
)
@pytest.mark.parametrize("direction", DIRECTION_IDS)
@pytest.mark.parametrize("route", ROUTES)
def test_empty_plan_is_a_no_op(route, direction, shape, in_el, out_el):
    """Zero required bytes; execute succeeds without touching anything, even
    with null or zero-length bindings; the buffer count is still checked."""
    src_dtype, dst_dtype = DIRECTIONS[direction]
    si, so = ITEMSIZE[src_dtype], ITEMSIZE[dst_dtype]
    in_strides = None if in_el is None else tuple(s * si for s in in_el)
    out_strides = None if out_el is None else tuple(s * so for s in out_el)
    plan = ok_plan(request(shape, src_dtype, dst_dtype, in_strides, out_strides), route)
    assert plan.input_requirements() == (sk.Requirement(0, si),)
    assert plan.output_requirements() == (sk.Requirement(0, so),)
    out = aligned_bytes(64, SENTINEL)
    for inputs, outputs in (
        ([sk.ConstHostBuffer.from_address(0, 0)], [sk.HostBuffer.from_address(0, 0)]),
        ([sk.ConstHostBuffer.from_address(0, 64)], [sk.HostBuffer.from_address(0, 64)]),
        ([b""], [bytearray()]),
        ([aligned_bytes(64, INPUT_FILL)], [out]),
    ):
        assert sk.a65.cast.execute(plan, inputs, outputs) is None
    assert_untouched(out, SENTINEL, what="output of an empty plan")
    result = sk.a65.cast.execute(plan, [], [out])
    assert isinstance(result, sk.Error) and result.code == E.INVALID_ARITY
    shared = sk.ops.cast.check_inference(request(shape, src_dtype, dst_dtype, in_strides, out_strides))
    result = sk.a65.cast.execute(shared, [b""], [out])
    assert isinstance(result, sk.Error) and result.code == E.INVALID_OPERATION
