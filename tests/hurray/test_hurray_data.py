"""What ``hurray.dequantize`` takes as ``data`` (issue 19, edges 1 and 7).

``data`` is storage: a C-contiguous buffer whose elements are bytes or the
storage type's own elements.  The accepted dtypes are written here from the
specification's table (signedness and width of each type), not read from
the package; expected results come from the oracle through hurray_helpers.
"""
import array

import ml_dtypes
import numpy as np
import pytest

from support.hurray_helpers import ALL_STORAGE, ST, SUB_BYTE, H, bits_of, check, descriptor, expected, sentinel_out, \
    signed, unpack, width

SCALE = 0xBE800000          # -0.25: the Hurray kernels for every type, INT8 included
BRIDGED = 0x3E800000        # +0.25: INT8 runs through the A65 Dequant bridge
WHOLE_TYPES = tuple(s for s in ALL_STORAGE if width(s) >= 8)


def own_dtype(storage) -> np.dtype:
    """The storage type's element as NumPy spells it, little-endian."""
    return np.dtype(f"<{'i' if signed(storage) else 'u'}{width(storage) // 8}")


def payload(nbytes: int = 48) -> bytes:
    return np.random.default_rng(19).integers(0, 256, nbytes, dtype=np.uint8).tobytes()


def run(data, storage, scale_bits=SCALE, **kwargs):
    return H.dequantize(data, descriptor(scale_bits, 0), storage, **kwargs)


# ------------------------------------------------------------------ accepted
@pytest.mark.parametrize("scale_bits", [SCALE, BRIDGED], ids=["hurray-kernel", "int8-bridge"])
@pytest.mark.parametrize("storage", WHOLE_TYPES, ids=lambda s: s.name)
def test_an_array_of_the_storage_types_own_dtype_of_any_shape(storage, scale_bits):
    raw = payload()
    values = unpack(raw, storage)
    want = expected(values, storage, scale_bits, 0)
    flat = np.frombuffer(raw, own_dtype(storage))
    for shaped in (flat, flat.reshape(2, -1), flat.reshape(2, 2, -1)):
        check(run(shaped, storage, scale_bits), want, values, f"{storage.name} {shaped.dtype} shape {shaped.shape}")


@pytest.mark.parametrize("storage", ALL_STORAGE, ids=lambda s: s.name)
def test_a_uint8_array_of_any_shape_and_bytes_like_objects(storage):
    raw = payload()
    values = unpack(raw, storage)
    want = expected(values, storage, SCALE, 0)
    for name, data in (("uint8 2-D", np.frombuffer(raw, np.uint8).reshape(6, 8)), ("bytearray", bytearray(raw)),
                       ("memoryview", memoryview(raw)), ("array-B", array.array("B", raw))):
        check(run(data, storage), want, values, f"{storage.name} {name}")


# ------------------------------------------------------------------ refused
def other_formats(storage):
    """Arrays whose elements are another number format than the storage's."""
    raw = payload()
    yield np.frombuffer(raw, np.float32)
    yield np.frombuffer(raw, np.float16)
    yield np.frombuffer(raw, ml_dtypes.bfloat16)
    yield np.frombuffer(raw, np.int16 if width(storage) != 16 or not signed(storage) else np.uint16)
    yield np.frombuffer(raw, np.int8 if not (width(storage) == 8 and signed(storage)) else np.int16)
    if width(storage) >= 16:
        yield np.frombuffer(raw, own_dtype(storage).newbyteorder(">"))      # big-endian words
    if storage in SUB_BYTE:
        yield np.frombuffer(raw, ml_dtypes.int4 if signed(storage) else ml_dtypes.uint4)   # unpacked nibbles


@pytest.mark.parametrize("storage", ALL_STORAGE, ids=lambda s: s.name)
def test_an_array_of_another_number_format_is_refused_before_any_write(storage):
    for data in other_formats(storage):
        whole, out = sentinel_out(len(payload()) * 8 // width(storage))
        before = bits_of(whole).copy()
        with pytest.raises(TypeError) as info:
            run(data, storage, out=out)
        message = str(info.value)
        assert message.startswith("data: ") and str(data.dtype) in message and storage.name in message, message
        assert np.array_equal(bits_of(whole), before), f"{storage.name} {data.dtype}: refused, yet out changed"


def test_float32_data_for_int8_storage_names_the_dtypes_that_would_do():
    with pytest.raises(TypeError) as info:
        run(np.ones(4, np.float32), ST.INT8, BRIDGED)
    assert str(info.value) == ("data: dtype float32 is not INT8 storage; data must be bytes-like, "
                               "a uint8 array or an array of dtype int8")


@pytest.mark.parametrize("storage", [ST.INT16, ST.INT4, ST.INT8], ids=lambda s: s.name)
@pytest.mark.parametrize("make", [lambda raw: np.frombuffer(raw, np.uint8)[::2],
                                  lambda raw: np.frombuffer(raw, np.uint8).reshape(6, 8).T,
                                  lambda raw: memoryview(raw)[::2]],
                         ids=["strided", "transposed", "memoryview-strided"])
def test_non_contiguous_data_is_refused_with_what_data_must_be(storage, make):
    with pytest.raises(ValueError, match=r"^data must be C-contiguous \(bytes-like or a C-contiguous NumPy array\)"):
        run(make(payload()), storage)


@pytest.mark.parametrize("data", [[1, 2, 3], None, 7, "abc"], ids=["list", "none", "int", "str"])
def test_data_that_is_no_buffer_is_refused_naming_data(data):
    with pytest.raises(TypeError, match=r"^data must be a C-contiguous buffer \(bytes-like or NumPy array\), got "
                                        rf"builtins\.{type(data).__name__}$"):
        run(data, ST.UINT8)


# ---------------------------------------------- the other arguments' types
def test_a_refused_descriptor_or_out_is_named_by_module_and_class():
    with pytest.raises(TypeError, match=r"^descriptor must be a PerTensorAffine, got builtins\.dict$"):
        H.dequantize(bytes(4), {"scale": 1.0}, ST.INT8)
    with pytest.raises(ValueError, match=r"float32 array of shape \(4,\), got builtins\.list$"):
        H.dequantize(bytes(4), descriptor(SCALE, 0), ST.INT8, out=[0.0] * 4)
