"""The shipped policies (agents/zoo/<ruleset>/): each loads as `zoo:<ruleset>`, beats random with its mask, has its
card; zoo:saga plays the demo."""
import pytest
import yaml
from typer.testing import CliRunner

from agents.cli import app
from agents.evaluate import evaluate, source_for
from agents.policies import ZOO, load_policy, zoo_model
from engine.core.policy import RandomPolicy
from engine.rulesets import get_ruleset


SHIPPED = sorted(p.parent.name for p in ZOO.glob("*/card.yaml"))


def test_every_ruleset_ships_a_policy():
    assert SHIPPED == ["rise", "saga", "starfinder", "starship", "swurpg"]


@pytest.mark.parametrize("rid", SHIPPED)
def test_a_zoo_policy_loads_and_beats_random(rid):
    rs = get_ruleset(rid)
    pol = load_policy(f"zoo:{rid}", rs)
    assert zoo_model(rid).stat().st_size < 5_000_000
    summary, stats = evaluate(pol, RandomPolicy(7), rs, episodes=12 if rid != "saga" else 20, seed=123,
                              source=source_for(pol, rs))
    assert {s.side for s in stats} == set(rs.sides[:2])
    assert summary["tactics"]["illegal_rate"] == 0.0
    assert summary["win_rate"] >= 0.75, summary


@pytest.mark.parametrize("rid", SHIPPED)
def test_a_zoo_card_records_how_it_was_made_and_how_it_scores(rid):
    card = yaml.safe_load((ZOO / rid / "card.yaml").read_text())
    assert card["policy"] == f"zoo:{rid}" and card["steps"] > 0 and card["commit"]
    assert card["config"]["ruleset"] == rid
    assert card["encoding_signature"] == load_policy(f"zoo:{rid}", rid).meta["encoding_signature"]
    for k in ("vs_random", "vs_heuristic"):
        v = card["eval"][k]
        assert v["episodes"] >= 400
        lo, hi = v["win_rate_ci95"]
        assert lo <= v["win_rate"] <= hi


def test_readme_demo_plays_a_whole_battle_with_the_shipped_policy():
    out = CliRunner().invoke(app, ["autopilot", "configs/encounters/saga/cantina_ambush.yaml", "--npcs", "zoo:saga",
                                   "--pcs", "heuristic", "--seed", "7", "--plain"])
    assert out.exit_code == 0, out.output
    assert "Winner:" in out.output or "draw" in out.output.lower()
    assert "Trooper" in out.output and "Reflex" in out.output
