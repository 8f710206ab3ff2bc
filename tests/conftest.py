"""Suite configuration.

The tests are grouped by concern into packages (numerics/, layouts/, fenv/,
admission/, binding/, arrays/, axis/ (per-axis parameters), ev74/, hurray/,
reliability/, dask/ (simakernels.dask on a local cluster; a plain directory,
not a package: dask/conftest.py says why), and tools/ for
the project's tooling); their shared helpers are the package support/.  The
tests directory goes on ``sys.path`` so that ``import oracle``,
``from support.helpers import ...`` and ``from tools.test_cli import ...``
work from the repository and from a copy of the suite run against an
installed wheel (``python -P -m pytest <repo>/tests``).  The package under
test is always plain ``import simakernels``.
"""
import os
import sys

import pytest

from hypothesis import HealthCheck, settings

_TESTS = os.path.dirname(os.path.abspath(__file__))
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

# No deadlines: the suite also runs under QEMU, 10-20x slower.
settings.register_profile(
    "simakernels",
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# A fuzzing campaign (docs/RELIABILITY.md): SIMAKERNELS_FUZZ_EXAMPLES=N runs
# every property that sets no example count of its own N times (those of
# test_fuzz.py read the variable themselves).
settings.register_profile(
    "simakernels-fuzz",
    parent=settings.get_profile("simakernels"),
    max_examples=int(os.environ.get("SIMAKERNELS_FUZZ_EXAMPLES") or 0) or 100,
)
settings.load_profile("simakernels-fuzz" if os.environ.get("SIMAKERNELS_FUZZ_EXAMPLES") else "simakernels")


# Modules whose tests do not depend on the target: pure-Python admission
# and its messages, descriptor packing, the docs, the CLI, the package
# metadata, the benchmark and estimate tooling, the Dask layer (its
# blocks run the array functions the other modules test on the target), and
# the EV74 kernel's tests (the kernel runs in the host's OpenCL runtime and
# its expressions are compiled by the host's clang: nothing of the target)
# and the EV74 device model's (its walk is Python; its arithmetic is the
# Quant leaves the numerics and layout modules test on the target).
# They run on the host; the emulated AArch64 runs deselect them (-m "not host_only"), spending QEMU's time on what the
# target decides: routes and leaves, staging, the FP environment, guard
# pages, binding checks, the EV74 decoder and the selftest.  The paths are
# relative to this directory.
HOST_ONLY = frozenset({
    "admission/test_admission.py", "admission/test_op_admission.py", "admission/test_dequant_admission.py",
    "admission/test_quant_admission.py", "axis/test_axis_admission.py", "reliability/test_error_messages.py",
    "ev74/test_ev74_descriptor.py", "ev74/test_ev74_vectors.py",
    "ev74/test_ev74_case_example.py", "ev74/test_ev74_lanes.py", "ev74/test_ev74_kernel.py",
    "ev74/test_ev74_device.py",
    "hurray/test_hurray_descriptor.py", "arrays/test_array_plan_cache.py", "blocked/test_blocked_admission.py",
    "blocked/test_blocked_dask.py",
    "tools/test_docs.py", "tools/test_cli.py", "tools/test_metadata.py", "tools/test_bench.py", "tools/test_typing.py",
    "tools/test_bench_aarch64.py", "tools/test_neon_estimate.py", "tools/test_floor.py",
    "dask/test_dask_arrays.py", "dask/test_dask_qparams.py", "dask/test_dask_import.py",
    "formats/test_affine_admission.py",
})


def pytest_configure(config):
    # Also declared in pyproject.toml; repeated here for a copied suite.
    config.addinivalue_line("markers", "slow: long exhaustive or fuzzing cases")
    config.addinivalue_line("markers", "host_only: does not depend on the target (conftest.HOST_ONLY)")
    config.addinivalue_line("markers", "in_child: runs in a forked child, so that a crash fails this test only "
                                       "(tests/support/isolated.py)")


@pytest.hookimpl(tryfirst=True)  # before -m deselects by the marks added here
def pytest_collection_modifyitems(config, items):
    """Marks the HOST_ONLY modules' tests."""
    for item in items:
        if os.path.relpath(item.path, _TESTS).replace(os.sep, "/") in HOST_ONLY:
            item.add_marker(pytest.mark.host_only)


# SIMAKERNELS_TEST_IN_PROCESS=1 (make test-aarch64): a fork of the emulated
# interpreter costs what the test does many times over; there a crash ends
# the run instead (the host suite and the sanitizer run isolate).
IN_PROCESS = os.environ.get("SIMAKERNELS_TEST_IN_PROCESS") == "1"


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Tests marked ``in_child`` (kernels on raw, wrapped or extreme
    addresses and layouts) run in a forked child: a crash fails the test,
    naming it, instead of ending the run (tests/support/isolated.py)."""
    if pyfuncitem.get_closest_marker("in_child") is None or not hasattr(os, "fork") or IN_PROCESS:
        return None
    from support import isolated
    kwargs = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    isolated.run_in_child(pyfuncitem.obj, kwargs, pyfuncitem.nodeid)
    return True
