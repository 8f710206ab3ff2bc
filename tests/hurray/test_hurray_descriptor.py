"""The Hurray per-tensor affine descriptor (scheme tag 0x01): the storage
type table, the writer (exact bytes of hand-worked examples, refusals), the
strict reader (every violation rejected with a HurrayFormatError naming the
field and the offending value) and, by hypothesis, that any byte string is
either a descriptor that re-encodes to the same bytes or a HurrayFormatError,
exactly as the specification's validity rules (hurray_helpers.spec_verdict)
say.

Expected bytes are literals worked by hand from "Binary Encoding": tag 0x01,
version 0x01, flags 0x0000, binary32 scale at offset 4 and int32 zero point at
offset 8 (both little-endian), four zero bytes."""
import re

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from support.hurray_helpers import (
    ALL_STORAGE,
    INT32_MAX,
    INT32_MIN,
    SCALES,
    SPEC_STORAGE,
    ST,
    STORAGE_NAMES,
    H,
    descriptor,
    descriptor_bytes,
    f32,
    spec_range,
    spec_verdict,
    zero_points,
    zp_limits,
)

VALID = descriptor_bytes(0x3F800000, 0)


# ------------------------------------------------------------ storage table
@pytest.mark.parametrize("name", STORAGE_NAMES)
def test_storage_type_matches_the_specification(name):
    tag, bits, is_signed = SPEC_STORAGE[name]
    member = ST[name]
    assert int(member) == tag and ST(tag) is member
    assert member.bits == bits
    assert member.signed is is_signed
    lo, hi = spec_range(member)
    assert member.range == range(lo, hi + 1)


@pytest.mark.parametrize("name", STORAGE_NAMES)
def test_zero_points_are_the_storage_range_within_the_int32_field(name):
    lo, hi = zp_limits(ST[name])
    assert ST[name].zero_points == range(lo, hi + 1)


def test_uint32_zero_points_stop_where_the_int32_field_does():
    """The specification: zero_point is an int32 that MUST lie in the storage
    type's representable range ("for a uint8 storage type, zero_point MUST be
    in [0, 255]"); uint32 represents [0, 2**32 - 1], the field reaches 2**31 - 1."""
    assert ST.UINT8.zero_points == range(0, 256)
    assert ST.UINT32.range == range(0, 4294967296)
    assert ST.UINT32.zero_points == range(0, 2147483648)
    assert H.PerTensorAffine.decode(descriptor_bytes(0x3F800000, 2147483647), ST.UINT32).zero_point == 2147483647
    # ff ff ff ff is the int32 -1: outside, and the message states the range that applies
    with pytest.raises(H.HurrayFormatError, match=re.escape("-1 is outside the UINT32 range [0, 2147483647]")):
        H.PerTensorAffine.decode(descriptor_bytes(0x3F800000, -1), ST.UINT32)


def test_storage_type_has_exactly_the_ten_valid_tags():
    assert sorted(int(s) for s in ST) == sorted(v[0] for v in SPEC_STORAGE.values())


def test_format_error_is_a_value_error():
    assert issubclass(H.HurrayFormatError, ValueError)


# ------------------------------------------------------------------ writer
# (scale, zero point, the 16 bytes worked by hand)
GOLDEN = [
    pytest.param(1.0, 0, "01010000" "0000803f" "00000000" "00000000", id="one-symmetric"),
    pytest.param(-0.25, -128, "01010000" "000080be" "80ffffff" "00000000", id="negative-scale"),
    pytest.param(f32(0x4037CED9), 0x12345678, "01010000" "d9ce3740" "78563412" "00000000", id="byte-order"),
    pytest.param(f32(0x00000001), INT32_MIN, "01010000" "01000000" "00000080" "00000000", id="min-subnormal"),
    pytest.param(f32(0x00400001), 200, "01010000" "01004000" "c8000000" "00000000", id="subnormal"),
    pytest.param(f32(0xFF7FFFFF), INT32_MAX, "01010000" "ffff7fff" "ffffff7f" "00000000", id="neg-max-finite"),
    pytest.param(0.1, 255, "01010000" "cdcccc3d" "ff000000" "00000000", id="rounded-to-binary32"),
    pytest.param(np.float64(3.0), np.int16(-7), "01010000" "00004040" "f9ffffff" "00000000", id="numpy-inputs"),
    pytest.param(-1, -1, "01010000" "000080bf" "ffffffff" "00000000", id="int-scale"),
]


@pytest.mark.parametrize("scale, zero_point, golden", GOLDEN)
def test_encode_exact_bytes(scale, zero_point, golden):
    d = H.PerTensorAffine(scale, zero_point)
    data = d.encode()
    assert isinstance(data, bytes)
    assert data.hex() == golden
    assert len(data) == 16


def test_scale_is_held_as_binary32():
    d = H.PerTensorAffine(0.1, 3)
    assert type(d.scale) is np.float32
    assert d.scale_bits == 0x3DCCCCCD
    assert d.zero_point == 3 and type(d.zero_point) is int
    assert H.PerTensorAffine(f32(0x80400001)).scale_bits == 0x80400001  # negative subnormal kept exactly


# The constructor refuses what no descriptor can hold (issue 19, edge 7):
# before, these were accepted and failed only at encode().
@pytest.mark.parametrize("bits", [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                                  0x7F800001, 0x7FBFFFFF, 0xFF800001],
                         ids=["+0", "-0", "+inf", "-inf", "qnan", "-qnan", "snan", "snan-max", "-snan"])
def test_constructor_refuses_zero_and_non_finite_scales(bits):
    with pytest.raises(H.HurrayFormatError, match=f"^scale .*bits {bits:#010x} are "):
        descriptor(bits, 0)


@pytest.mark.parametrize("scale", [0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1e39, -1e39, 1e-50],
                         ids=["0.0", "-0.0", "nan", "inf", "-inf", "overflow", "-overflow", "underflow-to-zero"])
def test_constructor_refuses_python_scales_that_are_not_finite_nonzero_binary32(scale):
    with pytest.raises(H.HurrayFormatError, match="^scale ") as info:
        H.PerTensorAffine(scale, 0)
    assert f"scale={scale!r}" in str(info.value), "the message shows the value given, not only its binary32 bits"


@pytest.mark.parametrize("scale", [None, "abc", 1j, [1.0]], ids=["none", "str", "complex", "list"])
def test_constructor_refuses_a_scale_that_is_not_a_real_number(scale):
    with pytest.raises(H.HurrayFormatError, match="^scale: ") as info:
        H.PerTensorAffine(scale, 0)
    assert repr(scale) in str(info.value)


@pytest.mark.parametrize("zero_point", [INT32_MAX + 1, INT32_MIN - 1, 1 << 40, 1.5, "3", True, None],
                         ids=["2^31", "-2^31-1", "2^40", "float", "str", "bool", "none"])
def test_constructor_refuses_a_zero_point_that_is_not_int32(zero_point):
    with pytest.raises(H.HurrayFormatError, match="^zero_point ") as info:
        H.PerTensorAffine(1.0, zero_point)
    assert f"{zero_point!r} is not an int32" in str(info.value)


def test_format_error_at_construction_is_a_value_error():
    with pytest.raises(ValueError):
        H.PerTensorAffine(1e-50)


@pytest.mark.parametrize("name", SCALES)
def test_writer_accepts_negative_and_subnormal_finite_scales(name):
    bits = SCALES[name]
    assert descriptor(bits, 0).encode() == descriptor_bytes(bits, 0)


# --------------------------------------------------------------- round trip
ROUND_TRIP = [(s, zp) for s in ALL_STORAGE for zp in zero_points(s)]


@pytest.mark.parametrize("storage, zero_point", ROUND_TRIP, ids=[f"{s.name}-zp{zp}" for s, zp in ROUND_TRIP])
@pytest.mark.parametrize("scale_name", ["1.0", "-0.25", "0x4037ced9", "subnormal", "-subnormal", "-max"])
def test_round_trip_for_each_storage_type(storage, zero_point, scale_name):
    bits = SCALES[scale_name]
    d = descriptor(bits, zero_point)
    data = d.encode()
    assert data == descriptor_bytes(bits, zero_point)
    back = H.PerTensorAffine.decode(data, storage)
    assert isinstance(back, H.PerTensorAffine)
    assert back == d
    assert back.scale_bits == bits and back.zero_point == zero_point
    assert type(back.scale) is np.float32 and type(back.zero_point) is int
    assert back.encode() == data


@pytest.mark.parametrize("make", [bytes, bytearray, memoryview, lambda b: np.frombuffer(b, np.uint8)],
                         ids=["bytes", "bytearray", "memoryview", "ndarray"])
def test_decode_takes_any_buffer(make):
    data = descriptor_bytes(0xC037CED9, -5)
    back = H.PerTensorAffine.decode(make(data), ST.INT4)
    assert (back.scale_bits, back.zero_point) == (0xC037CED9, -5)


@pytest.mark.parametrize("data", [16, None, [1] * 16, "0" * 16], ids=["int", "None", "list", "str"])
def test_decode_refuses_what_is_not_bytes_like(data):
    """bytes(16) is sixteen zero bytes: an int must not pass for a descriptor."""
    with pytest.raises(H.HurrayFormatError, match="data must be bytes-like"):
        H.PerTensorAffine.decode(data, ST.INT8)


def test_decode_takes_the_storage_type_as_its_integer_tag():
    back = H.PerTensorAffine.decode(descriptor_bytes(0x3F800000, 255), 0x11)
    assert back.zero_point == 255
    assert H.PerTensorAffine.decode(descriptor_bytes(0x3F800000, 3), np.uint8(0x4B)).zero_point == 3


@pytest.mark.parametrize("storage", [ST.INT32, ST.UINT32], ids=lambda s: s.name)
def test_int32_field_ends(storage):
    lo, hi = zp_limits(storage)
    for zp in (lo, lo + 1, hi - 1, hi):
        assert H.PerTensorAffine.decode(descriptor_bytes(0x3F800000, zp), storage).zero_point == zp


# ----------------------------------------------------------------- reader
def _value_pattern(value: int) -> str:
    """The value as a standalone decimal, or in hex with optional zero
    padding (of its 32-bit pattern when negative)."""
    hex_forms = {f"{value & 0xFFFFFFFF:x}"} if value < 0 else {f"{value:x}"}
    hexes = "|".join(f"0x0*{h}" for h in hex_forms)
    return rf"(?<![\w.]){re.escape(str(value))}(?![\w.])|(?<![\w])(?:{hexes})(?![0-9a-f])"


def assert_names(excinfo, field: str, *values) -> None:
    message = str(excinfo.value)
    assert field in message, f"message {message!r} does not name the field {field!r}"
    for value in values:
        if isinstance(value, str):
            ok = value.lower() in message.lower()
        else:
            ok = re.search(_value_pattern(value), message, re.IGNORECASE) is not None
        assert ok, f"message {message!r} does not name the value {value!r}"


def reject(data, storage=ST.INT8):
    with pytest.raises(H.HurrayFormatError) as excinfo:
        H.PerTensorAffine.decode(data, storage)
    return excinfo


@pytest.mark.parametrize("length", [0, 1, 15, 17, 32])
def test_reader_rejects_wrong_length(length):
    data = (VALID * 2)[:length]
    assert_names(reject(data), "length", length)


@pytest.mark.parametrize("tag", [0x00, 0x02, 0xFF])
def test_reader_rejects_scheme_tag(tag):
    assert_names(reject(descriptor_bytes(0x3F800000, 0, tag=tag)), "scheme_tag", tag)


@pytest.mark.parametrize("version", [0x00, 0x02, 0x11])
def test_reader_rejects_scheme_version(version):
    assert_names(reject(descriptor_bytes(0x3F800000, 0, version=version)), "scheme_version", version)


@pytest.mark.parametrize("flags", [0x0001, 0x8000, 0x0100, 0xFFFF])
def test_reader_rejects_flags(flags):
    data = descriptor_bytes(0x3F800000, 0, flags=flags)
    assert data[2:4] == flags.to_bytes(2, "little")
    assert_names(reject(data), "flags", flags)


SCALE_REJECTS = {
    "+0": 0x00000000, "-0": 0x80000000, "+inf": 0x7F800000, "-inf": 0xFF800000,
    "qnan": 0x7FC00000, "-qnan": 0xFFC00000, "qnan-payload": 0x7FC12345,
    "snan": 0x7F800001, "snan-max-payload": 0x7FBFFFFF, "-snan": 0xFF800001,
}


@pytest.mark.parametrize("bits", list(SCALE_REJECTS.values()), ids=list(SCALE_REJECTS))
@pytest.mark.parametrize("storage", [ST.INT8, ST.UINT2, ST.UINT32], ids=lambda s: s.name)
def test_reader_rejects_zero_and_non_finite_scales(bits, storage):
    assert_names(reject(descriptor_bytes(bits, 0), storage), "scale", bits)


ZP_REJECTS = [
    (ST.INT8, -129), (ST.INT8, 128), (ST.UINT8, -1), (ST.UINT8, 256),
    (ST.INT16, -32769), (ST.INT16, 32768), (ST.UINT16, -1), (ST.UINT16, 65536),
    (ST.UINT32, -1), (ST.UINT32, INT32_MIN),
    (ST.INT4, -9), (ST.INT4, 8), (ST.UINT4, -1), (ST.UINT4, 16),
    (ST.INT2, -3), (ST.INT2, 2), (ST.UINT2, -1), (ST.UINT2, 4),
    (ST.INT8, INT32_MAX), (ST.INT4, INT32_MIN), (ST.UINT16, 1 << 20),
]


@pytest.mark.parametrize("storage, zero_point", ZP_REJECTS, ids=[f"{s.name}-{zp}" for s, zp in ZP_REJECTS])
def test_reader_rejects_zero_point_outside_the_storage_range(storage, zero_point):
    assert_names(reject(descriptor_bytes(0x3F800000, zero_point), storage), "zero_point", zero_point)


@pytest.mark.parametrize("storage", ALL_STORAGE, ids=lambda s: s.name)
def test_reader_accepts_zero_points_at_the_range_ends(storage):
    lo, hi = zp_limits(storage)
    for zp in (lo, hi):
        assert H.PerTensorAffine.decode(descriptor_bytes(0xBE800000, zp), storage).zero_point == zp


@pytest.mark.parametrize("zero_point", [INT32_MIN, -1, 0, 1, INT32_MAX])
def test_int32_storage_accepts_every_int32_zero_point(zero_point):
    assert H.PerTensorAffine.decode(descriptor_bytes(0x3F800000, zero_point), ST.INT32).zero_point == zero_point


@pytest.mark.parametrize("offset", [12, 13, 14, 15])
@pytest.mark.parametrize("byte", [0x01, 0x80, 0xFF])
def test_reader_rejects_nonzero_reserved_bytes(offset, byte):
    reserved = bytearray(4)
    reserved[offset - 12] = byte
    data = descriptor_bytes(0x3F800000, 0, reserved=bytes(reserved))
    assert data[offset] == byte
    excinfo = reject(data)
    assert_names(excinfo, "_reserved")
    message = str(excinfo.value).lower()
    assert bytes(reserved).hex() in message or f"{byte:#04x}" in message, (
        f"message {message!r} does not name the reserved value")


@pytest.mark.parametrize("storage", [0x00, 0x0F, 0x16, 0x47, 0x4C, 0xFF, 0x110, -0x10],
                         ids=lambda v: f"{v:#x}")
def test_reader_rejects_storage_types_not_in_the_list(storage):
    assert_names(reject(VALID, storage), "storage type", storage)


@pytest.mark.parametrize("storage", ["INT8", "0x10", None, 16.5, b"\x10", object()],
                         ids=["name", "hex-string", "none", "float", "bytes", "object"])
def test_reader_rejects_a_storage_type_that_is_not_an_int(storage):
    excinfo = reject(VALID, storage)
    assert "storage type" in str(excinfo.value)


def test_rejections_are_independent_of_the_other_fields():
    # Each violation alone, on a descriptor otherwise valid for UINT4.
    base = dict(scale_bits=0xC037CED9, zero_point=15)
    assert H.PerTensorAffine.decode(descriptor_bytes(**base), ST.UINT4).zero_point == 15
    cases = {
        "scheme_tag": descriptor_bytes(**base, tag=0x10),
        "scheme_version": descriptor_bytes(**base, version=0),
        "flags": descriptor_bytes(**base, flags=0x0002),
        "scale": descriptor_bytes(0x7F800000, 15),
        "zero_point": descriptor_bytes(0xC037CED9, 16),
        "_reserved": descriptor_bytes(**base, reserved=b"\0\0\0\x01"),
    }
    for field, data in cases.items():
        assert spec_verdict(data, ST.UINT4) == field
        with pytest.raises(H.HurrayFormatError, match=re.escape(field)):
            H.PerTensorAffine.decode(data, ST.UINT4)


# ------------------------------------------------------------- properties
def outcome(data: bytes, storage):
    try:
        return H.PerTensorAffine.decode(data, storage), None
    except H.HurrayFormatError as exc:
        return None, exc


def check_against_spec(data: bytes, storage) -> None:
    decoded, error = outcome(data, storage)
    verdict = spec_verdict(data, storage)
    if verdict is None:
        assert error is None, f"{data.hex()} for {storage.name}: valid, but rejected: {error}"
        assert isinstance(decoded, H.PerTensorAffine)
        assert decoded.encode() == data
        assert decoded.scale_bits == int.from_bytes(data[4:8], "little")
        assert decoded.zero_point == int.from_bytes(data[8:12], "little", signed=True)
    else:
        assert error is not None, f"{data.hex()} for {storage.name}: violates {verdict}, but accepted"


storages = st.sampled_from(ALL_STORAGE)


@given(data=st.binary(min_size=16, max_size=16), storage=storages)
@example(data=VALID, storage=ST.INT8)
@example(data=bytes(16), storage=ST.INT8)
def test_arbitrary_16_bytes_are_a_descriptor_or_a_format_error(data, storage):
    check_against_spec(data, storage)


@given(data=st.binary(min_size=0, max_size=40), storage=storages)
def test_arbitrary_byte_strings_are_a_descriptor_or_a_format_error(data, storage):
    check_against_spec(data, storage)


def _byte_biased(valid: int):
    return st.one_of(st.just(valid), st.just(valid), st.integers(0, 255))


@st.composite
def near_valid(draw):
    """Descriptors whose fields are mostly valid, so that acceptance and each
    single rejection are reached often."""
    storage = draw(storages)
    lo, hi = spec_range(storage)
    scale = draw(st.one_of(
        st.sampled_from(list(SCALES.values()) + list(SCALE_REJECTS.values())),
        st.integers(0, 0xFFFFFFFF),
    ))
    zp = draw(st.one_of(
        st.integers(max(lo, INT32_MIN), min(hi, INT32_MAX)),
        st.sampled_from([lo - 1, hi + 1, lo, hi, 0, -1]).filter(lambda v: INT32_MIN <= v <= INT32_MAX),
        st.integers(INT32_MIN, INT32_MAX),
    ))
    flags = draw(st.one_of(st.just(0), st.just(0), st.integers(0, 0xFFFF)))
    reserved = draw(st.one_of(st.just(bytes(4)), st.just(bytes(4)), st.binary(min_size=4, max_size=4)))
    data = descriptor_bytes(scale, zp, tag=draw(_byte_biased(1)), version=draw(_byte_biased(1)),
                            flags=flags, reserved=reserved)
    return data, storage


@given(case=near_valid())
def test_near_valid_descriptors_follow_the_validity_rules(case):
    check_against_spec(*case)


@given(storage=st.one_of(st.integers(-300, 300), st.sampled_from(ALL_STORAGE)))
def test_any_integer_storage_tag_is_accepted_only_if_listed(storage):
    decoded, error = outcome(VALID, storage)
    if storage in {v[0] for v in SPEC_STORAGE.values()}:
        assert error is None and decoded.encode() == VALID
    else:
        assert error is not None and "storage type" in str(error)


@given(bits=st.integers(0, 0xFFFFFFFF), storage=storages, data=st.data())
def test_writer_and_reader_agree_on_every_scale(bits, storage, data):
    lo, hi = zp_limits(storage)
    zp = data.draw(st.integers(lo, hi))
    finite_nonzero = (bits >> 23) & 0xFF != 0xFF and bits & 0x7FFFFFFF != 0
    if finite_nonzero:
        encoded = descriptor(bits, zp).encode()
        assert encoded == descriptor_bytes(bits, zp)
        assert H.PerTensorAffine.decode(encoded, storage).scale_bits == bits
    else:
        with pytest.raises(H.HurrayFormatError):
            descriptor(bits, zp)
        with pytest.raises(H.HurrayFormatError):
            H.PerTensorAffine.decode(descriptor_bytes(bits, zp), storage)
