"""The FP environment: the default state and exact set/restore by
``sk.testing.fp_environment`` (Cast under every state is in
test_fp_state_matrix.py).

Bodies that enable traps only call into the library: no NumPy and no Python
float arithmetic between entering and leaving the environment."""
import platform

import pytest

import simakernels as sk
from support.helpers import BF16, F32, ROUTES, Storage, fp_or_skip, ok_plan, request

Rounding, Trap = sk.fenv.Rounding, sk.fenv.Trap
AARCH64 = platform.machine().lower() in {"aarch64", "arm64"}
DEFAULT = sk.fenv.State(Rounding.NEAREST, False, False, frozenset())


def test_default_state_is_nearest_without_flush_or_traps():
    assert sk.fenv.query() == DEFAULT


def test_state_is_a_frozen_value():
    state = sk.fenv.query()
    assert state == sk.fenv.query() and hash(state) == hash(sk.fenv.query())
    assert isinstance(state.traps, frozenset)
    with pytest.raises(AttributeError):
        state.rounding = Rounding.UPWARD


@pytest.mark.parametrize("rounding", list(Rounding), ids=lambda r: r.name)
def test_each_rounding_mode_is_set_and_restored(rounding):
    before = sk.fenv.query()
    with fp_or_skip(rounding=rounding) as state:
        assert state == sk.fenv.query()
        assert state.rounding == rounding
        assert (state.flush_to_zero, state.denormals_are_zero, state.traps) == (
            before.flush_to_zero, before.denormals_are_zero, before.traps)
    assert sk.fenv.query() == before


@pytest.mark.parametrize("field", ["flush_to_zero", "denormals_are_zero"])
def test_flush_modes_are_set_and_restored(field):
    before = sk.fenv.query()
    with fp_or_skip(**{field: True}) as state:
        assert getattr(state, field) is True
        assert state.rounding == before.rounding and state.traps == before.traps
        if AARCH64:  # one FZ bit serves both
            assert state.flush_to_zero and state.denormals_are_zero
        else:
            other = "denormals_are_zero" if field == "flush_to_zero" else "flush_to_zero"
            assert getattr(state, other) == getattr(before, other)
    assert sk.fenv.query() == before
    with fp_or_skip(flush_to_zero=True, denormals_are_zero=True) as state:
        assert state.flush_to_zero and state.denormals_are_zero
    assert sk.fenv.query() == before


@pytest.mark.parametrize("trap", list(Trap), ids=lambda t: t.name)
def test_each_trap_is_set_and_restored(trap):
    before = sk.fenv.query()
    with fp_or_skip(traps=[trap]) as state:
        assert state.traps == frozenset({trap})
        assert state.rounding == before.rounding
    assert sk.fenv.query() == before


def test_restored_after_an_exception_and_when_nested():
    before = sk.fenv.query()
    with pytest.raises(KeyError):
        with fp_or_skip(rounding=Rounding.TOWARD_ZERO, flush_to_zero=True):
            raise KeyError("inside")
    assert sk.fenv.query() == before
    with fp_or_skip(rounding=Rounding.UPWARD) as outer:
        with fp_or_skip(rounding=Rounding.DOWNWARD, flush_to_zero=True) as inner:
            assert inner.rounding == Rounding.DOWNWARD
        assert sk.fenv.query() == outer
    assert sk.fenv.query() == before


# Cast under every FP state, on every route: test_fp_state_matrix.py.


@pytest.mark.parametrize("route", ROUTES)
def test_execute_leaves_the_default_state_unchanged(route):
    plan = ok_plan(request((100,), F32, BF16), route)
    src = Storage.make((100,), F32)
    dst = Storage.make((100,), BF16)
    before = sk.fenv.query()
    assert sk.a65.cast.execute(plan, [src.buf], [dst.buf]) is None
    assert sk.fenv.query() == before == DEFAULT
