"""Test support: run code under a chosen FP state, restored exactly on exit."""
from __future__ import annotations

import contextlib
import gc
from typing import Iterable, Iterator, Optional

from ._ffi import ffi, lib
from .fenv import Rounding, State, Trap, query


class UnsupportedFPState(RuntimeError):
    """This CPU cannot hold the requested FP state (for example, many Arm
    cores hard-wire trap enables to zero)."""


@contextlib.contextmanager
def fp_environment(
    rounding: Optional[Rounding] = None,
    flush_to_zero: Optional[bool] = None,
    denormals_are_zero: Optional[bool] = None,
    traps: Iterable[Trap] = (),
) -> Iterator[State]:
    """Sets the calling thread's FP state for the ``with`` body and restores
    the previous environment exactly (control and status) on exit.

    Unspecified fields keep their current value.  On AArch64 a single FZ bit
    serves both flush fields: giving only one sets both; giving both with
    different values raises :class:`UnsupportedFPState`, as does any state
    that does not read back as requested.  Yields the state now in force.
    Keep Python float arithmetic out of the body when enabling traps; the
    garbage collector is paused meanwhile, because GC callbacks (pytest's
    and hypothesis' timers) do float arithmetic that would trap.
    """
    current = query()
    ftz = current.flush_to_zero if flush_to_zero is None else flush_to_zero
    daz = current.denormals_are_zero if denormals_are_zero is None else denormals_are_zero
    if _single_flush_bit() and (flush_to_zero is None) != (denormals_are_zero is None):
        ftz = daz = bool(flush_to_zero if flush_to_zero is not None else denormals_are_zero)
    wanted = ffi.new("sk_fenv_state *")
    wanted.rounding = (rounding or current.rounding).value
    wanted.flush_to_zero = int(bool(ftz))
    wanted.denormals_are_zero = int(bool(daz))
    wanted.traps = sum(Trap(t).value for t in set(traps))
    saved = ffi.new("sk_fenv_saved *")
    if lib.sk_fenv_save(saved) != 0:
        raise UnsupportedFPState("could not save the FP environment")
    pause_gc = bool(wanted.traps) and gc.isenabled()
    if pause_gc:
        gc.disable()
    if lib.sk_fenv_set(wanted) != 0:
        if pause_gc:
            gc.enable()
        raise UnsupportedFPState(
            f"this CPU cannot hold rounding={Rounding(wanted.rounding).name}, "
            f"flush_to_zero={bool(ftz)}, denormals_are_zero={bool(daz)}, "
            f"traps={sorted(Trap(t).name for t in set(traps))}"
        )
    try:
        yield query()
    finally:
        lib.sk_fenv_restore(saved)
        if pause_gc:
            gc.enable()


def _single_flush_bit() -> bool:
    import platform

    return platform.machine().lower() in {"aarch64", "arm64"}
