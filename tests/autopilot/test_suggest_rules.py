"""`tactician suggest` plans only legal decisions and changes nothing; bad states exit 2; `tactician rules`."""
from __future__ import annotations

import copy
import json
import random

import pytest
from typer.testing import CliRunner

from engine.core.battle import Battle
from engine.core.decision import Decision
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter
from engine.core.policy import RandomPolicy
from engine.core.state import Encounter
from engine.rulesets import get_ruleset

from agents.autopilot.chooser import Chooser
from agents.autopilot.planner import plan_turn
from agents.autopilot.policies import resolve_policy
from agents.cli import app

RS = get_ruleset("saga")
CANTINA = "configs/encounters/saga/cantina_ambush.yaml"
runner = CliRunner()


def _random_states(n_battles: int, seed: int):
    """Encounter states saved (to_dict) at random points of random battles."""
    rng = random.Random(seed)
    out = []
    for k in range(n_battles):
        enc = load_encounter(CANTINA)
        b = Battle(enc, RS, SeededDice(seed + k))
        b.start()
        pol = RandomPolicy(seed + k)
        stop = rng.randint(0, 120)
        for _ in range(stop):
            if b.over:
                break
            b.step(pol.choose(b))
        if not b.over:
            out.append(json.loads(json.dumps(enc.to_dict())))
    return out


def _check_plan_legal(state: dict, plan: dict, seed: int) -> None:
    enc = Encounter.from_dict(copy.deepcopy(state))  # from_dict keeps the given dicts: do not mutate ours
    b = Battle(enc, RS, SeededDice(seed))
    assert plan["actor"]["id"] == enc.actor_id
    rolled = False
    for entry in plan["decisions"]:
        d = Decision.from_dict(entry["decision"])
        assert b.is_legal(d), f"suggested {d} is not legal"
        assert entry["depends_on_roll"] == rolled
        b.step(d)
        rolled = rolled or entry["rolls"] > 0
    assert plan["decisions"], "a turn has at least one decision"


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_suggest_plans_only_legal_decisions_and_changes_nothing(policy):
    for i, state in enumerate(_random_states(8, 11 if policy == "random" else 40)):
        enc = Encounter.from_dict(state)
        before = json.dumps(enc.to_dict(), sort_keys=True)
        pol = resolve_policy(policy, RS, i)
        plan = plan_turn(enc, RS, Chooser(pol, "deadly", i), seed=i, explain=True)
        assert json.dumps(enc.to_dict(), sort_keys=True) == before, "suggest changed the state"
        _check_plan_legal(state, plan, i)


def test_suggest_cli_on_saved_state_and_encounter(tmp_path):
    state = _random_states(1, 3)[0]
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    res = runner.invoke(app, ["suggest", str(path), "--policy", "heuristic", "--explain", "--seed", "5"])
    assert res.exit_code == 0, res.output
    plan = json.loads(res.stdout)
    assert plan["actor"]["name"] == Encounter.from_dict(state).actor.name
    assert "alternatives" in plan["decisions"][0] and "narration" in plan["decisions"][0]
    _check_plan_legal(state, plan, 5)
    assert json.loads(path.read_text()) == state
    res = runner.invoke(app, ["suggest", CANTINA, "--seed", "2"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["decisions"]


def test_depends_on_roll_marks_decisions_after_a_roll():
    # find a state where the plan rolls dice before its last decision
    for state in _random_states(12, 77):
        plan = plan_turn(Encounter.from_dict(state), RS, Chooser(resolve_policy("heuristic", RS, 0)), seed=0)
        ds = plan["decisions"]
        first_roll = next((i for i, e in enumerate(ds) if e["rolls"]), None)
        if first_roll is not None and first_roll < len(ds) - 1:
            assert not any(e["depends_on_roll"] for e in ds[:first_roll + 1])
            assert all(e["depends_on_roll"] for e in ds[first_roll + 1:])
            assert plan["depends_on_roll"]
            return
    pytest.skip("no sampled turn rolled before its last decision")


def _bad(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return runner.invoke(app, ["suggest", str(p)])


def test_suggest_bad_or_inconsistent_json_exits_2(tmp_path):
    good = _random_states(1, 9)[0]
    res = _bad(tmp_path, "a.json", "{not json")
    assert res.exit_code == 2 and "not valid JSON" in res.output
    res = _bad(tmp_path, "b.json", json.dumps({"format": 1, "units": []}))
    assert res.exit_code == 2 and "missing field" in res.output
    s = json.loads(json.dumps(good))
    s["units"][1]["pos"] = list(s["units"][0]["pos"])
    s["units"][0]["down"] = s["units"][1]["down"] = False
    res = _bad(tmp_path, "c.json", json.dumps(s))
    assert res.exit_code == 2 and "both stand at" in res.output
    s = json.loads(json.dumps(good))
    s["units"][0]["pos"] = [0, 0]
    s["units"][0]["down"] = False
    res = _bad(tmp_path, "d.json", json.dumps(s))
    assert res.exit_code == 2 and "wall" in res.output
    s = json.loads(json.dumps(good))
    s["winner"] = "pcs"
    res = _bad(tmp_path, "e.json", json.dumps(s))
    assert res.exit_code == 2 and "over" in res.output
    s = json.loads(json.dumps(good))
    s["turn"] = 99
    res = _bad(tmp_path, "f.json", json.dumps(s))
    assert res.exit_code == 2 and "turn" in res.output
    res = runner.invoke(app, ["suggest", str(tmp_path / "nope.json")])
    assert res.exit_code == 2 and "no such file" in res.output
    res = _bad(tmp_path, "g.json", json.dumps([1, 2]))
    assert res.exit_code == 2
    s = json.loads(json.dumps(good))
    s["units"][0]["state"]["ct"] = 9
    res = _bad(tmp_path, "h.json", json.dumps(s))
    assert res.exit_code == 2 and "units[0]" in res.output and "state.ct" in res.output
    assert "condition track" in res.output


def test_rules_lists_every_catalogue_action():
    res = runner.invoke(app, ["rules", "saga", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    keys = [a["key"] for a in data["actions"]]
    assert keys == list(RS.catalogue)
    for a in data["actions"]:
        spec = RS.catalogue[a["key"]]
        assert (a["cost"], a["text"], a["source"]) == (spec.cost, spec.text, spec.source)
    res = runner.invoke(app, ["rules", "--json"])
    assert any(r["id"] == "saga" for r in json.loads(res.stdout))
    res = runner.invoke(app, ["rules", "nosuch"])
    assert res.exit_code == 2
    res = runner.invoke(app, ["rules", "saga"])
    assert res.exit_code == 0 and "Charge" in res.output


def test_autopilot_cli_non_interactive(tmp_path):
    log = tmp_path / "battle.md"
    res = runner.invoke(app, ["autopilot", CANTINA, "--npcs", "heuristic", "--pcs", "heuristic", "--seed", "3",
                              "--plain", "--log", str(log)])
    assert res.exit_code == 0, res.output
    assert "Round 1" in res.output and ("Winner" in res.output or "draw" in res.output.lower())
    assert "fires its" in res.output or "strikes" in res.output
    text = log.read_text()
    assert text.startswith("# Cantina ambush") and "## Result" in text
    res = runner.invoke(app, ["autopilot", CANTINA, "--npcs", "nonsense", "--pcs", "heuristic"])
    assert res.exit_code == 2 and "unknown policy" in res.output
