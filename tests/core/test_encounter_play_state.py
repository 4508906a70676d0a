"""Encounter files set the play state a GM needs (prone, a condition-track step, resources spent), validated by the
ruleset like a saved state: unknown keys, wrong types and values the rules cannot play are refused by line."""
from __future__ import annotations

import pytest

from engine.core.battle import Battle
from engine.core.dice import ScriptedDice
from engine.core.encounter_file import parse_encounter
from engine.core.errors import InputError
from engine.rulesets import get_ruleset

MAP = """ruleset: saga
map: |
  ######
  #....#
  #....#
  ######
units:
  - {name: Kira, side: pcs, template: jedi_knight, at: [1, 1]%s}
  - {name: Trooper, side: npcs, template: trooper, at: [4, 2]}
"""


def _enc(extra: str):
    return parse_encounter(MAP % extra, "test.yaml")


def test_a_unit_starts_prone_one_step_down_the_track_with_its_second_wind_spent():
    enc = _enc(", state: {prone: true, ct: 2, winds_used: 1}")
    kira = enc.units[0]
    assert kira.state["prone"] is True and kira.state["ct"] == 2 and kira.state["winds_used"] == 1
    assert enc.units[1].state["prone"] is False  # the other unit starts fresh
    # the rules play it: a prone unit's legal decisions include standing up
    b = Battle(enc, get_ruleset("saga"), ScriptedDice([20, 1]))
    b.start()
    assert b.enc.actor is kira and any(d.action.startswith("stand_up") for d in b.legal())


@pytest.mark.parametrize("extra, what, fix", [
    (", state: {flying: true}", "unknown play-state key 'flying' for Kira", "aimed"),
    (", state: {ct: 9}", "condition track step 9 is not 0..5", "0 is normal"),
    (", state: {prone: 3}", "'prone' is 3, not a bool", "'state:'"),
    (", state: [prone]", "'state' of Kira must be a mapping", "keys: "),
])
def test_a_play_state_the_rules_cannot_play_is_refused_naming_the_line(extra, what, fix):
    with pytest.raises(InputError) as exc:
        _enc(extra)
    assert what in exc.value.what and fix in exc.value.fix
    assert exc.value.where.startswith("test.yaml line 8")
