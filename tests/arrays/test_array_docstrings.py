"""``help(sk.quantize)`` and friends are what a user works from (issue 19,
edge 10): each array function's docstring holds a runnable example, checked
here by doctest, and states the facts a user cannot guess."""
import doctest

import pytest

import simakernels as sk

FUNCTIONS = {"cast": sk.cast, "dequantize": sk.dequantize, "quantize": sk.quantize,
             "choose_qparams": sk.choose_qparams, "quantize_dynamic": sk.quantize_dynamic}

# Facts each docstring must state (lower case), from the specification.
FACTS = {
    "cast": ["0x7fff", "nan", "ties to even", "workers", "kernelerror", "unsupported_dtype"],
    "dequantize": ["float32(q) - z", "never", "fused", "16777217", "bfloat16", "unsupported_environment",
                   "invalid_params", "workers"],
    "choose_qparams": ["reciprocal", "saturates", "half a scale step", "nan", "symmetric", "unsupported_dtype",
                       "invalid_params", "block_size", "ceil(x.shape[axis] / block_size)"],
    "quantize_dynamic": ["bit for bit", "choose_qparams", "block_size", "nan", "zero point", "saturate",
                         "unsupported_environment", "invalid_params", "unsupported_dtype", "dequantize"],
    "quantize": ["reciprocal", "numpy.float32(1) / numpy.float32(scale)", "nan", "zero_point", "saturated",
                 "infinity", "15 * 0.3", "unsupported_environment", "invalid_params", "workers"],
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_docstring_examples_run(name):
    function = FUNCTIONS[name]
    tests = doctest.DocTestFinder().find(function, name, globs={})
    examples = sum(len(t.examples) for t in tests)
    assert examples >= 2, f"{name}: the docstring has no runnable example"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_docstring_states_the_contract(name):
    text = " ".join((FUNCTIONS[name].__doc__ or "").lower().split())
    missing = [fact for fact in FACTS[name] if fact not in text]
    assert not missing, f"help(sk.{name}) does not say {missing}"
