"""Medians of timed samples, taken round-robin (the progress bar is in
``simakernels._progress``).

Every runner of a case is sampled in turn (ours, the memcpy reference, the
peers, then ours again, ...): on a shared, noisy machine a slow patch then
hits all of them alike, so the ratios stay meaningful even when the absolute
times drift.  Each sample follows one untimed call of the same runner, so
that it is timed as back-to-back calls run (as timeit would time it), not
after another runner's work: a large tensor's sample is one call, and a
runner that leaves tens of MiB of written lines in the cache (NumPy's
expression) would otherwise charge their write-back to whichever runner
came next.
"""
from __future__ import annotations

import gc
import itertools
import time
from typing import Callable, Dict, List, Sequence

SAMPLE_S = 1e-3     # calls batched until one timed sample lasts about this long
MIN_SAMPLES = 5     # even for the largest tensors (median of five)
MAX_SAMPLES = 201


def _per_call(fn: Callable[[], object], calls: int) -> float:
    """Seconds per call over ``calls`` back-to-back calls."""
    clock = time.perf_counter
    loop = itertools.repeat(None, calls)
    t0 = clock()
    for _ in loop:
        fn()
    return (clock() - t0) / calls


def _calibrate(fn: Callable[[], object]) -> float:
    """Seconds per call, from batches long enough for the clock to resolve."""
    calls = 1
    while True:
        once = _per_call(fn, calls)
        if once * calls >= SAMPLE_S / 4 or calls >= 1 << 16:
            return max(once, 1e-9)
        calls *= 8


def measure(
    runners: Dict[str, Callable[[], object]], budget_s: float, min_samples: int = MIN_SAMPLES, warm_up: bool = True
) -> Dict[str, List[float]]:
    """Per runner, the sorted samples in seconds per call.

    Each runner is warmed up (page faults, plan caches, lazy initialisation;
    ``warm_up=False`` when the caller has just called each once) and
    calibrated; then rounds of one sample per runner (each after an
    untimed call of it) run until ``budget_s`` is spent, at least
    ``min_samples`` and at most MAX_SAMPLES rounds.  The garbage collector is paused while timing."""
    names = list(runners)
    enabled = gc.isenabled()
    gc.disable()
    try:
        once = {}
        for name in names:
            if warm_up:
                runners[name]()
            once[name] = _calibrate(runners[name])
        calls = {name: max(1, round(SAMPLE_S / once[name])) for name in names}
        round_s = sum((calls[name] + 1) * once[name] for name in names)
        rounds = max(min_samples, min(MAX_SAMPLES, int(budget_s / round_s)))
        samples: Dict[str, List[float]] = {name: [] for name in names}
        for _ in range(rounds):
            for name in names:
                runners[name]()  # the cache as this runner's own calls leave it
                samples[name].append(_per_call(runners[name], calls[name]))
    finally:
        if enabled:
            gc.enable()
    return {name: sorted(values) for name, values in samples.items()}


def median(sorted_values: Sequence[float]) -> float:
    n = len(sorted_values)
    mid = n // 2
    return sorted_values[mid] if n % 2 else (sorted_values[mid - 1] + sorted_values[mid]) / 2
