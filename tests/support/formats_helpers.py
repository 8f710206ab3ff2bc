"""Test support for the Hurray storage types (tests/formats): affine_quant
and affine_dequant, packed and one-element-per-byte sub-byte ports.

Expected values come only from the independent oracle (tests/oracle/affine.py
and tests/oracle/storage.py), memoised on disk by oracle_store: whole-format
tables of Quant's step-3 integer per (input format, multiplier, mode),
saturated per output type and zero point by the oracle's own step 4-5
function; whole-type Dequant tables per (type, scale, zero point, output).

Packed images are built here with NumPy (:func:`pack_image`,
:func:`unpack_image`): a second statement of the layout rule, checked
against the oracle's :func:`oracle.storage.pack` / ``unpack`` in
tests/formats/test_packed.py, so that a 65,536-element tensor is packed in
milliseconds.

Nothing here calls the code under test to compute an expectation.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import ml_dtypes
import numpy as np

import simakernels as sk
from oracle import BFLOAT16, BINARY16, BINARY32
from oracle import affine as oa
from oracle import storage as ost
from support import oracle_store
from support.helpers import (SENTINEL, Storage, aligned_bytes, contiguous_strides, element_offsets,
                             mismatch_report, span, untouched_report)

D = sk.DType
F32, BF16, F16 = D.FLOAT32, D.BFLOAT16, D.FLOAT16
FLOATS = (F32, BF16, F16)
STORAGE_DTYPES = (D.INT8, D.UINT8, D.INT16, D.UINT16, D.INT32, D.UINT32, D.INT4, D.UINT4, D.INT2, D.UINT2)
QUANT_OUT = tuple(d for d in STORAGE_DTYPES if d.bits <= 16)
SUB_BYTE = (D.INT4, D.UINT4, D.INT2, D.UINT2)
BYTE_OR_WIDER = tuple(d for d in STORAGE_DTYPES if d.bits >= 8)
FORMAT = {F32: BINARY32, BF16: BFLOAT16, F16: BINARY16}
FLOAT_WORD = {F32: np.dtype("<u4"), BF16: np.dtype("<u2"), F16: np.dtype("<u2")}
NUMPY = {D.INT8: np.dtype(np.int8), D.UINT8: np.dtype(np.uint8), D.INT16: np.dtype("<i2"),
         D.UINT16: np.dtype("<u2"), D.INT32: np.dtype("<i4"), D.UINT32: np.dtype("<u4"),
         D.INT4: np.dtype(ml_dtypes.int4), D.UINT4: np.dtype(ml_dtypes.uint4), D.INT2: np.dtype(ml_dtypes.int2),
         D.UINT2: np.dtype(ml_dtypes.uint2)}
MODES = ("nearest_even", "toward_zero", "toward_positive", "toward_negative")
OUTPUTS = {"float32": F32, "bfloat16": BF16}
NAME = {F32: "float32", BF16: "bfloat16"}


def storage(dtype: D) -> ost.StorageType:
    """The oracle's storage type of an ``sk.DType``."""
    return ost.storage_type(dtype.name)


def word(dtype: D) -> np.dtype:
    """The unsigned word one element of ``dtype`` occupies unpacked (a
    sub-byte type: one byte)."""
    return np.dtype({1: np.uint8, 2: "<u2", 4: "<u4"}[max(1, dtype.bits // 8)])


def ids(values) -> List[str]:
    return [getattr(v, "name", str(v)).lower() for v in values]


# ------------------------------------------------------------- parameters

HALF, SPEC_M = 0x3F000000, 0x3E99999A      # 0.5 (tie-rich, exact) and the specification's ~0.3
# One (multiplier, zero point) per output type: two multipliers in all (the
# oracle's whole-format tables are per multiplier and mode, shared by the
# types); zero points off centre, so that the range edges sit at different
# products and both saturations happen.
QUANT_PARAMS: Dict[D, Tuple[int, int]] = {
    D.INT8: (SPEC_M, -3), D.UINT8: (HALF, 200), D.INT16: (SPEC_M, -32000), D.UINT16: (HALF, 1000),
    D.INT4: (HALF, -3), D.UINT4: (SPEC_M, 12), D.INT2: (SPEC_M, 1), D.UINT2: (HALF, 1),
}
# (scale bits, zero point) per input type: both signs of scale, subnormal
# and huge scales (underflow, overflow to infinity), extreme zero points
# (the INT32 / UINT32 differences wrap).
DEQUANT_PARAMS: Dict[D, Tuple[Tuple[int, int], ...]] = {
    D.INT8: ((0xBE99999A, -7), (0x3E000000, 127)),
    D.UINT8: ((0x3C800000, 128), (0xC37F0000, 0)),
    D.INT16: ((0xB8D1B717, 12345),),
    D.UINT16: ((0x3F800000, 65535),),
    D.INT32: ((0x2F800000, -2**31), (0xBF800000, 2**31 - 1)),
    D.UINT32: ((0xB0000000, 2**32 - 1), (0x3F800000, 2**31)),
    D.INT4: ((0xBE000000, -8), (0x00000001, 7)),
    D.UINT4: ((0x7F7FFFFF, 3), (0x3DCCCCCD, 15)),
    D.INT2: ((0xFF7FFFFF, 1), (0x3F800000, -2)),
    D.UINT2: ((0x80000001, 2), (0x40490FDB, 0)),
}


def quant_params(dtype: D, mode: str = "nearest_even"):
    m, zp = QUANT_PARAMS[dtype]
    return sk.ops.affine_quant.Params.from_bits(m, zp, mode)


def dequant_params(scale_bits: int, zp: int):
    return sk.ops.affine_dequant.Params.from_bits(scale_bits, zp)


# ------------------------------------------------------------------ oracle


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


_INTEGER_TABLES: Dict[Tuple[D, int, str], np.ndarray] = {}
_DEQUANT_TABLES: Dict[Tuple[D, int, int, str], np.ndarray] = {}
# Results for large pattern / value arrays by their digest, in this process
# (the routes share them; bounded by the suite's own arrays).
_MEMO: Dict[str, np.ndarray] = {}
# Fewer patterns or values than this are evaluated one by one unless their
# whole-format table is already at hand (a table costs 65,536 evaluations).
FEW = 4096


def integer_table(src: D, m: int, mode: str) -> np.ndarray:
    """Quant's step-3 integer for every pattern of a 16-bit input format
    (oracle.affine.quant_integer_table, memoised on disk)."""
    key = (src, m, mode)
    if key not in _INTEGER_TABLES:
        fmt = FORMAT[src]
        _INTEGER_TABLES[key] = _frozen(oracle_store.stored(
            f"affine quant_integer_table {fmt.name} {m:#010x} {mode}", np.int64, 1 << 16,
            lambda: oa.quant_integer_table(fmt, m, mode)))
    return _INTEGER_TABLES[key]


@functools.lru_cache(maxsize=256)
def quant_table16(src: D, m: int, zp: int, mode: str, out: D) -> np.ndarray:
    """affine_quant's value for every pattern of a 16-bit input format
    (int64, indexed by the pattern)."""
    return _frozen(oa.saturate_integers(integer_table(src, m, mode), zp, storage(out)))


def integers(src: D, patterns: np.ndarray, m: int, mode: str) -> np.ndarray:
    """Step-3 integers of input patterns, one oracle evaluation per distinct
    pattern (memoised on disk by the patterns' digest when there are
    many)."""
    fmt = FORMAT[src]
    flat = np.ascontiguousarray(patterns, dtype=FLOAT_WORD[src]).reshape(-1)

    def compute():
        return oa.quant_integers(flat, fmt, m, mode)

    if flat.size < 256:
        return compute().reshape(np.shape(patterns))
    what = f"affine quant_integers {fmt.name} {oracle_store.digest(flat)} {m:#010x} {mode}"
    if what not in _MEMO:
        _MEMO[what] = _frozen(oracle_store.stored(what, np.int64, flat.size, compute))
    return _MEMO[what].reshape(np.shape(patterns))


def f32_integers(patterns: np.ndarray, m: int, mode: str) -> np.ndarray:
    return integers(F32, patterns, m, mode)


def quant_expected(src: D, patterns: np.ndarray, m: int, zp: int, mode: str, out: D) -> np.ndarray:
    """affine_quant's values (int64) for input patterns of any shape: from
    the whole-format table for many 16-bit patterns (or when the table is
    at hand), else pattern by pattern."""
    patterns = np.asarray(patterns)
    if src is not F32 and (patterns.size > FEW or (src, m, mode) in _INTEGER_TABLES):
        return quant_table16(src, m, zp, mode, out)[patterns.astype(np.uint16)]
    return oa.saturate_integers(integers(src, patterns, m, mode), zp, storage(out))


def dequant_table(dtype: D, scale: int, zp: int, output: str) -> np.ndarray:
    """affine_dequant's bits for every value of a type of at most 16 bits,
    indexed by its pattern (oracle.affine.affine_dequant_table, memoised)."""
    key = (dtype, scale, zp, output)
    if key not in _DEQUANT_TABLES:
        st = storage(dtype)
        w = np.uint32 if output == "float32" else np.uint16
        _DEQUANT_TABLES[key] = _frozen(oracle_store.stored(
            f"affine_dequant_table {st.name} {scale:#010x} {zp} {output}", w, 1 << st.bits,
            lambda: oa.affine_dequant_table(st, scale, zp, output)))
    return _DEQUANT_TABLES[key]


def dequant_expected(dtype: D, values: np.ndarray, scale: int, zp: int, output: str) -> np.ndarray:
    """affine_dequant's bits (uint32 / uint16) for stored values of any
    shape: from the whole-type table for types of up to 8 bits, many 16-bit
    values or a table at hand; else value by value."""
    values = np.asarray(values).astype(np.int64)
    st = storage(dtype)
    if st.bits <= 8 or (st.bits <= 16 and (values.size > FEW or (dtype, scale, zp, output) in _DEQUANT_TABLES)):
        return dequant_table(dtype, scale, zp, output)[values % (1 << st.bits)]
    flat = values.reshape(-1)
    w = np.uint32 if output == "float32" else np.uint16
    unique, inverse = np.unique(flat, return_inverse=True)

    def compute():
        return np.array(oa.affine_dequant_many(unique.tolist(), st, scale, zp, output), dtype=w)

    what = f"affine_dequant_many {st.name} {oracle_store.digest(unique)} {scale:#010x} {zp} {output}"
    if unique.size < 256:
        results = compute()
    else:
        if what not in _MEMO:
            _MEMO[what] = _frozen(oracle_store.stored(what, w, unique.size, compute))
        results = _MEMO[what]
    return results[inverse.reshape(-1)].reshape(values.shape)


# ----------------------------------------------------------------- packing


def pack_image(values, dtype: D, previous: int = 0) -> np.ndarray:
    """The packed bytes of ``values`` (C order) as a uint8 array: element i's
    ``bits``-bit pattern at bit ``i * bits`` of a little-endian bit string,
    the last byte's spare high bits from ``previous`` (NumPy; checked
    against oracle.storage.pack in test_packed.py)."""
    bits = dtype.bits
    fields = np.asarray(values).astype(np.int64).reshape(-1) & ((1 << bits) - 1)
    n = fields.size
    nbytes = -(-n * bits // 8)
    position = np.arange(n, dtype=np.int64) * bits
    out = np.zeros(nbytes, dtype=np.int64)
    np.add.at(out, position // 8, fields << (position % 8))   # fields never share bits: a sum is an or
    spare = nbytes * 8 - n * bits
    if spare:
        keep = ((1 << spare) - 1) << (8 - spare)
        out[-1] = (out[-1] & ~keep) | (previous & keep)
    return out.astype(np.uint8)


def unpack_image(data, count: int, dtype: D) -> np.ndarray:
    """The ``count`` values (int64) packed in ``data`` (sign-extended for
    signed types)."""
    bits = dtype.bits
    data = np.asarray(data, dtype=np.uint8).reshape(-1)
    position = np.arange(count, dtype=np.int64) * bits
    fields = (data[position // 8].astype(np.int64) >> (position % 8)) & ((1 << bits) - 1)
    if storage(dtype).signed:
        fields = np.where(fields >> (bits - 1), fields - (1 << bits), fields)
    return fields


def patterns_of(values, dtype: D) -> np.ndarray:
    """Each value's unsigned ``bits``-bit pattern, as the element's word."""
    return (np.asarray(values).astype(np.int64) % (1 << dtype.bits)).astype(word(dtype))


# ------------------------------------------------------------------- ports


@dataclass
class IntPort:
    """A sentinel-filled buffer holding one storage-type port: packed
    (a sub-byte type with a Contiguous() layout: ceil(n * bits / 8) bytes) or
    one element per ``word(dtype)`` at byte ``strides`` (C order when None;
    a sub-byte type then still takes a Strided layout of one byte per
    element)."""

    dtype: D
    shape: Tuple[int, ...]
    strides: Optional[Tuple[int, ...]]
    packed: bool
    buf: np.ndarray
    offsets: np.ndarray
    nbytes: int
    fill: int

    @classmethod
    def make(cls, dtype: D, shape, strides=None, *, packed: Optional[bool] = None, excess: int = 7,
             fill: int = SENTINEL) -> "IntPort":
        shape = tuple(int(e) for e in shape)
        packed = dtype.sub_byte and strides is None if packed is None else packed
        assert not packed or (dtype.sub_byte and strides is None), "packed ports are Contiguous() sub-byte ones"
        n = int(np.prod(shape, dtype=np.int64))
        if packed:
            nbytes, offsets = -(-n * dtype.bits // 8), np.zeros(0, np.int64)
        else:
            item = word(dtype).itemsize
            if strides is None and dtype.sub_byte:
                strides = contiguous_strides(shape, 1)
            real = contiguous_strides(shape, item) if strides is None else tuple(strides)
            offsets, nbytes = element_offsets(shape, real), span(shape, real, item)
        return cls(dtype, shape, None if strides is None else tuple(strides), packed,
                   aligned_bytes(nbytes + excess, fill), offsets, nbytes, fill)

    @property
    def count(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def spec(self) -> sk.TensorSpec:
        layout = sk.Contiguous() if self.strides is None else sk.Strided(self.strides)
        return sk.TensorSpec(self.shape, self.dtype, layout)

    def requirement(self) -> sk.Requirement:
        return sk.Requirement(self.nbytes, 1 if self.packed else word(self.dtype).itemsize)

    def image(self, values, base: Optional[np.ndarray] = None, high: Optional[np.ndarray] = None) -> np.ndarray:
        """The buffer's bytes after ``values`` (logical C order) are stored
        over ``base`` (default: the fill): packed bytes keep the last byte's
        spare bits from ``base``; one-per-byte sub-byte elements hold their
        pattern with ``high`` (default zero) in the bits above."""
        out = (np.full(self.buf.size, self.fill, np.uint8) if base is None else base.copy())
        values = np.asarray(values).reshape(-1)
        if self.packed:
            if self.nbytes:
                out[:self.nbytes] = pack_image(values, self.dtype, previous=int(out[self.nbytes - 1]))
            return out
        words = patterns_of(values, self.dtype)
        if high is not None:
            words = words | (np.asarray(high, np.uint8).reshape(-1) & ~np.uint8((1 << self.dtype.bits) - 1))
        item = word(self.dtype).itemsize
        index = self.offsets[:, None] + np.arange(item, dtype=np.int64)
        out[index] = words.view(np.uint8).reshape(-1, item)
        return out

    def write(self, values, high: Optional[np.ndarray] = None) -> None:
        self.buf[...] = self.image(values, self.buf, high)

    def values(self, buf: Optional[np.ndarray] = None) -> np.ndarray:
        """The stored values (int64, logical C order) of ``buf`` (default:
        the port's)."""
        buf = self.buf if buf is None else buf
        if self.packed:
            return unpack_image(buf[:self.nbytes], self.count, self.dtype)
        item = word(self.dtype).itemsize
        index = self.offsets[:, None] + np.arange(item, dtype=np.int64)
        words = np.ascontiguousarray(buf[index]).reshape(-1).view(word(self.dtype)).astype(np.int64)
        if self.dtype.sub_byte:
            words &= (1 << self.dtype.bits) - 1
        st = storage(self.dtype)
        if st.signed:
            words = np.where((words >> (st.bits - 1)) & 1, words - (1 << st.bits), words)
        return words

    def reset(self) -> None:
        self.buf[...] = self.fill


def float_port(dtype: D, shape, strides=None, *, excess: int = 5, fill: int = SENTINEL) -> Storage:
    return Storage.make(shape, dtype, strides, excess=excess, fill=fill)


def output_report(port: IntPort, got: np.ndarray, expected_values, inputs, what: str) -> Optional[str]:
    """None when ``got`` (the output buffer after a run) is the image of
    ``expected_values`` over the fill, else the wrong elements (index,
    input, expected, got) and any other changed byte."""
    expected_values = np.asarray(expected_values).reshape(-1)
    image = port.image(expected_values)
    if np.array_equal(got, image):
        return None
    problems = [mismatch_report(patterns_of(port.values(got), port.dtype), patterns_of(expected_values, port.dtype),
                                np.asarray(inputs).reshape(-1), what, shape=port.shape or None)]
    bad = np.flatnonzero(got != image)
    shown = ", ".join(f"byte {int(i):#x}: expected {int(image[i]):#04x} got {int(got[i]):#04x}" for i in bad[:12])
    problems.append(f"{what}: {bad.size} byte(s) differ from the expected image "
                    f"({'packed' if port.packed else 'strided'}, {port.nbytes} bytes + excess): {shown}")
    return "\n".join(p for p in problems if p)


def float_output_report(port: Storage, got: np.ndarray, expected_bits, inputs, what: str) -> Optional[str]:
    """As :func:`output_report` for a FLOAT32 / BFLOAT16 output Storage."""
    item = port.itemsize
    index = port.offsets[:, None] + np.arange(item, dtype=np.int64)
    words = np.ascontiguousarray(got[index]).reshape(-1).view(FLOAT_WORD[port.dtype])
    mask = np.ones(got.size, bool)
    mask[index.reshape(-1)] = False
    problems = [mismatch_report(words, np.asarray(expected_bits, FLOAT_WORD[port.dtype]).reshape(-1),
                                np.asarray(inputs).reshape(-1), what, shape=port.shape or None),
                untouched_report(got, port.fill, mask, f"{what}: output")]
    found = [p for p in problems if p]
    return "\n".join(found) if found else None


# ------------------------------------------------------------------- plans


def quant_request(src_spec: sk.TensorSpec, dst: IntPort, params) -> "sk.ops.affine_quant.Request":
    return sk.ops.affine_quant.Request([src_spec], [dst.spec()], params)


def dequant_request(src: IntPort, dst_spec: sk.TensorSpec, params) -> "sk.ops.affine_dequant.Request":
    return sk.ops.affine_dequant.Request([src.spec()], [dst_spec], params)


def plan_or_report(module, request, route: str, what: str):
    """(plan, None) or (None, a report of the rejection)."""
    plan = module.check_inference(request, route=route)
    if isinstance(plan, sk.Error):
        return None, f"{what}: unexpected rejection: {plan}"
    if plan.route != route:
        return None, f"{what}: plan.route {plan.route}, asked for {route}"
    return plan, None


def spec_of(shape, dtype: D, strides=None) -> sk.TensorSpec:
    return sk.TensorSpec(tuple(shape), dtype, sk.Contiguous() if strides is None else sk.Strided(strides))


def run_quant(route: str, x: Storage, values: np.ndarray, dst: IntPort, params, expected, what: str,
              fenv: Optional[dict] = None) -> Optional[str]:
    """One affine_quant execution on ``route`` from the float port ``x``
    (holding ``values``) into ``dst``; None or a report.  The requirements
    are checked, the output compared as a whole image, the input checked
    unchanged."""
    plan, problem = plan_or_report(sk.a65.affine_quant, quant_request(spec_of(x.shape, x.dtype, x.strides), dst,
                                                                      params), route, what)
    if problem:
        return problem
    return execute_checked(sk.a65.affine_quant, plan, x.buf, dst, expected, values, what, fenv,
                           (sk.Requirement(span(x.shape, x.strides, x.itemsize), x.itemsize),),
                           (dst.requirement(),))


def execute_checked(module, plan, src_buf: np.ndarray, dst, expected, inputs, what: str, fenv: Optional[dict],
                    want_in, want_out) -> Optional[str]:
    problems = []
    if plan.input_requirements() != want_in or plan.output_requirements() != want_out:
        problems.append(f"{what}: requirements {plan.input_requirements()} {plan.output_requirements()}, "
                        f"expected {want_in} {want_out}")
    before = src_buf.copy()
    dst.reset()
    if fenv:
        with sk.testing.fp_environment(**fenv):
            status = module.execute(plan, [src_buf], [dst.buf])
    else:
        status = module.execute(plan, [src_buf], [dst.buf])
    got = dst.buf.copy()
    if status is not None:
        problems.append(f"{what}: execute returned {status}")
    elif isinstance(dst, IntPort):
        problems.append(output_report(dst, got, expected, inputs, what))
    else:
        problems.append(float_output_report(dst, got, expected, inputs, what))
    if not np.array_equal(src_buf, before):
        problems.append(f"{what}: input buffer modified")
    found = [p for p in problems if p]
    return "\n".join(found) if found else None


def run_dequant(route: str, q: IntPort, values: np.ndarray, y: Storage, params, expected, what: str,
                fenv: Optional[dict] = None) -> Optional[str]:
    """One affine_dequant execution on ``route`` from ``q`` (holding
    ``values``) into the float port ``y``; None or a report."""
    plan, problem = plan_or_report(sk.a65.affine_dequant, dequant_request(q, spec_of(y.shape, y.dtype, y.strides),
                                                                          params), route, what)
    if problem:
        return problem
    return execute_checked(sk.a65.affine_dequant, plan, q.buf, y, expected, values, what, fenv, (q.requirement(),),
                           (sk.Requirement(span(y.shape, y.strides, y.itemsize), y.itemsize),))


# ------------------------------------------------------------------ inputs

EVERY16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


def every16_with_tail(dtype: D) -> np.ndarray:
    """Every pattern of a 16-bit format, then 9 more (a tail past the last
    whole vector block and chunk)."""
    from support.quant_helpers import SPECIALS
    return _frozen(np.concatenate([EVERY16, np.array(SPECIALS[dtype][:9], dtype=np.uint16)]))


def f32_samples(dtype: D, m: int, zp: int, count: int = 1536, seed: int = 0) -> np.ndarray:
    """FP32 inputs for output ``dtype`` with multiplier ``m`` and zero point
    ``zp``: the special patterns, products at, half-way around and next to
    the range edges shifted by the zero point (and their neighbours one ulp
    away), and random patterns."""
    from support.quant_helpers import SPECIALS, to_patterns
    st = storage(dtype)
    mv = float(np.array(m, np.uint32).view(np.float32))
    edges = np.array([st.lo - zp, st.hi - zp, 0], dtype=np.float64)
    offsets = np.array([-1.5, -1, -0.5, -0.25, 0, 0.25, 0.5, 1, 1.5], dtype=np.float64)
    centres = to_patterns(F32, ((edges[:, None] + offsets[None, :]).reshape(-1)) / mv).astype(np.int64)
    near = (centres[:, None] + np.arange(-1, 2)[None, :]).reshape(-1) & 0xFFFFFFFF
    rng = np.random.default_rng(seed + st.tag)
    random_bits = rng.integers(0, 1 << 32, size=count, dtype=np.uint64).astype(np.int64)
    useful = to_patterns(F32, rng.uniform(st.lo - zp - 4, st.hi - zp + 4, size=count) / mv).astype(np.int64)
    out = np.concatenate([np.array(SPECIALS[F32], np.int64), near, useful, random_bits])
    return _frozen(out.astype(np.uint32))


def block_lengths(operation: int, route: str) -> Tuple[int, ...]:
    """Lengths at and around the route's vector blocks (its registry rows,
    when the registry knows the operation), the packing granules (8
    elements) and the fused chunk (SK_AFFINE_CHUNK), and the small ones."""
    from simakernels import _registry
    from simakernels._ffi import lib
    from support.helpers import ROUTE_IDS
    blocks = {8, 16, 32, 64}
    for variant in _registry.variants(operation):
        block = _registry.block(operation, ROUTE_IDS[route], variant)
        if block:
            blocks.add(block)
    chunk = int(getattr(lib, "SK_AFFINE_CHUNK", 1024))
    around = {n for b in blocks for k in (1, 2, 3) for n in (k * b - 1, k * b, k * b + 1)}
    around |= {n for k in (1, 2, 3) for n in (k * chunk - 1, k * chunk, k * chunk + 1)}
    return tuple(sorted(set(range(0, 20)) | around))
