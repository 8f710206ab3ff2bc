"""Package metadata; the native build is described in csrc/ffi_build.py.

``python -m build`` (make wheel, make sdist) and ``pip install .`` read it.
The supported CPythons are listed once, here: Requires-Python, the
classifiers and the wheel's stable-ABI tag come from PYTHONS, and
``make test-pythons`` reads them back from the built wheel's metadata.
"""
import os
import pathlib
from concurrent.futures import ThreadPoolExecutor

from setuptools import find_packages, setup
from setuptools.command.build_ext import build_ext as _build_ext

ROOT = pathlib.Path(__file__).parent
namespace: dict = {}
exec((ROOT / "simakernels" / "_version.py").read_text(), namespace)

# Every CPython `make test-pythons` installs the wheel into and runs the
# selftest on; the oldest is the floor that numpy 2.0 and ml_dtypes 0.5
# (the oldest versions tested, on it) still support.  One wheel per
# platform serves them all: the core is built for the limited API (abi3).
PYTHONS = ("3.9", "3.10", "3.11", "3.12", "3.13")
OLDEST = PYTHONS[0]



class build_ext(_build_ext):
    """build_ext compiling the core's C files (some fifty) on every core, as
    setuptools compiles one extension's sources one after another: the
    compiler's own ``compile`` loop with its per-file step run by a thread
    pool (each step is a compiler process).  SIMAKERNELS_BUILD_JOBS=N sets
    the pool's size (1: the plain loop)."""

    def build_extension(self, ext):
        compiler = self.compiler
        jobs = int(os.environ.get("SIMAKERNELS_BUILD_JOBS") or os.cpu_count() or 1)
        if jobs < 2 or not hasattr(compiler, "_setup_compile"):
            return super().build_extension(ext)

        def compile(sources, output_dir=None, macros=None, include_dirs=None, debug=0, extra_preargs=None,
                    extra_postargs=None, depends=None):
            macros, objects, extra_postargs, pp_opts, build = compiler._setup_compile(
                output_dir, macros, include_dirs, sources, depends, extra_postargs)
            cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)
            with ThreadPoolExecutor(jobs) as pool:
                for _ in pool.map(lambda obj: compiler._compile(obj, *build[obj], cc_args, extra_postargs, pp_opts),
                                  [obj for obj in objects if obj in build]):
                    pass
            return objects

        compiler.compile = compile
        try:
            super().build_extension(ext)
        finally:
            del compiler.compile


setup(
    name="simakernels",
    version=namespace["__version__"],
    description="Bit-exact Cast, Dequant and Quant kernels for the A65 CPU and EV74 host codec",
    long_description=(ROOT / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    packages=find_packages(include=["simakernels", "simakernels.*"]),
    package_data={"simakernels": ["py.typed"]},
    # A core built in place by `make build` never rides along with
    # `pip install .`: the build's own is the one installed.
    exclude_package_data={"simakernels": ["_native*.so"]},
    python_requires=f">={OLDEST}",
    install_requires=["cffi>=2.0", "numpy>=2.0", "ml_dtypes>=0.5"],
    # simakernels.dask; the floors are what make test-pythons installs on
    # the oldest Python.
    extras_require={"dask": ["dask[array]>=2024.8.0", "distributed>=2024.8.0"]},
    cffi_modules=["csrc/ffi_build.py:ffibuilder"],
    cmdclass={"build_ext": build_ext},  # cffi's own build_ext (generating the C) derives from it
    options={"bdist_wheel": {"py_limited_api": "cp" + OLDEST.replace(".", "")}},
    classifiers=[
        "Development Status :: 3 - Alpha",
        "Intended Audience :: Developers",
        "Intended Audience :: Science/Research",
        "Operating System :: POSIX :: Linux",
        "Programming Language :: C",
        "Programming Language :: Python :: 3 :: Only",
        *(f"Programming Language :: Python :: {version}" for version in PYTHONS),
        "Programming Language :: Python :: Implementation :: CPython",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
        "Typing :: Typed",
    ],
    zip_safe=False,
)
