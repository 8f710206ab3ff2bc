"""Blocked (group-wise) Dequant and Quant test support: parameter arrays of
the blocks' shape drawn from the per-axis parameter sets, requests and
plans with ``BlockParams``, expected bits from the independent oracle
(``tests/oracle/blocked.py``, fed with the per-axis helpers' cached
per-tensor tables) and cases that run through the per-axis helpers' runner
(every output element bit for bit, every other output byte and the input
untouched).

Nothing here calls the code under test to compute an expectation.

Implementation facts the shapes aim at (design31.md, csrc/common/walk.c):
the block axis as the walk's inner run changes parameters every
``block_size`` elements inside a run (a "runs" leaf per segment, the last
one partial); the block axis outside the inner run gives each run (or each
element of it) consecutive parameter entries ("periodic" leaves); runs
that are not packed are staged in chunks of 2048 elements.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np

import simakernels as sk
from oracle import blocked as oracle_blocked
from support.axis_helpers import (DEQUANT_SETS, FORMAT, QUANT_SETS, WHOLE_TABLES, AxisCase, _many, _table, byte_strides,
    describe as _axis_describe, draw, module_of, request, requirement_faults)
from support.helpers import F32, I8, INPUT_FILL, SENTINEL, UINT, Storage
from support.quant_helpers import MODES

__all__ = ["BLOCKS", "OPS", "DEQUANT_ALL", "DEQUANT_NARROW", "QUANT_ALL", "block_entries", "blocked_params",
           "plan_for", "expected", "make_case", "op_case", "parameter_shape"]

# Block sizes around the 16-lane vectors and the 32/64/128 blocks of LLM weights.
BLOCKS = (1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129)

OPS = {
    "dequant-f32": (I8, sk.DType.FLOAT32),
    "dequant-bf16": (I8, sk.DType.BFLOAT16),
    "quant-f32": (sk.DType.FLOAT32, I8),
    "quant-bf16": (sk.DType.BFLOAT16, I8),
    "quant-f16": (sk.DType.FLOAT16, I8),
}
DEQUANT_ALL = DEQUANT_SETS["forms"] + DEQUANT_SETS["extremes"]
# The pairs whose zero points are in the INT8 range (a table of only such
# entries takes NEON's narrow form in its runs and rows leaves).
DEQUANT_NARROW = tuple(p for p in DEQUANT_ALL if -128 <= p[1] <= 127)
QUANT_ALL = QUANT_SETS["ties"] + QUANT_SETS["tiny"]

parameter_shape = oracle_blocked.parameter_shape


def block_entries(src: sk.DType, pshape: Sequence[int], k: int = 0,
                  shared_zp: Optional[int] = None, narrow: bool = False) -> Tuple[np.ndarray, np.ndarray]:
    """(value bits uint32, zero points int64) arrays of ``pshape``: the
    operation's parameter pairs taken cyclically over the entries in C
    order, starting at pair ``k`` and stepping by a stride prime to the set
    size (neighbouring blocks differ, rows differ from their neighbours);
    ``narrow``: Dequant's pairs with INT8-range zero points only."""
    base = (DEQUANT_NARROW if narrow else DEQUANT_ALL) if src is I8 else QUANT_ALL
    count = int(np.prod(pshape, dtype=np.int64))
    pick = (k + 5 * np.arange(count, dtype=np.int64)) % len(base)
    bits = np.array([v for v, _ in base], np.uint32)[pick].reshape(tuple(pshape))
    zps = np.array([z for _, z in base], np.int64)[pick].reshape(tuple(pshape))
    if shared_zp is not None:
        zps = np.full(tuple(pshape), shared_zp, np.int64)
    return bits, zps


def blocked_params(src: sk.DType, axis: int, block: int, bits: np.ndarray, zps, mode: Optional[str] = None):
    """The operation's BlockParams (values given as float32, zero points as
    given: an int shares one)."""
    values = np.asarray(bits, np.uint32).view(np.float32)
    if src is I8:
        return sk.ops.dequant.BlockParams(axis, block, values, zps)
    return sk.ops.quant.BlockParams(axis, block, values, zps, mode)


def plan_for(route: str, shape, src: sk.DType, dst: sk.DType, axis: int, block: int, bits, zps, mode=None,
             in_strides=None, out_strides=None):
    """The A65 plan of a blocked request on ``route`` (AssertionError on an Error)."""
    params = blocked_params(src, axis, block, bits, zps, mode)
    plan = module_of(src).check_inference(request(shape, src, dst, params, in_strides, out_strides), route=route)
    assert not isinstance(plan, sk.Error), f"unexpected rejection: {plan}"
    assert plan.route == route
    return plan


def expected(src: sk.DType, dst: sk.DType, values: np.ndarray, axis: int, block: int, bits: np.ndarray, zps,
             mode: Optional[str] = None) -> np.ndarray:
    """The oracle's output words for input patterns ``values`` (logical shape)."""
    values = np.asarray(values)
    if src is I8:
        out = oracle_blocked.dequant_blocked(values.astype(np.uint8), axis, block, bits, zps,
                                             "float32" if dst is F32 else "bfloat16")
        return out.astype(UINT[dst])
    hooks = dict(table=_table) if src is not F32 and values.size >= WHOLE_TABLES else dict(many=_many)
    return oracle_blocked.quant_blocked(values, FORMAT[src], axis, block, bits, zps, mode, **hooks).view(np.uint8)


def make_case(route: str, shape, src: sk.DType, dst: sk.DType, axis: int, block: int, mode: Optional[str] = None,
              in_strides=None, out_strides=None, *, k: int = 0, shared_zp: Optional[int] = None,
              values: Optional[np.ndarray] = None, plan=None, in_excess: int = 13, out_excess: int = 29,
              narrow: bool = False) -> AxisCase:
    """One blocked case (the per-axis runner's AxisCase): parameters from
    :func:`block_entries`, input patterns drawn from the per-axis value pool
    (seed ``k``) unless given, strides in bytes."""
    shape = tuple(shape)
    pshape = parameter_shape(shape, axis, block)
    bits, zps = block_entries(src, pshape, k, shared_zp, narrow)
    zp_arg = shared_zp if shared_zp is not None else zps
    if plan is None:
        plan = plan_for(route, shape, src, dst, axis, block, bits, zp_arg, mode, in_strides, out_strides)
    src_storage = Storage.make(shape, src, in_strides, excess=in_excess, fill=INPUT_FILL)
    if values is None:
        values = draw(src, shape, np.random.default_rng(k))
    values = np.asarray(values, dtype=UINT[src]).reshape(shape)
    src_storage.write(values.reshape(-1))
    dst_storage = Storage.make(shape, dst, out_strides, excess=out_excess, fill=SENTINEL)
    want = expected(src, dst, values, axis, block, bits, zp_arg, mode)
    pairs = tuple(zip(bits.reshape(-1).tolist(), zps.reshape(-1).tolist()))
    what = (_axis_describe(route, src, dst, shape, axis, pairs, mode, src_storage, dst_storage)
            + f" block {block} params {pshape}")
    early = requirement_faults(what, plan, shape, src_storage, dst_storage)
    return AxisCase(what, plan, src_storage, dst_storage, values.reshape(-1),
                    np.asarray(want, UINT[dst]).reshape(-1), early)


def op_case(route: str, op: str, shape, axis: int, block: int, in_el=None, out_el=None, k: int = 0, **kwargs):
    """A case of operation ``op`` (a key of :data:`OPS`), strides in
    elements of each port, the Quant rounding cycling with ``k``."""
    src, dst = OPS[op]
    mode = None if src is I8 else MODES[k % len(MODES)]
    return make_case(route, shape, src, dst, axis, block, mode, byte_strides(in_el, src), byte_strides(out_el, dst),
                     k=k, **kwargs)

