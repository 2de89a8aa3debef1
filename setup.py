"""Build the Cython solver extension; everything else lives in pyproject.toml."""

from pathlib import Path

from setuptools import setup


def _extensions() -> list:
    sources = sorted(Path("cython_solver").glob("*.pyx"))
    if not sources:
        return []
    from Cython.Build import cythonize

    return cythonize(
        [str(path) for path in sources],
        compiler_directives={"language_level": 3, "boundscheck": False, "wraparound": False},
        quiet=True,
    )


setup(ext_modules=_extensions())
