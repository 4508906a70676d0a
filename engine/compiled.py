"""Compiled Python: the rules written once, in Python, and compiled from that same source when a compiler is there.

The modules listed under `[tool.tactician] compiled` in pyproject.toml (the one place a module opts in) are
compiled by Cython at install time (setup.py; `python3 bootstrap.py setup` rebuilds them when one changes). A
built module is a file `<name>.cpython-*.so` beside `<name>.py`, which Python would import in its place; the
finder here, installed when `engine` is first imported, keeps that from going wrong:

- a build older than its source (the `.py` edited or checked out since) is not used: the `.py` is, with a warning
  naming the fix (`python3 bootstrap.py setup`), so an edit always takes effect;
- `TACTICIAN_PURE=1` in the environment runs every listed module from its source (profiling, or checking that both
  forms give the same battles: tests/core/test_compiled.py).

Without a compiler (or Cython) nothing is built and the same source runs, slower.
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import warnings

PACKAGES = ("engine.", "envs.", "agents.")


def pure() -> bool:
    """Whether the listed modules run from their source (`TACTICIAN_PURE` set to anything but 0)."""
    return os.environ.get("TACTICIAN_PURE", "") not in ("", "0")


def built_beside(source: str) -> str | None:
    """The compiled module beside a `.py` file, if one is there."""
    stem = source[:-3]
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if os.path.isfile(stem + suffix):
            return stem + suffix
    return None


def choose(source: str, build: str | None, run_pure: bool) -> str:
    """Which file a module is loaded from: its build unless there is none, it is older than the source, or the
    source is asked for."""
    if build is None or run_pure or os.path.getmtime(source) > os.path.getmtime(build):
        return source
    return build


class SourceOverStaleBuild:
    """A meta path finder for the project's modules that have both a source and a build: the source when the build
    is stale or `TACTICIAN_PURE` is set; otherwise nothing (the usual finders load the build)."""

    warned: set[str] = set()

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if path is None or not name.startswith(PACKAGES):
            return None
        leaf = name.rpartition(".")[2]
        for folder in path:
            source = os.path.join(folder, leaf + ".py")
            if not os.path.isfile(source):
                continue
            build = built_beside(source)
            run_pure = pure()
            if build is None or choose(source, build, run_pure) == build:
                return None
            if not run_pure and name not in cls.warned:
                cls.warned.add(name)
                warnings.warn(f"{name}: its compiled build is older than {source}, so the source runs (slower); "
                              f"rebuild with `python3 bootstrap.py setup`", stacklevel=2)
            return importlib.util.spec_from_file_location(name, source)
        return None


def install() -> None:
    """Put the finder first on `sys.meta_path` (once)."""
    if SourceOverStaleBuild not in sys.meta_path:
        sys.meta_path.insert(0, SourceOverStaleBuild)


def is_compiled(module) -> bool:
    """Whether a module was loaded from a build rather than from its source."""
    return not (getattr(module, "__file__", "") or "").endswith(".py")
