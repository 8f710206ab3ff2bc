"""Dask stays optional: ``import simakernels`` never imports it, and
``import simakernels.dask`` without it says which extra to install.  Fresh
interpreters importing the same simakernels as this process; these tests
need no Dask."""
from __future__ import annotations

from tools.test_cli import run_python


def test_import_simakernels_imports_no_dask(tmp_path):
    result = run_python(["-c", "import sys, simakernels\n"
                               "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"],
                        tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_without_dask_the_error_names_the_extra(tmp_path):
    # None in sys.modules makes every import of dask fail, as when it is not installed.
    result = run_python(["-c", "import sys\nsys.modules['dask'] = None\nimport simakernels.dask"], tmp_path)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: simakernels.dask needs dask.array"), result.stderr
    assert last.endswith("pip install simakernels[dask]"), result.stderr
