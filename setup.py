"""Build the Cython solver extension; everything else lives in pyproject.toml.

Every ``cython_solver/*.pyx`` becomes an extension module. The flags are plain
gcc/clang ones that work on x86-64, aarch64 and 32-bit ARM alike (no
-march=native, no intrinsics), so a wheel built on one Pi runs on every Pi of
the same arch; on 32-bit ARM the extensions link libatomic.
"""

import platform
import sys
from pathlib import Path

from setuptools import Extension, setup

COMPILE_ARGS = [] if sys.platform == "win32" else ["-O3", "-fno-strict-aliasing"]
# 32-bit ARM: the table's 64-bit atomic loads and stores are library calls on ARMv6
# (the Pi Zero's core; Raspberry Pi OS's 32-bit compiler targets it), in libatomic.
LIBRARIES = ["atomic"] if platform.machine().startswith("arm") else []


def _extensions() -> list:
    sources = sorted(Path("cython_solver").glob("*.pyx"))
    if not sources:
        return []
    from Cython.Build import cythonize

    extensions = [
        Extension(f"cython_solver.{path.stem}", [str(path)], include_dirs=["cython_solver"],
                  depends=["cython_solver/c4core.h"], extra_compile_args=COMPILE_ARGS,
                  libraries=LIBRARIES)
        for path in sources
    ]
    return cythonize(
        extensions,
        compiler_directives={"language_level": 3, "boundscheck": False, "wraparound": False},
        quiet=True,
    )


setup(ext_modules=_extensions())
