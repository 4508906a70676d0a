"""The heuristic on SWURPG (engine/rulesets/swurpg/tactics.py over the core's defaults): it beats random in both
seats on random and on the shipped encounters, uses the ruleset's variety of actions, and makes the table's obvious
calls (the off-hand attack after the main-hand one, a lethal weapon once the foe is stunned, a medpac for a dying
ally, a grenade into a cluster)."""
from __future__ import annotations

import random
from pathlib import Path

from engine.core.battle import Battle
from engine.core.dice import SeededDice
from engine.core.encounter_file import load_encounter, parse_encounter
from engine.core.generate import random_encounter
from engine.policies.heuristic import HeuristicPolicy
from engine.rulesets import get_ruleset
from engine.rulesets.swurpg import conditions as K

from tests.heuristic_helpers import rate

RS = get_ruleset("swurpg")
ENCOUNTERS = sorted((Path(__file__).resolve().parents[2] / "configs/encounters/swurpg").glob("*.yaml"))


def test_it_beats_random_in_both_seats_on_random_encounters_with_the_rulesets_actions():
    encs = [random_encounter(RS, random.Random(1000 + k), 12, 12, sizes=(1, 4)) for k in range(40)]
    for e in encs:
        e.round_limit = 20
    won, actions = rate(RS, encs, range(40))
    assert won >= 0.9, won
    for key in ("attack", "move", "off_hand"):
        assert actions[key] > 0, (key, actions)
    assert actions["grenade"] + actions["autofire"] > 0, actions


def test_it_beats_random_in_both_seats_on_the_shipped_encounters():
    encs = [load_encounter(p, RS) for p in ENCOUNTERS]
    assert len(encs) >= 4
    for e in encs:
        e.round_limit = 20  # as `tactician eval` plays them
    won, _ = rate(RS, encs, range(24))
    assert won >= 0.9, won


def _duel(red: str, blue: str, apart: int = 1) -> Battle:
    enc = parse_encounter(f"""
ruleset: swurpg
name: duel
map: |
  #########
  #.......#
  #.......#
  #.......#
  #########
units:
  - {{name: Red, side: pcs, template: {red}, at: [1, 2]}}
  - {{name: Blue, side: npcs, template: {blue}, at: [{1 + apart}, 2]}}
""", RS)
    b = Battle(enc, RS, SeededDice(1))
    b.start(initiative={0: 20, 1: 1})
    return b


def test_a_dual_wielder_follows_its_main_hand_attack_with_the_off_hand_one():
    b = _duel("smuggler", "battle_droid", apart=4)  # not within 5 ft: no disadvantage on the shots
    h = HeuristicPolicy(0)
    first = h.choose(b)
    assert first.action == "attack"
    b.step(first)
    assert h.choose(b).action == "off_hand"


def test_it_draws_a_lethal_weapon_once_its_foe_is_stunned():
    b = _duel("security_guard", "battle_droid")
    K.add(b.enc.units[1].state, "stunned", K.UNTIL_SAVED, "con", 12, 0)
    d = HeuristicPolicy(0).choose(b)
    assert (d.action, d.option) == ("draw", 1), d  # the blaster pistol: the stun baton does no damage


def test_a_medic_wakes_its_dying_ally_with_a_medpac():
    enc = parse_encounter("""
ruleset: swurpg
name: medic
map: |
  ##########
  #........#
  #........#
  ##########
units:
  - {name: Medic, side: pcs, template: security_guard, at: [1, 1], medpacs: 2}
  - {name: Kira, side: pcs, template: smuggler, at: [2, 1]}
  - {name: Droid, side: npcs, template: battle_droid, at: [8, 2]}
""", RS)
    b = Battle(enc, RS, SeededDice(1))
    b.start(initiative={0: 20, 1: 5, 2: 1})
    kira = b.enc.units[1]
    kira.hp = 0
    kira.down = True
    K.add(kira.state, "unconscious")
    d = HeuristicPolicy(0).choose(b)
    assert (d.action, d.target) == ("medpac", 1), d
