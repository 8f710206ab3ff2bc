"""Running an EV74 conformance kit (simakernels.ev74.vectors) on the host
device model, as a device team would run it on the EV74."""
from simakernels.ev74 import vectors
from support.helpers import element_offsets


def run_on_device(kit, manifest, results, engine="model"):
    """Each case on a host device, its output region dumped to
    results/<id>.bin (vectors.run); the unit kinds it ran, per case."""
    kinds = vectors.run(kit, results, engine=engine)
    assert list(kinds) == [case["id"] for case in manifest["cases"]]
    return kinds


def input_offsets(case, desc):
    """Each element's input bytes, as offsets in the case's input region."""
    return desc.input_address - case["input"]["address"] + element_offsets(desc.extents, desc.input_strides)


def output_offsets(case, desc):
    """Each element's output byte, as an offset in the case's output region."""
    return desc.output_address - case["output"]["address"] + element_offsets(desc.extents, desc.output_strides)
