"""Shared test setup: toy rulesets (tests/toys) register themselves so the conformance suite covers them."""
from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

_toys = Path(__file__).parent / "toys"
if (_toys / "__init__.py").exists():
    for mod in pkgutil.iter_modules([str(_toys)]):
        if mod.name.startswith("toy_"):
            importlib.import_module(f"tests.toys.{mod.name}")


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_one_temporary_directory():
    """A model that learns without a logger of its own gets SB3's default, which makes a new directory under /tmp
    each time: the suite's go into one directory, removed at the end."""
    with tempfile.TemporaryDirectory(prefix="tactician-tests-sb3-") as folder:
        before = os.environ.get("SB3_LOGDIR")
        os.environ["SB3_LOGDIR"] = folder
        yield
        if before is None:
            os.environ.pop("SB3_LOGDIR", None)
        else:
            os.environ["SB3_LOGDIR"] = before
