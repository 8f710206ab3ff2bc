"""The forked child of tests marked ``in_child`` (tests/support/isolated.py):
a crash fails the one test, naming it and its last announced case; a
failure, a skip and a pass come back as themselves."""
import ctypes
import re

import pytest

from support import isolated


def _crash():
    isolated.announce("the wild read")
    ctypes.string_at(8)   # address 8: SIGSEGV


def _fail():
    assert 1 == 2, "the child's assertion"


def _skip():
    pytest.skip("the child's reason")


def test_a_crash_fails_naming_the_test_and_case():
    with pytest.raises(pytest.fail.Exception) as info:
        isolated.run_in_child(_crash, {}, "the test")
    # SIGSEGV; SIGABRT where AddressSanitizer catches the fault first (make sanitize)
    assert re.fullmatch(r"the test, case the wild read: child killed by SIG(SEGV|ABRT) \(a wild memory access in "
                        r"the kernel\?\)", str(info.value)), str(info.value)


def test_failures_skips_and_passes_come_back():
    with pytest.raises(pytest.fail.Exception, match="the child's assertion"):
        isolated.run_in_child(_fail, {}, "failing")
    with pytest.raises(pytest.skip.Exception, match="the child's reason"):
        isolated.run_in_child(_skip, {}, "skipping")
    isolated.run_in_child(lambda x: None, {"x": 1}, "passing")


def test_a_hung_child_is_killed():
    with pytest.raises(pytest.fail.Exception, match="hung"):
        isolated.run_in_child(lambda: __import__("time").sleep(30), {}, "hanging", timeout=0.5)
