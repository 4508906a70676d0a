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


def test_it_sheathes_an_off_hand_weapon_that_only_costs_it_the_minus_5_of_two_weapons():
    """A guard with its blaster pistol in the main hand and its stun baton in the other shoots at -5 (two weapons
    wielded) and the baton gives it no off-hand shot: sheathing the baton (the free interaction) comes first."""
    b = _duel("security_guard", "battle_droid", apart=4)
    guard = b.enc.units[0]
    guard.state["wield"] = [1, 0]
    h = HeuristicPolicy(0)
    d = h.choose(b)
    assert d.action == "stow", d
    b.step(d)
    assert guard.state["wield"] == [1] and h.choose(b).action == "attack"


def test_a_stun_is_worth_the_turns_its_foe_loses_times_what_the_foe_deals():
    """The stun baton deals no damage: its worth is the foe's lost turns (it saves at the end of each) times the
    damage it would deal, not a share of its hit points. Two foes alike but for their weapon: stunning the armed
    one is worth more; a foe already stunned gains nothing from another stun."""
    from engine.rulesets.swurpg.estimates import strike

    def worth(damage):
        b = _duel("security_guard", "battle_droid")
        foe = b.enc.units[1]
        # a new stat block: the template's is shared by every unit made from it, and never changed in place
        foe.stats = {**foe.stats, "weapons": [{**foe.stats["weapons"][0], "damage": damage}]}
        foe.state["wield"] = [0]
        return strike(RS, b.enc, b.enc.units[0], foe, 0, True).expected_damage, b

    armed, _ = worth("2d8")
    feeble, b = worth("1")
    assert armed > 2 * feeble > 0
    K.add(b.enc.units[1].state, "stunned", K.UNTIL_SAVED, "con", 12, 0)
    assert strike(RS, b.enc, b.enc.units[0], b.enc.units[1], 0, True).expected_damage == 0
