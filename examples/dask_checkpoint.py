"""Quantize a chunked checkpoint per channel on a Dask cluster, bit for bit
as in memory.

A stack of four layers' weights (4 x 96 output channels x 256 inputs) lives
in a Dask array whose chunks split the channels and the inputs unevenly, as
a checkpoint too large for one machine would.  A LocalCluster of two worker
processes on loopback stands in for the cluster.  simakernels.dask chooses
symmetric per-channel parameters along the output-channel axis (the ranges
are reduced on the workers, then the same rule as ``sk.choose_qparams``),
quantizes to INT8 and dequantizes back, each block on a worker with its own
channels' parameters.  Then the whole arrays are checked against the
in-memory calls on the same data: the same parameters field for field and
the same bits.

Needs the extra: ``pip install simakernels[dask]`` (in a checkout, ``make
build`` installs it).  Run: ``.venv/bin/python examples/dask_checkpoint.py``.
"""

import os

import numpy as np
import dask.array as da
from dask.distributed import Client, LocalCluster

import simakernels as sk
import simakernels.dask as skd


def main() -> None:
    rng = np.random.default_rng(7)
    weights = (rng.standard_normal((4, 96, 256)) * np.linspace(0.01, 0.2, 96).reshape(1, -1, 1)).astype(np.float32)
    chunks = ((1, 3), (40, 56), (100, 156))          # uneven: across the channels and along them
    lazy = da.from_array(weights, chunks=chunks)

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        qp = skd.choose_qparams(lazy, axis=1, symmetric=True)          # computes: 96 ranges
        q = skd.quantize(lazy, qp.multiplier, qp.zero_point, axis=1)   # lazy, int8, the same chunks
        back = skd.dequantize(q, qp.scale, qp.zero_point, axis=1)      # lazy, float32
        q_np, back_np = client.gather(client.compute([q, back]))
        workers = sorted(client.run(os.getpid).values())

    # The same calls in memory, on the whole array: the same parameters and bits.
    expected = sk.choose_qparams(weights, axis=1, symmetric=True)
    for field in ("scale", "zero_point", "multiplier"):
        assert np.array_equal(getattr(qp, field), getattr(expected, field)), field
    assert np.array_equal(q_np, sk.quantize(weights, expected.multiplier, expected.zero_point, axis=1))
    in_memory = sk.dequantize(q_np, expected.scale, expected.zero_point, axis=1)
    assert np.array_equal(back_np.view(np.uint32), in_memory.view(np.uint32))

    # Within half a step per channel (plus binary32 rounding), as choose_qparams guarantees.
    steps = np.abs(back_np.astype(np.float64) - weights) / qp.scale.reshape(1, -1, 1)
    assert steps.max() <= 0.5 * (1 + 2 ** -14)

    print(f"weights {weights.shape} float32 in {lazy.npartitions} chunks, computed by worker processes {workers}")
    print(f"per-channel scales {qp.scale.min():.3e} .. {qp.scale.max():.3e}, zero point 0 (symmetric)")
    print(f"int8: {q_np.nbytes} bytes (from {weights.nbytes}); worst error {steps.max():.4f} of a step")
    print("parameters, int8 and dequantized bits identical to the in-memory calls")


if __name__ == "__main__":  # the worker processes start by importing this file
    main()
