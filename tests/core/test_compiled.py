"""The compiled Python modules (pyproject.toml's `[tool.tactician] compiled`, built by setup.py): the list is sound,
a stale build never shadows its source, and the compiled and pure forms play the same battles."""
from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import random
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import pytest

from engine import compiled

ROOT = Path(__file__).resolve().parents[2]
LISTED = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["tactician"]["compiled"]


def test_every_listed_module_is_a_project_source_file():
    assert LISTED, "pyproject.toml lists no compiled modules"
    for path in LISTED:
        assert path.endswith(".py") and path.split("/")[0] in ("engine", "envs", "agents"), path
        assert (ROOT / path).is_file(), f"{path} is listed as compiled but does not exist"
    assert len(set(LISTED)) == len(LISTED)


def _pair(tmp_path: Path, build_newer: bool) -> tuple[Path, Path]:
    source = tmp_path / "fake_mod.py"
    source.write_text("X = 1\n")
    build = tmp_path / ("fake_mod" + importlib.machinery.EXTENSION_SUFFIXES[0])
    build.write_bytes(b"")
    old, new = 1_000_000_000, 1_000_000_100
    os.utime(source, (new, new) if not build_newer else (old, old))
    os.utime(build, (new, new) if build_newer else (old, old))
    return source, build


def test_a_build_is_used_only_when_newer_than_its_source_and_not_asked_to_run_pure(tmp_path):
    source, build = _pair(tmp_path, build_newer=True)
    assert compiled.choose(str(source), str(build), run_pure=False) == str(build)
    assert compiled.choose(str(source), str(build), run_pure=True) == str(source)
    assert compiled.choose(str(source), None, run_pure=False) == str(source)
    os.utime(source, (2_000_000_000, 2_000_000_000))  # the source edited after the build
    assert compiled.choose(str(source), str(build), run_pure=False) == str(source)


def test_the_finder_loads_the_source_of_a_stale_build_and_says_how_to_rebuild(tmp_path, monkeypatch):
    monkeypatch.delenv("TACTICIAN_PURE", raising=False)
    compiled.SourceOverStaleBuild.warned.discard("engine.fake_mod")
    source, _ = _pair(tmp_path, build_newer=False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        spec = compiled.SourceOverStaleBuild.find_spec("engine.fake_mod", [str(tmp_path)])
    assert spec is not None and spec.origin == str(source)
    assert any("bootstrap.py setup" in str(w.message) for w in seen)
    # a fresh build is left to Python's own finders, and modules of other packages are not looked at
    _pair(tmp_path, build_newer=True)
    assert compiled.SourceOverStaleBuild.find_spec("engine.fake_mod", [str(tmp_path)]) is None
    assert compiled.SourceOverStaleBuild.find_spec("other.fake_mod", [str(tmp_path)]) is None
    monkeypatch.setenv("TACTICIAN_PURE", "1")
    assert compiled.SourceOverStaleBuild.find_spec("engine.fake_mod", [str(tmp_path)]).origin == str(source)


def test_fresh_builds_are_loaded():
    """Every listed module that has a build newer than its source is imported from that build (unless the run asks
    for the pure form): the finder does not shadow a good build."""
    import importlib
    if compiled.pure():
        pytest.skip("TACTICIAN_PURE is set: every module runs from its source by request")
    fresh = [p for p in LISTED if (b := compiled.built_beside(str(ROOT / p))) and
             compiled.choose(str(ROOT / p), b, False) == b]
    for path in fresh:
        module = importlib.import_module(path[:-3].replace("/", "."))
        assert compiled.is_compiled(module), f"{path} has a fresh build but ran from its source"


def battles_digest(ruleset: str = "starfinder", n: int = 6) -> str:
    """A hash of n seeded battles of a ruleset played by the heuristic on both sides: every event and the final
    state."""
    from engine.core.battle import Battle
    from engine.core.dice import SeededDice
    from engine.core.generate import random_encounter
    from engine.core.policy import side_reactor
    from engine.policies.heuristic import HeuristicPolicy
    from engine.rulesets import get_ruleset

    rs = get_ruleset(ruleset)
    h = hashlib.sha256()
    for seed in range(n):
        enc = random_encounter(rs, random.Random(seed), 12, 12, sizes=(1, 3), mirrored=False,
                               layouts=("scatter", "rooms", "corridors"), min_width=8, min_height=8, round_limit=8)
        sides = sorted({u.side for u in enc.units})
        pols = {s: HeuristicPolicy(seed + k) for k, s in enumerate(sides)}
        b = Battle(enc, rs, SeededDice(seed), side_reactor(pols))
        b.start()
        while not b.over:
            for e in b.step(pols[b.enc.actor.side].choose(b)):
                h.update(repr((e.kind, e.actor, e.target, sorted(e.data.items()))).encode())
        h.update(json.dumps(b.enc.to_dict(), sort_keys=True).encode())
    return h.hexdigest()


@pytest.mark.parametrize("ruleset", ["saga", "starfinder"])
def test_the_compiled_and_the_pure_modules_play_the_same_battles(ruleset):
    """The same battles in this process (compiled modules where built) and in one that runs every module from its
    source (TACTICIAN_PURE=1)."""
    env = {**os.environ, "TACTICIAN_PURE": "1"}
    code = (f"import engine.rulesets.{ruleset}.ruleset as r, engine.compiled as c, tests.core.test_compiled as t;"
            f"assert not c.is_compiled(r); print(t.battles_digest({ruleset!r}))")
    pure = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True).stdout.strip()
    assert battles_digest(ruleset) == pure
