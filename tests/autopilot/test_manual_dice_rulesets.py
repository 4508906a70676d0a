"""With the table's dice, every ruleset shows an attack's result before its damage is asked (Saga's is in
test_manual_dice.py, Rise's in tests/rise/test_words.py): the GM rolls damage knowing whether it hit."""
from __future__ import annotations

import pytest

from engine.core.encounter_file import parse_encounter
from engine.core.policy import RandomPolicy
from engine.rulesets import get_ruleset

from agents.autopilot import Session
from agents.autopilot.words import command_for

from .conftest import DIE, Table

# ruleset -> (the PC's template, the NPC's template): the PC shoots first, from three squares away
DUELS = {"starfinder": ("soldier", "space_goblin"), "swurpg": ("bounty_hunter", "stormtrooper"),
         "starship": ("heavy_fighter", "light_fighter")}


@pytest.mark.parametrize("rid", sorted(DUELS))
def test_an_attacks_result_shows_before_its_damage_is_asked(rid):
    rs = get_ruleset(rid)
    pc, npc = DUELS[rid]
    enc = parse_encounter(f"""
ruleset: {rid}
name: Range
map: |
  #######
  #.....#
  #######
units:
  - {{name: Ace, side: {rs.sides[0]}, template: {pc}, at: [1, 1]}}
  - {{name: Mark, side: {rs.sides[1]}, template: {npc}, at: [4, 1]}}
""", "range.yaml")
    asked_damage = []

    def answer(t, prompt):  # Ace's attack rolls 19, every other die 3
        if DIE.match(prompt) and "damage" in prompt:
            asked_damage.append(prompt)
        return "19" if not asked_damage and DIE.match(prompt) and "Ace" in prompt else "3"

    table = Table([], answer)
    s = Session(enc, rs, RandomPolicy(1), None, dice="manual", seed=1, ask=table.ask, say=table.say)
    table.session = s
    s.battle.start({0: 20, 1: 1})
    mark = s.enc.unit("Mark")
    attacks = [d for d in s.battle.legal()
               if d.target == mark.id and rs.estimate(s.enc, s.enc.actor, d).hit_chance > 0]
    assert attacks, f"{rid}: Ace has no attack on Mark from three squares"
    hp = mark.hp
    s.command(command_for(attacks[0], s.enc, rs))
    lines = table.out
    damage = next((i for i, line in enumerate(lines) if DIE.match(line) and "damage" in line), None)
    assert damage is not None, f"{rid}: no damage was asked\n" + table.text
    before = "\n".join(lines[:damage])
    assert "Mark" in before and "hit" in before.lower(), f"{rid}: the hit was not shown first\n" + table.text
    assert mark.hp < hp, table.text
