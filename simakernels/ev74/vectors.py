"""EV74 conformance vectors: bound Quant descriptors with their input
regions, initial output regions and expected output regions, for whoever
runs the real device (docs/ev74_vectors.md says what each tag covers and how to run a kit).

The specification asks that device validation exercise all 12 entries,
the scalar/vector/DMA boundaries, scatter, repeated invocation and
untouched gaps against independent expected bytes.  :func:`specs` lists
the cases that do (``quick``: a subset of the same groups, under 1 MB),
:func:`write` writes a kit, :func:`run` runs one on a host Device (the
model or the kernel itself on an OpenCL runtime), :func:`check` compares a
device's dumps.

Every byte is a function of the case list, the seed and the version: the
same command writes the same kit on every machine and route.  Expected
bytes come from the A65 scalar route run on host copies of the regions;
the suite checks every case of the quick kit against the independent
oracle (tests/oracle) and the host device model.
"""
from __future__ import annotations

import hashlib
import json
import pathlib
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple

import ml_dtypes
import numpy as np

from .. import _routes
from .._ffi import ffi, lib
from .._version import __version__
from ..core import DType, Error, Strided, TensorSpec
from ..fenv import default_state
from ..ops import quant as ops_quant
from . import quant as ev_quant
from .device import DIRECT_MIN, DMA_BLOCK, DMA_MIN, Device
from .region import DeviceRegion

FORMAT = "simakernels-ev74-vectors"
VERSION = 1              # of the kit's layout and case list: a change to either changes it
SEED = 0x45563734        # "EV74"
INPUT_BASE = 0x1000_0000
OUTPUT_BASE = 0x1080_0000
REBIND_INPUT = INPUT_BASE + 0x40_0000   # the second region pair of a rebound packet
REBIND_OUTPUT = OUTPUT_BASE + 0x40_0000
REGION_LIMIT = 0x40_0000  # every region fits between the bases above (the device model's 16 MiB)
PREFERRED_SENTINEL = 0xA5
INPUT_FILL = 0xEE        # input bytes no element owns (offset phase, gaps, spare capacity)
ROUNDINGS = tuple(ops_quant.Rounding)
INPUTS = (DType.FLOAT32, DType.BFLOAT16, DType.FLOAT16)
_BITS = {DType.FLOAT32: np.uint32, DType.BFLOAT16: np.uint16, DType.FLOAT16: np.uint16}
_NUMPY = {DType.FLOAT32: np.float32, DType.BFLOAT16: ml_dtypes.bfloat16, DType.FLOAT16: np.float16}
# (exponent bits, fraction bits) of each input format
_LAYOUT = {DType.FLOAT32: (8, 23), DType.BFLOAT16: (8, 7), DType.FLOAT16: (5, 10)}

M_21_5 = 0x41AC0000      # 21.5: products of normal values spread over the INT8 range
M_8 = 0x41000000         # 8 = 2^3: (k + 1/2) / 8 is exact in every input format, so products tie
MULTIPLIERS = (          # (tag, bits) of the multiplier classes
    ("subnormal-multiplier", 0x00000001),   # 2^-149
    ("subnormal-multiplier", 0x007FFFFF),   # the largest subnormal
    ("power-of-two-multiplier", 0x00800000),  # 2^-126
    ("power-of-two-multiplier", 0x3F800000),  # 1
    ("power-of-two-multiplier", 0x43000000),  # 2^7
    ("power-of-two-multiplier", 0x7F000000),  # 2^127
    ("largest-multiplier", 0x7F7FFFFF),
)


@dataclass(frozen=True)
class CaseSpec:
    """One case before its bytes exist: the request (shape, byte strides,
    parameters), where element 0 sits in each region (``*_offset`` bytes
    from the region's start), the capacity beyond the accessed span
    (``spare`` bytes), the region addresses, and the values' profile."""

    id: str
    covers: Tuple[str, ...]
    dtype: DType
    rounding: ops_quant.Rounding
    multiplier_bits: int
    zero_point: int
    shape: Tuple[int, ...]
    in_strides: Tuple[int, ...]
    out_strides: Tuple[int, ...]
    in_offset: int = 0
    out_offset: int = 0
    spare: int = 61
    profile: str = "normal"  # normal | specials | all-patterns
    input_address: int = INPUT_BASE
    output_address: int = OUTPUT_BASE


@dataclass(frozen=True)
class Case:
    spec: CaseSpec
    descriptor: bytes
    input_region: bytes
    output_initial: bytes
    output_expected: bytes


# ---- the values ----------------------------------------------------------------

def _patterns(spec: CaseSpec, count: int) -> np.ndarray:
    """The input's ``count`` bit patterns, in logical order."""
    rng = np.random.default_rng([SEED, _seed(spec.id)])
    bits = _BITS[spec.dtype]
    if spec.profile == "all-patterns":
        return np.arange(count, dtype=np.uint32).astype(bits)
    if spec.profile == "specials":
        special = _specials(spec.dtype, spec.multiplier_bits)
        fill = rng.integers(0, 1 << (8 * np.dtype(bits).itemsize), count, dtype=np.uint64).astype(bits)
        fill[:min(count, special.size)] = special[:count]
        return fill
    # Products spread evenly over [-160, 160] (a few saturate).  Integers
    # and IEEE operations only (no libm): the same values on every machine.
    multiplier = float(np.array(spec.multiplier_bits, np.uint32).view(np.float32))
    steps = rng.integers(-(1 << 24), 1 << 24, count, dtype=np.int64)
    values = steps * ((160.0 / multiplier) / (1 << 24))
    return values.astype(np.float32).astype(_NUMPY[spec.dtype]).view(bits)


def _seed(case_id: str) -> int:
    """A per-case seed from its id (stable: not Python's salted hash)."""
    return int.from_bytes(hashlib.sha256(case_id.encode()).digest()[:8], "little")


def _specials(dtype: DType, multiplier_bits: int) -> np.ndarray:
    """Every special class of the format, then the values whose products
    tie, saturate at both ends or underflow under ``multiplier_bits``."""
    exponent_bits, fraction_bits = _LAYOUT[dtype]
    width = 1 + exponent_bits + fraction_bits
    sign = 1 << (width - 1)
    inf = ((1 << exponent_bits) - 1) << fraction_bits
    quiet = 1 << (fraction_bits - 1)
    top = (1 << fraction_bits) - 1
    magnitudes = [
        inf | quiet, inf | top, inf | 1, inf | (quiet - 1), inf | quiet | 1,   # NaN payloads, quiet and signalling
        inf, 0,                                                              # infinity, zero
        1, 2, top, top >> 1, 1 << (fraction_bits - 1),                       # subnormals
        1 << fraction_bits, inf - 1,                                         # least normal, largest finite
    ]
    patterns = [m | s for m in magnitudes for s in (0, sign)]
    multiplier = Fraction(float(np.array(multiplier_bits, np.uint32).view(np.float32)))
    for k in range(-132, 132):  # ties (k + 1/2) and the integers around both saturation ends
        for target in (Fraction(2 * k + 1, 2), Fraction(k)):
            patterns += _exact(target / multiplier, dtype)
    for power in range(0, 130, 7):  # far beyond both ends
        patterns += _exact(Fraction(2) ** power / multiplier, dtype)
        patterns += _exact(-Fraction(2) ** power / multiplier, dtype)
    return np.array(patterns, np.uint32).astype(_BITS[dtype])


def _exact(value: Fraction, dtype: DType) -> List[int]:
    """The pattern of ``value`` when the input format holds it exactly."""
    try:
        wide = np.float64(float(value))
    except OverflowError:
        return []
    with np.errstate(over="ignore"):
        narrow = wide.astype(_NUMPY[dtype])
    back = float(np.float64(narrow))
    if not np.isfinite(back) or Fraction(back) != value:
        return []
    return [int(np.array(narrow).view(_BITS[dtype]))]


# ---- one case's bytes ------------------------------------------------------------

def _request(spec: CaseSpec) -> ops_quant.Request:
    return ops_quant.Request([TensorSpec(spec.shape, spec.dtype, Strided(spec.in_strides))],
                             [TensorSpec(spec.shape, DType.INT8, Strided(spec.out_strides))],
                             ops_quant.Params.from_bits(spec.multiplier_bits, spec.zero_point, spec.rounding))


def _checked(value: Any, spec: CaseSpec) -> Any:
    if isinstance(value, Error):
        raise ValueError(f"EV74 vector case {spec.id}: {value}")
    return value


def build(spec: CaseSpec) -> Case:
    """The case's bytes: the descriptor bound to its two regions, the whole
    input region, the output region before and after the run."""
    # One admission of the request; the spans are the ports' accessed bytes.
    shared = _checked(ops_quant.check_inference(_request(spec)), spec)
    in_span, out_span = shared.admitted.inputs[0].nbytes, shared.admitted.outputs[0].nbytes
    in_capacity = spec.in_offset + in_span + spec.spare
    out_capacity = spec.out_offset + out_span + spec.spare
    if max(in_capacity, out_capacity) > REGION_LIMIT:
        raise ValueError(f"EV74 vector case {spec.id}: a region exceeds {REGION_LIMIT} bytes")
    # The regions' elements are NumPy views by the case's strides.
    input_region = np.full(in_capacity, INPUT_FILL, np.uint8)
    elements = np.ndarray(spec.shape, _BITS[spec.dtype], input_region, spec.in_offset, spec.in_strides)
    elements[...] = _patterns(spec, elements.size).reshape(spec.shape)

    expected = np.full(out_capacity, PREFERRED_SENTINEL, np.uint8)
    np.ndarray(spec.shape, np.int8, expected, spec.out_offset, spec.out_strides)[...] = \
        _quantized(shared.params, spec.dtype, elements)
    # A sentinel no element's expected byte equals, where one exists: then
    # an element the device leaves unwritten always shows.
    owned = np.zeros(out_capacity, bool)
    np.ndarray(spec.shape, bool, owned, spec.out_offset, spec.out_strides)[...] = True
    sentinel = _sentinel(expected[owned])
    initial = np.full(out_capacity, sentinel, np.uint8)
    expected[~owned] = sentinel

    device_plan = _checked(ev_quant.check_inference(shared), spec)
    packet = _checked(ev_quant.encode_relocatable(device_plan), spec)
    bound = _checked(ev_quant.bind(packet, device_plan,
                                   [DeviceRegion(spec.input_address + spec.in_offset, in_capacity - spec.in_offset)],
                                   [DeviceRegion(spec.output_address + spec.out_offset,
                                                 out_capacity - spec.out_offset)]), spec)
    return Case(spec, bound.descriptor, input_region.tobytes(), initial.tobytes(), expected.tobytes())


def _quantized(params: ops_quant.Params, dtype: DType, elements: np.ndarray) -> np.ndarray:
    """The elements' Quant results in logical order: the C core's leaves on
    the scalar route (as the A65 backend runs them), in the device's FP
    environment."""
    src = np.ascontiguousarray(elements)
    dst = np.empty(src.shape, np.int8)
    entry = ffi.new("sk_ev74_descriptor *")
    entry.conversion, entry.rounding = ev_quant._CONVERSION[dtype], params.rounding.value
    entry.multiplier_bits, entry.zero_point = params.multiplier_bits, params.zero_point
    scalar = _routes.choose("scalar")
    assert not isinstance(scalar, Error)  # every build compiles the scalar route
    src_view, dst_view = ffi.from_buffer(src), ffi.from_buffer(dst, require_writable=True)
    with default_state():
        status = lib.sk_ev74_run_span(entry, scalar[1], src_view, len(src_view), dst_view, len(dst_view), src.size)
    if status != lib.SK_OK:  # admission proved the parameters and the spans
        raise AssertionError(f"sk_ev74_run_span refused an admitted case: status {status}")
    return dst


def _sentinel(values: np.ndarray) -> int:
    present = np.zeros(256, bool)
    present[values] = True
    if not present[PREFERRED_SENTINEL]:
        return PREFERRED_SENTINEL
    free = np.flatnonzero(~present)
    return int(free[0]) if free.size else PREFERRED_SENTINEL


# ---- the case list -----------------------------------------------------------------

def _dense(shape: Sequence[int], item: int) -> Tuple[int, ...]:
    """C-order byte strides of ``item``-byte elements."""
    return tuple(np.empty(shape, f"V{item}").strides)


def _name(dtype: DType) -> str:
    return dtype.name.lower()


def _mode(index: int) -> ops_quant.Rounding:
    return ROUNDINGS[index % len(ROUNDINGS)]


def _flat(case_id: str, covers: Tuple[str, ...], dtype: DType, rounding: ops_quant.Rounding, multiplier: int,
          zero_point: int, n: int, profile: str = "normal", **layout: Any) -> CaseSpec:
    return CaseSpec(case_id, covers, dtype, rounding, multiplier, zero_point, (n,), (dtype.itemsize,), (1,),
                    profile=profile, **layout)


def _entries(quick: bool) -> Iterator[CaseSpec]:
    """All 12 entries (3 input formats x 4 rounding modes), each with normal
    values and with every special class of its format (ties for its mode
    among them); in the full kit, every 16-bit pattern too."""
    for dtype in INPUTS:
        for rounding in ROUNDINGS:
            entry = f"{_name(dtype)}-{rounding.name.lower()}"
            yield _flat(f"entry-{entry}-normal", ("entries", "normal-values", f"entry-{entry}"), dtype, rounding,
                        M_21_5, 3, 256 if quick else 4096)
            yield _flat(f"entry-{entry}-specials", ("entries", "special-values", "nan-payloads", "infinities",
                                                    "signed-zeros", "subnormal-inputs", f"ties-{rounding.name.lower()}",
                                                    "saturation", f"entry-{entry}"),
                        dtype, rounding, M_8, -5, 1024 if quick else 4096, profile="specials")
            if dtype is not DType.FLOAT32 and not quick:
                yield _flat(f"entry-{entry}-all-patterns", ("entries", "all-patterns", f"entry-{entry}"), dtype,
                            rounding, M_8, 0, 1 << 16, profile="all-patterns")


def _parameters(quick: bool) -> Iterator[CaseSpec]:
    """Multiplier classes (subnormal, powers of two, the largest: products
    that underflow, that saturate) and the extreme zero points."""
    index = 0
    for dtype in INPUTS:
        for tag, bits in MULTIPLIERS:
            covers = (tag, "products-underflow" if bits < 0x00800000 else "saturation", "special-values")
            yield _flat(f"multiplier-{_name(dtype)}-{bits:08x}", covers, dtype, _mode(index), bits, 0,
                        256 if quick else 1024, profile="specials")
            index += 1
        for zero_point in (-128, 127):
            yield _flat(f"zero-point-{_name(dtype)}-{zero_point}", ("extreme-zero-point", "saturation"), dtype,
                        _mode(index), M_21_5, zero_point, 256 if quick else 1024)
            index += 1


def _boundaries(quick: bool) -> Iterator[CaseSpec]:
    """Element counts at and around every boundary the specification names:
    the 16-element vector block, the direct 16..127 range, the 128-element
    DMA threshold and the DMA blocks, their multiples plus and minus one."""
    index = 0
    for dtype in INPUTS:
        block = DMA_BLOCK[dtype]
        counts = [1, 2, DIRECT_MIN - 1, DIRECT_MIN, DIRECT_MIN + 1, 31, 32, 33, DMA_MIN - 1, DMA_MIN, DMA_MIN + 1,
                  block - 1, block, block + 1]
        if not quick:
            counts += [2 * block - 1, 2 * block, 2 * block + 1, 3 * block - 1, 3 * block + 1, 5 * block + 7]
        for n in counts:
            tag = ("scalar-tail" if n < DIRECT_MIN else "direct-vector" if n < DMA_MIN else
                   "dma-threshold" if n < block - 1 else "dma-block")
            yield _flat(f"count-{_name(dtype)}-{n}", ("boundaries", tag), dtype, _mode(index), M_21_5, -7, n)
            index += 1
        # Rows of 15..129 elements inside padded rows: the contiguous
        # suffix (one row) decides scatter, direct vector or DMA.
        for row in (DIRECT_MIN - 1, DIRECT_MIN, DMA_MIN - 1, DMA_MIN):
            rows = 3 if quick else 9
            item = dtype.itemsize
            tag = "scatter" if row < DIRECT_MIN else "direct-vector" if row < DMA_MIN else "dma-threshold"
            yield CaseSpec(f"rows-{_name(dtype)}-{rows}x{row}", ("boundaries", "padded-rows", tag, "untouched-gaps"),
                           dtype, _mode(index), M_21_5, 1, (rows, row), ((row + 5) * item, item), (row + 3, 1))
            index += 1


def _layouts(quick: bool) -> Iterator[CaseSpec]:
    """Dense ranks 0..6, padded rows, scatter, transposed."""
    index = 0
    shapes = [(), (37,), (5, 7), (3, 4, 5), (2, 3, 4, 5), (2, 2, 3, 3, 4), (2, 3, 2, 3, 2, 3)]
    for dtype in INPUTS:
        item = dtype.itemsize
        for shape in shapes:
            yield CaseSpec(f"rank{len(shape)}-{_name(dtype)}", (f"rank-{len(shape)}", "dense"), dtype, _mode(index),
                           M_21_5, 9, shape, _dense(shape, item), _dense(shape, 1))
            index += 1
        rows, cols = (6, 40) if quick else (40, 300)
        yield CaseSpec(f"padded-{_name(dtype)}", ("padded-rows", "untouched-gaps"), dtype, _mode(index), M_21_5, 0,
                       (rows, cols), ((cols + 8) * item, item), (cols + 3, 1))
        yield CaseSpec(f"scatter-{_name(dtype)}", ("scatter", "untouched-gaps"), dtype, _mode(index + 1), M_21_5, 127,
                       (rows, cols), (cols * 2 * item, 2 * item), (3 * cols + 1, 3))
        yield CaseSpec(f"transposed-{_name(dtype)}", ("transposed", "scatter"), dtype, _mode(index + 2), M_21_5, -128,
                       (rows, cols), (item, rows * item), (cols, 1))
        yield CaseSpec(f"transposed-output-{_name(dtype)}", ("transposed", "scatter", "untouched-gaps"), dtype,
                       _mode(index + 3), M_21_5, 64, (rows, cols), (cols * item, item), (1, rows + 2))
        index += 4


def _phases(quick: bool) -> Iterator[CaseSpec]:
    """Element 0 at several address phases inside both regions (each port's
    offset varied on its own)."""
    in_phases = (0, 1, 3, 7, 13, 15) if quick else (0, 1, 3, 5, 7, 9, 13, 15, 31)
    out_phases = (0, 1, 5, 31, 63, 33) if quick else (0, 1, 2, 5, 17, 31, 33, 63, 64)
    index = 0
    for dtype in INPUTS:
        item = dtype.itemsize
        n = 300 if quick else 3 * DMA_BLOCK[dtype] // 2
        for in_phase, out_phase in zip(in_phases, out_phases):
            yield _flat(f"phase-{_name(dtype)}-in{in_phase * item}-out{out_phase}", ("address-phase", "spare-capacity"),
                        dtype, _mode(index), M_21_5, -3, n, in_offset=in_phase * item, out_offset=out_phase,
                        spare=1 + 17 * in_phase)
            index += 1


def _rebound(quick: bool) -> Iterator[CaseSpec]:
    """Repeated invocation: one relocatable packet (the same request)
    bound to two region pairs, with different input bytes, run one after
    the other."""
    for dtype in INPUTS:
        item = dtype.itemsize
        for layout, shape, in_strides, out_strides in (
                ("dense", (1000,), (item,), (1,)),
                ("padded", (7, 150), (160 * item, item), (155, 1))):
            first = f"rebind-{_name(dtype)}-{layout}-a"
            common = (dtype, ops_quant.Rounding.NEAREST_EVEN, M_21_5, 11, shape, in_strides, out_strides)
            yield CaseSpec(first, ("repeated-invocation",), *common, in_offset=4 * item, out_offset=4)
            yield CaseSpec(f"rebind-{_name(dtype)}-{layout}-b", ("repeated-invocation", f"rebinds:{first}"), *common,
                           in_offset=4 * item, out_offset=4, input_address=REBIND_INPUT + 0x40,
                           output_address=REBIND_OUTPUT + 0x3)


def specs(quick: bool = False) -> List[CaseSpec]:
    """Every case of a kit, in manifest order."""
    groups = (_entries, _parameters, _boundaries, _layouts, _phases, _rebound)
    out = [spec for group in groups for spec in group(quick)]
    assert len({spec.id for spec in out}) == len(out), "case ids must be unique"
    return out


# ---- the kit on disk -------------------------------------------------------------------

def write(directory: Any, quick: bool = False) -> Dict[str, Any]:
    """Writes ``directory``/manifest.json and every case's three region
    files; returns the manifest.  Files of an earlier kit in the same
    directory are left alone unless overwritten."""
    root = pathlib.Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    cases, files = [], {}
    for spec in specs(quick):
        case = build(spec)
        names = {role: f"{spec.id}.{role}.bin" for role in ("input", "initial", "expected")}
        for role, data in (("input", case.input_region), ("initial", case.output_initial),
                           ("expected", case.output_expected)):
            (root / names[role]).write_bytes(data)
            files[names[role]] = hashlib.sha256(data).hexdigest()
        cases.append({
            "id": spec.id,
            "descriptor": case.descriptor.hex(),
            "input": {"file": names["input"], "address": spec.input_address},
            "output": {"initial": names["initial"], "expected": names["expected"], "address": spec.output_address},
            "covers": list(spec.covers),
        })
    manifest = {"format": FORMAT, "version": VERSION, "generator": f"simakernels {__version__}", "seed": SEED,
                "quick": quick, "cases": cases, "files": files}
    (root / "manifest.json").write_text(_manifest_text(manifest))
    return manifest


def _manifest_text(manifest: Dict[str, Any]) -> str:
    """JSON with one case per line (a C or shell reader finds a case by its
    id with a line scan: examples/ev74_case.c)."""
    head = {k: v for k, v in manifest.items() if k not in ("cases", "files")}
    lines = ["{"] + [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    lines.append(' "cases": [')
    lines += [f"  {json.dumps(case)}{',' if i + 1 < len(manifest['cases']) else ''}"
              for i, case in enumerate(manifest["cases"])]
    lines.append(" ],")
    lines.append(f' "files": {json.dumps(manifest["files"], indent=None)}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def read(directory: Any) -> Dict[str, Any]:
    """The kit's manifest, checked: its format and version, and every file
    it names present with the recorded sha256."""
    root = pathlib.Path(directory)
    try:
        manifest: Dict[str, Any] = json.loads((root / "manifest.json").read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{root}/manifest.json: not a {FORMAT} manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or manifest.get("version") != VERSION \
            or not isinstance(manifest.get("files"), dict):
        raise ValueError(f"{root}/manifest.json: not a {FORMAT} kit of version {VERSION}")
    for name, digest in manifest["files"].items():
        data = (root / name).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError(f"{root}/{name}: sha256 differs from the manifest's (a damaged or edited kit)")
    return manifest


# ---- running a kit on the host ---------------------------------------------------------

def run(directory: Any, results: Any, engine: str = "model") -> Dict[str, Set[str]]:
    """Runs every case of the kit ``directory`` on a host
    :class:`~simakernels.ev74.Device` (``engine``: "model" or "opencl", the
    kernel on an OpenCL runtime), as a device team runs it on the EV74: the
    input and initial output regions written, the bound descriptor
    submitted, the output region dumped to ``results``/<id>.bin.  Returns
    each case's unit kinds.  A case the device refuses raises ValueError
    naming it (a kit's descriptors are all valid)."""
    root, dumps = pathlib.Path(directory), pathlib.Path(results)
    manifest = read(root)
    dumps.mkdir(parents=True, exist_ok=True)
    kinds: Dict[str, Set[str]] = {}
    # 16 MiB at INPUT_BASE: holds both region pairs of every case.
    with Device(size=2 * (OUTPUT_BASE - INPUT_BASE), base=INPUT_BASE, engine=engine) as device:
        for case in manifest["cases"]:
            inputs = (root / case["input"]["file"]).read_bytes()
            initial = (root / case["output"]["initial"]).read_bytes()
            device.write(case["input"]["address"], inputs)
            device.write(case["output"]["address"], initial)
            data = bytes.fromhex(case["descriptor"])
            desc = _checked_decode(data)
            end_in, end_out = case["input"]["address"] + len(inputs), case["output"]["address"] + len(initial)
            bound = ev_quant.BoundPacket(data, (DeviceRegion(desc.input_address, end_in - desc.input_address),),
                                         (DeviceRegion(desc.output_address, end_out - desc.output_address),))
            done = device.submit(bound).result()
            if isinstance(done, Error):
                raise ValueError(f"case {case['id']}: the device refused it: {done}")
            kinds[case["id"]] = {unit.kind for unit in done.units}
            (dumps / f"{case['id']}.bin").write_bytes(device.read(case["output"]["address"], len(initial)))
    return kinds


# ---- the checker -------------------------------------------------------------------------

@dataclass(frozen=True)
class Failure:
    case: str
    message: str


def check(directory: Any, results: Any) -> Tuple[int, List[Failure]]:
    """Compares ``results``/<id>.bin (the output region a device left) with
    every case's expected bytes: (cases checked, failures), one failure per
    failing or missing case, naming the first differing offset, that
    element's input bytes and the expected and found bytes, in hex."""
    root, dumps = pathlib.Path(directory), pathlib.Path(results)
    manifest = read(root)
    failures = []
    for case in manifest["cases"]:
        failure = _check_case(root, dumps, case)
        if failure is not None:
            failures.append(Failure(case["id"], failure))
    return len(manifest["cases"]), failures


def _check_case(root: pathlib.Path, dumps: pathlib.Path, case: Dict[str, Any]) -> Optional[str]:
    dump = dumps / f"{case['id']}.bin"
    if not dump.is_file():
        return f"missing dump {dump}"
    found = dump.read_bytes()
    expected = (root / case["output"]["expected"]).read_bytes()
    if len(found) != len(expected):
        return f"dump has {len(found)} bytes, the output region {len(expected)}"
    if found == expected:
        return None
    diff = np.flatnonzero(np.frombuffer(found, np.uint8) != np.frombuffer(expected, np.uint8))
    offset = int(diff[0])
    address = case["output"]["address"] + offset
    return (f"offset {offset} (address {address:#x}): expected {expected[offset]:#04x}, found {found[offset]:#04x}"
            f"{_element_input(root, case, offset, len(expected))}; {diff.size} bytes differ")


def _element_input(root: pathlib.Path, case: Dict[str, Any], offset: int, size: int) -> str:
    """The input bytes of the element whose output byte is at ``offset`` of
    the ``size``-byte output region (or that the byte belongs to no
    element: a gap or spare capacity).  Both regions are read as NumPy
    views by the descriptor's strides."""
    descriptor = _checked_decode(bytes.fromhex(case["descriptor"]))
    shape = descriptor.extents
    probe = np.zeros(size, np.uint8)
    probe[offset] = 1
    outputs = np.ndarray(shape, np.uint8, probe, descriptor.output_address - case["output"]["address"],
                         descriptor.output_strides)
    hits = np.flatnonzero(outputs)  # in logical order
    if hits.size == 0:
        return ", a byte no element owns (gap or spare capacity: must come back unchanged)"
    index = np.unravel_index(int(hits[0]), shape)
    inputs = np.ndarray(shape, np.dtype((np.void, descriptor.conversion.itemsize)),
                        (root / case["input"]["file"]).read_bytes(),
                        descriptor.input_address - case["input"]["address"], descriptor.input_strides)
    data = inputs[index].tobytes()
    return f", element {tuple(int(i) for i in index)} input {descriptor.conversion.name} 0x{data[::-1].hex()}"


def _checked_decode(descriptor: bytes) -> ev_quant.Descriptor:
    decoded = ev_quant.decode(descriptor)
    if isinstance(decoded, Error):
        raise ValueError(f"a kit descriptor the decoder refuses: {decoded}")
    return decoded
