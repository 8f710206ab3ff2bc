"""EV74 messages name a refused object's type by module and qualified name
(issue 19, edge 6), as the A65 messages do: an a65, ops and ev74 plan are all
classes named ``Plan``, so "got Plan" does not say which one was passed."""
import pytest

import simakernels as sk
from support.ev74_helpers import assert_error, ev_plan, quant_request

E = sk.ErrorCode
ev = sk.ev74.quant
Region = sk.ev74.DeviceRegion
IN, OUT = Region(0x1000_0000, 64), Region(0x1000_1000, 64)


def a65_plan():
    return sk.a65.quant.check_inference(quant_request((4,), sk.DType.FLOAT32))


def full_name(value) -> str:
    return f"{type(value).__module__}.{type(value).__qualname__}"


def test_check_inference_names_an_a65_plan_by_its_module():
    plan = a65_plan()
    assert full_name(plan).startswith("simakernels.a65."), full_name(plan)
    assert_error(ev.check_inference(plan), E.INVALID_OPERATION,
                 f"takes an ops.quant Request or Plan, got {full_name(plan)}")


@pytest.mark.parametrize("region, name", [((0x1000_0000, 64), "builtins.tuple"), (None, "builtins.NoneType")])
def test_bind_names_a_region_that_is_not_a_device_region(region, name):
    plan = ev_plan((4,), sk.DType.FLOAT32)
    assert_error(ev.encode(plan, [region], [OUT]), E.INVALID_BINDING,
                 f"input 0: expected an ev74.DeviceRegion, got {name}")


def test_bind_names_a_packet_descriptor_that_is_not_bytes():
    plan = ev_plan((4,), sk.DType.FLOAT32)
    packet = ev.Packet(bytearray(ev.encode_relocatable(plan).descriptor))
    assert_error(ev.bind(packet, plan, [IN], [OUT]), E.PACKET_MISMATCH,
                 "packet descriptor is builtins.bytearray, this plan's is 224 bytes")


@pytest.mark.parametrize("value, name", [(5, "builtins.int"), ("x" * 224, "builtins.str")], ids=["int", "str"])
def test_decode_names_what_is_not_bytes_like(value, name):
    assert_error(ev.decode(value), E.INVALID_DESCRIPTOR, f"descriptor must be bytes-like, got {name}")


def test_submit_names_what_is_not_a_bound_packet():
    plan = ev_plan((4,), sk.DType.FLOAT32)
    with sk.ev74.Device(size=1 << 16) as device:
        for value, name in (("nope", "builtins.str"), (plan, "simakernels.ev74.quant.Plan")):
            assert_error(device.submit(value).result(timeout=60), E.INVALID_DESCRIPTOR,
                         f"submit takes a BoundPacket, got {name}")
