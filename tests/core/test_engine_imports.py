"""`engine` must never import the learning stack (gymnasium, torch, stable-baselines3, sb3-contrib)."""
import ast
import subprocess
import sys
from pathlib import Path

FORBIDDEN = ("gymnasium", "gym", "torch", "stable_baselines3", "sb3_contrib", "tensorboard")
ENGINE = Path(__file__).resolve().parents[2] / "engine"


def test_importing_every_engine_module_pulls_in_no_learning_library():
    code = f"""
import importlib, pkgutil, sys
import engine
for m in pkgutil.walk_packages(engine.__path__, "engine."):
    importlib.import_module(m.name)
from engine.rulesets import available
available()
bad = sorted(k for k in sys.modules if k.split(".")[0] in {FORBIDDEN!r})
print("BAD" if bad else "OK", bad)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=ENGINE.parent)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("OK"), out.stdout


def test_no_engine_source_names_a_learning_library():
    offenders = []
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                    "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
                names = [str(node.args[0].value)]
            offenders += [f"{path.relative_to(ENGINE.parent)}:{node.lineno} {n}" for n in names
                          if n.split(".")[0] in FORBIDDEN]
    assert not offenders, offenders
    assert len(list(ENGINE.rglob("*.py"))) > 10  # the scan did look at the engine
