"""EV74 test support: an independent descriptor layout, hand-written
lowering rules, golden-file I/O, oracle input pools and a device-run harness
that checks output bytes, untouched memory and the recorded work units.

Nothing here computes an expectation with the code under test:

* the descriptor layout is transcribed field by field from the documented table (docs/ev74_descriptor.md)
  (explicit offsets, one ``struct.pack_into`` per field) rather than copied
  from ``simakernels/ev74/descriptor.py``;
* the lowering (scalar -> rank 1, singleton strides -> 0, empty -> strides 0,
  accessed spans) is re-derived here from the shape and byte strides alone;
* expected INT8 values come from ``tests/oracle`` (``quant_many``,
  ``quant_table``), looked up by input pattern;
* expected work-unit geometry (common contiguous suffix, DMA block sizes) is
  written from the specification's "Data movement" section.

Beyond ``element_offsets`` and ``in_sanitizer_process`` of helpers.py, it
imports none of the support modules other suites own.
"""
from __future__ import annotations

import functools
import json
import os
import struct
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import ml_dtypes
import numpy as np
import pytest

from support.helpers import element_offsets, in_sanitizer_process

import simakernels as sk
from oracle import BFLOAT16, BINARY16, BINARY32, quant_many, quant_table

F32 = sk.DType.FLOAT32
BF16 = sk.DType.BFLOAT16
F16 = sk.DType.FLOAT16
I8 = sk.DType.INT8
Rounding = sk.ops.quant.Rounding
ErrorCode = sk.ErrorCode
ev = sk.ev74.quant
DeviceRegion = sk.ev74.DeviceRegion

DTYPES = {"f32": F32, "bf16": BF16, "f16": F16}
ITEM = {F32: 4, BF16: 2, F16: 2}
CONVERSION = {F32: 0, BF16: 1, F16: 2}           # the documented codes: 0 FP32, 1 BF16, 2 FP16
ROUNDING_CODE = {"nearest_even": 0, "toward_zero": 1, "toward_positive": 2, "toward_negative": 3}
MODES = tuple(ROUNDING_CODE)
FORMAT = {F32: BINARY32, BF16: BFLOAT16, F16: BINARY16}
NUMPY_FLOAT = {F32: np.dtype(np.float32), BF16: np.dtype(ml_dtypes.bfloat16), F16: np.dtype(np.float16)}
UINT = {F32: np.dtype("<u4"), BF16: np.dtype("<u2"), F16: np.dtype("<u2")}

# (dtype id, rounding mode): the 12 numerical entries, entry = conversion * 4 + rounding.
ENTRIES = [(d, m) for d in DTYPES for m in MODES]
ENTRY_IDS = [f"{d}-{m}" for d, m in ENTRIES]

SENTINEL = 0xA5
DOMAIN = 1 << 32
DMA_MIN, VECTOR_MIN = 128, 16                     # specification, "Data movement"
DMA_BLOCK = {F32: 4096, BF16: 8192, F16: 8192}    # elements per DMA block

DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "ev74")


# ------------------------------------------------------------ descriptor layout
# Transcribed from the documented layout (docs/ev74_descriptor.md): offset, struct
# code, element count.  224 bytes, little-endian.


@dataclass(frozen=True)
class Field:
    name: str
    offset: int
    code: str      # struct code of one element
    count: int = 1

    @property
    def width(self) -> int:
        return struct.calcsize("<" + self.code)

    @property
    def size(self) -> int:
        return self.width * self.count

    def element_offset(self, index: int = 0) -> int:
        return self.offset + index * self.width


FIELDS: Tuple[Field, ...] = (
    Field("magic", 0, "I"),
    Field("version", 4, "H"),
    Field("length", 6, "H"),
    Field("conversion", 8, "I"),
    Field("rank", 12, "I"),
    Field("flags", 16, "I"),
    Field("reserved0", 20, "I"),
    Field("input_address", 24, "Q"),
    Field("output_address", 32, "Q"),
    Field("count", 40, "Q"),
    Field("input_span", 48, "Q"),
    Field("output_span", 56, "Q"),
    Field("extents", 64, "Q", 6),
    Field("input_strides", 112, "Q", 6),
    Field("output_strides", 160, "Q", 6),
    Field("multiplier", 208, "I"),
    Field("zero_point", 212, "i"),
    Field("rounding", 216, "I"),
    Field("reserved1", 220, "I"),
)
FIELD = {f.name: f for f in FIELDS}
SIZE = 224
MAGIC = 0x3151534B
VERSION = 1
FLAG_SCALAR = 1
ARRAY_FIELDS = ("extents", "input_strides", "output_strides")
# The C constants each field must match (SK_EV74_OFF_<NAME>).
C_NAMES = {
    "magic": "MAGIC", "version": "VERSION", "length": "LENGTH", "conversion": "CONVERSION",
    "rank": "RANK", "flags": "FLAGS", "reserved0": "RESERVED0", "input_address": "INPUT_ADDRESS",
    "output_address": "OUTPUT_ADDRESS", "count": "COUNT", "input_span": "INPUT_SPAN",
    "output_span": "OUTPUT_SPAN", "extents": "EXTENTS", "input_strides": "INPUT_STRIDES",
    "output_strides": "OUTPUT_STRIDES", "multiplier": "MULTIPLIER", "zero_point": "ZERO_POINT",
    "rounding": "ROUNDING", "reserved1": "RESERVED1",
}


def field_at(offset: int) -> Tuple[Field, int]:
    """The field holding byte ``offset`` and the element index within it."""
    for f in FIELDS:
        if f.offset <= offset < f.offset + f.size:
            return f, (offset - f.offset) // f.width
    raise ValueError(offset)


def blank_fields() -> Dict[str, object]:
    """A field dict with the fixed header and everything else zero."""
    fields: Dict[str, object] = {f.name: ([0] * 6 if f.count > 1 else 0) for f in FIELDS}
    fields.update(magic=MAGIC, version=VERSION, length=SIZE)
    return fields


def ref_pack(fields: Dict[str, object]) -> bytes:
    """Descriptor bytes from a field dict (arrays may be shorter than 6: the
    rest is zero).  Values are packed exactly (struct raises if one does not
    fit its field, so tests can never write an ambiguous value)."""
    out = bytearray(SIZE)
    for f in FIELDS:
        value = fields[f.name]
        if f.count > 1:
            values = list(value) + [0] * (f.count - len(value))  # type: ignore[arg-type]
            assert len(values) == f.count, f"{f.name}: more than {f.count} values"
            for i, v in enumerate(values):
                struct.pack_into("<" + f.code, out, f.element_offset(i), v)
        else:
            struct.pack_into("<" + f.code, out, f.offset, value)
    return bytes(out)


def ref_unpack(data: bytes) -> Dict[str, object]:
    assert len(data) == SIZE
    fields: Dict[str, object] = {}
    for f in FIELDS:
        values = [struct.unpack_from("<" + f.code, data, f.element_offset(i))[0] for i in range(f.count)]
        fields[f.name] = values if f.count > 1 else values[0]
    return fields


def set_field(data: bytes, name: str, value: int, index: int = 0) -> bytes:
    """A copy of ``data`` with one field (or array element) replaced."""
    f = FIELD[name]
    out = bytearray(data)
    struct.pack_into("<" + f.code, out, f.element_offset(index), value)
    return bytes(out)


def get_field(data: bytes, name: str, index: int = 0) -> int:
    f = FIELD[name]
    return struct.unpack_from("<" + f.code, data, f.element_offset(index))[0]


def describe(data: bytes) -> str:
    """One line per field, in hex (for failure reports)."""
    lines = []
    for f in FIELDS:
        for i in range(f.count):
            off = f.element_offset(i)
            raw = data[off:off + f.width]
            label = f.name if f.count == 1 else f"{f.name}[{i}]"
            value = struct.unpack("<" + f.code, raw)[0]
            lines.append(f"  {off:03d} {label:<18} {raw.hex()}  = {value:#x}")
    return "\n".join(lines)


def field_diff(got: bytes, expected: bytes) -> str:
    """The fields where two descriptors differ, with offsets and hex bytes."""
    if len(got) != SIZE or len(expected) != SIZE:
        return f"lengths: got {len(got)}, expected {len(expected)}\n got {got.hex()}\n exp {expected.hex()}"
    lines = []
    for f in FIELDS:
        for i in range(f.count):
            off = f.element_offset(i)
            a, b = got[off:off + f.width], expected[off:off + f.width]
            if a != b:
                label = f.name if f.count == 1 else f"{f.name}[{i}]"
                lines.append(f"  offset {off:3d} {label}: got {a.hex()} expected {b.hex()}")
    return "\n".join(lines) or "  (identical)"


def assert_descriptor_equal(got: bytes, expected: bytes, what: str = "") -> None:
    if got != expected:
        pytest.fail(f"{what}: descriptor bytes differ\n{field_diff(got, expected)}", pytrace=False)


# ------------------------------------------------------------------ lowering


def contiguous_strides(shape: Sequence[int], item: int) -> Tuple[int, ...]:
    strides, step = [], item
    for extent in reversed(tuple(shape)):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def product(values: Iterable[int]) -> int:
    result = 1
    for v in values:
        result *= v
    return result


def accessed_span(shape: Sequence[int], strides: Sequence[int], item: int) -> int:
    if product(shape) == 0:
        return 0
    return item + sum((e - 1) * s for e, s in zip(shape, strides))


def ref_fields(shape, dtype, in_strides=None, out_strides=None, *, multiplier_bits: int,
               zero_point: int = 0, rounding: str = "nearest_even",
               addresses: Tuple[int, int] = (0, 0)) -> Dict[str, object]:
    """The descriptor fields of a request, derived from the documented
    lowering rules (docs/ev74_descriptor.md) with no call into the package."""
    shape = tuple(shape)
    item = ITEM[dtype]
    s_in = contiguous_strides(shape, item) if in_strides is None else tuple(in_strides)
    s_out = contiguous_strides(shape, 1) if out_strides is None else tuple(out_strides)
    count = product(shape)
    fields = blank_fields()
    flags = 0
    if not shape:                      # scalar: rank 1, extent 1, stride 0, flag bit 0
        shape, s_in, s_out, flags = (1,), (0,), (0,), FLAG_SCALAR
    if count == 0:
        s_in = s_out = (0,) * len(shape)
    else:                              # singleton strides normalised to 0
        s_in = tuple(s if e > 1 else 0 for e, s in zip(shape, s_in))
        s_out = tuple(s if e > 1 else 0 for e, s in zip(shape, s_out))
    fields.update(
        conversion=CONVERSION[dtype], rank=len(shape), flags=flags,
        input_address=addresses[0], output_address=addresses[1], count=count,
        input_span=accessed_span(shape, s_in, item), output_span=accessed_span(shape, s_out, 1),
        extents=list(shape), input_strides=list(s_in), output_strides=list(s_out),
        multiplier=multiplier_bits, zero_point=zero_point, rounding=ROUNDING_CODE[rounding],
    )
    return fields


def fields_of_decoded(desc) -> Dict[str, object]:
    """Field dict of a decoded :class:`sk.ev74.quant.Descriptor` (for
    re-encoding with :func:`ref_pack`)."""
    fields = blank_fields()
    fields.update(
        conversion=CONVERSION[desc.conversion], rank=desc.rank, flags=desc.flags,
        input_address=desc.input_address, output_address=desc.output_address,
        count=desc.count, input_span=desc.input_span, output_span=desc.output_span,
        extents=list(desc.extents), input_strides=list(desc.input_strides),
        output_strides=list(desc.output_strides), multiplier=desc.multiplier_bits,
        zero_point=desc.zero_point, rounding=desc.rounding.value,
    )
    return fields


def check_decoded_consistent(desc, data: bytes) -> Optional[str]:
    """None when the decoded fields re-encode (independently) to exactly
    ``data`` and the derived values agree, else a report."""
    problems = []
    if len(desc.extents) != desc.rank or len(desc.input_strides) != desc.rank or len(desc.output_strides) != desc.rank:
        problems.append(f"axis tuples do not have rank {desc.rank} entries")
    else:
        again = ref_pack(fields_of_decoded(desc))
        if again != bytes(data):
            problems.append("re-encoded fields differ from the accepted bytes:\n" + field_diff(again, bytes(data)))
    if desc.entry != CONVERSION[desc.conversion] * 4 + desc.rounding.value:
        problems.append(f"entry {desc.entry} is not conversion*4+rounding")
    if desc.bound != (desc.input_address != 0 and desc.output_address != 0):
        problems.append(f"bound={desc.bound} with addresses {desc.input_address:#x}/{desc.output_address:#x}")
    if desc.empty != (desc.count == 0):
        problems.append("empty disagrees with count")
    return "; ".join(problems) or None


# --------------------------------------------------------------- requests


def tensor_spec(shape, dtype, strides=None) -> sk.TensorSpec:
    return sk.TensorSpec(shape, dtype, sk.Contiguous() if strides is None else sk.Strided(strides))


def quant_request(shape, dtype, in_strides=None, out_strides=None, *, multiplier_bits: int = 0x3F800000,
                  zero_point: int = 0, rounding: str = "nearest_even") -> sk.ops.quant.Request:
    params = sk.ops.quant.Params.from_bits(multiplier_bits, zero_point, rounding)
    return sk.ops.quant.Request([tensor_spec(shape, dtype, in_strides)], [tensor_spec(shape, I8, out_strides)], params)


def ok(value, what: str = ""):
    """``value`` unless it is an ``sk.Error`` (then the test fails)."""
    assert not isinstance(value, sk.Error), f"{what}: unexpected {value.code.name}: {value.message}"
    return value


def ev_plan(*args, **kwargs):
    return ok(ev.check_inference(quant_request(*args, **kwargs)), "check_inference")


def assert_error(value, code: ErrorCode, *tokens: str, what: str = "") -> None:
    """``value`` is an ``sk.Error`` with ``code`` whose message mentions every
    token (case-insensitive)."""
    assert isinstance(value, sk.Error), f"{what}: expected {code.name}, got {value!r}"
    assert value.code is code, f"{what}: expected {code.name}, got {value.code.name}: {value.message}"
    message = value.message.lower()
    missing = [t for t in tokens if t.lower() not in message]
    assert not missing, f"{what}: message {value.message!r} does not mention {missing}"


# ------------------------------------------------------------ golden files


def load_manifest() -> List[dict]:
    with open(os.path.join(DATA_DIR, "manifest.json")) as fh:
        return json.load(fh)["cases"]


def read_hex(name: str) -> bytes:
    """Golden bytes: hex digits before '#' on each line (comments name the
    offset and field)."""
    data = bytearray()
    with open(os.path.join(DATA_DIR, name)) as fh:
        for line in fh:
            data += bytes.fromhex(line.split("#", 1)[0])
    return bytes(data)


def hex_annotated_offsets(name: str) -> List[Tuple[int, int, str]]:
    """(annotated offset, actual offset, label) for each data line."""
    rows, position = [], 0
    with open(os.path.join(DATA_DIR, name)) as fh:
        for line in fh:
            data, _, comment = line.partition("#")
            raw = bytes.fromhex(data)
            if raw:
                annotated, label = comment.split(None, 1)
                rows.append((int(annotated), position, label.split("=")[0].strip()))
                position += len(raw)
    return rows


def format_hex(data: bytes, title: str) -> str:
    """The golden-file text for descriptor bytes (one line per field)."""
    lines = [f"# {title}", "# simaai_kernels_ev74_quant_v1 descriptor, 224 bytes little-endian;",
             "# hex bytes in memory order, then '# offset field = value'."]
    for f in FIELDS:
        for i in range(f.count):
            off = f.element_offset(i)
            raw = data[off:off + f.width]
            label = f.name if f.count == 1 else f"{f.name}[{i}]"
            value = struct.unpack("<" + f.code, raw)[0]
            hexadecimal = f.name in ("magic", "multiplier", "input_address", "output_address")
            shown = f"{value:#x}" if hexadecimal else str(value)
            lines.append(f"{raw.hex():<18} # {off:03d} {label} = {shown}")
    return "\n".join(lines) + "\n"


def manifest_request(case: dict):
    r = case["request"]
    return quant_request(
        tuple(r["shape"]), DTYPES[r["dtype"]], r.get("input_strides"), r.get("output_strides"),
        multiplier_bits=int(r["multiplier_bits"], 16), zero_point=r["zero_point"], rounding=r["rounding"],
    )


# --------------------------------------------------------------- input pools
# Per-format special patterns (hand-written): signed zeros, subnormals, the
# smallest normal, +-0.5/1/1.5/2.5 (integer-rounding ties), 15 and 200 (the
# specification's examples), the largest finite, infinities and NaNs
# (quiet, signaling, both signs, extreme payloads).
SPECIALS = {
    F32: (0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0xBF800000,
          0x3F000000, 0xBF000000, 0x3FC00000, 0xBFC00000, 0x40200000, 0xC0200000, 0x41700000, 0x43480000,
          0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001,
          0x7FFFFFFF),
    BF16: (0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x3F80, 0xBF80, 0x3F00, 0xBF00, 0x3FC0, 0xBFC0,
           0x4020, 0xC020, 0x4170, 0x4348, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0xFF81,
           0x7FFF),
    F16: (0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3800, 0xB800, 0x3E00, 0xBE00,
          0x4100, 0xC100, 0x4B80, 0x5A40, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0xFC01,
          0x7FFF),
}
POOL_SIZE = 1024


@functools.lru_cache(maxsize=None)
def input_pool(dtype: sk.DType) -> np.ndarray:
    """POOL_SIZE distinct-ish input patterns: the specials, moderate values on
    a quarter grid (products land inside INT8 with fraction bits), small
    values near the rounding ties, and random bit patterns."""
    rng = np.random.default_rng(0xE774 + CONVERSION[dtype])
    specials = np.array(SPECIALS[dtype], dtype=UINT[dtype])
    moderate = (rng.integers(-2800, 2801, size=560) / 4.0).astype(NUMPY_FLOAT[dtype]).view(UINT[dtype])
    near_ties = (rng.integers(-64, 65, size=200) / 8.0).astype(NUMPY_FLOAT[dtype]).view(UINT[dtype])
    random_bits = rng.integers(0, 1 << (8 * ITEM[dtype]), size=POOL_SIZE - 760 - len(specials),
                               dtype=np.uint64).astype(UINT[dtype])
    pool = np.concatenate([specials, moderate, near_ties, random_bits]).astype(UINT[dtype])
    assert pool.size == POOL_SIZE
    return pool


@functools.lru_cache(maxsize=None)
def pool_expected(dtype: sk.DType, multiplier_bits: int, zero_point: int, mode: str) -> np.ndarray:
    """Oracle INT8 results (as uint8 bytes) for every pool pattern."""
    values = quant_many(input_pool(dtype).tolist(), FORMAT[dtype], multiplier_bits, zero_point, mode)
    return np.array(values, dtype=np.int64).astype(np.int8).view(np.uint8)


def oracle_bytes(dtype: sk.DType, bits: np.ndarray, multiplier_bits: int, zero_point: int, mode: str) -> np.ndarray:
    """Oracle INT8 results (uint8 bytes) of arbitrary input patterns; 16-bit
    formats use the cached exhaustive table."""
    if dtype is F32:
        values = quant_many(np.asarray(bits).tolist(), BINARY32, multiplier_bits, zero_point, mode)
        return np.array(values, dtype=np.int64).astype(np.int8).view(np.uint8)
    table = np.array(quant_table(FORMAT[dtype], multiplier_bits, zero_point, mode), dtype=np.int64)
    return table.astype(np.int8).view(np.uint8)[np.asarray(bits, dtype=np.int64)]


def draw(dtype: sk.DType, count: int, seed: int, multiplier_bits: int, zero_point: int, mode: str):
    """``count`` input patterns and their oracle bytes; the specials come
    first (rotated by the seed) so short tensors still see them."""
    rng = np.random.default_rng(seed)
    index = rng.integers(0, POOL_SIZE, size=count)
    head = min(count, len(SPECIALS[dtype]))
    index[:head] = (np.arange(head) + seed) % len(SPECIALS[dtype])
    return input_pool(dtype)[index], pool_expected(dtype, multiplier_bits, zero_point, mode)[index]


# ------------------------------------------------------------ device harness


def common_suffix(shape: Sequence[int], s_in: Sequence[int], s_out: Sequence[int], item: int) -> int:
    """Elements in the common contiguous suffix of both ports (the
    specification's span selection): innermost axes whose strides continue a
    dense run in both ports; extent-1 axes are inert."""
    run = 1
    for extent, a, b in zip(reversed(tuple(shape)), reversed(tuple(s_in)), reversed(tuple(s_out))):
        if extent == 1:
            continue
        if a != item * run or b != run:
            break
        run *= extent
    return run


def expected_kind(run: int) -> str:
    return "dma" if run >= DMA_MIN else "vector" if run >= VECTOR_MIN else "scatter"


def expected_unit_count(count: int, run: int, dtype: sk.DType) -> int:
    """Work units the specification's geometry implies."""
    kind = expected_kind(run)
    if kind == "scatter":
        return count
    rows = count // run
    return rows if kind == "vector" else rows * -(-run // DMA_BLOCK[dtype])


@dataclass
class DeviceRun:
    what: str
    completion: object
    count: int
    run: int
    bound: object
    arena: "Arena"
    before: np.ndarray        # the arena image submitted (inputs + sentinel)
    after: np.ndarray         # the arena image after completion
    in_addr: int
    out_addr: int
    expected: np.ndarray


def check_completion(completion, *, dtype: sk.DType, in_addr: int, out_addr: int, in_offsets: np.ndarray,
                     out_offsets: np.ndarray, run: Optional[int], configured: int = 4,
                     unit_count: Optional[int] = None) -> List[str]:
    """Problems with a Completion's work units (empty list when fine):
    exactly-once coverage of every logical element with matching input and
    output element, no gap touched, kinds and counts, CPU assignment and
    order, ping-pong slots."""
    item = ITEM[dtype]
    problems: List[str] = []
    units = list(completion.units)
    n = len(out_offsets)
    out_index = {out_addr + int(o): i for i, o in enumerate(out_offsets)}
    in_index = {in_addr + int(o): i for i, o in enumerate(in_offsets)}
    hits = np.zeros(n, dtype=np.int64)
    first_index = []
    for k, u in enumerate(units):
        if u.count < 1:
            problems.append(f"unit {k} ({u}) has count {u.count}")
            first_index.append(-1)
            continue
        if u.kind == "scatter" and u.count != 1:
            problems.append(f"scatter unit {k} covers {u.count} elements")
        if u.kind == "dma" and u.count > DMA_BLOCK[dtype]:
            problems.append(f"dma unit {k} count {u.count} exceeds the {DMA_BLOCK[dtype]}-element block")
        if u.kind == "vector" and not VECTOR_MIN <= u.count < DMA_MIN:
            problems.append(f"vector unit {k} count {u.count} outside 16..127")
        start = None
        for j in range(u.count):
            o = u.output_address + j
            a = u.input_address + j * item
            oi, ii = out_index.get(o), in_index.get(a)
            if oi is None:
                problems.append(f"unit {k} ({u.kind}, cpu {u.cpu}) writes output {o:#x}, not a logical element (gap)")
                break
            if ii is None:
                problems.append(f"unit {k} ({u.kind}, cpu {u.cpu}) reads input {a:#x}, not a logical element")
                break
            if ii != oi:
                problems.append(f"unit {k}: input {a:#x} is element {ii} but output {o:#x} is element {oi}")
                break
            hits[oi] += 1
            if start is None:
                start = oi
        first_index.append(-1 if start is None else start)
    if (hits != 1).any():
        bad = np.flatnonzero(hits != 1)
        problems.append(f"{bad.size} element(s) not covered exactly once, e.g. index {int(bad[0])} "
                        f"(output {out_addr + int(out_offsets[bad[0]]):#x}) covered {int(hits[bad[0]])} times")
    if unit_count is not None and len(units) != unit_count:
        problems.append(f"{len(units)} units, expected {unit_count}")
    if run is not None and units:
        kind = expected_kind(run)
        kinds = sorted({u.kind for u in units})
        if kinds != [kind]:
            problems.append(f"unit kinds {kinds}, expected only {kind!r} (common contiguous suffix {run})")
    # Dispatch: one unit -> CPU0 alone; otherwise the whole ring (<= 4).
    if len(units) == 1:
        if completion.workgroups != 1 or units[0].cpu != 0:
            problems.append(f"one unit: workgroups {completion.workgroups} cpu {units[0].cpu}, expected 1 and 0")
    elif len(units) > 1:
        ring = min(configured, 4)
        if completion.workgroups != ring:
            problems.append(f"{len(units)} units: workgroups {completion.workgroups}, expected {ring}")
        rank = {cpu: r for r, cpu in enumerate(list(range(1, ring)) + [0])}
        order = [rank.get(u.cpu, -1) for u in units]
        if min(order) < 0:
            problems.append(f"cpus {sorted({u.cpu for u in units})} outside the ring of {ring}")
        elif order != sorted(order):
            problems.append(f"execution order of cpus {[u.cpu for u in units]} is not 1..{ring - 1} then 0")
        # Units are split in logical order: CPU w's units precede CPU w+1's.
        by_logical = sorted(zip(first_index, [u.cpu for u in units]))
        cpus_in_logical_order = [c for _, c in by_logical]
        if cpus_in_logical_order != sorted(cpus_in_logical_order):
            problems.append(f"units are not split in logical order: cpus by first element {cpus_in_logical_order}")
    zero = [u for u, i in zip(units, first_index) if i == 0]
    if zero and zero[0].cpu != 0:
        problems.append(f"unit 0 (logical element 0, input {zero[0].input_address:#x}) ran on cpu {zero[0].cpu}, "
                        "expected cpu 0")
    # Ping-pong: the DMA units of one CPU alternate slots 0, 1, 0, ...
    for cpu in sorted({u.cpu for u in units}):
        slots = [u.slot for u in units if u.cpu == cpu and u.kind == "dma"]
        if slots != [k % 2 for k in range(len(slots))]:
            problems.append(f"cpu {cpu} dma slots {slots}, expected alternating 0/1")
        others = [u.slot for u in units if u.cpu == cpu and u.kind != "dma"]
        if any(s not in (-1, None) for s in others):
            problems.append(f"cpu {cpu} non-dma units carry slots {others}")
    return problems


class Arena:
    """A sentinel-filled window of a host Device: regions are carved at
    chosen addresses, and after a run every byte of the window other than the
    logical output elements must be unchanged."""

    def __init__(self, device, nbytes: int, offset: int = 0x100):
        self.device = device
        self.start = device.base + offset
        self.nbytes = nbytes
        assert self.start + nbytes <= device.base + device.size, "arena beyond the device model"
        self.snapshot = np.full(nbytes, SENTINEL, dtype=np.uint8)
        device.write(self.start, self.snapshot)

    def write(self, address: int, data: np.ndarray) -> None:
        data = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        self.device.write(address, data)
        lo = address - self.start
        self.snapshot[lo:lo + data.size] = data

    def read(self) -> np.ndarray:
        return np.frombuffer(self.device.read(self.start, self.nbytes), dtype=np.uint8).copy()


def run_on_device(device, shape, dtype: sk.DType, in_strides=None, out_strides=None, *,
                  multiplier_bits: int = 0x3E99999A, zero_point: int = -3, mode: str = "nearest_even",
                  seed: int = 0, in_phase: int = 0, out_phase: int = 0, excess: int = 23,
                  values: Optional[Tuple[np.ndarray, np.ndarray]] = None, expect_units: Optional[int] = None,
                  expect_kind: bool = True, plan=None, packet=None, arena_offset: int = 0x100) -> DeviceRun:
    """Encode (or bind ``packet``) -> submit on the host device model, then
    check every logical output byte against the oracle, every other byte of
    the arena (input, gaps, excess capacity, guards) unchanged, and the
    Completion's work units.  Returns the run for further checks."""
    shape = tuple(shape)
    item = ITEM[dtype]
    s_in = contiguous_strides(shape, item) if in_strides is None else tuple(in_strides)
    s_out = contiguous_strides(shape, 1) if out_strides is None else tuple(out_strides)
    what = (f"{dtype.name} {mode} m={multiplier_bits:#010x} zp={zero_point} shape {shape} "
            f"in {s_in} out {s_out} phases {in_phase}/{out_phase}")
    if plan is None:
        plan = ev_plan(shape, dtype, in_strides, out_strides, multiplier_bits=multiplier_bits,
                       zero_point=zero_point, rounding=mode)
    in_span, out_span = accessed_span(shape, s_in, item), accessed_span(shape, s_out, 1)
    assert plan.input_requirements()[0].nbytes == in_span and plan.output_requirements()[0].nbytes == out_span
    in_off, out_off = element_offsets(shape, s_in), element_offsets(shape, s_out)
    count = len(out_off)
    arena = Arena(device, 64 + in_span + excess + 192 + out_span + excess + 64, arena_offset)
    in_addr = arena.start + 64 + in_phase
    out_addr = -(-(in_addr + in_span + excess + 128) // 64) * 64 + out_phase
    if values is None:
        values = draw(dtype, count, seed, multiplier_bits, zero_point, mode)
    inputs, expected = values
    raw = np.asarray(inputs, dtype=UINT[dtype]).view(np.uint8).reshape(-1, item)
    image = arena.snapshot.copy()       # input elements written byte by byte into the window
    for i in range(item):
        image[in_addr - arena.start + in_off + i] = raw[:, i]
    arena.write(arena.start, image)
    regions = ([DeviceRegion(in_addr, in_span + excess)], [DeviceRegion(out_addr, out_span + excess)])
    if packet is None:
        bound = ok(ev.encode(plan, *regions), f"{what}: encode")
    else:
        bound = ok(ev.bind(packet, plan, *regions), f"{what}: bind")
    result = device.submit(bound).result(timeout=600)
    ok(result, f"{what}: submit")
    after = arena.read()
    got = after[out_addr - arena.start + out_off]
    problems = []
    bad = np.flatnonzero(got != expected)
    if bad.size:
        w = 2 * item
        rows = [f"  index {int(i)} {np.unravel_index(int(i), shape) if shape else ()}: input 0x{int(inputs[i]):0{w}x} "
                f"expected 0x{int(expected[i]):02x} got 0x{int(got[i]):02x}" for i in bad[:10]]
        problems.append(f"{bad.size} of {count} output elements differ\n" + "\n".join(rows))
    problems += untouched_problems(arena.snapshot, after, arena.start, out_addr - arena.start + out_off)
    run = common_suffix(shape, s_in, s_out, item) if count else 0
    problems += check_completion(
        result, dtype=dtype, in_addr=in_addr, out_addr=out_addr, in_offsets=in_off, out_offsets=out_off,
        run=run if expect_kind else None, configured=device.workgroups,
        unit_count=expect_units,
    )
    if problems:
        pytest.fail(f"{what}:\n" + "\n".join(problems), pytrace=False)
    return DeviceRun(what, result, count, run, bound, arena, arena.snapshot.copy(), after, in_addr, out_addr,
                     np.asarray(expected))


def untouched_problems(before: np.ndarray, after: np.ndarray, start: int, written=None) -> List[str]:
    """Bytes that changed outside the ``written`` indices, in hex."""
    mask = np.ones(before.size, dtype=bool)
    if written is not None:
        mask[written] = False
    changed = np.flatnonzero((after != before) & mask)
    if not changed.size:
        return []
    shown = ", ".join(f"{start + int(i):#x}: {int(before[i]):#04x}->{int(after[i]):#04x}" for i in changed[:12])
    return [f"{changed.size} byte(s) outside the logical output elements changed: {shown}"]


# ------------------------------------------------------- reference validator


def ref_validate(data: bytes) -> Tuple[Optional[str], bool]:
    """Independent statement of the documented decoder rules
    (docs/ev74_descriptor.md, "Native decoder"): ``(reason, certain)`` where
    ``reason`` is None for a valid descriptor.  ``certain`` is False only for
    a case the documentation leaves open (an empty descriptor with exactly
    one relocation slot set: nothing is accessed), where either answer is
    acceptable."""
    if not isinstance(data, (bytes, bytearray)) or len(data) != SIZE:
        return "length", True
    f = ref_unpack(bytes(data))
    if f["magic"] != MAGIC:
        return "magic", True
    if f["version"] != VERSION:
        return "version", True
    if f["length"] != SIZE:
        return "length field", True
    if f["conversion"] not in (0, 1, 2):
        return "conversion", True
    rank = f["rank"]
    if not 1 <= rank <= 6:
        return "rank", True
    if f["flags"] & ~FLAG_SCALAR:
        return "flags", True
    if f["reserved0"] or f["reserved1"]:
        return "reserved", True
    m = f["multiplier"]
    if m == 0 or m >> 31 or (m >> 23) & 0xFF == 0xFF:
        return "multiplier", True
    if not -128 <= f["zero_point"] <= 127:
        return "zero_point", True
    if f["rounding"] > 3:
        return "rounding", True
    extents = f["extents"]
    for name in ARRAY_FIELDS:
        if any(f[name][rank:]):
            return "unused axis", True
    if f["flags"] & FLAG_SCALAR and (rank != 1 or extents[0] != 1):
        return "scalar flag", True
    if any(e >= DOMAIN for e in extents[:rank]):
        return "extent", True
    count = product(extents[:rank])
    if count >= DOMAIN:
        return "count beyond domain", True
    if count != f["count"]:
        return "count", True
    item = (4, 2, 2)[f["conversion"]]
    spans = {}
    for port, size in (("input", item), ("output", 1)):
        strides = f[f"{port}_strides"][:rank]
        if count == 0:
            if any(strides):
                return f"{port} stride on empty", True
            spans[port] = 0
        else:
            for e, s in zip(extents, strides):
                if s % size:
                    return f"{port} stride alignment", True
                if e == 1 and s:
                    return f"{port} singleton stride", True
                if e > 1 and not 0 < s < DOMAIN:
                    return f"{port} stride", True
            span = accessed_span(extents[:rank], strides, size)
            if span >= DOMAIN:
                return f"{port} span beyond domain", True
            covered = size
            for s, e in sorted((s, e) for e, s in zip(extents[:rank], strides) if e > 1):
                if s < covered:
                    return f"{port} overlap", True
                covered += (e - 1) * s
            spans[port] = span
        if f[f"{port}_span"] != spans[port]:
            return f"{port}_span", True
    ia, oa = f["input_address"], f["output_address"]
    half_bound = (ia == 0) != (oa == 0)
    if half_bound and count:
        return "one slot bound", True
    if ia >= DOMAIN or ia + spans["input"] > DOMAIN:
        return "input_address range", True
    if oa >= DOMAIN or oa + spans["output"] > DOMAIN:
        return "output_address range", True
    if ia % item:
        return "input_address alignment", True
    if ia and oa and count and ia < oa + spans["output"] and oa < ia + spans["input"]:
        return "addresses overlap", True
    return None, not half_bound


# ------------------------------------------------------------ fuzz support


@functools.lru_cache(maxsize=1)
def fuzz_bases() -> Tuple[bytes, ...]:
    """Valid descriptors (relocatable and bound) to mutate: scalar, rank 6
    with singleton axes, padded rows, permuted, stepped, empty, each dtype."""
    A, B = 0x10000000, 0x20000000
    specs = [
        ((), F32, None, None, (0, 0)),
        ((), BF16, None, None, (A, B)),
        ((7,), F16, (6,), (2,), (A, B)),
        ((3, 5), F32, None, None, (A, A + 60)),
        ((4, 6), F32, (4, 16), None, (A, B)),
        ((3, 20), F16, (48, 2), (32, 1), (0, 0)),
        ((2, 1, 3, 1, 4, 5), BF16, None, None, (A, B)),
        ((2, 3, 1, 2, 2, 3), F32, (4, 8, 0, 24, 48, 96), None, (A, B)),
        ((3, 0, 2), F32, None, None, (0, 0)),
        ((200,), BF16, None, None, (A, B)),
    ]
    out = []
    for k, (shape, dtype, si, so, addresses) in enumerate(specs):
        fields = ref_fields(shape, dtype, si, so, multiplier_bits=(0x3E99999A, 0x00000001, 0x7F7FFFFF)[k % 3],
                            zero_point=(-128, 0, 127, -3)[k % 4], rounding=MODES[k % 4], addresses=addresses)
        data = ref_pack(fields)
        assert ref_validate(data) == (None, True), (shape, ref_validate(data))
        out.append(data)
    return tuple(out)


_ELEMENTS = [(f, i) for f in FIELDS for i in range(f.count)]


def _interesting(rng, old: int, width: int) -> int:
    top = (1 << (8 * width)) - 1
    choices = (0, 1, 2, 3, 4, 7, 8, 127, 128, 255, 256, 0x7F, 0x80, 0xFFFF, 0x7FFFFFFF, 0x80000000,
               0xFFFFFFFF, 1 << 32, (1 << 32) + 4, (1 << 63), top, old + 1, old - 1, old + 2, old - 2, old + 4,
               old - 4, old * 2, old // 2, old ^ (1 << rng.randrange(8 * width)), old + 60, old - 60,
               (1 << 32) - old, rng.randrange(top + 1))
    return rng.choice(choices) & top


def mutate(rng, data: bytes) -> bytes:
    """One to four random mutations of ``data``: byte writes, bit flips,
    field writes with boundary values, field swaps and (rarely) a length
    change."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.25 and out:
            out[rng.randrange(len(out))] = rng.randrange(256)
        elif kind < 0.4 and out:
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        elif kind < 0.9 and len(out) == SIZE:
            f, i = rng.choice(_ELEMENTS)
            off, w = f.element_offset(i), f.width
            old = int.from_bytes(out[off:off + w], "little")
            out[off:off + w] = _interesting(rng, old, w).to_bytes(w, "little")
        elif kind < 0.98 and len(out) == SIZE:
            (f, i), (g, j) = rng.choice(_ELEMENTS), rng.choice(_ELEMENTS)
            a, b = f.element_offset(i), g.element_offset(j)
            w = min(f.width, g.width)
            out[a:a + w], out[b:b + w] = out[b:b + w], out[a:a + w]
        else:
            n = rng.choice((0, 1, 8, 223, 225, 232, 448))
            out = out[:n] if n <= len(out) else out + bytes(rng.randrange(256) for _ in range(n - len(out)))
    if len(out) == SIZE and rng.random() < 0.35:
        out = bytearray(_repair(bytes(out)))
    return bytes(out)


def _repair(data: bytes) -> bytes:
    """Makes the count and span fields agree with the (mutated) extents and
    strides, so that mutations reach the stride, overlap and address rules
    instead of stopping at a count or span mismatch."""
    f = ref_unpack(data)
    rank, conversion = f["rank"], f["conversion"]
    if not 1 <= rank <= 6 or conversion > 2:
        return data
    extents = f["extents"][:rank]
    out = set_field(data, "count", product(extents) & ((1 << 64) - 1))
    for port, item in (("input", (4, 2, 2)[conversion]), ("output", 1)):
        strides = f[f"{port}_strides"][:rank]
        span = 0 if product(extents) == 0 else item + sum((e - 1) * s for e, s in zip(extents, strides) if e)
        out = set_field(out, f"{port}_span", span & ((1 << 64) - 1))
    return out


def decode_check(data) -> Tuple[str, Optional[str]]:
    """Decodes ``data`` and cross-checks the reference validator: returns
    (outcome, problem) where outcome is "accepted" or the rejection message's
    field word, and problem is None when everything agrees."""
    try:
        got = ev.decode(data)
    except Exception as exc:  # noqa: BLE001 - the finding itself
        return "exception", f"{type(exc).__name__}: {exc} for {bytes(data).hex()}"
    reason, certain = ref_validate(bytes(data))
    if isinstance(got, sk.Error):
        if got.code is not ErrorCode.INVALID_DESCRIPTOR:
            return "rejected", f"code {got.code.name}: {got.message}"
        if reason is None and certain:
            return "rejected", (f"rejected a descriptor the documented rules accept: {got.message}\n"
                                f"{describe(bytes(data))}")
        word = "descriptor length" if got.message.startswith("descriptor length") else got.message.split("(")[0].strip()
        return word, None
    if not isinstance(got, ev.Descriptor):
        return "other", f"decode returned {type(got).__name__}"
    if reason is not None:
        return "accepted", f"accepted a descriptor violating '{reason}'\n{describe(bytes(data))}"
    return "accepted", check_decoded_consistent(got, bytes(data))


# ---- the two engines ---------------------------------------------------------------
ENGINES = ("model", "opencl")


def opencl_or_skip() -> None:
    """Skips the test where the kernel cannot run: no OpenCL runtime (no
    pyopencl or no platform: under QEMU, or a machine without pocl), and
    in the sanitizer build's process (the kernel is compiled by pocl, not
    by the sanitized build, and pocl's compiler is not loaded there)."""
    from simakernels.ev74 import opencl

    if in_sanitizer_process():
        pytest.skip("the EV74 kernel runs in pocl, not in the sanitized build")
    try:
        opencl.runtime()
    except RuntimeError as exc:
        pytest.skip(f"the EV74 kernel needs an OpenCL runtime: {exc}")


def open_device(engine: str = "model", **kwargs) -> "sk.ev74.Device":
    """sk.ev74.Device on ``engine``; skips an OpenCL run that cannot run here."""
    if engine == "opencl":
        opencl_or_skip()
    return sk.ev74.Device(engine=engine, **kwargs)
