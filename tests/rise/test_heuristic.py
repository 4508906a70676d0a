"""The heuristic on Rise (engine/rulesets/rise/tactics.py over the core's defaults): it beats random in both seats on
random and on the shipped encounters, strikes and charges, keeps clear of needless fatigue, and does not throw away a
weapon it has no throwing grip for."""
from __future__ import annotations

import random
from pathlib import Path

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter, parse_encounter
from engine.core.generate import random_encounter
from engine.policies.heuristic import HeuristicPolicy
from engine.rulesets import get_ruleset

from tests.heuristic_helpers import rate

RS = get_ruleset("rise")
ENCOUNTERS = sorted((Path(__file__).resolve().parents[2] / "configs/encounters/rise").glob("*.yaml"))


def test_it_beats_random_in_both_seats_on_random_encounters_and_strikes_and_charges():
    encs = [random_encounter(RS, random.Random(1000 + k), 12, 12, sizes=(1, 4)) for k in range(30)]
    for e in encs:
        e.round_limit = 20
    won, actions = rate(RS, encs, range(30))
    assert won >= 0.9, won
    assert actions["charge"] > 0 and actions["strike"] > 0 and actions["move"] > 0, actions


def test_it_beats_random_in_both_seats_on_the_shipped_encounters():
    encs = [load_encounter(p, RS) for p in ENCOUNTERS]
    assert len(encs) >= 4
    for e in encs:
        e.round_limit = 20
    won, _ = rate(RS, encs, range(16))
    assert won >= 0.9, won


def _duel(a: str, b: str, at_b=(3, 1)) -> Battle:
    enc = parse_encounter(f"""
ruleset: rise
name: duel
map: |
  ..........
  ..........
  ..........
units:
  - {{name: A, side: pcs, template: {a}, at: [1, 1]}}
  - {{name: B, side: npcs, template: {b}, at: {list(at_b)}}}
""", RS)
    battle = Battle(enc, RS, SeededDice(1))
    battle.start(initiative={0: 20, 1: 1})
    return battle


def test_next_to_its_foe_it_strikes_rather_than_throwing_its_sword():
    b = _duel("bandit", "brute", at_b=(2, 1))
    h = HeuristicPolicy(0)
    b.step(h.choose(b))          # A's movement
    b.step(h.choose(b))          # B's movement
    assert b.phase == "action" and b.actor.name == "A"
    d = h.choose(b)
    assert d.action in ("strike", "charge"), d


def test_a_creature_at_its_fatigue_tolerance_does_not_sprint_when_walking_reaches():
    b = _duel("bandit", "duelist", at_b=(6, 1))
    b.enc.units[0].state["fatigue"] = b.enc.units[0].stats["fatigue_tolerance"]
    d = HeuristicPolicy(0).choose(b)
    assert d.action != "sprint", d
