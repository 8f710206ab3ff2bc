"""Optional peers, each at its best practice on one thread: torch and
onnxruntime.  A peer that is not installed is reported missing; a peer that
lacks an operation, dtype, layout or rounding mode is absent from that row.

(ml_dtypes, a dependency, is the engine of NumPy's expression for BF16 and
is credited with the Cast rows' ``np.copyto(casting="unsafe")``.)
"""
from __future__ import annotations

import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..arrays import numpy_dtype
from ..core import DType
from ..packed import Packed
from .cases import (DEQUANT_ZP, MULTIPLIER, QUANT_ZP, SCALE, Op, Runner, apply_layout, axis_of, block_of,
                    block_params, channel_params, params)

OPTIONAL = ("torch", "onnxruntime")
# The storage types ONNX Runtime's QuantizeLinear/DequantizeLinear run for
# (issue 32's peers: uint8, int16 and int4 beside INT8; the CPU provider of
# 1.32 also registers uint16 and uint4, and int32 for DequantizeLinear).
ONNX_STORAGE = (DType.INT8, DType.UINT8, DType.INT16, DType.INT4)


def _as_16bit(array: np.ndarray) -> np.ndarray:
    """BF16 (ml_dtypes) arrays as uint16 views: peers cannot take the dtype."""
    return array.view(np.uint16) if array.dtype.name == "bfloat16" else array


class Torch:
    """``copy_`` into preallocated outputs for Cast; ``torch.dequantize`` of a
    qint8 tensor (made outside the timed region) for Dequant, ``copy_`` into
    BF16 after it; ``torch.quantize_per_tensor(x, 1/m)`` for Quant (FP32
    only: BF16/FP16 inputs are widened with ``.float()`` first).  Strided and
    transposed inputs are torch views of the same layout.  Dequantize and
    quantize allocate their outputs: torch has no ``out=`` for them.

    Per-axis layouts: ``torch.dequantize`` of a per-channel qint8 tensor
    (``torch._make_per_channel_quantized_tensor``, float64 scales, int64
    zero points, made outside the timed region) and
    ``torch.quantize_per_channel(x, 1/m, zp, axis, torch.qint8)``; its
    ``int_repr()`` (untimed, as for the per-tensor rows) is the result
    checked.  torch has no blocked (group-wise) Dequant or Quant of its own:
    absent from the blocked rows; and absent from the rows of the integer
    formats beyond INT8."""

    name = "torch"

    def __init__(self) -> None:
        import torch

        torch.set_num_threads(1)
        warnings.filterwarnings("ignore", message=".*quantiz.*deprecated", category=UserWarning)
        self.torch, self.version = torch, torch.__version__

    def _tensor(self, array: np.ndarray) -> Any:
        t = self.torch.from_numpy(_as_16bit(array))
        return t.view(self.torch.bfloat16) if array.dtype.name == "bfloat16" else t

    def runner(self, op: Op, layout: str, x: np.ndarray, parent: np.ndarray) -> Optional[Runner]:
        torch = self.torch
        last: Dict[str, Any] = {}
        if block_of(layout) is not None or op.affine:
            return None
        if op.kind == "cast" or (op.kind == "dequant" and op.dst == DType.BFLOAT16):
            out = np.empty(x.shape, numpy_dtype(op.dst))
            dst = self._tensor(out)
            if op.kind == "cast":
                src = self._tensor(x)
                return Runner(lambda: dst.copy_(src), lambda: out)
        axis = axis_of(layout)
        per_axis = channel_params(op, x.shape[axis]) if axis is not None and op.kind != "cast" else None
        if op.kind == "dequant":
            if per_axis is not None:
                q = torch._make_per_channel_quantized_tensor(
                    torch.from_numpy(parent), torch.from_numpy(per_axis.values.astype(np.float64)),
                    torch.from_numpy(per_axis.zero_points), axis)
            else:
                q = torch._make_per_tensor_quantized_tensor(torch.from_numpy(parent), float(SCALE), DEQUANT_ZP)
            view = apply_layout(q, layout)
            if op.dst == DType.BFLOAT16:
                return Runner(lambda: dst.copy_(torch.dequantize(view)), lambda: out)

            def dequantize() -> object:
                last["y"] = torch.dequantize(view)
                return last["y"]
            return Runner(dequantize, lambda: last["y"].numpy())
        if op.rounding != "nearest_even":
            return None
        src, widen, scale = self._tensor(x), op.src != DType.FLOAT32, 1.0 / float(MULTIPLIER)
        if per_axis is not None:
            scales = torch.from_numpy(1.0 / per_axis.values.astype(np.float64))
            zero_points = torch.from_numpy(per_axis.zero_points)

            def quantize_per_channel() -> object:
                last["y"] = torch.quantize_per_channel(src.float() if widen else src, scales, zero_points, axis,
                                                       torch.qint8)
                return last["y"]
            return Runner(quantize_per_channel, lambda: last["y"].int_repr().numpy())

        def quantize() -> object:
            last["y"] = torch.quantize_per_tensor(src.float() if widen else src, scale, QUANT_ZP, torch.qint8)
            return last["y"]
        return Runner(quantize, lambda: last["y"].int_repr().numpy())


class OnnxRuntime:
    """Single-node models built in memory (Cast, DequantizeLinear,
    QuantizeLinear; a Cast node added where the CPU provider lacks the BF16
    kernel), one thread, sequential, run with IO binding over OrtValues that
    wrap the preallocated NumPy arrays.  Dense and per-axis layouts only
    (ORT tensors are contiguous); the per-axis ones run with the nodes'
    ``axis`` attribute and 1-D scales and INT8 zero points (per-axis since
    opset 13; the models are opset 21), the blocked ones with ``axis`` and
    ``block_size`` and scales and zero points of the blocks' shape (opset
    21).  QuantizeLinear divides by its scale 1/m (in the input's type for
    FP16).

    Integer formats beyond INT8 (:data:`ONNX_STORAGE`): the zero point's
    type sets the storage type (uint8, int16, int4, opset 21).  An int4
    tensor is packed two per byte, element 0 in the low nibble, as ours:
    its OrtValue wraps a uint8 array of the tensor's shape whose first
    ``ceil(n / 2)`` bytes hold the packed data (ORT reads and writes only
    those)."""

    name = "onnxruntime"

    def __init__(self) -> None:
        import onnxruntime

        try:
            import onnx  # noqa: F401  (builds the models)
        except ImportError as exc:
            raise ImportError(f"onnxruntime is installed but onnx is not ({exc})") from exc
        self.ort, self.version = onnxruntime, onnxruntime.__version__
        self._sessions: Dict[Tuple[Any, ...], Any] = {}

    def _session(self, op: Op, axis: Optional[int] = None, channels: int = 0, block: Optional[int] = None,
                 shape: Tuple[int, ...] = ()) -> Any:
        key = (op.key, op.rounding, axis, channels, block, shape)
        if key not in self._sessions:
            options = self.ort.SessionOptions()
            options.intra_op_num_threads = options.inter_op_num_threads = 1
            options.execution_mode = self.ort.ExecutionMode.ORT_SEQUENTIAL
            self._sessions[key] = self.ort.InferenceSession(
                _model(op, axis, channels, block, shape).SerializeToString(), options,
                providers=["CPUExecutionProvider"])
        return self._sessions[key]

    def _value(self, array: np.ndarray) -> Any:
        from onnx import TensorProto

        if array.dtype.name == "bfloat16":
            return self.ort.OrtValue.ortvalue_from_numpy_with_onnx_type(_as_16bit(array), TensorProto.BFLOAT16)
        return self.ort.OrtValue.ortvalue_from_numpy(array)

    def _packed(self, dtype: DType, shape: Tuple[int, ...], data: Optional[np.ndarray] = None) -> Tuple[Any, Any]:
        """An int4 OrtValue of ``shape`` over a new uint8 array of that
        shape (``data``, the packed bytes, copied to its start), and the
        array."""
        from onnx import TensorProto

        memory = np.zeros(shape, np.uint8)
        if data is not None:
            memory.reshape(-1)[:data.size] = data
        onnx_type = {DType.INT4: TensorProto.INT4, DType.UINT4: TensorProto.UINT4}[dtype]
        return self.ort.OrtValue.ortvalue_from_numpy_with_onnx_type(memory, onnx_type), memory

    def runner(self, op: Op, layout: str, x: Any, parent: Any) -> Optional[Runner]:
        axis = axis_of(layout)
        if (layout != "dense" and axis is None) or op.rounding != "nearest_even" or (
                op.affine and op.storage not in ONNX_STORAGE):
            return None
        block = block_of(layout)
        session = self._session(op, axis, x.shape[axis] if axis is not None else 0, block, x.shape)
        binding = session.io_binding()
        if isinstance(x, Packed):
            value, memory = self._packed(x.dtype, x.shape, x.data)
            binding.bind_ortvalue_input("x", value)
            keep: Tuple[Any, ...] = (memory,)
        else:
            binding.bind_ortvalue_input("x", self._value(x))
            keep = (x,)  # the OrtValues borrow their memory
        if op.dst.sub_byte:
            value, out = self._packed(op.dst, x.shape)
            binding.bind_ortvalue_output("y", value)
            nbytes = -(-x.size * op.dst.bits // 8)
            result = lambda: out.reshape(-1)[:nbytes]  # noqa: E731
        else:
            out = np.empty(x.shape, numpy_dtype(op.dst))
            binding.bind_ortvalue_output("y", self._value(out))
            result = lambda: out  # noqa: E731
        keep += (out,)

        def run() -> object:
            return session.run_with_iobinding(binding), keep
        return Runner(run, result)


def _model(op: Op, axis: Optional[int] = None, channels: int = 0, block: Optional[int] = None,
           shape: Tuple[int, ...] = ()) -> Any:
    """The op's single-node model; with ``axis``, per-axis parameters
    (cases.channel_params for ``channels``) along it; with ``block`` too,
    blocked ones (cases.block_params for an input of ``shape``)."""
    from onnx import TensorProto, helper

    onnx_type = {DType.INT8: TensorProto.INT8, DType.FLOAT32: TensorProto.FLOAT,
                 DType.FLOAT16: TensorProto.FLOAT16, DType.BFLOAT16: TensorProto.BFLOAT16,
                 DType.UINT8: TensorProto.UINT8, DType.INT16: TensorProto.INT16, DType.UINT16: TensorProto.UINT16,
                 DType.INT32: TensorProto.INT32, DType.INT4: TensorProto.INT4, DType.UINT4: TensorProto.UINT4}
    assert op.storage is not None or op.kind == "cast"
    value, zp = params(op) if op.kind != "cast" else (np.float32(1), 0)
    nodes, inits, mid = [], [], "x"
    per_axis = None
    if axis is not None and op.kind != "cast":
        per_axis = block_params(op, shape, axis, block) if block else channel_params(op, channels)
    dims = list(per_axis.values.shape) if per_axis is not None else []
    axis_attr: Dict[str, int] = {"axis": axis} if per_axis is not None and axis is not None else {}
    if block and per_axis is not None:
        axis_attr["block_size"] = block
    if op.kind == "cast":
        nodes.append(helper.make_node("Cast", ["x"], ["y"], to=onnx_type[op.dst]))
    elif op.kind == "dequant":
        scales = per_axis.values.ravel().tolist() if per_axis is not None else [float(value)]
        zero_points = per_axis.zero_points.ravel().tolist() if per_axis is not None else [zp]
        inits = [helper.make_tensor("s", TensorProto.FLOAT, dims, scales),
                 helper.make_tensor("z", onnx_type[op.src], dims, zero_points)]
        last = "y" if op.dst == DType.FLOAT32 else "f"
        nodes.append(helper.make_node("DequantizeLinear", ["x", "s", "z"], [last], **axis_attr))
        if last != "y":
            nodes.append(helper.make_node("Cast", ["f"], ["y"], to=onnx_type[op.dst]))
    else:
        scale_type = TensorProto.FLOAT16 if op.src == DType.FLOAT16 else TensorProto.FLOAT
        if op.src == DType.BFLOAT16:  # no BF16 QuantizeLinear on the CPU provider
            nodes.append(helper.make_node("Cast", ["x"], ["f"], to=TensorProto.FLOAT))
            mid = "f"
        scales = (1.0 / per_axis.values.astype(np.float64)).ravel().tolist() if per_axis is not None else [
            1.0 / float(value)]
        zero_points = per_axis.zero_points.ravel().tolist() if per_axis is not None else [zp]
        inits = [helper.make_tensor("s", scale_type, dims, scales),
                 helper.make_tensor("z", onnx_type[op.dst], dims, zero_points)]
        nodes.append(helper.make_node("QuantizeLinear", [mid, "s", "z"], ["y"], **axis_attr))
    graph = helper.make_graph(
        nodes, op.key.replace("-", "_"), [helper.make_tensor_value_info("x", onnx_type[op.src], None)],
        [helper.make_tensor_value_info("y", onnx_type[op.dst], None)], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


_CLASSES = {"torch": Torch, "onnxruntime": OnnxRuntime}


def load(names: Sequence[str]) -> Tuple[List[Any], Dict[str, str]]:
    """The requested peers that import, and why each other one is missing."""
    found, missing = [], {}
    for name in names:
        try:
            found.append(_CLASSES[name]())
        except ImportError as exc:
            missing[name] = str(exc) or "not installed"
    return found, missing
