"""On-target self-test for an installed build (``python -m simakernels
selftest``): every route of every operation against expectations computed
here independently of the C core (NumPy integer arithmetic and ml_dtypes),
with a summary table and an exit status."""
from __future__ import annotations

import sys
import time
from typing import Any, Callable, List, Tuple

import ml_dtypes
import numpy as np
import numpy.typing as npt

from . import _routes, a65
from ._progress import Progress
from .core import DType, TensorSpec
from .ops import cast as ops_cast
from .ops import dequant as ops_dequant
from .ops import quant as ops_quant

Check = Tuple[str, Callable[[str], bool]]


def _cast_run(route: str, src: np.ndarray, dst_dtype: DType, np_dtype: npt.DTypeLike) -> np.ndarray:
    src_dtype = DType.FLOAT32 if src.dtype == np.float32 else DType.BFLOAT16
    plan = a65.cast.check_inference(
        ops_cast.Request([TensorSpec(src.shape, src_dtype)], [TensorSpec(src.shape, dst_dtype)]), route
    )
    out = np.empty(src.shape, np_dtype)
    status = a65.cast.execute(plan, [src], [out])  # type: ignore[arg-type]
    if status is not None:
        raise RuntimeError(str(status))
    return out


def _bf16_to_f32(route: str) -> bool:
    words = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    out = _cast_run(route, words.view(ml_dtypes.bfloat16), DType.FLOAT32, np.float32)
    return bool(np.array_equal(out.view(np.uint32), words.astype(np.uint32) << 16))


def _f32_to_bf16(route: str) -> bool:
    rng = np.random.default_rng(2024)
    words = rng.integers(0, 1 << 32, size=1 << 18, dtype=np.uint64).astype(np.uint32)
    finite = words[(words & 0x7F800000) != 0x7F800000]
    out = _cast_run(route, finite.view(np.float32), DType.BFLOAT16, ml_dtypes.bfloat16)
    expected = finite.view(np.float32).astype(ml_dtypes.bfloat16)  # nearest-even, finite
    nan_in = np.array([0x7F800001, 0xFFFFFFFF, 0x7FC00000, 0xFF800001, 0x7FFF8000], np.uint32)
    nan_out = _cast_run(route, nan_in.view(np.float32), DType.BFLOAT16, ml_dtypes.bfloat16)
    # The specification's NaN rule, worked by hand.
    nan_expected = np.array([0x7F80, 0x0000, 0x7FC0, 0xFF80, 0x8000], np.uint16)
    return bool(
        np.array_equal(out.view(np.uint16), expected.view(np.uint16))
        and np.array_equal(nan_out.view(np.uint16), nan_expected)
    )


# (scale bits, zero point): one of each arithmetic form, the specification's
# examples, subnormal and overflowing scales.
_DEQUANT_PARAMS = [
    (0x3D800000, -3), (0x41800000, 127), (0x4037CED9, -123), (0x3F800000, 16777217),
    (0x40000000, 16777088), (0x3E800000, -16777089), (0x3C49BA5E, 2**31 - 1),
    (0x00000001, 0), (0x7F7FFFFF, -128),
]


def _dequant(route: str) -> bool:
    q = np.arange(-128, 128, dtype=np.int8)
    for scale_bits, zp in _DEQUANT_PARAMS:
        scale = np.array(scale_bits, np.uint32).view(np.float32)
        # The staged expression in NumPy binary32 (IEEE, nearest-even, no FMA).
        with np.errstate(over="ignore"):
            staged = (q.astype(np.float32) - np.float32(zp)) * scale
        for dtype, np_dtype, expected in (
            (DType.FLOAT32, np.float32, staged.view(np.uint32)),
            (DType.BFLOAT16, ml_dtypes.bfloat16, staged.astype(ml_dtypes.bfloat16).view(np.uint16)),
        ):
            request = ops_dequant.Request(
                [TensorSpec(q.shape, DType.INT8)], [TensorSpec(q.shape, dtype)],
                ops_dequant.Params.from_bits(scale_bits, zp),
            )
            plan = a65.dequant.check_inference(request, route)
            out = np.empty(q.shape, np_dtype)
            if a65.dequant.execute(plan, [q], [out]) is not None:  # type: ignore[arg-type]
                return False
            if not np.array_equal(out.view(expected.dtype), expected):
                return False
    return True


_QUANT_MULTIPLIERS = (0x3F800000, 0x3E99999A, 0x3B800000, 0x00000001, 0x00800000, 0x42FF0000, 0x7F7FFFFF)
_ROUNDERS = {
    ops_quant.Rounding.NEAREST_EVEN: np.rint,
    ops_quant.Rounding.TOWARD_ZERO: np.trunc,
    ops_quant.Rounding.TOWARD_POSITIVE: np.ceil,
    ops_quant.Rounding.TOWARD_NEGATIVE: np.floor,
}


def _quant_expected(x32: np.ndarray, multiplier_bits: Any, zp: Any, rounding: ops_quant.Rounding) -> np.ndarray:
    """The ordered contract in NumPy: binary32 product (IEEE nearest-even,
    gradual underflow), integer rounding, zero point, saturation (the
    parameters: scalars, or arrays of x32's shape, one per element)."""
    m = np.array(multiplier_bits, np.uint32).view(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        product = x32 * m
        rounded = _ROUNDERS[rounding](product).astype(np.float64) + zp
    result = np.clip(np.nan_to_num(rounded, nan=0.0, posinf=127, neginf=-128), -128, 127)
    expected: np.ndarray = np.where(np.isnan(product), zp, result).astype(np.int8)
    return expected


def _quant(route: str) -> bool:
    words = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    rng = np.random.default_rng(7)
    f32 = rng.integers(0, 1 << 32, size=1 << 14, dtype=np.uint64).astype(np.uint32).view(np.float32)
    # Widening the signalling NaNs raises FE_INVALID on AArch64 (NumPy
    # warns); the reference only asks whether a value is NaN.
    with np.errstate(invalid="ignore"):
        inputs = [
            (DType.BFLOAT16, words.view(ml_dtypes.bfloat16), words.view(ml_dtypes.bfloat16).astype(np.float32)),
            (DType.FLOAT16, words.view(np.float16), words.view(np.float16).astype(np.float32)),
            (DType.FLOAT32, f32, f32),
        ]
    for dtype, x, x32 in inputs:
        for multiplier_bits in _QUANT_MULTIPLIERS:
            for rounding in ops_quant.Rounding:
                zp = (-100, 0, 127)[multiplier_bits % 3]
                request = ops_quant.Request(
                    [TensorSpec(x.shape, dtype)], [TensorSpec(x.shape, DType.INT8)],
                    ops_quant.Params.from_bits(multiplier_bits, zp, rounding),
                )
                out = np.empty(x.shape, np.int8)
                plan = a65.quant.check_inference(request, route)
                if a65.quant.execute(plan, [x], [out]) is not None:  # type: ignore[arg-type]
                    return False
                if not np.array_equal(out, _quant_expected(x32, multiplier_bits, zp, rounding)):
                    return False
    return True


def _per_element(params: np.ndarray, axis: int, block: int, shape: Tuple[int, ...]) -> np.ndarray:
    """Blocked parameters spread to one per element: element i takes the
    entry at i with i[axis] // block."""
    return np.take(params, np.arange(shape[axis]) // block, axis=axis)


# (shape, axis, block size): blocks along the inner axis (whole and partial)
# and along the outer one.
_BLOCKED = (((6, 96), 1, 32), ((5, 100), 1, 17), ((9, 40), 0, 4))


def _blocked(route: str) -> bool:
    rng = np.random.default_rng(11)
    for shape, axis, block in _BLOCKED:
        pshape = tuple(-(-e // block) if a == axis else e for a, e in enumerate(shape))
        x = (rng.standard_normal(shape) * 16).astype(np.float32)
        x.flat[::37] = np.float32("nan")
        multipliers = rng.uniform(0.25, 8.0, pshape).astype(np.float32)
        zero_points = rng.integers(-128, 128, pshape)
        for rounding in ops_quant.Rounding:
            request = ops_quant.Request([TensorSpec(shape, DType.FLOAT32)], [TensorSpec(shape, DType.INT8)],
                                        ops_quant.BlockParams(axis, block, multipliers, zero_points, rounding))
            out = np.empty(shape, np.int8)
            if a65.quant.execute(a65.quant.check_inference(request, route), [x], [out]) is not None:  # type: ignore
                return False
            expected = _quant_expected(x, _per_element(multipliers.view(np.uint32), axis, block, shape),
                                       _per_element(zero_points, axis, block, shape), rounding)
            if not np.array_equal(out, expected):
                return False
        q = rng.integers(-128, 128, shape).astype(np.int8)
        scales = rng.uniform(0.001, 2.0, pshape).astype(np.float32)
        staged = ((q.astype(np.float32) - _per_element(zero_points, axis, block, shape).astype(np.float32))
                  * _per_element(scales, axis, block, shape))
        dequant_request = ops_dequant.Request([TensorSpec(shape, DType.INT8)], [TensorSpec(shape, DType.FLOAT32)],
                                              ops_dequant.BlockParams(axis, block, scales, zero_points))
        out32 = np.empty(shape, np.float32)
        plan = a65.dequant.check_inference(dequant_request, route)
        if a65.dequant.execute(plan, [q], [out32]) is not None:  # type: ignore
            return False
        if not np.array_equal(out32.view(np.uint32), staged.view(np.uint32)):
            return False
    return True


CHECKS: List[Check] = [
    ("cast bf16->fp32, all 65,536 patterns", _bf16_to_f32),
    ("cast fp32->bf16, 2^18 random + NaN rule", _f32_to_bf16),
    ("dequant int8->fp32/bf16, all 256 x 9 parameter sets", _dequant),
    ("quant bf16/fp16 (all 65,536) + fp32 x 7 multipliers x 4 modes", _quant),
    ("blocked quant (4 modes) and dequant, blocks of 32, 17 and 4", _blocked),
]


def run(verbose: bool = True) -> int:
    """Runs every check on every available route and prints the table;
    0 when all pass, else 1.  With ``verbose``, a progress bar on stderr
    while the checks run, only when stderr is a terminal.  1 at once, saying
    why, when ``$SIMAKERNELS_FORCE_ROUTE`` names a route that cannot run
    here: every other call in this process would fail."""
    problem = _routes.forced_route_problem()
    if problem is not None:
        print(f"selftest: the forced route cannot run here: {problem}", file=sys.stderr)
        return 1
    forced = _routes.forced_route()
    if forced is not None:
        print(f"forced route: {forced} ({a65.FORCE_ROUTE_ENV}); every available route is checked")
    routes = a65.available_routes()
    progress = Progress(len(CHECKS) * len(routes), sys.stderr, verbose, name="selftest", log_lines=False)
    failures = 0
    rows = []
    try:
        for name, check in CHECKS:
            for route in routes:
                progress.step(f"{name} [{route}]")
                label, t0 = name, time.perf_counter()
                try:
                    ok = check(route)
                except Exception as exc:  # report, keep going
                    ok = False
                    label = f"{name} ({exc})"
                rows.append((label, route, ok, time.perf_counter() - t0))
                failures += not ok
    finally:
        progress.close()
    width = max(len(r[0]) for r in rows)
    for name, route, ok, seconds in rows:
        print(f"{name:<{width}}  {route:<7} {'ok' if ok else 'FAIL':<5} {seconds * 1e3:8.1f} ms")
    print(f"{len(rows) - failures} passed, {failures} failed")
    return 1 if failures else 0
