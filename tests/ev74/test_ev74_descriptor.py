"""EV74 descriptor wire format: golden bytes, the documented field table, the C
decoder's offsets, and that the decoder reads every field where the table
puts it.

The goldens under tests/data/ev74/ were written once from hand-computed
fields (manifest.json) with this suite's own field-by-field layout
(ev74_helpers.FIELDS, transcribed from the documented table); they are never regenerated
from the encoder.
"""
import struct

import pytest

import simakernels as sk
from support.ev74_helpers import (
    BF16,
    C_NAMES,
    DTYPES,
    ErrorCode,
    F16,
    F32,
    FIELD,
    FIELDS,
    FLAG_SCALAR,
    MAGIC,
    SIZE,
    DeviceRegion,
    accessed_span,
    assert_descriptor_equal,
    assert_error,
    blank_fields,
    check_decoded_consistent,
    describe,
    ev,
    ev_plan,
    field_at,
    get_field,
    hex_annotated_offsets,
    load_manifest,
    manifest_request,
    ok,
    product,
    read_hex,
    ref_fields,
    ref_pack,
    ref_unpack,
    set_field,
)

CASES = load_manifest()
CASE_IDS = [c["name"] for c in CASES]


# ------------------------------------------------------------------ layout


def test_field_table_tiles_224_bytes():
    """The transcribed table covers bytes 0..223 exactly once, each field at
    its natural alignment."""
    covered = [None] * SIZE
    for f in FIELDS:
        assert f.offset % f.width == 0, f"{f.name} at {f.offset} is not {f.width}-byte aligned"
        for b in range(f.offset, f.offset + f.size):
            assert covered[b] is None, f"byte {b}: {f.name} overlaps {covered[b]}"
            covered[b] = f.name
    assert None not in covered, f"bytes not covered: {[i for i, c in enumerate(covered) if c is None]}"
    assert sum(f.size for f in FIELDS) == SIZE == 224


def test_documented_offsets():
    """The documented layout: 0 magic, 4 version, 6 length, 8 conversion, 12 rank, 16 flags,
    20 reserved, 24/32 slots, 40/48/56 count and spans, 64/112/160 axes,
    208 multiplier, 212 zero point, 216 rounding, 220 reserved."""
    expected = {
        "magic": 0, "version": 4, "length": 6, "conversion": 8, "rank": 12, "flags": 16, "reserved0": 20,
        "input_address": 24, "output_address": 32, "count": 40, "input_span": 48, "output_span": 56,
        "extents": 64, "input_strides": 112, "output_strides": 160, "multiplier": 208, "zero_point": 212,
        "rounding": 216, "reserved1": 220,
    }
    assert {f.name: f.offset for f in FIELDS} == expected


def test_c_constants_match_the_table():
    lib = sk._ffi.lib
    assert lib.SK_EV74_DESCRIPTOR_SIZE == SIZE
    assert lib.SK_EV74_MAGIC == MAGIC == 0x3151534B
    assert lib.SK_EV74_VERSION == 1
    assert lib.SK_EV74_MAX_RANK == 6
    assert lib.SK_EV74_FLAG_SCALAR == FLAG_SCALAR
    wrong = {name: (getattr(lib, f"SK_EV74_OFF_{c}"), FIELD[name].offset)
             for name, c in C_NAMES.items() if getattr(lib, f"SK_EV74_OFF_{c}") != FIELD[name].offset}
    assert not wrong, f"C offset vs documented offset: {wrong}"


def test_python_layout_size():
    assert sk.ev74.quant.wire.SIZE == SIZE
    assert sk.ev74.quant.wire.LAYOUT.size == SIZE


def test_magic_spells_ksq1():
    assert struct.pack("<I", MAGIC) == b"KSQ1"


# ------------------------------------------------------------------ goldens


def test_manifest_covers_required_cases():
    """Scalar, rank 6, strided (padded rows, permuted, stepped), every input
    dtype, every rounding code, an empty request and a bound packet."""
    fields = [c["fields"] for c in CASES]
    assert {f["conversion"] for f in fields} == {0, 1, 2}
    assert {f["rounding"] for f in fields} == {0, 1, 2, 3}
    assert any(f["flags"] == FLAG_SCALAR for f in fields)
    assert any(f["rank"] == 6 for f in fields)
    assert any(f["count"] == 0 for f in fields)
    assert any(f["input_address"] for f in fields)
    names = " ".join(CASE_IDS)
    for word in ("padded", "permuted", "stepped", "scalar", "rank6", "empty"):
        assert word in names


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_golden_hex_annotations(case):
    """Each data line's annotated offset is where its bytes really are, and
    the file holds exactly 224 bytes."""
    rows = hex_annotated_offsets(case["golden"])
    assert len(read_hex(case["golden"])) == SIZE
    for annotated, actual, label in rows:
        assert annotated == actual, f"{case['golden']}: line {label} annotated {annotated}, at {actual}"
        name = label.split("[")[0]
        assert field_at(actual)[0].name == name, f"{label} at {actual}"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_golden_fields_follow_the_table(case):
    """Every golden field against the documented table and the lowering rules,
    re-derived here from the manifest request."""
    data = read_hex(case["golden"])
    got = ref_unpack(data)
    r = case["request"]
    dtype = DTYPES[r["dtype"]]
    assert got["magic"] == 0x3151534B and data[:4] == b"KSQ1"
    assert got["version"] == 1 and got["length"] == 224
    assert got["reserved0"] == 0 and got["reserved1"] == 0
    assert got["conversion"] == {"f32": 0, "bf16": 1, "f16": 2}[r["dtype"]]
    assert got["rounding"] == {"nearest_even": 0, "toward_zero": 1, "toward_positive": 2,
                               "toward_negative": 3}[r["rounding"]]
    assert got["multiplier"] == int(r["multiplier_bits"], 16)
    assert got["zero_point"] == r["zero_point"]
    rank = got["rank"]
    assert 1 <= rank <= 6
    assert got["flags"] == (FLAG_SCALAR if r["shape"] == [] else 0)
    extents = got["extents"][:rank]
    assert extents == (r["shape"] or [1])
    for name in ("extents", "input_strides", "output_strides"):
        assert got[name][rank:] == [0] * (6 - rank), f"{name}: unused axes not 0"
    assert got["count"] == product(extents)
    expect = ref_fields(tuple(r["shape"]), dtype, r.get("input_strides"), r.get("output_strides"),
                        multiplier_bits=int(r["multiplier_bits"], 16), zero_point=r["zero_point"],
                        rounding=r["rounding"], addresses=tuple(case.get("bind", {}).get(p, [0])[0]
                                                                for p in ("input", "output")))
    if got["count"]:
        item = {0: 4, 1: 2, 2: 2}[got["conversion"]]
        for e, s in zip(extents, got["input_strides"][:rank]):
            assert (s == 0) == (e == 1), "singleton strides 0, others positive"
            assert s % item == 0
        assert got["input_span"] == accessed_span(extents, got["input_strides"][:rank], item)
        assert got["output_span"] == accessed_span(extents, got["output_strides"][:rank], 1)
    else:
        assert got["input_span"] == got["output_span"] == 0
        assert got["input_strides"] == got["output_strides"] == [0] * 6
    # The hand-computed manifest literals, the rule-derived fields and the
    # golden bytes all agree.
    literal = blank_fields()
    literal.update(case["fields"])
    assert_descriptor_equal(ref_pack(literal), data, f"{case['name']}: manifest literals vs golden")
    assert_descriptor_equal(ref_pack(expect), data, f"{case['name']}: lowering rules vs golden")


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_encoder_reproduces_golden(case):
    golden = read_hex(case["golden"])
    plan = ok(ev.check_inference(manifest_request(case)), case["name"])
    if "bind" in case:
        b = case["bind"]
        packet = ok(ev.encode(plan, [DeviceRegion(*b["input"])], [DeviceRegion(*b["output"])]), "encode")
        relocatable = ok(ev.encode_relocatable(plan), "encode_relocatable")
        expect_reloc = set_field(set_field(golden, "input_address", 0), "output_address", 0)
        assert_descriptor_equal(relocatable.descriptor, expect_reloc, f"{case['name']} relocatable")
    else:
        packet = ok(ev.encode_relocatable(plan), "encode_relocatable")
    assert isinstance(packet.descriptor, bytes)
    assert_descriptor_equal(packet.descriptor, golden, case["name"])
    assert packet.empty == (case["fields"]["count"] == 0)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_decoder_accepts_golden(case):
    golden = read_hex(case["golden"])
    desc = ok(ev.decode(golden), case["name"])
    f = case["fields"]
    rank = f["rank"]
    assert desc.conversion is {0: F32, 1: BF16, 2: F16}[f["conversion"]]
    assert desc.rounding.value == f["rounding"]
    assert (desc.rank, desc.flags, desc.count) == (rank, f["flags"], f["count"])
    assert (desc.input_span, desc.output_span) == (f["input_span"], f["output_span"])
    assert desc.extents == tuple(f["extents"])
    assert desc.input_strides == tuple(f["input_strides"][:rank])
    assert desc.output_strides == tuple(f["output_strides"][:rank])
    assert (desc.multiplier_bits, desc.zero_point) == (f["multiplier"], f["zero_point"])
    assert (desc.input_address, desc.output_address) == (f["input_address"], f["output_address"])
    assert desc.bound == bool(f["input_address"])
    assert desc.entry == f["conversion"] * 4 + f["rounding"]
    assert check_decoded_consistent(desc, golden) is None


# ------------------------------------------- the decoder reads each field where documented

BASE_SHAPE = (2, 1, 3, 4)   # rank 4: two unused axes, one singleton axis


def base_descriptor(dtype=BF16):
    """A valid bound descriptor built with this suite's layout."""
    fields = ref_fields(BASE_SHAPE, dtype, multiplier_bits=0x3E99999A, zero_point=-5,
                        rounding="toward_positive", addresses=(0x10000000, 0x10010000))
    return ref_pack(fields)


def test_base_descriptor_is_valid():
    data = base_descriptor()
    desc = ok(ev.decode(data), "base")
    assert check_decoded_consistent(desc, data) is None
    assert desc.extents == BASE_SHAPE and desc.bound


# Field-value edits the decoder must accept and reflect (attribute, value
# shown by the decoded Descriptor).
ACCEPTED_EDITS = [
    ("conversion", 2, lambda d: d.conversion is F16),                      # BF16 -> FP16, same item size
    ("input_address", 0x10020000, lambda d: d.input_address == 0x10020000),
    ("output_address", 0x10030001, lambda d: d.output_address == 0x10030001),
    ("multiplier", 0x00000001, lambda d: d.multiplier_bits == 0x00000001),
    ("multiplier", 0x7F7FFFFF, lambda d: d.multiplier_bits == 0x7F7FFFFF),
    ("zero_point", -128, lambda d: d.zero_point == -128),
    ("zero_point", 127, lambda d: d.zero_point == 127),
    ("rounding", 0, lambda d: d.rounding is sk.ops.quant.Rounding.NEAREST_EVEN and d.entry == 4),
    ("rounding", 3, lambda d: d.rounding is sk.ops.quant.Rounding.TOWARD_NEGATIVE and d.entry == 7),
]


@pytest.mark.parametrize("name,value,check", ACCEPTED_EDITS, ids=[f"{n}={v:#x}" for n, v, _ in ACCEPTED_EDITS])
def test_decoder_reflects_field_at_its_offset(name, value, check):
    data = set_field(base_descriptor(), name, value)
    desc = ok(ev.decode(data), f"{name}={value:#x}")
    assert check(desc), f"{name}={value:#x} not reflected: {desc}"
    assert check_decoded_consistent(desc, data) is None


# Field edits the decoder must reject, naming the field and its offset.
REJECTED_EDITS = [
    ("magic", 0, 0x3151534C, ("magic", "offset 0")),
    ("version", 0, 2, ("version", "offset 4")),
    ("length", 0, 225, ("length", "offset 6")),
    ("conversion", 0, 3, ("conversion", "offset 8")),
    ("rank", 0, 7, ("rank", "offset 12")),
    ("flags", 0, 4, ("flags", "offset 16")),
    ("reserved0", 0, 1, ("reserved", "offset 20")),
    ("input_address", 0, 1 << 32, ("input_address", "offset 24")),
    ("output_address", 0, 1 << 32, ("output_address", "offset 32")),
    ("count", 0, 25, ("count", "offset 40")),
    ("input_span", 0, 49, ("input_span", "offset 48")),
    ("output_span", 0, 25, ("output_span", "offset 56")),
    ("extents", 0, 1 << 32, ("extents[0]", "offset 64")),
    ("extents", 3, 1 << 32, ("extents[3]", "offset 88")),
    ("extents", 4, 1, ("unused axis 4", "96")),
    ("extents", 5, 1, ("unused axis 5", "104")),
    ("input_strides", 0, 25, ("input_strides[0]", "offset 112")),        # not a multiple of 2
    ("input_strides", 1, 2, ("input_strides[1]", "offset 120")),         # singleton not 0
    ("input_strides", 3, 0, ("input_strides[3]", "offset 136")),         # zero on extent 4
    ("input_strides", 4, 2, ("unused axis 4", "144")),
    ("output_strides", 1, 7, ("output_strides[1]", "offset 168")),
    ("output_strides", 2, 0, ("output_strides[2]", "offset 176")),
    ("output_strides", 5, 1, ("unused axis 5", "200")),
    ("multiplier", 0, 0, ("multiplier", "offset 208")),
    ("zero_point", 0, 128, ("zero_point", "offset 212")),
    ("rounding", 0, 4, ("rounding", "offset 216")),
    ("reserved1", 0, 1, ("reserved", "offset 220")),
]


@pytest.mark.parametrize("name,index,value,tokens", REJECTED_EDITS,
                         ids=[f"{n}[{i}]={v:#x}" for n, i, v, _ in REJECTED_EDITS])
def test_decoder_names_field_at_its_offset(name, index, value, tokens):
    data = set_field(base_descriptor(), name, value, index)
    assert_error(ev.decode(data), ErrorCode.INVALID_DESCRIPTOR, *tokens, what=f"{name}[{index}]={value:#x}")


# For a change at a byte offset: the tokens any rejection message may name
# (the field itself, or the field its consistency check is stated on).
ALLOWED_NAMES = {
    "magic": ("magic",), "version": ("version",), "length": ("length",),
    "conversion": ("conversion", "input_strides", "input_span", "input_address"),
    "rank": ("rank", "unused axis", "count", "flags"), "flags": ("flags",), "reserved0": ("offset 20",),
    "input_address": ("input_address",), "output_address": ("output_address",), "count": ("count",),
    "input_span": ("input_span",), "output_span": ("output_span",), "extents": ("extents", "count"),
    "input_strides": ("input_strides", "input_span"), "output_strides": ("output_strides", "output_span"),
    "multiplier": ("multiplier",), "zero_point": ("zero_point",), "rounding": ("rounding",),
    "reserved1": ("offset 220",),
}


@pytest.mark.parametrize("dtype", [F32, BF16], ids=["f32", "bf16"])
def test_every_byte_flip_is_attributed_to_its_field(dtype):
    """Each of the 224 bytes, xor 0x01 / 0x80 / 0xff: rejected with a message
    naming the field at that offset (or the field its consistency is stated
    on), or accepted with the decoded fields reproducing the changed bytes."""
    base = base_descriptor(dtype)
    failures = []
    for offset in range(SIZE):
        f, index = field_at(offset)
        if f.count > 1 and index >= 4:
            allowed = ("unused axis",)
        else:
            allowed = ALLOWED_NAMES[f.name]
        for mask in (0x01, 0x80, 0xFF):
            data = bytearray(base)
            data[offset] ^= mask
            data = bytes(data)
            got = ev.decode(data)
            if isinstance(got, sk.Error):
                if got.code is not ErrorCode.INVALID_DESCRIPTOR or not any(a in got.message for a in allowed):
                    failures.append(f"byte {offset} ({f.name}[{index}]) ^ {mask:#04x}: {got.code.name}: {got.message}")
            else:
                report = check_decoded_consistent(got, data)
                if report:
                    failures.append(f"byte {offset} ^ {mask:#04x} accepted inconsistently: {report}")
    assert not failures, f"{len(failures)} misattributed flips:\n" + "\n".join(failures[:20])


def test_descriptor_is_little_endian():
    """Multi-byte fields are little-endian: a bound packet's slot bytes."""
    case = next(c for c in CASES if "bind" in c)
    plan = ok(ev.check_inference(manifest_request(case)))
    packet = ok(ev.encode(plan, [DeviceRegion(0x12345678, 4096)], [DeviceRegion(0x01020304, 4096)]))
    d = packet.descriptor
    assert d[24:32] == bytes.fromhex("7856341200000000"), describe(d)
    assert d[32:40] == bytes.fromhex("0403020100000000"), describe(d)
    assert get_field(d, "zero_point") == 42 and d[212:216] == bytes.fromhex("2a000000")
    neg = ok(ev.encode_relocatable(ev_plan((2,), F32, zero_point=-2)))
    assert neg.descriptor[212:216] == bytes.fromhex("feffffff")
