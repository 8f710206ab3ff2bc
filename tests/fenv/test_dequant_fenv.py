"""Dequant and the FP environment, beyond the rules it shares with Quant
(refusal of the states its contract refuses, empty execution under any
state: test_op_fenv.py): one message names every unmet requirement, and
the default state is left unchanged by every form."""
import pytest

import simakernels as sk
from support.helpers import BF16, F32, ROUTES, SENTINEL, assert_bits_equal, assert_untouched, fp_or_skip, oracle_dequant
from support.op_cases import DEQUANT

E = sk.ErrorCode
Rounding = sk.fenv.Rounding
DEFAULT = sk.fenv.State(Rounding.NEAREST, False, False, frozenset())
INEXACT, OVERFLOW, TINY = DEQUANT.trap_inexact, DEQUANT.trap_overflow, DEQUANT.trap_tiny
SHAPE, OUT_ROW = (2, 40), 43   # padded output rows: dense runs with blocks and a tail


def nonempty_case(route, dst, params):
    entry = DEQUANT.fenv_entry(route, dst, params, 0, SHAPE, None, (OUT_ROW, 1))
    src, out = entry.storages(0, 32)
    values, _ = entry.draw(src.offsets.size, 17)
    src.write(values)
    return entry.plan, src, out, values


@pytest.mark.parametrize("route", ROUTES)
def test_message_names_every_unmet_requirement(route):
    plan, src, out, _ = nonempty_case(route, F32, INEXACT)
    with fp_or_skip(rounding=Rounding.UPWARD, flush_to_zero=True, denormals_are_zero=True):
        status = sk.a65.dequant.execute(plan, [src.buf], [out.buf])
    assert status.code == E.UNSUPPORTED_ENVIRONMENT
    message = status.message.lower()
    assert "rounding" in message and "flush" in message, status.message
    assert "trap" not in message, status.message
    assert_untouched(out.buf, SENTINEL, what="output")


PARAMS = [(0x4037CED9, -123), (0x3E000000, 5), (0x40800000, 16777088), (0x3F800000, 16777217), INEXACT,
          OVERFLOW, TINY]


@pytest.mark.parametrize("route", ROUTES)
def test_default_state_is_left_unchanged(route):
    """Every form, both outputs: the caller's state is the same after the call."""
    for params in PARAMS:
        for dst in (F32, BF16):
            plan, src, out, values = nonempty_case(route, dst, params)
            before = sk.fenv.query()
            assert sk.a65.dequant.execute(plan, [src.buf], [out.buf]) is None
            assert sk.fenv.query() == before == DEFAULT
            assert_bits_equal(out.read(), oracle_dequant(values, dst, *params), values, f"{route} {params}")
