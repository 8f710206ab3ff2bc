"""The array layer: NumPy in, NumPy out, exceptions on errors, plans cached.

Any non-negative strides execute in place (no hidden copy); negative strides
raise :class:`~simakernels.core.KernelError` with ``UNSUPPORTED_LAYOUT``.
"""
from __future__ import annotations

from fractions import Fraction
import struct
import typing
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.ma  # noqa: F401  (loaded now: a lazy import on the first call would run under the caller's FP state)
import numpy.typing as npt

from . import _plans, _routes, _split, a65, dlpack
from .a65 import _backend
from .a65._backend import _CHAR_ARRAY, _NOT_A_PLAIN_BUFFER, _from_buffer
from . import storage
from .core import Contiguous, DType, Error, ErrorCode, KernelError, QParams, Strided, TensorSpec, describe, type_name
from .ops import affine_dequant as ops_affine_dequant
from .ops import affine_quant as ops_affine_quant
from .ops import cast as ops_cast
from .ops import dequant as ops_dequant
from .ops import quant as ops_quant
from .packed import Packed

from .storage import DTypeSpec as DTypeSpec, numpy_dtype as numpy_dtype, to_dtype as to_dtype  # the array API's

_FROM_NUMPY = storage.FROM_NUMPY
_SUPPORTED = storage.SUPPORTED  # for messages

#: A scale or multiplier: a real number (not a string or a bool).
RealNumber = Union[int, float, Fraction, "np.number[Any]", "np.ndarray[Any, Any]"]
#: What ``scale`` / ``multiplier`` take: one real number, one per index along
#: ``axis`` (a sequence or a 1-D array), or a QParams holding everything.
ParamValues = Union[RealNumber, Sequence[RealNumber], QParams]
#: What ``zero_point`` takes: one integer, or one per index along ``axis``.
ZeroPoints = Union[int, "np.integer[Any]", Sequence[int], "np.ndarray[Any, Any]"]

#: What ``out=`` takes: a NumPy array, or any CPU array exporting DLPack
#: (a PyTorch tensor, a JAX array), written in place.
OutArray = Union[np.ndarray, dlpack.SupportsDLPack]
#: What the array functions take as an input: anything NumPy takes as an
#: array, or an array exporting DLPack.
InArray = Union[npt.ArrayLike, dlpack.SupportsDLPack]

def _spec(array: np.ndarray, name: str) -> TensorSpec:
    return TensorSpec(array.shape, _port_dtype(array.dtype, array.ndim, name), Strided(array.strides))


def _port_dtype(dtype: np.dtype, ndim: int, name: str) -> DType:
    """The DType of a port holding a NumPy ``dtype`` at rank ``ndim``, or
    the KernelError the array functions raise (simakernels.dask checks a
    Dask array's metadata with it)."""
    found = _FROM_NUMPY.get(dtype)
    if found is None:
        hint = "; Python floats and lists become float64: pass np.asarray(x, np.float32)" \
            if dtype == np.float64 else ""
        raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE, f"{name}: NumPy dtype {dtype} is not a "
                                f"simakernels dtype ({_SUPPORTED}){hint}"))
    if ndim > 6:
        raise KernelError(Error(ErrorCode.INVALID_SHAPE, f"{name}: rank {ndim} exceeds 6"))
    return found


_view = _backend.view_of


def _masked(array: Any, port: str, name: str) -> Optional[Error]:
    """A masked array would be taken as its data with the mask dropped:
    masked elements converted as if valid, or the mask of ``out`` left
    stale.  Other ndarray subclasses (np.matrix, np.memmap) hold plain
    numbers in plain storage and are taken as they are."""
    if not isinstance(array, np.ma.MaskedArray):
        return None
    return Error(ErrorCode.INVALID_BINDING, f"{port} ({name}): numpy.ma.MaskedArray is not supported (its mask "
                                            f"would be ignored); pass {name}.filled(value) or {name}.data")


def _input(x: Any) -> np.ndarray:
    """``x`` as an ndarray (the callers keep plain ndarrays as they are):
    DLPack exporters (PyTorch, JAX) viewed in place, anything else through
    ``numpy.asarray``; masked arrays and objects that hold no numbers refused."""
    error = _masked(x, "input 0", "x")
    if error is None and not isinstance(x, np.ndarray) and dlpack.exports(x):
        viewed = dlpack.to_numpy(x, "input 0", "x")
        if isinstance(viewed, Error):
            raise KernelError(viewed)
        return viewed
    if error is not None:
        raise KernelError(error)
    array = np.asarray(x)
    if array.dtype == object:
        raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE, f"input 0 (x): {describe(x)} ({type_name(x)}) is not "
                                                             f"an array: pass a NumPy array, a DLPack array (PyTorch, "
                                                             f"JAX) or a sequence of numbers"))
    return array


def _out_array(out: Any) -> np.ndarray:
    """``out`` as the ndarray to write: an ndarray as it is, a DLPack
    exporter viewed in place (read-only exports stay read-only)."""
    if isinstance(out, np.ndarray):
        return out
    if dlpack.exports(out):
        viewed = dlpack.to_numpy(out, "output 0", "out")
        if isinstance(viewed, Error):
            raise KernelError(viewed)
        return viewed
    raise TypeError(f"out must be a numpy.ndarray or an array exporting DLPack, got {type(out).__name__}")


def _output(x: np.ndarray, dtype: DType, out: Optional[np.ndarray]) -> np.ndarray:
    if out is None:
        return np.empty(x.shape, numpy_dtype(dtype))
    out = _out_array(out)
    error = _masked(out, "output 0", "out")
    if error is not None:
        raise KernelError(error)
    if not out.flags.writeable:
        raise KernelError(Error(ErrorCode.INVALID_BINDING, "output 0: out is read-only, a writable array is required"))
    if out.dtype != numpy_dtype(dtype):
        raise KernelError(
            Error(ErrorCode.UNSUPPORTED_DTYPE, f"output 0: out has dtype {out.dtype}, expected {numpy_dtype(dtype)}")
        )
    return out


def _out_key(out: Optional[np.ndarray]) -> Any:
    """The output's part of a plan key: its layout when given (a cache hit
    then proves it was checked against the requested dtype), else None (the
    array layer allocates it C-contiguous from the input's shape)."""
    if out is None:
        return None
    if type(out) is np.ndarray:  # the callers inline this case
        return out.shape, out.strides, out.dtype
    if isinstance(out, np.ndarray):
        return type(out), out.shape, out.strides, out.dtype
    return [out]  # unhashable: never cached (_output rejects it anyway)


# Plans by everything that determines them: operation, both layouts, the
# requested output dtype, the parameters by type and representation (True ==
# 1, but only 1 is a valid zero point) and SIMAKERNELS_FORCE_ROUTE (which
# admission reads itself, naming it in its error).
_PLANS = _plans.PLANS
_remember, _plan = _plans.remember, _plans.cached
_forced_route = _routes.forced_route_key


def clear_plans() -> None:
    """Forgets the array layer's cached plans."""
    _PLANS.clear()


_DOUBLE = struct.Struct("<d")
_FLOAT32 = np.float32
_ONE_WORKER = 1  # the default object: an identity test on the fast path
_memoryview = memoryview
_ENUMS = frozenset({DType, ops_quant.Rounding})
_FLOAT32_KEY = (DType, id(DType.FLOAT32))  # what _param_key gives the default
_pack_double = _DOUBLE.pack


def _param_key(p: Any) -> Any:
    """A parameter by its type and representation: hashing or comparing a
    float would be FP arithmetic, which the caller's FP state (DAZ makes all
    subnormals equal; traps) could change or turn into SIGFPE."""
    kind = type(p)
    if kind is int or kind is str:  # an int or str key equals no key of another kind
        return p
    if kind is float:
        return _pack_double(p)  # bytes never equal an int or a tuple
    if kind is _FLOAT32:
        return kind, _memoryview(p).tobytes()
    if kind in _ENUMS:  # members are singletons; Enum.__hash__ is slow Python
        return kind, id(p)
    if isinstance(p, np.generic):
        try:
            # (NumPy's stubs declare a scalar's buffer for Python 3.12+ only.)
            return kind, memoryview(p).tobytes()  # type: ignore[arg-type]  # cheaper than p.tobytes()
        except TypeError:
            return kind, p.tobytes()
    return kind, p


def _lookup(key: Any, x: np.ndarray, dtype: Any, out: Optional[np.ndarray]) -> Tuple[Any, np.ndarray]:
    """(the cached plan or None, the output to write): a given ``out``
    checked against ``dtype`` on a miss (a hit proves it was), else a new
    C-contiguous array, for a hit of the dtype the plan resolved."""
    try:
        plan = _PLANS.get(key)
    except TypeError:  # unhashable parameters: never cached
        plan = None
    if plan is None:
        return None, _output(x, to_dtype(dtype), out)
    if out is None:
        if type(plan) is Error:  # a cached refusal
            raise KernelError(plan)
        out = _empty(x.shape, plan._dtypes[1])
    return plan, out


_empty = np.empty


def _execute(plan: Any, x: np.ndarray, out: np.ndarray, workers: Any = _ONE_WORKER) -> np.ndarray:
    """Runs ``plan`` (or raises the Error admission gave) on x and out, arrays
    of its layout: one native call, which checks the bindings.  The plan
    says how an array is bound: C-contiguous ports as their buffers, others
    by their first element and the span the plan accesses.  A refused call
    goes to the backend's Python checks, which name the fault.  Any other
    ``workers`` than the default object goes to :func:`_split_run`."""
    if workers is not _ONE_WORKER:
        return _split_run(plan, x, out, workers)
    if type(plan) is Error:
        raise KernelError(plan)
    try:
        if plan._dense:
            src = _from_buffer(x)
            dst = _from_buffer(_CHAR_ARRAY, out, True)
            status = plan._run(plan._native, src, len(src), dst, len(dst))
        else:
            first, (src_len, dst_len) = plan._first, plan._spans
            status = plan._run(plan._native, _from_buffer(_getitem(x, first)), src_len,
                               _from_buffer(_CHAR_ARRAY, _getitem(out, first), True), dst_len)
        if status == 0:
            return out
    except _NOT_A_PLAIN_BUFFER:
        if not out.flags.writeable:
            raise KernelError(Error(ErrorCode.INVALID_BINDING,
                                    "output 0: out is read-only, a writable array is required")) from None
        status = None
    in_nbytes, out_nbytes = plan._spans
    error = _backend.refused(plan, status, [_view(x, in_nbytes, False)], [_view(out, out_nbytes, True)])
    if error is not None:
        raise KernelError(error)
    return out


_getitem = np.ndarray.__getitem__  # a subclass's own indexing is not asked


def _split_run(plan: Any, x: np.ndarray, out: np.ndarray, workers: Any) -> np.ndarray:
    """``workers=N``: the outermost axis in at most N slabs, one thread each
    (bounded by :func:`simakernels._split.thread_count`), each on a plan of
    its rows made from ``plan``; one slab, or an error, runs as usual."""
    threads = _split.thread_count(_split.check_workers(workers), x.shape, _split.row_unit(plan))
    if isinstance(plan, Error) or threads == 1:
        return _execute(plan, x, out, _ONE_WORKER)
    return _split.run(plan, x, out, threads, _execute)


# Each operation: the cache key (everything that determines the plan), then
# on a miss the checked output and a new plan; on a hit a given ``out`` was
# already checked against the requested dtype when the plan was made.

def cast(x: InArray, dtype: Optional[DTypeSpec] = None, *, out: Optional[OutArray] = None,
         workers: int = 1) -> np.ndarray:
    """Converts FLOAT32 to BFLOAT16 or BFLOAT16 to FLOAT32, bit-exactly.

    ``x``: a ``numpy.float32`` or ``ml_dtypes.bfloat16`` array (anything else
    array-like goes through ``numpy.asarray``; a masked array is refused).
    ``dtype``: the output type, ``"bfloat16"``/``ml_dtypes.bfloat16``/
    ``sk.DType.BFLOAT16`` or ``"float32"``/``numpy.float32``/
    ``sk.DType.FLOAT32``.  Returns a new C-contiguous array of ``x``'s shape,
    or ``out`` (same shape, the output dtype; any non-negative strides)
    written in place.

    Per element, on the representation bits only (no FP arithmetic, so any
    FP environment gives the same bits):

    * FLOAT32 -> BFLOAT16: with ``b`` the unsigned 32-bit pattern, the result
      is ``(b + 0x7FFF + ((b >> 16) & 1)) >> 16`` with the addition wrapping
      modulo 2**32: nearest, ties to even, for every finite value (overflow
      gives infinity); NaNs follow the same rule, so ``0x7F800001`` becomes
      ``0x7F80`` (infinity) and ``0xFFFFFFFF`` becomes ``0x0000``.
    * BFLOAT16 -> FLOAT32: exact, ``b << 16`` (signed zeros, subnormals,
      infinities and NaN payloads kept).

    ``workers=N`` splits the outermost axis across at most N threads: no more
    than the CPUs this process may use, the outermost extent, or one thread
    per 65,536 elements (smaller tensors run on the calling thread).

    Raises :class:`~simakernels.KernelError` before writing any output byte:
    ``UNSUPPORTED_DTYPE`` (not FLOAT32 <-> BFLOAT16, an unknown ``dtype``, an
    ``out`` of the wrong dtype), ``INVALID_SHAPE`` (rank above 6, ``out`` of
    another shape), ``UNSUPPORTED_LAYOUT`` (negative or broadcast strides),
    ``INVALID_BINDING`` (read-only or overlapping ``out``, masked arrays),
    ``INVALID_PARAMS`` (``workers`` not a positive integer).

    >>> import numpy as np, simakernels as sk
    >>> y = sk.cast(np.float32([1.0, 717.0, 718.0]), "bfloat16")
    >>> [hex(b) for b in y.view(np.uint16).tolist()]    # 717 and 718 are ties
    ['0x3f80', '0x4433', '0x4434']
    >>> sk.cast(y, np.float32).tolist()
    [1.0, 716.0, 720.0]
    """
    if type(x) is not np.ndarray:
        x = _input(x)
    if not (out is None or isinstance(out, np.ndarray)):  # a DLPack array: written in place, returned
        cast(x, dtype, out=_out_array(out), workers=workers)
        return typing.cast(np.ndarray, out)
    if dtype is None:
        if out is None:
            raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE, "cast: give the output dtype (dtype=) or an output "
                                                                 "array (out=)"))
        dtype = out.dtype
    key = ("cast", x.shape, x.strides, x.dtype, _param_key(dtype),
           (out.shape, out.strides, out.dtype) if type(out) is np.ndarray else _out_key(out),
           _forced_route())
    plan, out = _lookup(key, x, dtype, out)
    if plan is None:
        request = ops_cast.Request([_spec(x, "input 0")], [_spec(out, "output 0")])
        plan = _remember(key, a65.cast.check_inference(request))
    return _execute(plan, x, out, workers)


def dequantize(
    x: Union[InArray, Packed], scale: ParamValues, zero_point: ZeroPoints = 0, *, axis: Optional[int] = None,
    block_size: Optional[int] = None, dtype: Optional[DTypeSpec] = None, out: Optional[OutArray] = None,
    workers: int = 1,
) -> np.ndarray:
    """Dequantizes INT8 to FLOAT32 (default) or BFLOAT16.

    ``x``: a ``numpy.int8`` array (anything else array-like goes through
    ``numpy.asarray``; a masked array is refused).  A ``uint8``, ``int16``,
    ``uint16``, ``int32`` or ``uint32`` array, an ml_dtypes ``int4``,
    ``uint4``, ``int2`` or ``uint2`` array or an :class:`sk.Packed` takes
    Hurray's formula instead: ``float32(int32(q - zero_point)) * s`` (the
    difference wrapping modulo 2**32, each step nearest-even), with ``s``
    finite and nonzero (negative allowed) and the zero point in the input
    type's range.  ``scale``: a real number
    (int, float, Fraction, NumPy integer or floating scalar; not a string or
    a bool), used as ``s = numpy.float32(scale)``, which must be finite and
    > 0 (subnormals allowed).  ``zero_point``: an integer in the INT32 range.
    ``dtype``: ``sk.DType.FLOAT32``/``numpy.float32``/``"float32"`` or the
    BFLOAT16 spellings.

    ``axis``: per-axis (per-channel) parameters.  ``scale`` is then a 1-D
    sequence with ``x.shape[axis]`` entries and ``zero_point`` an integer
    or such a sequence; element ``i`` along ``axis`` is computed exactly as
    below with ``scale[i]`` and its zero point (a negative ``axis`` counts
    from the end).  ``None`` (default): one scale and zero point for the
    whole tensor.

    ``block_size`` (with ``axis``): blocked (group-wise) parameters.
    ``scale`` is then an array of ``x``'s rank and shape, except
    ``ceil(x.shape[axis] / block_size)`` along ``axis``, and ``zero_point``
    an integer or such an array; element ``i`` takes the parameters at
    ``i`` with ``i[axis]`` replaced by ``i[axis] // block_size`` (the last
    block may be partial).

    Returns a new C-contiguous array of ``x``'s shape,
    or ``out`` (same shape, the output dtype; any non-negative strides)
    written in place.

    Per element ``q``, each step rounded to binary32 nearest-even, never
    fused: ``z = float32(zero_point)`` (a zero point beyond 2**24 may round:
    16777217 becomes 16777216), ``d = float32(q) - z``, ``r = d * s``.
    FLOAT32 output is ``r``; BFLOAT16 output is ``r`` narrowed nearest-even by
    :func:`cast`'s bit rule (so 718.0 gives 720, where rounding the exact
    product to BFLOAT16 would give 716).  A finite scale can still give
    infinity, a subnormal or a signed zero: these are results, not errors.

    ``workers=N`` splits the outermost axis across at most N threads: no more
    than the CPUs this process may use, the outermost extent, or one thread
    per 65,536 elements (smaller tensors run on the calling thread).

    Raises :class:`~simakernels.KernelError` before writing any output byte:
    ``INVALID_PARAMS`` (``scale`` not a real number or not finite and > 0 as
    binary32, ``zero_point`` not an integer in the INT32 range, ``workers``
    not a positive integer; with ``axis``: an axis outside the rank, a
    length other than ``x.shape[axis]`` or a bad entry, named by index and
    value; ``block_size`` without ``axis`` or not a positive integer, a
    parameter shape other than the blocks'), ``UNSUPPORTED_DTYPE`` (``x`` not INT8, an output
    dtype other than FLOAT32/BFLOAT16, ``out`` of the wrong dtype),
    ``INVALID_SHAPE``, ``UNSUPPORTED_LAYOUT`` (negative or broadcast
    strides), ``INVALID_BINDING`` (read-only or overlapping ``out``, masked
    arrays) and, for a nonempty ``x``, ``UNSUPPORTED_ENVIRONMENT`` when the
    calling thread's FP state is not round-to-nearest with gradual underflow
    (no flush-to-zero or denormals-are-zero) and all traps masked.

    >>> import numpy as np, simakernels as sk
    >>> sk.dequantize(np.int8([-128, -3, 0, 127]), 0.25, zero_point=-3)
    array([-31.25,   0.  ,   0.75,  32.5 ], dtype=float32)
    >>> sk.dequantize(np.int8([[4, 4], [-4, 8]]), [0.5, 0.25], zero_point=[0, 4], axis=1)
    array([[ 2.,  0.],
           [-2.,  1.]], dtype=float32)
    >>> sk.dequantize(np.int8([[4, 4, 4], [8, 8, 8]]), [[0.5, 1.0], [0.25, 2.0]], axis=1, block_size=2)
    array([[ 2.,  2.,  4.],
           [ 2.,  2., 16.]], dtype=float32)
    """
    if type(scale) is QParams:
        scale, zero_point, axis, block_size = _unpack(scale, "scale", zero_point, axis, block_size)
    if type(x) is not np.ndarray:
        if type(x) is Packed:
            return _affine_dequantize(x, scale, zero_point, axis, block_size, dtype, out, workers)
        x = _input(x)
    if x.dtype is not _INT8 and x.dtype in _AFFINE_INPUTS:
        return _affine_dequantize(x, scale, zero_point, axis, block_size, dtype, out, workers)
    if not (out is None or isinstance(out, np.ndarray)):  # a DLPack array: written in place, returned
        dequantize(x, scale, zero_point, axis=axis, block_size=block_size, dtype=dtype, out=_out_array(out),
                   workers=workers)
        return typing.cast(np.ndarray, out)
    if dtype is None:  # out's dtype, else FLOAT32
        dtype = DType.FLOAT32 if out is None else _FROM_NUMPY.get(out.dtype, DType.FLOAT32)
    if axis is not None or block_size is not None:
        return _dequantize_axis(x, scale, zero_point, axis, dtype, out, workers, block_size)
    key = ("dequant", x.shape, x.strides, x.dtype,
           _FLOAT32_KEY if dtype is DType.FLOAT32 else _param_key(dtype),
           (out.shape, out.strides, out.dtype) if type(out) is np.ndarray else _out_key(out),
           _param_key(scale), zero_point if type(zero_point) is int else _param_key(zero_point),
           _forced_route())
    plan, out = _lookup(key, x, dtype, out)
    if plan is None:
        request = ops_dequant.Request([_spec(x, "input 0")], [_spec(out, "output 0")],
                                      ops_dequant.Params(scale, typing.cast(int, zero_point)))  # admission checks it
        plan = _remember(key, a65.dequant.check_inference(request))
    return _execute(plan, x, out, workers)


def quantize(
    x: InArray, multiplier: ParamValues, zero_point: ZeroPoints = 0, *, dtype: DTypeSpec = "int8",
    packed: bool = False, axis: Optional[int] = None, block_size: Optional[int] = None,
    rounding: Union[ops_quant.Rounding, str] = "nearest_even", out: Union[OutArray, Packed, None] = None,
    workers: int = 1,
) -> Any:
    """Quantizes FLOAT32, BFLOAT16 or FLOAT16 to INT8 (default) or another
    integer type (``dtype``, below).

    ``x``: a ``numpy.float32``, ``ml_dtypes.bfloat16`` or ``numpy.float16``
    array (anything else array-like goes through ``numpy.asarray``; Python
    floats become float64, which is refused; a masked array is refused).

    ``multiplier`` multiplies; it is the reciprocal of the quantization
    scale, not the scale.  For values that :func:`dequantize` will restore
    with ``scale``, pass ``numpy.float32(1) / numpy.float32(scale)`` (the
    binary32 reciprocal).  Passing the scale itself gives values near the
    zero point with no error.  It is a
    real number (int, float, Fraction, NumPy integer or floating scalar; not
    a string or a bool), used as ``m = numpy.float32(multiplier)``, which must
    be finite and > 0 (subnormals allowed).  ``zero_point``: an integer in
    [-128, 127].  ``rounding``: ``"nearest_even"`` (default),
    ``"toward_zero"``, ``"toward_positive"``, ``"toward_negative"`` or the
    ``sk.ops.quant.Rounding`` member.

    ``axis``: per-axis (per-channel) parameters.  ``multiplier`` is then a
    1-D sequence with ``x.shape[axis]`` entries and ``zero_point`` an
    integer or such a sequence; element ``i`` along ``axis`` is computed
    exactly as below with ``multiplier[i]`` and its zero point (a negative
    ``axis`` counts from the end).  :func:`choose_qparams` gives matching
    scales, multipliers and zero points.

    Returns a new C-contiguous ``int8``
    array of ``x``'s shape, or ``out`` (same shape, ``int8``; any
    non-negative strides) written in place.

    ``dtype``: the output type, ``"int8"`` (the specification's Quant),
    ``"uint8"``, ``"int16"``, ``"uint16"`` (NumPy arrays of that dtype),
    ``"int4"``, ``"uint4"``, ``"int2"``, ``"uint2"`` (ml_dtypes arrays, one
    element per byte; with ``packed=True`` an :class:`sk.Packed`, packed in
    the same pass: element 0 in the least significant bits of byte 0), or
    the ``sk.DType`` or NumPy/ml_dtypes dtype.  Every type takes the same
    arithmetic with step 4 saturating to its own range, and its zero point
    lies in that range.  ``out`` may be an array of the output dtype or an
    ``sk.Packed`` (whose last byte's unused high bits keep their value).
    ``workers`` applies to unpacked outputs.

    Per element ``v``, in this order:

    1. ``p = v * m`` rounded to binary32 (nearest-even, gradual underflow),
       whatever ``rounding`` says: 15 * 0.3 rounds to 4.5 here, then to 4;
    2. ``p`` rounded to an integer by ``rounding``;
    3. ``zero_point`` added without clipping first (200 with zero point
       -100 gives 100);
    4. the sum saturated to [-128, 127].

    NaN (any sign or payload) gives ``zero_point``; +infinity gives 127 and
    -infinity -128; both zeros give ``zero_point``.

    ``workers=N`` splits the outermost axis across at most N threads: no more
    than the CPUs this process may use, the outermost extent, or one thread
    per 65,536 elements (smaller tensors run on the calling thread).

    Raises :class:`~simakernels.KernelError` before writing any output byte:
    ``INVALID_PARAMS`` (``multiplier`` not a real number or not finite and
    > 0 as binary32, ``zero_point`` not an integer in [-128, 127], an unknown
    ``rounding``, ``workers`` not a positive integer; with ``axis``: an axis
    outside the rank, a length other than ``x.shape[axis]`` or a bad entry,
    named by index and value; ``block_size`` without ``axis`` or not a
    positive integer, a parameter shape other than the blocks'), ``UNSUPPORTED_DTYPE``
    (``x`` not FLOAT32/BFLOAT16/FLOAT16, ``out`` not ``int8``),
    ``INVALID_SHAPE``, ``UNSUPPORTED_LAYOUT`` (negative or broadcast
    strides), ``INVALID_BINDING`` (read-only or overlapping ``out``, masked
    arrays) and, for a nonempty ``x``, ``UNSUPPORTED_ENVIRONMENT`` when the
    calling thread's rounding mode is not round-to-nearest or an FP trap is
    enabled (flush-to-zero and denormals-are-zero are fine).

    >>> import numpy as np, simakernels as sk
    >>> scale = np.float32(0.05)                  # what dequantize multiplies by
    >>> multiplier = np.float32(1) / scale        # binary32 reciprocal: 20.0
    >>> sk.quantize(np.float32([0.1, -1.0, 7.0, np.nan]), multiplier, zero_point=3)
    array([  5, -17, 127,   3], dtype=int8)
    >>> sk.quantize(np.float32([0.1, -1.0, 7.0, np.nan]), scale, zero_point=3)   # the scale: wrong
    array([3, 3, 3, 3], dtype=int8)
    >>> sk.quantize(np.float32([[1.0, 1.0], [-2.0, 0.5]]), [10.0, 100.0], zero_point=[0, -50], axis=1)
    array([[ 10,  50],
           [-20,   0]], dtype=int8)
    """
    if type(x) is not np.ndarray:
        x = _input(x)
    if type(multiplier) is QParams:
        dtype = _qparams_dtype(multiplier, dtype)
        multiplier, zero_point, axis, block_size = _unpack(multiplier, "multiplier", zero_point, axis, block_size)
    if dtype is not _INT8_NAME or packed is not False or type(out) is Packed:
        done = _affine_quantize(x, multiplier, zero_point, axis, block_size, rounding, dtype, packed, out, workers)
        if done is not None:
            return done
    if not (out is None or isinstance(out, np.ndarray)):  # a DLPack array: written in place, returned
        quantize(x, multiplier, zero_point, axis=axis, block_size=block_size, rounding=rounding, out=_out_array(out),
                 workers=workers)
        return typing.cast(np.ndarray, out)
    if axis is not None or block_size is not None:
        return _quantize_axis(x, multiplier, zero_point, axis, rounding, out, workers, block_size)
    key = ("quant", x.shape, x.strides, x.dtype,
           (out.shape, out.strides, out.dtype) if type(out) is np.ndarray else _out_key(out),
           _param_key(multiplier), zero_point if type(zero_point) is int else _param_key(zero_point),
           rounding if type(rounding) is str else _param_key(rounding), _forced_route())
    plan, out = _lookup(key, x, DType.INT8, out)
    if plan is None:
        plan = _remember(key, _quant_plan(x, out, multiplier, zero_point, rounding))
    return _execute(plan, x, out, workers)


def _unpack(qp: QParams, value: str, zero_point: Any, axis: Any, block_size: Any = None
            ) -> Tuple[Any, Any, Any, Any]:
    """(the scale or multiplier, the zero point, the axis, the block size) a
    QParams holds; a zero point, axis or block size given beside it is
    refused (which would win?)."""
    for name, given, unset in (("zero_point", zero_point, 0), ("axis", axis, None), ("block_size", block_size, None)):
        if given is not unset and not (type(given) is int and given == unset):
            raise KernelError(Error(ErrorCode.INVALID_PARAMS, f"{name}={describe(given)} given with a QParams, which "
                                                              f"holds the {name}: pass one or the other"))
    return getattr(qp, value), qp.zero_point, qp.axis, getattr(qp, "block_size", None)


def _quant_plan(x: np.ndarray, out: np.ndarray, multiplier: Any, zero_point: Any, rounding: Any) -> Any:
    try:
        params = ops_quant.Params(multiplier, zero_point, rounding)
    except ValueError as exc:
        return Error(ErrorCode.INVALID_PARAMS, str(exc))
    request = ops_quant.Request([_spec(x, "input 0")], [_spec(out, "output 0")], params)
    return a65.quant.check_inference(request)


# ---- Per-axis parameters (axis=) ------------------------------------------

def _vector_key(values: Any) -> Any:
    """Per-axis and blocked parameters' part of a plan key, by
    representation: an array by its dtype, shape and bytes (an object array
    is never cached: its bytes are addresses); a list or tuple entry by
    entry (nested ones too)."""
    if type(values) is np.ndarray:
        return [values] if values.dtype == object else (values.dtype.str, values.shape, values.tobytes())
    if type(values) in (list, tuple):
        return type(values), tuple(_vector_key(v) for v in values)
    return _param_key(values)


def _axis_index(axis: Any) -> Any:
    return axis if type(axis) is int else _param_key(axis)


def _needs_axis(block_size: Any) -> KernelError:
    return KernelError(Error(ErrorCode.INVALID_PARAMS, f"block_size={describe(block_size)} needs axis= (the axis "
                                                       f"along which the blocks run)"))


def _dequantize_axis(x: np.ndarray, scale: Any, zero_point: Any, axis: Any, dtype: Any, out: Optional[np.ndarray],
                     workers: Any, block_size: Any = None) -> np.ndarray:
    """Per-axis parameters, or blocked ones with ``block_size``."""
    if axis is None:
        raise _needs_axis(block_size)
    out = _output(x, to_dtype(dtype), out)
    key = ("dequant-axis", x.shape, x.strides, x.dtype, out.shape, out.strides, out.dtype, _axis_index(axis),
           _vector_key(scale), _vector_key(zero_point), _forced_route(),
           None if block_size is None else _axis_index(block_size))

    def build() -> Any:
        params = (ops_dequant.AxisParams(axis, scale, zero_point) if block_size is None
                  else ops_dequant.BlockParams(axis, block_size, scale, zero_point))
        request = ops_dequant.Request([_spec(x, "input 0")], [_spec(out, "output 0")], params)
        return a65.dequant.check_inference(request)

    plan = _plan(key, build)
    return _execute(plan, x, out, workers)


def _quantize_axis(x: np.ndarray, multiplier: Any, zero_point: Any, axis: Any, rounding: Any,
                   out: Optional[np.ndarray], workers: Any, block_size: Any = None) -> np.ndarray:
    """Per-axis parameters, or blocked ones with ``block_size``."""
    if axis is None:
        raise _needs_axis(block_size)
    out = _output(x, DType.INT8, out)
    key = ("quant-axis", x.shape, x.strides, x.dtype, out.shape, out.strides, _axis_index(axis),
           _vector_key(multiplier), _vector_key(zero_point), _param_key(rounding), _forced_route(),
           None if block_size is None else _axis_index(block_size))

    def build() -> Any:
        try:
            params: Any = (ops_quant.AxisParams(axis, multiplier, zero_point, rounding) if block_size is None
                           else ops_quant.BlockParams(axis, block_size, multiplier, zero_point, rounding))
        except ValueError as exc:
            return Error(ErrorCode.INVALID_PARAMS, str(exc))
        request = ops_quant.Request([_spec(x, "input 0")], [_spec(out, "output 0")], params)
        return a65.quant.check_inference(request)

    plan = _plan(key, build)
    return _execute(plan, x, out, workers)


# ---- The Hurray storage types (dtype=, packed=, sk.Packed) -------------------

_INT8_NAME = "int8"  # quantize's default dtype: an identity test on the fast path
_INT8 = np.dtype(np.int8)
# (INT8 arrays are the specification's Dequant, whatever their dtype object.)
_AFFINE_INPUTS = frozenset(storage.NUMPY[d] for d in ops_affine_dequant.STORAGE if d is not DType.INT8)


def _qparams_dtype(qp: QParams, dtype: Any) -> Any:
    """quantize's output type with a QParams: its own, unless ``dtype``
    names another than the default (int8), which must then be the same."""
    if type(dtype) is str and dtype == _INT8_NAME:
        return qp.dtype
    if to_dtype(dtype) is not qp.dtype:
        raise KernelError(Error(ErrorCode.INVALID_PARAMS, f"dtype={describe(dtype)} given with a QParams for "
                                                          f"{qp.dtype.name.lower()}: pass one or the other"))
    return dtype


def _output_kind(dtype: Any, out: Any) -> DType:
    """quantize's output type: ``dtype`` (a packed ``out`` gives its own
    when ``dtype`` is the default)."""
    if type(out) is Packed and dtype is _INT8_NAME:
        return out.dtype
    kind = to_dtype(dtype)
    if kind not in ops_affine_quant.OUTPUTS:
        names = ", ".join(d.name.lower() for d in ops_affine_quant.OUTPUTS)
        raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE, f"quantize: dtype {kind.name.lower()} is not an "
                                                             f"output type; supported: {names}"))
    return kind


def _affine_params(params_type: Any, axis_type: Any, block_type: Any, axis: Any, block_size: Any,
                   values: Any, zero_point: Any, *rounding: Any) -> Any:
    """Per-tensor, per-axis or blocked parameters of an affine operation."""
    if axis is None:
        if block_size is not None:
            raise _needs_axis(block_size)
        return params_type(values, zero_point, *rounding)
    if block_size is None:
        return axis_type(axis, values, zero_point, *rounding)
    return block_type(axis, block_size, values, zero_point, *rounding)


def _affine_key(values: Any, zero_point: Any, axis: Any, block_size: Any) -> Tuple[Any, ...]:
    """The parameters' and route's part of an affine plan's key."""
    if axis is None and block_size is None:  # per tensor: as the INT8 paths key them
        return (_param_key(values), zero_point if type(zero_point) is int else _param_key(zero_point),
                _forced_route())
    return (_axis_index(axis), None if block_size is None else _axis_index(block_size), _vector_key(values),
            _vector_key(zero_point), _forced_route())


def _affine_quantize(x: np.ndarray, multiplier: Any, zero_point: Any, axis: Any, block_size: Any, rounding: Any,
                     dtype: Any, packed: Any, out: Any, workers: Any) -> Any:
    """quantize to another type than INT8, or packed (None: INT8 unpacked
    after all, the callers' own path).  The plan key comes first, from the
    caller's values as given: a hit runs without converting anything."""
    out_packed = type(out) is Packed
    if out is None:
        out_key: Any = None
    elif out_packed:
        out_key = "packed", out.dtype, out.shape  # checked on a miss; hits compare them
    else:
        out_key = _out_key(out)
    key: Optional[Tuple[Any, ...]] = (
        "affine-quant", dtype if type(dtype) is str else _param_key(dtype), packed, x.shape, x.strides, x.dtype,
        out_key, rounding if type(rounding) is str else _param_key(rounding)) + _affine_key(
        multiplier, zero_point, axis, block_size)
    try:
        plan = _PLANS.get(key)
    except TypeError:  # unhashable parameters (a list of arrays, a 0-d array): never cached
        key, plan = None, None
    if plan is None:
        kind = _output_kind(dtype, out)
        if packed is not False and packed is not True:
            raise KernelError(Error(ErrorCode.INVALID_PARAMS, f"packed={describe(packed)} must be True or False"))
        if kind is DType.INT8 and not packed and not out_packed:
            return None
        if (packed or out_packed) and not kind.sub_byte:
            raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE, f"packed=True takes a sub-byte dtype (int4, uint4, "
                                                                 f"int2, uint2), not {kind.name.lower()}"))
        if packed or out_packed:
            out = _packed_out(x, kind, out)
            target = TensorSpec(x.shape, kind, Contiguous())
        else:
            if not (out is None or isinstance(out, np.ndarray)):  # a DLPack array: written in place
                out = _out_array(out)
            out = _output(x, kind, out)
            target = _spec(out, "output 0")
        try:
            params = _affine_params(ops_affine_quant.Params, ops_affine_quant.AxisParams,
                                    ops_affine_quant.BlockParams, axis, block_size, multiplier, zero_point, rounding)
        except ValueError as exc:
            plan = Error(ErrorCode.INVALID_PARAMS, str(exc))
        else:
            plan = a65.affine_quant.check_inference(ops_affine_quant.Request([_spec(x, "input 0")], [target],
                                                                             params))
        if key is not None:
            _remember(key, plan)
    elif type(plan) is Error:
        raise KernelError(plan)
    elif out is None:
        out = (Packed.wrap(_zeros(plan._spans[1], _UINT8), plan.shared.admitted.outputs[0].dtype, x.shape)
               if plan._native.packed else _empty(x.shape, plan._dtypes[1]))
    if type(out) is Packed:
        _execute_packed(plan, x, out.data, 1)
        return out
    return _execute(plan, x, out, workers)


_zeros, _UINT8 = np.zeros, np.dtype(np.uint8)


def _packed_out(x: np.ndarray, kind: DType, out: Any) -> Packed:
    if out is None:
        return Packed.empty(x.shape, kind)
    if type(out) is not Packed:
        raise KernelError(Error(ErrorCode.INVALID_BINDING, f"output 0: packed output needs out= an sk.Packed, got "
                                                           f"{describe(out)} ({type_name(out)})"))
    if out.dtype is not kind or out.shape != x.shape:
        raise KernelError(Error(ErrorCode.INVALID_SHAPE if out.shape != x.shape else ErrorCode.UNSUPPORTED_DTYPE,
                                f"output 0: out is a Packed {out.dtype.name} of shape {out.shape}, expected "
                                f"{kind.name} of shape {x.shape}"))
    if not out.data.flags.writeable:
        raise KernelError(Error(ErrorCode.INVALID_BINDING, "output 0: out.data is read-only, a writable array is "
                                                           "required"))
    return out


def _affine_dequantize(x: Any, scale: Any, zero_point: Any, axis: Any, block_size: Any, dtype: Any, out: Any,
                       workers: Any) -> np.ndarray:
    """dequantize of another type than INT8, or of an sk.Packed; the plan
    key first, as :func:`_affine_quantize`."""
    if not (out is None or isinstance(out, np.ndarray)):  # a DLPack array: written in place, returned
        _affine_dequantize(x, scale, zero_point, axis, block_size, dtype, _out_array(out), workers)
        return typing.cast(np.ndarray, out)
    packed = type(x) is Packed
    data = x.data if packed else x
    key: Optional[Tuple[Any, ...]] = ("affine-dequant", packed, x.shape, x.dtype if packed else (x.strides, x.dtype),
           dtype if dtype is None or type(dtype) is str else _param_key(dtype),
           None if out is None else (out.shape, out.strides, out.dtype)) + _affine_key(
        scale, zero_point, axis, block_size)
    try:
        plan = _PLANS.get(key)
    except TypeError:  # unhashable parameters: never cached
        key, plan = None, None
    if plan is None:
        if dtype is None:  # out's dtype, else FLOAT32
            dtype = DType.FLOAT32 if out is None else _FROM_NUMPY.get(out.dtype, DType.FLOAT32)
        result = _output(np.empty(x.shape, np.uint8) if packed else x, to_dtype(dtype), out)
        source = TensorSpec(x.shape, x.dtype, Contiguous()) if packed else _spec(x, "input 0")
        params = _affine_params(ops_affine_dequant.Params, ops_affine_dequant.AxisParams,
                                ops_affine_dequant.BlockParams, axis, block_size, scale, zero_point)
        plan = a65.affine_dequant.check_inference(ops_affine_dequant.Request([source], [_spec(result, "output 0")],
                                                                             params))
        if key is not None:
            _remember(key, plan)
    elif type(plan) is Error:
        raise KernelError(plan)
    else:
        result = _empty(x.shape, plan._dtypes[1]) if out is None else out
    if packed:
        _execute_packed(plan, data, result, 0)
        return result
    return _execute(plan, typing.cast(np.ndarray, x), result, workers)


def _execute_packed(plan: Any, x: np.ndarray, y: np.ndarray, port: int) -> None:
    """:func:`simakernels.a65._backend.execute_packed`, raising its Error."""
    error = _backend.execute_packed(plan, x, y, port)
    if error is not None:
        raise KernelError(error)
