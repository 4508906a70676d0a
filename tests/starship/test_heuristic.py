"""The heuristic on starship combat (engine/rulesets/starship/tactics.py over the core's defaults): it beats random in
both seats on random and on the shipped encounters, fires every weapon of its attack action, and repairs a damaged
hull when it has nothing to shoot."""
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

RS = get_ruleset("starship")
ENCOUNTERS = sorted((Path(__file__).resolve().parents[2] / "configs/encounters/starship").glob("*.yaml"))


def test_it_beats_random_in_both_seats_on_random_encounters_and_fires_every_weapon():
    encs = [random_encounter(RS, random.Random(1000 + k), 12, 12, sizes=(1, 4)) for k in range(30)]
    for e in encs:
        e.round_limit = 20
    won, actions = rate(RS, encs, range(30))
    assert won >= 0.9, won
    assert actions["fire"] > 0 and actions["fire_next"] > 0 and actions["move"] > 0, actions


def test_it_beats_random_in_both_seats_on_the_shipped_encounters():
    encs = [load_encounter(p, RS) for p in ENCOUNTERS]
    assert len(encs) >= 4
    for e in encs:
        e.round_limit = 20
    won, _ = rate(RS, encs, range(16))
    assert won >= 0.9, won


def test_a_damaged_ship_with_nothing_in_sight_repairs_its_hull():
    enc = parse_encounter("""
ruleset: starship
name: repair
map: |
  ##########
  #...#....#
  #...#....#
  ##########
units:
  - {name: Falcon, side: pcs, template: light_freighter, at: [1, 1], hp_now: 40}
  - {name: Raider, side: npcs, template: light_fighter, at: [8, 2]}
""", RS)
    b = Battle(enc, RS, SeededDice(1))
    b.start(initiative={0: 20, 1: 1})
    seen = set()
    h = HeuristicPolicy(0)
    while b.actor is not None and b.actor.name == "Falcon" and len(seen) < 4:
        d = h.choose(b)
        seen.add(d.action)
        if d.action == "end_turn":
            break
        b.step(d)
    assert "damage_control" in seen, seen
