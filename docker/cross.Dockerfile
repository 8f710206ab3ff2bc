# Cross-build image: builds the manylinux2014 aarch64 wheel on an x86-64 host
# with the same scripts as `make wheel-aarch64` (no Docker needed there).
#   docker build -f docker/cross.Dockerfile -t simakernels-cross .
#   docker run --rm -v "$PWD/dist:/src/dist" simakernels-cross
FROM debian:bookworm
RUN apt-get update && apt-get install -y --no-install-recommends \
        python3 python3-venv python3-dev gcc libc6-dev make ca-certificates \
        gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . /src
RUN make clean && make aarch64-env venv
CMD ["make", "wheel-aarch64"]
