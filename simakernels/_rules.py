"""The C core's layout, binding and parameter rules (``sk_layout_check``,
``sk_binding_fault``, ``sk_params_check``), asked through cffi: the rules
live in C once, for ``execute``, prepare, the EV74 decoder and Python alike;
this module only turns a fault record into a message naming the port, axis,
value and limit (parameter faults are worded by the operations' admission,
which names the parameter)."""
from __future__ import annotations

import functools
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from ._ffi import ffi, lib
from .core import Error, ErrorCode

HOST = lib.SK_DOMAIN_HOST
DEVICE = lib.SK_DOMAIN_DEVICE
DEVICE_END = lib.sk_domain_end(DEVICE)  # one past the EV74's last address
_LIMIT_TEXT = {HOST: "2^63-1", DEVICE: "the EV74's 32-bit domain"}


def layout(name: str, shape: Sequence[int], strides: Sequence[int], item: int, dtype_name: str,
           domain: int = HOST, port: int = 0, normalised: bool = False) -> Union[int, Error]:
    """The accessed bytes of one port's geometry (0 for an empty tensor), or
    the Error of the first rule it breaks.  Extents and strides must be at
    most 2^63-1 (admission reports larger values as OVERFLOW first); a stride
    below int64 is negative all the same."""
    c = ffi.new("sk_layout *")
    c.rank, c.port, c.domain, c.normalised, c.item = len(shape), port, domain, normalised, item
    c.extent[0:len(shape)] = list(shape)
    c.stride[0:len(strides)] = [max(s, -1) for s in strides]
    span = ffi.new("uint64_t *")
    fault = ffi.new("sk_fault *")
    if lib.sk_layout_check(c, span, fault) == lib.SK_OK:
        return int(span[0])
    return _layout_error(name, fault, shape, strides, item, dtype_name, domain)


def _layout_error(name: str, f: Any, shape: Sequence[int], strides: Sequence[int], item: int,
                  dtype_name: str, domain: int) -> Error:
    axis, rule = f.axis, f.rule
    at = f"{name} axis {axis}"
    stride = strides[axis]
    if rule == lib.SK_RULE_EXTENT_LIMIT:
        return Error(ErrorCode(f.status), f"{at}: extent {shape[axis]} does not fit {_LIMIT_TEXT[domain]}")
    if rule == lib.SK_RULE_NEGATIVE_STRIDE:
        return Error(ErrorCode(f.status), f"{at}: negative stride {stride} (reversed views are unsupported)")
    if rule == lib.SK_RULE_STRIDE_MULTIPLE:
        return Error(ErrorCode(f.status),
                     f"{at}: stride {stride} is not a multiple of the {item}-byte {dtype_name} scalar")
    if rule == lib.SK_RULE_BROADCAST:
        return Error(ErrorCode(f.status),
                     f"{at}: zero stride on an axis of extent {shape[axis]} (broadcast views are unsupported)")
    if rule == lib.SK_RULE_STRIDE_LIMIT:
        return Error(ErrorCode(f.status), f"{at}: stride {stride} does not fit {_LIMIT_TEXT[domain]}")
    if rule == lib.SK_RULE_SPAN_LIMIT:
        span = f.value + (shape[axis] - 1) * stride
        if domain == DEVICE:
            return Error(ErrorCode(f.status), f"{name}: accessed span of {span} bytes (from axis {axis}) does not "
                                              "fit the EV74's 32-bit address domain")
        return Error(ErrorCode(f.status), f"{at}: accessed span of {span} bytes exceeds 2^63-1")
    if rule == lib.SK_RULE_AXES_OVERLAP:
        return Error(ErrorCode(f.status), f"{at}: stride {stride} does not clear the {f.limit} bytes spanned by "
                     "its faster axes (overlapping or unproven interleaved view)")
    # SK_RULE_NOT_NORMALISED: Python asks with normalised strides only.
    raise AssertionError(f"sk_layout_check: rule {rule} from a Python geometry")


_U64 = 1 << 64


def binding(names: Tuple[str, str], views: Tuple[Tuple[int, int], Tuple[int, int]],
            needs: Tuple[Tuple[int, int], Tuple[int, int]], domain: int = HOST) -> Optional[Error]:
    """The first binding rule two views break, as an Error, or None.

    ``views``: (address, bytes) of the input and the output; ``needs``:
    (bytes, alignment) each port requires.  Values that no C integer holds
    (negative, or 2^64 and beyond) are named here; everything else is the
    C rule's."""
    for name, (address, nbytes) in zip(names, views):
        if not 0 <= address < _U64:
            return Error(ErrorCode.INVALID_BINDING, f"{name}: address {address:#x} is outside the 64-bit address space")
        if nbytes < 0:
            return Error(ErrorCode.INVALID_BINDING, f"{name}: negative extent {nbytes}")
    need = ffi.new("sk_binding *")
    (need.in_nbytes, need.in_alignment), (need.out_nbytes, need.out_alignment) = needs
    (src, src_len), (dst, dst_len) = views
    fault = ffi.new("sk_fault *")
    status = lib.sk_binding_fault(need, domain, src, min(src_len, _U64 - 1), dst, min(dst_len, _U64 - 1), fault)
    if status == lib.SK_OK:
        return None
    return _binding_error(names, views, needs, domain, fault)


def _binding_error(names: Tuple[str, str], views: Tuple[Tuple[int, int], Tuple[int, int]],
                   needs: Tuple[Tuple[int, int], Tuple[int, int]], domain: int, f: Any) -> Error:
    name, (address, nbytes), (required, alignment) = names[f.port], views[f.port], needs[f.port]
    code, rule = ErrorCode(f.status), f.rule
    if rule == lib.SK_RULE_VIEW_LIMIT:
        return Error(ErrorCode(f.status), f"{name}: extent {nbytes} exceeds 2^63-1 bytes")
    if rule == lib.SK_RULE_NULL and domain == DEVICE:
        return Error(ErrorCode(f.status), f"{name}: null device address")
    if rule == lib.SK_RULE_NULL:
        return Error(ErrorCode(f.status), f"{name}: null binding for a tensor of {required} bytes")
    if rule == lib.SK_RULE_SHORT and domain == DEVICE:
        return Error(ErrorCode(f.status), f"{name}: capacity {nbytes} bytes, the plan accesses {required}")
    if rule == lib.SK_RULE_SHORT:
        return Error(ErrorCode(f.status), f"{name}: view has {nbytes} bytes, the plan requires {required}")
    if rule == lib.SK_RULE_ADDRESS_LIMIT and domain == DEVICE:
        return Error(ErrorCode(f.status),
                     f"{name}: address {address:#x} + {nbytes} bytes leaves the 32-bit device domain")
    if rule == lib.SK_RULE_ADDRESS_LIMIT:
        return Error(ErrorCode(f.status), f"{name}: view [{address:#x}, +{nbytes}) ends beyond 2^63-1")
    if rule == lib.SK_RULE_MISALIGNED:
        return Error(ErrorCode(f.status), f"{name}: address {address:#x} is not {alignment}-byte aligned")
    if rule == lib.SK_RULE_PORTS_OVERLAP:
        (src, _), (dst, _) = views
        where = "device ranges" if domain == DEVICE else "byte ranges"
        return Error(ErrorCode(f.status), f"{names[0]} [{src:#x}, +{needs[0][0]}) and {names[1]} "
                                          f"[{dst:#x}, +{needs[1][0]}): accessed {where} overlap")
    raise AssertionError(f"sk_binding_fault: unknown rule {rule} ({code.name})")


# ---- Parameter rules ---------------------------------------------------------

QUANT, DEQUANT = lib.SK_OP_QUANT, lib.SK_OP_DEQUANT
AFFINE_QUANT, AFFINE_DEQUANT = lib.SK_OP_AFFINE_QUANT, lib.SK_OP_AFFINE_DEQUANT
NOT_FINITE_POSITIVE = lib.SK_RULE_NOT_FINITE_POSITIVE
NOT_FINITE_NONZERO = lib.SK_RULE_NOT_FINITE_NONZERO
ZERO_POINT_RANGE = lib.SK_RULE_ZERO_POINT_RANGE
#: A rule set: QUANT or DEQUANT, or (AFFINE_QUANT or AFFINE_DEQUANT, the
#: storage type's code, enum sk_hurray_storage).
Code = Union[int, Tuple[int, int]]
_ZERO_POINTS = {QUANT: (lib.SK_QUANT_ZERO_POINT_LEAST, lib.SK_QUANT_ZERO_POINT_GREATEST),
                DEQUANT: (lib.SK_DEQUANT_ZERO_POINT_LEAST, lib.SK_DEQUANT_ZERO_POINT_GREATEST)}
# Admission runs this per plan: constants and C types looked up once.
_OK = lib.SK_OK
_BITS, _INT64S = ffi.typeof("uint32_t[]"), ffi.typeof("int64_t[]")
_AT, _FAULT = ffi.typeof("uint64_t *"), ffi.typeof("sk_fault *")
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


@functools.lru_cache(maxsize=None)
def zero_point_range(code: Code) -> Tuple[int, int]:
    """The least and greatest zero point of a rule set (an affine one's:
    its storage type's range, ``sk_storage_range``)."""
    if not isinstance(code, tuple):
        return _ZERO_POINTS[code]
    least, greatest = ffi.new("int64_t *"), ffi.new("int64_t *")
    if lib.sk_storage_range(code[1], least, greatest) != _OK:
        raise ValueError(f"unknown storage code {code[1]}")
    return int(least[0]), int(greatest[0])


def params(code: Code, bits: Any, zero_points: Any = ()) -> Optional[Tuple[int, int]]:
    """(rule, index) of the first parameter of the rule set ``code``
    (:data:`Code`) the C rules refuse, or None: every scale or multiplier
    by its bits (a uint32 array, or a sequence of ints below 2^32), then
    every zero point (an int64 array, or a sequence).  A zero point that no
    int64 holds (a larger int, a bool, anything not an int) is outside
    every range."""
    if isinstance(bits, np.ndarray):
        bits = np.ascontiguousarray(bits, np.uint32)
        bits_c = ffi.from_buffer(_BITS, bits) if bits.size else ffi.NULL
    else:
        bits_c = ffi.new(_BITS, bits) if len(bits) else ffi.NULL
    if isinstance(zero_points, np.ndarray):
        zero_points = np.ascontiguousarray(zero_points, np.int64)
        zero_points_c = ffi.from_buffer(_INT64S, zero_points) if zero_points.size else ffi.NULL
    else:
        zero_points_c = ffi.new(_INT64S, [_int64(z) for z in zero_points]) if len(zero_points) else ffi.NULL
    at, fault = ffi.new(_AT), ffi.new(_FAULT)
    if isinstance(code, tuple):
        status = lib.sk_affine_params_check(code[0], code[1], bits_c, len(bits), zero_points_c, len(zero_points),
                                            at, fault)
    else:
        status = lib.sk_params_check(code, bits_c, len(bits), zero_points_c, len(zero_points), at, fault)
    if status == _OK:
        return None
    return int(fault.rule), int(at[0])


def _int64(value: Any) -> int:
    if type(value) is int and _I64_MIN <= value <= _I64_MAX:
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        return _I64_MIN
    return min(max(value, _I64_MIN), _I64_MAX)
