"""Conformance of the play layers: every registered ruleset (Saga and the toys) is narrated, planned by
`suggest` and trained by the trainer through the same ruleset-neutral code."""
from __future__ import annotations

import json
import random

import pytest

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.generate import random_encounter
from engine.core.narration import narrate_events
from engine.core.policy import RandomPolicy
from engine.policies.heuristic import HeuristicPolicy
from engine.rulesets import available

from .test_conformance import RULESETS, _battle


@pytest.mark.parametrize("rid", RULESETS)
def test_every_decision_is_narrated_with_the_units_names(rid):
    """Each decision's events read as sentences: none lost to an error, none about 'someone', and every attack
    sentence names the attacker and the target."""
    attacks = 0
    for seed in range(4):
        b = _battle(rid, seed)
        p = RandomPolicy(seed)
        while not b.over:
            events = b.step(p.choose(b))
            lines = narrate_events(events, b.enc, b.ruleset)
            assert all(isinstance(x, str) and x for x in lines)
            assert not any("someone" in x for x in lines), lines
            for e in events:
                if e.kind == "attack" and e.target is not None:
                    attacks += 1
                    a, t = b.enc.units[e.actor].name, b.enc.units[e.target].name
                    assert any(a in x and t in x for x in lines), (e, lines)
    assert attacks > 0, "random battles of every ruleset contain attacks"


@pytest.mark.parametrize("rid", RULESETS)
def test_suggest_plans_a_legal_turn_without_touching_the_state(rid):
    from agents.autopilot.chooser import Chooser
    from agents.autopilot.planner import plan_turn

    rs = available()[rid]
    for seed in range(3):
        b = _battle(rid, seed)
        for _ in range(seed * 3):  # a few decisions in, so budgets and positions vary
            if not b.over:
                b.step(RandomPolicy(seed).choose(b))
        if b.over:
            continue
        before = json.dumps(b.enc.to_dict(), sort_keys=True)
        plan = plan_turn(b.enc, rs, Chooser(HeuristicPolicy(seed), "deadly", seed), seed=seed, explain=True)
        assert json.dumps(b.enc.to_dict(), sort_keys=True) == before, "suggest changed the state"
        json.dumps(plan)
        assert plan["actor"]["id"] == b.enc.actor.id and plan["decisions"]
        # the plan replays as legal decisions on a copy with the same dice
        replay = Battle(b.enc.clone(), rs, SeededDice(seed))
        from engine.core.decision import Decision
        for entry in plan["decisions"]:
            if replay.over or replay.enc.actor_id != plan["actor"]["id"]:
                break
            d = Decision.from_dict(entry["decision"])
            assert replay.is_legal(d), (entry, replay.legal())
            replay.step(d)


@pytest.mark.parametrize("rid", RULESETS)
def test_a_smoke_training_run_trains_evaluates_and_saves(rid, tmp_path):
    from agents.config import TrainConfig
    from agents.policies import load_policy
    from agents.train import run

    cfg = TrainConfig.model_validate({
        "name": f"conformance_{rid}", "ruleset": rid,
        "env": {"generator": {"width": 8, "height": 8, "sizes": [1, 2]}, "max_per_side": 2, "map_size": [8, 8],
                "round_limit": 6, "opponent": {"stages": [{"random": 1.0}]}},
        "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "train": {"total_timesteps": 128, "n_envs": 2, "checkpoint_freq": 128, "progress_bar": False,
                  "workers": 1},
        "eval": {"freq": 128, "episodes": 2, "final_episodes": 2, "opponents": ["random"]},
    })
    result = run(cfg, root=tmp_path)
    assert result["steps"] == 128 and not result["interrupted"]
    ev = result["eval"]["vs"]["random"]
    assert ev["episodes"] == 2 and ev["tactics"]["illegal_rate"] == 0.0
    policy = load_policy(result["model"], available()[rid])
    b = Battle(random_encounter(available()[rid], random.Random(1), 8, 8, sizes=(1, 2)), available()[rid],
               SeededDice(1))
    b.start()
    for _ in range(10):
        if b.over:
            break
        d = policy.choose(b)
        assert b.is_legal(d)
        b.step(d)


@pytest.mark.parametrize("rid", RULESETS)
def test_the_heuristic_fights_and_beats_random_in_both_seats(rid):
    """The yardstick works on every ruleset through the declared tactics interface: it attacks and wins."""
    rs = available()[rid]
    wins = attacks = 0
    battles = 16
    for seed in range(battles):
        b = _battle(rid, 500 + seed)
        mine = rs.sides[seed % 2]
        players = {mine: HeuristicPolicy(seed), "other": RandomPolicy(seed)}
        while not b.over:
            actor = b.enc.actor
            p = players[mine] if actor.side == mine else players["other"]
            events = b.step(p.choose(b))
            attacks += sum(e.kind == "attack" and e.actor is not None and b.enc.units[e.actor].side == mine
                           for e in events)
        wins += b.enc.winner == mine
    assert attacks >= battles, f"the heuristic made {attacks} attacks in {battles} battles"
    assert wins / battles >= 0.8, f"the heuristic won {wins} of {battles} against random"


@pytest.mark.parametrize("rid", RULESETS)
def test_every_legal_decision_can_be_typed_at_the_table(rid):
    """The autopilot's words (the core's and the ruleset's words.yaml) type each legal decision and read it back."""
    from agents.autopilot.words import command_for, parse_decision

    checked = 0
    for seed in range(3):
        b = _battle(rid, 700 + seed)
        p = RandomPolicy(seed)
        for _ in range(40):
            if b.over:
                break
            for d in b.legal():
                assert parse_decision(command_for(d, b.enc, b.ruleset), b) == d, command_for(d, b.enc, b.ruleset)
                checked += 1
            b.step(p.choose(b))
    assert checked > 100
