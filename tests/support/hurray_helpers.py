"""Support for the Hurray per-tensor affine tests (test_hurray_*.py).

Everything that states an expectation is written from the specification
(Hurray, "Binary Encoding", "Valid Storage Types", "Dequantization
Formula") and the independent oracle (``tests/oracle/hurray.py``), never from
the package under test: the storage table, the descriptor layout, the reader's
acceptance rule, the sub-byte unpacking (element 0 in the least significant
bits of byte 0) and the expected FP32 bits are all spelled out here.

Expected bits for storage narrower than 32 bits come from oracle tables indexed
by the difference ``q - zero_point``: for those types the exact difference lies
in [-65535, 65535], so the oracle's signed 32-bit subtraction is the exact one
and one table per scale serves every (q, zero point) pair.  32-bit storage
calls the oracle per element (its differences wrap).
"""
from __future__ import annotations

import contextlib
import functools
import gc
import os
import pickle
import signal
from typing import Callable, Dict, Iterable, Optional, Sequence, Tuple

import numpy as np
import pytest

import simakernels as sk
from oracle import hurray_dequant, int32_to_binary32, multiply_binary32
from support import oracle_store

H = sk.formats.hurray
ST = H.StorageType

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1

# ------------------------------------------------------------ the spec's table
# name: (type tag, bits per element, signed), from "Valid Storage Types".
SPEC_STORAGE: Dict[str, Tuple[int, int, bool]] = {
    "INT8": (0x10, 8, True),
    "UINT8": (0x11, 8, False),
    "INT16": (0x12, 16, True),
    "UINT16": (0x13, 16, False),
    "INT32": (0x14, 32, True),
    "UINT32": (0x15, 32, False),
    "INT4": (0x48, 4, True),
    "UINT4": (0x49, 4, False),
    "INT2": (0x4A, 2, True),
    "UINT2": (0x4B, 2, False),
}
STORAGE_NAMES = tuple(SPEC_STORAGE)
ALL_STORAGE = tuple(ST[name] for name in STORAGE_NAMES)
NARROW_STORAGE = tuple(s for s in ALL_STORAGE if SPEC_STORAGE[s.name][1] < 32)
SUB_BYTE = tuple(s for s in ALL_STORAGE if SPEC_STORAGE[s.name][1] < 8)
WIDE_STORAGE = (ST.INT32, ST.UINT32)


def width(storage) -> int:
    return SPEC_STORAGE[ST(storage).name][1]


def signed(storage) -> bool:
    return SPEC_STORAGE[ST(storage).name][2]


def spec_range(storage) -> Tuple[int, int]:
    """Inclusive range of the storage type's values."""
    bits = width(storage)
    if signed(storage):
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def zp_limits(storage) -> Tuple[int, int]:
    """Zero points a descriptor can carry for this storage: the storage range
    intersected with the int32 field (UINT32 tops out at 2**31 - 1)."""
    lo, hi = spec_range(storage)
    return max(lo, INT32_MIN), min(hi, INT32_MAX)


def zero_points(storage) -> Tuple[int, ...]:
    """Range ends, zero and a value in the middle, as the issue asks."""
    lo, hi = zp_limits(storage)
    middle = {2: 1, 4: 5, 8: 37, 16: 12345, 32: 123456789}[width(storage)]
    if signed(storage):
        middle = -middle
    return tuple(sorted({lo, hi, 0, middle}))


# ------------------------------------------------------------------- scales
SCALES: Dict[str, int] = {
    "1.0": 0x3F800000,
    "0.5": 0x3F000000,
    "-0.25": 0xBE800000,
    "0x4037ced9": 0x4037CED9,       # 2.8720... : products round
    "-0x4037ced9": 0xC037CED9,
    "subnormal": 0x00400001,        # products cross from subnormal to normal
    "min-subnormal": 0x00000001,
    "-subnormal": 0x80400001,
    "max": 0x7F7FFFFF,              # |difference| >= 2 overflows to infinity
    "-max": 0xFF7FFFFF,
}
SCALE_IDS = tuple(SCALES)
POSITIVE_SCALES = {k: v for k, v in SCALES.items() if not v >> 31}
NEGATIVE_SCALES = {k: v for k, v in SCALES.items() if v >> 31}


def f32(bits: int) -> np.float32:
    """The binary32 scalar with exactly these bits."""
    return np.array(bits & 0xFFFFFFFF, dtype=np.uint32).view(np.float32)[()]


def descriptor(scale_bits: int, zero_point: int = 0) -> "H.PerTensorAffine":
    return H.PerTensorAffine(f32(scale_bits), zero_point)


def bits_of(array: np.ndarray) -> np.ndarray:
    """FP32 results as their bit patterns."""
    assert array.dtype == np.float32, array.dtype
    return np.asarray(array).view(np.uint32)


# --------------------------------------------------------- descriptor bytes
def descriptor_bytes(scale_bits: int, zero_point: int = 0, *, tag: int = 0x01, version: int = 0x01,
                     flags: int = 0, reserved: bytes = bytes(4)) -> bytes:
    """The 16 bytes of "Binary Encoding", field by field, little-endian."""
    assert len(reserved) == 4
    return (
        bytes([tag, version])
        + flags.to_bytes(2, "little")
        + (scale_bits & 0xFFFFFFFF).to_bytes(4, "little")
        + (zero_point & 0xFFFFFFFF).to_bytes(4, "little")
        + bytes(reserved)
    )


def spec_verdict(raw: bytes, storage) -> Optional[str]:
    """None if a reader must accept ``raw`` for ``storage`` (a valid tag),
    else the first violated field; written from "Binary Encoding" and
    "Validity Constraints"."""
    if len(raw) != 16:
        return "length"
    if raw[0] != 0x01:
        return "scheme_tag"
    if raw[1] != 0x01:
        return "scheme_version"
    if raw[2] or raw[3]:
        return "flags"
    scale = int.from_bytes(raw[4:8], "little")
    if (scale >> 23) & 0xFF == 0xFF or scale & 0x7FFFFFFF == 0:
        return "scale"
    zp = int.from_bytes(raw[8:12], "little", signed=True)
    lo, hi = spec_range(storage)
    if not lo <= zp <= hi:
        return "zero_point"
    if any(raw[12:16]):
        return "_reserved"
    return None


# ------------------------------------------------------------------ elements
def unpack(raw, storage, count: Optional[int] = None) -> np.ndarray:
    """The stored elements' values (int64), read from the specification's
    layout: little-endian words, sub-byte fields packed little-end first."""
    b = np.frombuffer(bytes(raw), dtype=np.uint8).astype(np.int64)
    bits = width(storage)
    if bits < 8:
        per = 8 // bits
        shifts = np.arange(per, dtype=np.int64) * bits
        fields = ((b[:, None] >> shifts[None, :]) & ((1 << bits) - 1)).reshape(-1)
    else:
        size = bits // 8
        n = b.size // size
        words = b[: n * size].reshape(n, size)
        fields = np.zeros(n, dtype=np.int64)
        for k in range(size):
            fields |= words[:, k] << (8 * k)
    if count is not None:
        fields = fields[:count]
    if signed(storage):
        fields = np.where(fields >= 1 << (bits - 1), fields - (1 << bits), fields)
    return fields


def pack(values: Sequence[int], storage) -> bytes:
    """Bytes holding ``values`` (ints in the storage range), the inverse of
    :func:`unpack`; unused high bits of a partial last byte are zero."""
    bits = width(storage)
    values = [int(v) for v in values]
    lo, hi = spec_range(storage)
    assert all(lo <= v <= hi for v in values), "value outside the storage range"
    if bits >= 8:
        return b"".join((v & ((1 << bits) - 1)).to_bytes(bits // 8, "little") for v in values)
    per = 8 // bits
    out = bytearray(-(-len(values) // per))
    for i, v in enumerate(values):
        out[i // per] |= (v & ((1 << bits) - 1)) << (bits * (i % per))
    return bytes(out)


def needed_bytes(count: int, storage) -> int:
    return -(-count * width(storage) // 8)


# ------------------------------------------------------------------- oracle
NARROW_RADIUS = 255      # |q - zp| for 8-bit and sub-byte storage
WIDE_RADIUS = 65535      # |q - zp| for 16-bit storage


@functools.lru_cache(maxsize=None)
def small_table(scale_bits: int) -> np.ndarray:
    """``hurray_dequant`` for every difference in [-255, 255], index d + 255."""
    table = np.array([hurray_dequant(d, scale_bits, 0) for d in range(-NARROW_RADIUS, NARROW_RADIUS + 1)],
                     dtype=np.uint32)
    table.flags.writeable = False
    return table


@functools.lru_cache(maxsize=1)
def _converted_differences() -> Tuple[int, ...]:
    return tuple(int32_to_binary32(d) for d in range(-WIDE_RADIUS, WIDE_RADIUS + 1))


@functools.lru_cache(maxsize=None)
def wide_table(scale_bits: int) -> np.ndarray:
    """The oracle formula for every difference in [-65535, 65535], index
    d + 65535, by the oracle's two stages (``int32_to_binary32`` then
    ``multiply_binary32``, as ``hurray_dequant`` composes them; the stage
    conversions are shared between scales).  Anchored to ``hurray_dequant``
    by test_hurray_dequantize.py::test_wide_table_is_the_oracle."""
    table = oracle_store.stored(
        f"hurray wide_table {scale_bits:#010x}", np.uint32, 2 * WIDE_RADIUS + 1,
        lambda: np.array([multiply_binary32(c, scale_bits) for c in _converted_differences()], dtype=np.uint32))
    table.flags.writeable = False
    return table


def expected(values: np.ndarray, storage, scale_bits: int, zero_point: int) -> np.ndarray:
    """Oracle FP32 bits of each stored value ``values`` (as read by
    :func:`unpack`)."""
    values = np.asarray(values, dtype=np.int64)
    if width(storage) == 32 or (width(storage) == 16 and values.size < 4096):
        # per element (a 16-bit table costs 131,071 oracle products)
        return np.array([hurray_dequant(int(q), scale_bits, zero_point) for q in values.tolist()], dtype=np.uint32)
    difference = values - zero_point  # exact, |difference| <= 65535: no wrap
    if width(storage) <= 8:
        assert np.all(np.abs(difference) <= NARROW_RADIUS)
        return small_table(scale_bits)[difference + NARROW_RADIUS]
    return wide_table(scale_bits)[difference + WIDE_RADIUS]


# --------------------------------------------------------------- comparison
def report(got: np.ndarray, want: np.ndarray, inputs: np.ndarray, what: str, limit: int = 8) -> Optional[str]:
    """None when the FP32 bit patterns agree, else the first mismatches with
    index, stored value, expected and got bits in hex."""
    got = np.asarray(got).reshape(-1)
    want = np.asarray(want).reshape(-1)
    inputs = np.asarray(inputs).reshape(-1)
    if got.shape != want.shape:
        return f"{what}: {got.size} results, expected {want.size}"
    bad = np.flatnonzero(got != want)
    if bad.size == 0:
        return None
    lines = [
        f"  index {int(i)}: q {int(inputs[i])} ({int(inputs[i]) & 0xFFFFFFFF:#x}) "
        f"expected {int(want[i]):#010x} got {int(got[i]):#010x}"
        for i in bad[:limit]
    ]
    return f"{what}: {bad.size} of {got.size} elements differ\n" + "\n".join(lines)


def fail_if(reports: Iterable[Optional[str]]) -> None:
    found = [r for r in reports if r]
    if found:
        pytest.fail(f"{len(found)} failing case(s)\n" + "\n".join(found), pytrace=False)


def check(got: np.ndarray, want: np.ndarray, inputs: np.ndarray, what: str) -> None:
    fail_if([report(bits_of(got), want, inputs, what)])


SENTINEL = 0xA5A5A5A5


def sentinel_out(n: int, before: int = 3, after: int = 5) -> Tuple[np.ndarray, np.ndarray]:
    """A float32 output of ``n`` elements inside a larger sentinel-filled
    array (``before`` and ``after`` guard elements); returns (whole, out)."""
    whole = np.full(before + n + after, SENTINEL, dtype=np.uint32).view(np.float32)
    return whole, whole[before:before + n]


def guards_report(whole: np.ndarray, before: int, n: int, what: str) -> Optional[str]:
    bits = bits_of(whole)
    guard = np.ones(bits.size, dtype=bool)
    guard[before:before + n] = False
    bad = np.flatnonzero(guard & (bits != SENTINEL))
    if bad.size == 0:
        return None
    return f"{what}: guard elements {bad[:8].tolist()} overwritten"


# ------------------------------------------------------------- FP states
@contextlib.contextmanager
def gc_paused():
    """No cyclic garbage collection in the body: a collection runs gc
    callbacks (hypothesis installs one that does float arithmetic), which an
    enabled FP trap would turn into a SIGFPE outside the code under test."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextlib.contextmanager
def fp_or_skip(**state):
    """``sk.testing.fp_environment(**state)``; skips only when this CPU
    cannot hold the state (``UnsupportedFPState``)."""
    with contextlib.ExitStack() as stack:
        try:
            entered = stack.enter_context(sk.testing.fp_environment(**state))
        except sk.testing.UnsupportedFPState as exc:
            pytest.skip(f"UnsupportedFPState: {exc}")
        yield entered


def in_child(fn: Callable[[], object]) -> Tuple[str, object]:
    """Runs ``fn`` in a forked child and returns ("ok", its picklable result),
    ("raised", "<Type>: message") or ("signal", signal name): an enabled FP
    trap that fires kills only the child, and the test reports it instead of
    the whole suite dying."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        try:
            gc.disable()  # see gc_paused
            os.close(read_fd)
            try:
                payload = ("ok", fn())
            except pytest.skip.Exception as exc:
                payload = ("skip", str(exc))
            except BaseException as exc:  # noqa: BLE001 - reported to the parent
                payload = ("raised", f"{type(exc).__name__}: {exc}")
            with os.fdopen(write_fd, "wb") as pipe:
                pickle.dump(payload, pipe)
        finally:
            os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return "signal", signal.Signals(os.WTERMSIG(status)).name
    if not data:
        return "signal", f"child exited with status {status} and no result"
    return pickle.loads(data)
