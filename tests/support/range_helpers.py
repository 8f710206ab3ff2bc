"""Shared pieces of the range-pass tests: the keys by their definition,
written here in NumPy (never by calling the code under test), the native
pass run on a forced route, and the leaves' block sizes."""
from __future__ import annotations

import contextlib
import os
from typing import Iterator, Optional, Tuple

import ml_dtypes
import numpy as np

from simakernels import _registry, qparams
from simakernels._ffi import lib
from support.helpers import ROUTE_IDS, ROUTES

# dtype -> (storage word, exponent bits, fraction bits, sk_quant_input)
FORMATS = {
    "f32": (np.float32, np.uint32, 8, 23, lib.SK_QUANT_F32),
    "bf16": (ml_dtypes.bfloat16, np.uint16, 8, 7, lib.SK_QUANT_BF16),
    "f16": (np.float16, np.uint16, 5, 10, lib.SK_QUANT_F16),
}


def expected_keys(x: np.ndarray, axis: Optional[int]) -> Tuple[list, list]:
    """(least, greatest) per channel by the definition: sign-magnitude keys
    of the bits (+magnitude for sign 0, -magnitude for sign 1), non-finite
    elements (magnitude at or above infinity's) counted as 0, 0 always in."""
    name = {np.dtype(v[0]): k for k, v in FORMATS.items()}[x.dtype]
    _, word, exponent, fraction, _ = FORMATS[name]
    width = 8 * np.dtype(word).itemsize
    bits = x.view(word).astype(np.int64)
    magnitude = bits & ((1 << (width - 1)) - 1)
    key = np.where(bits >> (width - 1) == 1, -magnitude, magnitude)
    key[magnitude >= ((1 << exponent) - 1) << fraction] = 0
    if axis is None:
        rows = key.reshape(1, -1)
    else:
        moved = np.moveaxis(key, axis, 0)
        rows = moved.reshape(moved.shape[0], -1)
    return rows.min(axis=1, initial=0).tolist(), rows.max(axis=1, initial=0).tolist()


@contextlib.contextmanager
def forced(route: str) -> Iterator[None]:
    saved = os.environ.get("SIMAKERNELS_FORCE_ROUTE")
    os.environ["SIMAKERNELS_FORCE_ROUTE"] = route
    try:
        yield
    finally:
        if saved is None:
            del os.environ["SIMAKERNELS_FORCE_ROUTE"]
        else:
            os.environ["SIMAKERNELS_FORCE_ROUTE"] = saved


def native_keys(x: np.ndarray, axis: Optional[int], route: str) -> Tuple[list, list]:
    """The native pass's keys on ``route`` (qparams._keys, the route forced)."""
    with forced(route):
        least, greatest = qparams._keys(x, None if axis is None else axis % max(x.ndim, 1))
    return least.tolist(), greatest.tolist()


def check(x: np.ndarray, axis: Optional[int], route: str) -> None:
    got, want = native_keys(x, axis, route), expected_keys(x, axis)
    assert got == want, f"{route} axis={axis} shape={x.shape} strides={x.strides}: got {got!r:.300}, want {want!r:.300}"


def blocks(route: str, name: str) -> Tuple[int, int, int]:
    """(fold iteration, checked block, periodic iteration) in elements, from
    the registry: every vector fold checks blocks of SK_RANGE_CHECK."""
    found = [_registry.find(lib.SK_OP_RANGE, ROUTE_IDS[route], FORMATS[name][4], kind)
             for kind in (lib.SK_LEAF_FOLD, lib.SK_LEAF_FOLD_PERIODIC)]
    fold, periodic = (leaf.block if leaf else 0 for leaf in found)
    return fold, lib.SK_RANGE_CHECK if fold > 1 else 0, periodic


def edges(route: str, name: str) -> Tuple[int, ...]:
    """Sizes at and around each block and cutoff of the route's leaves."""
    sizes = {0, 1, 2, 3}
    for b in blocks(route, name):
        for k in (1, 2, 3):
            if b:
                sizes |= {k * b - 1, k * b, k * b + 1}
    iteration, check_block, _ = blocks(route, name)
    if check_block:
        sizes |= {check_block + iteration - 1, check_block + iteration, check_block + iteration + 1,
                  check_block - iteration + 1}
    if iteration > 1:  # the tails the vector folds pad to an iteration, and the shorter ones they fold one by one
        padded = 8  # SK_RANGE_PADDED (csrc/range/range.h)
        sizes |= {padded - 1, padded, padded + 1, iteration + padded - 1, iteration + padded, 2 * iteration - 1}
    return tuple(sorted(s for s in sizes if s >= 0))


def from_bits(bits, name: str) -> np.ndarray:
    dtype, word = FORMATS[name][0], FORMATS[name][1]
    return np.asarray(bits, dtype=np.uint64).astype(word).view(dtype)


__all__ = ["FORMATS", "ROUTES", "blocks", "check", "edges", "expected_keys", "forced", "from_bits", "native_keys"]
