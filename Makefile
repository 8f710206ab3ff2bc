# simakernels: every verb of the project.  `make run` and `make test` set up
# everything (system packages, .venv, the native build) from a fresh clone.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PYTEST_ARGS ?=

NATIVE_INPUTS := $(shell find csrc -name '*.c' -o -name '*.h' -o -name '*.py' | grep -v __pycache__) \
                 simakernels/_version.py simakernels/_sourcedigest.py setup.py
NATIVE_STAMP  := build/.native-$(shell uname -m)

.PHONY: run test build venv clean

run: build
	$(PY) -m simakernels demo

test: build
	$(PY) -m pytest -q $(PYTEST_ARGS)

build: $(NATIVE_STAMP)

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt toolchains/host/ensure-system.sh
	bash toolchains/host/ensure-system.sh $(PYTHON)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	touch $@

# The compiled core lands next to the sources (simakernels/_native*.so);
# simakernels refuses to import it once csrc/ changes without a rebuild.
$(NATIVE_STAMP): $(VENV)/.installed $(NATIVE_INPUTS)
	$(PY) setup.py -q build_ext --inplace --force --build-temp build/temp-$(shell uname -m)
	$(PY) -m simakernels info --brief
	@mkdir -p build && touch $@

clean:
	rm -rf build dist *.egg-info simakernels/_native*.so simakernels/_native.c .pytest_cache .hypothesis
