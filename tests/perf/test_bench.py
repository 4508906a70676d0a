"""`tactician bench` runs with tiny settings and reports every field (no timing assertions)."""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from agents import bench
from agents.cli import app
from tests.compiler import c_compiler_here


def test_engine_rate_counts_decisions():
    r = bench.engine_rate("saga", 0.05)
    assert r["decisions"] > 0 and r["battles"] >= 1
    assert r["decisions_per_s"] > 0
    assert "16x16" in r["encounter"] or r["encounter"].endswith(".yaml")
    assert "split_us" not in r


def test_engine_split_times_every_part_of_a_decision():
    r = bench.engine_rate("saga", 0.05, split=True)
    parts = r["split_us"]
    assert set(parts) == {"legal", "mask", "observation", "apply"}
    assert all(v > 0 for v in parts.values())
    assert sum(parts.values()) <= 1e6 / r["decisions_per_s"]  # the parts fit in the whole decision
    text = CliRunner().invoke(app, ["bench", "--ruleset", "saga", "--seconds", "0.05", "--only", "engine", "--split"])
    assert text.exit_code == 0, text.output
    assert "per decision: legal" in text.output and "observation" in text.output


def test_repeat_reports_the_median_run_and_every_run():
    r = bench.engine_runs("saga", 0.05, 3)
    assert len(r["runs"]) == 3 and r["decisions_per_s"] == sorted(r["runs"])[1]
    assert "runs" not in bench.engine_runs("saga", 0.05, 1)
    text = CliRunner().invoke(app, ["bench", "--ruleset", "saga", "--seconds", "0.05", "--only", "engine", "--repeat",
                                    "3"])
    assert text.exit_code == 0, text.output
    assert "the median of 3 runs" in text.output


def test_null_env_has_the_same_spaces_and_a_mask_with_one_hole():
    from envs.tactics_env import TacticsEnv
    env = TacticsEnv("saga", opponent="random")
    null = bench.NullEnv.make(env)
    assert null.observation_space == env.observation_space and null.action_space == env.action_space
    obs, _ = null.reset(seed=0)
    assert obs.shape == env.observation_space.shape and not obs.any()
    m = null.action_masks()
    assert m.sum() == env.action_space.n - 1 and not m[-1]
    obs, r, term, trunc, _ = null.step(0)
    assert r == 0.0 and not term and not trunc


def test_training_and_latency_report_their_fields():
    t = bench.training_rate(0.01, cfg_path=Path("configs/saga/smoke.yaml"),
                            overrides=["train.n_envs=2", "ppo.n_steps=16", "ppo.batch_size=32", "ppo.n_epochs=1",
                                       "ppo.net_arch=[8]"])
    for k in ("steps_per_s", "ceiling_steps_per_s", "ratio", "trainer", "n_envs"):
        assert k in t
    assert t["n_envs"] == 2 and t["skirmish"]["steps"] >= 32 and t["null_env"]["steps"] >= 32
    assert t["ratio"] > 0
    lat = bench.decision_latency("saga", decisions=30)
    assert lat["decisions"] > 0 and 0 < lat["p50_ms"] <= lat["p99_ms"] and 0 < lat["cpu_p99_ms"]


def test_training_splits_a_cycle_into_rollout_and_update_and_times_the_workers():
    t = bench.training_rate(0.3, cfg_path=Path("configs/saga/smoke.yaml"),
                            overrides=["train.n_envs=4", "train.workers=2", "ppo.n_steps=16", "ppo.batch_size=32",
                                       "ppo.n_epochs=1", "ppo.net_arch=[8]"])
    real = t["skirmish"]
    cycles = real["steps"] / (t["n_envs"] * t["n_steps"])
    assert cycles >= 2 and real["rollout_s"] > 0 and real["update_s"] > 0
    # the measured window is made of those cycles: their rollouts and updates add up to it
    assert abs(cycles * (real["rollout_s"] + real["update_s"]) - real["seconds"]) <= 0.2 * real["seconds"]
    # two worker processes, each on a CPU for part of the rollouts (they wait for the learner in between)
    assert len(real["worker_busy"]) == 2 and all(0 < b <= 1.2 for b in real["worker_busy"])
    assert "worker_busy" not in t["null_env"]  # the do-nothing envs run in the learner's own process
    assert t["rollouts"] == "played in the workers"
    assert "random_opponents" not in t


def test_training_split_also_times_the_trainer_against_random_opponents(monkeypatch):
    import agents.train

    made = []  # each trainer's opponent stages, in the order the vec envs are built
    real = agents.train.make_vec_env
    monkeypatch.setattr(agents.train, "make_vec_env",
                        lambda cfg, *a, **k: made.append(cfg.env.opponent.stages) or real(cfg, *a, **k))
    t = bench.training_rate(0.01, cfg_path=Path("configs/saga/smoke.yaml"), split=True,
                            overrides=["env.opponent=heuristic", "train.n_envs=2", "ppo.n_steps=16",
                                       "ppo.batch_size=32", "ppo.n_epochs=1", "ppo.net_arch=[8]"])
    assert [[(s.heuristic, s.random) for s in stages] for stages in made] == [[(1.0, 0.0)], [(0.0, 1.0)]]
    rnd = t["random_opponents"]
    assert rnd["steps"] >= 32 and rnd["rollout_s"] > 0
    assert rnd["ratio"] == round(rnd["steps_per_s"] / t["ceiling_steps_per_s"], 3)


def test_training_repeat_reports_the_median_run_and_every_run():
    small = ["train.n_envs=2", "ppo.n_steps=16", "ppo.batch_size=32", "ppo.n_epochs=1", "ppo.net_arch=[8]"]
    t = bench.training_runs(0.01, 3, Path("configs/saga/smoke.yaml"), small)
    assert len(t["runs"]) == 3
    assert (t["steps_per_s"], t["ratio"]) == sorted(t["runs"])[1]  # the median run, with its own ratio
    assert "runs" not in bench.training_runs(0.01, 1, Path("configs/saga/smoke.yaml"), small)


def test_cli_prints_json_with_the_engine_figure():
    res = CliRunner().invoke(app, ["bench", "--ruleset", "saga", "--seconds", "0.05", "--only", "engine", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert list(data["rulesets"]) == ["saga"] and data["rulesets"]["saga"]["name"] == "Star Wars Saga Edition"
    assert data["rulesets"]["saga"]["engine"]["decisions"] > 0 and data["load_average_1min"] >= 0
    assert data["targets"]["saga"]["engine_decisions_per_s"] == 20_000  # issue 3's floor, not a later ruleset's
    text = CliRunner().invoke(app, ["bench", "--ruleset", "saga", "--seconds", "0.05", "--only", "engine"])
    assert "decisions/s" in text.output and "saga (Star Wars Saga Edition)" in text.output
    bad = CliRunner().invoke(app, ["bench", "--only", "nonsense"])
    assert bad.exit_code != 0
    bad_key = CliRunner().invoke(app, ["bench", "--ruleset", "saga", "--only", "train", "--set", "train.nope=2"])
    assert bad_key.exit_code != 0 and "train.nope" in bad_key.output


def test_bench_measures_every_shipped_ruleset_unless_told_which(monkeypatch):
    """No default ruleset: `tactician bench` measures every ruleset of engine/rulesets/ (not the tests' toys), each
    under its id in one JSON shape; --ruleset picks some (repeatable), an unknown one is refused naming the ids."""
    from engine.rulesets import available

    shipped = bench.shipped_rulesets()
    assert "saga" in shipped and not any(rid.startswith("toy_") for rid in shipped)
    assert any(rid.startswith("toy_") for rid in available())  # registered here (tests/conftest.py), not shipped
    asked = []
    monkeypatch.setattr(bench, "engine_runs", lambda rs, seconds, repeat: asked.append(rs.id) or {
        "decisions_per_s": 1.0, "decisions_per_cpu_s": 1.0, "decisions": 1, "battles": 1, "encounter": rs.id})
    data = json.loads(CliRunner().invoke(app, ["bench", "--only", "engine", "--json"]).output)
    assert asked == shipped and list(data["rulesets"]) == shipped
    asked.clear()
    two = json.loads(CliRunner().invoke(app, ["bench", "--only", "engine", "--json", "--ruleset", "toy_5e",
                                              "--ruleset", "saga"]).output)
    assert asked == ["toy_5e", "saga"] and list(two["rulesets"]) == ["toy_5e", "saga"]
    assert set(two) == set(data) and set(two["rulesets"]["saga"]) == set(data["rulesets"]["saga"])
    bad = CliRunner().invoke(app, ["bench", "--ruleset", "nowhere"])
    assert bad.exit_code != 0 and "nowhere" in bad.output and "saga" in bad.output


def test_a_ruleset_without_a_skirmish_config_reports_its_training_skipped():
    """The engine figure of a ruleset without shipped files comes from a seeded random 4v4 skirmish; its training
    figure is skipped, saying which config is missing."""
    res = bench.run_all(0.05, ("engine", "train"), rulesets=["toy_5e"])
    toy = res["rulesets"]["toy_5e"]
    assert toy["engine"]["decisions"] > 0 and toy["engine"]["encounter"].startswith("random_encounter")
    assert toy["training"] == {"skipped": "no training config configs/toy_5e/skirmish.yaml"}
    text = CliRunner().invoke(app, ["bench", "--ruleset", "toy_5e", "--seconds", "0.05", "--only", "train"])
    assert text.exit_code == 0 and "training  skipped: no training config configs/toy_5e/skirmish.yaml" in text.output


def test_the_c_modules_are_all_built_and_a_missing_one_is_named(monkeypatch):
    """Every ext-module of pyproject.toml is in the list bench checks, and all are built here; one that is not is
    named in bench's first lines (the figures would be several times lower)."""
    import tomllib

    setuptools = tomllib.loads(Path("pyproject.toml").read_text())["tool"]["setuptools"]
    declared = {m["name"] for m in setuptools["ext-modules"]}
    assert declared == set(bench.C_MODULES)
    assert bench.missing_c_modules() == [] or not c_compiler_here()  # built wherever there is a compiler
    monkeypatch.setattr(bench, "missing_c_modules", lambda: ["agents._kernels"])
    text = CliRunner().invoke(app, ["bench", "--ruleset", "saga", "--seconds", "0.05", "--only", "engine"])
    assert "not built, so running in Python" in text.output and "agents._kernels" in text.output


def test_rulesets_after_saga_are_held_to_their_own_floors():
    from agents.bench import targets_for

    assert targets_for("saga")["engine_decisions_per_s"] == 20_000 and targets_for("saga")["train_steps_per_s"] == 3_000
    later = targets_for("starfinder")
    assert later["engine_decisions_per_s"] == 5_000 and later["train_steps_per_s"] == 1_000
