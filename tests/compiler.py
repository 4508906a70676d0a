"""Whether this machine can compile C, for the tests of the C modules.

Where it can, a C module that did not build is an error: the tests that need it run and fail. Where it cannot (no
compiler: the install leaves every C and compiled module out and their Python runs, issue 17), the tests comparing a
C module with its Python have nothing to compare and are skipped; the rest of the suite runs on the Python.
"""
from __future__ import annotations

import os
import shlex
import shutil
import sysconfig

import pytest


def c_compiler_here() -> bool:
    """Whether the C compiler the build would use (`CC`, else Python's own) is on this machine."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shutil.which(shlex.split(cc)[0]) is not None


def needs_c(built: bool, what: str):
    """A skip marker for the tests of a C module: skipped only when it is not built and no C compiler is here."""
    return pytest.mark.skipif(not built and not c_compiler_here(),
                              reason=f"{what} is not built and there is no C compiler here: its Python runs")
