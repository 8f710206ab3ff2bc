"""The calling thread's floating-point environment (x86 MXCSR, AArch64 FPCR).

Execution only reads it; :func:`simakernels.testing.fp_environment` changes it
for tests."""
from __future__ import annotations

import contextlib
import enum
import functools
from dataclasses import dataclass
from typing import Any, Callable, FrozenSet, Iterator, TypeVar

from ._ffi import ffi, lib


class Rounding(enum.Enum):
    NEAREST = lib.SK_ROUND_NEAREST
    TOWARD_ZERO = lib.SK_ROUND_TOWARD_ZERO
    UPWARD = lib.SK_ROUND_UPWARD
    DOWNWARD = lib.SK_ROUND_DOWNWARD


class Trap(enum.Enum):
    """FP exceptions whose trap can be enabled.  ``INPUT_DENORMAL`` is the x86
    DE / AArch64 IDE exception, beyond the five IEEE ones."""

    INVALID = lib.SK_TRAP_INVALID
    DIVIDE_BY_ZERO = lib.SK_TRAP_DIVIDE_BY_ZERO
    OVERFLOW = lib.SK_TRAP_OVERFLOW
    UNDERFLOW = lib.SK_TRAP_UNDERFLOW
    INEXACT = lib.SK_TRAP_INEXACT
    INPUT_DENORMAL = lib.SK_TRAP_INPUT_DENORMAL


@dataclass(frozen=True)
class State:
    """A thread's FP state.  On AArch64 one FZ bit flushes both inputs and
    results, so ``flush_to_zero`` and ``denormals_are_zero`` read the same."""

    rounding: Rounding
    flush_to_zero: bool
    denormals_are_zero: bool
    traps: FrozenSet[Trap]


def _state_from_c(c: Any) -> State:
    """A State from an ``sk_fenv_state *`` (cffi cdata, untyped)."""
    bits = c.traps
    return State(
        rounding=Rounding(c.rounding),
        flush_to_zero=bool(c.flush_to_zero),
        denormals_are_zero=bool(c.denormals_are_zero),
        traps=frozenset(t for t in Trap if bits & t.value),
    )


def query() -> State:
    """The calling thread's current FP state."""
    c = ffi.new("sk_fenv_state *")
    lib.sk_fenv_query(c)
    return _state_from_c(c)


def describe_unmet(unmet: int) -> str:
    """Explains which requirement (enum sk_fenv_need bits) the current state
    fails, for UNSUPPORTED_ENVIRONMENT messages."""
    state = query()
    parts = []
    if unmet & lib.SK_NEED_NEAREST:
        parts.append(f"rounding mode is {state.rounding.name}, round-to-nearest is required")
    if unmet & lib.SK_NEED_GRADUAL_UNDERFLOW:
        parts.append("flush-to-zero/denormals-are-zero is enabled, gradual underflow is required")
    if unmet & lib.SK_NEED_NO_TRAPS:
        names = ", ".join(sorted(t.name for t in state.traps))
        parts.append(f"FP traps are enabled ({names}), all traps must be masked")
    return "; ".join(parts)


@contextlib.contextmanager
def default_state() -> Iterator[None]:
    """Runs the body in the state threads start in (nearest, gradual
    underflow, every trap masked) and restores the caller's environment,
    status flags included, on exit.  For the Python layer's own float work
    (formatting a value in a message, ``float()`` of a foreign number):
    Python's float code assumes the default state, and a trap enabled by the
    caller would turn its inexact results into SIGFPE."""
    saved = ffi.new("sk_fenv_saved *")
    lib.sk_fenv_enter_default(saved)
    try:
        yield
    finally:
        lib.sk_fenv_restore(saved)


_F = TypeVar("_F", bound=Callable[..., Any])


def in_default_state(function: _F) -> _F:
    """``function`` run under :func:`default_state`: for admission, which
    formats the caller's values (floats among them) into its messages."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        with default_state():
            return function(*args, **kwargs)

    return run  # type: ignore[return-value]
