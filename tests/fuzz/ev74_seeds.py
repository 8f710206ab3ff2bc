"""Seed corpus for the EV74 decoder fuzzer: valid descriptors made by the
Python encoder (``sk.ev74.quant``) from requests of every conversion and
rounding mode, ranks 0..6, contiguous, padded, permuted, stepped and empty
layouts, relocatable and bound.  One file per descriptor in the given
directory; prints how many were written.

Usage: python tests/fuzz/ev74_seeds.py DIR
"""
import itertools
import pathlib
import sys

import simakernels as sk

DTYPES = (sk.DType.FLOAT32, sk.DType.BFLOAT16, sk.DType.FLOAT16)
MODES = tuple(sk.ops.quant.Rounding)
# (shape, input strides in elements or None, output strides or None)
LAYOUTS = [
    ((), None, None),
    ((1,), None, None),
    ((7,), (3,), (2,)),
    ((3, 5), None, None),
    ((4, 6), (1, 4), None),                 # permuted input
    ((3, 20), (24, 1), (32, 1)),            # padded rows
    ((2, 1, 3, 1, 4, 5), None, None),       # singleton axes
    ((2, 3, 1, 2, 2, 3), (1, 2, 0, 6, 12, 24), None),
    ((3, 0, 2), None, None),                # empty
    ((200,), None, None),
    ((4096,), None, None),                  # a DMA block
    ((2, 2, 2, 2, 2, 2), None, (64, 32, 16, 8, 4, 2)),
]
PARAMS = [(0x3E99999A, -3), (0x00000001, -128), (0x7F7FFFFF, 127), (0x3F800000, 0)]


def requests():
    for k, ((shape, si, so), dtype) in enumerate(itertools.product(LAYOUTS, DTYPES)):
        item = dtype.itemsize
        src = sk.TensorSpec(shape, dtype, sk.Strided([s * item for s in si]) if si else sk.Contiguous())
        dst = sk.TensorSpec(shape, sk.DType.INT8, sk.Strided(so) if so else sk.Contiguous())
        bits, zp = PARAMS[k % len(PARAMS)]
        yield sk.ops.quant.Request([src], [dst], sk.ops.quant.Params.from_bits(bits, zp, MODES[k % len(MODES)]))


def main(directory: str) -> int:
    out = pathlib.Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    for k, request in enumerate(requests()):
        plan = sk.ev74.quant.check_inference(request)
        assert not isinstance(plan, sk.Error), plan
        packet = sk.ev74.quant.encode_relocatable(plan)
        (need_in,), (need_out,) = plan.input_requirements(), plan.output_requirements()
        a = 0x1000_0000
        b = a + max(need_in.nbytes, 64)
        bound = sk.ev74.quant.encode(plan, [sk.ev74.DeviceRegion(a, need_in.nbytes)],
                                     [sk.ev74.DeviceRegion(b, need_out.nbytes)])
        assert not isinstance(bound, sk.Error), bound
        for name, data in ((f"{k:03d}-relocatable", packet.descriptor), (f"{k:03d}-bound", bound.descriptor)):
            assert not isinstance(sk.ev74.quant.decode(data), sk.Error), name
            (out / f"{name}.bin").write_bytes(data)
            written += 1
    print(f"{written} valid EV74 descriptors in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
