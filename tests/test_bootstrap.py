"""bootstrap.py reinstalls (and so recompiles) when a C file changes: every C file of the packages counts."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _bootstrap():
    spec = importlib.util.spec_from_file_location("bootstrap", ROOT / "bootstrap.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_c_file_of_the_packages_is_a_build_input():
    inputs = set(_bootstrap().build_inputs())
    c_files = {p for pkg in ("engine", "envs", "agents") for p in (ROOT / pkg).glob("**/*.[ch]")}
    assert ROOT / "pyproject.toml" in inputs
    assert c_files - inputs == set(), "C files missing from pyproject.toml's ext-modules (sources or depends)"
    assert all(p.exists() for p in inputs)
