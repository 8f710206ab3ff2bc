"""``simakernels.dask``: the array functions over ``dask.array`` (optional;
``pip install simakernels[dask]``).

For tensors that do not fit one machine (a whole checkpoint to quantize, a
stack of frames to cast): :func:`quantize`, :func:`dequantize` and
:func:`cast` return lazy Dask arrays whose blocks each go through the
in-memory function of the same name (``sk.quantize``, ...), so the computed
array is bit for bit what the in-memory call gives on the whole array, with
any chunking and on any scheduler (threads, processes, a distributed
cluster).  Elementwise work needs no neighbours: a block's result depends on
its elements and, per axis, on its own channels' parameters, which each
block is handed sliced along ``axis`` (nothing else of the parameters
travels with it).

:func:`choose_qparams` reduces each block to the integer keys of its range,
merges them by min and max (exact), and applies the rule of
``sk.choose_qparams`` once, in the same code: it computes (the result is a
few numbers) and returns the same :class:`~simakernels.QParams`.

Errors: the ``sk.KernelError`` the in-memory call would raise on the whole
array (dtype, rank, axis, parameter lengths and values), raised when the
graph is built, before anything is computed, from the array's metadata.
What only the data or the worker decides (the FP environment of the worker
thread, a route forced there) is raised by the block that meets it when the
graph is computed, as the in-memory call raises it.

``import simakernels`` never imports Dask; this module does, and raises
ImportError naming the extra when Dask is missing.
"""
from __future__ import annotations

import typing

import math
from typing import Any, Callable, List, Optional, Tuple, Union

import numpy as np

try:
    import dask.array as da
    import dask.base
except ImportError as exc:  # the extra is not installed
    raise ImportError(f"simakernels.dask needs dask.array ({exc}): pip install simakernels[dask]") from exc

from . import _rules, arrays, qparams
from .arrays import DTypeSpec, ParamValues, ZeroPoints, numpy_dtype, to_dtype
from .core import MAX_RANK, DType, Error, ErrorCode, KernelError, TensorSpec, type_name
from .ops import cast as ops_cast
from .ops import dequant as ops_dequant
from .ops import quant as ops_quant
from .ops._base import check_axis
from .core import QParams

__all__ = ["cast", "choose_qparams", "dequantize", "quantize"]

# Dask's functions used here, with their types as used here: Dask does not
# annotate them, and mypy --strict refuses calls to unannotated functions.
_map_blocks: Callable[..., da.Array] = da.map_blocks
_blockwise: Callable[..., da.Array] = da.blockwise
_from_array: Callable[..., da.Array] = da.from_array
_min: Callable[..., da.Array] = da.min
_rechunk: Callable[..., da.Array] = da.rechunk
_compute: Callable[..., Tuple[Any, ...]] = dask.base.compute


def cast(x: da.Array, dtype: DTypeSpec) -> da.Array:
    """Converts FLOAT32 to BFLOAT16 or BFLOAT16 to FLOAT32, bit-exactly: a
    lazy Dask array, each block converted by ``sk.cast`` (its docstring has
    the rule).

    ``x``: a ``dask.array.Array`` of ``numpy.float32`` or
    ``ml_dtypes.bfloat16``.  ``dtype``: the output type, as ``sk.cast`` takes
    it.  The result has ``x``'s shape and chunks.

    Raises, before anything is computed, the :class:`~simakernels.KernelError`
    ``sk.cast`` would raise on the whole array (``UNSUPPORTED_DTYPE``,
    ``INVALID_SHAPE``, ``INVALID_BINDING`` for masked blocks); TypeError when
    ``x`` is not a Dask array.

    >>> import dask.array as da, numpy as np, simakernels.dask as skd
    >>> x = da.from_array(np.float32([1.0, 717.0, 718.0]), chunks=2)
    >>> skd.cast(x, "bfloat16").compute().astype(np.float32).tolist()
    [1.0, 716.0, 720.0]
    """
    x = _dask_input(x)
    out = to_dtype(dtype)
    _admit(ops_cast, ops_cast.Request([_port(x, "input 0", x.dtype)], [_port(x, "output 0", numpy_dtype(out))]))
    return _per_tensor(x, out, "sk-cast", _cast_block, to=out)


def dequantize(x: da.Array, scale: ParamValues, zero_point: ZeroPoints = 0, *, axis: Optional[int] = None,
               block_size: Optional[int] = None, dtype: DTypeSpec = DType.FLOAT32) -> da.Array:
    """Dequantizes INT8 to FLOAT32 (default) or BFLOAT16: a lazy Dask array,
    each block dequantized by ``sk.dequantize`` (its docstring has the
    arithmetic and the parameters' forms).

    ``x``: a ``dask.array.Array`` of ``numpy.int8``.  ``scale`` and
    ``zero_point``: as ``sk.dequantize`` takes them, NumPy values (not Dask
    arrays: admission checks every value before the graph is built).  With
    ``axis`` (negative counts from the end) ``scale`` and a per-channel
    ``zero_point`` are 1-D with ``x.shape[axis]`` entries; each block gets
    the entries of its own indices along ``axis``.  With ``block_size`` as
    well, they are blocked (``sk.dequantize`` says how): ``x`` is first
    rechunked along ``axis`` to multiples of ``block_size`` where its chunks
    are not, and each Dask block gets the parameters of its own blocks.
    The result has ``x``'s shape and (so rechunked) chunks.

    Raises, before anything is computed, the :class:`~simakernels.KernelError`
    ``sk.dequantize`` would raise on the whole array (``INVALID_PARAMS``
    naming the parameter, the axis, the lengths or the entry at fault,
    ``UNSUPPORTED_DTYPE``, ``INVALID_SHAPE``, ``INVALID_BINDING`` for masked
    blocks); TypeError when ``x`` is not a Dask array.  A worker thread whose
    FP state the contract refuses raises ``UNSUPPORTED_ENVIRONMENT`` when its
    block is computed.

    >>> import dask.array as da, numpy as np, simakernels.dask as skd
    >>> q = da.from_array(np.int8([[4, 4], [-4, 8]]), chunks=1)
    >>> skd.dequantize(q, [0.5, 0.25], zero_point=[0, 4], axis=1).compute()
    array([[ 2.,  0.],
           [-2.,  1.]], dtype=float32)
    """
    x = _dask_input(x)
    out = to_dtype(dtype)
    if type(scale) is QParams:
        scale, zero_point, axis, block_size = arrays._unpack(scale, "scale", zero_point, axis, block_size)
    values, zps = _values(scale, "scale"), _values(zero_point, "zero_point")
    if block_size is not None:
        params: Any = ops_dequant.BlockParams(_blocks_axis(axis, block_size), block_size, values, zps)
    elif axis is None:
        params = ops_dequant.Params(values, zps)
    else:
        params = ops_dequant.AxisParams(axis, values, zps)
    _admit(ops_dequant, ops_dequant.Request([_port(x, "input 0", x.dtype)], [_port(x, "output 0", numpy_dtype(out))],
                                            params))
    if axis is None:
        return _per_tensor(x, out, "sk-dequantize", _dequantize_block, scale=scale, zero_point=zero_point,
                           to=out)
    return _per_channel(x, out, "sk-dequantize", _dequantize_block, axis, params.scales, params.zero_points,
                        block_size, to=out)


def quantize(x: da.Array, multiplier: ParamValues, zero_point: ZeroPoints = 0, *, axis: Optional[int] = None,
             block_size: Optional[int] = None, rounding: Union[ops_quant.Rounding, str] = "nearest_even") -> da.Array:
    """Quantizes FLOAT32, BFLOAT16 or FLOAT16 to INT8: a lazy Dask array,
    each block quantized by ``sk.quantize`` (its docstring has the
    arithmetic, the rounding modes and the parameters' forms).

    ``x``: a ``dask.array.Array`` of ``numpy.float32``,
    ``ml_dtypes.bfloat16`` or ``numpy.float16``.  ``multiplier`` (the
    reciprocal of the scale, ``QParams.multiplier``), ``zero_point`` and
    ``rounding``: as ``sk.quantize`` takes them, NumPy values (not Dask
    arrays: admission checks every value before the graph is built).  With
    ``axis`` (negative counts from the end) ``multiplier`` and a
    per-channel ``zero_point`` are 1-D with ``x.shape[axis]`` entries; each
    block gets the entries of its own indices along ``axis``.  With
    ``block_size`` as well, they are blocked (``sk.quantize`` says how):
    ``x`` is first rechunked along ``axis`` to multiples of ``block_size``
    where its chunks are not, and each Dask block gets the parameters of
    its own blocks.  The result has ``x``'s shape and (so rechunked)
    chunks, ``int8``.

    Raises, before anything is computed, the :class:`~simakernels.KernelError`
    ``sk.quantize`` would raise on the whole array (``INVALID_PARAMS``
    naming the parameter, the rounding, the axis, the lengths or the entry
    at fault, ``UNSUPPORTED_DTYPE``, ``INVALID_SHAPE``, ``INVALID_BINDING``
    for masked blocks); TypeError when ``x`` is not a Dask array.  A worker
    thread whose FP state the contract refuses raises
    ``UNSUPPORTED_ENVIRONMENT`` when its block is computed.

    >>> import dask.array as da, numpy as np, simakernels.dask as skd
    >>> w = da.from_array(np.float32([[1.0, 1.0], [-2.0, 0.5]]), chunks=1)
    >>> skd.quantize(w, [10.0, 100.0], zero_point=[0, -50], axis=1).compute()
    array([[ 10,  50],
           [-20,   0]], dtype=int8)
    """
    x = _dask_input(x)
    try:  # as the array layer: an unknown rounding is INVALID_PARAMS, before the ports
        mode = ops_quant.Rounding.parse(rounding)
    except ValueError as exc:
        raise KernelError(Error(ErrorCode.INVALID_PARAMS, str(exc))) from None
    if type(multiplier) is QParams:
        multiplier, zero_point, axis, block_size = arrays._unpack(multiplier, "multiplier", zero_point, axis,
                                                                  block_size)
    values, zps = _values(multiplier, "multiplier"), _values(zero_point, "zero_point")
    if block_size is not None:
        params: Any = ops_quant.BlockParams(_blocks_axis(axis, block_size), block_size, values, zps, mode)
    elif axis is None:
        params = ops_quant.Params(values, zps, mode)
    else:
        params = ops_quant.AxisParams(axis, values, zps, mode)
    _admit(ops_quant, ops_quant.Request([_port(x, "input 0", x.dtype)], [_port(x, "output 0", np.dtype(np.int8))],
                                        params))
    if axis is None:
        return _per_tensor(x, DType.INT8, "sk-quantize", _quantize_block, multiplier=multiplier,
                           zero_point=zero_point, rounding=mode)
    return _per_channel(x, DType.INT8, "sk-quantize", _quantize_block, axis, params.multipliers, params.zero_points,
                        block_size, rounding=mode)


def choose_qparams(x: da.Array, *, dtype: DTypeSpec = "int8", symmetric: bool = False, axis: Optional[int] = None,
                   block_size: Optional[int] = None) -> QParams:
    """Parameters for the levels of the storage type ``dtype`` (int8 by
    default; as ``sk.choose_qparams`` takes it) from the range of ``x`` (a
    ``dask.array.Array`` of FLOAT32, FLOAT16 or BFLOAT16), per tensor, per
    channel along ``axis``
    (negative counts from the end) or per block of ``block_size`` along
    ``axis``: the same :class:`~simakernels.QParams`, field for field, as
    ``sk.choose_qparams`` on the whole array (its docstring and
    docs/qparams.md have the rule and the guarantees).

    Computes, unlike the other functions here: each block's least and
    greatest finite value (as integer keys of the representation bits),
    merged across blocks by min and max (exact), all on the workers; then
    the rule once, on the caller's side, on one range per channel.  ``x`` is
    read once.  With ``block_size``, each parameter entry's block of
    elements lies in one Dask chunk: chunks along ``axis`` whose boundaries
    are not multiples of ``block_size`` are rechunked to such sizes first
    (as :func:`quantize` does; the result is the same), and the keys of every entry
    come back to the caller.

    Raises :class:`~simakernels.KernelError` before anything is computed, as
    ``sk.choose_qparams`` would: ``UNSUPPORTED_DTYPE`` (for ``x`` or
    ``dtype``), ``INVALID_PARAMS`` for an ``axis`` outside the rank, a
    ``symmetric`` that is not a bool or is True with an unsigned ``dtype``,
    a bad ``block_size``, ``INVALID_BINDING`` for masked blocks; TypeError
    when ``x`` is not a Dask array.

    >>> import dask.array as da, numpy as np, simakernels.dask as skd
    >>> qp = skd.choose_qparams(da.from_array(np.float32([-1.0, 0.5, 2.0]), chunks=2))
    >>> float(qp.scale), qp.zero_point, float(qp.multiplier)
    (0.011811023578047752, -43, 84.66666412353516)
    """
    x = _dask_input(x)
    qparams._check_dtype(x.dtype, x)
    channel_axis, block = qparams._check_options(x.shape, symmetric, axis, block_size)
    target = qparams._check_storage(dtype, symmetric)
    index = tuple(range(x.ndim))
    if block:
        assert channel_axis is not None
        return _choose_blocked(x, symmetric, channel_axis, block, target)
    # Per block: its (least, -greatest) keys, shaped (2,) + the block's shape
    # with every axis but the channel axis reduced to 1; one min over the
    # blocks then merges both (keys are below 2**31 in magnitude: negating
    # them is exact).
    keys = _blockwise(_block_keys, (x.ndim,) + index, x, index, new_axes={x.ndim: 2},
                      adjust_chunks={d: 1 for d in index if d != channel_axis}, token="sk-qparams-keys",
                      dtype=np.int64, meta=np.empty((0,) * (x.ndim + 1), np.int64), channel_axis=channel_axis)
    if channel_axis is not None and x.shape[channel_axis] == 0:
        merged = np.empty((2, 0), np.int64)  # no channel, no range (Dask's min refuses the empty reduction)
    else:
        merged, = _compute(_min(keys, axis=tuple(1 + d for d in index if d != channel_axis)))
        merged = np.reshape(merged, (2, -1))
    return qparams._from_keys(merged[0], -merged[1], x.dtype, symmetric, channel_axis, target=target)


def _choose_blocked(x: da.Array, symmetric: bool, channel_axis: int, block: int,
                    target: qparams._Storage) -> QParams:
    """Blocked choose_qparams: each chunk's keys per entry of its own
    parameter shape (every entry's elements in one chunk, after aligning the
    chunks along the axis to the block size), concatenated by Dask into the
    whole parameter shape; the rule once on them."""
    chunks = _block_chunks(x.chunks[channel_axis], x.shape[channel_axis], block)  # as the blocked quantize's
    if chunks != x.chunks[channel_axis]:  # a block would straddle two chunks
        x = _rechunk(x, {channel_axis: chunks})
    shape = qparams._param_shape(x.shape, channel_axis, block)
    if math.prod(shape) == 0:
        empty = np.empty(0, np.int64)
        return qparams._from_keys(empty, empty, x.dtype, symmetric, channel_axis, block, shape, target)
    index = tuple(range(x.ndim))
    keys = _blockwise(_block_keys, (x.ndim,) + index, x, index, new_axes={x.ndim: 2},
                      adjust_chunks={channel_axis: lambda n: -(-n // block)}, token="sk-qparams-block-keys",
                      dtype=np.int64, meta=np.empty((0,) * (x.ndim + 1), np.int64), channel_axis=channel_axis,
                      block=block)
    merged, = _compute(keys)
    merged = np.reshape(merged, (2, -1))
    return qparams._from_keys(merged[0], -merged[1], x.dtype, symmetric, channel_axis, block, shape, target)


# ---- Checks when the graph is built ------------------------------------------

def _dask_input(x: Any) -> da.Array:
    """``x`` when it is a Dask array with known chunks and plain NumPy
    blocks; else TypeError (a NumPy array belongs to the in-memory
    functions) or the array layer's KernelError for masked blocks."""
    if not isinstance(x, da.Array):
        raise TypeError(f"x must be a dask.array.Array, got {type_name(x)} (NumPy arrays: sk.quantize, "
                        f"sk.dequantize, sk.cast, sk.choose_qparams)")
    arrays._input(x._meta)  # masked blocks: the in-memory functions' INVALID_BINDING
    _known_shape(x)
    return x


def _known_shape(x: da.Array) -> None:
    """Admission reads the whole shape, and per-axis parameters are sliced
    by the chunks along ``axis``: unknown chunk sizes (after boolean
    indexing, say) are refused."""
    if any(math.isnan(n) for n in x.shape):
        raise KernelError(Error(ErrorCode.INVALID_SHAPE, f"x: shape {x.shape} has unknown chunk sizes; call "
                                                         f"x.compute_chunk_sizes() first"))


def _blocks_axis(axis: Any, block_size: Any) -> Any:
    """The axis of blocked parameters: the array layer's error without one."""
    if axis is None:
        raise arrays._needs_axis(block_size)
    return axis


def _values(values: Any, name: str) -> Any:
    """Parameters are checked, value by value, before the graph is built: a
    Dask array of them would have to be computed here, so it is refused."""
    if isinstance(values, da.Array):
        raise KernelError(Error(ErrorCode.INVALID_PARAMS, f"{name} is a dask.array.Array; pass its values as a "
                                                          f"NumPy array ({name}.compute())"))
    return values


def _port(x: da.Array, name: str, dtype: np.dtype) -> TensorSpec:
    """A port of the in-memory call on the whole array: ``x``'s shape, C
    order (what computing ``x`` gives), ``dtype`` checked as the array
    layer checks it."""
    return TensorSpec(x.shape, arrays._port_dtype(dtype, x.ndim, name))


def _admit(operation: Any, request: Any) -> None:
    """The contract's admission of the whole-array request (what the
    in-memory call runs before its plan is prepared for a route): its Error
    raised as the array layer raises it."""
    admitted = operation.check_inference(request)
    if isinstance(admitted, Error):
        raise KernelError(admitted)


# ---- The graph ---------------------------------------------------------------

def _per_tensor(x: da.Array, out: DType, token: str, block: Callable[..., np.ndarray], **options: Any) -> da.Array:
    """Each block through ``block`` with the same ``options``; the output's
    dtype and chunks declared (no call on sample data).  The key is named
    here: map_blocks' ``token=`` was deprecated for a while (2024)."""
    name = f"{token}-{dask.base.tokenize(block, x, **options)}"
    return _map_blocks(block, x, name=name, dtype=numpy_dtype(out), meta=_meta(x, out), **options)


def _per_channel(x: da.Array, out: DType, token: str, block: Callable[..., np.ndarray], axis: Any,
                 values: np.ndarray, zero_points: Any, block_size: Optional[int] = None,
                 **options: Any) -> da.Array:
    """Each block through ``block`` with its channels' parameters (as
    admitted: binary32 values, integer zero points): the vectors become
    Dask arrays chunked as ``x`` is along ``axis``, so each task holds the
    slice of its block's indices; a shared integer zero point stays one
    value.  Blocked (``block_size``): ``x`` rechunked along ``axis`` to
    multiples of the block size (:func:`_block_chunks`), the parameter
    arrays chunked as ``x`` is, in blocks along ``axis``."""
    axis = check_axis(axis, x.shape)  # admitted: an index of the shape
    index = tuple(range(x.ndim))
    if block_size is None:
        along: Tuple[Any, ...] = (x.chunks[axis],)
        where: Tuple[int, ...] = (axis,)
    else:
        block_size = int(block_size)
        chunks = _block_chunks(x.chunks[axis], x.shape[axis], block_size)
        if chunks != x.chunks[axis]:
            x = _rechunk(x, {axis: chunks})
        along = tuple(tuple(-(-n // block_size) for n in c) if d == axis else c for d, c in enumerate(x.chunks))
        where = index
        options["block_size"] = block_size
        options["align_arrays"] = False  # block k of x takes block k of the parameters (other chunk sizes)
    args: List[Any] = [x, index, _from_array(values, chunks=along), where]
    if isinstance(zero_points, np.ndarray):
        args += [_from_array(zero_points, chunks=along), where]
    else:
        args += [zero_points, None]
    return _blockwise(block, index, *args, token=token, dtype=numpy_dtype(out), meta=_meta(x, out), axis=axis,
                      **options)


def _block_chunks(chunks: Tuple[int, ...], extent: int, block_size: int) -> Tuple[int, ...]:
    """Chunks along the block axis, each (but the last) a multiple of
    ``block_size``: ``chunks`` when they are, else as close to their largest
    as a multiple allows (at least one block each)."""
    if all(n % block_size == 0 for n in chunks[:-1]):
        return chunks
    size = max(1, (max(chunks) + block_size // 2) // block_size) * block_size
    return tuple([size] * (extent // size) + ([extent % size] if extent % size else []))


def _meta(x: da.Array, out: DType) -> np.ndarray:
    return np.empty((0,) * x.ndim, numpy_dtype(out))


# ---- On the workers ----------------------------------------------------------
# Module-level functions: the workers import them by name.

def _block(x: Any) -> np.ndarray:
    """A block as the in-memory functions take it in place.  Dask may hand
    a function broadcast views (``da.zeros``), reversed ones (``x[::-1]``)
    or, on a worker, data unpickled from a message at any byte offset, all
    of which the array layer refuses (UNSUPPORTED_LAYOUT, INVALID_BINDING
    for an address that is not a multiple of the element size); a block
    the C core's layout or binding rules refuse is copied, as computing the
    whole array would have done."""
    array = np.asarray(x)
    item = array.dtype.itemsize
    if array.ndim > MAX_RANK or item == 0:  # refused for its rank or dtype: a copy would not help
        return array
    span = _rules.layout("block", array.shape, array.strides, item, array.dtype.name)
    address = array.__array_interface__["data"][0]
    in_place = not isinstance(span, Error) and _rules.binding(
        ("block", "unused"), ((address, span), (0, 0)), ((span, item), (0, 1))) is None
    return array if in_place else array.copy(order="C")


# ``to``: the DType the caller's ``dtype`` names (map_blocks and
# blockwise keep ``dtype=`` and ``output=`` for themselves).

def _cast_block(x: Any, *, to: DType) -> np.ndarray:
    return arrays.cast(_block(x), to)


def _dequantize_block(x: Any, scale: Any, zero_point: Any, *, axis: Optional[int] = None,
                      block_size: Optional[int] = None, to: DType) -> np.ndarray:
    return arrays.dequantize(_block(x), scale, zero_point, axis=axis, block_size=block_size, dtype=to)


def _quantize_block(x: Any, multiplier: Any, zero_point: Any, *, axis: Optional[int] = None,
                    block_size: Optional[int] = None, rounding: Any) -> np.ndarray:
    return typing.cast(np.ndarray, arrays.quantize(_block(x), multiplier, zero_point, axis=axis,
                                                   block_size=block_size, rounding=rounding))


def _block_keys(x: Any, *, channel_axis: Optional[int], block: int = 0) -> np.ndarray:
    """The block's range keys (``sk.choose_qparams``' own reduction), the
    greatest negated, shaped for the merge across blocks (the pair first);
    blocked, per entry of the chunk's parameter shape."""
    array = _block(x)
    least, greatest = qparams._keys(array, channel_axis, block)
    if block:
        assert channel_axis is not None
        kept = qparams._param_shape(array.shape, channel_axis, block)
    else:
        kept = tuple(n if d == channel_axis else 1 for d, n in enumerate(array.shape))
    return np.stack([least.reshape(kept), -greatest.reshape(kept)])
