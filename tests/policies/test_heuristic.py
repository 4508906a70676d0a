"""The heuristic policy: beats random on mirrored encounters, is deterministic, always legal, and follows
per-unit tactics (prefer_targets, flee_below) and the basic tactics (withdraw, aim, focus fire)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine.core.battle import Battle
from engine.core.decision import END
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter, parse_encounter
from engine.core.policy import RandomPolicy
from engine.policies import rule_policy
from engine.policies.heuristic import HeuristicPolicy
from engine.rulesets import get_ruleset

RS = get_ruleset("saga")
CANTINA = Path(__file__).resolve().parents[2] / "configs/encounters/saga/cantina_ambush.yaml"
WASTE = {"fall_prone", "drop_item", "holster", "switch_mode", "attack_object", "coup_de_grace"}

# A small mirrored 2v2: a trooper and a thug a side, low cover in the middle.
MIRROR_2V2 = """
ruleset: saga
name: Mirrored 2v2
map: |
  ############
  #..........#
  #....cc....#
  #..........#
  #....cc....#
  #..........#
  ############
units:
  - {name: A1, side: pcs, template: trooper, at: [1, 2]}
  - {name: A2, side: pcs, template: thug, at: [1, 4]}
  - {name: B1, side: npcs, template: trooper, at: [10, 4]}
  - {name: B2, side: npcs, template: thug, at: [10, 2]}
"""


def encounter(text: str):
    return parse_encounter(text, "test.yaml")


def play(enc, seed: int, policies: dict, record: list | None = None):
    """Play a battle to the end; every decision is checked against the legal list."""
    b = Battle(enc, RS, SeededDice(seed))
    b.start()
    while not b.over:
        d = policies[b.actor.side].choose(b)
        assert b.is_legal(d), d
        if record is not None:
            record.append((b.actor.id, d))
        b.step(d)
    return b


def win_rate(enc, seeds) -> tuple[float, dict]:
    wins, actions = 0, {}
    n = 0
    for seat in ("pcs", "npcs"):
        other = "npcs" if seat == "pcs" else "pcs"
        for seed in seeds:
            rec: list = []
            b = play(enc.clone(), seed, {seat: HeuristicPolicy(seed), other: RandomPolicy(seed)}, rec)
            wins += b.enc.winner == seat
            n += 1
            for uid, d in rec:
                if b.enc.units[uid].side == seat:
                    actions[d.action] = actions.get(d.action, 0) + 1
    return wins / n, actions


@pytest.mark.parametrize("source", ["cantina", "mirror_2v2"])
def test_heuristic_beats_random_in_both_seats(source):
    enc = load_encounter(CANTINA) if source == "cantina" else encounter(MIRROR_2V2)
    rate, actions = win_rate(enc, range(20))
    assert rate >= 0.9, rate
    # it fights: attacks are its most common action after moving, and it never wastes an action
    assert actions.get("ranged_attack", 0) + actions.get("melee_attack", 0) + actions.get("charge", 0) > 0
    assert not WASTE & set(actions), actions


def test_same_seed_same_battle_and_rank_is_consistent():
    enc = load_encounter(CANTINA)
    runs = []
    for _ in range(2):
        rec: list = []
        h = HeuristicPolicy(7)
        play(enc.clone(), 3, {"pcs": h, "npcs": HeuristicPolicy(8)}, rec)
        runs.append(rec)
    assert runs[0] == runs[1]
    # reset restores the seeded state
    h = HeuristicPolicy(1)
    b = Battle(enc.clone(), RS, SeededDice(5))
    b.start()
    first = h.choose(b)
    h.reset(1)
    assert h.choose(b) == first


def test_rank_lists_every_legal_decision_as_probabilities():
    enc = load_encounter(CANTINA)
    b = Battle(enc.clone(), RS, SeededDice(2))
    b.start()
    h = rule_policy("heuristic", 0)
    for _ in range(30):
        ranked = h.rank(b)
        assert {d for d, _ in ranked} == set(b.legal())
        probs = [p for _, p in ranked]
        assert probs == sorted(probs, reverse=True)
        assert abs(sum(probs) - 1) < 1e-9
        b.step(h.choose(b))
        if b.over:
            break


# ---- constructed situations ---------------------------------------------------------------------------
def battle(map_rows: list[str], units: list[dict]) -> Battle:
    text = yaml.safe_dump({"ruleset": "saga", "name": "t", "map": "\n".join(map_rows) + "\n", "units": units},
                          sort_keys=False)
    enc = parse_encounter(text, "t.yaml")
    b = Battle(enc, RS, SeededDice(0))
    b.start(initiative={u.id: 100 - u.id for u in enc.units})
    return b


OPEN = ["##########", "#........#", "#........#", "#........#", "#........#", "##########"]


def _targets_chosen(prefer: str | None) -> int | None:
    tactics = {"prefer_targets": prefer} if prefer else {}
    b = battle(OPEN, [
        {"name": "Shooter", "side": "npcs", "template": "trooper", "at": [1, 1], "tactics": tactics},
        {"name": "Weak", "side": "pcs", "template": "smuggler", "at": [8, 4], "hp_now": 12},
        {"name": "Strong", "side": "pcs", "template": "jedi_knight", "at": [5, 1]},
    ])
    d = HeuristicPolicy(0).choose(b)
    while d.target is None and d != END:  # a move or aim first: play it and look at the attack
        b.step(d)
        d = HeuristicPolicy(0).choose(b)
    return None if d.target is None else b.enc.units[d.target].name


def test_prefer_targets_changes_the_target():
    assert _targets_chosen(None) == "Weak"  # focus fire: the wounded one it can likely drop
    assert _targets_chosen("weakest") == "Weak"
    assert _targets_chosen("strongest") == "Strong"
    assert _targets_chosen("nearest") == "Strong"


def test_flee_below_makes_the_unit_get_away():
    def first_turn(hp_now: int):
        b = battle(OPEN, [
            {"name": "Trooper", "side": "npcs", "template": "trooper", "at": [4, 2], "hp_now": hp_now,
             "tactics": {"flee_below": 0.5}},
            {"name": "Thug", "side": "pcs", "template": "thug", "at": [2, 2]},
        ])
        t, e = b.enc.units
        start = b.enc.grid.distance(t.pos, e.pos)
        h = HeuristicPolicy(0)
        actions = []
        while not b.over and b.actor is t:
            d = h.choose(b)
            actions.append(d.action)
            b.step(d)
        return actions, b.enc.grid.distance(t.pos, e.pos) - start

    healthy, moved_healthy = first_turn(18)
    assert "ranged_attack" in healthy
    fleeing, moved_fleeing = first_turn(5)
    assert fleeing[0] in ("move", "run", "withdraw")  # gets away first (and may shoot once cornered)
    assert moved_fleeing >= 4 and moved_fleeing > moved_healthy


def test_ranged_unit_withdraws_from_melee_before_shooting():
    b = battle(OPEN, [
        {"name": "Trooper", "side": "npcs", "template": "trooper", "at": [3, 2]},
        {"name": "Thug", "side": "pcs", "template": "thug", "at": [2, 2]},
    ])
    d = HeuristicPolicy(0).choose(b)
    assert d.action == "withdraw"


def test_aims_at_a_target_behind_cover():
    rows = ["############", "#..........#", "#........c.#", "#..........#", "############"]
    b = battle(rows, [
        {"name": "Trooper", "side": "npcs", "template": "trooper", "at": [1, 2]},
        {"name": "Hidden", "side": "pcs", "template": "smuggler", "at": [10, 2]},
    ])
    h = HeuristicPolicy(0)
    seen = []
    while not b.over and b.actor.name == "Trooper" and len(seen) < 5:
        d = h.choose(b)
        seen.append(d.action)
        b.step(d)
    assert "aim" in seen and "ranged_attack" in seen


def test_warm_caches_do_not_change_choices():
    """The tactics caches are shared across battles and encounters; they must never change a decision."""
    import engine.policies.heuristic as H

    cantina, small = load_encounter(CANTINA), encounter(MIRROR_2V2)

    def record(enc, seed):
        rec: list = []
        play(enc.clone(), seed, {"pcs": HeuristicPolicy(seed), "npcs": HeuristicPolicy(seed + 1)}, rec)
        return rec

    H._TACTICS.clear()
    cold = record(cantina, 11)
    record(small, 4)
    record(cantina, 12)
    assert record(cantina, 11) == cold


@pytest.mark.parametrize("path", sorted((CANTINA.parent).glob("*.yaml")), ids=lambda p: p.stem)
def test_always_legal_on_every_shipped_encounter(path):
    enc = load_encounter(path)
    for seed in range(2):
        b = play(enc.clone(), seed, {"pcs": HeuristicPolicy(seed), "npcs": HeuristicPolicy(seed + 1)})
        assert b.over


def test_opens_a_closed_door_to_reach_the_enemy():
    rows = ["#########", "#...#...#", "#...+...#", "#...#...#", "#########"]
    b = battle(rows, [
        {"name": "Thug", "side": "npcs", "template": "thug", "at": [1, 2]},
        {"name": "Droid", "side": "pcs", "template": "battle_droid", "at": [7, 2]},
    ])
    h = HeuristicPolicy(0)
    actions = []
    while not b.over and b.actor.name == "Thug":
        d = h.choose(b)
        actions.append(d.action)
        b.step(d)
    assert b.enc.units[0].pos[0] == 3 and "manipulate" in actions
    assert b.enc.grid.index(4, 2) in b.enc.grid.open_doors


def test_a_turn_left_with_nothing_but_waste_ends_without_scoring_and_draws_the_same(monkeypatch):
    """When every decision but ending the turn is a wasteful constant (drop, holster, fall prone...), `choose` ends
    the turn without scoring anything: the same decision the full scoring picks, and the generator left where the
    full scoring leaves it (one jitter draw per legal decision), so the rest of the battle plays the same."""
    import random

    from engine.core.generate import random_encounter
    from engine.policies import heuristic as H
    from tests.battle_walk import random_walk

    shortcuts = []
    real = H._end_beats_all

    def counted(tac, legal):
        got = real(tac, legal)
        shortcuts.append(got)
        return got
    monkeypatch.setattr(H, "_end_beats_all", counted)
    fast, full = HeuristicPolicy(seed=3), HeuristicPolicy(seed=3)
    rng = random.Random(11)
    for k in range(12):
        b = Battle(random_encounter(RS, random.Random(k), 12, 12, sizes=(1, 3)), RS, SeededDice(k))
        b.start()
        for _ in random_walk(b, rng, 60):
            n = len(shortcuts)
            got = fast.choose(b)
            scored = full._scores(b, prune=True)  # every decision scored, the jitter drawn for each
            assert got == max(scored, key=lambda x: x[1])[0]
            assert fast._rng.getstate() == full._rng.getstate()
            if len(shortcuts) > n and shortcuts[-1]:
                assert got == END and len(b.legal()) > 1
    assert sum(shortcuts) >= 20  # the shortcut was taken, and agreed each time
