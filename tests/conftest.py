"""Shared test setup: toy rulesets (tests/toys) register themselves so the conformance suite covers them."""
from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

_toys = Path(__file__).parent / "toys"
if (_toys / "__init__.py").exists():
    for mod in pkgutil.iter_modules([str(_toys)]):
        if mod.name.startswith("toy_"):
            importlib.import_module(f"tests.toys.{mod.name}")
