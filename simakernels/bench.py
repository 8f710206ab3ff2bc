"""``python -m simakernels bench``: dense throughput against NumPy peers and
the memory-copy bound, measured as ratios in one run (the machines are shared
and noisy, so only ratios measured side by side mean anything).

memcpy-equivalent: ``np.copyto`` of (input bytes + output bytes) / 2 per
element, i.e. a copy with the same memory traffic as the operation.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

import ml_dtypes
import numpy as np

from . import arrays
from .core import DType

SIZES = {"4K": 1 << 12, "256K": 1 << 18, "16M": 1 << 24}


@dataclass
class Case:
    op: str
    size: str
    runners: Dict[str, Callable[[], object]]  # "simakernels", peers..., "memcpy"


def _median_ns(fn: Callable[[], object], budget_s: float) -> float:
    fn()  # warm up (page faults, plan cache)
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-7)
    inner = max(1, int(2e-3 / once))            # ~2 ms per sample
    samples = max(5, min(51, int(budget_s / (once * inner))))
    times = []
    for _ in range(samples):
        t0 = time.perf_counter_ns()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter_ns() - t0) / inner)
    times.sort()
    return times[len(times) // 2]


def _copy_runner(n: int, in_item: int, out_item: int) -> Callable[[], object]:
    nbytes = n * (in_item + out_item) // 2
    src, dst = np.ones(nbytes, np.uint8), np.empty(nbytes, np.uint8)
    return lambda: np.copyto(dst, src)


def _cases(n: int, size: str) -> List[Case]:
    rng = np.random.default_rng(0)
    f32 = rng.standard_normal(n, dtype=np.float32)
    bf16 = f32.astype(ml_dtypes.bfloat16)
    i8 = rng.integers(-128, 128, n, dtype=np.int8)
    out_f32 = np.empty(n, np.float32)
    out_bf16 = np.empty(n, ml_dtypes.bfloat16)
    scale, zp = np.float32(0.0123), np.float32(-3)

    def numpy_dequant(out: np.ndarray) -> Callable[[], object]:
        tmp = np.empty(n, np.float32)

        def run() -> object:
            np.subtract(i8, zp, out=tmp, dtype=np.float32)
            return np.multiply(tmp, scale, out=out if out.dtype == np.float32 else tmp)
        if out.dtype == np.float32:
            return run
        return lambda: (run(), np.copyto(out, tmp, casting="unsafe"))

    f16 = f32.astype(np.float16)
    out_i8 = np.empty(n, np.int8)
    mult = np.float32(21.5)

    def numpy_quant(x: np.ndarray) -> Callable[[], object]:
        tmp = np.empty(n, np.float32)

        def run() -> object:
            np.multiply(x, mult, out=tmp, dtype=np.float32)
            np.rint(tmp, out=tmp)
            np.add(tmp, np.float32(3), out=tmp)
            np.clip(tmp, -128, 127, out=tmp)
            return np.copyto(out_i8, tmp, casting="unsafe")
        return run

    return [
        Case("cast fp32->bf16", size, {
            "simakernels": lambda: arrays.cast(f32, DType.BFLOAT16, out=out_bf16),
            "ml_dtypes": lambda: np.copyto(out_bf16, f32, casting="unsafe"),
            "memcpy": _copy_runner(n, 4, 2)}),
        Case("cast bf16->fp32", size, {
            "simakernels": lambda: arrays.cast(bf16, DType.FLOAT32, out=out_f32),
            "ml_dtypes": lambda: np.copyto(out_f32, bf16, casting="unsafe"),
            "memcpy": _copy_runner(n, 2, 4)}),
        Case("dequant int8->fp32", size, {
            "simakernels": lambda: arrays.dequantize(i8, scale, -3, out=out_f32),
            "numpy": numpy_dequant(out_f32),
            "memcpy": _copy_runner(n, 1, 4)}),
        Case("dequant int8->bf16", size, {
            "simakernels": lambda: arrays.dequantize(i8, scale, -3, dtype=DType.BFLOAT16, out=out_bf16),
            "numpy+ml_dtypes": numpy_dequant(out_bf16),
            "memcpy": _copy_runner(n, 1, 2)}),
        Case("quant fp32->int8", size, {
            "simakernels": lambda: arrays.quantize(f32, mult, 3, out=out_i8),
            "numpy": numpy_quant(f32),
            "memcpy": _copy_runner(n, 4, 1)}),
        Case("quant bf16->int8", size, {
            "simakernels": lambda: arrays.quantize(bf16, mult, 3, out=out_i8),
            "numpy+ml_dtypes": numpy_quant(bf16),
            "memcpy": _copy_runner(n, 2, 1)}),
        Case("quant fp16->int8", size, {
            "simakernels": lambda: arrays.quantize(f16, mult, 3, out=out_i8),
            "numpy": numpy_quant(f16),
            "memcpy": _copy_runner(n, 2, 1)}),
    ]


def run(sizes: Optional[Sequence[str]] = None, budget_s: float = 0.3, stream=sys.stdout) -> int:
    chosen = list(sizes or SIZES)
    header = f"{'operation':<20} {'size':>5} {'ns/elem':>8} {'best peer':>16} {'peer ns':>8} {'vs peer':>8} {'memcpy ns':>9} {'of memcpy':>9}"
    print(header, file=stream)
    print("-" * len(header), file=stream)
    for size in chosen:
        n = SIZES[size]
        for case in _cases(n, size):
            ns = {name: _median_ns(fn, budget_s) / n for name, fn in case.runners.items()}
            peers = {k: v for k, v in ns.items() if k not in ("simakernels", "memcpy")}
            peer = min(peers, key=peers.__getitem__)
            ours = ns["simakernels"]
            print(
                f"{case.op:<20} {case.size:>5} {ours:8.3f} {peer:>16} {peers[peer]:8.3f} "
                f"{peers[peer] / ours:7.2f}x {ns['memcpy']:9.3f} {ns['memcpy'] / ours:8.2f}x",
                file=stream, flush=True,
            )
    print("\nvs peer > 1: faster than the fastest peer; of memcpy: fraction of the memory-copy "
          "throughput (1.00x = as fast as a copy with the same traffic).", file=stream)
    return 0
