"""affine_quant and affine_dequant per axis and blocked, on every route:
channel axes inner and outer, partial last blocks, strided and transposed
float ports, strided and transposed byte-or-wider (and one-per-byte
sub-byte) ports, and packed sub-byte ports behind any of those walks (the
staged path: one byte per element through scratch, then packed; the last
byte's spare bits keep the sentinel's).  Also per tensor: a strided float
port with a packed sub-byte port (staged too).

Expected values: tests/oracle/affine.py's per-axis and blocked functions
(the element's channel, or its index with ``i[axis] // block_size``),
computed once per case and shared by the routes.
"""
from __future__ import annotations

import functools
from typing import List, NamedTuple, Optional, Tuple

import numpy as np
import pytest

import simakernels as sk
from oracle import affine as oa
from oracle.blocked import parameter_shape
from support.formats_helpers import (BF16, F16, F32, FLOAT_WORD, FORMAT, MODES, QUANT_OUT, STORAGE_DTYPES,
                                     IntPort, float_port, ids, run_dequant, run_quant, storage)
from support.helpers import INPUT_FILL, ROUTES, fail_if

MULTIPLIERS = np.array([0x3F000000, 0x3E99999A, 0x3DCCCCCD, 0x00400000, 0x41200000, 0x3F808000], np.uint32)
SCALES = np.array([0xBE99999A, 0x3C800000, 0x00000001, 0xC2F60000, 0x3F800000, 0x7F7FFFFF], np.uint32)


class Layout(NamedTuple):
    name: str
    shape: Tuple[int, ...]
    axis: int
    block: Optional[int]
    float_strides: Optional[Tuple[int, ...]]   # in elements of the float port
    int_strides: Optional[Tuple[int, ...]]     # in elements of the storage port (None: C order / packed)


def layouts(n: int) -> List[Layout]:
    """Inner and outer channel axes, per axis and blocked (block 4: a
    partial last block unless 4 divides the extent), with every-second
    and transposed float ports and transposed storage ports."""
    return [
        Layout("inner", (3, n), -1, None, None, None),
        Layout("outer", (3, n), 0, None, None, None),
        Layout("own-channel", (n,), 0, None, None, None),
        Layout("blocked inner", (3, n), 1, 4, None, None),
        Layout("blocked outer", (n, 3), 0, 4, None, None),
        Layout("blocked 1-D", (n,), 0, 5, None, None),
        Layout("float[:, ::2] inner", (3, n), 1, None, (2 * n, 2), None),
        Layout("float.T blocked", (n, 3), 0, 3, (1, n), None),
        Layout("int.T outer", (n, 3), 0, None, None, (1, n)),
        Layout("int[:, ::2] blocked", (3, n), -1, 2, None, (2 * n, 2)),
        Layout("per tensor float[::2]", (n,), 0, 0, (2,), None),      # block 0: per tensor
    ]


LENGTHS = (1, 7, 13, 33)


def _params(op: str, layout: Layout, dtype, seed: int):
    """(values bits, zero points) in the parameters' shape (per axis: one
    per channel; blocked: the blocked shape; per tensor: scalars)."""
    rng = np.random.default_rng(seed)
    st = storage(dtype)
    pool = MULTIPLIERS if op == "quant" else SCALES
    if layout.block == 0:
        return int(pool[seed % pool.size]), int(rng.integers(st.lo, st.hi + 1))
    if layout.block is None:
        shape = (layout.shape[layout.axis],)
    else:
        shape = parameter_shape(layout.shape, layout.axis, layout.block)
    values = pool[rng.integers(0, pool.size, shape)]
    zps = rng.integers(st.lo, st.hi + 1, shape, dtype=np.int64)
    if seed % 3 == 0:
        zps = int(zps.reshape(-1)[0])          # one shared zero point
    return values, zps


def _request_params(op: str, layout: Layout, values, zps, mode=None):
    mod = sk.ops.affine_quant if op == "quant" else sk.ops.affine_dequant
    if layout.block == 0:
        return mod.Params.from_bits(values, zps, mode) if op == "quant" else mod.Params.from_bits(values, zps)
    as_float = np.asarray(values, np.uint32).view(np.float32)
    zp = zps if isinstance(zps, int) else np.asarray(zps)
    rounding = () if op == "dequant" else (mode,)
    if layout.block is None:
        return mod.AxisParams(layout.axis, as_float, zp if isinstance(zp, int) else zp.tolist(), *rounding)
    return mod.BlockParams(layout.axis, layout.block, as_float, zp, *rounding)


def _float_byte_strides(layout: Layout, dtype):
    return None if layout.float_strides is None else tuple(s * dtype.itemsize for s in layout.float_strides)


def _int_byte_strides(layout: Layout, dtype):
    if layout.int_strides is None:
        return None
    return tuple(s * max(1, dtype.bits // 8) for s in layout.int_strides)


# ------------------------------------------------------------ affine_quant


class QuantCase(NamedTuple):
    what: str
    layout: Layout
    src: object
    out: object
    packed: bool
    values: np.ndarray
    mode: str
    params: tuple
    expected: np.ndarray


@functools.lru_cache(maxsize=None)
def quant_cases(out) -> Tuple[QuantCase, ...]:
    cases = []
    k = 0
    for n in LENGTHS:
        for layout in layouts(n):
            for packed in ((True, False) if out.sub_byte else (False,)):
                if packed and layout.int_strides is not None:
                    continue                                # packed ports are Contiguous()
                k += 1
                src, mode = (F32, BF16, F16)[k % 3], MODES[k % 4]
                rng = np.random.default_rng(k)
                bits = FORMAT[src].width
                values = rng.integers(0, 1 << bits, layout.shape, dtype=np.uint64).astype(FLOAT_WORD[src])
                tame = np.asarray(rng.uniform(-40, 40, layout.shape), np.float32)
                tame = tame.view(np.uint32) if src is F32 else (
                    (tame.view(np.uint32) >> 16).astype(np.uint16) if src is BF16 else tame.astype(np.float16).view(
                        np.uint16))
                values = np.where(rng.random(layout.shape) < 0.7, tame, values).astype(FLOAT_WORD[src])
                params = _params("quant", layout, out, k)
                st = storage(out)
                if layout.block == 0:
                    expected = np.array(oa.affine_quant_many(values.reshape(-1).tolist(), FORMAT[src], params[0],
                                                             params[1], mode, st)).reshape(layout.shape)
                elif layout.block is None:
                    m, z = params
                    expected = oa.affine_quant_axis(values, FORMAT[src], st, layout.axis, m.tolist(),
                                                    z if isinstance(z, int) else z.tolist(), mode)
                else:
                    expected = oa.affine_quant_blocked(values, FORMAT[src], st, layout.axis, layout.block,
                                                       params[0], params[1], mode)
                what = f"{src.name}->{out.name} {layout.name} shape {layout.shape} {mode}" + (
                    " packed" if packed else "")
                cases.append(QuantCase(what, layout, src, out, packed, values, mode, params, expected))
    return tuple(cases)


@pytest.mark.parametrize("out", QUANT_OUT, ids=ids(QUANT_OUT))
@pytest.mark.parametrize("route", ROUTES)
def test_quant_axis_blocked_and_strided(route, out):
    reports = []
    for case in quant_cases(out):
        layout = case.layout
        x = float_port(case.src, layout.shape, _float_byte_strides(layout, case.src), fill=INPUT_FILL)
        x.write(case.values)
        if case.packed:
            dst = IntPort.make(out, layout.shape)
        else:
            strides = _int_byte_strides(layout, out)
            dst = IntPort.make(out, layout.shape, strides, packed=False)
        params = _request_params("quant", layout, *case.params, mode=case.mode)
        reports.append(run_quant(route, x, case.values, dst, params, case.expected, f"{route} {case.what}"))
    fail_if(reports)


# ---------------------------------------------------------- affine_dequant


class DequantCase(NamedTuple):
    what: str
    layout: Layout
    dtype: object
    output: str
    packed: bool
    values: np.ndarray
    params: tuple
    expected: np.ndarray


@functools.lru_cache(maxsize=None)
def dequant_cases(dtype) -> Tuple[DequantCase, ...]:
    cases = []
    k = 0
    st = storage(dtype)
    for n in LENGTHS:
        for layout in layouts(n):
            for packed in ((True, False) if dtype.sub_byte else (False,)):
                if packed and layout.int_strides is not None:
                    continue
                k += 1
                output = ("float32", "bfloat16")[k % 2]
                rng = np.random.default_rng(1000 + k)
                values = rng.integers(st.lo, st.hi + 1, layout.shape, dtype=np.int64)
                params = _params("dequant", layout, dtype, k)
                if layout.block == 0:
                    expected = np.array(oa.affine_dequant_many(values.reshape(-1).tolist(), st, params[0], params[1],
                                                               output)).reshape(layout.shape)
                elif layout.block is None:
                    s, z = params
                    expected = oa.affine_dequant_axis(values, st, layout.axis, s.tolist(),
                                                      z if isinstance(z, int) else z.tolist(), output)
                else:
                    expected = oa.affine_dequant_blocked(values, st, layout.axis, layout.block, params[0], params[1],
                                                         output)
                what = f"{dtype.name}->{output} {layout.name} shape {layout.shape}" + (" packed" if packed else "")
                cases.append(DequantCase(what, layout, dtype, output, packed, values, params, expected))
    return tuple(cases)


@pytest.mark.parametrize("dtype", STORAGE_DTYPES, ids=ids(STORAGE_DTYPES))
@pytest.mark.parametrize("route", ROUTES)
def test_dequant_axis_blocked_and_strided(route, dtype):
    reports = []
    for case in dequant_cases(dtype):
        layout = case.layout
        if case.packed:
            q = IntPort.make(dtype, layout.shape, fill=0x3C)
        else:
            strides = _int_byte_strides(layout, dtype)
            q = IntPort.make(dtype, layout.shape, strides, packed=False, fill=0x3C)
        q.write(case.values, high=np.full(case.values.size, 0xF0, np.uint8) if dtype.sub_byte else None)
        out = F32 if case.output == "float32" else BF16
        y = float_port(out, layout.shape, _float_byte_strides(layout, out))
        params = _request_params("dequant", layout, *case.params)
        reports.append(run_dequant(route, q, case.values, y, params, case.expected, f"{route} {case.what}"))
    fail_if(reports)


def test_the_layouts_reach_every_walk():
    """The cases include packed ports behind per-axis, blocked and strided
    walks (staged), partial blocks, shared and per-entry zero points."""
    kinds = set()
    for out in QUANT_OUT:
        for case in quant_cases(out):
            lay = case.layout
            if case.packed and (lay.block != 0 or lay.float_strides):
                kinds.add("staged packed")
            if lay.block and lay.shape[lay.axis] % lay.block:
                kinds.add("partial block")
            kinds.add("shared zp" if isinstance(case.params[1], int) else "zp per entry")
    assert kinds >= {"staged packed", "partial block", "shared zp", "zp per entry"}, kinds
