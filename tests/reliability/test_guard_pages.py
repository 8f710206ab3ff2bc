"""No kernel touches a byte outside its tensors: every operation on every
route this machine has, every length 0..80, dense, every second element or
column and transposed, with the input and the output flush against
inaccessible pages at either end (tests/support/guarded.py).  A stray load or store
is a SIGSEGV; each (operation, route) runs in its own child process, which
also checks every result against the oracle and every other byte of both
regions (tests/support/guarded_cases.py), so a fault or a wrong byte fails one test
naming the case.

The harness itself is tested: a deliberate one-element overrun must be
reported as a SIGSEGV naming the case that made it."""
import pytest

from support import guarded, guarded_cases
from support.helpers import ROUTES

A65 = tuple(guarded_cases.OPERATIONS) + ("hurray",)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", A65)
def test_every_length_against_guard_pages(name, route):
    """Hurray: every storage type (INT8 with a positive scale runs the A65
    Dequant of ``route``; the other kernels have one route)."""
    child = guarded.run_child(guarded.call("support.guarded_cases", "main", name, route), route=route)
    guarded.assert_child_clean(child, f"{name} on {route}")


@pytest.mark.host_only  # (conftest.HOST_ONLY: the EV74 device model, host-checked)
def test_ev74_device_model_against_guard_pages():
    """Bound packets on a Device whose memory lies between guard pages,
    input at one end and output at the other (the model runs the best
    route's Quant leaves)."""
    child = guarded.run_child(guarded.call("support.guarded_cases", "ev74_main"))
    guarded.assert_child_clean(child, "ev74 device model")


@pytest.mark.parametrize("kind", guarded_cases.DELIBERATE)
def test_a_deliberate_overrun_is_reported_with_its_case(kind):
    child = guarded.run_child(guarded.call("support.guarded_cases", "deliberate_fault", kind))
    assert guarded.fault(child) == "SIGSEGV", (child.returncode, child.stdout[-500:], child.stderr[-2000:])
    problem = guarded.child_problem(child, "deliberate")
    assert problem is not None
    assert f"killed by SIGSEGV while running: deliberate fault: {kind}" in problem, problem
    assert "done:" not in child.stdout


def test_a_clean_child_and_a_wrong_byte_are_told_apart():
    """The parent's verdicts on the other outcomes: a clean run passes; a
    child that finishes but found a wrong byte fails with its report; one
    that stops early (an exception) fails naming its last case."""
    clean = guarded.run_child("from support import guarded; log = guarded.Log(); log.announce('x'); log.finish()")
    assert guarded.child_problem(clean, "clean") is None
    wrong = guarded.run_child("from support import guarded; log = guarded.Log(); log.announce('x'); "
                              "log.problem('x: 1 byte(s) differ'); log.finish()")
    assert "child reported problems\nx: 1 byte(s) differ" in guarded.child_problem(wrong, "wrong")
    raised = guarded.run_child("from support import guarded; log = guarded.Log(); log.announce('the case'); 1 / 0")
    assert "exited with status 1 while running: the case" in guarded.child_problem(raised, "raised")
