# Native arm64 test image: installs the aarch64 wheel into a real arm64 Debian
# userland and runs the suite. On an x86-64 host it needs binfmt_misc with
# QEMU registered (docker run --privileged --rm tonistiigi/binfmt --install arm64).
#   make wheel-aarch64
#   docker build --platform linux/arm64 -f docker/arm64-test.Dockerfile -t simakernels-arm64 .
#   docker run --rm --platform linux/arm64 simakernels-arm64
FROM --platform=linux/arm64 debian:bookworm
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY requirements.txt requirements-dev.txt pyproject.toml /src/
COPY tests /src/tests
COPY dist/simakernels-*_aarch64.whl /src/dist/
RUN python3 -m venv /venv && /venv/bin/pip install -q -r requirements-dev.txt \
    && /venv/bin/pip install -q --no-deps dist/simakernels-*_aarch64.whl
ENV SIMAKERNELS_EXPECT_INSTALLED=1
CMD ["sh", "-c", "/venv/bin/python -P -m simakernels selftest && /venv/bin/python -P -m pytest -q -p no:cacheprovider tests"]
