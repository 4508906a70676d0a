"""Training configs: validation names the key path and what is allowed; numbers from strings; --set."""
from pathlib import Path

import pytest
import yaml

from agents.config import ConfigError, apply_overrides, load_config


def test_shipped_configs_validate():
    for path in ("configs/saga/smoke.yaml", "configs/saga/skirmish.yaml"):
        cfg = load_config(path)
        assert cfg.ruleset == "saga"
        assert cfg.ppo.batch_size <= cfg.ppo.n_steps * cfg.train.n_envs


TRAINING_CONFIGS = sorted(p for p in Path("configs").glob("**/*.yaml") if "encounters" not in p.parts)


def test_the_training_configs_are_found():
    assert Path("configs/saga/experiments/prior_explore.yaml") in TRAINING_CONFIGS and len(TRAINING_CONFIGS) >= 10


@pytest.mark.parametrize("path", TRAINING_CONFIGS, ids=str)
def test_every_training_config_validates(path):
    """Every training config in configs/ still fits the schema; experiments whose starting model is a run directory
    that is not committed are checked without it."""
    raw = yaml.safe_load(path.read_text())
    start = (raw.get("train") or {}).get("init_from")
    cfg = load_config(path, ["train.init_from=null"] if start and not Path(start).exists() else None)
    assert cfg.ppo.batch_size <= cfg.ppo.n_steps * cfg.train.n_envs


def test_numbers_written_as_strings_read_as_numbers(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("ruleset: saga\nppo: {learning_rate: 3e-4, ent_coef: '1e-2'}\ntrain: {total_timesteps: 2e5}\n")
    cfg = load_config(p)
    assert cfg.ppo.learning_rate == pytest.approx(3e-4) and isinstance(cfg.ppo.learning_rate, float)
    assert cfg.ppo.ent_coef == pytest.approx(0.01)
    assert cfg.train.total_timesteps == 200_000 and isinstance(cfg.train.total_timesteps, int)


@pytest.mark.parametrize("data, path, hint", [
    ({"ppo": {"lr": 1}}, "ppo.lr", "learning_rate"),
    ({"env": {"generator": {"colour": "red"}}}, "env.generator.colour", "sizes"),
    ({"ppo": {"activation": "elu"}}, "ppo.activation", "relu"),
    ({"ppo": {"gamma": 1.5}}, "ppo.gamma", "less than or equal to 1"),
    ({"ppo": {"prior_weight": 0}}, "ppo.prior_weight", "greater than 0"),
    ({"train": {"n_envs": "many"}}, "train.n_envs", "integer"),
    ({"env": {"opponent": {"stages": [{"league": 1.0}]}}}, "env.opponent.stages.0", "heuristic > 0"),
    ({"env": {"opponent": {"stages": [{"random": 1.0}, {"heuristic": 1.0}]}}}, "env.opponent", "until"),
    ({"env": {"generator": {"sizes": [2, 9]}}}, "env", "max_per_side"),
    ({"env": {"learner_side": "martians"}}, "(top level)", "learner_side"),
    ({"ppo": {"batch_size": 10**6}}, "(top level)", "rollout"),
])
def test_errors_give_key_path_and_what_is_allowed(data, path, hint):
    with pytest.raises(ConfigError) as e:
        load_config(data={"ruleset": "saga", **data})
    msg = str(e.value)
    assert f"  {path}:" in msg, msg
    assert hint in msg, msg


def test_the_ruleset_is_required():
    """No config trains a ruleset it does not name: a config without `ruleset` is refused naming the registered
    ids, and so is an unknown one."""
    from engine.rulesets import available

    for data in ({}, {"ppo": {"n_epochs": 2}}):
        with pytest.raises(ConfigError) as e:
            load_config(data=data)
        assert "  ruleset: Field required; set `ruleset:` to one of " in str(e.value)
        assert all(rid in str(e.value) for rid in available())
    with pytest.raises(ConfigError, match="ruleset 'nowhere' is unknown; available: "):
        load_config(data={"ruleset": "nowhere"})
    assert load_config(data={"ruleset": "saga"}).ruleset == "saga"


def test_set_overrides_use_dotted_paths_and_are_validated(tmp_path):
    cfg = load_config("configs/saga/smoke.yaml", ["ppo.learning_rate=1e-3", "ppo.net_arch=[16, 16]",
                                                  "env.opponent=heuristic", "name=other"])
    assert cfg.ppo.learning_rate == pytest.approx(1e-3)
    assert cfg.ppo.net_arch == [16, 16]
    assert cfg.env.opponent.stages[0].shares() == {"heuristic": 1.0}
    assert cfg.name == "other"
    with pytest.raises(ConfigError, match="ppo.colour"):
        load_config("configs/saga/smoke.yaml", ["ppo.colour=1"])
    with pytest.raises(ConfigError, match="ppo.n_epochs"):
        load_config("configs/saga/smoke.yaml", ["ppo.n_epochs=0"])
    with pytest.raises(ConfigError, match="key.path=value"):
        apply_overrides({}, ["ppo.n_epochs"])


def test_resolved_config_round_trips():
    cfg = load_config("configs/saga/skirmish.yaml")
    again = load_config(data=yaml.safe_load(cfg.dump()))
    assert again == cfg


def test_opponent_schedule_and_shorthands():
    o = load_config(data={"ruleset": "saga", "env": {"opponent": {"stages": [
        {"until": 100, "random": 1.0}, {"random": 1.0, "heuristic": 1.0, "league": 2.0}]}}}).env.opponent
    assert o.stage_at(0).shares() == {"random": 1.0}
    assert o.stage_at(100).shares() == {"random": 0.25, "heuristic": 0.25, "league": 0.5}
    assert o.stage_at(10**9) is o.stages[-1] and o.uses_league
    shipped = load_config("configs/saga/skirmish.yaml").env.opponent
    assert all(s.heuristic > 0 for s in shipped.stages if s.league > 0)
    league = load_config(data={"ruleset": "saga", "env": {"opponent": "league"}}).env.opponent
    assert league.stages[0].heuristic > 0 and league.stages[0].league > 0
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(data={"ruleset": "saga", "env": {"opponent": "nowhere/model.zip"}})


def test_bad_yaml_names_the_file_once_with_line_and_column(tmp_path):
    """A config that is not YAML: the file once (also as `tactician train` prints it), the line and column where
    the parser stopped and where the unclosed part started."""
    from typer.testing import CliRunner

    from agents.cli import app

    p = tmp_path / "bad.yaml"
    p.write_text("name: x\nppo:\n  learning_rate: [1, 2\n  n_steps: 3\n")
    with pytest.raises(ConfigError) as e:
        load_config(p)
    msg = str(e.value)
    assert msg.startswith(f"{p} line 4, column 10: not valid YAML: ") and msg.count(str(p)) == 1, msg
    assert "on line 3, column 18" in msg and "<unicode string>" not in msg
    out = CliRunner().invoke(app, ["train", str(p)])
    printed = "".join(out.output.split())  # rich wraps long lines
    assert out.exit_code == 2 and printed.count(str(p)) == 1 and "line4,column10" in printed, out.output


@pytest.mark.parametrize("generator, path, hint", [
    ({"layouts": []}, "env.generator.layouts", "at least one layout"),
    ({"layouts": ["scatter", "maze"]}, "env.generator.layouts", "unknown layout 'maze'; layouts: scatter, open, rooms"),
    ({"layouts": "rooms"}, "env.generator.layouts", "list"),
    ({"min_width": 4}, "env.generator.min_width", "greater than or equal to 6"),
    ({"min_width": 17}, "env.generator", "min_width 17 is larger than width 16"),
    ({"width": 10, "height": 10, "min_height": 11}, "env.generator", "min_height 11 is larger than height 10"),
    ({"wounded": 1.5}, "env.generator.wounded", "less than or equal to 1"),
    ({"wounded": -0.1}, "env.generator.wounded", "greater than or equal to 0"),
    ({"uneven": True}, "env.generator", "set mirrored: false"),
    ({"balance": 1.2}, "env.generator", "set mirrored: false or remove balance"),
    ({"balance": 0.8, "mirrored": False}, "env.generator.balance", "greater than or equal to 1"),
])
def test_the_generators_variety_is_validated(generator, path, hint):
    with pytest.raises(ConfigError) as e:
        load_config(data={"ruleset": "saga", "env": {"generator": generator}})
    msg = str(e.value)
    assert f"  {path}:" in msg, msg
    assert hint in msg, msg


VARIETY = ("layouts", "min_width", "min_height", "wounded", "uneven", "balance")


@pytest.mark.parametrize("path", TRAINING_CONFIGS, ids=str)
def test_the_generators_defaults_draw_what_the_configs_drew(path):
    """The env's and the evaluation's random encounters of every training config that sets none of the variety are
    those of the generator settings before the variety existed (width, height, sizes, pools, mirrored), seed for
    seed; a config that sets some gets it in both."""
    import random

    from agents.callbacks import eval_source
    from agents.train import env_kwargs
    from engine.core.generate import random_encounter
    from engine.rulesets import get_ruleset

    raw = yaml.safe_load(path.read_text())
    start = (raw.get("train") or {}).get("init_from")
    cfg = load_config(path, ["train.init_from=null"] if start and not Path(start).exists() else None)
    g, rs = cfg.env.generator, get_ruleset(cfg.ruleset)
    before = {"width": g.width, "height": g.height, "sizes": tuple(g.sizes), "pools": g.pools, "mirrored": g.mirrored}
    now = env_kwargs(cfg)["generator"]
    assert set(now) > set(before)
    source = eval_source(cfg)
    varied = set(VARIETY) & set((raw.get("env") or {}).get("generator") or {})
    differ = 0
    for seed in range(12):
        want = random_encounter(rs, random.Random(seed), **(before if not varied else now))
        got = random_encounter(rs, random.Random(seed), **now)
        assert got.to_dict() == want.to_dict()
        if not cfg.env.encounters:
            want.round_limit = cfg.env.round_limit
            assert source(seed).to_dict() == want.to_dict()
        differ += got.to_dict() != random_encounter(rs, random.Random(seed), **before).to_dict()
    assert differ == 0 if not varied else differ > 0
    for key in varied:
        assert now[key] == (tuple(getattr(g, key)) if key == "layouts" else getattr(g, key))


VARIED = {"ruleset": "saga", "name": "varied",
          "env": {"generator": {"width": 12, "height": 12, "sizes": [1, 3], "mirrored": False, "uneven": True,
                                "layouts": ["scatter", "open", "rooms", "corridors"], "min_width": 8,
                                "min_height": 7, "wounded": 0.5},
                  "max_per_side": 3, "map_size": [12, 12], "round_limit": 6, "opponent": "random"},
          "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
          "train": {"total_timesteps": 128, "n_envs": 2, "checkpoint_freq": 128, "progress_bar": False},
          "eval": {"freq": 128, "episodes": 2, "final_episodes": 2, "opponents": ["random"], "sample_battle": False}}


def _variety(encounters) -> dict[str, set]:
    seen: dict[str, set] = {"size": set(), "doors": set(), "walled": set(), "wounded": set(), "sides": set()}
    for enc in encounters:
        g = enc.grid
        seen["size"].add((g.width, g.height))
        seen["doors"].add("door" in g.terrain)
        seen["walled"].add(sum(t == "wall" for t in g.terrain) / (g.width * g.height) > 0.5)  # corridors in rock
        seen["wounded"].add(any(u.hp < u.max_hp for u in enc.units))
        seen["sides"].add(tuple(sum(u.side == s for u in enc.units) for s in ("pcs", "npcs")))
    return seen


def test_a_varied_generator_trains_and_its_env_and_evaluation_see_varied_maps(tmp_path):
    from agents.evaluate import source_for
    from agents.policies import load_policy
    from agents.train import env_kwargs, run
    from engine.rulesets import get_ruleset
    from envs.tactics_env import TacticsEnv

    cfg = load_config(data=VARIED)
    env = TacticsEnv(**env_kwargs(cfg), opponent="random")
    encounters = []
    for seed in range(40):
        env.reset(seed=seed)
        encounters.append(env.battle.enc)
    seen = _variety(encounters)
    assert len(seen["size"]) > 5 and all(8 <= w <= 12 and 7 <= h <= 12 for w, h in seen["size"])
    assert seen["doors"] == seen["walled"] == seen["wounded"] == {True, False}
    assert any(a != b for a, b in seen["sides"])

    result = run(cfg, root=tmp_path)
    assert result["steps"] == 128 and not result["interrupted"]
    assert result["eval"]["vs"]["random"]["episodes"] == 2
    policy = load_policy(str(Path(result["run_dir"]) / "model.zip"), get_ruleset("saga"))
    source = source_for(policy, get_ruleset("saga"))  # what `tactician eval` plays the model on: its generator
    again = _variety(source(seed) for seed in range(40))
    assert len(again["size"]) > 5 and again["doors"] == again["wounded"] == {True, False}
