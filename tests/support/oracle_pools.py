"""Every A65 operation's parameter sets, each with a pool of input patterns
and the oracle's output for every pool entry (``tests/oracle``), for tests
that run many cases or many threads: a case draws its inputs from the pool
and looks up its expected bits, so the oracle runs once per pool entry.

Imports only NumPy, the oracle and simakernels (child processes start
quickly with it).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

import oracle
import simakernels as sk

F32, BF16, F16, I8 = sk.DType.FLOAT32, sk.DType.BFLOAT16, sk.DType.FLOAT16, sk.DType.INT8
WORD = {F32: np.dtype("<u4"), BF16: np.dtype("<u2"), F16: np.dtype("<u2"), I8: np.dtype("u1")}
FORMAT = {F32: oracle.BINARY32, BF16: oracle.BFLOAT16, F16: oracle.BINARY16}
MODES = ("nearest_even", "toward_zero", "toward_positive", "toward_negative")


@dataclass(frozen=True)
class Variant:
    """One set of parameters of an operation, with an input pool and the
    oracle's output for every pool entry.  ``tame`` leading entries keep
    the vector routes on their fast paths (no NaN, infinity or subnormal);
    :meth:`draw` takes from them or from the whole pool."""

    label: str
    request: Callable[[Sequence[int], Optional[tuple], Optional[tuple]], Any]  # shape, byte strides in, out
    pool: np.ndarray
    expected: np.ndarray
    tame: int

    def draw(self, rng: np.random.Generator, shape: Sequence[int], tame: bool) -> Tuple[np.ndarray, np.ndarray]:
        """(inputs, expected outputs) of ``shape`` drawn from the pool."""
        pick = rng.integers(0, self.tame if tame else self.pool.size, tuple(shape))
        return self.pool[pick], self.expected[pick]


@dataclass(frozen=True)
class Operation:
    src: sk.DType
    dst: sk.DType
    module: Any                      # sk.a65.cast / dequant / quant
    variants: Callable[[], List[Variant]]


def spec(shape, dtype, strides=None) -> sk.TensorSpec:
    return sk.TensorSpec(tuple(shape), dtype, sk.Contiguous() if strides is None else sk.Strided(strides))


def rng(name: str) -> np.random.Generator:
    """A generator seeded by a name (the same draws on every run)."""
    return np.random.default_rng(zlib.crc32(name.encode()))


def float_pool(dtype: sk.DType, name: str) -> Tuple[np.ndarray, int]:
    """(patterns, tame count): 192 values in [-1000, 1000] (products with
    the multipliers used here stay finite and normal), then random
    patterns and the special classes (zeros, subnormals, infinities, NaNs)."""
    draws = rng(name)
    tame_f32 = np.asarray(draws.uniform(-1000.0, 1000.0, 192), np.float32).view(np.uint32)
    if dtype is F32:
        tame = tame_f32
        wild = draws.integers(0, 1 << 32, 56, dtype=np.uint64).astype(np.uint32)
        special = np.array([0, 0x80000000, 1, 0x807FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFF800001],
                           np.uint32)
    else:
        tame = (tame_f32 >> 16).astype(np.uint16) if dtype is BF16 else (
            np.asarray(draws.uniform(-1000.0, 1000.0, 192), np.float16).view(np.uint16))
        wild = draws.integers(0, 1 << 16, 56, dtype=np.uint32).astype(np.uint16)
        special = np.array([0, 0x8000, 1, 0x8001, 0x7F80 if dtype is BF16 else 0x7C00, 0xFFFF, 0x7FC0, 0x83FF],
                           np.uint16)
    return np.concatenate([tame, wild, special]), tame.size


def _cast_variants(src: sk.DType, dst: sk.DType) -> Callable[[], List[Variant]]:
    def variants() -> List[Variant]:
        if src is F32:
            pool, tame = float_pool(F32, "cast")
            expected = np.array(oracle.f32_to_bf16_many(pool.tolist()), np.uint16)
        else:
            pool = rng("cast16").integers(0, 1 << 16, 256, dtype=np.uint32).astype(np.uint16)
            tame = pool.size
            expected = np.array([oracle.bf16_to_f32(int(b)) for b in pool], np.uint32)
        return [Variant("", lambda shape, si, so: sk.ops.cast.Request([spec(shape, src, si)], [spec(shape, dst, so)]),
                        pool, expected, tame)]
    return variants


# (scale bits, zero point): one per arithmetic form of the route table
# (narrow power of two, narrow, wide power of two, wide unit scale, wide).
DEQUANT_PARAMS = ((0x3E000000, 5), (0x4037CED9, -123), (0x40800000, 16777088), (0x3F800000, -70000),
                  (0x3E99999A, 100000))


def _dequant_variants(dst: sk.DType) -> Callable[[], List[Variant]]:
    def variants() -> List[Variant]:
        pool = np.arange(256, dtype=np.uint8)
        out = []
        for scale, zp in DEQUANT_PARAMS:
            table = oracle.dequant_f32_table(scale, zp) if dst is F32 else oracle.dequant_bf16_table(scale, zp)
            params = sk.ops.dequant.Params.from_bits(scale, zp)
            out.append(Variant(
                f"scale={scale:#010x} zp={zp}",
                lambda shape, si, so, params=params: sk.ops.dequant.Request(
                    [spec(shape, I8, si)], [spec(shape, dst, so)], params),
                pool, np.array(table, WORD[dst].type), pool.size))
        return out
    return variants


# (multiplier bits, zero point, mode): every mode, and a subnormal
# multiplier (every block takes the exact path).
QUANT_PARAMS = tuple((0x3E99999A, -3, mode) for mode in MODES) + ((0x00400000, 17, "nearest_even"),)


def _quant_variants(src: sk.DType) -> Callable[[], List[Variant]]:
    def variants() -> List[Variant]:
        pool, tame = float_pool(src, f"quant-{src.name}")
        out = []
        for m, zp, mode in QUANT_PARAMS:
            expected = np.array(oracle.quant_many(pool.tolist(), FORMAT[src], m, zp, mode), np.int8).view(np.uint8)
            params = sk.ops.quant.Params.from_bits(m, zp, mode)
            out.append(Variant(
                f"{mode} m={m:#010x} zp={zp}",
                lambda shape, si, so, params=params: sk.ops.quant.Request(
                    [spec(shape, src, si)], [spec(shape, I8, so)], params),
                pool, expected, tame))
        return out
    return variants


OPERATIONS = {
    "cast_f32_bf16": Operation(F32, BF16, sk.a65.cast, _cast_variants(F32, BF16)),
    "cast_bf16_f32": Operation(BF16, F32, sk.a65.cast, _cast_variants(BF16, F32)),
    "dequant_i8_f32": Operation(I8, F32, sk.a65.dequant, _dequant_variants(F32)),
    "dequant_i8_bf16": Operation(I8, BF16, sk.a65.dequant, _dequant_variants(BF16)),
    "quant_f32_i8": Operation(F32, I8, sk.a65.quant, _quant_variants(F32)),
    "quant_bf16_i8": Operation(BF16, I8, sk.a65.quant, _quant_variants(BF16)),
    "quant_f16_i8": Operation(F16, I8, sk.a65.quant, _quant_variants(F16)),
}


# ------------------------------------------------------------------- Hurray

H = sk.formats.hurray
HURRAY_SCALES = (0x3E99999A, 0xBE000000)   # INT8 with a positive scale runs through the A65 Dequant


def hurray_zero_point(storage: "H.StorageType") -> int:
    return -1 if storage.signed else 1


def hurray_pool(storage: "H.StorageType", scale_bits: int) -> Tuple[np.ndarray, np.ndarray]:
    """(stored values, oracle FP32 bits): every value of a type up to 8
    bits, else the extremes and random values."""
    low, high = storage.range.start, storage.range.stop - 1
    if storage.bits <= 8:
        values = np.arange(low, high + 1, dtype=np.int64)
    else:
        values = np.concatenate([[low, high, 0, -1 if low < 0 else 1],
                                 rng(storage.name).integers(low, high + 1, 252, dtype=np.int64)])
    zp = hurray_zero_point(storage)
    return values, np.array([oracle.hurray_dequant(int(q), scale_bits, zp) for q in values], np.uint32)


def hurray_descriptor(storage: "H.StorageType", scale_bits: int) -> "H.PerTensorAffine":
    return H.PerTensorAffine(np.array(scale_bits, np.uint32).view(np.float32)[()], hurray_zero_point(storage))


def hurray_pack(values: np.ndarray, bits: int) -> np.ndarray:
    """Little-endian storage bytes; sub-byte fields little-end first (the
    format's layout)."""
    fields = values.astype(np.int64) & ((1 << bits) - 1)
    if bits >= 8:
        return fields.astype(f"<u{bits // 8}").view(np.uint8)
    per = 8 // bits
    padded = np.zeros(-(-fields.size // per) * per, np.int64)
    padded[:fields.size] = fields
    return (padded.reshape(-1, per) << (bits * np.arange(per))).sum(axis=1).astype(np.uint8)
