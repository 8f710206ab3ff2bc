"""What every A65 operation shares: the backend plan (route, prepared native
struct), its entry points (prepare, check_inference, execute) and the
execute sequence (bind, check, one native call)."""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import cast as typing_cast
from typing import Any, Callable, Dict, FrozenSet, Optional, Protocol, Sequence, Tuple, Type, TypeVar, Union

import numpy as np

from .. import _routes, storage
from .._ffi import ffi, lib
from ..admission import Admitted, rows
from ..buffers import BufferLike, ConstHostBuffer, HostBuffer, bind
from ..core import Error, ErrorCode, KernelError, Requirement, type_name
from ..fenv import describe_unmet, in_default_state
from ..ops import _base
from ..ops._base import SharedPlan

NativeExecute = Callable[[Any, Any, int, Any, int], int]


@dataclass(frozen=True, eq=False)
class BackendPlan:
    """An A65 plan: the shared plan plus the route chosen at preparation.
    Immutable, reusable with new buffers and safe to share between threads."""

    shared: SharedPlan
    route: str
    _native: Any = field(repr=False)
    _fenv_needs: int = field(repr=False)
    # The array dtypes the fast path binds without asking (storage.accepted);
    # any other array goes through bind(), which applies the storage rule.
    _storage: Tuple[FrozenSet[Any], FrozenSet[Any]] = field(repr=False)
    _dtypes: Tuple[Any, Any] = field(repr=False)  # the ports' own NumPy dtypes
    _operation: str = field(repr=False)
    _run: NativeExecute = field(repr=False)  # sk_<operation>_execute
    # Both ports C-contiguous: an array of the plan's layout is its own
    # binding; else the array layer binds its first element and the span.
    _dense: bool = field(repr=False)
    _spans: Tuple[int, int] = field(repr=False)  # the bytes each port's binding covers
    _first: Tuple[Any, ...] = field(repr=False)  # the index of an array's first element, as a 1-element view
    _workspace: Any = field(default=None, repr=False)  # per-axis plans: the memory _native points into
    # Plans of rows of the outermost axis (workers=N), made once from this one.
    _slabs: Dict[Tuple[int, int], "BackendPlan"] = field(default_factory=dict, repr=False)

    @property
    def shape(self) -> Tuple[int, ...]:
        return self.shared.shape

    def input_requirements(self) -> Tuple[Requirement, ...]:
        return self.shared.input_requirements()

    def output_requirements(self) -> Tuple[Requirement, ...]:
        return self.shared.output_requirements()

    def __reduce__(self) -> Tuple[Any, ...]:
        """Pickled as its shared plan and route name; loading prepares the
        native plan again (the native struct is process memory) on the
        same route, and raises KernelError if the loading machine lacks it."""
        return _unpickle, (type(self).__module__, self.shared, self.route)


def _unpickle(module: str, shared: SharedPlan, route: str) -> BackendPlan:
    """A pickled plan's ``prepare(shared, route)`` in its operation module
    (``simakernels.a65.<operation>``)."""
    plan = importlib.import_module(module).prepare(shared, route)
    if isinstance(plan, Error):
        if plan.code is ErrorCode.UNSUPPORTED_ENVIRONMENT:  # the route is not available here
            plan = Error(ErrorCode.UNSUPPORTED_ENVIRONMENT,
                         f"loading a pickled {module.rsplit('.', 1)[-1]} plan: {plan.message}")
        raise KernelError(plan)
    assert isinstance(plan, BackendPlan)
    return plan


_SharedT = TypeVar("_SharedT", bound=SharedPlan)
_PlanT = TypeVar("_PlanT", bound=BackendPlan)
_PlanT_co = TypeVar("_PlanT_co", bound=BackendPlan, covariant=True)
_PlanT_contra = TypeVar("_PlanT_contra", bound=BackendPlan, contravariant=True)


def _prepare(
    shared: object,
    shared_type: Type[_SharedT],
    plan_type: Type[_PlanT],
    operation: str,
    route: Optional[str],
    native_type: str,
    fill: Callable[[Any, _SharedT], Any],
    native_execute: NativeExecute,
) -> Union[_PlanT, Error]:
    """The preparation every operation shares: check the shared plan's type,
    choose the route, fill the native plan (``fill`` sets the operation's own
    fields), bindings and walk.  Returns the backend plan or an Error."""
    if not isinstance(shared, shared_type):
        return Error(
            ErrorCode.INVALID_OPERATION,
            f"{operation}.prepare takes an ops.{operation}.Plan, got {type_name(shared)}",
        )
    chosen = _routes.choose(route)
    if isinstance(chosen, Error):
        return chosen
    native = ffi.new(native_type)
    native.route = chosen[1]
    workspace = fill(native, shared)
    prepare_native(native, shared.admitted)
    native_prepare = _NATIVE_PREPARE.get(operation)
    if native_prepare is not None:  # after the walk: per-axis plans read it
        prepared(native, native_prepare(native), operation)
    admitted = shared.admitted
    (src,), (dst,) = admitted.inputs, admitted.outputs
    dtypes = (storage.NUMPY[src.dtype], storage.NUMPY[dst.dtype])
    rank = len(admitted.shape)
    first = (0,) * (rank - 1) + (slice(0, 1),) if rank else ()
    return plan_type(shared, chosen[0], native, lib.sk_operation_fenv_needs(_OPERATION[operation]),
                     (storage.accepted(src.dtype), storage.accepted(dst.dtype)), dtypes, operation, native_execute,
                     src.c_contiguous and dst.c_contiguous, (src.nbytes, dst.nbytes), first, workspace)


class Prepare(Protocol[_PlanT_co]):
    """The signature of ``sk.a65.<operation>.prepare``."""

    def __call__(self, shared: Any, route: Optional[str] = None) -> Union[_PlanT_co, Error]: ...


class CheckInference(Protocol[_PlanT_co]):
    """The signature of ``sk.a65.<operation>.check_inference``."""

    def __call__(self, request: Any, route: Optional[str] = None) -> Union[_PlanT_co, Error]: ...


def entry_points(plan_type: Type[_PlanT], operation: str, ops_module: Any, native_type: str,
                 fill: Callable[[Any, Any], Any], native_execute: NativeExecute, summary: str,
                 execute_doc: str) -> Tuple[Prepare[_PlanT], CheckInference[_PlanT], "Execute[_PlanT]"]:
    """An operation's ``prepare``, ``check_inference`` and ``execute``, the
    same for every operation but for its native plan (``fill`` sets its own
    fields) and its native entry."""
    module = f"simakernels.a65.{operation}"

    def prepare(shared: Any, route: Optional[str] = None) -> Union[_PlanT, Error]:
        return _prepare(shared, ops_module.Plan, plan_type, operation, route, native_type, fill, native_execute)

    @in_default_state
    def check_inference(request: Any, route: Optional[str] = None) -> Union[_PlanT, Error]:
        """Admission and preparation in one step."""
        shared = ops_module.check_inference(request)
        if isinstance(shared, Error):
            return shared
        return prepare(shared, route)

    prepare.__doc__ = f"""{summary}

    ``route`` names one of :func:`simakernels.a65.available_routes`; by default
    ``$SIMAKERNELS_FORCE_ROUTE`` or the best route.  No re-admission."""
    execute = make_execute(plan_type, operation, native_execute, execute_doc)
    named: Tuple[Tuple[Any, str], ...] = ((prepare, "prepare"), (check_inference, "check_inference"),
                                          (execute, "execute"))
    for function, name in named:
        function.__module__, function.__qualname__, function.__name__ = module, name, name
    return prepare, check_inference, execute


def slab(plan: _PlanT, start: int, stop: int) -> _PlanT:
    """The plan of rows ``start:stop`` of ``plan``'s outermost axis, made
    once from its admission and route (no re-admission: the rows of an
    admitted layout keep its rules) and kept by it."""
    found = plan._slabs.get((start, stop))
    if found is not None:
        return typing_cast(_PlanT, found)
    shared = plan.shared
    admitted = rows(shared.admitted, stop - start)
    request = shared.request
    params = _base.rows(request.params, len(admitted.shape), start, stop)
    request = type(request)([p.spec for p in admitted.inputs], [p.spec for p in admitted.outputs], params)
    made = importlib.import_module(type(plan).__module__).prepare(type(shared)(request, admitted), plan.route)
    assert isinstance(made, type(plan))  # the route and the parameters were the parent's
    plan._slabs[(start, stop)] = made
    return made


# A per-axis plan's per-tensor value (scale or multiplier) is unused, or,
# for an empty tensor, never read: 1.0, which every check admits.
UNUSED_VALUE_BITS = 0x3F800000


def fill_params(native: Any, shared: SharedPlan, space_bytes: Callable[[Any], int]) -> Any:
    """Dequant's and Quant's parameters into ``native`` (its field for the
    value's bits is named as the Params' ``BITS``): per tensor the bits and
    the zero point, per axis :func:`fill_axis`, whose workspace is returned."""
    params = shared.params
    if hasattr(params, "VALUES") or _block_size(params) is not None:
        setattr(native, params.BITS, UNUSED_VALUE_BITS)
        return fill_axis(native, shared, getattr(params, params.BITS), params.zero_points, space_bytes)
    setattr(native, params.BITS, getattr(params, params.BITS))
    native.zero_point = (params.zero_point + (1 << 31)) % (1 << 32) - (1 << 31)  # UINT32's: its int32 bits
    return None


def _block_size(params: Any) -> Optional[int]:
    """A BlockParams' block size; None for per-tensor and per-axis parameters."""
    return getattr(params, "block_size", None)


def fill_axis(native: Any, shared: SharedPlan, bits: Any, zero_points: Any, space_bytes: Callable[[Any], int]) -> Any:
    """Per-axis or blocked parameters into ``native.axis`` before the native
    prepare: the normalized channel (block) axis, the block size (0 per
    axis), each channel's (entry's, in C order of the parameter shape)
    value bits and zero point, and a 16-byte aligned workspace of
    ``space_bytes(native)`` bytes, which is returned for the plan to keep
    (the native plan points into it).  An empty tensor stays per tensor:
    nothing will be computed."""
    shape = shared.shape
    if shared.empty:
        return None
    axis = shared.params.axis % len(shape)
    block = _block_size(shared.params)
    param_shape: Tuple[int, ...] = (shape[axis],) if block is None else _base.blocked_shape(shape, axis, block)
    count = int(np.prod(param_shape, dtype=np.int64))
    # (Kept by the returned tuple: a pointer field does not keep its cdata.)
    bits_in = ffi.from_buffer("uint32_t[]", np.ascontiguousarray(np.reshape(bits, -1), np.uint32))
    zero_points_in = ffi.from_buffer("int32_t[]", np.ascontiguousarray(
        np.broadcast_to(np.asarray(zero_points, np.int64), param_shape).reshape(-1), np.int32))
    native.axis.axis, native.axis.count, native.axis.block = axis, count, block or 0
    nbytes = space_bytes(native)
    raw = ffi.new("char[]", nbytes + 16)
    native.axis.bits, native.axis.zero_points = bits_in, zero_points_in
    native.axis.space = raw + (-int(ffi.cast("uintptr_t", raw)) & 15)
    native.axis.space_bytes = nbytes
    return raw, bits_in, zero_points_in


def prepared(native: Any, status: int, operation: str) -> None:
    """After the native prepare of an admitted plan: it must accept it; the
    per-axis input arrays were read (the native plan no longer points to them)."""
    if hasattr(native, "axis"):
        native.axis.bits = ffi.NULL
        native.axis.zero_points = ffi.NULL
    if status != lib.SK_OK:  # admission already proved the parameters
        raise AssertionError(f"sk_{operation}_prepare rejected an admitted plan: status {status}")


_OPERATION = {"cast": lib.SK_OP_CAST, "dequant": lib.SK_OP_DEQUANT, "quant": lib.SK_OP_QUANT,
              "affine_quant": lib.SK_OP_AFFINE_QUANT, "affine_dequant": lib.SK_OP_AFFINE_DEQUANT}
_NATIVE_PREPARE = {"cast": lib.sk_cast_prepare, "dequant": lib.sk_dequant_prepare, "quant": lib.sk_quant_prepare,
                   "affine_quant": lib.sk_affine_quant_prepare, "affine_dequant": lib.sk_affine_dequant_prepare}


def prepare_native(native: Any, admitted: Admitted) -> None:
    """Fills the binding requirements and the walk of a native plan struct
    (the walk stays empty, zero runs, for an empty tensor)."""
    (src,), (dst,) = admitted.inputs, admitted.outputs
    binding = native.binding
    binding.in_nbytes, binding.in_alignment = src.nbytes, src.dtype.itemsize
    binding.out_nbytes, binding.out_alignment = dst.nbytes, dst.dtype.itemsize
    if admitted.empty:
        return
    geometry = (
        len(admitted.shape),
        ffi.new("int64_t[]", list(admitted.shape) or [0]),
        ffi.new("int64_t[]", list(src.strides) or [0]),
        ffi.new("int64_t[]", list(dst.strides) or [0]),
        src.dtype.itemsize,
        dst.dtype.itemsize,
    )
    axis = native.axis if hasattr(native, "axis") else None
    if axis is not None and axis.count and axis.block:  # blocked plans: the block axis and size
        status = lib.sk_walk_prepare_blocked(*geometry, axis.axis, axis.block, ffi.addressof(native, "walk"))
    else:  # per-axis plans' channel axis
        status = lib.sk_walk_prepare(*geometry, axis.axis if axis is not None and axis.count else -1,
                                     ffi.addressof(native, "walk"))
    if status != lib.SK_OK:  # admission guarantees the walk's preconditions
        raise AssertionError(f"sk_walk_prepare rejected an admitted shape: status {status}")


def _status_error(status: int, operation: str, fenv_needs: int) -> Error:
    if status == lib.SK_UNSUPPORTED_ENVIRONMENT:
        detail = describe_unmet(lib.sk_fenv_unmet(fenv_needs))
        return Error(ErrorCode.UNSUPPORTED_ENVIRONMENT, f"{operation}: {detail}; nothing was written")
    return Error(ErrorCode(status), f"{operation}: the native core rejected the plan (status {status} "
                                    f"{ErrorCode(status).name})")


# The fast path's views (the array layer shares them).
_from_buffer = ffi.from_buffer
_CHAR_ARRAY = ffi.typeof("char[]")
_NOT_A_PLAIN_BUFFER = (TypeError, BufferError, ValueError)
_ndarray = np.ndarray


class Execute(Protocol[_PlanT_contra]):
    """The signature of ``sk.a65.<operation>.execute``."""

    def __call__(self, plan: _PlanT_contra, inputs: Sequence[BufferLike],
                 outputs: Sequence[BufferLike]) -> Optional[Error]: ...


def make_execute(plan_type: Type[_PlanT], operation: str, native_execute: NativeExecute, doc: str) -> Execute[_PlanT]:
    """An operation's ``execute(plan, inputs, outputs)``: binds, checks and
    runs one plan; returns None or the first Error, always before any output
    byte is written.

    The common case (one plain buffer per port) is one native call, which
    checks the bindings itself; when it refuses them, or a port is not a
    plain buffer, the Python checks of :func:`simakernels.buffers.bind` run
    and name the exact fault.  (Built per operation so that a small call
    costs one Python frame.)"""

    def execute(plan: _PlanT, inputs: Sequence[BufferLike], outputs: Sequence[BufferLike]) -> Optional[Error]:
        if type(plan) is plan_type:
            try:
                (src,), (dst,) = inputs, outputs
                native = plan._native
                src_dtype, dst_dtype = plan._dtypes
                if type(src) is _ndarray and type(dst) is _ndarray:
                    # Arrays of the ports' own dtypes: the common call, one
                    # native call.  Other storage dtypes take the general
                    # branch below; any other array goes to bind(), which
                    # names it.
                    if src.dtype is src_dtype and dst.dtype is dst_dtype:
                        src_ptr = _from_buffer(src)
                        dst_ptr = _from_buffer(_CHAR_ARRAY, dst, True)
                        status = native_execute(native, src_ptr, len(src_ptr), dst_ptr, len(dst_ptr))
                        if status == 0:
                            return None
                        return refused(plan, status, inputs, outputs)
                if type(src) is _ndarray:
                    if src.dtype not in plan._storage[0]:
                        raise TypeError
                    src_ptr = _from_buffer(src)
                    src_len = len(src_ptr)
                elif type(src) in _HOST_VIEWS:
                    src_ptr, src_len = src._ptr, src.nbytes
                else:
                    src_ptr = _from_buffer(src)
                    src_len = len(src_ptr)
                if type(dst) is _ndarray:
                    if dst.dtype not in plan._storage[1]:
                        raise TypeError
                    dst_ptr = _from_buffer(_CHAR_ARRAY, dst, True)
                    dst_len = len(dst_ptr)
                elif type(dst) is HostBuffer:
                    dst_ptr, dst_len = dst._ptr, dst.nbytes
                else:
                    dst_ptr = _from_buffer(_CHAR_ARRAY, dst, True)
                    dst_len = len(dst_ptr)
            except _NOT_A_PLAIN_BUFFER:
                pass
            else:
                # A host view has no pointer when its address or extent is out
                # of range: only the Python checks can describe that.
                if src_ptr is not None and dst_ptr is not None:
                    status = native_execute(native, src_ptr, src_len, dst_ptr, dst_len)
                    if status == 0:
                        return None
                    return refused(plan, status, inputs, outputs)
        return _execute_checked(plan, plan_type, operation, inputs, outputs, native_execute)

    execute.__doc__ = doc
    execute.__qualname__ = execute.__name__ = "execute"
    return execute


# The statuses of sk_binding_fault: the Python path names the fault.
_BINDING_FAULTS = frozenset({lib.SK_INVALID_BINDING, lib.SK_OVERFLOW})
_HOST_VIEWS = frozenset({ConstHostBuffer, HostBuffer})


def refused(plan: BackendPlan, status: Optional[int], inputs: Sequence[BufferLike],
            outputs: Sequence[BufferLike]) -> Optional[Error]:
    """After the one native call of ``plan`` returned ``status`` (None: no
    call, a binding was no plain buffer): a binding fault, or no call, goes
    to the Python checks, which name the fault; other statuses are worded."""
    if status is not None and status not in _BINDING_FAULTS:
        return _status_error(status, plan._operation, plan._fenv_needs)
    return _execute_checked(plan, type(plan), plan._operation, inputs, outputs, plan._run)


def _execute_checked(
    plan: object,
    plan_type: Type[BackendPlan],
    operation: str,
    inputs: Sequence[BufferLike],
    outputs: Sequence[BufferLike],
    native_execute: NativeExecute,
) -> Union[None, Error]:
    """``execute`` for calls the fast path could not take (arity, a port
    that is not a plain buffer or a host view) or that the native binding
    check refused: the Python checks name the fault."""
    if not isinstance(plan, plan_type):
        return Error(
            ErrorCode.INVALID_OPERATION,
            f"{operation}.execute takes an a65.{operation}.Plan, got {type_name(plan)}",
        )
    shared = plan.shared
    (src,), (dst,) = shared.admitted.inputs, shared.admitted.outputs
    bound = bind(inputs, outputs, shared.input_requirements(), shared.output_requirements(), (src.dtype, dst.dtype))
    if isinstance(bound, Error):
        return bound
    (src_view,), (dst_view,) = bound
    status = native_execute(plan._native, ffi.cast("void *", src_view.address), src_view.nbytes,
                            ffi.cast("void *", dst_view.address), dst_view.nbytes)
    if status == lib.SK_OK:
        return None
    return _status_error(status, operation, plan._fenv_needs)


def view_of(array: np.ndarray, nbytes: int, writable: bool) -> Any:
    """The array itself when it is contiguous (the native entry takes it
    directly); else a view of exactly the plan's accessed span."""
    if array.flags.c_contiguous:
        return array
    address = array.__array_interface__["data"][0]
    cls = HostBuffer if writable else ConstHostBuffer
    return cls.from_address(address, nbytes, keepalive=array)


def execute_packed(plan: Any, x: np.ndarray, y: np.ndarray, port: int) -> Optional[Error]:
    """Runs an affine plan whose port ``port`` (0: the input ``x``, 1: the
    output ``y``) is packed sub-byte storage, its bytes a C-contiguous uint8
    array; the other port an array of the plan's layout: one native call,
    or the Python checks naming the fault (None: done)."""
    if type(plan) is Error:
        return plan
    in_nbytes, out_nbytes = plan._spans
    arrays = [x, y]
    if not arrays[1 - port].flags.c_contiguous:  # bound by its first element and the span
        arrays[1 - port] = _getitem(arrays[1 - port], plan._first)
    try:
        src = _from_buffer(arrays[0])
        dst = _from_buffer(_CHAR_ARRAY, arrays[1], True)
        status = plan._run(plan._native, src, len(src) if arrays[0] is x else in_nbytes,
                           dst, len(dst) if arrays[1] is y else out_nbytes)
        if status == 0:
            return None
    except _NOT_A_PLAIN_BUFFER:
        status = None
    return refused(plan, status, [view_of(x, in_nbytes, False)], [view_of(y, out_nbytes, True)])


_getitem = np.ndarray.__getitem__  # a subclass's own indexing is not asked
