"""Pieces every operation's backend-neutral module shares: the request shape
and the shared plan (admitted metadata and storage requirements)."""
from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Optional, Sequence, Tuple, Type, TypeVar, Union

import numpy as np

from .. import _binary32, _rules
from ..admission import Admitted, DTypeRule, admit_elementwise
from ..core import Error, ErrorCode, KernelError, Requirement, TensorSpec, describe, type_name


def _specs(specs: Sequence[TensorSpec], role: str) -> Tuple[TensorSpec, ...]:
    items = tuple(specs)
    for i, spec in enumerate(items):
        if not isinstance(spec, TensorSpec):
            raise TypeError(f"{role} {i} must be a simakernels.TensorSpec, got {describe(spec)}")
    return items


@dataclass(frozen=True)
class RequestBase:
    """Input and output specs (any count: admission checks arity) and the
    operation's parameters.  ``inputs`` and ``outputs`` take any sequence of
    :class:`TensorSpec` and are stored as tuples."""

    inputs: Sequence[TensorSpec]
    outputs: Sequence[TensorSpec]
    params: Any

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", _specs(self.inputs, "input"))
        object.__setattr__(self, "outputs", _specs(self.outputs, "output"))


@dataclass(frozen=True)
class SharedPlan:
    """An admitted request: immutable, reusable, safe to share."""

    request: Any
    admitted: Admitted

    @property
    def params(self) -> Any:
        return self.request.params

    @property
    def shape(self) -> Tuple[int, ...]:
        return self.admitted.shape

    @property
    def count(self) -> int:
        """Logical element count (1 for a scalar, 0 for an empty tensor)."""
        return self.admitted.count

    @property
    def empty(self) -> bool:
        return self.admitted.empty

    def input_requirements(self) -> Tuple[Requirement, ...]:
        return tuple(p.requirement for p in self.admitted.inputs)

    def output_requirements(self) -> Tuple[Requirement, ...]:
        return tuple(p.requirement for p in self.admitted.outputs)

    def __reduce__(self) -> Tuple[Any, ...]:
        """Pickled as its request; loading admits it again, so the admitted
        metadata (which drives the native walk) never comes unchecked from
        a pickle, nor from another version's admission."""
        return _readmit, (type(self).__module__, self.request)


_PlanT = TypeVar("_PlanT", bound=SharedPlan)
ParamsCheck = Callable[[Any, Tuple[int, ...]], Optional[Error]]


def admit(operation: str, request: Any, request_type: Type[Any], plan_type: Type[_PlanT], dtype_rule: DTypeRule,
          supported: str, check_params: ParamsCheck) -> Union[_PlanT, Error]:
    """The admission every operation's ``check_inference`` makes: the
    request's type, the ports (:func:`~simakernels.admission.admit_elementwise`),
    then the parameters against the admitted shape."""
    if not isinstance(request, request_type):
        return Error(
            ErrorCode.INVALID_OPERATION,
            f"{operation}.check_inference takes a {operation}.Request, got {type_name(request)}",
        )
    admitted = admit_elementwise(operation, request.inputs, request.outputs, dtype_rule, supported)
    if isinstance(admitted, Error):
        return admitted
    error = check_params(request.params, admitted.shape)
    if error is not None:
        return error
    return plan_type(request, admitted)


def _readmit(module: str, request: Any) -> SharedPlan:
    """``check_inference(request)`` of the operation module that made a
    pickled plan (``simakernels.ops.<operation>``); KernelError if refused."""
    plan = importlib.import_module(module).check_inference(request)
    if isinstance(plan, Error):
        raise KernelError(plan)
    assert isinstance(plan, SharedPlan)
    return plan


@dataclass(frozen=True)
class Rules:
    """An operation's parameter rules: its name in messages, the C core's
    rule set (:data:`simakernels._rules.Code`) and what a scale or
    multiplier must be, in words."""

    name: str
    code: _rules.Code
    value: str = "finite and > 0"


_OPERATION = {"dequant": Rules("dequant", _rules.DEQUANT), "quant": Rules("quant", _rules.QUANT)}


def rules_of(operation: Union[str, Rules]) -> Rules:
    """The rules of an operation named "quant" or "dequant", or given."""
    return operation if isinstance(operation, Rules) else _OPERATION[operation]


class AffineParams:
    """What Dequant's and Quant's per-tensor ``Params`` share: the value
    (scale or multiplier) in the field ``VALUE`` names, its binary32 bits in
    ``BITS``, and a zero point."""

    VALUE: ClassVar[str]
    BITS: ClassVar[str]

    def __post_init__(self) -> None:
        store_value(self)


class AffineAxisParams:
    """What Dequant's and Quant's ``AxisParams`` share: the values in the
    field ``VALUES`` names, their binary32 bits in ``BITS``, zero points."""

    VALUES: ClassVar[str]
    BITS: ClassVar[str]

    def __post_init__(self) -> None:
        store_vector(self)


class AffineBlockParams:
    """What Dequant's and Quant's ``BlockParams`` share: the values in the
    field ``VALUES`` names, their binary32 bits in ``BITS`` (arrays of the
    parameters' shape), zero points."""

    VALUES: ClassVar[str]
    BITS: ClassVar[str]

    def __post_init__(self) -> None:
        store_blocks(self)


def store_value(params: Any) -> None:
    """A per-tensor Params' ``__post_init__``: the value (scale or
    multiplier, the field ``VALUE`` names) stored as binary32 with its bits
    (``BITS``), the zero point as an int.  A value that is not a real number
    is kept as given (bits 0), for admission to refuse with a message naming it."""
    value_name, bits_name = params.VALUE, params.BITS
    value = getattr(params, value_name)
    real = _binary32.is_real(value)
    object.__setattr__(params, bits_name, _binary32.bits_of(value) if real else 0)
    if real:
        object.__setattr__(params, value_name, _binary32.from_bits(getattr(params, bits_name)))
    object.__setattr__(params, "zero_point", _binary32.as_int(params.zero_point))


def check_affine_or_axis(params: Any, shape: Tuple[int, ...] = (), *, operation: Union[str, Rules],
                         params_type: Type[Any],
                         axis_type: Type[Any], block_type: Type[Any]) -> Optional[Error]:
    """Dequant's and Quant's parameter rules: per-axis ones (``axis_type``)
    or blocked ones (``block_type``) against the tensor's ``shape``, else the
    per-tensor ones (``params_type``; each names its value field ``VALUE`` or
    ``VALUES`` and its bits ``BITS``)."""
    if isinstance(params, block_type):
        return check_block_params(params, shape, block_type.VALUES, getattr(params, block_type.BITS),
                                  params.zero_points, operation)
    if isinstance(params, axis_type):
        return check_axis_params(params, shape, axis_type.VALUES, getattr(params, axis_type.BITS),
                                 params.zero_points, operation)
    bits = getattr(params, params_type.BITS) if isinstance(params, params_type) else 0
    return check_affine_params(params, params_type, operation, params_type.VALUE, bits)


def check_affine_params(params: Any, params_type: Type[Any], operation: Union[str, Rules], value_name: str,
                        bits: int) -> Optional[Error]:
    """The parameter rules Dequant and Quant share: a binary32 value (scale or
    multiplier, by its bits) finite and > 0, and an integer zero point in
    the operation's range (``operation``: "dequant" or "quant"; the C
    core's rules, worded here)."""
    rules = rules_of(operation)
    name = rules.name
    if not isinstance(params, params_type):
        return Error(ErrorCode.INVALID_PARAMS,
                     f"params must be {name}.Params, {name}.AxisParams or {name}.BlockParams, "
                     f"got {describe(params)}")
    value = getattr(params, value_name)
    if isinstance(value, (np.ndarray, list, tuple)) and np.ndim(value) >= 1:
        return Error(ErrorCode.INVALID_PARAMS,
                     f"{value_name} is a sequence of {len(value)} values ({type(value).__name__}): one value per "
                     f"index along an axis needs axis= (the array functions) or {name}.AxisParams")
    if not _binary32.is_real(value):
        return Error(ErrorCode.INVALID_PARAMS,
                     f"{value_name} {describe(value)} ({type(value).__name__}) must be {_binary32.REAL_NUMBER}")
    code, zp = rules.code, params.zero_point
    integer = isinstance(zp, int) and not isinstance(zp, bool)
    fault = _rules.params(code, (bits,), (zp,) if integer else ())
    if fault is not None and fault[0] in _VALUE_RULES:
        return Error(
            ErrorCode.INVALID_PARAMS,
            f"{value_name} {_binary32.text(bits)} as binary32 (bits {bits:#010x}) "
            f"must be {rules.value}",
        )
    if fault is not None or not integer:
        low, high = _rules.zero_point_range(code)
        return Error(ErrorCode.INVALID_PARAMS, f"zero_point {describe(zp)} must be an integer in [{low}, {high}]")
    return None


# ---- Per-axis parameters -------------------------------------------------
# What Dequant's and Quant's AxisParams share: their values are held as
# read-only copies (a plan owns its parameters), converted once; admission
# checks them against the tensor's shape and names the entry at fault.

def binary32_vector(values: Any) -> Any:
    """``values`` (a 1-D sequence of real numbers) as a read-only uint32
    array of their binary32 bits, rounded nearest-even as
    :func:`_binary32.bits_of` rounds; anything else as given (a tuple for
    sequences), for admission to refuse with the entry at fault."""
    converted = _binary32.bits_of_array(values) if isinstance(values, np.ndarray) and values.ndim == 1 else None
    if converted is None:
        if isinstance(values, (str, bytes)):
            return values
        try:
            entries = tuple(values)
        except TypeError:
            return values
        if isinstance(values, np.ndarray) and values.ndim != 1:
            return values.copy()
        converted = _entry_bits(entries)
        if converted is None:
            return entries if not isinstance(values, np.ndarray) else values.copy()
    converted.flags.writeable = False
    return converted


def _entry_bits(entries: Any) -> Optional[np.ndarray]:
    """The binary32 bits of a sequence (or object array) of real numbers,
    entry by entry (:func:`_binary32.bits_of`); None when one is not a real
    number."""
    flat = list(entries.reshape(-1)) if isinstance(entries, np.ndarray) else entries
    if not all(_binary32.is_real(v) for v in flat):
        return None
    bits = np.array([_binary32.bits_of(v) for v in flat], dtype=np.uint32)
    return bits.reshape(entries.shape) if isinstance(entries, np.ndarray) else bits


def _store(params: Any, to_bits: Callable[[Any], Any], to_integers: Callable[[Any], Any]) -> None:
    """Sets the values' (field ``VALUES``) binary32 bits (``BITS``) as
    ``to_bits`` converts them, the values as the bits' float32 view when
    they all are real numbers, and the zero points as ``to_integers`` holds
    them."""
    values_name = params.VALUES
    bits = to_bits(getattr(params, values_name))
    object.__setattr__(params, params.BITS, bits)
    if isinstance(bits, np.ndarray) and bits.dtype == np.uint32:
        object.__setattr__(params, values_name, bits.view(np.float32))
    object.__setattr__(params, "zero_points", to_integers(params.zero_points))


def store_vector(params: Any) -> None:
    """An AxisParams' ``__post_init__``: the values' (field ``VALUES``)
    binary32 bits (``BITS``), and the values as float32 when they all are
    real numbers; the zero points as :func:`integer_vector` holds them."""
    _store(params, binary32_vector, integer_vector)


def rows(params: Any, rank: int, start: int, stop: int) -> Any:
    """The parameters of rows ``start:stop`` of the outermost axis: per-axis
    values along that axis (an AxisParams names its values field ``VALUES``)
    sliced, blocked ones (a ``block_size``) sliced along it too (by blocks
    when it is the block axis: ``start`` is then a multiple of the block
    size, :func:`row_unit`), anything else as it is."""
    values_name = getattr(params, "VALUES", None)
    block = getattr(params, "block_size", None)
    if values_name is None or (block is None and params.axis % rank):
        return params
    if block is not None and params.axis % rank == 0:
        assert start % block == 0, "slabs of the block axis start at a block"
        start, stop = start // block, -(-stop // block)
    zero_points = params.zero_points
    return dataclasses.replace(params, **{values_name: getattr(params, values_name)[start:stop]},
                               zero_points=zero_points if type(zero_points) is int else zero_points[start:stop])


def row_unit(params: Any, rank: int) -> int:
    """The rows of the outermost axis a slab must hold a multiple of (but
    for the last): the block size when it is the block axis, else 1."""
    block = getattr(params, "block_size", None)
    return block if block is not None and rank and params.axis % rank == 0 else 1


def integer_vector(values: Any) -> Any:
    """Zero points: an integer (shared by every channel) as ``int``, a 1-D
    sequence of integers as a read-only int64 array; anything else as given
    (a tuple for sequences), for admission to refuse."""
    def integer(v: Any) -> Any:  # a bool is not an integer zero point
        return v if isinstance(v, (bool, np.bool_)) else _binary32.as_int(v)

    if not (isinstance(values, np.ndarray) and values.ndim):
        single = integer(values)
        if isinstance(single, int) and not isinstance(single, bool):
            return single
    if isinstance(values, (str, bytes)):
        return values
    try:
        entries = tuple(integer(v) for v in values)
    except TypeError:
        return values
    if isinstance(values, np.ndarray) and values.ndim != 1:
        return values.copy()
    if not all(type(v) is int and -(1 << 63) <= v < (1 << 63) for v in entries):
        return entries
    array = np.array(entries, dtype=np.int64)
    array.flags.writeable = False
    return array


def check_axis(axis: Any, shape: Tuple[int, ...]) -> Union[int, Error]:
    """The channel axis as a non-negative index of ``shape``, or the Error."""
    rank = len(shape)
    if isinstance(axis, (bool, np.bool_)) or not hasattr(axis, "__index__"):
        return Error(ErrorCode.INVALID_PARAMS, f"axis {describe(axis)} ({type(axis).__name__}) must be an integer")
    index: int = axis.__index__()
    if not -rank <= index < rank:
        valid = f"valid: {-rank} to {rank - 1}" if rank else "a rank-0 tensor has no axis; use Params"
        return Error(ErrorCode.INVALID_PARAMS, f"axis {index} is outside the rank {rank} of shape {shape} ({valid})")
    return index % rank


def check_axis_params(params: Any, shape: Tuple[int, ...], values_name: str, bits: Any,
                      zero_points: Any, operation: Union[str, Rules]) -> Optional[Error]:
    """Per-axis rules: an axis of the shape; one binary32 value (finite,
    > 0) per index along it; an integer zero point in the operation's range,
    or one per index."""
    axis = check_axis(params.axis, shape)
    if isinstance(axis, Error):
        return axis
    channels = shape[axis]
    where = f"axis {params.axis} of shape {shape} has {channels}"
    if not isinstance(bits, np.ndarray) or bits.dtype != np.uint32:
        entries = bits if isinstance(bits, tuple) else None
        if isinstance(bits, np.ndarray) and bits.ndim == 1:  # 1-D: the dtype is at fault
            return Error(ErrorCode.INVALID_PARAMS, f"{values_name}: an array of dtype {bits.dtype} "
                                                   f"({describe(bits)}); the entries must be real numbers "
                                                   f"(an integer or floating dtype, not bool)")
        if entries is None:
            got = type_name(bits) + (f" of shape {bits.shape}" if isinstance(bits, np.ndarray) else "")
            return Error(ErrorCode.INVALID_PARAMS, f"{values_name} must be a 1-D sequence of real numbers, "
                                                   f"got {got}")
        for i, v in enumerate(entries):
            if not _binary32.is_real(v):
                return Error(ErrorCode.INVALID_PARAMS,
                             f"{values_name}[{i}] {describe(v)} ({type(v).__name__}) must be {_binary32.REAL_NUMBER}")
    if len(bits) != channels:
        return _length_error(values_name, len(bits), where)
    rules = rules_of(operation)
    code = rules.code
    low, high = _rules.zero_point_range(code)
    error = _value_fault(values_name, bits, rules)
    if error is not None or type(zero_points) is int:
        return error or _shared_zero_point_fault(zero_points, code)
    if not isinstance(zero_points, (np.ndarray, tuple)) or (isinstance(zero_points, np.ndarray)
                                                           and zero_points.ndim != 1):
        return Error(ErrorCode.INVALID_PARAMS, f"zero_points must be an integer or a 1-D sequence of integers, "
                                               f"got {type_name(zero_points)}")
    if len(zero_points) != channels:
        return _length_error("zero_points", len(zero_points), where)
    fault = _rules.params(code, (), zero_points)
    if fault is not None:
        i, z = fault[1], (zero_points.tolist() if isinstance(zero_points, np.ndarray) else zero_points)[fault[1]]
        return Error(ErrorCode.INVALID_PARAMS,
                     f"zero_points[{i}] {describe(z)} must be an integer in [{low}, {high}]")
    return None


# The rules a scale or multiplier can break (by the operation: > 0, or nonzero).
_VALUE_RULES = frozenset({_rules.NOT_FINITE_POSITIVE, _rules.NOT_FINITE_NONZERO})


def _value_fault(values_name: str, bits: np.ndarray, rules: Rules) -> Optional[Error]:
    """The first value (binary32 bits, any shape) the C rules refuse, named
    by its index (a tuple index for more than one axis), value and bits."""
    fault = _rules.params(rules.code, bits.reshape(-1))
    if fault is None:
        return None
    b = int(bits.reshape(-1)[fault[1]])
    return Error(ErrorCode.INVALID_PARAMS, f"{values_name}[{_index_text(fault[1], bits.shape)}] {_binary32.text(b)} "
                                           f"as binary32 (bits {b:#010x}) must be {rules.value}")


def _shared_zero_point_fault(zero_point: int, code: _rules.Code) -> Optional[Error]:
    if _rules.params(code, (), (zero_point,)) is None:
        return None
    low, high = _rules.zero_point_range(code)
    return Error(ErrorCode.INVALID_PARAMS, f"zero_points {describe(zero_point)} must be an integer in [{low}, {high}]")


def _index_text(flat: int, shape: Tuple[int, ...]) -> str:
    """``i`` or ``i, j, ...``: the index of the entry at C-order position
    ``flat`` of an array of ``shape``."""
    return ", ".join(str(int(i)) for i in np.unravel_index(flat, shape)) if shape else ""


def _length_error(name: str, length: int, where: str) -> Error:
    return Error(ErrorCode.INVALID_PARAMS, f"{name} has {length} entries, but {where}")


# ---- Blocked parameters --------------------------------------------------
# BlockParams hold arrays of the parameters' shape (the tensor's, with
# ceil(extent / block_size) along the block axis): read-only copies,
# converted once (vectorised for binary32, binary64 and integer arrays);
# admission checks them against the tensor's shape and names the entry at
# fault by its index into the parameter array.

def store_blocks(params: Any) -> None:
    """A BlockParams' ``__post_init__``: the values' (field ``VALUES``)
    binary32 bits (``BITS``) as a read-only uint32 array of their shape, and
    the values as its float32 view, when they all are real numbers (else as
    :func:`binary32_array` keeps them); the zero points as
    :func:`integer_array` holds them."""
    _store(params, binary32_array, integer_array)
    object.__setattr__(params, "block_size", _binary32.as_int(params.block_size))  # NumPy integers as int


def _object_array(values: Any) -> Optional[np.ndarray]:
    """A nested sequence (or an array) of at least one axis as an array of
    its entries (an object array for sequences), or None (a scalar, a
    string, a ragged nesting)."""
    if isinstance(values, np.ndarray):
        return values if values.ndim else None
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        return None
    try:
        array = np.array(values, dtype=object)
    except (TypeError, ValueError):
        return None
    if not array.ndim or any(isinstance(v, (list, tuple, np.ndarray)) for v in array.reshape(-1)[:1]):
        return None  # ragged: NumPy kept the rows as objects
    return array


def binary32_array(values: Any) -> Any:
    """``values`` (an array, or nested sequences, of real numbers with at
    least one axis) as a read-only uint32 array of their binary32 bits,
    rounded as :func:`_binary32.bits_of` rounds; anything else as given, or
    a read-only array of its entries (for admission to name the entry at
    fault)."""
    array = _object_array(values)
    if array is None:
        return values
    bits = _binary32.bits_of_array(array) if array.dtype != object else None
    if bits is None:
        bits = _entry_bits(array)
    if bits is None:
        kept = array.copy()
        kept.flags.writeable = False
        return kept
    bits.flags.writeable = False
    return bits


_INT64 = np.iinfo(np.int64)


def integer_array(values: Any) -> Any:
    """Blocked zero points: one integer (shared by every block) as ``int``;
    an array or nested sequences of integers as a read-only int64 array of
    its shape; anything else as given, or a read-only array of its entries
    (for admission to name the entry at fault)."""
    single = integer_vector(values) if not isinstance(values, (list, tuple, np.ndarray)) else None
    if type(single) is int:
        return single
    array = _object_array(values)
    if array is None:
        return values
    if array.dtype.kind in "iu" and (not array.size or int(array.max()) <= _INT64.max):
        kept = array.astype(np.int64)
    elif array.dtype == object and all(type(v) is int or (isinstance(v, np.integer) and not isinstance(v, np.bool_))
                                       for v in array.reshape(-1)) and all(
            _INT64.min <= int(v) <= _INT64.max for v in array.reshape(-1)):
        kept = array.astype(np.int64)
    else:
        kept = array.copy()
    kept.flags.writeable = False
    return kept


def blocked_shape(shape: Tuple[int, ...], axis: int, block_size: int) -> Tuple[int, ...]:
    """The parameters' shape: ``shape`` with ``ceil(shape[axis] /
    block_size)`` along the (normalized) ``axis``."""
    return tuple(-(-e // block_size) if a == axis else e for a, e in enumerate(shape))


def check_block_size(block_size: Any, axis: Any) -> Union[int, Error]:
    """``block_size`` as an int >= 1, or the Error naming it (and ``axis``,
    as given)."""
    if isinstance(block_size, (bool, np.bool_)) or not hasattr(block_size, "__index__") \
            or block_size.__index__() < 1:
        return Error(ErrorCode.INVALID_PARAMS, f"block_size {describe(block_size)} ({type(block_size).__name__}) "
                                               f"must be a positive integer (elements per block along axis {axis})")
    return int(block_size.__index__())


def check_block_params(params: Any, shape: Tuple[int, ...], values_name: str, bits: Any,
                       zero_points: Any, operation: Union[str, Rules]) -> Optional[Error]:
    """Blocked rules: an axis of the shape; a positive integer block size;
    an array of the parameters' shape (:func:`blocked_shape`) of binary32
    values (finite, > 0); an integer zero point in the operation's range,
    or an array of them of the same shape."""
    axis = check_axis(params.axis, shape)
    if isinstance(axis, Error):
        return axis
    block = check_block_size(params.block_size, params.axis)
    if isinstance(block, Error):
        return block
    expected = blocked_shape(shape, axis, block)
    where = (f"axis {params.axis} of shape {shape} in blocks of {block} gives parameters of shape {expected} "
             f"({expected[axis]} along the axis)")
    rules = rules_of(operation)
    code = rules.code
    if not isinstance(bits, np.ndarray) or bits.dtype != np.uint32:
        if isinstance(bits, np.ndarray) and bits.dtype != object:  # the dtype is at fault
            return Error(ErrorCode.INVALID_PARAMS, f"{values_name}: an array of dtype {bits.dtype} "
                                                   f"({describe(bits)}); the entries must be real numbers "
                                                   f"(an integer or floating dtype, not bool)")
        if not isinstance(bits, np.ndarray):
            return Error(ErrorCode.INVALID_PARAMS, f"{values_name} must be an array of real numbers of shape "
                                                   f"{expected}, got {describe(bits)} ({type_name(bits)}): {where}")
        flat = bits.reshape(-1)
        for i, v in enumerate(flat):
            if not _binary32.is_real(v):
                return Error(ErrorCode.INVALID_PARAMS, f"{values_name}[{_index_text(i, bits.shape)}] {describe(v)} "
                                                       f"({type(v).__name__}) must be {_binary32.REAL_NUMBER}")
    if bits.shape != expected:
        return Error(ErrorCode.INVALID_PARAMS, f"{values_name} has shape {bits.shape}, expected {expected}: {where}")
    error = _value_fault(values_name, bits, rules)
    if error is not None or type(zero_points) is int:
        return error or _shared_zero_point_fault(zero_points, code)
    low, high = _rules.zero_point_range(code)
    if not isinstance(zero_points, np.ndarray):
        return Error(ErrorCode.INVALID_PARAMS, f"zero_points must be an integer or an array of integers of shape "
                                               f"{expected}, got {describe(zero_points)} ({type_name(zero_points)})")
    if zero_points.shape != expected:
        return Error(ErrorCode.INVALID_PARAMS, f"zero_points has shape {zero_points.shape}, expected {expected}: "
                                               f"{where}")
    if zero_points.dtype == np.int64:
        fault = _rules.params(code, (), zero_points.reshape(-1))
        at = None if fault is None else fault[1]
    else:
        at = next((i for i, z in enumerate(zero_points.reshape(-1))
                  if not (isinstance(z, (int, np.integer)) and not isinstance(z, (bool, np.bool_))
                          and low <= int(z) <= high)), None)
    if at is None:
        return None
    z = zero_points.reshape(-1)[at]
    z = z.item() if isinstance(z, np.generic) else z
    return Error(ErrorCode.INVALID_PARAMS, f"zero_points[{_index_text(at, zero_points.shape)}] {describe(z)} must "
                                           f"be an integer in [{low}, {high}]")


def describe_vector(bits: Any) -> str:
    """A short form (bounded, whatever the size) of per-axis or blocked
    values (their binary32 bits) or zero points for reprs."""
    if isinstance(bits, np.ndarray) and bits.dtype == np.uint32:
        return np.array2string(bits.view(np.float32), threshold=8, edgeitems=2, separator=", ")
    if isinstance(bits, np.ndarray):
        return np.array2string(bits, threshold=8, edgeitems=2, separator=", ")
    return repr(bits)
