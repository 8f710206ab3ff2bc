"""Package metadata; the native build is described in csrc/ffi_build.py."""
import pathlib

from setuptools import find_packages, setup

namespace: dict = {}
exec((pathlib.Path(__file__).parent / "simakernels" / "_version.py").read_text(), namespace)

setup(
    name="simakernels",
    version=namespace["__version__"],
    description="Bit-exact Cast, Dequant and Quant kernels for the A65 CPU and EV74 host codec",
    packages=find_packages(include=["simakernels", "simakernels.*"]),
    package_data={"simakernels": ["py.typed"]},
    # What is built and tested: the wheels (Makefile: cp311 tags) and the
    # AArch64 sysroot are CPython 3.11 only.
    python_requires="==3.11.*",
    install_requires=["cffi>=1.17", "numpy>=1.24", "ml_dtypes>=0.4"],
    cffi_modules=["csrc/ffi_build.py:ffibuilder"],
    zip_safe=False,
)
