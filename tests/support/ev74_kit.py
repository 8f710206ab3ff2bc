"""Running an EV74 conformance kit (simakernels.ev74.vectors) on the host
device model, as a device team would run it on the EV74."""
import numpy as np

import simakernels as sk
from simakernels.ev74 import quant as ev_quant
from simakernels.ev74.region import DeviceRegion


def run_on_device(kit, manifest, results):
    """Each case on a fresh host device model, its output region dumped to
    results/<id>.bin; the unit kinds it ran, per case."""
    results.mkdir(exist_ok=True)
    kinds = {}
    device = sk.ev74.Device()  # 16 MiB at 0x1000_0000: holds both region pairs of every case
    try:
        for case in manifest["cases"]:
            inputs = (kit / case["input"]["file"]).read_bytes()
            initial = (kit / case["output"]["initial"]).read_bytes()
            device.write(case["input"]["address"], inputs)
            device.write(case["output"]["address"], initial)
            data = bytes.fromhex(case["descriptor"])
            desc = ev_quant.decode(data)
            end_in, end_out = case["input"]["address"] + len(inputs), case["output"]["address"] + len(initial)
            bound = ev_quant.BoundPacket(data, (DeviceRegion(desc.input_address, end_in - desc.input_address),),
                                         (DeviceRegion(desc.output_address, end_out - desc.output_address),))
            done = device.submit(bound).result()
            assert not isinstance(done, sk.Error), (case["id"], done)
            kinds[case["id"]] = {unit.kind for unit in done.units}
            (results / f"{case['id']}.bin").write_bytes(device.read(case["output"]["address"], len(initial)))
    finally:
        device.close()
    return kinds


def element_offsets(extents, strides):
    """Each element's byte offset from element 0, in C order."""
    offsets = np.zeros(extents, np.int64)
    for axis, (extent, stride) in enumerate(zip(extents, strides)):
        shape = [1] * len(extents)
        shape[axis] = extent
        offsets = offsets + np.arange(extent).reshape(shape) * stride
    return offsets.reshape(-1)


def input_offsets(case, desc):
    """Each element's input bytes, as offsets in the case's input region."""
    return desc.input_address - case["input"]["address"] + element_offsets(desc.extents, desc.input_strides)


def output_offsets(case, desc):
    """Each element's output byte, as an offset in the case's output region."""
    return desc.output_address - case["output"]["address"] + element_offsets(desc.extents, desc.output_strides)
