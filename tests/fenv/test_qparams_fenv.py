"""The choose_qparams rule under every FP state: the same bits, and no
signal.  The native rule (csrc/qparams/rule.c) uses integer arithmetic
only, so the rounding mode, flush-to-zero, denormals-are-zero and every
enabled trap (INEXACT and UNDERFLOW included, which any binary32 rounding
of the rule would raise) must change nothing.

The states run in a forked child (test_fp_state_matrix.in_child): a trap
firing inside the library kills the child only, and the test fails naming
the state.  Inside a state only the library is called on prepared buffers;
the comparison runs after the state is left.  The quick subset is
:func:`helpers.sampled_fp_states`; every state is in the slow part."""
from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from fenv.test_fp_state_matrix import in_child
from oracle import BFLOAT16, BINARY16, BINARY32, Format
from oracle import qparams as oracle
from simakernels._ffi import ffi, lib
from support.helpers import all_fp_states, fp_state_id, sampled_fp_states

FORMATS: Dict[str, Tuple[Format, int]] = {"f32": (BINARY32, lib.SK_QUANT_F32), "bf16": (BFLOAT16, lib.SK_QUANT_BF16),
                                          "f16": (BINARY16, lib.SK_QUANT_F16)}


def hard_keys(fmt: Format, rng: random.Random) -> Tuple[List[int], List[int]]:
    """Range keys where the arithmetic would raise every flag: the widest
    exponent gaps, subnormal ends and scales, the least-scale clamp, 1.0,
    ends near whole levels, random ranges, the empty range."""
    limit = ((1 << fmt.exponent_bits) - 1) << fmt.fraction_bits
    greatest, one = limit - 1, (fmt.bias << fmt.fraction_bits)
    pairs = [(0, 0), (-1, greatest), (-greatest, 1), (-greatest, greatest), (0, 1), (-1, 0), (-1, 1),
             (-one, 2 * one), (0, (1 << fmt.fraction_bits) - 1), (-(1 << fmt.fraction_bits), 0)]
    pairs += [(-rng.randrange(limit), rng.randrange(limit)) for _ in range(150)]
    pairs += [(-rng.randrange(1 << fmt.fraction_bits), rng.randrange(1 << fmt.fraction_bits)) for _ in range(30)]
    return [lo for lo, _ in pairs], [hi for _, hi in pairs]


# Storage types besides INT8 (the rule's loop with the levels as variables):
# (type, symmetric), the 2-bit ones for their subnormal multipliers.
OTHER_STORAGE = [("int2", True), ("uint2", False), ("int16", True), ("uint4", False)]


class Batch:
    """One format, storage type and mode: keys, output buffers, and the
    expected bits (the oracle's, checked against the default state's run
    too)."""

    def __init__(self, key: str, symmetric: bool, storage: str = "int8"):
        fmt, self.code = FORMATS[key]
        self.label = f"{key} {storage} {'symmetric' if symmetric else 'asymmetric'}"
        self.symmetric = int(symmetric)
        least, greatest = hard_keys(fmt, random.Random(f"fenv-{key}-{symmetric}"))
        self.least, self.greatest = np.array(least, np.int64), np.array(greatest, np.int64)
        levels = oracle.storage_levels(storage)
        chosen = [oracle.choose_keys(fmt, lo, hi, symmetric, levels) for lo, hi in zip(least, greatest)]
        self.expected = (np.array([c.scale for c in chosen], np.uint32), np.array([c.zero_point for c in chosen],
                                                                                   np.int32),
                         np.array([c.multiplier for c in chosen], np.uint32))
        self.out = tuple(np.zeros_like(e) for e in self.expected)
        types = ("uint32_t[]", "int32_t[]", "uint32_t[]")
        self.args = (self.code, getattr(lib, f"SK_HURRAY_{storage.upper()}"), self.symmetric,
                     ffi.from_buffer("int64_t[]", self.least),
                     ffi.from_buffer("int64_t[]", self.greatest), self.least.size,
                     *(ffi.from_buffer(t, o, require_writable=True) for t, o in zip(types, self.out)))

    def run(self) -> int:
        """The library call alone (what runs inside a state)."""
        status: int = lib.sk_qparams_rule(*self.args)
        return status

    def report(self, status: int) -> str:
        if status != lib.SK_OK:
            return f"{self.label}: status {status}"
        wrong = [name for name, got, e in zip(("scale", "zero point", "multiplier"), self.out, self.expected)
                 if not np.array_equal(got, e)]
        return f"{self.label}: {', '.join(wrong)} differ" if wrong else ""

    def reset(self) -> None:
        for o in self.out:
            o[...] = 0


def array_input() -> np.ndarray:
    """A float32 tensor for sk.choose_qparams per axis: subnormals, the
    largest finite, NaN, infinities, values that round in the rule."""
    rng = np.random.default_rng(77)
    x = (rng.standard_normal((6, 9)) * 10.0 ** rng.integers(-40, 38, (6, 1))).astype(np.float32)
    x[0, :3] = [np.float32(1e-45), -np.float32(3e-39), np.float32(3.4e38)]
    x[1, :2] = [np.nan, np.inf]
    x[2, :] = 0
    return x


def run_states(states) -> None:
    batches = [Batch(key, symmetric) for key in FORMATS for symmetric in (False, True)]
    batches += [Batch(key, symmetric, storage) for key in FORMATS for storage, symmetric in OTHER_STORAGE]
    for batch in batches:  # the default state gives the oracle's bits
        assert not batch.report(batch.run()), batch.report(batch.run())
    x = array_input()
    options = [dict(symmetric=False), dict(symmetric=True), dict(dtype="int2", symmetric=True), dict(dtype="uint4")]
    expected_arrays = [sk.choose_qparams(x, axis=0, **o) for o in options]

    def body(progress):
        problems, ran, unsupported = [], 0, []
        for state in states:
            sid = fp_state_id(state)
            progress(sid)
            for batch in batches:
                batch.reset()
            try:
                with sk.testing.fp_environment(**state):
                    statuses = [batch.run() for batch in batches]
                    arrays = [sk.choose_qparams(x, axis=0, **o) for o in options]
            except sk.testing.UnsupportedFPState:
                unsupported.append(sid)
                continue
            ran += 1
            problems += [f"{sid}: {r}" for r in (b.report(s) for b, s in zip(batches, statuses)) if r]
            for got, want in zip(arrays, expected_arrays):
                for field in ("scale", "zero_point", "multiplier"):
                    if not np.array_equal(np.asarray(getattr(got, field)).view(np.uint32),
                                          np.asarray(getattr(want, field)).view(np.uint32)):
                        problems.append(f"{sid}: sk.choose_qparams {field} differs")
        return problems, ran, unsupported

    outcome = in_child(body, None)
    assert outcome[0] != "signal", f"{outcome[1]} in the child during state {outcome[2]}"
    assert outcome[0] == "ok", outcome[1]
    problems, ran, unsupported = outcome[1]
    assert not problems, "\n".join(problems[:20])
    assert ran > 0 and ran + len(unsupported) == len(states), (ran, unsupported[:5])
    if unsupported:
        pytest.skip(f"ran {ran} states; this CPU cannot hold {len(unsupported)}, e.g. {unsupported[0]}")


def test_sampled_fp_states():
    """FTZ, DAZ, each rounding mode, each trap alone (INEXACT included),
    all at once, and a seeded tenth of the other combinations."""
    run_states(sampled_fp_states())


@pytest.mark.slow
def test_every_fp_state():
    run_states(all_fp_states())


def test_bf16_and_f16_arrays_under_traps():
    """The 16-bit inputs through sk.choose_qparams under every trap and
    flush mode at once: the same bits as in the default state."""
    x16 = np.float16([[6.0e-8, -65504.0, 1.0], [0.0, -0.0, 3.0e-5]])
    xbf = np.array([[1e-40, -3.0e38, 2.0], [0.0, 7.0, -1e-38]], ml_dtypes.bfloat16)
    expected = [sk.choose_qparams(x, axis=1, symmetric=s) for x in (x16, xbf) for s in (False, True)]
    every_trap = tuple(sk.fenv.Trap)

    def body(progress):
        progress("upward+ftz+daz+every trap")
        with sk.testing.fp_environment(rounding=sk.fenv.Rounding.UPWARD, flush_to_zero=True,
                                       denormals_are_zero=True, traps=every_trap):
            got = [sk.choose_qparams(x, axis=1, symmetric=s) for x in (x16, xbf) for s in (False, True)]
        return [all(np.array_equal(np.asarray(getattr(g, f)).view(np.uint32), np.asarray(getattr(e, f)).view(np.uint32))
                    for f in ("scale", "zero_point", "multiplier")) for g, e in zip(got, expected)]

    outcome = in_child(body, None)
    if outcome[0] == "raised" and "UnsupportedFPState" in outcome[1]:
        pytest.skip(outcome[1])
    assert outcome[0] == "ok", outcome
    assert all(outcome[1]), outcome[1]


def test_the_rule_compiles_without_fp_registers(tmp_path):
    """rule.c builds with -mgeneral-regs-only (GCC, x86-64 and AArch64): the
    compiler refuses any floating-point or vector operation in it."""
    source = Path(__file__).resolve().parents[2] / "csrc" / "qparams" / "rule.c"
    if not source.is_file() or shutil.which("gcc") is None:
        pytest.skip("needs the source tree and gcc")
    command = ["gcc", "-std=c11", "-O2", "-mgeneral-regs-only", "-Wall", "-Wextra", "-Werror", "-c", str(source),
               "-o", str(tmp_path / "rule.o")]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
