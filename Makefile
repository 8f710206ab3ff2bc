# simakernels: every verb of the project.  `make run` and `make test` set up
# everything (system packages, .venv, the native build) from a fresh clone.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PYTEST_ARGS ?=

NATIVE_INPUTS := $(shell find csrc -name '*.c' -o -name '*.h' -o -name '*.inc' -o -name '*.cl' -o -name '*.py' | grep -v __pycache__) \
                 simakernels/_version.py simakernels/_sourcedigest.py setup.py
NATIVE_STAMP  := build/.native-$(shell uname -m)

.PHONY: run test typecheck build venv clean wheel wheel-aarch64 sdist test-pythons lint aarch64-env test-aarch64 test-aarch64-a76 test-aarch64-a53 sanitize bench bench-peers \
        bench-aarch64 neon-estimate floor fuzz

run: build
	$(PY) -m simakernels demo

# pytest-xdist: JOBS workers (default: one per core), whole modules per
# worker so that each module's fixtures and oracle results stay in one process.
JOBS ?= auto
XDIST = -n $(JOBS) --dist loadfile

test: build
	$(PY) -m pytest -q $(XDIST) $(PYTEST_ARGS)

# mypy --strict over the package (settings in pyproject.toml [tool.mypy]);
# needs no native build: the compiled core is untyped to mypy.
typecheck: $(VENV)/.installed
	$(PY) -m mypy --strict simakernels

# ruff over every Python file (pyproject.toml [tool.ruff]) and clang-format
# over every C file (.clang-format): what CI checks, nothing rewritten.
lint: $(VENV)/.installed
	bash toolchains/host/lint-packages.sh
	$(PY) -m ruff check .
	git ls-files -z '*.c' '*.h' '*.cl' | xargs -0 clang-format-15 --dry-run --Werror

# Throughput against the memcpy-equivalent, NumPy's expression and peers, as
# ratios measured in one run (README "Benchmark"; options: BENCH_ARGS="--help").
# bench-peers first installs the optional peers (torch, onnxruntime, onnx,
# matplotlib) into .venv, then runs with every one of them.
bench: build
	$(PY) -m simakernels bench $(BENCH_ARGS)

bench-peers: build $(VENV)/.bench-peers
	$(PY) -m simakernels bench --peers $(BENCH_ARGS)

$(VENV)/.bench-peers: requirements-bench.txt $(VENV)/.installed
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-bench.txt
	touch $@

build: $(NATIVE_STAMP) $(VENV)/.checkout-install

# The checkout installed into the venv, editable, with nothing compiled (the
# native core is built in place above): a .pth file puts it on the path, so
# that .venv/bin/python imports simakernels from any directory (an install
# or PYTHONPATH placed ahead of it wins), and a dist-info carries setup.py's
# metadata (importlib.metadata, pip list); toolchains/host/checkout_install.py.
$(VENV)/.checkout-install: $(VENV)/.installed setup.py simakernels/_version.py toolchains/host/checkout_install.py
	$(PY) toolchains/host/checkout_install.py $(CURDIR)
	touch $@

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt requirements-tools.txt requirements-dask.txt requirements-interop.txt \
                    requirements-opencl.txt toolchains/host/ensure-system.sh toolchains/host/opencl-packages.sh
	bash toolchains/host/ensure-system.sh $(PYTHON)
	bash toolchains/host/opencl-packages.sh
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt -r requirements-tools.txt \
	    -r requirements-dask.txt -r requirements-interop.txt -r requirements-opencl.txt
	touch $@

# The compiled core lands next to the sources (simakernels/_native*.so);
# simakernels refuses to import it once csrc/ changes without a rebuild.
# The old module is unlinked first: rewriting it in place would change the
# code under any process that has it loaded (a running test suite).
$(NATIVE_STAMP): $(VENV)/.installed $(NATIVE_INPUTS)
	rm -f simakernels/_native*.so
	SIMAKERNELS_TEST_HOOKS=1 $(PY) setup.py -q build_ext --inplace --force --build-temp build/temp-$(shell uname -m)
	$(PY) -m simakernels info --brief
	@mkdir -p build && touch $@

# ---- wheels and the sdist ----------------------------------------------------
# One wheel per platform for every supported CPython (the core is built for
# the limited API: cp39-abi3), built by `python -m build` from the sdist,
# tagged by `auditwheel repair`, audited by abi3audit: toolchains/wheel.py.
# The stamps stand for dist/simakernels-*-cp39-abi3-manylinux*_<arch>.whl.
HOST_ARCH   := $(shell uname -m)
PKG_FILES   := $(shell find simakernels -name '*.py') simakernels/py.typed
DIST_INPUTS := $(VENV)/.installed $(NATIVE_INPUTS) $(PKG_FILES) pyproject.toml MANIFEST.in README.md toolchains/wheel.py
WHEEL_HOST  := dist/.wheel-$(HOST_ARCH)
WHEEL_ARM   := dist/.wheel-aarch64
AARCH64_DIR := .aarch64
QEMU_PY     := toolchains/aarch64/python

wheel: $(WHEEL_HOST)
wheel-aarch64: $(WHEEL_ARM)

$(WHEEL_HOST): $(DIST_INPUTS)
	$(PY) toolchains/wheel.py $(HOST_ARCH)
	touch $@

$(WHEEL_ARM): $(AARCH64_DIR)/.env $(DIST_INPUTS)
	$(PY) toolchains/wheel.py aarch64
	touch $@

# The source distribution: `pip install dist/simakernels-*.tar.gz` builds
# the core on the installing machine (make test-pythons does, from a clean venv).
sdist: dist/.sdist

dist/.sdist: $(DIST_INPUTS)
	rm -f dist/simakernels-*.tar.gz
	mkdir -p build
	$(PY) -m build --sdist --no-isolation --outdir dist . > build/sdist.log 2>&1 || { cat build/sdist.log; exit 1; }
	ls dist/simakernels-*.tar.gz
	touch $@

# Every CPython the wheel claims (setup.py PYTHONS, read back from the
# wheel's classifiers), each in a clean venv: the host wheel installed with
# its dependencies (the oldest Python with the dask extra and the oldest
# versions setup.py admits, the Dask example run), the selftest and the
# metadata checked; the sdist built and selftested on the newest, `pip
# install .` on the one before; the AArch64 wheel's tags accepted for each
# version (toolchains/host/test_pythons.py).
test-pythons: $(WHEEL_HOST) $(WHEEL_ARM) dist/.sdist
	$(PY) toolchains/host/test_pythons.py

# ---- AArch64 under QEMU (no Docker needed) --------------------------------------
aarch64-env: $(AARCH64_DIR)/.env

$(AARCH64_DIR)/.env: toolchains/aarch64/host-packages.sh toolchains/aarch64/sysroot.sh \
                     toolchains/aarch64/requirements.txt requirements.txt requirements-dev.txt
	bash toolchains/aarch64/host-packages.sh
	bash toolchains/aarch64/sysroot.sh $(AARCH64_DIR)
	touch $@

# Installs the wheel with the emulated pip (proving its tag is accepted), then
# runs two suites, each also a target of its own (CI runs the a53 one in a
# lane beside the host's steps and the a76 one after them):
#   test-aarch64-a76: the suite's NEON-route cases (SIMAKERNELS_TEST_ROUTES=neon,
#     read by tests/support/helpers.py) on an ARMv8.2 model (cortex-a76,
#     closest to the A65) on JOBS pytest-xdist workers (default one per core;
#     whole modules per worker, as for make test), all but the modules that
#     do not depend on the target (tests/conftest.py HOST_ONLY: pure-Python
#     admission and its messages, docs, CLI, benchmark tooling) and the EV74
#     decoder's 100,000-case fuzz loop (the host runs it, and make fuzz the
#     decoder's libFuzzer target; its quick loops run here);
#   test-aarch64-a53: on the ARMv8.0 baseline (cortex-a53), the selftest
#     (every route, exhaustive patterns) and, on every route, the tests
#     that depend on what the CPU model has: FP environments (FZ16 and the
#     FP16 vector ops exist on a76 only), numerics and the dense leaves,
#     quick part.
# Logs: .aarch64/a76.log, a53.log and a53-selftest.log.
# `python -P` keeps the source tree from shadowing the installed wheel.
# tests/oracle checks the reference arithmetic itself, not the build, so it
# runs on the host only.
QEMU_RUN    = PYTHONPATH=$(abspath $(AARCH64_DIR))/pkg SIMAKERNELS_EXPECT_INSTALLED=1 $(QEMU_PY) -P
QEMU_PYTEST = -m pytest -q -p no:cacheprovider --ignore=tests/oracle $(PYTEST_ARGS)
QEMU_MARKS  = not host_only
A76_SKIP    = --deselect tests/ev74/test_ev74_decoder.py::test_fuzz_loop_100k
A53_TESTS   = tests/tools/test_build.py \
              tests/fenv/test_fenv.py tests/fenv/test_dequant_fenv.py tests/fenv/test_quant_fenv.py tests/fenv/test_hurray_fenv.py \
              tests/numerics/test_cast_numerics.py tests/numerics/test_dequant_numerics.py tests/numerics/test_quant_numerics.py \
              tests/layouts/test_dense_leaves.py
test-aarch64: $(AARCH64_DIR)/pkg/.installed
	$(MAKE) --no-print-directory test-aarch64-a53 > $(AARCH64_DIR)/a53-make.log 2>&1 & a53=$$!; \
	$(MAKE) --no-print-directory test-aarch64-a76; status=$$?; \
	wait $$a53; a53=$$?; cat $(AARCH64_DIR)/a53-make.log; \
	test $$status -eq 0 -a $$a53 -eq 0

test-aarch64-a76: $(AARCH64_DIR)/pkg/.installed
	QEMU_CPU=cortex-a76 $(QEMU_RUN) -m simakernels info
	SIMAKERNELS_TEST_IN_PROCESS=1 SIMAKERNELS_TEST_ROUTES=neon QEMU_CPU=cortex-a76 $(QEMU_RUN) $(QEMU_PYTEST) $(XDIST) \
	    -m "$(QEMU_MARKS)" $(A76_SKIP) tests > $(AARCH64_DIR)/a76.log 2>&1; status=$$?; \
	echo "---- cortex-a76 ----"; tail -n 15 $(AARCH64_DIR)/a76.log; \
	test $$status -eq 0

test-aarch64-a53: $(AARCH64_DIR)/pkg/.installed
	QEMU_CPU=cortex-a53 $(QEMU_RUN) -m simakernels selftest --quiet > $(AARCH64_DIR)/a53-selftest.log 2>&1; a53=$$?; \
	SIMAKERNELS_TEST_IN_PROCESS=1 QEMU_CPU=cortex-a53 $(QEMU_RUN) $(QEMU_PYTEST) -m "not slow and $(QEMU_MARKS)" $(A53_TESTS) \
	    > $(AARCH64_DIR)/a53.log 2>&1 || a53=1; \
	echo "---- cortex-a53 ----"; cat $(AARCH64_DIR)/a53-selftest.log; tail -n 15 $(AARCH64_DIR)/a53.log; \
	test $$a53 -eq 0

$(AARCH64_DIR)/pkg/.installed: $(WHEEL_ARM)
	rm -rf $(AARCH64_DIR)/pkg
	$(QEMU_PY) -m pip install -q --disable-pip-version-check --root-user-action=ignore \
	    --no-deps --no-index --target $(AARCH64_DIR)/pkg dist/simakernels-*_aarch64.whl
	touch $@

# ---- AArch64 dynamic cost (QEMU TCG plugin) -----------------------------------
# Instructions executed inside the native module per execute, by class, per
# op x layout x size x route, on the cortex-a76 model, with the targets
# (toolchains/aarch64/bench_aarch64.py; BENCH_ARGS="--help" for options,
# e.g. --json FILE).  Debian's qemu-user provides the plugin-capable
# qemu-aarch64 (toolchains/aarch64/bench-packages.sh installs it).
bench-aarch64: $(AARCH64_DIR)/pkg/.installed
	bash toolchains/aarch64/bench-packages.sh
	$(PY) toolchains/aarch64/bench_aarch64.py $(BENCH_ARGS)

# ---- NEON cost estimate (static) -----------------------------------------------
# No AArch64 hardware here: llvm-mca's cycles for each NEON leaf's hot loop,
# compiled with the build's flags by the cross gcc (docs/PERF.md records the
# table; the assembly and llvm-mca's reports stay in build/neon-estimate).
neon-estimate:
	bash toolchains/aarch64/mca-packages.sh
	$(PYTHON) toolchains/aarch64/neon_estimate.py --out build/neon-estimate

# ---- x86-64 throughput floor ----------------------------------------------------
# How fast this CPU issues the instructions the contract's arithmetic needs,
# with no memory traffic (toolchains/host/floor.c; docs/PERF.md's "What this
# machine allows at 256K" uses it).  Plain gcc, no Python build needed.
floor:
	@test "$$(uname -m)" = x86_64 || { echo "make floor: an x86-64 tool"; exit 2; }
	mkdir -p build
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o build/floor toolchains/host/floor.c
	build/floor

# ---- sanitizers ------------------------------------------------------------
# The C core built with AddressSanitizer and UndefinedBehaviorSanitizer (any
# report aborts), installed beside the sources in build/sanitize, and the
# suite run against it with the runtimes preloaded into the interpreter.
# Leak detection is off: CPython keeps its arenas to the end by design.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_DIR   := build/sanitize
SAN_ENV   := ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
             LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)"
sanitize: $(VENV)/.checkout-install  # the metadata; build/sanitize holds the code
	rm -rf $(SAN_DIR)
	SIMAKERNELS_TEST_HOOKS=1 SIMAKERNELS_EXTRA_CFLAGS="$(SAN_FLAGS)" $(PY) setup.py -q build_py --build-lib $(SAN_DIR) \
	    build_ext --build-lib $(SAN_DIR) --build-temp build/temp-sanitize --force
	$(SAN_ENV) PYTHONPATH=$(SAN_DIR) SIMAKERNELS_EXPECT_INSTALLED=1 $(PY) -P -m pytest -q -p no:cacheprovider \
	    $(XDIST) --ignore=tests/oracle $(PYTEST_ARGS) tests

clean:
	rm -rf build dist *.egg-info simakernels/_native*.so simakernels/_native.c .pytest_cache .hypothesis .mypy_cache

# ---- fuzzing -----------------------------------------------------------------
# Coverage-guided fuzzing with libFuzzer (clang 15, AddressSanitizer + UBSan;
# any report or violated property is a crash), FUZZ_SECONDS per target:
#   ev74_decode - the native EV74 descriptor decoder, seeded with valid
#                 descriptors from the Python encoder;
#   a65_execute - the Cast/Dequant/Quant execute entries on random small
#                 layouts, every route against the scalar reference.
# Corpora grow in build/fuzz across runs; crash inputs land there as
# crash-*.  docs/RELIABILITY.md has the figures and the hypothesis side
# (SIMAKERNELS_FUZZ_EXAMPLES).
FUZZ_SECONDS ?= 60
FUZZ_DIR     := build/fuzz

fuzz: $(VENV)/.installed
	bash toolchains/host/fuzz-packages.sh
	bash tests/fuzz/build.sh $(FUZZ_DIR)
	PYTHONPATH=. $(PY) tests/fuzz/ev74_seeds.py $(FUZZ_DIR)/seeds-ev74
	@cd $(FUZZ_DIR) && rm -f crash-* leak-* timeout-* oom-* && status=0; \
	for target in ev74_decode a65_execute; do \
	    mkdir -p corpus-$$target; seeds=; [ $$target = ev74_decode ] && seeds=seeds-ev74; \
	    ./$$target -max_total_time=$(FUZZ_SECONDS) -max_len=512 -print_final_stats=1 -artifact_prefix=./ \
	        corpus-$$target $$seeds > $$target.log 2>&1 || status=1; \
	    grep -E "ERROR|SUMMARY|property violated|runtime error" $$target.log | head -5; \
	    echo "$$target: $$(sed -n 's/^stat::number_of_executed_units: *//p' $$target.log) inputs in" \
	         "$(FUZZ_SECONDS) s, $$(grep -o 'cov: [0-9]* ft: [0-9]*' $$target.log | tail -1)"; \
	done; \
	n=$$(ls crash-* leak-* timeout-* oom-* 2>/dev/null | wc -l); echo "crashes: $$n (inputs in $(FUZZ_DIR))"; \
	test $$status -eq 0 -a $$n -eq 0
