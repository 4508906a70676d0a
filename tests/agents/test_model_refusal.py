"""A model whose encoding is smaller than the encounter (its map, its units a side) is refused with the reason by
`tactician eval`, `autopilot` and `suggest`, as TacticsEnv refuses such an encounter; a model that fits plays."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from agents.cli import app
from agents.policies import MaskablePolicy, refuse_unfit, write_meta
from engine.core.encounter_file import load_encounter
from engine.core.errors import InputError
from engine.rulesets import get_ruleset
from envs import TacticsEnv

CANTINA = "configs/encounters/saga/cantina_ambush.yaml"  # 16x12, 3 PCs against 4 NPCs


def _model(path, map_size, max_per_side):
    from sb3_contrib import MaskablePPO

    w, h = map_size
    env = TacticsEnv("saga", opponent="random", map_size=map_size, max_per_side=max_per_side,
                     generator={"width": w, "height": h, "sizes": (1, 2)})
    MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, seed=0, policy_kwargs={"net_arch": [8]}).save(path)
    write_meta(path, get_ruleset("saga"), max_per_side, map_size)
    return str(path)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("models")
    return {"narrow": _model(d / "narrow.zip", (12, 12), 4), "few": _model(d / "few.zip", (16, 16), 3),
            "fits": _model(d / "fits.zip", (16, 16), 4)}


REASONS = {"narrow": "the map is 16x12; the model takes maps up to 12x12",
           "few": "side npcs has 4 units; the model takes up to 3 a side"}


def test_a_model_names_why_it_cannot_see_an_encounter(models):
    enc = load_encounter(CANTINA)
    for kind, reason in REASONS.items():
        pol = MaskablePolicy(models[kind])
        assert pol.why_unfit(enc) == reason
        with pytest.raises(InputError) as err:
            refuse_unfit(pol, enc)
        assert reason in str(err.value) and models[kind] in str(err.value) and "fix:" in str(err.value)
    assert MaskablePolicy(models["fits"]).why_unfit(enc) is None
    refuse_unfit(MaskablePolicy(models["fits"]), enc)
    from engine.policies import rule_policy
    refuse_unfit(rule_policy("heuristic", 0), enc)  # rule policies play any encounter


@pytest.mark.parametrize("kind", sorted(REASONS))
def test_eval_refuses_a_model_too_small_for_the_encounters(models, kind):
    for args in (["eval", models[kind], "--vs", "random"], ["eval", "random", "--vs", models[kind]]):
        out = CliRunner().invoke(app, [*args, "--ruleset", "saga", "--episodes", "2", "--encounter", CANTINA])
        assert out.exit_code == 2, out.output
        assert REASONS[kind] in " ".join(out.output.split()) and "Traceback" not in out.output


def test_eval_plays_a_model_that_fits(models):
    out = CliRunner().invoke(app, ["eval", models["fits"], "--vs", "random", "--episodes", "2", "--encounter", CANTINA,
                                   "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["ruleset"] == "saga"  # the model's own: no --ruleset needed


@pytest.mark.parametrize("kind", sorted(REASONS))
def test_autopilot_refuses_a_model_too_small_for_the_encounter(models, kind):
    for args in (["--npcs", models[kind], "--pcs", "heuristic"], ["--npcs", "heuristic", "--pcs", models[kind]]):
        out = CliRunner().invoke(app, ["autopilot", CANTINA, *args, "--plain"])
        assert out.exit_code == 2, out.output
        assert REASONS[kind] in out.output and "Traceback" not in out.output


def test_autopilot_plays_a_model_that_fits(models):
    out = CliRunner().invoke(app, ["autopilot", CANTINA, "--npcs", models["fits"], "--pcs", "heuristic", "--plain",
                                   "--round-limit", "2"])
    assert out.exit_code == 0, out.output


@pytest.mark.parametrize("kind", sorted(REASONS))
def test_suggest_refuses_a_model_too_small_for_the_encounter(models, kind):
    out = CliRunner().invoke(app, ["suggest", CANTINA, "--policy", models[kind]])
    assert out.exit_code == 2, out.output
    assert REASONS[kind] in out.output and "Traceback" not in out.output


def test_suggest_plays_a_model_that_fits(models):
    out = CliRunner().invoke(app, ["suggest", CANTINA, "--policy", models["fits"]])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["policy"] == models["fits"]
