"""The compiled Python modules: pyproject.toml's `[tool.tactician] compiled` list (the one place a module opts in),
compiled by Cython from the same `.py` source the pure build runs (engine/compiled.py says how an edited source is
never shadowed by an old build). Everything else about the project is in pyproject.toml, whose hand-written C
modules setuptools adds to these.

Each module is optional: without Cython or a C compiler it is left out and its source runs."""
from __future__ import annotations

import os
import tomllib
from pathlib import Path

from setuptools import Extension, setup

ROOT = Path(__file__).resolve().parent
# Python semantics kept whole: annotations are not read as C types, functions stay introspectable.
DIRECTIVES = {"language_level": 3, "binding": True, "annotation_typing": False}


def compiled_modules() -> list[str]:
    """The source paths listed in pyproject.toml, relative to the project root."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["tactician"]["compiled"]


def extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("tactician: Cython is not installed; the compiled modules run from their source")
        return []
    exts = [Extension(p[:-3].replace("/", "."), [p], optional=True, extra_compile_args=["-O2"])
            for p in compiled_modules()]
    built = cythonize(exts, compiler_directives=DIRECTIVES, build_dir="build/cython", quiet=True)
    for ext in built:  # cythonize makes new Extensions without `optional`: a failed compile must not stop the install
        ext.optional = True
    return built


setup(ext_modules=extensions(), options={"build_ext": {"parallel": os.cpu_count() or 1}})
