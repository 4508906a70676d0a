#!/usr/bin/env python3
"""Set up the virtual environment if needed, then run the demo, the tests or any tactician command.

    python3 bootstrap.py demo        narrated demo battle (shipped policy vs heuristic PCs)
    python3 bootstrap.py test        the test suite
    python3 bootstrap.py tactician ARGS...

Idempotent: the environment in .venv is reused while pyproject.toml, setup.py, the C sources and the compiled
Python modules are unchanged. Needs only Python 3.11.
"""
from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".installed"
DEMO = ["autopilot", "configs/encounters/saga/cantina_ambush.yaml", "--npcs", "zoo:saga", "--pcs", "heuristic",
        "--seed", "7"]


def run(cmd: list[str]) -> None:
    subprocess.run(cmd, check=True, cwd=ROOT)


def build_inputs() -> list[Path]:
    """pyproject.toml, setup.py, the C files that its ext-modules compile (sources and depends) and the Python
    modules compiled by Cython (`[tool.tactician] compiled`): the install is redone when one of them is newer than
    the last install."""
    import tomllib

    project = ROOT / "pyproject.toml"
    config = tomllib.loads(project.read_text())["tool"]
    modules = config["setuptools"].get("ext-modules", [])
    return [project, ROOT / "setup.py", *(ROOT / f for m in modules for f in (*m["sources"], *m.get("depends", []))),
            *(ROOT / f for f in config["tactician"]["compiled"])]


def setup() -> None:
    if STAMP.exists() and STAMP.stat().st_mtime >= max(p.stat().st_mtime for p in build_inputs()):
        return
    if not (BIN / "python").exists():
        venv.create(VENV, with_pip=True)
    py = str(BIN / "python")
    run([py, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    # torch first and pinned: on these machines 2.13.0 is a CPU build on disk; unpinned pulls GBs of CUDA.
    run([py, "-m", "pip", "install", "--quiet", "torch==2.13.0"])
    run([py, "-m", "pip", "install", "--quiet", "-e", ".[dev]"])
    STAMP.touch()


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("demo", "test", "tactician", "setup"):
        print(__doc__)
        return 2
    setup()
    if argv[0] == "setup":
        return 0
    if argv[0] == "demo":
        cmd = [str(BIN / "tactician"), *DEMO, *argv[1:]]
    elif argv[0] == "test":
        cmd = [str(BIN / "python"), "-m", "pytest", *argv[1:]]
    else:
        cmd = [str(BIN / "tactician"), *argv[1:]]
    return subprocess.run(cmd, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
