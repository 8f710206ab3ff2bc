"""simakernels.dask against the in-memory functions, computed on a real
``dask.distributed`` cluster: two worker processes on loopback, one thread
each, started once for the session (the ``client`` fixture).

This directory has no ``__init__.py`` on purpose: the suite puts tests/ on
``sys.path`` (tests/conftest.py), and a package named ``dask`` there would
shadow the real Dask, in this process and in the cluster's workers (which
are spawned with this process's ``sys.path``).  A plain directory never
does: Python takes a regular package from any later path entry over it.
The test modules' names are unique for the same reason (``test_dask_*``).

Dask and distributed are optional (requirements-dask.txt): without them the
modules that need them skip.
"""
import pytest


@pytest.fixture(scope="session")
def client():
    """A ``distributed.Client`` of a LocalCluster with worker processes;
    while it is open it is also Dask's default scheduler, so ``.compute()``
    and ``simakernels.dask.choose_qparams`` run on its workers."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        yield client
