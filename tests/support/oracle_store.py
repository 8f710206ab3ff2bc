"""The oracle's large results, memoised on disk.

The oracle (tests/oracle) is pure-Python integer arithmetic: the same on
every host, and slow under emulation (QEMU runs it 10-20x slower).  Its
large results are therefore memoised on disk, keyed by a digest of the
oracle's source and of everything the result depends on (parameters, input
patterns), so that a host run (make test) spares the emulated runs the
recomputation, and a changed oracle or input set never reuses old results.
Delete build/oracle-cache, or set SIMAKERNELS_TEST_ORACLE_CACHE=0, to
recompute.  Nothing here calls the code under test."""
from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from typing import Callable

import numpy as np

_ORACLE_DIR = Path(__file__).resolve().parents[1] / "oracle"
_STORE = Path(__file__).resolve().parents[2] / "build" / "oracle-cache"


@functools.lru_cache(maxsize=1)
def _oracle_digest() -> str:
    h = hashlib.sha256()
    for path in sorted(_ORACLE_DIR.glob("*.py")):
        if not path.name.startswith("test_"):
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def digest(array: np.ndarray) -> str:
    """A name for an input array's bytes, to put in ``what``."""
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def stored(what: str, dtype, size: int, compute: Callable[[], np.ndarray]) -> np.ndarray:
    """``compute()`` (an oracle evaluation giving ``size`` results of
    ``dtype``), memoised on disk under ``what``, which must name every input."""
    dtype = np.dtype(dtype)
    if os.environ.get("SIMAKERNELS_TEST_ORACLE_CACHE", "1") == "0":
        return compute()
    path = _STORE / (hashlib.sha256(f"{_oracle_digest()}|{dtype.str}|{what}".encode()).hexdigest()[:32] + ".npy")
    try:
        found = np.load(path, allow_pickle=False)
        if found.dtype == dtype and found.shape == (size,):
            return found
    except (OSError, ValueError):
        pass
    result = np.ascontiguousarray(compute(), dtype=dtype).reshape(-1)
    try:
        _STORE.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            np.save(f, result, allow_pickle=False)
        os.replace(tmp, path)
    except OSError:
        pass
    return result
