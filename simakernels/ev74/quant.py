"""EV74 host codec for Quant: device representability, the relocatable
224-byte descriptor, binding to device regions and device-side decoding.

The request is the same ``sk.ops.quant.Request`` the A65 backend takes; only
preparation, binding and submission differ.  Every function returns an
``sk.Error`` value instead of raising for a bad request, packet or binding.

Empty requests produce no numerical submission: their packet's descriptor
carries count 0 (spans 0, strides 0), ``Packet.empty`` is True, and the host
device model completes such a submission at once without dispatching work.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence, Tuple, Union

from ..fenv import in_default_state
from .. import _rules
from .._ffi import ffi, lib
from ..core import DType, Error, ErrorCode, Requirement, describe, type_name
from ..ops import quant as ops_quant
from . import descriptor as wire
from .region import DeviceRegion

_CONVERSION = {DType.FLOAT32: lib.SK_QUANT_F32, DType.BFLOAT16: lib.SK_QUANT_BF16, DType.FLOAT16: lib.SK_QUANT_F16}


@dataclass(frozen=True)
class Plan:
    """An admitted Quant plan that the EV74 can represent."""

    shared: ops_quant.Plan
    geometry: wire.Geometry

    def input_requirements(self) -> Tuple[Requirement, ...]:
        return self.shared.input_requirements()

    def output_requirements(self) -> Tuple[Requirement, ...]:
        return self.shared.output_requirements()


@dataclass(frozen=True)
class Packet:
    """A relocatable packet: the descriptor with zero address slots.  Never
    mutated; bind it as often as needed."""

    descriptor: bytes

    @property
    def empty(self) -> bool:
        """True for an empty request: nothing to submit."""
        return _valid_and_empty(self.descriptor)


@dataclass(frozen=True)
class BoundPacket:
    """A packet bound to device regions: its descriptor has both slots set."""

    descriptor: bytes
    inputs: Tuple[DeviceRegion, ...]
    outputs: Tuple[DeviceRegion, ...]

    @property
    def empty(self) -> bool:
        return _valid_and_empty(self.descriptor)


def _valid_and_empty(descriptor: Any) -> bool:
    """A descriptor the device accepts, with count 0.  Anything the decoder
    refuses (wrong length, corrupted fields) is not empty, so that
    submission hands it to device-side validation instead of completing it
    unchecked."""
    decoded = decode(descriptor)
    return not isinstance(decoded, Error) and decoded.count == 0


@dataclass(frozen=True)
class Descriptor(wire.Geometry):
    """A descriptor validated by the native decoder: its geometry and the
    other fields."""

    conversion: DType
    rounding: ops_quant.Rounding
    rank: int
    input_address: int
    output_address: int
    multiplier_bits: int
    zero_point: int
    entry: int          # numerical entry 0..11: conversion * 4 + rounding
    bound: bool
    _native: Any = None  # the decoded C struct, for the device model

    @property
    def empty(self) -> bool:
        return self.count == 0



def _lower(shared: ops_quant.Plan) -> wire.Geometry:
    admitted = shared.admitted
    src, dst = admitted.inputs[0], admitted.outputs[0]
    scalar = len(admitted.shape) == 0
    return wire.Geometry(
        flags=wire.FLAG_SCALAR if scalar else 0,
        count=admitted.count,
        input_span=src.nbytes,
        output_span=dst.nbytes,
        extents=(1,) if scalar else admitted.shape,
        input_strides=(0,) if scalar else src.strides,
        output_strides=(0,) if scalar else dst.strides,
    )


@in_default_state
def check_inference(request_or_plan: Union[ops_quant.Request, ops_quant.Plan]) -> Union[Plan, Error]:
    """Shared admission (for a request) plus device representability: every
    accessed span must fit the 32-bit device domain, and the parameters must
    be per tensor, neither per axis nor blocked (``DEVICE_LIMIT`` otherwise)."""
    if isinstance(request_or_plan, ops_quant.Request):
        shared = ops_quant.check_inference(request_or_plan)
        if isinstance(shared, Error):
            return shared
    elif isinstance(request_or_plan, ops_quant.Plan):
        shared = request_or_plan
    else:
        return Error(
            ErrorCode.INVALID_OPERATION,
            f"ev74.quant.check_inference takes an ops.quant Request or Plan, got {type_name(request_or_plan)}",
        )
    if isinstance(shared.params, ops_quant.AxisParams):
        return Error(ErrorCode.DEVICE_LIMIT,
                     "ev74.quant: per-axis parameters (quant.AxisParams) cannot be encoded: the 224-byte descriptor "
                     "holds one multiplier and one zero point; run per-axis Quant on the A65 (sk.a65.quant) or "
                     "encode one plan per channel slice")
    if isinstance(shared.params, ops_quant.BlockParams):
        return Error(ErrorCode.DEVICE_LIMIT,
                     "ev74.quant: blocked parameters (quant.BlockParams) cannot be encoded: the 224-byte descriptor "
                     "holds one multiplier and one zero point; run blocked Quant on the A65 (sk.a65.quant) or "
                     "encode one plan per block")
    admitted = shared.admitted
    for port_index, port in enumerate(admitted.inputs + admitted.outputs):
        span = _rules.layout(port.name, admitted.shape, port.strides, port.dtype.itemsize, port.dtype.name,
                             _rules.DEVICE, port_index, normalised=True)
        if isinstance(span, Error):
            return span
    return Plan(shared, _lower(shared))


def encode_relocatable(plan: Plan) -> Union[Packet, Error]:
    """The plan's descriptor with zero address slots.  An Error in place of
    the plan (a failed check_inference) is returned as it is."""
    if isinstance(plan, Error):
        return plan
    if not isinstance(plan, Plan):
        return Error(ErrorCode.INVALID_OPERATION, f"encode_relocatable takes an ev74.quant.Plan, got {type_name(plan)}")
    params = plan.shared.params
    assert isinstance(params, ops_quant.Params)  # check_inference refused per-axis parameters
    conversion = _CONVERSION[plan.shared.admitted.inputs[0].dtype]
    return Packet(wire.pack(conversion, plan.geometry, params.multiplier_bits, params.zero_point,
                            params.rounding.value))


def _region(region: Any, name: str) -> Union[Tuple[int, int], Error]:
    """(address, capacity) of a DeviceRegion with integer fields."""
    if not isinstance(region, DeviceRegion):
        return Error(ErrorCode.INVALID_BINDING, f"{name}: expected an ev74.DeviceRegion, got {type_name(region)}")
    for field, value in (("address", region.address), ("capacity", region.capacity)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return Error(ErrorCode.INVALID_BINDING, f"{name}: {field} {describe(value)} is not a nonnegative integer")
    return region.address, region.capacity


def bind(packet: Packet, plan: Plan, inputs: Sequence[DeviceRegion],
         outputs: Sequence[DeviceRegion]) -> Union[BoundPacket, Error]:
    """A new :class:`BoundPacket` with the regions' addresses in the slots,
    after checking that the packet matches the plan, capacities, alignment,
    the 32-bit domain and that input and output do not alias.  An Error in
    place of the plan or the packet (an earlier step failed) is returned as
    it is."""
    for earlier in (plan, packet):
        if isinstance(earlier, Error):
            return earlier
    if not isinstance(plan, Plan):
        return Error(ErrorCode.INVALID_OPERATION, f"bind takes an ev74.quant.Plan, got {type_name(plan)}")
    if not isinstance(packet, Packet):
        return Error(ErrorCode.PACKET_MISMATCH, f"bind takes a relocatable ev74.quant.Packet, got {type_name(packet)}")
    expected = encode_relocatable(plan)
    if isinstance(expected, Error):
        return expected
    got = packet.descriptor
    if not isinstance(got, bytes) or len(got) != len(expected.descriptor):
        what = f"{len(got)} bytes" if isinstance(got, bytes) else type_name(got)
        return Error(ErrorCode.PACKET_MISMATCH, f"packet descriptor is {what}, this plan's is "
                                                f"{len(expected.descriptor)} bytes: the packet was not encoded "
                                                "from this plan")
    if packet.descriptor != expected.descriptor:
        name, offset, have, want = wire.first_difference(packet.descriptor, expected.descriptor)
        return Error(ErrorCode.PACKET_MISMATCH, f"packet field {name} (offset {offset}) is {have:#x}, this plan's is "
                                                f"{want:#x}: the packet was not encoded from this plan")
    inputs, outputs = tuple(inputs), tuple(outputs)
    if len(inputs) != 1 or len(outputs) != 1:
        return Error(ErrorCode.INVALID_ARITY,
                     f"bind takes 1 input and 1 output region, got {len(inputs)} and {len(outputs)}")
    (need_in,), (need_out,) = plan.input_requirements(), plan.output_requirements()
    if not plan.shared.empty:
        views = []
        for region, name, need in ((inputs[0], "input 0", need_in), (outputs[0], "output 0", need_out)):
            view = _region(region, name)
            if isinstance(view, Error):
                return view
            # The accessed bytes must lie in the domain, not the whole region.
            views.append((view[0], min(view[1], need.nbytes)))
        error = _rules.binding(("input 0", "output 0"), (views[0], views[1]),
                               ((need_in.nbytes, need_in.alignment), (need_out.nbytes, need_out.alignment)),
                               _rules.DEVICE)
        if error is not None:
            return error
        slots = (views[0][0], views[1][0])
    else:
        slots = (0, 0)  # nothing is accessed: no submission, no addresses
    return BoundPacket(wire.with_addresses(packet.descriptor, *slots), inputs, outputs)


def encode(plan: Plan, inputs: Sequence[DeviceRegion], outputs: Sequence[DeviceRegion]) -> Union[BoundPacket, Error]:
    """:func:`encode_relocatable` and :func:`bind` in one step."""
    packet = encode_relocatable(plan)
    if isinstance(packet, Error):
        return packet
    return bind(packet, plan, inputs, outputs)


_CONVERSION_DTYPE = {v: k for k, v in _CONVERSION.items()}


def decode(data: Any) -> Union[Descriptor, Error]:
    """Device-side validation of descriptor bytes by the native decoder:
    a :class:`Descriptor`, or ``INVALID_DESCRIPTOR`` naming the field."""
    try:
        raw = memoryview(data).tobytes()  # bytes-like only (bytes(n) would make n zeros)
    except TypeError:
        return Error(ErrorCode.INVALID_DESCRIPTOR, f"descriptor must be bytes-like, got {type_name(data)}")
    native = ffi.new("sk_ev74_descriptor *")
    message = ffi.new("char[256]")
    status = lib.sk_ev74_decode(raw, len(raw), native, message, 256)
    if status != lib.SK_OK:
        return Error(ErrorCode.INVALID_DESCRIPTOR, ffi.string(message).decode())
    rank = native.rank
    return Descriptor(
        conversion=_CONVERSION_DTYPE[native.conversion],
        rounding=ops_quant.Rounding(native.rounding),
        rank=rank,
        flags=native.flags,
        input_address=native.input_address,
        output_address=native.output_address,
        count=native.count,
        input_span=native.input_span,
        output_span=native.output_span,
        extents=tuple(native.extent[0:rank]),
        input_strides=tuple(native.input_stride[0:rank]),
        output_strides=tuple(native.output_stride[0:rank]),
        multiplier_bits=native.multiplier_bits,
        zero_point=native.zero_point,
        entry=native.entry,
        bound=bool(native.bound),
        _native=native,
    )


def admit(descriptor: Descriptor, base: int, size: int) -> Optional[Error]:
    """What the device checks at submission besides the descriptor: both
    slots bound and both accessed ranges in its memory [base, base +
    size); None, or the ``INVALID_BINDING`` error."""
    message = ffi.new("char[256]")
    status = lib.sk_ev74_admit(descriptor._native, base, size, message, 256)
    return None if status == lib.SK_OK else Error(ErrorCode(status), ffi.string(message).decode())
