"""`tactician suggest`'s JSON has one documented shape (README, `agents/autopilot/planner.py`): a format and
version, every decision entry with the same keys, every decision with all four of its keys, an estimate always
there (null where the ruleset has none), with and without `--explain`."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.core.decision import Decision
from engine.core.state import Encounter
from engine.rulesets import get_ruleset

from agents.autopilot.chooser import Chooser
from agents.autopilot.planner import FORMAT, VERSION, plan_turn
from agents.autopilot.policies import resolve_policy
from agents.autopilot.words import command_for
from agents.cli import app

from .test_suggest_rules import CANTINA, _random_states

RS = get_ruleset("saga")
TOP = {"format", "version", "policy", "actor", "round", "budget", "depends_on_roll", "decisions"}
ENTRY = {"decision", "command", "text", "depends_on_roll", "estimate", "narration", "rolls"}
EXPLAINED = ENTRY | {"probability", "tactics", "alternatives"}
ALTERNATIVE = {"decision", "command", "probability", "estimate"}
DECISION = {"action", "target", "square", "option"}
ESTIMATE = {"hit_chance", "expected_damage", "kill_chance", "notes"}
ATTACKS = ("melee_attack", "ranged_attack", "full_attack", "charge")


def _check_decision(dec: dict, command: str, enc: Encounter) -> None:
    assert set(dec) == DECISION, dec
    d = Decision.from_dict(dec)
    assert command_for(d, enc, RS) == command       # the words are the decision's, option index included
    spec = RS.catalogue[d.action]
    if spec.options > 1:
        assert command.split()[-1] == str(dec["option"])


def _check_estimate(est, action: str) -> None:
    if action in ATTACKS:
        assert est is not None, action
    if est is not None:
        assert set(est) == ESTIMATE and 0 <= est["hit_chance"] <= 1, est


def _check_plan(plan: dict, state: dict, explain: bool) -> int:
    enc = Encounter.from_dict(json.loads(json.dumps(state)))
    assert set(plan) == TOP and (plan["format"], plan["version"]) == (FORMAT, VERSION) == ("tactician-suggest", 1)
    estimated = 0
    for n, entry in enumerate(plan["decisions"]):
        assert set(entry) == (EXPLAINED if explain else ENTRY), entry.keys()
        if n == 0:  # later decisions are of a state the plan moved on to
            _check_decision(entry["decision"], entry["command"], enc)
        assert set(entry["decision"]) == DECISION
        _check_estimate(entry["estimate"], entry["decision"]["action"])
        estimated += entry["estimate"] is not None
        if explain:
            assert isinstance(entry["tactics"], list) and 0 <= entry["probability"] <= 1
            for alt in entry["alternatives"]:
                assert set(alt) == ALTERNATIVE, alt
                if n == 0:
                    _check_decision(alt["decision"], alt["command"], enc)
                _check_estimate(alt["estimate"], alt["decision"]["action"])
                estimated += alt["estimate"] is not None
    return estimated


@pytest.mark.parametrize("explain", [True, False])
def test_every_plan_has_the_documented_shape(explain):
    estimated = 0
    for i, state in enumerate(_random_states(10, 21)):
        pol = resolve_policy("random" if i % 2 else "heuristic", RS, i)
        plan = plan_turn(Encounter.from_dict(json.loads(json.dumps(state))), RS, Chooser(pol, "deadly", i), seed=i,
                         explain=explain, policy="p")
        estimated += _check_plan(plan, state, explain)
        assert plan["policy"] == "p"
    assert estimated > 0 or not explain  # alternatives include attacks


def test_the_cli_prints_the_shape_and_the_readme_shows_it(tmp_path):
    state = _random_states(1, 3)[0]
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    res = CliRunner().invoke(app, ["suggest", str(path), "--explain", "--policy", "random"])
    assert res.exit_code == 0, res.output
    plan = json.loads(res.stdout)
    _check_plan(plan, state, True)
    assert plan["policy"] == "random"
    readme = Path("README.md").read_text()
    block = re.search(r"```json\n(\{\"format\": \"tactician-suggest\".*?)```", readme, re.S)
    assert block, "the README shows an example of suggest's JSON"
    shown = json.loads(block.group(1))
    assert set(shown) == TOP and (shown["format"], shown["version"]) == (FORMAT, VERSION)
    for entry in shown["decisions"]:
        assert set(entry) == EXPLAINED and set(entry["decision"]) == DECISION
        assert all(set(a) == ALTERNATIVE for a in entry["alternatives"])
    assert json.loads(CliRunner().invoke(app, ["suggest", CANTINA]).stdout)["decisions"][0].keys() == ENTRY
