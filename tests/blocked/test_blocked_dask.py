"""``simakernels.dask`` with ``block_size``: bit for bit what the oracle
gives on the whole array, with chunks along the block axis that are
multiples of the block size (kept) or not (rechunked to multiples), the
block axis inner and outer, a QParams holding the block size, and the array
layer's refusals raised when the graph is built.  Computed with Dask's
synchronous scheduler (the cluster runs are tests/dask/'s); host only."""
import numpy as np
import pytest

import simakernels as sk
from support.axis_helpers import draw
from support.blocked_helpers import block_entries, expected, parameter_shape
from support.helpers import F32, I8
from support.op_cases import raises_kernel_error

da = pytest.importorskip("dask.array")
skd = pytest.importorskip("simakernels.dask")
dask = pytest.importorskip("dask")

E = sk.ErrorCode
SHAPE = (37, 70)


def floats(bits):
    return np.asarray(bits, np.uint32).view(np.float32)


# (axis, block, chunks): chunks along the block axis multiples of the block
# (kept), not multiples (rechunked), one chunk, the block larger than a chunk.
CASES = [(1, 16, (10, 32)), (1, 16, (10, 20)), (1, 33, (37, 70)), (0, 8, (5, 70)), (0, 5, (16, 9)),
         (-1, 32, (37, 7))]


@pytest.mark.parametrize("axis,block,chunks", CASES)
def test_quantize_and_dequantize_match_the_oracle(axis, block, chunks):
    values = draw(F32, SHAPE, np.random.default_rng(block))
    bits, zps = block_entries(F32, parameter_shape(SHAPE, axis, block), block)
    x = da.from_array(values.view(np.float32), chunks=chunks)
    with dask.config.set(scheduler="synchronous"):
        lazy = skd.quantize(x, floats(bits), zps, axis=axis, block_size=block, rounding="toward_negative")
        a = axis % 2
        assert all(n % block == 0 for n in lazy.chunks[a][:-1]), lazy.chunks
        q = lazy.compute()
        assert np.array_equal(q.view(np.uint8), expected(F32, I8, values, axis, block, bits, zps, "toward_negative"))
        dbits, dzps = block_entries(I8, parameter_shape(SHAPE, axis, block), block)
        y = skd.dequantize(da.from_array(q, chunks=chunks), floats(dbits), -5, axis=axis, block_size=block).compute()
        assert np.array_equal(y.view(np.uint32), expected(I8, F32, q.view(np.uint8), axis, block, dbits, -5))


def test_qparams_and_refusals_at_graph_build():
    x = da.from_array(np.ones(SHAPE, np.float32), chunks=(10, 20))
    qp = sk.QParams(np.full((37, 3), 0.5, np.float32), np.zeros((37, 3), np.int32), np.full((37, 3), 2.0, np.float32),
                    1, block_size=32)
    with dask.config.set(scheduler="synchronous"):
        assert (skd.quantize(x, qp).compute() == 2).all()
        q = skd.quantize(x, qp)
        assert (skd.dequantize(q, qp).compute() == 1.0).all()
    err = raises_kernel_error(E.INVALID_PARAMS, skd.quantize, x, np.ones((37, 3)), block_size=32)
    assert "axis=" in err.error.message
    err = raises_kernel_error(E.INVALID_PARAMS, skd.quantize, x, np.ones((37, 2)), axis=1, block_size=32)
    assert "expected (37, 3)" in err.error.message
    raises_kernel_error(E.INVALID_PARAMS, skd.dequantize, x.astype(np.int8), np.ones((37, 3)), axis=1, block_size=0)
    raises_kernel_error(E.INVALID_PARAMS, skd.quantize, x, qp, block_size=32)
